"""Working next to NumPy's own StringDType: casts both ways over NumPy's string C API,
the common DType of the two (this package's), and every operation that mixes them.

The expectations are NumPy's own: a cast between the two gives what NumPy's cast between
two of its StringDTypes with the same parameters gives, and a mixed operation what the
same operation gives on two arrays of this package's dtype (which the rest of the suite
checks against NumPy).
"""

import operator

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    REFERENCE,
    NumpyStringDType,
    StringDType,
    normalize,
    random_strings,
    run_isolated,
)

pytestmark = pytest.mark.skipif(
    REFERENCE, reason="the bridge between two dtypes; the reference run has one"
)

COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
PAIRS = [(src, dst) for src in FLAVORS for dst in FLAVORS]


def _ids(pair):
    return f"{pair[0]}-to-{pair[1]}"


@pytest.mark.parametrize("pair", PAIRS, ids=_ids)
def test_casts_both_ways_give_numpys_answers(pair, rng):
    src, dst = pair
    values = random_strings(rng, 80, src.na_object)
    ours = np.array(values, dtype=src.dtype())
    numpys = np.array(values, dtype=src.ref())
    expected = normalize(numpys.astype(dst.ref()).tolist())

    to_numpy = ours.astype(dst.ref())
    assert type(to_numpy.dtype) is NumpyStringDType
    assert to_numpy.dtype == dst.ref()
    assert normalize(to_numpy.tolist()) == expected

    from_numpy = numpys.astype(dst.dtype())
    assert type(from_numpy.dtype) is StringDType
    assert from_numpy.dtype == dst.dtype()
    assert normalize(from_numpy.tolist()) == expected


@pytest.mark.parametrize("pair", PAIRS, ids=_ids)
@pytest.mark.parametrize("casting", ["safe", "same_kind", "unsafe"])
def test_casting_levels_are_numpys(pair, casting):
    src, dst = pair
    expected = np.can_cast(src.ref(), dst.ref(), casting)
    assert np.can_cast(src.dtype(), dst.ref(), casting) == expected
    assert np.can_cast(src.ref(), dst.dtype(), casting) == expected


def test_a_cast_is_never_a_view():
    # The element layouts differ, so not even equal parameters make the cast a no-op.
    assert not np.can_cast(StringDType(), NumpyStringDType(), "no")
    assert not np.can_cast(NumpyStringDType(), StringDType(), "equiv")


def test_cast_to_the_class_keeps_the_parameters(flavor, rng):
    values = random_strings(rng, 30, flavor.na_object)
    ours = np.array(values, dtype=flavor.dtype())
    numpys = ours.astype(NumpyStringDType)
    assert numpys.dtype == flavor.ref()
    back = numpys.astype(StringDType)
    assert back.dtype == flavor.dtype()
    assert normalize(back.tolist()) == normalize(ours.tolist())


@pytest.mark.parametrize("layout", ["2d", "transposed", "strided", "reversed", "empty"])
def test_casts_of_any_layout(flavor, rng, layout):
    values = random_strings(rng, 60, flavor.na_object)
    base = np.array(values, dtype=flavor.dtype())
    view = {
        "2d": lambda a: a.reshape(6, 10),
        "transposed": lambda a: a.reshape(6, 10).T,
        "strided": lambda a: a[1::3],
        "reversed": lambda a: a[::-1],
        "empty": lambda a: a[:0].reshape(0, 4),
    }[layout](base)
    expected = normalize(view.astype(object).tolist())
    there = view.astype(flavor.ref())
    assert there.shape == view.shape
    assert normalize(there.tolist()) == expected
    back = there[..., ::-1][..., ::-1].astype(flavor.dtype())
    assert normalize(back.tolist()) == expected


def test_writes_into_existing_arrays_release_their_strings(flavor, rng):
    # Buffered casts and assignment overwrite elements that already hold long strings.
    values = random_strings(rng, 40, flavor.na_object)
    ours = np.array(values, dtype=flavor.dtype())
    numpys = np.array(values[::-1], dtype=flavor.ref())
    for _ in range(3):
        ours[:] = numpys
        assert normalize(ours.tolist()) == normalize(numpys.tolist())
        numpys[::2] = ours[::2][::-1]
        ours[1::2] = numpys[::2]
    expected = normalize(numpys.tolist())
    ours[...] = numpys
    assert normalize(ours.tolist()) == expected


