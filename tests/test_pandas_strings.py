"""Every ``Series.str`` method of the ``"stringdtype"`` column against pandas on Python
``str`` objects (``StringDtype("python", na_value=np.nan)``: pandas' ``str`` semantics,
Python's ``str`` methods), on strings that are missing, empty, non-ASCII, exactly 12 and
13 bytes, long, or hold a NUL.
"""

import re

import numpy as np
import pytest
from conftest import package_only

pd = pytest.importorskip("pandas", minversion="2.3")
pytestmark = package_only

import stringdtype.pandas  # noqa: F401 - registers "stringdtype"

PYTHON_STR = pd.StringDtype("python", na_value=np.nan)
PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3

_ALPHABET = list("abcdeABCDE  xyz019_-.,") + ["ß", "é", "İ", "Σ", "ǅ", "ﬁ", "中", "😀", "\t"]


def _words(seed=0, size=160):
    rng = np.random.default_rng(seed)
    fixed = [
        "",
        "abcdefghijkl",  # 12 bytes: the longest inline string
        "abcdefghijklm",  # 13 bytes: the shortest one in the arena
        "ßßßßßß",  # 12 bytes
        "ßßßßßßa",  # 13 bytes
        "straße",
        "İstanbul",
        "ΣΑΣ ΟΔΟΣ",
        "  padded  ",
        "a\x00b",
        "x" * 300,
        "Title Case Words",
        "123",
        "-42",
        "½",
        None,
        np.nan,
    ]
    words = list(fixed)
    for _ in range(size - len(fixed)):
        if rng.random() < 0.1:
            words.append(None)
            continue
        length = int(rng.choice([0, 1, 3, 5, 8, 12, 13, 20, 60]))
        words.append("".join(rng.choice(_ALPHABET, size=length)))
    return words


WORDS = _words()


@pytest.fixture(scope="module")
def pair():
    """The column of this package and the reference column, holding the same strings."""
    return pd.Series(WORDS, dtype="stringdtype"), pd.Series(WORDS, dtype=PYTHON_STR)


def _normal(value):
    # pandas 2 pads expanded rows of other dtypes than its own with None, pandas 3 NaN
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "<missing>"
    if isinstance(value, (list, tuple)):
        return type(value)(_normal(v) for v in value)
    return value


def _values(obj):
    if isinstance(obj, pd.DataFrame):
        return {column: _values(obj[column]) for column in obj.columns}
    if isinstance(obj, (pd.Series, pd.Index)):
        return [_normal(v) for v in obj.astype(object).tolist()]
    if isinstance(obj, np.ndarray):
        return [_normal(v) for v in obj.tolist()]
    return _normal(obj)


def _result_dtypes_match(result, expected, method):
    """String results are this dtype where pandas gives ``str``; other dtypes are equal.

    pandas itself decides the dtype of two kinds of results: ``extract`` is ``object``
    for every string dtype but its own (``_result_dtype`` in pandas.core.strings), and
    the columns of expanded results are inferred from their values.
    """
    if isinstance(expected, pd.DataFrame):
        strings = (PYTHON_STR, "str", "stringdtype", object)
        if not PANDAS_3:
            return all(
                result[c].dtype == expected[c].dtype
                or (expected[c].dtype in strings and result[c].dtype in strings)
                for c in expected.columns
            )
        return all(
            result[c].dtype == expected[c].dtype
            or (expected[c].dtype == PYTHON_STR and result[c].dtype in strings)
            for c in expected.columns
        )
    if not hasattr(expected, "dtype"):
        return True
    if expected.dtype == PYTHON_STR:
        allowed = (object, "stringdtype") if method == "extract" else ("stringdtype",)
        return result.dtype in allowed
    return result.dtype == expected.dtype


def _call(series, method, args, kwargs):
    accessor = series.str
    if method == "__getitem__":
        return accessor[args[0]]
    return getattr(accessor, method)(*args, **kwargs)


