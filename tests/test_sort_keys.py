"""Sorting by integer keys (src/sort.rs, crates/stringdtype-core/src/kernels/sort_keys.rs):
``sort``, ``argsort`` and ``unique`` order strings by 12 bytes at a time with their
lengths, and sort ties again by the next 12 bytes, down to a comparison of what is left
past ten levels of keys. The order must be Python's (code point order, a string before
the longer ones it begins, argsort stable) at every depth: strings that share prefixes
of the lengths around those steps, end in NULs there, or repeat; on one thread and on
several; with missing values (NaN-like ones last, a string one as its string). Each
test runs on both paths: keys, and the comparisons that arrays of more than 2**28
elements take (``_core._set_key_sort_limit(0)``)."""

import random

import numpy as np
import pytest
from conftest import REFERENCE, random_strings

from stringdtype import StringDType

if REFERENCE:
    pytest.skip("the package's own sort", allow_module_level=True)

from stringdtype import _core

# Lengths at and around the keys' steps (12 bytes each) and the last one (120).
PREFIX_LENGTHS = [0, 1, 4, 11, 12, 13, 23, 24, 25, 36, 119, 120, 121, 132, 150]
TAILS = ["", "\0", "\0\0", "a", "b", "\0a", "é", "\U0001f600", "ab\0", "zz", "a" * 13]


@pytest.fixture(autouse=True, params=["keys", "comparisons"])
def path(request):
    threads, threshold = _core._pool_threads(), _core._pool_threshold()
    limit = _core._set_key_sort_limit(0 if request.param == "comparisons" else 2**28)
    yield request.param
    _core._set_key_sort_limit(limit)
    _core._set_pool_threads(threads)
    _core._set_pool_threshold(threshold)


def deep_strings(seed, n):
    """``n`` strings made of shared prefixes, each cut at one of PREFIX_LENGTHS code
    points and followed by a tail or two (NULs and non-ASCII among them), with repeats,
    plus the conftest kinds (empty, 12 and 13 bytes, long, non-ASCII, NUL)."""
    rng = random.Random(seed)
    stems = ["".join(rng.choice("ab\0é") for _ in range(150)) for _ in range(3)]
    stems.append("x" * 150)
    values = random_strings(rng, n // 4)
    while len(values) < n:
        prefix = rng.choice(stems)[: rng.choice(PREFIX_LENGTHS)]
        s = prefix + rng.choice(TAILS) + rng.choice(TAILS)
        values.extend([s] * rng.choice([1, 1, 1, 2, 5]))
    rng.shuffle(values)
    return values[:n]


def check_order(values, dtype):
    a = np.array(values, dtype=dtype)
    order = sorted(range(len(values)), key=values.__getitem__)
    assert np.argsort(a).tolist() == order
    assert np.sort(a).tolist() == [values[i] for i in order]
    in_place = a.copy()
    in_place.sort()
    assert in_place.tolist() == [values[i] for i in order]
    assert np.unique(a).tolist() == sorted(set(values))


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("n", [0, 1, 2, 17, 3000])
def test_sorts_follow_python_at_every_depth(threads, n):
    _core._set_pool_threads(threads)
    _core._set_pool_threshold(64)
    check_order(deep_strings(n * 10 + threads, n), StringDType())


@pytest.mark.parametrize("threads", [1, 2])
def test_one_string_repeated_and_a_long_common_prefix(threads):
    _core._set_pool_threads(threads)
    _core._set_pool_threshold(64)
    rng = random.Random(5)
    common = "p" * 300
    cases = {
        "one long string": [common] * 500,
        "long prefix, short tails": [common + rng.choice(TAILS) for _ in range(500)],
        "prefix past the last key": [common + str(rng.randrange(10**6)) for _ in range(500)],
        "nul runs": ["q" + "\0" * rng.randrange(40) for _ in range(500)],
        # Paths of a deep tree: each level of keys tells few strings apart, so ties go
        # past the last level (ten) to comparisons of what is left.
        "deep tree": [
            "/".join(rng.choice("ab") * 11 for _ in range(rng.randrange(25))) + rng.choice(TAILS)
            for _ in range(500)
        ],
        "urls": [
            "https://example.com/a/long/shared/path/" + str(rng.randrange(10**rng.randrange(1, 12)))
            for _ in range(500)
        ],
    }
    for name, values in cases.items():
        a = np.array(values, dtype=StringDType())
        order = sorted(range(len(values)), key=values.__getitem__)
        assert np.argsort(a).tolist() == order, name
        assert np.sort(a).tolist() == sorted(values), name


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("where", ["first", "last", "scattered", "all"])
def test_missing_values_sort_as_numpys_rules(threads, where):
    """NaN-like missing values after every string, equal among themselves (argsort keeps
    their positions); a string missing value as its string, equal to that string."""
    _core._set_pool_threads(threads)
    _core._set_pool_threshold(64)
    values = deep_strings(7, 800) + ["zzz-missing", "\U0010ffff" * 4, "\U0010ffff" * 4 + "x"]
    at = {
        "first": [0],
        "last": [len(values) - 1],
        "scattered": range(0, len(values), 37),
        "all": range(len(values)),
    }
    for na_object in (np.nan, "zzz-missing", ""):
        with_na = list(values)
        for i in at[where]:
            with_na[i] = na_object
        a = np.array(with_na, dtype=StringDType(na_object=na_object))

        def key(i):
            v = with_na[i]
            if isinstance(v, str):
                return (0, v)
            return (1, "")

        order = sorted(range(len(with_na)), key=key)
        assert np.argsort(a).tolist() == order
        got = np.sort(a).tolist()
        shown = [x if isinstance(x, str) else "NA" for x in got]
        assert shown == [with_na[i] if isinstance(with_na[i], str) else "NA" for i in order]


def test_rows_strides_and_a_reversed_view():
    values = deep_strings(11, 1200)
    a = np.array(values, dtype=StringDType())
    assert np.sort(a[::-3]).tolist() == sorted(values[::-3])
    rows = a.reshape(3, -1)
    for row, got in zip(rows.tolist(), np.sort(rows, axis=1).tolist()):
        assert got == sorted(row)
    assert np.argsort(rows, axis=0).tolist() == np.array(
        [sorted(range(3), key=col.__getitem__) for col in zip(*rows.tolist())]
    ).T.tolist()


def test_a_missing_value_that_cannot_be_ordered_fails_and_changes_nothing():
    """``None`` cannot be ordered (NumPy's StringDType raises the same error); the check
    runs before any key is made, so the array is left as it was."""
    values = deep_strings(3, 300)
    a = np.array(values[:150] + [None] + values[150:], dtype=StringDType(na_object=None))
    before = a.tolist()
    with pytest.raises(ValueError, match="Cannot compare null"):
        a.sort()
    assert a.tolist() == before
    with pytest.raises(ValueError, match="Cannot compare null"):
        np.argsort(a)
