"""Elements that reach an array by ways other than its own writes: a second dtype
instance over the same memory, raw bytes, NumPy's temporary copies of overlapping
operands and the needles of ``np.searchsorted``. Reads are right or a clear error; a
release the arena cannot prove is its own is ignored; nothing crashes.

Cases that crashed once run in a subprocess (``run_isolated``)."""

import inspect
import struct
import textwrap

import numpy as np
import pytest
from conftest import (
    NUMPY_RELEASE,
    StringDType,
    forge,
    long_string,
    package_only,
    random_strings,
    run_isolated,
)

pytestmark = package_only

# NumPy 2.5 refuses a view with a new descriptor, and arrays of references over foreign
# buffers ("Cannot change data-type for array of references"), so those two ways in are
# closed there; raw bytes still reach an element through its own memory (``ctypes``).
VIEWS_ALLOWED = NUMPY_RELEASE < (2, 5)


def test_numpy_refuses_views_with_a_new_descriptor_when_it_says_so():
    a = np.array(["x" * 20], dtype=StringDType())
    if VIEWS_ALLOWED:
        assert a.view(StringDType())[0] == "x" * 20
    else:
        with pytest.raises(TypeError, match="references"):
            a.view(StringDType())


@pytest.mark.skipif(not VIEWS_ALLOWED, reason="NumPy refuses the view")
def test_a_second_descriptor_over_the_same_elements_never_corrupts():
    out = run_isolated(
        """
        a = np.array(['s%d' % i for i in range(400)], dtype=StringDType())
        for i in range(300):
            a[i] = chr(65 + i % 26) * 10000
        b = a.view(StringDType())          # its own, empty arena
        for i in range(300, 309):
            b[i] = 'x' * 1_100_000          # b's arena: one dedicated chunk each
        a[308] = 'tiny'                     # a must not release b's string
        a[350:351] = a[0:1]
        assert a[308] == 'tiny' and a[350] == 'A' * 10000
        # While b lives, its strings read right through a, and a's through b.
        assert a[300] == 'x' * 1_100_000 and b[0] == 'A' * 10000
        assert a[:300].tolist() == [chr(65 + i % 26) * 10000 for i in range(300)]
        print('ok')
        """
    )
    assert out.strip() == "ok"


@pytest.mark.skipif(not VIEWS_ALLOWED, reason="NumPy refuses the view")
def test_strings_of_a_dead_descriptor_are_errors_not_garbage():
    out = run_isolated(
        """
        a = np.array(['x' * 20, 'y' * 30, 'short', 'z' * 40], dtype=StringDType())
        b = a.view(StringDType())
        b[2] = 'Q' * 25
        b[0] = 'W' * 20
        assert a.tolist() == ['W' * 20, 'y' * 30, 'Q' * 25, 'z' * 40]
        del b
        # Arenas made now may take the dead arena's place in the registry.
        keep = [np.array(['r' * 25] * 10, dtype=StringDType()) for _ in range(5)]
        def right_or_error(i, want):
            try:
                value = a[i]
            except ValueError as e:
                assert 'corrupt string element' in str(e)
                return False
            assert value == want, 'read %r from a freed arena' % value
            return True
        # a may still hold the chunks it read through; a write to a lets them go.
        right_or_error(0, 'W' * 20)
        a[1] = 'y' * 30
        assert not right_or_error(0, 'W' * 20) and not right_or_error(2, 'Q' * 25)
        assert a[1] == 'y' * 30 and a[3] == 'z' * 40
        a[0] = 'fine again, a long string'
        assert a[0] == 'fine again, a long string'
        print('ok')
        """
    )
    assert out.strip() == "ok"


def test_forged_views_are_never_released():
    # The child gets this module's `forge`, so both sides forge the same way.
    out = run_isolated(
        inspect.getsource(forge)
        + textwrap.dedent(
            """
        import ctypes, struct
        from stringdtype import memory_info
        a = np.array(['s%d' % i for i in range(400)], dtype=StringDType())
        for i in range(300):
            a[i] = chr(65 + i % 26) * 10000
        real = ctypes.string_at(a.ctypes.data, 16)   # element 0's view, as raw bytes
        length, prefix, chunk, offset = struct.unpack('<I4sII', real)
        forgeries = [
            (1_100_000, b'AAAA', chunk, 0),       # a dedicated size in an ordinary chunk
            (10000, prefix, chunk, offset + 16),  # not the start of a block
            (20000, prefix, chunk, offset),       # the wrong size class
            (10000, prefix, chunk + 1000, 0),     # no such chunk
            (10000, prefix, 7, 0),                # nobody's chunk
        ]
        before = memory_info(a)
        c = a[390:391]                           # an inline element of a, over a's arena
        for forged in forgeries:
            forge(c, 0, struct.pack('<I4sII', *forged))
            c[0] = 'x'                            # releases the forged view
            assert memory_info(a) == before, forged
        # The real string, copied by hand, is released once only.
        forge(c, 0, real)
        c[0] = 'x'
        after = memory_info(a)
        forge(c, 0, real)
        c[0] = 'x'
        assert memory_info(a) == after
        a[0] = 'A' * 10000                        # a owns its element 0 again
        a[350:351] = a[0:1]
        for i in range(1, 300):
            assert a[i] == chr(65 + i % 26) * 10000, i
        print('ok')
        """
        )
    )
    assert out.strip() == "ok"


