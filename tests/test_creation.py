"""Creating arrays: np.array from (nested) lists, the np.empty/zeros/full family,
np.asarray, np.fromiter; shapes, strides and the dtype of the result."""

import numpy as np
import pytest
from conftest import (
    FLOAT_NAN_IS_MISSING,
    NA_STRING,
    StringDType,
    assert_plain_str_or_na,
    assert_same_list,
    both,
    expected_strings,
    random_strings,
)


def check_array(arr, expected_list, flavor, shape=None):
    assert isinstance(arr, np.ndarray)
    assert type(arr.dtype) is StringDType
    assert arr.dtype == flavor.dtype()
    if shape is not None:
        assert arr.shape == shape
    assert_same_list(arr.tolist(), expected_list)
    assert_plain_str_or_na(arr, flavor)


def test_from_list(flavor, strings):
    arr = np.array(strings, dtype=flavor.dtype())
    check_array(arr, strings, flavor, shape=(len(strings),))
    # Same content as an object array of str, and as NumPy's StringDType.
    assert_same_list(arr.tolist(), np.array(strings, dtype=object).tolist())
    both(lambda cls: np.array(strings, dtype=flavor.dtype(cls)))


@pytest.mark.parametrize("shape", [(0,), (1,), (3, 4), (2, 3, 5), (1, 1, 1, 1)])
def test_nested_lists(flavor, rng, shape):
    size = int(np.prod(shape))
    flat = random_strings(rng, size, flavor.na_object) if size else []
    nested = np.array(flat, dtype=object).reshape(shape).tolist()
    arr = np.array(nested, dtype=flavor.dtype())
    check_array(arr, nested, flavor, shape=shape)
    assert arr.strides == tuple(np.empty(shape, dtype="V16").strides)
    both(lambda cls: np.array(nested, dtype=flavor.dtype(cls)))


def test_ragged_nested_list_raises(flavor):
    with pytest.raises(ValueError):
        np.array([["a", "b"], ["c"]], dtype=flavor.dtype())


def test_zero_dimensional(flavor):
    arr = np.array("abcdefghijklmnopq", dtype=flavor.dtype())
    assert arr.shape == ()
    assert arr.ndim == 0
    assert arr[()] == "abcdefghijklmnopq"
    assert type(arr[()]) is str
    assert arr.item() == "abcdefghijklmnopq"
    assert arr.tolist() == "abcdefghijklmnopq"


def test_dtype_class_and_instance_are_accepted():
    by_class = np.array(["a", "b" * 20], dtype=StringDType)
    by_instance = np.array(["a", "b" * 20], dtype=StringDType())
    assert by_class.dtype == StringDType()
    assert type(by_class.dtype) is StringDType
    assert by_class.tolist() == by_instance.tolist() == ["a", "b" * 20]


def test_itemsize_strides_and_flags(flavor):
    arr = np.array([["a", "b" * 30, "c"], ["d", "e", "f" * 13]], dtype=flavor.dtype())
    assert arr.itemsize == 16
    assert arr.nbytes == 16 * 6
    assert arr.strides == (48, 16)
    assert arr.flags.c_contiguous
    assert arr.flags.owndata
    assert arr.flags.writeable
    assert arr.flags.aligned
    assert arr.ctypes.data % 8 == 0
    assert arr[:, ::2].strides == (48, 32)
    assert arr.T.strides == (16, 48)
    assert np.asfortranarray(arr).strides == (16, 32)
    assert np.asfortranarray(arr).tolist() == arr.tolist()


def test_non_strings_are_coerced(coerce_flavor):
    values = [1, 2.5, True, b"bytes", "\u00e9", np.float64(1.5), np.int32(-3), 1j]
    expected = expected_strings(values, coerce_flavor)
    assert expected[:5] == ["1", "2.5", "True", "bytes", "é"]
    arr = np.array(values, dtype=coerce_flavor.dtype())
    check_array(arr, expected, coerce_flavor)
    both(lambda cls: np.array(values, dtype=coerce_flavor.dtype(cls)))


def test_none_and_nan_without_matching_na_object():
    arr = np.array(["a", None, np.nan], dtype=StringDType())
    assert arr.tolist() == ["a", "None", "nan"]
    arr = np.array(["a", None], dtype=StringDType(na_object=np.nan))
    assert arr.tolist() == ["a", "None"]
    arr = np.array(["a", np.nan], dtype=StringDType(na_object=None))
    assert arr.tolist() == ["a", "nan"]


@pytest.mark.parametrize("value", [1, 2.5, None, b"x", True, np.int64(1), np.float32(0.5)])
def test_non_strings_rejected_without_coerce(flavor, value):
    if flavor.coerce:
        pytest.skip("coercing flavor")
    if flavor.has_na and value is flavor.na_object:
        pytest.skip("the na_object itself is accepted")
    with pytest.raises(ValueError):
        np.array(["ok", value], dtype=flavor.dtype())
    # Same exception type as NumPy's.
    assert both(lambda cls: np.array(["ok", value], dtype=flavor.dtype(cls)))[0] == "raises"


def test_str_subclass_accepted_without_coerce():
    arr = np.array([np.str_("a"), "b"], dtype=StringDType(coerce=False))
    assert arr.tolist() == ["a", "b"]
    assert all(type(v) is str for v in arr.tolist())