def _same_flavor_arrays(flavor, rng, n=60):
    left = random_strings(rng, n, flavor.na_object)
    right = [v if rng.random() < 0.5 else w for v, w in zip(left, random_strings(rng, n))]
    return (
        np.array(left, dtype=flavor.dtype()),
        np.array(right, dtype=flavor.dtype()),
    )


@pytest.mark.parametrize("op", COMPARISONS, ids=lambda op: op.__name__)
def test_comparisons_in_both_orders(flavor, rng, op):
    a, b = _same_flavor_arrays(flavor, rng)
    t = b.astype(flavor.ref())
    try:
        expected = op(a, b)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            op(a, t)
        return
    assert op(a, t).tolist() == expected.tolist()
    assert op(t, a).tolist() == op(b, a).tolist()


def test_comparisons_of_plain_strings_are_pythons(rng):
    left = random_strings(rng, 200)
    right = [v if rng.random() < 0.3 else w for v, w in zip(left, random_strings(rng, 200))]
    a = np.array(left, dtype=StringDType())
    t = np.array(right, dtype=NumpyStringDType())
    for op in COMPARISONS:
        assert op(a, t).tolist() == [op(x, y) for x, y in zip(left, right)]
        assert op(t, a).tolist() == [op(y, x) for x, y in zip(left, right)]


def test_the_common_dtype_is_this_packages(flavor):
    assert np.result_type(flavor.dtype(), flavor.ref()) == flavor.dtype()
    assert np.result_type(flavor.ref(), flavor.dtype()) == flavor.dtype()
    assert type(np.result_type(flavor.ref(), flavor.dtype())) is StringDType


def test_mixed_array_operations(flavor, rng):
    a, b = _same_flavor_arrays(flavor, rng)
    t = b.astype(flavor.ref())
    joined = np.concatenate([a, t])
    assert type(joined.dtype) is StringDType
    assert normalize(joined.tolist()) == normalize(a.tolist() + b.tolist())
    stacked = np.stack([t, a])
    assert type(stacked.dtype) is StringDType
    assert normalize(stacked.tolist()) == [normalize(b.tolist()), normalize(a.tolist())]
    mask = np.array([rng.random() < 0.5 for _ in range(len(a))])
    chosen = np.where(mask, a, t)
    assert type(chosen.dtype) is StringDType
    assert normalize(chosen.tolist()) == normalize(np.where(mask, a, b).tolist())


def test_copyto_and_assignment_both_ways(flavor, rng):
    a, b = _same_flavor_arrays(flavor, rng)
    t = np.empty(len(a), dtype=flavor.ref())
    np.copyto(t, a)
    assert normalize(t.tolist()) == normalize(a.tolist())
    np.copyto(a, b.astype(flavor.ref()))
    assert normalize(a.tolist()) == normalize(b.tolist())
    t[::2] = b[::2]
    a[1::2] = t[1::2]
    assert normalize(a[1::2].tolist()) == normalize(t[1::2].tolist())


def test_incompatible_missing_values_do_not_meet():
    a = np.array(["x", None], dtype=StringDType(na_object=None))
    t = np.array(["y", np.nan], dtype=NumpyStringDType(na_object=np.nan))
    with pytest.raises(TypeError, match="common instance"):
        np.concatenate([a, t])


def test_errors_that_name_both_dtypes_tell_them_apart():
    a = np.array(["x"], dtype=StringDType())
    t = np.array(["y"], dtype=NumpyStringDType())
    with pytest.raises(TypeError) as raised:
        np.bitwise_and(a, t)
    message = str(raised.value)
    assert "stringdtype.StringDType" in message
    assert "numpy.dtypes.StringDType" in message


CAST_ERRORS = {
    "astype": lambda src, dst, casting: src.astype(dst, casting=casting),
    "copyto": lambda src, dst, casting: np.copyto(np.empty(1, dtype=dst), src, casting=casting),
}


