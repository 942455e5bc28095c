"""Pickling arrays and descriptors, and np.save / np.load."""

import pickle
import warnings

import numpy as np
import pytest
from conftest import StringDType, assert_same_list, both, package_only, random_strings

try:
    from stringdtype import memory_info
except ImportError:
    memory_info = None

PROTOCOLS = [2, 3, 4, 5]


def roundtrip(obj, protocol):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


def check_same(result, original):
    assert type(result.dtype) is StringDType
    assert result.dtype == original.dtype
    assert repr(result.dtype) == repr(original.dtype)
    assert result.shape == original.shape
    assert_same_list(result.tolist(), original.tolist())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_array_roundtrip(flavor, strings, protocol):
    arr = np.array(strings, dtype=flavor.dtype()).reshape(3, 20)
    clone = roundtrip(arr, protocol)
    check_same(clone, arr)
    # The clone owns its strings.
    arr[...] = "overwritten-after-pickling"
    assert_same_list(clone.ravel().tolist(), strings)
    clone[0, 0] = "changed-in-clone-long-string"
    assert arr[0, 0] == "overwritten-after-pickling"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    "layout",
    ["empty", "zero_dim", "slice", "transposed", "fortran", "negative_stride"],
)
def test_array_layouts(flavor, rng, protocol, layout):
    values = random_strings(rng, 24, flavor.na_object)
    base = np.array(values, dtype=flavor.dtype()).reshape(4, 6)
    arr = {
        "empty": np.array([], dtype=flavor.dtype()),
        "zero_dim": np.array(values[0], dtype=flavor.dtype()),
        "slice": base[1:3, ::2],
        "transposed": base.T,
        "fortran": np.asfortranarray(base),
        "negative_stride": base[::-1, ::-3],
    }[layout]
    check_same(roundtrip(arr, protocol), arr)


def test_protocol5_with_buffer_callback(flavor, strings):
    arr = np.array(strings, dtype=flavor.dtype())
    buffers = []
    data = pickle.dumps(arr, protocol=5, buffer_callback=buffers.append)
    check_same(pickle.loads(data, buffers=buffers), arr)


def test_pickle_matches_numpy_content(flavor, strings):
    both(lambda cls: roundtrip(np.array(strings, dtype=flavor.dtype(cls)), 4))


def test_pickled_dtype_inside_container(flavor):
    payload = {"dtype": flavor.dtype(), "arrays": [np.array(["a", "b" * 30], flavor.dtype())]}
    clone = roundtrip(payload, 4)
    assert clone["dtype"] == flavor.dtype()
    assert type(clone["dtype"]) is StringDType
    check_same(clone["arrays"][0], payload["arrays"][0])


def test_save_and_load(flavor, strings, tmp_path):
    arr = np.array(strings, dtype=flavor.dtype()).reshape(6, 10)
    path = tmp_path / "strings.npy"
    with warnings.catch_warnings():
        # NumPy warns that custom dtypes are saved with pickle.
        warnings.simplefilter("ignore", UserWarning)
        np.save(path, arr)
    check_same(np.load(path, allow_pickle=True), arr)
    with pytest.raises(ValueError):
        np.load(path, allow_pickle=False)


def test_savez(flavor, strings, tmp_path):
    arr = np.array(strings, dtype=flavor.dtype())
    path = tmp_path / "strings.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        np.savez(path, first=arr, second=arr[::-1])
    with np.load(path, allow_pickle=True) as loaded:
        check_same(loaded["first"], arr)
        check_same(loaded["second"], arr[::-1])


@package_only
def test_copies_of_unpickled_arrays_own_their_strings():
    a = np.array(["x" * 100] * 7, dtype=StringDType())
    b = pickle.loads(pickle.dumps(a))
    c = b.copy()
    assert c.dtype is not b.dtype
    assert memory_info(b)["string_bytes"] == 700
    assert memory_info(c)["string_bytes"] == 700
    c[0] = "y" * 100
    assert b[0] == "x" * 100


def test_tampered_payloads_fail_and_leave_a_valid_array():
    # NumPy's __setstate__ ignores a failed setitem and goes on with the next element
    # (numpy/_core/src/multiarray/methods.c, _setlist_pkl), so Python reports a
    # SystemError whose cause is the real error. The array stays readable.
    a = np.array(["x" * 20] * 4, dtype=StringDType())
    rebuild, args, state = a.__reduce__()
    r = rebuild(*args)
    with pytest.raises((SystemError, UnicodeEncodeError)) as info:
        r.__setstate__(state[:4] + (["a", "\ud800", "b" * 20, "c"],))
    if info.type is SystemError:
        assert isinstance(info.value.__cause__, UnicodeEncodeError)
    assert r.tolist()[0] == "a"
    assert all(type(v) is str for v in r.tolist())
