"""A ``.str`` result is handed to its Series instead of copied, and stays its own value.

pandas' ``StringMethods._wrap_result`` copies each result it wraps in a Series (pandas 3);
``StringDTypeArray.copy`` skips that copy for a result its ``_str_*`` method has just
made (stringdtype/pandas/_handoff.py). These tests check that the Series of every
string-returning method is independent of the column it came from, both ways, and that
every other copy of such a result is still a copy.
"""

import numpy as np
import pytest
from conftest import package_only

pd = pytest.importorskip("pandas", minversion="2.3")
pytestmark = package_only

import stringdtype.pandas  # noqa: F401 - registers "stringdtype"
from stringdtype.pandas import StringDTypeArray
from stringdtype.pandas._handoff import fresh_results

PYTHON_STR = pd.StringDtype("python", na_value=np.nan)
PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3

WORDS = [
    "",
    "abcdefghijkl",  # 12 bytes: inline
    "abcdefghijklm",  # 13 bytes: in the arena
    " straße ",
    "a\x00b",
    "x" * 200,
    None,
    "İstanbul",
    np.nan,
    "ab ab",
]

# Every ``.str`` method whose result is a string column, with arguments; a few of them
# could return their input unchanged (nothing to strip, an empty suffix, a no-op slice).
STRING_METHODS = [
    *[(name, ()) for name in ("upper", "lower", "title", "capitalize", "swapcase")],
    ("casefold", ()),
    ("strip", ()),
    ("lstrip", ("a",)),
    ("rstrip", ("zz",)),
    ("pad", (20,)),
    ("center", (15, "*")),
    ("ljust", (3,)),
    ("rjust", (14,)),
    ("zfill", (13,)),
    ("repeat", (2,)),
    ("replace", ("ab", "X")),
    ("replace", ("nothing", "X")),
    ("removeprefix", ("a",)),
    ("removesuffix", ("",)),
    ("removesuffix", ("b",)),
    ("slice", ()),
    ("slice", (1, 5)),
    ("get", (0,)),
    ("slice_replace", (1, 3, "X")),
    ("normalize", ("NFC",)),
    ("translate", ({ord("a"): "b"},)),
    ("join", ("-",)),
]


def _listed(series):
    return ["<missing>" if pd.isna(v) else v for v in series.astype(object).tolist()]


@pytest.mark.parametrize(("method", "args"), STRING_METHODS, ids=lambda x: str(x))
def test_result_is_its_own_value(method, args):
    s = pd.Series(WORDS, dtype="stringdtype")
    expected = getattr(pd.Series(WORDS, dtype=PYTHON_STR).str, method)(*args)
    before = _listed(s)

    result = getattr(s.str, method)(*args)
    assert result.dtype == "stringdtype"
    assert _listed(result) == _listed(expected)
    assert not np.may_share_memory(result.array._ndarray, s.array._ndarray)
    if PANDAS_3:  # pandas 2 asks for no copy: the mark stays until the first copy
        assert not hasattr(result.array, "_fresh")  # the mark went with the handoff

    # Writing to the result leaves the column as it was, and the other way round.
    result_values = _listed(result)
    result.iloc[0] = "written into the result, 31 bytes"
    result.iloc[-1] = np.nan
    assert _listed(s) == before
    s.iloc[1] = "written into the column"
    s.iloc[2] = np.nan
    assert _listed(result)[1:-1] == result_values[1:-1]


def _capturing(monkeypatch, name):
    """Replace ``StringDTypeArray.<name>`` by a wrapper that keeps each array it returns."""
    made = []
    method = getattr(StringDTypeArray, name)

    def keep(self, *args, **kwargs):
        made.append(method(self, *args, **kwargs))
        return made[-1]

    monkeypatch.setattr(StringDTypeArray, name, keep)
    return made


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("_str_upper", lambda s: s.str.upper()),
        ("_str_lstrip", lambda s: s.str.lstrip("a")),
        ("_str_pad", lambda s: s.str.center(20, "*")),
        ("_str_repeat", lambda s: s.str.repeat(3)),
    ],
)
def test_series_holds_the_result_itself(monkeypatch, name, call):
    s = pd.Series(WORDS, dtype="stringdtype")
    made = _capturing(monkeypatch, name)
    result = call(s)
    assert len(made) == 1
    # pandas 3 asks for a copy, which is skipped; pandas 2 asks for none.
    assert result.array is made[0]


def test_direct_result_copies():
    """A ``_str_*`` result copied anywhere but in ``_wrap_result``'s Series is copied."""
    s = pd.Series(WORDS, dtype="stringdtype")
    made = s.array._str_upper()
    assert made._fresh
    copied = made.copy()
    assert copied is not made
    assert not hasattr(made, "_fresh")  # any copy clears the mark
    copied[0] = "changed"
    assert made[0] == ""
    again = made.copy()
    assert again is not made


def test_copy_of_a_result_series_copies():
    """The Series' own copies (``Series.copy``, a new Series of its array) are copies,
    also under pandas 2, whose Series keeps the mark of the array it was given."""
    s = pd.Series(WORDS, dtype="stringdtype")
    result = s.str.upper()
    copied = result.copy()
    assert copied.array is not result.array
    copied.iloc[0] = "changed"
    assert result.iloc[0] == ""
    again = s.str.lower().str.upper()  # a result wrapped, then the input of another
    assert not np.may_share_memory(again.array._ndarray, result.array._ndarray)


@pytest.mark.skipif(not PANDAS_3, reason="pandas 2 shares an array given to Series()")
def test_series_of_a_direct_result_copies():
    made = pd.Series(WORDS, dtype="stringdtype").array._str_upper()
    wrapped = pd.Series(made)
    assert wrapped.array is not made
    wrapped.iloc[0] = "changed"
    assert made[0] == ""


@pytest.mark.skipif(not PANDAS_3, reason="pandas 2 shares an array given to Series()")
def test_index_result_then_series_copies():
    """An Index keeps its ``.str`` result without copying (pandas passes ``copy=False``):
    a Series made from that array later is a copy, not the Index's array."""
    index = pd.Index(pd.array(["ab", "cd", None, "x" * 20], dtype="stringdtype"))
    assert index.dtype == "stringdtype"
    upper = index.str.upper()
    assert upper.dtype == "stringdtype"
    series = pd.Series(upper.array)
    series.iloc[0] = "changed"
    assert upper[0] == "AB"
    series = pd.Series(upper)
    series.iloc[1] = "changed"
    assert upper[1] == "CD"


def test_results_sharing_the_column_are_not_fresh():
    """A method whose result is the column itself, or a view of its array, marks nothing."""
    column = pd.array(WORDS, dtype="stringdtype")
    itself = fresh_results(lambda self: self)(column)
    assert itself is column and not hasattr(column, "_fresh")
    view = fresh_results(lambda self: self._from_backing_data(self._ndarray[::-1]))(column)
    assert not hasattr(view, "_fresh")
    made = fresh_results(lambda self: self._from_backing_data(self._ndarray.copy()))(column)
    assert made._fresh