def test_na_objects_are_recognised(na_flavor):
    arr = np.array(["x", na_flavor.na_object, "y" * 20], dtype=na_flavor.dtype())
    values = arr.tolist()
    assert values[0] == "x"
    assert values[2] == "y" * 20
    if na_flavor.na_is_nan:
        assert values[1] != values[1]
    else:
        assert values[1] is na_flavor.na_object or values[1] == NA_STRING
    both(lambda cls: np.array(["x", na_flavor.na_object], dtype=na_flavor.dtype(cls)))


def test_float_nan_is_na_for_nan_flavor():
    dt = StringDType(na_object=np.nan)
    arr = np.array([float("nan"), "x"], dtype=dt)
    assert np.isnan(arr.tolist()[0])
    both(lambda cls: np.array([float("nan"), "x"], dtype=cls(na_object=np.nan)))


def test_from_unicode_array(flavor, strings):
    plain = [s for s in strings if isinstance(s, str) and not s.endswith("\x00")]
    arr = np.array(np.array(plain, dtype="U"), dtype=flavor.dtype())
    check_array(arr, plain, flavor)


def test_from_object_array(flavor, strings):
    obj = np.array(strings, dtype=object)
    arr = np.array(obj, dtype=flavor.dtype())
    check_array(arr, strings, flavor)
    arr = obj.astype(flavor.dtype())
    check_array(arr, strings, flavor)


@pytest.mark.parametrize("maker", ["empty", "zeros"])
@pytest.mark.parametrize("shape", [0, 3, (2, 3), (2, 0, 4)])
def test_empty_and_zeros_are_empty_strings(flavor, maker, shape):
    arr = getattr(np, maker)(shape, dtype=flavor.dtype())
    expected = np.full(shape, "", dtype=object).tolist()
    check_array(arr, expected, flavor, shape=np.empty(shape).shape)


def test_ones_coerces_one(flavor):
    outcome = both(lambda cls: np.ones(2, dtype=flavor.dtype(cls)))
    assert outcome[1][3] == ["1", "1"]


@pytest.mark.parametrize("fill", ["", "short", "exactly12byt", "exactly13byte", "é" * 40])
def test_full(flavor, fill):
    arr = np.full((2, 3), fill, dtype=flavor.dtype())
    check_array(arr, [[fill] * 3] * 2, flavor, shape=(2, 3))
    arr[0, 0] = "changed"
    assert arr[0, 1] == fill


def filled(flavor, value):
    """What ``np.full`` with ``value`` stores: NaN goes through NumPy's float cast."""
    if flavor.na_is_nan and value is flavor.na_object and not FLOAT_NAN_IS_MISSING:
        return "nan"
    return value


def test_full_with_na(na_flavor):
    arr = np.full(3, na_flavor.na_object, dtype=na_flavor.dtype())
    check_array(arr, [filled(na_flavor, na_flavor.na_object)] * 3, na_flavor)


@pytest.mark.parametrize("fill", [5, 2.5])
def test_full_with_number(flavor, fill):
    # np.full casts the fill value; NumPy allows it even with coerce=False.
    outcome = both(lambda cls: np.full(2, fill, dtype=flavor.dtype(cls)))
    assert outcome == ("ok", ("array", repr(flavor.ref()), (2,), [str(fill)] * 2))


def test_like_functions(flavor, strings):
    proto = np.array(strings, dtype=flavor.dtype()).reshape(6, 10)
    for arr in (np.empty_like(proto), np.zeros_like(proto)):
        check_array(arr, [[""] * 10] * 6, flavor, shape=(6, 10))
        assert arr.dtype == proto.dtype
    arr = np.full_like(proto, "fill-value-longer-than-12")
    check_array(arr, [["fill-value-longer-than-12"] * 10] * 6, flavor)
    assert_same_list(proto.ravel().tolist(), strings)
    if flavor.has_na:
        arr = np.full_like(proto, flavor.na_object)
        check_array(arr, [[filled(flavor, flavor.na_object)] * 10] * 6, flavor)


def test_like_functions_with_other_dtype(flavor):
    proto = np.arange(6).reshape(2, 3)
    arr = np.zeros_like(proto, dtype=flavor.dtype())
    check_array(arr, [[""] * 3] * 2, flavor, shape=(2, 3))
    arr = np.full_like(proto, "x" * 20, dtype=flavor.dtype())
    check_array(arr, [["x" * 20] * 3] * 2, flavor, shape=(2, 3))


def test_asarray(flavor, strings):
    arr = np.asarray(strings, dtype=flavor.dtype())
    check_array(arr, strings, flavor)
    assert np.asarray(arr) is arr
    assert np.asarray(arr, dtype=arr.dtype) is arr
    assert np.asarray(arr, dtype=StringDType) is arr


def test_fromiter(flavor, strings):
    arr = np.fromiter(iter(strings), dtype=flavor.dtype())
    check_array(arr, strings, flavor)
    arr = np.fromiter(iter(strings), dtype=flavor.dtype(), count=5)
    check_array(arr, strings[:5], flavor)
    both(lambda cls: np.fromiter(iter(strings), dtype=flavor.dtype(cls)))


def test_fromiter_non_strings(flavor):
    outcome = both(lambda cls: np.fromiter(iter(["a", 1]), dtype=flavor.dtype(cls)))
    if flavor.coerce:
        assert outcome[1][3] == ["a", "1"]
    else:
        assert outcome[0] == "raises"


def test_arrays_do_not_share_strings(flavor, strings):
    src = list(strings)
    a = np.array(src, dtype=flavor.dtype())
    b = np.array(src, dtype=flavor.dtype())
    a[:] = "overwritten-with-a-long-string"
    assert_same_list(b.tolist(), strings)
