"""Comparisons, sorts and np.unique with missing values follow Python's semantics, which
are NumPy's fixed rules (numpy#32564, NumPy's next release) on every supported NumPy:

- a NaN-like missing value compares as float NaN: every comparison is false, `!=` true;
- a non-string sentinel such as None equals only another missing value (`!=` is its
  negation) and cannot be ordered (ValueError, as `None < "a"` is a TypeError);
- a string sentinel is that string; sorts put NaN-like missing values last.

NumPy 2.2-2.5's own StringDType has the two bugs (a missing None equals "", a NaN-like
one is not `!=` anything), so the reference run (STRINGDTYPE_TEST_REFERENCE=numpy) skips
these tests on those releases; src/numpy_version.rs records the decision.
"""

import bisect
import operator
import random
from collections import Counter

import numpy as np
import pytest
from conftest import (
    NA_OBJECTS,
    NA_STRING,
    NUMPY_RELEASE,
    REFERENCE,
    UNSET,
    StringDType,
    is_nan,
    random_strings,
)

# The first NumPy release with numpy#32564's comparisons.
FIXED_IN = (2, 6)
pytestmark = pytest.mark.skipif(
    REFERENCE and NUMPY_RELEASE < FIXED_IN,
    reason="NumPy's own StringDType before 2.6 compares missing values wrongly (numpy#32564)",
)

OPS = {
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
}
NA_IDS = ["unset", "None", "nan", "str"]


def dtype_of(na_object):
    return StringDType() if na_object is UNSET else StringDType(na_object=na_object)


def is_missing(x, na_object):
    return na_object is not UNSET and (x is na_object or (is_nan(x) and is_nan(na_object)))


def python_compare(name, x, y, na_object):
    """Python's answer for one pair, or ValueError for an order of None-like values."""
    mx, my = is_missing(x, na_object), is_missing(y, na_object)
    if not (mx or my) or na_object == NA_STRING:
        x, y = (NA_STRING if m else v for m, v in ((mx, x), (my, y)))
        return OPS[name](x, y)
    if is_nan(na_object):
        return name == "not_equal"
    if name in ("equal", "not_equal"):
        return (mx and my) == (name == "equal")
    raise ValueError


def expected(name, xs, ys, na_object):
    try:
        return [python_compare(name, x, y, na_object) for x, y in zip(xs, ys)]
    except ValueError:
        return ValueError


def outcome(fn):
    try:
        return fn().tolist()
    except ValueError:
        return ValueError


@pytest.fixture(params=NA_OBJECTS, ids=NA_IDS)
def na_object(request):
    return request.param


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", OPS)
def test_comparisons_of_arrays(seed, name, na_object):
    rng = random.Random(seed)
    xs, ys = random_strings(rng, 80, na_object), random_strings(rng, 80, na_object)
    ys[::4] = xs[::4]  # equal pairs, missing ones included
    a, b = (np.array(v, dtype=dtype_of(na_object)) for v in (xs, ys))
    ufunc = getattr(np, name)
    assert outcome(lambda: ufunc(a, b)) == expected(name, xs, ys, na_object)
    assert outcome(lambda: ufunc(b, a)) == expected(name, ys, xs, na_object)


@pytest.mark.parametrize("scalar", ["", "abc", "exactly12byt", "a" * 13, "é", NA_STRING])
@pytest.mark.parametrize("name", OPS)
def test_comparisons_with_a_python_str(scalar, name, na_object):
    rng = random.Random(7)
    xs = random_strings(rng, 60, na_object)
    a = np.array(xs, dtype=dtype_of(na_object))
    ufunc, same = getattr(np, name), [scalar] * len(xs)
    assert outcome(lambda: ufunc(a, scalar)) == expected(name, xs, same, na_object)
    assert outcome(lambda: ufunc(scalar, a)) == expected(name, same, xs, na_object)


def test_the_two_fixed_answers():
    a = np.array([None, "", "hello"], dtype=StringDType(na_object=None))
    assert (a == "").tolist() == [False, True, False]
    assert (a != "").tolist() == [True, False, True]
    assert ("" == a).tolist() == [False, True, False]
    b = np.array(["hello", np.nan, "world"], dtype=StringDType(na_object=np.nan))
    assert (b != "hello").tolist() == [False, True, True]
    c = b.copy()
    assert (b == c).tolist() == [True, False, True]
    assert (b != c).tolist() == [False, True, False]


def sort_key(x, na_object):
    """Python's order of the values: a NaN-like missing value after every string."""
    if is_missing(x, na_object):
        return (1, "") if is_nan(na_object) else (0, NA_STRING)
    return (0, x)


@pytest.mark.parametrize("seed", range(3))
def test_sort_unique_searchsorted_min_max(seed, na_object):
    rng = random.Random(seed)
    xs = random_strings(rng, 120, na_object)
    xs += xs[:30]  # repeats, missing ones included
    a = np.array(xs, dtype=dtype_of(na_object))
    if na_object is None:
        # None-like missing values cannot be ordered, whatever the function.
        for fn in (np.sort, np.argsort, np.unique, np.max, np.min):
            with pytest.raises(ValueError):
                fn(a)
        return
    key = lambda x: sort_key(x, na_object)
    order = sorted(range(len(xs)), key=lambda i: key(xs[i]))
    assert np.argsort(a, kind="stable").tolist() == order
    ordered = np.sort(a)
    assert [key(x) for x in ordered.tolist()] == [key(xs[i]) for i in order]
    assert key(np.max(a)) == key(xs[order[-1]]) and key(np.min(a)) == key(xs[order[0]])
    # searchsorted of every element, missing ones included, as bisect over the keys.
    keys = [key(xs[i]) for i in order]
    for side, search in (("left", bisect.bisect_left), ("right", bisect.bisect_right)):
        got = np.searchsorted(ordered, a, side=side).tolist()
        assert got == [search(keys, key(x)) for x in xs]
    # np.unique keeps every missing value: none is dropped or counted as a string.
    strings = Counter(key(x)[1] for x in xs if key(x)[0] == 0)
    n_missing = sum(is_missing(x, na_object) for x in xs) if is_nan(na_object) else 0
    values, counts = np.unique(a, return_counts=True)
    values = values.tolist()
    found = {v: c for v, c in zip(values, counts.tolist()) if not is_nan(v)}
    assert found == dict(strings)
    assert sum(c for v, c in zip(values, counts.tolist()) if is_nan(v)) == n_missing
    plain = np.unique(a).tolist()
    assert [v for v in plain if not is_nan(v)] == sorted(strings)
    assert (n_missing > 0) == any(is_nan(v) for v in plain)


def test_unique_of_the_issue():
    a = np.array(["b", np.nan, "a", np.nan], dtype=StringDType(na_object=np.nan))
    values, counts = np.unique(a, return_counts=True)
    assert [v for v in values.tolist() if not is_nan(v)] == ["a", "b"]
    assert counts.tolist()[:2] == [1, 1] and sum(counts.tolist()[2:]) == 2
    assert any(is_nan(v) for v in np.unique(a).tolist())
