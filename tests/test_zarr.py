"""zarr 3, the real one: ``import stringdtype.zarr`` stores arrays of this dtype as zarr's
standard variable-length UTF-8 type (v3 ``"string"``), byte for byte what NumPy's
StringDType stores; NumPy's StringDType reads the data back; arrays of this dtype write
into zarr arrays of NumPy's StringDType; missing values do what zarr does with NumPy's
StringDType of the same ``na_object``.

In-memory (``MemoryStore``) and directory (``LocalStore``) stores, 1-D and 2-D, chunks
written in parts. zarr 3 needs Python 3.11.
"""

import itertools
import json
import sys

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    REFERENCE,
    NumpyStringDType,
    StringDType,
    normalize,
    outcome,
    random_strings,
    run_isolated,
)

if sys.version_info < (3, 11):
    pytest.skip("zarr 3 needs Python 3.11", allow_module_level=True)
if REFERENCE:
    pytest.skip("NumPy's own dtype is zarr's to support", allow_module_level=True)

zarr = pytest.importorskip("zarr", minversion="3.1")
stringdtype_zarr = pytest.importorskip("stringdtype.zarr")

PLAIN = [f for f in FLAVORS if not f.has_na]
WITH_NA = [f for f in FLAVORS if f.has_na]


@pytest.fixture(params=["memory", "local"])
def make_store(request, tmp_path):
    """A function returning a new, empty store of the parameter's kind (and its folder)."""
    count = iter(range(1000))

    def make():
        if request.param == "memory":
            return zarr.storage.MemoryStore(), None
        folder = tmp_path / f"store{next(count)}"
        return zarr.storage.LocalStore(folder), folder

    return make


def stored_metadata(store, folder):
    """The array's zarr.json as stored: the file itself for a directory store."""
    if folder is not None:
        return json.loads((folder / "zarr.json").read_text(encoding="utf-8"))
    return zarr.open_array(store, mode="r").metadata.to_dict()


def stored_chunks(store):
    """Every stored chunk's key and bytes (the metadata aside)."""
    group = zarr.storage.StorePath(store)
    keys = zarr.core.sync.sync(_list_keys(store))
    return {
        key: zarr.core.sync.sync(
            (group / key).get(prototype=zarr.core.buffer.default_buffer_prototype())
        ).to_bytes()
        for key in keys
        if key != "zarr.json"
    }


async def _list_keys(store):
    return sorted([key async for key in store.list()])


def test_import_does_not_import_zarr_and_works_without_it():
    out = run_isolated(
        """
        import sys
        import stringdtype
        a = np.array(["x", "y" * 20], dtype=StringDType())
        print("zarr" in sys.modules, "stringdtype.zarr" in sys.modules)
        """
    )
    assert out.split() == ["False", "False"]
    out = run_isolated(
        """
        import sys
        sys.modules["zarr"] = None  # as if zarr were not installed
        import stringdtype
        a = np.array(["x", "y" * 20], dtype=StringDType())
        try:
            import stringdtype.zarr
        except ImportError as exc:
            print("ImportError", exc.name.split(".")[0])
        """
    )
    assert out.split() == ["ImportError", "zarr"]


def test_the_data_type_is_zarrs_string_type():
    from zarr.dtype import VariableLengthUTF8, parse_dtype

    ours = parse_dtype(StringDType(), zarr_format=3)
    assert type(ours) is stringdtype_zarr.ArrowVariableLengthUTF8
    assert isinstance(ours, VariableLengthUTF8)
    assert type(ours.to_native_dtype()) is StringDType
    assert ours.to_json(zarr_format=3) == "string"
    assert ours.to_json(zarr_format=2) == VariableLengthUTF8().to_json(zarr_format=2)
    # NumPy's StringDType and the stored name still resolve to zarr's own class.
    assert type(parse_dtype(NumpyStringDType(), zarr_format=3)) is VariableLengthUTF8
    assert type(parse_dtype("string", zarr_format=3)) is VariableLengthUTF8
    assert type(parse_dtype(StringDType(coerce=False), zarr_format=3)) is type(ours)


def test_the_entry_point_names_the_data_type():
    # zarr collects the "zarr.data_type" entry points; zarr 3.1 does not load them itself
    # yet (hence `import stringdtype.zarr`), this one must load the registered class.
    from importlib.metadata import entry_points

    (entry,) = [e for e in entry_points(group="zarr.data_type") if e.name == "stringdtype"]
    assert entry.load() is stringdtype_zarr.ArrowVariableLengthUTF8


