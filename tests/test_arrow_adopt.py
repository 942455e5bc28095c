"""``from_arrow`` reading long strings in place: a data buffer that is mostly long strings
becomes a chunk of the new array's arena (adopted), and the Arrow array is released when
the last array reading it goes.

Values are compared with pyarrow's ``to_pylist()``; whether a buffer was adopted is seen
from pyarrow's allocator: its bytes stay allocated after the Arrow array is deleted while
an imported array lives, and are freed with it.
"""

import gc
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import REFERENCE, long_string

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.skipif(REFERENCE, reason="from_arrow is stringdtype-only")

if not REFERENCE:
    from stringdtype import StringDType, from_arrow, memory_info, to_arrow

TYPES = [pa.string(), pa.large_string(), pa.string_view()]


def words(rng, n, short_share=0.1):
    """Mostly long strings: 13 bytes, exactly 12, non-ASCII, embedded NUL, long."""
    out = []
    for i in range(n):
        pick = rng.random()
        if pick < short_share:
            out.append(rng.choice(["", "a", "twelve bytes", "é" * 6]))
        elif pick < short_share + 0.1:
            out.append("thirteen byte")
        elif pick < short_share + 0.2:
            out.append("nul\x00inside" + long_string(rng, rng.randint(3, 40)))
        else:
            out.append(long_string(rng, rng.randint(13, 300)) + str(i))
    return out


def allocated():
    gc.collect()
    return pa.total_allocated_bytes()


def fresh_arrow(values, type_):
    """An Arrow array of ``values`` in buffers of its own (pyarrow's allocator)."""
    return pa.array(values, type=pa.string()).cast(type_)


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_values_and_nulls(rng, type_):
    values = words(rng, 3000)
    values[5] = None
    source = fresh_arrow(values, type_)
    a = from_arrow(source, na_object=None)
    assert a.tolist() == values
    # Reads through every path: item, ufuncs, casts, copies.
    assert a[7] == values[7]
    lengths = [None if v is None else len(v) for v in values]
    got = np.strings.str_len(np.where(a == None, "", a))  # noqa: E711
    assert got.tolist() == [0 if n is None else n for n in lengths]
    assert a.astype(object).tolist() == values
    assert a.copy().tolist() == values
    assert np.sort(a[a != None]).tolist() == sorted(v for v in values if v is not None)  # noqa: E711


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_the_arrow_array_lives_while_an_import_reads_it(rng, type_):
    values = words(rng, 2000)
    base = allocated()
    source = fresh_arrow(values, type_)
    held = allocated() - base
    a = from_arrow(source)
    del source
    # The data buffer is adopted: pyarrow still holds it for `a`.
    assert allocated() - base >= held // 2
    assert a.tolist() == values
    del a
    assert allocated() == base


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_mostly_short_or_sliced_arrays_are_copied(rng, type_):
    base = allocated()
    # Mostly short strings: the long ones are a small part of the buffers.
    source = fresh_arrow(words(rng, 4000, short_share=0.95), type_)
    a = from_arrow(source)
    expected = source.to_pylist()
    del source
    assert allocated() == base
    assert a.tolist() == expected
    # A few elements of a large array are copied, not kept with the whole buffer.
    big = fresh_arrow(words(rng, 4000), type_)
    part = big.slice(3000, 10)
    b = from_arrow(part)
    expected = part.to_pylist()
    del big, part
    assert allocated() == base
    assert b.tolist() == expected


def test_slices_and_chunks(rng):
    values = words(rng, 3000)
    source = fresh_arrow(values, pa.string())
    for start, stop in [(0, 3000), (1, 3000), (100, 2999), (1500, 3000)]:
        part = source.slice(start, stop - start)
        assert from_arrow(part).tolist() == values[start:stop]
        assert from_arrow(part.cast(pa.string_view())).tolist() == values[start:stop]
    chunked = pa.chunked_array([source.slice(0, 1000), source.slice(1000)])
    assert from_arrow(chunked).tolist() == values


def test_several_view_buffers(rng):
    # pyarrow's concatenation of string_view arrays keeps one data buffer per part.
    parts = [fresh_arrow(words(rng, 500), pa.string_view()) for _ in range(3)]
    joined = pa.concat_arrays(parts)
    assert len(joined.buffers()) > 4
    a = from_arrow(joined)
    assert a.tolist() == joined.to_pylist()


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_writes_never_reach_the_arrow_array(rng, type_):
    values = words(rng, 2000)
    source = fresh_arrow(values, type_)
    a = from_arrow(source)
    a[::2] = [long_string(rng, 50) for _ in range(1000)]
    a[1] = "x" * 40
    a[3:10] = a[3:10][::-1]
    a.sort()
    a[::-1].sort()
    np.add(a, "suffix beyond twelve", out=a)
    assert source.to_pylist() == values
    expected = list(a.tolist())
    b = a.copy()
    del a
    assert b.tolist() == expected


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_exports_and_copies_outlive_the_import(rng, type_):
    values = words(rng, 2000)
    base = allocated()
    a = from_arrow(fresh_arrow(values, type_))
    copy = a.copy()
    exported = pa.array(to_arrow(a))
    del a
    assert copy.tolist() == values
    assert exported.to_pylist() == values
    del copy
    assert exported.to_pylist() == values
    del exported
    # The last holder went without an array dying: the next import releases it.
    from_arrow(pa.array(["x"]))
    assert allocated() == base


def test_memory_is_accounted(rng):
    values = words(rng, 2000, short_share=0.0)
    source = fresh_arrow(values, pa.string())
    a = from_arrow(source)
    info = memory_info(a)
    long_bytes = sum(len(v.encode()) for v in values if len(v.encode()) > 12)
    assert info["string_bytes"] == info["arena_used"] == long_bytes
    assert info["arena_capacity"] == source.buffers()[2].size