CASES = [
    *[(name, (), {}) for name in ("upper", "lower", "title", "capitalize", "swapcase")],
    ("casefold", (), {}),
    *[
        (name, (), {})
        for name in [
            "isalnum",
            "isalpha",
            "isdigit",
            "isspace",
            "islower",
            "isupper",
            "istitle",
            "isnumeric",
            "isdecimal",
        ]
    ],
    ("isascii", (), {}),
    ("len", (), {}),
    ("contains", ("a",), {}),
    ("contains", ("a",), {"regex": False}),
    ("contains", ("ß",), {"case": False}),
    ("contains", ("A",), {"case": False, "regex": False}),
    ("contains", ("[0-9]+",), {"na": True}),
    ("contains", (re.compile(r"\w\s"),), {}),
    ("contains", ("\x00",), {"regex": False}),
    ("startswith", ("a",), {}),
    ("startswith", (("a", "ß", "x"),), {"na": True}),
    ("endswith", ("e",), {}),
    ("endswith", (("l", "m"),), {"na": False}),
    ("match", ("[a-c].",), {}),
    ("match", ("A",), {"case": False}),
    ("fullmatch", (r"[\w ]*",), {}),
    ("fullmatch", ("a.*",), {"na": True}),
    ("count", ("a",), {}),
    ("count", ("[aeiouß]",), {}),
    ("count", ("",), {}),
    ("find", ("a",), {}),
    ("find", ("a", 2), {}),
    ("find", ("b", 1, 5), {}),
    ("rfind", ("a",), {}),
    ("rfind", ("a", 0, 4), {}),
    ("index", ("",), {}),
    ("rindex", ("",), {}),
    ("replace", ("a", "XY"), {}),
    ("replace", ("a", "XY"), {"n": 1, "regex": False}),
    ("replace", ("a.", "-"), {"regex": True}),
    ("replace", ("A", "x"), {"case": False}),
    ("replace", ("", "-"), {"regex": False}),
    ("replace", (r"(\w)(\w)", r"\2\1"), {"regex": True}),
    ("replace", ("[bc]", lambda m: m.group(0).upper()), {"regex": True}),
    ("replace", (".", "!"), {"regex": False}),
    ("repeat", (2,), {}),
    ("repeat", (0,), {}),
    ("repeat", (list(range(len(WORDS))),), {}),
    ("pad", (10,), {}),
    ("pad", (10,), {"side": "right", "fillchar": "*"}),
    ("pad", (11,), {"side": "both", "fillchar": "ß"}),
    ("center", (12, "-"), {}),
    ("ljust", (13,), {}),
    ("rjust", (13, "."), {}),
    ("zfill", (8,), {}),
    ("strip", (), {}),
    ("strip", ("ab",), {}),
    ("lstrip", (), {}),
    ("rstrip", (" e",), {}),
    ("removeprefix", ("a",), {}),
    ("removeprefix", ("",), {}),
    ("removesuffix", ("e",), {}),
    ("removesuffix", ("",), {}),
    ("removeprefix", ("ab",), {}),
    ("removeprefix", ("é",), {}),
    ("removesuffix", ("bc",), {}),
    ("removesuffix", ("é",), {}),
    ("slice", (1, 4), {}),
    ("slice", (None, None, -1), {}),
    ("slice", (-3,), {}),
    ("slice", (1, None, 2), {}),
    ("slice", (2, 10, 3), {}),
    ("__getitem__", (slice(1, 3),), {}),
    ("__getitem__", (0,), {}),
    ("get", (0,), {}),
    ("get", (-1,), {}),
    ("get", (5,), {}),
    ("get", (-13,), {}),
    ("get", (12,), {}),
    ("get", (-1000,), {}),
    ("slice_replace", (1, 3, "X"), {}),
    ("slice_replace", (None, 2, "X"), {}),
    ("slice_replace", (2, None, "X"), {}),
    ("slice_replace", (5, 2, "X"), {}),
    ("slice_replace", (-3, -1), {}),
    ("slice_replace", (None, None, "é"), {}),
    ("slice_replace", (12, 13, "long replacement text"), {}),
    ("findall", ("[aeiou]",), {}),
    ("findall", (r"(\w)(\d)",), {}),
    ("extract", ("([a-z])",), {"expand": False}),
    ("extract", ("([a-z])",), {"expand": True}),
    ("extract", (r"(?P<letter>[a-z])(\d)?",), {}),
    ("extractall", ("([aeiou])",), {}),
    ("split", (), {}),
    ("split", (" ",), {}),
    ("split", (" ",), {"n": 1}),
    ("split", ("a|e",), {"regex": True}),
    ("split", ("ab",), {}),
    ("split", ("",), {}),
    ("split", (), {"expand": True}),
    ("split", (" ",), {"n": 1, "expand": True}),
    ("rsplit", (), {}),
    ("rsplit", (" ",), {"n": 1}),
    ("rsplit", (" ",), {"expand": True}),
    ("partition", (" ",), {}),
    ("partition", ("a",), {"expand": False}),
    ("rpartition", (" ",), {}),
    ("rpartition", ("ß",), {"expand": False}),
    ("partition", ("\x00",), {"expand": False}),
    ("partition", ("é",), {"expand": False}),
    ("partition", ("bcdefghijk",), {"expand": False}),
    ("rpartition", ("  ",), {"expand": False}),
    ("rpartition", ("x" * 20,), {}),
    ("encode", ("utf-8",), {}),
    ("encode", ("latin-1",), {"errors": "ignore"}),
    ("join", ("-",), {}),
    ("translate", ({ord("a"): "A", ord("ß"): None},), {}),
    ("translate", (str.maketrans("abé", "éxy", "\x00 "),), {}),
    ("translate", ({ord("中"): "long replacement text", ord("b"): 0x1F600},), {}),
    ("translate", ("ABC",), {}),  # a sequence: IndexError keeps the character
    ("wrap", (5,), {}),
    ("normalize", ("NFD",), {}),
    ("normalize", ("NFKC",), {}),
    ("get_dummies", ("a",), {}),
    ("cat", (), {"sep": ","}),
    ("cat", (), {"sep": "-", "na_rep": "?"}),
]


