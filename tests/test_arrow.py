"""Arrow interop: ``to_arrow`` and ``from_arrow`` with pyarrow, polars and pandas.

Every check compares element by element with ``a.tolist()`` or pyarrow's ``to_pylist()``.
Failed imports are repeated to show that they leave nothing behind.
"""

import gc
import os

import numpy as np
import pytest
from conftest import (
    REFERENCE,
    Flavor,
    StringDType,
    is_nan,
    long_string,
    normalize,
    random_strings,
)

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.skipif(REFERENCE, reason="to_arrow/from_arrow are stringdtype-only")

if not REFERENCE:
    from stringdtype import from_arrow, memory_info, to_arrow

NONE_FLAVOR = Flavor(None, True)
STRING_TYPES = {
    "string": pa.string(),
    "large_string": pa.large_string(),
    "string_view": pa.string_view(),
}


def is_na(value, flavor):
    return flavor.has_na and (value is flavor.na_object or (flavor.na_is_nan and is_nan(value)))


def as_pylist(values, flavor):
    """What pyarrow reads for ``values``: missing values are None."""
    return [None if is_na(v, flavor) else v for v in values]


def from_pylist(values, flavor):
    """What an array of the flavor's dtype reads for a pyarrow list: None is NA."""
    return [flavor.na_object if v is None else v for v in values]


def exported(a):
    """``a`` exported and read by pyarrow."""
    out = pa.array(to_arrow(a))
    assert out.type == pa.string_view()
    return out


def assert_same(actual, expected):
    assert normalize(actual) == normalize(expected)


# ------------------------------------------------------------------------ round trips