@pytest.mark.parametrize("flavor", PLAIN, ids=str)
def test_zarr_array_reads_back_this_dtype(flavor, rng):
    values = random_strings(rng, 80)
    a = np.array(values, dtype=flavor.dtype())
    z = zarr.array(a)
    assert z.dtype == StringDType()
    back = z[:]
    assert type(back.dtype) is StringDType
    assert normalize(back.tolist()) == normalize(values)
    assert normalize(z[5:17].tolist()) == normalize(values[5:17])
    assert z[3].item() == values[3]


@pytest.mark.parametrize("flavor", PLAIN, ids=str)
@pytest.mark.parametrize("shape, chunks", [((97,), (10,)), ((13, 11), (4, 3))], ids=["1d", "2d"])
def test_chunked_writes_round_trip(make_store, flavor, rng, shape, chunks):
    n = int(np.prod(shape))
    values = random_strings(rng, n)
    a = np.array(values, dtype=flavor.dtype()).reshape(shape)
    store, folder = make_store()
    z = zarr.create_array(store, shape=shape, chunks=chunks, dtype=a.dtype)
    # Parts that start and end inside chunks, so that most chunks are merged.
    cuts = sorted({0, shape[0], *(rng.randrange(shape[0]) for _ in range(4))})
    for start, stop in itertools.pairwise(cuts):
        z[start:stop] = a[start:stop]
    expected = np.array(values, dtype=object).reshape(shape).tolist()
    assert type(z[:].dtype) is StringDType
    assert normalize(z[:].tolist()) == normalize(expected)

    metadata = stored_metadata(store, folder)
    assert metadata["data_type"] == "string"
    assert metadata["fill_value"] == ""
    assert metadata["codecs"][0]["name"] == "vlen-utf8"

    # NumPy's StringDType reads the same data, and one call makes it this dtype.
    reopened = zarr.open_array(store, mode="r")
    assert type(reopened.dtype) is NumpyStringDType
    read = reopened[:]
    assert type(read.dtype) is NumpyStringDType
    assert normalize(read.tolist()) == normalize(expected)
    ours = read.astype(StringDType())
    assert type(ours.dtype) is StringDType
    assert (ours == a).all()


@pytest.mark.parametrize("shape, chunks", [((97,), (10,)), ((13, 11), (4, 3))], ids=["1d", "2d"])
def test_stored_bytes_are_numpys(make_store, rng, shape, chunks):
    values = random_strings(rng, int(np.prod(shape)))
    stores = []
    for dtype in (StringDType(), NumpyStringDType()):
        store, _ = make_store()
        z = zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype)
        z[:] = np.array(values, dtype=dtype).reshape(shape)
        stores.append(store)
    ours, numpys = (stored_chunks(store) for store in stores)
    assert ours and ours == numpys
    assert stored_metadata(stores[0], None) == stored_metadata(stores[1], None)


@pytest.mark.parametrize("target", ["string", "numpy"])
def test_write_into_an_array_of_numpys_dtype(make_store, rng, target):
    values = random_strings(rng, 64)
    a = np.array(values, dtype=StringDType())
    store, folder = make_store()
    dtype = "string" if target == "string" else NumpyStringDType()
    z = zarr.create_array(store, shape=(64,), chunks=(8,), dtype=dtype)
    z[:16] = a[:16]  # whole chunks
    z[16:45] = a[16:45]  # parts of chunks
    z[45:] = a[45:].astype(NumpyStringDType())
    z[3] = a[3]
    assert type(z[:].dtype) is NumpyStringDType
    assert normalize(z[:].tolist()) == normalize(values)
    assert stored_metadata(store, folder)["data_type"] == "string"


def test_write_numpys_dtype_into_an_array_of_this_dtype(make_store, rng):
    values = random_strings(rng, 50)
    store, _ = make_store()
    z = zarr.create_array(store, shape=(50,), chunks=(7,), dtype=StringDType())
    z[:21] = np.array(values[:21], dtype=NumpyStringDType())
    z[21:30] = values[21:30]  # a list
    z[30:] = np.array(values[30:], dtype=object)
    assert type(z[:].dtype) is StringDType
    assert normalize(z[:].tolist()) == normalize(values)


def test_reopened_array_accepts_this_dtype(make_store, rng):
    values = random_strings(rng, 40)
    store, _ = make_store()
    zarr.create_array(store, shape=(40,), chunks=(6,), dtype=StringDType())
    z = zarr.open_array(store, mode="r+")
    z[:] = np.array(values, dtype=StringDType())
    assert normalize(zarr.open_array(store, mode="r")[:].tolist()) == normalize(values)


