"""pandas merges and joins on ``"stringdtype"`` key columns, whose keys reach pandas'
factorizer as int64 codes (stringdtype/pandas/_merge.py): every result equal to the one
of the same merge with the keys as Python strings (the path the codes replace) and to
pandas' ``string[python]`` column's, for every kind of join, with and without sorting,
with missing, repeated, non-ASCII, 12- and 13-byte and NUL-holding keys.
"""

import random

import numpy as np
import pytest
from conftest import package_only, random_strings

pd = pytest.importorskip("pandas", minversion="2.3")
pytestmark = package_only

import stringdtype.pandas  # noqa: F401 - registers "stringdtype"
from stringdtype.pandas import _merge

PYTHON = pd.StringDtype("python", na_value=np.nan)
HOWS = ["inner", "left", "right", "outer"]
# pandas 2 hashes object strings as C strings ("a\x00b" equals "a"), so its string path,
# which the comparisons below take as reference, only tells NUL-holding keys apart from
# pandas 3 on (test_keys_holding_nul checks them against Python on every release).
PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3


def keys(seed, n, pool):
    rng = random.Random(seed)
    words = random_strings(rng, pool, None) + ["abcdefghijkl", "abcdefghijklm", "a"]
    if PANDAS_3:
        words += ["a\x00", "a\x00b"]
    else:
        words = [w for w in words if w is None or "\x00" not in w]
    return [rng.choice(words) if rng.random() > 0.1 else None for _ in range(n)]


def frames(dtype, seed=0, n=300, m=80):
    left = pd.DataFrame({"k": pd.Series(keys(seed, n, 60), dtype=dtype), "v": np.arange(n)})
    right = pd.DataFrame({"k": pd.Series(keys(seed + 1, m, 60), dtype=dtype), "w": np.arange(m)})
    return left, right


def as_objects(frame):
    """``frame`` with its string columns as objects and missing values as None."""
    out = frame.astype({c: object for c in frame.columns if frame[c].dtype != np.int64})
    return out.where(out.notna(), None)


@pytest.fixture
def without_codes(monkeypatch):
    """Runs a merge the way it went before the codes: keys as Python strings."""

    def run(function):
        with monkeypatch.context() as patch:
            patch.setattr(_merge, "_CODE", None)
            return function()

    return run


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_merge_matches_the_string_path_and_string_python(how, sort, seed, without_codes):
    left, right = frames("stringdtype", seed)
    merge = lambda: left.merge(right, on="k", how=how, sort=sort)  # noqa: E731
    result = merge()
    assert result["k"].dtype == left["k"].dtype
    pd.testing.assert_frame_equal(result, without_codes(merge))
    python_left, python_right = frames(PYTHON, seed)
    expected = python_left.merge(python_right, on="k", how=how, sort=sort)
    pd.testing.assert_frame_equal(as_objects(result), as_objects(expected))


@pytest.mark.parametrize("how", HOWS)
def test_merge_with_itself_and_on_two_keys(how, without_codes):
    left, right = frames("stringdtype", 5, n=120, m=120)
    left["k2"] = left["k"].str.upper()
    right["k2"] = right["k"].str.slice(0, 2)
    cases = [
        lambda: left.merge(left, on="k", how=how),
        lambda: left.merge(right, on=["k", "k2"], how=how, sort=True),
        lambda: left.merge(right, left_on="k2", right_on="k", how=how),
        lambda: left.join(right.set_index("k")[["w"]], on="k", how=how),
        lambda: left.merge(right, on="k", how=how, indicator=True),
    ]
    for merge in cases:
        pd.testing.assert_frame_equal(merge(), without_codes(merge))


def test_keys_reach_pandas_as_codes_once_per_merge(monkeypatch):
    if _merge._CODE is None:
        pytest.skip(f"pandas {pd.__version__}'s merge is not one the codes were checked on")
    calls = []
    joint = _merge.joint_codes
    monkeypatch.setattr(
        _merge, "joint_codes", lambda *args: calls.append(args[2]) or joint(*args)
    )
    left, right = frames("stringdtype")
    left.merge(right, on="k", sort=True)
    left.merge(right, on="k")
    assert calls == [True, False]
    assert getattr(_merge._pending, "value", None) is None


def test_other_callers_get_strings():
    array = pd.array(["b", None, "a", "b"], dtype="stringdtype")
    values, na = array._values_for_factorize()
    assert values.dtype == object and values.tolist()[0] == "b" and np.isnan(na)
    codes, uniques = pd.factorize(pd.Series(array))
    assert codes.tolist() == [0, -1, 1, 0] and uniques.tolist() == ["b", "a"]


def test_mixed_key_dtypes_and_empty_frames(without_codes):
    left, right = frames("stringdtype", 3)
    objects = right.astype({"k": object})
    merge = lambda: left.merge(objects, on="k", how="outer")  # noqa: E731
    pd.testing.assert_frame_equal(merge(), without_codes(merge))
    empty = left.iloc[:0]
    for how in HOWS:
        merge = lambda: empty.merge(right, on="k", how=how)  # noqa: E731
        pd.testing.assert_frame_equal(merge(), without_codes(merge))


def test_joint_codes():
    from stringdtype.pandas._convert import BACKING

    left = np.array(["b", np.nan, "a", "ccccccccccccc", "b"], dtype=BACKING)
    right = np.array(["a", "d", np.nan], dtype=BACKING)
    codes_left, codes_right = _merge.joint_codes(left, right, False)
    assert codes_left.tolist() == [0, 4, 1, 2, 0] and codes_right.tolist() == [1, 3, 4]
    codes_left, codes_right = _merge.joint_codes(left, right, True)
    assert codes_left.tolist() == [1, 4, 0, 2, 1] and codes_right.tolist() == [0, 3, 4]


def test_keys_holding_nul():
    if _merge._CODE is None:
        pytest.skip(f"pandas {pd.__version__}'s merge is not one the codes were checked on")
    words = ["a", "a\x00", "a\x00b", "a\x00c", "", "\x00", None, "a"]
    left = pd.DataFrame({"k": pd.Series(words, dtype="stringdtype"), "v": range(len(words))})
    right = pd.DataFrame({"k": pd.Series(words[::-1], dtype="stringdtype"), "w": range(8)})
    for sort in (False, True):
        result = left.merge(right, on="k", sort=sort)
        pairs = sorted(zip(result["v"], result["w"]))
        present = [w if isinstance(w, str) else None for w in words]
        expected = sorted(
            (i, j)
            for i, a in enumerate(present)
            for j, b in enumerate(present[::-1])
            if a == b  # missing keys pair with each other, as pandas pairs them
        )
        assert pairs == expected
        if sort:
            order = [w if isinstance(w, str) else "\uffff" for w in result["k"].tolist()]
            assert order == sorted(order)