def test_invalid_utf8_in_a_kept_buffer_is_an_error(rng):
    good = [long_string(rng, 40) for _ in range(200)]
    data = "".join(good).encode() + b"\xff" * 20
    offsets = np.cumsum([0] + [len(s.encode()) for s in good] + [20]).astype(np.int32)
    bad = pa.Array.from_buffers(
        pa.string(), len(good) + 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    base = allocated()
    for source in (bad, bad.cast(pa.string_view())):
        with pytest.raises(UnicodeDecodeError):
            from_arrow(source)
    del source
    from_arrow(pa.array(["x"]))
    assert allocated() == base


def test_python_backed_buffers_are_released_with_the_gil(rng):
    # Buffers over Python objects: their release takes the GIL. The array's last
    # reference goes in another thread while the main thread runs loops on arrays.
    values = [long_string(rng, 60) for _ in range(1000)]
    data = "".join(values).encode()
    offsets = np.cumsum([0] + [len(s.encode()) for s in values]).astype(np.int32)
    source = pa.Array.from_buffers(
        pa.string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    arrays = [from_arrow(source) for _ in range(20)]
    del source, data, offsets
    other = np.array(values * 20, dtype=StringDType())

    def drop_all():
        while arrays:
            arrays.pop()

    thread = threading.Thread(target=drop_all)
    thread.start()
    for _ in range(20):
        np.strings.upper(other)
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert not arrays


def test_imports_in_threads(rng):
    values = words(rng, 3000)
    sources = [fresh_arrow(values, t) for t in TYPES]
    errors = []

    def work():
        try:
            for _ in range(30):
                for source in sources:
                    a = from_arrow(source)
                    if a[1234] != values[1234] or a[-1] != values[-1]:
                        errors.append("wrong value")
                    b = a.copy()
                    del a
                    if b.tolist() != values:
                        errors.append("wrong copy")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors
    assert not any(t.is_alive() for t in threads)


def test_a_fork_child_reads_imported_strings():
    code = """
import os, sys
import pyarrow as pa
from stringdtype import from_arrow
values = ["a long string number %06d" % i for i in range(5000)]
a = from_arrow(pa.array(values))
pid = os.fork()
if pid == 0:
    ok = a.tolist() == values and a.copy().tolist() == values
    del a
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
assert a.tolist() == values
print("ok")
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_copied_strings_of_several_buffers_fill_few_chunks(rng):
    parts = [fresh_arrow(words(rng, 2000, short_share=0.95), pa.string_view()) for _ in range(4)]
    joined = pa.concat_arrays(parts)
    assert len(joined.buffers()) > 4
    a = from_arrow(joined)
    assert a.tolist() == joined.to_pylist()
    info = memory_info(a)
    long_bytes = sum(len(v.encode()) for v in a.tolist() if len(v.encode()) > 12)
    assert info["string_bytes"] == long_bytes
    # Copied end to end into one packed chunk (not a chunk per string or per buffer).
    assert info["chunks"] == 1
    assert info["arena_capacity"] == long_bytes


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_invalid_utf8_anywhere_in_a_large_buffer(type_):
    # Buffers of 1 MiB or more are validated in pieces on the thread pool: a bad byte
    # at the start, at the end, or next to where the pieces are cut is found, and
    # a valid multi-byte character across a cut is not an error.
    values = [("é€😀" * 6 + "abc")[: 10 + i % 20] * 3 for i in range(40_000)]
    data_len = sum(len(v.encode()) for v in values)
    assert data_len > 2**20
    assert from_arrow(pa.array(values).cast(type_)).tolist() == values
    for where in [0, 1, len(values) // 4, len(values) // 3, len(values) // 2, len(values) - 1]:
        bad = list(values)
        encoded = bad[where].encode()
        raw = [v.encode() for v in bad]
        raw[where] = encoded[:-1] + b"\xff"
        offsets = np.cumsum([0] + [len(r) for r in raw]).astype(np.int32)
        source = pa.Array.from_buffers(
            pa.string(), len(raw), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(raw))]
        )
        if type_ != pa.string():
            source = pa.Array.from_buffers(
                pa.large_string(),
                len(raw),
                [None, pa.py_buffer(offsets.astype(np.int64)), pa.py_buffer(b"".join(raw))],
            )
            if type_ == pa.string_view():
                source = source.cast(pa.string_view(), safe=False)
        with pytest.raises(UnicodeDecodeError, match=f"element {where} "):
            from_arrow(source)


def test_invalid_utf8_in_one_of_many_view_buffers():
    # Many data buffers of 1 MiB or more in all are validated on the pool, in runs of
    # buffers: the bad one is found and named by its element.
    good = [("é€😀" * 8)[: 13 + i % 20] for i in range(3000)]
    raw = [v.encode() for v in good]
    raw[1234] = raw[1234][:-1] + b"\xff"
    offsets = np.cumsum([0] + [len(r) for r in raw]).astype(np.int64)
    bad = pa.Array.from_buffers(
        pa.large_string(), len(raw), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(raw))]
    ).cast(pa.string_view(), safe=False)
    parts = [pa.array(good, type=pa.string_view()) for _ in range(12)]
    for at in [0, 5, 12]:
        joined = pa.concat_arrays([*parts[:at], bad, *parts[at:]])
        assert len(joined.buffers()) > 10
        assert sum(b.size for b in joined.buffers()[2:-1]) > 2**20
        with pytest.raises(UnicodeDecodeError, match=f"element {at * len(good) + 1234} "):
            from_arrow(joined)
    joined = pa.concat_arrays(parts)
    assert from_arrow(joined).tolist() == good * 12
