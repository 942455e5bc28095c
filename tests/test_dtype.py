"""The DType class and its descriptors: attributes, repr, equality, hashing, promotion."""

import copy
import pickle

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    NA_STRING,
    NUMPY_RELEASE,
    REFERENCE,
    REPR_PREFIX,
    Flavor,
    NumpyStringDType,
    StringDType,
    as_numpys_repr,
    is_nan,
    package_only,
)

REPRS = [
    ({}, "StringDType()"),
    ({"na_object": None}, "StringDType(na_object=None)"),
    ({"coerce": False}, "StringDType(coerce=False)"),
    ({"na_object": np.nan, "coerce": False}, "StringDType(na_object=nan, coerce=False)"),
    ({"na_object": NA_STRING}, "StringDType(na_object='__nan__')"),
    ({"na_object": None, "coerce": False}, "StringDType(na_object=None, coerce=False)"),
    ({"coerce": True}, "StringDType()"),
]


def test_class_is_a_numpy_dtype():
    assert issubclass(StringDType, np.dtype)
    assert type(StringDType) is type(NumpyStringDType)  # numpy._DTypeMeta
    assert isinstance(StringDType(), np.dtype)
    assert StringDType.type is str if REFERENCE else issubclass(StringDType.type, str)


def test_module_and_identity():
    if REFERENCE:
        assert StringDType.__module__ == "numpy.dtypes"
    else:
        assert StringDType is not NumpyStringDType
        assert StringDType.__module__.split(".")[0] == "stringdtype"
    assert StringDType.__name__ == "StringDType"


def test_descriptor_attributes(flavor):
    dt = flavor.dtype()
    assert type(dt) is StringDType
    # NumPy's kind 'T' sends code written for NumPy's StringDType (h5py) into NumPy's C
    # string API; ours has a kind of its own and keeps the char `np.strings` looks at.
    assert dt.kind == ("T" if REFERENCE else "t")
    assert dt.char == "T"
    assert dt.itemsize == 16
    assert dt.alignment == 8
    # NumPy maps `str` to its own StringDType, so ours has a `str` subclass as scalar type;
    # elements still read back as plain `str`.
    assert dt.type is str if REFERENCE else issubclass(dt.type, str)
    assert dt.coerce is flavor.coerce
    assert dt.shape == ()
    assert dt.ndim == 0
    assert dt.fields is None
    assert dt.subdtype is None
    assert dt.isnative
    assert dt.byteorder == "|"
    assert dt.base == dt


def test_na_object_attribute(flavor):
    dt = flavor.dtype()
    if flavor.has_na:
        assert dt.na_object is flavor.na_object
    else:
        with pytest.raises(AttributeError):
            dt.na_object  # noqa: B018
        assert not hasattr(dt, "na_object")


@pytest.mark.parametrize(("kwargs", "expected"), REPRS)
def test_repr(kwargs, expected):
    dt = StringDType(**kwargs)
    assert repr(dt) == REPR_PREFIX + expected
    assert str(dt) == expected
    assert str(dt) == str(NumpyStringDType(**kwargs))
    assert as_numpys_repr(repr(dt)) == repr(NumpyStringDType(**kwargs))
    # NumPy computes `.str`; before 2.3 it gave every StringDType "|<kind>16" (this
    # package's kind is 't').
    assert dt.str == (expected if NUMPY_RELEASE >= (2, 3) else f"|{'T' if REFERENCE else 't'}16")


def test_repr_of_arbitrary_na_object():
    marker = object()
    dt = StringDType(na_object=marker)
    assert repr(dt) == f"{REPR_PREFIX}StringDType(na_object={marker!r})"
    assert str(dt) == f"StringDType(na_object={marker!r})"
    assert dt.na_object is marker


@pytest.mark.parametrize("bad", [("x",), (1.5,), (True,), (-1,), (1, 2)])
def test_positional_arguments_rejected(bad):
    with pytest.raises(TypeError):
        StringDType(*bad)


@package_only
def test_size_argument_is_ignored():
    # NumPy's Python code (np.strings.mod) builds `type(dtype)(size)` for string results
    # of a dtype it does not know; a variable-width dtype accepts and ignores the size.
    assert StringDType(5) == StringDType()
    a = np.array(["%s|", "x%sy"], dtype=StringDType())
    assert np.strings.mod(a, "v").tolist() == ["v|", "xvy"]


def test_unknown_keyword_rejected():
    with pytest.raises(TypeError):
        StringDType(size=3)


def test_equality_and_hash_within_flavor(flavor):
    a = flavor.dtype()
    b = flavor.dtype()
    assert a == b
    assert not (a != b)  # noqa: SIM202 - __ne__ is tested on purpose
    assert hash(a) == hash(b)
    assert {a: 1}[b] == 1


@pytest.mark.parametrize("left", FLAVORS, ids=str)
@pytest.mark.parametrize("right", FLAVORS, ids=str)
def test_equality_across_flavors(left, right):
    same = left == right or (left.coerce == right.coerce and left.na_is_nan and right.na_is_nan)
    assert (left.dtype() == right.dtype()) is same
    assert (left.ref() == right.ref()) is same
    if same:
        assert hash(left.dtype()) == hash(right.dtype())