@pytest.mark.parametrize("dtype", [StringDType, NumpyStringDType], ids=["ours", "numpys"])
def test_fill_value_and_empty_chunks(make_store, dtype):
    store, _ = make_store()
    z = zarr.create_array(store, shape=(12,), chunks=(4,), dtype=dtype(), fill_value="zz")
    assert z[:].tolist() == ["zz"] * 12
    z[:4] = np.array(["zz"] * 4, dtype=dtype())  # all fill: not stored
    z[4:8] = np.array(["a", "zz", "b" * 30, ""], dtype=dtype())
    z[8:] = np.array([""] * 4, dtype=dtype())
    assert z[:].tolist() == ["zz"] * 4 + ["a", "zz", "b" * 30] + [""] * 5
    assert sorted(stored_chunks(store)) == ["c/1", "c/2"]
    reopened = zarr.open_array(store, mode="r")
    assert reopened.metadata.to_dict()["fill_value"] == "zz"
    assert reopened[:].tolist() == z[:].tolist()


def test_scalars_and_constructors_match_numpys():
    for make in (
        lambda d: zarr.zeros(shape=(3,), dtype=d)[:],
        lambda d: zarr.full(shape=(3,), fill_value="xyz", dtype=d)[:],
        lambda d: zarr.array(np.array(["a", "b" * 20], dtype=d))[1],
        lambda d: zarr.array(np.array(["a", "b" * 20], dtype=d))[...],
    ):
        ours, numpys = make(StringDType()), make(NumpyStringDType())
        assert type(ours.dtype) is StringDType
        assert (ours.shape, ours.tolist()) == (numpys.shape, numpys.tolist())


def test_sharded_and_zarr_format_2(make_store, rng):
    values = random_strings(rng, 30)
    a = np.array(values, dtype=StringDType())
    store, _ = make_store()
    z = zarr.create_array(store, shape=(30,), chunks=(5,), shards=(10,), dtype=a.dtype)
    z[:] = a
    assert normalize(zarr.open_array(store, mode="r")[:].tolist()) == normalize(values)

    store, _ = make_store()
    z = zarr.create_array(store, shape=(30,), chunks=(7,), dtype=a.dtype, zarr_format=2)
    z[:] = a
    assert type(z[:].dtype) is StringDType
    reopened = zarr.open_array(store, mode="r")
    assert reopened.metadata.to_dict()["dtype"] == "|O"
    assert type(reopened.dtype) is NumpyStringDType
    assert normalize(reopened[:].tolist()) == normalize(values)


# ---------------------------------------------------------------------------------------
# Missing values: whatever zarr does with NumPy's StringDType of the same na_object.


@pytest.mark.parametrize("flavor", WITH_NA, ids=str)
def test_an_na_object_is_refused_as_zarr_refuses_numpys(flavor):
    def create(cls):
        return zarr.array(np.array(["a", flavor.na_object], dtype=flavor.dtype(cls)))

    ours, numpys = outcome(create, StringDType), outcome(create, NumpyStringDType)
    assert ours == numpys == ("raises", ValueError)
    with pytest.raises(ValueError, match="stringdtype.StringDType"):
        create(StringDType)
    with pytest.raises(ValueError):
        zarr.create_array(zarr.storage.MemoryStore(), shape=(2,), dtype=flavor.dtype())


@pytest.mark.parametrize("flavor", WITH_NA, ids=str)
@pytest.mark.parametrize("target", ["string", "ours"])
@pytest.mark.parametrize(
    "chunks, part",
    [((8,), slice(None)), ((3,), slice(None)), ((8,), slice(0, 5)), ((4,), slice(2, 7))],
    ids=["whole", "chunked", "part", "parts"],
)
def test_missing_values_written_as_zarr_writes_numpys(flavor, target, chunks, part, rng):
    values = random_strings(rng, 8, flavor.na_object)

    def write(cls):
        target_dtype = "string" if target == "string" else StringDType()
        if cls is NumpyStringDType and target == "ours":
            target_dtype = NumpyStringDType()
        z = zarr.create_array(
            zarr.storage.MemoryStore(), shape=(8,), chunks=chunks, dtype=target_dtype
        )
        z[part] = np.array(values, dtype=flavor.dtype(cls))[part]
        return z[:].tolist()

    assert outcome(write, StringDType) == outcome(write, NumpyStringDType)