def test_raw_bytes_that_point_nowhere_read_as_errors():
    a = np.array(["a long string of some length"], dtype=StringDType())
    c = np.array(["x"], dtype=a.dtype)
    forge(c, 0, struct.pack("<I4sII", 100, b"abcd", 5, 0))
    with pytest.raises(ValueError, match="corrupt string element"):
        c[0]
    with pytest.raises(ValueError, match="corrupt string element"):
        np.strings.upper(c)
    assert a[0] == "a long string of some length"


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_long_strings(rng, side):
    hay = sorted(random_strings(rng, 300) + [long_string(rng, 30) for _ in range(100)])
    needles = random_strings(rng, 200) + hay[::7] + [long_string(rng, 20) for _ in range(50)]
    want = np.searchsorted(np.array(hay, dtype=object), np.array(needles, dtype=object), side)
    h = np.array(hay, dtype=StringDType())
    # (A 'U' array of needles is refused, as by NumPy's StringDType: U -> T is not safe.)
    for n in (np.array(needles, dtype=StringDType()), needles):
        assert (np.searchsorted(h, n, side) == want).all()
    sorter = np.argsort(h)
    assert (h.searchsorted(np.array(needles, dtype=StringDType()), side, sorter) == want).all()
    # A haystack that is a view, and needles with missing values.
    assert (
        np.searchsorted(h[::2], n, side)
        == np.searchsorted(np.array(hay[::2], object), needles, side)
    ).all()


def test_searchsorted_with_missing_values():
    dt = StringDType(na_object=np.nan)
    hay = np.array(["a" * 20, "b" * 20, "c" * 20, np.nan], dtype=dt)
    needles = np.array([np.nan, "b" * 20, "bc", "bb"], dtype=dt)
    assert np.searchsorted(hay, needles).tolist() == [3, 1, 2, 1]


def overlap_cases(rng):
    # Strings that make 13-40 byte results, non-ASCII, around the inline limit.
    values = [long_string(rng, rng.randint(13, 40)) for _ in range(8)]
    values += random_strings(rng, 8)
    return values


@pytest.mark.parametrize("suffix", ["!", "é", "a long suffix to append"])
def test_out_overlapping_an_input(rng, suffix):
    vals = overlap_cases(rng)
    a = np.array(vals, dtype=StringDType())
    np.add(a[::-1], suffix, out=a)
    assert a.tolist() == [v + suffix for v in vals[::-1]]

    mask = np.array([rng.random() < 0.5 for _ in vals])
    b = np.array(vals, dtype=StringDType())
    np.add(b[::-1], suffix, out=b, where=mask)
    assert b.tolist() == [r + suffix if m else o for r, m, o in zip(vals[::-1], mask, vals)]
    for text in b.tolist():
        text.encode("utf-8")

    r = np.array(vals, dtype=StringDType())
    np.multiply(r[::-1], 3, out=r)
    assert r.tolist() == [v * 3 for v in vals[::-1]]

    c = np.array(vals, dtype=StringDType())
    np.maximum(c, c[::-1], out=c)
    assert c.tolist() == [max(x, y) for x, y in zip(vals, vals[::-1])]

    m = np.array(vals, dtype=StringDType()).reshape(4, 4)
    expected = (np.array(vals, dtype=object).reshape(4, 4).T + "").tolist()
    np.add(m.T, "", out=m)
    assert m.tolist() == expected


def test_overlapping_results_export_as_valid_utf8(rng):
    pa = pytest.importorskip("pyarrow")
    from stringdtype import to_arrow

    vals = overlap_cases(rng)
    a = np.array(vals, dtype=StringDType())
    mask = np.array([i % 3 != 0 for i in range(len(vals))])
    np.add(a[::-1], "é", out=a, where=mask)
    pa.array(to_arrow(a)).validate(full=True)


def test_polars_reads_overlapping_results():
    out = run_isolated(
        """
        import random
        import polars as pl
        from stringdtype import to_arrow
        rng = random.Random(0)
        vals = [''.join(rng.choice('aé日🙂xyz') for _ in range(rng.randint(13, 40))) for _ in range(8)]
        a = np.array(vals, dtype=StringDType())
        mask = np.array([rng.random() < 0.5 for _ in range(8)])
        np.add(a[::-1], 'é', out=a, where=mask)
        want = [r + 'é' if m else o for r, m, o in zip(vals[::-1], mask, vals)]
        assert a.tolist() == want
        assert pl.Series(to_arrow(a)).str.to_uppercase().to_list() == [w.upper() for w in want]
        print('ok')
        """
    )
    assert out.strip() == "ok"
