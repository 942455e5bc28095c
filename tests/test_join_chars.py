"""``stringdtype.strings.join_chars`` (pandas' ``str.join`` of strings, Python's
``sep.join(x)``, as one Rust loop) against Python on random strings of every kind and
flavor, separators per element, shapes and strides; and the ``"stringdtype"`` column's
``str.join`` against pandas' ``string[python]`` column.
"""

import random

import numpy as np
import pytest
from conftest import FLAVORS, package_only, random_strings

import stringdtype.strings as sds
from stringdtype import StringDType, _core

pytestmark = package_only

SEPARATORS = ["", "-", "--", "é", "日😀", "a separator longer than twelve bytes", "\x00"]


def missing_mask(a):
    return _core._isna(a) if hasattr(a.dtype, "na_object") else np.zeros(a.shape, dtype=bool)


def check(a, result, sep):
    """``result`` is ``sep.join(x)`` for each string ``x`` of ``a`` (missing where ``a``
    is), ``sep`` broadcasting against ``a``."""
    assert result.shape == a.shape
    assert result.dtype == a.dtype
    missing = missing_mask(a)
    np.testing.assert_array_equal(missing_mask(result), missing)
    seps = np.broadcast_to(np.asarray(sep, dtype=object), a.shape)
    for index in np.ndindex(a.shape):
        if not missing[index]:
            assert result[index] == seps[index].join(a[index]), (a[index], seps[index])


@pytest.fixture(params=FLAVORS, ids=str)
def array(request, rng):
    flavor = request.param
    strings = random_strings(rng, 60, flavor.na_object) + ["", "a", "é", "ab", "日本"]
    return np.array(strings, dtype=flavor.dtype())


@pytest.mark.parametrize("sep", SEPARATORS, ids=repr)
def test_every_separator(array, sep):
    check(array, sds.join_chars(array, sep), sep)


def test_separators_per_element(array, rng):
    seps = np.array([rng.choice(SEPARATORS) for _ in range(len(array))], dtype=array.dtype)
    check(array, sds.join_chars(array, seps), seps.tolist())


@pytest.mark.parametrize("na_object", [None, np.nan])
def test_missing_separator_gives_missing(na_object):
    dtype = StringDType(na_object=na_object)
    a = np.array(["abc", "", "日本語", "x"], dtype=dtype)
    sep = np.array([na_object, "-", na_object, na_object], dtype=dtype)
    result = sds.join_chars(a, sep)
    assert _core._isna(result).tolist() == [True, False, True, True]
    assert result[1] == ""


def test_shapes_and_strides(rng):
    flat = np.array(random_strings(rng, 48, None), dtype=StringDType(na_object=None))
    grid = flat.reshape(6, 8)
    for a in (grid, grid.T, grid[::2, 1::3], grid[:, ::-1], flat[::5], flat[:0]):
        check(a, sds.join_chars(a, "|"), "|")
    seps = np.array(SEPARATORS[:6] + ["+", "="], dtype=flat.dtype)
    check(grid, sds.join_chars(grid, seps), seps.tolist())
    zero_d = np.array(["日本語", None], dtype=flat.dtype)
    assert sds.join_chars(zero_d[0, ...], ", ") == "日, 本, 語"
    assert sds.join_chars(zero_d[1, ...], ", ") is None


def test_unicode_arrays_become_string_dtype():
    result = sds.join_chars(np.array(["abc", "日本"]), "-")
    assert isinstance(result.dtype, StringDType)
    assert result.tolist() == ["a-b-c", "日-本"]


def test_too_long_a_result_is_an_overflow():
    a = np.array(["abc"], dtype=StringDType())
    sep = "x" * (2**30 + 1)  # two gaps: more than the largest string
    with pytest.raises(OverflowError, match="join"):
        sds.join_chars(a, sep)


def test_a_missing_string_is_an_error_under_numpys_rules():
    a = np.array(["abc", None], dtype=StringDType(na_object=None))
    with pytest.raises(TypeError, match="null"):
        _core._join_chars(a, np.array("-", dtype=a.dtype))


# ---- the pandas column -------------------------------------------------------------------

pd = pytest.importorskip("pandas", minversion="2.3")

import stringdtype.pandas  # noqa: F401 - registers "stringdtype"


@pytest.fixture(scope="module")
def pair():
    words = random_strings(random.Random("join_chars"), 200, None) + [np.nan, None, "", "a"]
    python = pd.StringDtype("python", na_value=np.nan)
    return pd.Series(words, dtype="stringdtype"), pd.Series(words, dtype=python)


def values(series):
    return [None if pd.isna(v) else v for v in series.astype(object).tolist()]


@pytest.mark.parametrize("sep", SEPARATORS, ids=repr)
def test_pandas_column_matches_string_python(pair, sep):
    ours, reference = pair
    result = ours.str.join(sep)
    assert result.dtype == ours.dtype
    assert values(result) == values(reference.str.join(sep))
