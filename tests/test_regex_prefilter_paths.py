"""The early answers of the regex search family against Python's ``re``, element by
element: a string holding no byte a match can start with has no match (``search``,
``count``, ``findall``, ``extract``, ``split``), and one whose first byte starts no match
has none at the start (``match``, ``fullmatch``), without the engine and before deciding
whether the string needs Python. Patterns that can match empty get no early answer. The
strings are empty, inline (12 bytes) and not (13), long, non-ASCII, hold a NUL, several
newlines (``$`` leaves those to Python), or are missing; the same through the pandas
column's ``.str`` methods when ``stringdtype.pandas`` imports."""

import math
import re

import numpy as np
import pytest
from conftest import FLAVORS, UNSET, StringDType, package_only
from regex_support import FILTERED, UNFILTERED, strings_for

pytestmark = package_only

from stringdtype import _core  # noqa: E402
from stringdtype import regex as sre  # noqa: E402

# Patterns with a small first-byte set, besides the shared ones: anchors, `$` before
# newlines, word boundaries, case folding, alternations.
SMALL_SETS = [
    r"abc", r"[xyz]", r"foo|bar|\d", r"(?i)straSSe", r"(?i)[kσ]", r"^\d", r"^x", r"x$",
    r"(\d)$", r"(?m)b$", r"\bx\w*", r"\Bx", r"\B(x)", r"(x)|(y)", r"\x00+", r"é|中",
]  # fmt: skip

# Patterns that can match the empty string: no set, so no early answer.
NULLABLE = [r"a*", r"(?:x)?", r"(x)?", r"\d*", r"x|", r"\B", r"\b", r"^", r"$"]

PATTERNS = FILTERED + SMALL_SETS + NULLABLE + UNFILTERED

# `$` with several newlines and `\B` on an empty string go to Python unless the early
# answer settles them; strings starting or not with a candidate byte.
MORE = [
    "a\n\n", "x\nx\n", "ax\nbx\n", "b\nb\n", "\n", "x", "xa", "ax", " x", "1", "1\n",
    "1\n1\n", "\x00x", "x\x00", "K", "\u212a", "ς", "STRASSE", "straße", "y" * 13,
]  # fmt: skip


def strings(seed, na_object):
    return strings_for(seed, na_object) + MORE


def is_missing(s, na_object):
    return s is na_object or (s != s) or (isinstance(na_object, str) and s == na_object)


def expected(op, compiled, s):
    """Python's answer for one present string, as the ``stringdtype.regex`` function
    gives it."""
    if op in ("search", "match", "fullmatch"):
        return getattr(compiled, op)(s) is not None
    if op == "count":
        return len(compiled.findall(s))
    if op == "extract":
        m = compiled.search(s)
        return None if m is None else m.group(min(compiled.groups, 1))
    if op == "findall":
        return compiled.findall(s)
    return compiled.split(s)


def answers(op, pattern, a):
    if op == "extract":
        result = sre.extract(pattern, a, group=min(re.compile(pattern).groups, 1))
        missing = _core._isna(result).tolist()
        return [None if m else v for v, m in zip(result.tolist(), missing, strict=True)]
    return getattr(sre, op)(pattern, a).tolist()


OPS = ["search", "match", "fullmatch", "count", "extract", "findall", "split"]


def check(op, pattern, values, flavor_dtype, na_object):
    a = np.array(values, dtype=flavor_dtype)
    got = answers(op, pattern, a)
    compiled = re.compile(pattern)
    has_missing = any(is_missing(s, na_object) for s in values)
    for s, value in zip(values, got, strict=True):
        if is_missing(s, na_object):
            if op in ("search", "match", "fullmatch"):
                assert value is False, (op, pattern, s, value)
            elif op == "count":
                assert math.isnan(value), (op, pattern, s, value)
            elif op == "extract":
                assert value is None, (op, pattern, s, value)
            else:
                assert is_missing(value, na_object), (op, pattern, s, value)
            continue
        want = expected(op, compiled, s)
        if op == "count" and has_missing:
            want = float(want)
        assert value == want and type(value) is type(want), (op, pattern, s, value, want)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("pattern", PATTERNS)
