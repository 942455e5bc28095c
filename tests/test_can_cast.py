"""np.can_cast and astype's casting= at every level, between StringDType flavors and
every other dtype, against NumPy's StringDType."""

import numpy as np
import pytest
from conftest import FLAVORS, NumpyStringDType, StringDType

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float16, np.float32, np.float64, np.longdouble]

CASTING = ["no", "equiv", "safe", "same_kind", "unsafe"]
OTHER_DTYPES = (
    ["U", "U5", "S", "S5", "O", "?", "V8", "c8", "c16"]
    + [np.dtype(t).str for t in INT_TYPES + FLOAT_TYPES]
    + ["M8[s]", "M8[D]", "m8[s]", "M8", "m8", "V", "e", "g", "G"]
)


@pytest.mark.parametrize("casting", CASTING)
@pytest.mark.parametrize("other", OTHER_DTYPES)
def test_can_cast_matches_numpy(flavor, other, casting):
    assert np.can_cast(flavor.dtype(), other, casting=casting) == np.can_cast(
        flavor.ref(), other, casting=casting
    )
    assert np.can_cast(other, flavor.dtype(), casting=casting) == np.can_cast(
        other, flavor.ref(), casting=casting
    )


@pytest.mark.parametrize("casting", CASTING)
@pytest.mark.parametrize("target", FLAVORS, ids=str)
def test_can_cast_between_flavors(flavor, target, casting):
    assert np.can_cast(flavor.dtype(), target.dtype(), casting=casting) == np.can_cast(
        flavor.ref(), target.ref(), casting=casting
    )


@pytest.mark.parametrize("casting", CASTING)
def test_can_cast_class(casting):
    assert np.can_cast(StringDType(), StringDType, casting=casting) == np.can_cast(
        NumpyStringDType(), NumpyStringDType, casting=casting
    )


@pytest.mark.parametrize(
    ("source", "target", "casting", "expected"),
    [
        ("T", "T", "no", True),
        ("T", "U", "same_kind", True),
        ("T", "U", "safe", False),
        ("U", "T", "safe", False),
        ("U", "T", "same_kind", True),
        ("T", "O", "safe", True),
        ("O", "T", "safe", False),
        ("O", "T", "unsafe", True),
        ("T", "S", "same_kind", True),
        ("T", "i8", "same_kind", False),
        ("T", "i8", "unsafe", True),
        ("i8", "T", "safe", True),
        ("f8", "T", "safe", True),
        ("?", "T", "safe", True),
        ("M8[s]", "T", "safe", True),
        ("T", "M8[s]", "same_kind", False),
        ("T", "?", "same_kind", True),
        ("T", "?", "safe", False),
    ],
)
def test_can_cast_known_answers(source, target, casting, expected):
    source = StringDType() if source == "T" else source
    target = StringDType() if target == "T" else target
    assert np.can_cast(source, target, casting=casting) is expected


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind"])
def test_astype_respects_casting(flavor, casting):
    arr = np.array(["1", "2"], dtype=flavor.dtype())
    allowed = np.can_cast(arr.dtype, np.int64, casting=casting)
    assert not allowed
    with pytest.raises(TypeError):
        arr.astype(np.int64, casting=casting)