def _case_id(case):
    method, args, kwargs = case
    return f"{method}{args!r}{kwargs!r}"[:60]


@pytest.mark.parametrize(("method", "args", "kwargs"), CASES, ids=[_case_id(c) for c in CASES])
def test_str_method_matches_pandas_on_python_strings(pair, method, args, kwargs):
    ours, reference = pair
    if not hasattr(reference.str, method):
        pytest.skip(f"this pandas has no str.{method}")
    expected = _call(reference, method, args, kwargs)
    result = _call(ours, method, args, kwargs)
    assert _values(result) == _values(expected)
    assert _result_dtypes_match(result, expected, method)


@pytest.mark.parametrize(
    ("method", "args", "kwargs"),
    [
        ("index", ("a",), {}),
        ("rindex", ("zz",), {}),
        ("partition", ("",), {}),
        ("rpartition", ("",), {}),
        ("split", ("",), {"regex": False}),
        ("rsplit", ("",), {}),
    ],
)
def test_str_method_raises_as_pandas(pair, method, args, kwargs):
    ours, reference = pair
    with pytest.raises(ValueError) as expected:
        getattr(reference.str, method)(*args, **kwargs)
    with pytest.raises(type(expected.value)):
        getattr(ours.str, method)(*args, **kwargs)


@pytest.mark.parametrize("size", [0, 1])
def test_str_methods_on_tiny_columns(size):
    words = ["ab"][:size]
    ours = pd.Series(words, dtype="stringdtype")
    reference = pd.Series(words, dtype=PYTHON_STR)
    for method, args, kwargs in CASES:
        if method == "repeat" and isinstance(args[0], list) or not hasattr(reference.str, method):
            continue
        expected = _call(reference, method, args, kwargs)
        assert _values(_call(ours, method, args, kwargs)) == _values(expected), method


def test_all_missing_column():
    ours = pd.Series([None, np.nan], dtype="stringdtype")
    reference = pd.Series([None, np.nan], dtype=PYTHON_STR)
    for method in ("upper", "len", "contains", "slice", "count", "split", "find"):
        args = ("a",) if method in ("contains", "count", "find") else ()
        expected = _call(reference, method, args, {})
        assert _values(_call(ours, method, args, {})) == _values(expected), method


# The methods that have no kernel: Python's ``str`` method per element, as in pandas.
_PYTHON_METHODS = {"join", "translate", "wrap", "normalize", "get_dummies", "cat", "extractall"}


@pytest.mark.parametrize(
    ("method", "args", "kwargs"),
    [case for case in CASES if case[0] not in _PYTHON_METHODS],
    ids=[_case_id(c) for c in CASES if c[0] not in _PYTHON_METHODS],
)
def test_str_method_runs_on_kernels(pair, method, args, kwargs, monkeypatch):
    ours, _ = pair
    if not hasattr(ours.str, method):
        pytest.skip(f"this pandas has no str.{method}")
    if method == "zfill" and not PANDAS_3:
        pytest.skip("pandas 2 runs str.zfill per element without asking the array")

    def per_element(*args, **kwargs):
        raise AssertionError("ran Python per element")

    monkeypatch.setattr(type(ours.array), "_str_map", per_element)
    _call(ours, method, args, kwargs)


@pytest.mark.parametrize("table", [{ord("a"): 1.5}, {ord("b"): -1}, {ord("c"): 0x110000}])
def test_translate_raises_as_pandas(pair, table):
    ours, reference = pair
    with pytest.raises((TypeError, ValueError)) as expected:
        reference.str.translate(table)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        ours.str.translate(table)