def test_nan_na_objects_compare_equal():
    assert StringDType(na_object=np.nan) == StringDType(na_object=float("nan"))
    assert StringDType(na_object="a") == StringDType(na_object="a")
    assert StringDType(na_object="a") != StringDType(na_object="b")
    assert StringDType(na_object=None) != StringDType(na_object="None")


def test_not_equal_to_other_dtypes(flavor):
    dt = flavor.dtype()
    for other in ["U", "S", "O", np.float64, np.dtype("U5")]:
        assert dt != np.dtype(other)
    assert dt != "T"


@pytest.mark.skipif(REFERENCE, reason="compares our class with NumPy's")
def test_never_equal_to_numpys(flavor):
    ours = flavor.dtype()
    numpys = flavor.ref()
    assert ours != numpys
    assert numpys != ours
    assert ours != np.dtype("T")


def test_np_dtype_of_instance_is_identity(flavor):
    dt = flavor.dtype()
    assert np.dtype(dt) is dt or np.dtype(dt) == dt
    assert type(np.dtype(dt)) is StringDType


def test_copy_and_deepcopy(flavor):
    dt = flavor.dtype()
    for clone in (copy.copy(dt), copy.deepcopy(dt)):
        assert clone == dt
        assert type(clone) is StringDType
        assert repr(clone) == repr(dt)
        assert clone.coerce is flavor.coerce


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_descriptor_pickles(flavor, protocol):
    dt = flavor.dtype()
    clone = pickle.loads(pickle.dumps(dt, protocol=protocol))
    assert type(clone) is StringDType
    assert clone == dt
    assert repr(clone) == repr(dt)
    assert clone.coerce is flavor.coerce
    if flavor.has_na:
        na = clone.na_object
        if flavor.na_is_nan:
            assert is_nan(na)
        else:
            assert na == flavor.na_object
            assert type(na) is type(flavor.na_object)
    else:
        assert not hasattr(clone, "na_object")


def test_class_pickles():
    assert pickle.loads(pickle.dumps(StringDType)) is StringDType


# --- promotion: np.result_type / np.promote_types ---------------------------------------


def expected_common(left, right):
    """NumPy's rule: an unset na_object takes the other one.

    NumPy up to 2.4 takes ``coerce`` from the first operand (``result_type(StringDType(),
    StringDType(coerce=False))`` is ``StringDType()`` but the reverse order gives
    ``coerce=False``); from 2.5 on ``coerce=False`` wins in either order. We follow the
    running NumPy.
    """
    if left.has_na and right.has_na:
        same_na = left.na_object is right.na_object or (left.na_is_nan and right.na_is_nan)
        if not same_na:
            return None
    na = left.na_object if left.has_na else right.na_object
    return Flavor(na, common_coerce(left.coerce, right.coerce))


def common_coerce(left, right):
    return left and right if NUMPY_RELEASE >= (2, 5) else left


@pytest.mark.parametrize("left", FLAVORS, ids=str)
@pytest.mark.parametrize("right", FLAVORS, ids=str)
def test_result_type(left, right):
    expected = expected_common(left, right)
    if expected is None:
        with pytest.raises(TypeError):
            np.result_type(left.dtype(), right.dtype())
        with pytest.raises(TypeError):
            np.result_type(left.ref(), right.ref())
        return
    result = np.result_type(left.dtype(), right.dtype())
    assert type(result) is StringDType
    assert result == expected.dtype()
    assert str(result) == str(np.result_type(left.ref(), right.ref()))
    assert result.coerce is expected.coerce
    assert np.promote_types(left.dtype(), right.dtype()) == expected.dtype()


@pytest.mark.parametrize("other", ["U", "U5", np.str_])
def test_result_type_with_unicode(flavor, other):
    result = np.result_type(flavor.dtype(), other)
    assert type(result) is StringDType
    assert result == flavor.dtype()
    assert str(result) == str(np.result_type(flavor.ref(), other))
    # With the unicode type first, NumPy starts from a default descriptor (coerce=True)
    # and combines it with ours, keeping the na_object.
    result = np.result_type(other, flavor.dtype())
    assert type(result) is StringDType
    assert str(result) == str(np.result_type(other, flavor.ref()))
    assert result == Flavor(flavor.na_object, common_coerce(True, flavor.coerce)).dtype()


@pytest.mark.parametrize("other", [np.int64, np.float64, np.bool_, "S", "M8[s]"])
def test_no_common_dtype_with_non_strings(other):
    with pytest.raises(TypeError) as ours:
        np.result_type(StringDType(), other)
    with pytest.raises(TypeError) as numpys:
        np.result_type(NumpyStringDType(), other)
    assert type(ours.value) is type(numpys.value)


def test_result_type_with_class():
    assert np.result_type(StringDType(na_object=None), StringDType()) == StringDType(na_object=None)
    arr = np.array(["a"], dtype=StringDType)
    assert arr.dtype == StringDType()
