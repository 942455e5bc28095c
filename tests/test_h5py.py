"""h5py, the real one: code written for NumPy's StringDType must take a safe path on
this package's dtype (h5py dispatches on ``dtype.kind == "T"`` and then calls NumPy's C
string API, which would read Arrow views as NumPy's packed strings), and the documented
one-call paths write and read HDF5 variable-length UTF-8 strings.

Every call that could crash runs in a child process with a timeout.
"""

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

# No h5py for Python 3.15 (pyproject.toml's test extras).
h5py = pytest.importorskip("h5py")

pytestmark = pytest.mark.skipif(REFERENCE, reason="NumPy's own dtype is h5py's to support")

# Each action h5py takes on an array of NumPy's StringDType, on this package's instead.
ACTIONS = {
    "assign": 'f["s"] = a',
    "create_dataset": 'f.create_dataset("s", data=a, dtype=h5py.string_dtype())',
    "astype": 'f["t"] = ["x", "y" * 20]; f["t"].astype(a.dtype)[()]',
    "read_direct": 'f["t"] = ["x", "y" * 20]; f["t"].read_direct(np.empty(2, dtype=a.dtype))',
    "attribute": 'f.attrs["s"] = a',
}


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("flavor", [f for f in FLAVORS if f.coerce], ids=str)
def test_h5py_refuses_with_a_type_error_instead_of_crashing(tmp_path, action, flavor):
    out = run_isolated(
        f"""
        import h5py
        from numpy import nan
        a = np.array(["a", "b" * 30, ""], dtype=StringDType(**{flavor.kwargs!r}))
        with h5py.File({str(tmp_path / "f.h5")!r}, "w") as f:
            try:
                {ACTIONS[action]}
            except TypeError as exc:
                print("TypeError", exc)
            else:
                print("no error")
        """
    )
    assert out.startswith("TypeError"), out


def test_write_through_numpys_dtype_is_hdf5_utf8(tmp_path, rng):
    # HDF5's variable-length strings end at a NUL.
    values = [v for v in random_strings(rng, 60) if "\x00" not in v]
    a = np.array(values, dtype=StringDType())
    path = tmp_path / "strings.h5"
    with h5py.File(path, "w") as f:
        f["s"] = a.astype(NumpyStringDType())
    with h5py.File(path, "r") as f:
        info = h5py.check_string_dtype(f["s"].dtype)
        assert info is not None and info.encoding == "utf-8" and info.length is None
        assert f["s"].asstr()[()].tolist() == values


def test_read_a_string_dataset_into_this_dtype(tmp_path, rng):
    # HDF5's variable-length strings end at a NUL.
    values = [v for v in random_strings(rng, 120) if "\x00" not in v][:60]
    path = tmp_path / "strings.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("s", data=np.array(values, dtype=object), dtype=h5py.string_dtype())
        f["s2"] = np.array(values, dtype=object).reshape(6, 10).astype(h5py.string_dtype())
    with h5py.File(path, "r") as f:
        one = f["s"].astype(NumpyStringDType())[()].astype(StringDType())
        two = f["s2"].astype("T")[2:5].astype(StringDType())
    assert type(one.dtype) is StringDType and one.tolist() == values
    assert normalize(two.tolist()) == normalize(np.array(values).reshape(6, 10)[2:5].tolist())


@pytest.mark.parametrize("flavor", [f for f in FLAVORS if f.has_na], ids=str)
def test_missing_values_reach_hdf5_as_numpys_do(tmp_path, flavor):
    # HDF5 strings have no missing value: what h5py writes for NumPy's own dtype is
    # what the path through it writes for this one.
    values = ["a", flavor.na_object, "c" * 20]
    ours = np.array(values, dtype=flavor.dtype())
    numpys = np.array(values, dtype=flavor.ref())

    def written(array, name):
        path = tmp_path / f"{name}.h5"
        try:
            with h5py.File(path, "w") as f:
                f["s"] = array
            with h5py.File(path, "r") as f:
                return ("ok", f["s"].asstr()[()].tolist())
        except Exception as exc:  # noqa: BLE001 - the type is the outcome
            return ("raises", type(exc))

    assert written(ours.astype(flavor.ref()), "ours") == written(numpys, "numpys")