def test_numpy_to_pyarrow_to_numpy(flavor, rng):
    values = random_strings(rng, 300, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    p = exported(a)
    assert p.to_pylist() == as_pylist(values, flavor)
    assert p.null_count == sum(is_na(v, flavor) for v in values)
    b = from_arrow(p, **flavor.kwargs)
    assert b.dtype == a.dtype and b.shape == a.shape
    assert_same(b.tolist(), a.tolist())


@pytest.mark.parametrize("type_name", STRING_TYPES)
def test_pyarrow_to_numpy_to_pyarrow(na_flavor, rng, type_name):
    values = as_pylist(random_strings(rng, 300, na_flavor.na_object), na_flavor)
    p = pa.array(values, type=STRING_TYPES[type_name])
    a = from_arrow(p, **na_flavor.kwargs)
    assert a.dtype == na_flavor.dtype() and a.ndim == 1
    assert_same(a.tolist(), from_pylist(values, na_flavor))
    assert exported(a).to_pylist() == values


def test_the_export_object(rng):
    values = random_strings(rng, 50, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    t = to_arrow(a)
    assert len(t) == 50
    assert t.null_count == values.count(None)
    assert (
        repr(t) == f"ArrowStringViewArray(length=50, null_count={t.null_count}, type=string_view)"
    )
    assert pa.DataType._import_from_c_capsule(t.__arrow_c_schema__()) == pa.string_view()
    # Each call hands out a new array over the same buffers; a requested schema is a hint.
    first = pa.array(t)
    second = pa.Array._import_from_c_capsule(*t.__arrow_c_array__(pa.string().__arrow_c_schema__()))
    assert first.to_pylist() == second.to_pylist() == values
    assert first.buffers()[1].address == second.buffers()[1].address
    # The export is itself an Arrow source.
    assert from_arrow(t, na_object=None).tolist() == values


def test_string_bytes_are_shared_not_copied(rng):
    a = np.array([long_string(rng, 100) for _ in range(200)], dtype=StringDType())
    p = exported(a)
    data_buffers = p.buffers()[2:]
    assert data_buffers, "long strings live in variadic data buffers"
    assert sum(b.size for b in data_buffers) <= memory_info(a)["arena_capacity"]
    assert len(data_buffers) == memory_info(a)["chunks"]


@pytest.mark.parametrize("values", [[], [""], ["a" * 12], ["b" * 13], [""] * 5])
def test_small_and_empty_arrays(values):
    a = np.array(values, dtype=StringDType())
    assert exported(a).to_pylist() == values
    for type_ in STRING_TYPES.values():
        b = from_arrow(pa.array(values, type=type_))
        assert b.shape == (len(values),) and b.tolist() == values


def test_empty_chunked_array():
    b = from_arrow(pa.chunked_array([], type=pa.string()), na_object=None)
    assert b.shape == (0,) and b.dtype == StringDType(na_object=None)


# ---------------------------------------------------------------- shapes and strides


def test_non_contiguous_and_nd_inputs(flavor, rng):
    values = random_strings(rng, 120, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    grid = a.reshape(8, 15)
    cases = {
        "step": a[::3],
        "reversed": a[::-1],
        "2-D": grid,
        "transposed": grid.T,
        "2-D strided": grid[1::2, ::-4],
        "Fortran": np.asfortranarray(grid),
        "3-D": a.reshape(2, 3, 20).transpose(1, 2, 0),
        "0-D": a[5:6].reshape(()),
        "empty": grid[:, 3:3],
    }
    for name, view in cases.items():
        expected = as_pylist(np.ravel(view, order="C").tolist(), flavor)
        assert normalize(exported(view).to_pylist()) == normalize(expected), name


# ------------------------------------------------------------------ pyarrow variants


def test_dictionary_arrays(na_flavor, rng):
    values = as_pylist(random_strings(rng, 40, na_flavor.na_object), na_flavor) * 3
    for type_ in STRING_TYPES.values():
        try:
            p = pa.array(values, type=type_).dictionary_encode()
        except pa.ArrowNotImplementedError:
            continue  # older pyarrow cannot dictionary-encode string_view
        a = from_arrow(p, **na_flavor.kwargs)
        assert_same(a.tolist(), from_pylist(values, na_flavor))


def test_sliced_arrays(na_flavor, rng):
    values = as_pylist(random_strings(rng, 100, na_flavor.na_object), na_flavor)
    for type_ in STRING_TYPES.values():
        p = pa.array(values, type=type_)
        for start, length in [(3, 50), (0, 0), (99, 1), (17, 83)]:
            a = from_arrow(p.slice(start, length), **na_flavor.kwargs)
            assert_same(a.tolist(), from_pylist(values[start : start + length], na_flavor))


def test_chunked_arrays_and_streams(rng):
    values = as_pylist(random_strings(rng, 90, None), NONE_FLAVOR)
    chunks = [
        pa.array(values[:30], type=pa.string()),
        pa.array(values[30:30], type=pa.string()),
        pa.array(values[30:], type=pa.string()),
    ]
    chunked = pa.chunked_array(chunks)
    assert from_arrow(chunked, na_object=None).tolist() == values
    view_chunks = pa.chunked_array([c.cast(pa.string_view()) for c in chunks])
    assert from_arrow(view_chunks, na_object=None).tolist() == values

    class StreamOnly:
        def __arrow_c_stream__(self, requested_schema=None):
            return chunked.__arrow_c_stream__(requested_schema)

    assert from_arrow(StreamOnly(), na_object=None).tolist() == values


# ------------------------------------------------------------------ immutability


def test_writes_after_export_do_not_change_it(rng):
    values = [long_string(rng, rng.randint(13, 300)) for _ in range(300)] + ["short", ""]
    a = np.array(values, dtype=StringDType())
    t = to_arrow(a)
    p = pa.array(t)
    # Overwrite every element with strings of other lengths, many times, so that freed
    # blocks would be reused if the exported chunks were not pinned.
    for _ in range(5):
        current = [long_string(rng, rng.randint(13, 300)) for _ in range(len(a))]
        a[:] = current
        a[::2] = "x"
        a[1::3] = np.strings.multiply(a[1::3], 2)
    a[-1] = "overwritten " * 10
    assert p.to_pylist() == values
    # The export object is a snapshot too: consumed after the writes, it has the old values.
    assert pa.array(t).to_pylist() == values
    current[::2] = ["x"] * len(current[::2])
    current[1::3] = [s * 2 for s in current[1::3]]
    current[-1] = "overwritten " * 10
    assert a.tolist() == current


def test_export_is_a_snapshot_of_a_view(rng):
    values = [long_string(rng, 40) for _ in range(20)]
    a = np.array(values, dtype=StringDType())
    p = exported(a[5:15])
    a[5:15] = "changed, and long enough to live in the arena"
    a.resize(0, refcheck=False)
    del a
    gc.collect()
    assert p.to_pylist() == values[5:15]


def test_pinning_ends_when_the_export_is_released(rng):
    # While an export lives, freed blocks of its chunks are not reused; after its release
    # they are, so that overwriting in a loop stays bounded in memory again.
    a = np.array([long_string(rng, 100) for _ in range(100)], dtype=StringDType())

    def overwrite(times):
        for _ in range(times):
            a[:] = [long_string(rng, 100) for _ in range(len(a))]
        return memory_info(a)["arena_capacity"]

    base = overwrite(3)
    t = to_arrow(a)
    capsules = t.__arrow_c_array__()  # handed out and dropped unconsumed
    p = pa.array(t)
    pinned = overwrite(3)
    assert pinned > base
    del t, capsules, p
    gc.collect()
    after = overwrite(20)
    assert after - pinned <= base, "blocks are reused once no export lives"


def test_exported_buffers_never_change(rng):
    # The current chunk is not the last one here (the 2 MiB string got a chunk of its
    # own after it): later strings are still carved from it, past what was exported.
    a = np.array(["a" * 40, "b" * 2**21, "c" * 40, ""], dtype=StringDType())
    e = pa.array(to_arrow(a))
    before = [None if b is None else b.to_pybytes() for b in e.buffers()]
    for i in range(200):
        a[i % 4] = long_string(rng, rng.randint(13, 40))
    assert [None if b is None else b.to_pybytes() for b in e.buffers()] == before
    assert e.to_pylist() == ["a" * 40, "b" * 2**21, "c" * 40, ""]


def test_repeated_exports_keep_memory_bounded():
    # Each export pins the chunks it shares; chunks that are mostly holes are copied
    # instead, so exporting and rewriting in turns cannot pin ever more free space.
    vals = [f"pin {i} {'l' * (i % 300)}" for i in range(2000)]
    a = np.array(vals, dtype=StringDType())
    capacity = []
    current = vals
    for r in range(300):
        e = pa.array(to_arrow(a))
        a[:] = vals[r % 7 :] + vals[: r % 7]
        assert e.to_pylist() == current
        current = a.tolist()
        del e
        capacity.append(memory_info(a)["arena_capacity"])
    assert capacity[-1] <= 2 * capacity[9], capacity[::30]


# --------------------------------------------------------------------- lifetimes


def test_numpy_array_dropped_first(rng):
    values = random_strings(rng, 100, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    t = to_arrow(a)
    del a
    gc.collect()
    p = pa.array(t)
    del t
    gc.collect()
    assert p.to_pylist() == values


def test_arrow_array_dropped_first(rng):
    values = random_strings(rng, 100, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    p = exported(a)
    del p
    gc.collect()
    assert a.tolist() == values
    a[0] = "still writable, and long enough"
    assert a[0] == "still writable, and long enough"


def test_capsules_outlive_their_producers(rng):
    values = random_strings(rng, 100, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    schema, array = to_arrow(a).__arrow_c_array__()
    del a
    gc.collect()
    p = pa.Array._import_from_c_capsule(schema, array)
    assert p.to_pylist() == values


def test_consuming_a_capsule_twice_fails_cleanly(rng):
    values = random_strings(rng, 20, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    schema, array = to_arrow(a).__arrow_c_array__()
    p = pa.Array._import_from_c_capsule(schema, array)
    with pytest.raises(Exception, match="(?i)released"):
        pa.Array._import_from_c_capsule(schema, array)

    class SameCapsules:
        def __arrow_c_array__(self, requested_schema=None):
            return capsules

    capsules = to_arrow(a).__arrow_c_array__()
    assert from_arrow(SameCapsules(), na_object=None).tolist() == values
    with pytest.raises(ValueError, match="already released"):
        from_arrow(SameCapsules(), na_object=None)
    assert p.to_pylist() == values


def test_wrong_capsules_are_type_errors():
    good = pa.array(["a"])

    class NotCapsules:
        def __arrow_c_array__(self, requested_schema=None):
            return (1, 2)

    class Swapped:
        def __arrow_c_array__(self, requested_schema=None):
            schema, array = good.__arrow_c_array__()
            return array, schema

    with pytest.raises(TypeError, match="PyCapsule"):
        from_arrow(NotCapsules())
    with pytest.raises(ValueError):
        from_arrow(Swapped())


# --------------------------------------------------------------------------- errors


def test_non_string_arrays_are_type_errors():
    with pytest.raises(TypeError, match="StringDType"):
        to_arrow(np.array(["a"]))
    with pytest.raises(TypeError, match="StringDType"):
        to_arrow(np.array(["a"], dtype=np.dtypes.StringDType()))
    with pytest.raises(TypeError, match="NumPy array"):
        to_arrow(["a"])
    with pytest.raises(TypeError, match="__arrow_c_array__"):
        from_arrow(["a"])
    with pytest.raises(TypeError, match='unsupported Arrow type "l"'):
        from_arrow(pa.array([1, 2], type=pa.int64()))
    with pytest.raises(TypeError, match='unsupported Arrow type "z"'):
        from_arrow(pa.array([b"a"], type=pa.binary()))
    with pytest.raises(TypeError, match="unexpected keyword"):
        from_arrow(pa.array(["a"]), dtype=StringDType())


def invalid_utf8_array(good=1000):
    """``good`` valid strings, long enough to fill an arena, then one invalid element."""
    strings = [f"element number {i:06d} is valid" for i in range(good)]
    data = "".join(strings).encode() + b"bad \xff byte"
    offsets = np.cumsum([0] + [len(s) for s in strings] + [10]).astype(np.int32)
    binary = pa.Array.from_buffers(
        pa.binary(), good + 1, [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(data)]
    )
    return binary.view(pa.string())


def test_invalid_utf8_is_a_unicode_decode_error():
    with pytest.raises(UnicodeDecodeError) as info:
        from_arrow(invalid_utf8_array(5))
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.encoding, err.object, err.start, err.end) == ("utf-8", b"bad \xff", 4, 5)
    assert "element 5" in str(err) and "0xff" in str(err)


def test_errors_in_later_chunks_count_from_the_start():
    chunked = pa.chunked_array([pa.array(["a", "b", "c"]), invalid_utf8_array(2)])
    with pytest.raises(UnicodeDecodeError, match="element 5"):
        from_arrow(chunked)


def test_nulls_need_an_na_object():
    p = pa.array(["a", "b", None])
    with pytest.raises(ValueError, match="element 2 .* null.*na_object"):
        from_arrow(p)
    with pytest.raises(ValueError, match="element 2"):
        from_arrow(pa.chunked_array([["x"], ["a", None]]))
    assert from_arrow(p, na_object="NA").tolist() == ["a", "b", "NA"]


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc/self/statm")
def test_failed_imports_leak_nothing():
    bad_utf8 = invalid_utf8_array(1000)  # about 30 kB of strings stored before the error
    strings = [f"a long string number {i:06d}" for i in range(1000)]
    late_null = pa.chunked_array([pa.array(strings), pa.array(["x", None])])
    wrong_type = pa.array(np.arange(1000))

    def fail_all():
        for source, error in [
            (bad_utf8, UnicodeDecodeError),
            (bad_utf8.cast(pa.string_view()), UnicodeDecodeError),
            (late_null, ValueError),
            (wrong_type, TypeError),
        ]:
            with pytest.raises(error):
                from_arrow(source)

    for _ in range(50):
        fail_all()
    gc.collect()
    before = rss_bytes()
    for _ in range(1500):
        fail_all()
    gc.collect()
    growth = rss_bytes() - before
    # Leaking the strings of each failed import would grow by more than 100 MB.
    assert growth < 16 * 2**20, f"RSS grew by {growth / 2**20:.1f} MiB"


# --------------------------------------------------------------- polars and pandas


def test_polars_both_ways(na_flavor, rng):
    pl = pytest.importorskip("polars")
    values = random_strings(rng, 200, na_flavor.na_object)
    a = np.array(values, dtype=na_flavor.dtype())
    s = pl.Series(to_arrow(a))
    assert s.dtype == pl.String
    assert s.to_list() == as_pylist(values, na_flavor)
    assert pl.from_arrow(exported(a)).to_list() == as_pylist(values, na_flavor)
    b = from_arrow(s, **na_flavor.kwargs)
    assert b.dtype == a.dtype
    assert_same(b.tolist(), a.tolist())
    assert_same(from_arrow(s[10:50], **na_flavor.kwargs).tolist(), a[10:50].tolist())


def test_pandas_both_ways(rng):
    pd = pytest.importorskip("pandas")
    values = as_pylist(random_strings(rng, 200, None), NONE_FLAVOR)
    series = pd.Series(values, dtype="string[pyarrow]")
    # NumPy from pandas: through pyarrow (any pandas), or directly (pandas >= 3).
    a = from_arrow(pa.array(series), na_object=pd.NA)
    assert a.dtype == StringDType(na_object=pd.NA)
    assert [None if v is pd.NA else v for v in a.tolist()] == values
    if hasattr(series, "__arrow_c_stream__"):
        assert from_arrow(series, na_object=None).tolist() == values
    # pandas from NumPy: through pyarrow (any pandas), or directly (pandas >= 3).
    back = pd.Series(pa.array(to_arrow(a)), dtype="string[pyarrow]")
    assert back.dtype == series.dtype
    assert back.isna().tolist() == [v is None for v in values]
    assert back.equals(series)
    if hasattr(pd.Series, "from_arrow"):
        direct = pd.Series.from_arrow(to_arrow(a))
        assert direct.isna().tolist() == [v is None for v in values]
        assert direct.dropna().tolist() == [v for v in values if v is not None]


def test_exports_and_imports_while_other_threads_write():
    import threading

    size, rounds = 200, 300
    old = [f"old value {i:04d}, long enough for the arena" for i in range(size)]
    new = [f"new {i:04d}" + "!" * (i % 40) for i in range(size)]
    a = np.array(old, dtype=StringDType())
    errors = []

    def writer():
        try:
            for r in range(rounds):
                a[:] = new if r % 2 else old
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def exporter():
        try:
            for _ in range(rounds):
                got = exported(a).to_pylist()
                assert all(g in (o, n) for g, o, n in zip(got, old, new))
                assert from_arrow(pa.array(got)).tolist() == got
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer)] + [
        threading.Thread(target=exporter) for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_imported_strings_are_accounted_and_overwrites_stay_bounded(rng):
    values = [long_string(rng, rng.randint(13, 200)) for _ in range(500)] + ["short"]
    a = from_arrow(pa.array(values, type=pa.string_view()))
    info = memory_info(a)
    long_bytes = sum(len(v.encode()) for v in values if len(v.encode()) > 12)
    assert info["string_bytes"] == info["arena_used"] == long_bytes
    assert info["arena_capacity"] <= long_bytes + 2**14
    for _ in range(10):
        a[:] = [long_string(rng, rng.randint(13, 200)) for _ in range(len(a))]
    after = memory_info(a)
    # The imported strings stay in their packed chunks until the array goes; the new
    # strings reuse their own holes, so memory stays bounded.
    assert after["arena_capacity"] < 4 * info["arena_capacity"]
    assert a.tolist()[0] != values[0]
