"""``stringdtype.strings.slice_replace`` (pandas' ``str.slice_replace`` as one Rust loop)
against pandas' per-element rule on Python strings, and the ``"stringdtype"`` column's
``str.slice_replace`` against pandas' ``string[python]`` column.
"""

import numpy as np
import pytest
from conftest import FLAVORS, package_only, random_strings

import stringdtype.strings as sds
from stringdtype import StringDType, _core

pytestmark = package_only

BOUNDS = [None, -(2**70), -100, -13, -3, -1, 0, 1, 3, 12, 13, 100, 2**70]
REPLS = ["", "X", "é日😀", "a replacement longer than twelve bytes", "\x00"]


def rule(x, start, stop, repl):
    """pandas' ``_str_slice_replace`` of one string (pandas/core/strings/object_array.py)."""
    local_stop = start if x[start:stop] == "" else stop
    y = x[:start] if start is not None else ""
    y += repl
    if stop is not None:
        y += x[local_stop:]
    return y


def missing_mask(a):
    return _core._isna(a) if hasattr(a.dtype, "na_object") else np.zeros(a.shape, dtype=bool)


def check(a, result, start, stop, repl):
    """``result`` is the rule applied to each string of ``a`` (missing where ``a`` is)."""
    assert result.shape == a.shape
    assert result.dtype == a.dtype
    missing = missing_mask(a)
    np.testing.assert_array_equal(missing_mask(result), missing)
    starts, stops, repls = (
        np.broadcast_to(np.asarray(v, dtype=object), a.shape) for v in (start, stop, repl)
    )
    for index in np.ndindex(a.shape):
        if missing[index]:
            continue
        want = rule(a[index], starts[index], stops[index], repls[index])
        assert result[index] == want, (a[index], starts[index], stops[index], repls[index])


@pytest.fixture(params=FLAVORS, ids=str)
def array(request, rng):
    flavor = request.param
    return np.array(random_strings(rng, 60, flavor.na_object), dtype=flavor.dtype())


def test_every_bound_and_replacement(array):
    for start in BOUNDS:
        for stop in BOUNDS:
            for repl in REPLS:
                check(array, sds.slice_replace(array, start, stop, repl), start, stop, repl)


def test_defaults_replace_everything(array):
    check(array, sds.slice_replace(array), None, None, "")
    check(array, sds.slice_replace(array, repl="é"), None, None, "é")


def test_bounds_and_replacements_per_element(array, rng):
    n = len(array)
    ints = [b for b in BOUNDS if b is not None and abs(b) < 2**63]
    starts = np.array([rng.choice(ints) for _ in range(n)])
    stops = np.array([rng.choice(ints) for _ in range(n)])
    repls = np.array([rng.choice(REPLS) for _ in range(n)], dtype=array.dtype)
    result = sds.slice_replace(array, starts, stops, repls)
    check(array, result, starts.tolist(), stops.tolist(), repls.tolist())


@pytest.mark.parametrize("na_object", [None, np.nan])
def test_missing_replacement_gives_missing(na_object):
    dtype = StringDType(na_object=na_object)
    a = np.array(["abc", "", "日本語"], dtype=dtype)
    repl = np.array([na_object, "X", na_object], dtype=dtype)
    result = sds.slice_replace(a, 1, 2, repl)
    assert _core._isna(result).tolist() == [True, False, True]
    assert result[1] == "X"


def test_shapes_and_strides(rng):
    flat = np.array(random_strings(rng, 48, None), dtype=StringDType(na_object=None))
    grid = flat.reshape(6, 8)
    for a in (grid, grid.T, grid[::2, 1::3], grid[:, ::-1], flat[::5], flat[:0]):
        for start, stop, repl in [(1, 3, "X"), (-4, None, "日"), (None, 2, "")]:
            check(a, sds.slice_replace(a, start, stop, repl), start, stop, repl)
    # Bounds that broadcast along one axis.
    starts = np.arange(-4, 4)
    check(grid, sds.slice_replace(grid, starts, 5, "|"), starts, 5, "|")
    # A 0-d array gives a scalar, as a ufunc does.
    zero_d = np.array(["日本語です", None], dtype=flat.dtype)
    assert sds.slice_replace(zero_d[0, ...], 1, -1, "-") == "日-す"
    assert sds.slice_replace(zero_d[1, ...], 1, -1, "-") is None


def test_unicode_arrays_become_string_dtype():
    result = sds.slice_replace(np.array(["abcdef", "日本語"]), 1, 2, "-")
    assert isinstance(result.dtype, StringDType)
    assert result.tolist() == ["a-cdef", "日-語"]


def test_non_integer_bounds_are_refused():
    a = np.array(["abc"], dtype=StringDType())
    with pytest.raises(TypeError):
        sds.slice_replace(a, 1.5, 2, "X")


def test_a_missing_string_is_an_error_under_numpys_rules():
    # The ufunc under NumPy's policy treats a missing string as slice does.
    a = np.array(["abc", None], dtype=StringDType(na_object=None))
    repl = np.array("X", dtype=a.dtype)
    with pytest.raises(TypeError, match="Cannot slice null string"):
        _core._slice_replace(a, 0, 1, repl)


# ---- the pandas column -------------------------------------------------------------------

pd = pytest.importorskip("pandas", minversion="2.3")

import stringdtype.pandas  # noqa: F401 - registers "stringdtype"


@pytest.fixture(scope="module")
def pair():
    import random

    words = random_strings(random.Random("slice_replace"), 200, None) + [np.nan, None]
    python = pd.StringDtype("python", na_value=np.nan)
    return pd.Series(words, dtype="stringdtype"), pd.Series(words, dtype=python)


def values(series):
    return [None if pd.isna(v) else v for v in series.astype(object).tolist()]


@pytest.mark.parametrize("start", [None, -13, -1, 0, 2, 12, 50])
@pytest.mark.parametrize("stop", [None, -3, 0, 1, 13, 50])
@pytest.mark.parametrize("repl", [None, "", "X", "é日😀", "long replacement text"])
def test_pandas_column_matches_string_python(pair, start, stop, repl):
    ours, reference = pair
    result = ours.str.slice_replace(start, stop, repl)
    assert result.dtype == ours.dtype
    assert values(result) == values(reference.str.slice_replace(start, stop, repl))