@pytest.mark.skipif(REFERENCE, reason="two dtypes of different packages")
@pytest.mark.parametrize("how", CAST_ERRORS)
@pytest.mark.parametrize("casting", ["no", "equiv"])
def test_cast_errors_tell_the_dtypes_apart(how, casting):
    # NumPy prints the descriptors by their repr; this package's names the package.
    ours, numpys = StringDType(na_object=None), NumpyStringDType(na_object=None)
    for src, dst in [(ours, numpys), (numpys, ours)]:
        with pytest.raises(TypeError) as raised:
            CAST_ERRORS[how](np.array(["x"], dtype=src), dst, casting)
        assert str(raised.value) == (
            f"Cannot cast array data from {src!r} to {dst!r} according to the rule '{casting}'"
        )
    assert repr(ours) == "stringdtype.StringDType(na_object=None)"
    assert repr(numpys) == "StringDType(na_object=None)"


def test_casts_racing_in_opposite_directions_do_not_deadlock():
    # Each cast holds NumPy's allocator and this package's arena at once, always in
    # the same order.
    run_isolated(
        """
        import threading
        words = [("w%d" % i) * (i % 7) for i in range(20000)]
        a = np.array(words, dtype=StringDType())
        t = np.array(words, dtype=np.dtypes.StringDType())
        def forth():
            for _ in range(20):
                t[:] = a
        def back():
            for _ in range(20):
                a[:] = t
        threads = [threading.Thread(target=f) for f in (forth, back, forth, back)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert a.tolist() == words and t.tolist() == words
        print("ok")
        """,
        timeout=120,
    )


def test_a_cast_from_numpys_dtype_that_runs_out_of_memory_changes_nothing():
    # Strings of 100 MiB under an address-space limit 300 MiB above the process's: the
    # third cannot be stored. A destination of inline strings (written as each string
    # converts) and one holding long strings (written after all converted) are left as
    # they were, with no string of the failed cast kept in their arenas.
    out = run_isolated(
        """
        import resource
        from stringdtype import memory_info
        t = np.array(["a", "b" * 20] + ["y" * (100 * 2**20)] * 4 + ["c" * 30],
                     dtype=np.dtypes.StringDType())
        targets = {
            "inline": ["keep", "", "é中", "q" * 12, "", "r", ""],
            "long": ["keep", "l" * 40, "é中" * 10, "", "m" * 13, "r", ""],
        }
        arrays = {k: np.array(v, dtype=StringDType()) for k, v in targets.items()}
        held = {k: memory_info(a)["string_bytes"] for k, a in arrays.items()}
        status = open("/proc/self/status").read()
        vm = int(status.split("VmSize:")[1].split()[0]) * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (vm + 300 * 2**20, hard))
        for kind, a in arrays.items():
            try:
                np.copyto(a, t)
            except MemoryError:
                print(kind, "MemoryError")
            assert a.tolist() == targets[kind], (kind, [s[:20] for s in a.tolist()])
            assert memory_info(a)["string_bytes"] == held[kind]
        try:
            t.astype(StringDType())
        except MemoryError:
            print("astype MemoryError")
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        small = t[:2].astype(StringDType())
        assert small.tolist() == ["a", "b" * 20]
        """,
        timeout=120,
    )
    assert out.split("\n")[:3] == ["inline MemoryError", "long MemoryError", "astype MemoryError"]


def test_libraries_that_know_numpys_dtype_take_a_safe_path():
    # pyarrow reads NumPy's StringDType through NumPy's C string API: on this dtype it
    # must refuse (to_arrow is the way), never read the views as NumPy's strings.
    out = run_isolated(
        """
        import pyarrow as pa, polars as pl
        values = ["a", "b" * 30, None]
        a = np.array(values, dtype=StringDType(na_object=None))
        try:
            pa.array(a)
        except (pa.ArrowException, TypeError) as exc:
            print("pyarrow refuses:", type(exc).__name__)
        assert pl.Series(a).to_list() == values
        print("polars ok")
        """
    )
    assert out.splitlines() == ["pyarrow refuses: ArrowNotImplementedError", "polars ok"]