def test_agrees_with_re(op, pattern):
    values = strings(op + pattern, None)
    check(op, pattern, values, StringDType(na_object=None), None)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("pattern", [r"(\d+)", r"^x", r"x$", r"a*"])
def test_without_missing_values(op, pattern):
    values = strings("plain" + op + pattern, UNSET)
    check(op, pattern, values, StringDType(), UNSET)


@pytest.mark.parametrize("flavor", [f for f in FLAVORS if f.has_na], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_missing_values(flavor, op):
    values = strings(f"{flavor}-{op}", flavor.na_object)
    for pattern in (r"(\d+)", r"(?i)k", r"\Bx", r"a*"):
        check(op, pattern, values, flavor.dtype(), flavor.na_object)


def test_split_maxsplit_and_no_candidate():
    values = ["", "abc", "abcdefghijklm", "é中\x00", "a1b2c3", "x\nx\n"]
    a = np.array(values, dtype=StringDType())
    for pattern in (r"\d", r"(\d)", r"x$"):
        for maxsplit in (0, 1, -1):
            want = [re.split(pattern, s, maxsplit=maxsplit) for s in values]
            assert sre.split(pattern, a, maxsplit).tolist() == want, (pattern, maxsplit)


def test_shapes_and_strides():
    values = (strings_for("strides", None, 48) * 2)[:48]
    values = [s if s is not None else "" for s in values]
    base = np.array(values, dtype=StringDType()).reshape(6, 8)
    compiled = re.compile(r"\d")
    for a in (base, base.T, base[::2, 1::3], base[:, ::-1], base[0]):
        flat = a.ravel().tolist()
        assert sre.search(r"\d", a).ravel().tolist() == [bool(compiled.search(s)) for s in flat]
        assert sre.match(r"\d", a).ravel().tolist() == [bool(compiled.match(s)) for s in flat]
        assert sre.count(r"\d", a).ravel().tolist() == [len(compiled.findall(s)) for s in flat]


# The pandas column's `.str` methods, against pandas on Python `str` objects (which runs
# Python's `re`).
PANDAS_METHODS = ["contains", "match", "fullmatch", "count", "findall", "extract", "split"]
PANDAS_PATTERNS = [r"(\d+)", r"(?i)(k)", r"(x)$", r"\B(x)", r"(a*)", r"(?:x)?(y)?", r"^(é|中)"]


@pytest.mark.filterwarnings("ignore:This pattern is interpreted as a regular expression")
@pytest.mark.parametrize("method", PANDAS_METHODS)
@pytest.mark.parametrize("pattern", PANDAS_PATTERNS)
def test_pandas_str_agrees(method, pattern):
    pd = pytest.importorskip("pandas", minversion="2.3")
    pytest.importorskip("stringdtype.pandas")
    values = strings(method + pattern, None) + [np.nan]
    ours = pd.Series(values, dtype="stringdtype")
    reference = pd.Series(values, dtype=pd.StringDtype("python", na_value=np.nan))
    kwargs = {"expand": False} if method == "extract" else {}
    if method == "split":
        kwargs = {"pat": pattern, "regex": True}
        got, want = ours.str.split(**kwargs), reference.str.split(**kwargs)
    else:
        got = getattr(ours.str, method)(pattern, **kwargs)
        want = getattr(reference.str, method)(pattern, **kwargs)
    assert normal(got) == normal(want), (method, pattern)


def normal(series):
    def one(value):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "<missing>"
        if isinstance(value, (list, tuple)):
            return type(value)(one(v) for v in value)
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            return value.item()
        return value

    return [one(v) for v in series.astype(object).tolist()]
