"""The paths of ``stringdtype.regex.sub`` against Python's ``re.sub``, element by element:
the first-byte filter (a string holding no byte a match can start with is its own result,
without the engine; inside a string the search jumps to the next such byte), patterns the
filter must not apply to (empty matches, anchors, look-arounds, any character), case
folding and non-ASCII, capture slots on the stack and on the heap, counts, missing
values, shapes and strides."""

import random
import re

import numpy as np
import pytest
from conftest import FLAVORS, StringDType, package_only, random_strings

pytestmark = package_only

from stringdtype import _core  # noqa: E402
from stringdtype import regex as sre  # noqa: E402

# Strings with and without the bytes the patterns below start with: digits (ASCII and
# not), a NUL, case-folding partners, and lengths around the 12-byte inline limit.
EXTRA = [
    "", "a", "ab12cd", "123456789012", "1234567890123", "abcdefghijkl", "abcdefghijklm",
    "no digits here at all, a long one" * 4, "x" * 200 + "7", "٣٣ and ๑", "²", "x\x00 9",
    "\x00", "K\u212ak", "Straße", "STRASSE", "ſ", "σς Σ", "é1é", "中文2", "a\nb\n", "abc\n",
    "xyz", "xz", "x yz", "aaab", "b", "😀9😀",
]  # fmt: skip

# Patterns with a first-byte set: a string without those bytes has no match.
FILTERED = [
    r"(\d+)", r"\d+", r"[0-9]", r"x(y)?z", r"é+", r"中", r"\x00", r"(?i)k", r"(?i)ß", r"(?i)s+",
    r"\bk", r"a$", r"\d\Z", r"(?m)^\d", r"(?a)(\d+)", r"(?P<n>\d)(\w)?", r"ab|\d", r"(a|b)c*",
    r"(a)(b)?(c)?(d)?(e)?(f)?(g)?(h)?(i)?", r"[^\W\d]+", r"\s+",
]  # fmt: skip

# Patterns a filter must leave alone: they can match empty, start with any character, or
# run through Python's re (look-arounds).
UNFILTERED = [
    r"\d*", r"^", r"$", r"a|", r"(?:)", r"x*?", r"\B", r"\b", r"(\d)?", r".", r"(?s).",
    r"[^a]|a", r"(?<=a)\d", r"(?=\d)", r"\d(?!x)", r"(a)\1",
]  # fmt: skip

TEMPLATES = ["<\\1>", "\\g<0>!", "-", "", "[\\g<0>]\\n"]


def strings_for(seed, na_object, n=120):
    rng = random.Random(seed)
    return random_strings(rng, n, na_object) + EXTRA


def template_for(pattern, repl):
    """``repl`` with ``\\1`` only where the pattern has a group."""
    return repl if re.compile(pattern).groups or "\\1" not in repl else "<\\g<0>>"


def check(pattern, repl, strings, count=0, dtype=None):
    repl = template_for(pattern, repl)
    a = np.array(strings, dtype=dtype or StringDType())
    result = sre.sub(pattern, repl, a, count)
    missing = _core._isna(result).tolist()
    compiled = re.compile(pattern)
    na = getattr(a.dtype, "na_object", None)
    for s, got, is_missing in zip(strings, result.tolist(), missing, strict=True):
        if hasattr(a.dtype, "na_object") and (s is na or (s != s)):
            assert is_missing, (pattern, repl, s, got)
            continue
        want = compiled.sub(repl, s, count=count)
        assert not is_missing and got == want, (pattern, repl, count, s, got, want)


@pytest.mark.parametrize("pattern", FILTERED + UNFILTERED)
@pytest.mark.parametrize("repl", TEMPLATES)
def test_sub_agrees_with_re(pattern, repl):
    strings = strings_for(pattern + repl, na_object=None)
    for count in (0, 1, 2, -1):
        check(pattern, repl, strings, count, StringDType(na_object=None))


def test_filtered_patterns_run_on_the_engine():
    for pattern in FILTERED:
        assert sre.uses_engine(pattern), pattern


@pytest.mark.parametrize("flavor", FLAVORS, ids=str)
@pytest.mark.parametrize("pattern", [r"(\d+)", r"\d*", r"(?i)k"])
def test_missing_values_stay_missing(flavor, pattern):
    strings = strings_for(f"{flavor}-{pattern}", flavor.na_object, 60)
    check(pattern, "<\\g<0>>", strings, 0, flavor.dtype())
    check(pattern, "#", strings, 1, flavor.dtype())


def test_strings_without_a_candidate_are_copied_as_they_are():
    # Inline (<= 12 bytes) and arena strings, none with a digit; one result per element,
    # the input left alone.
    strings = ["", "a", "abcdefghijkl", "abcdefghijklm", "é" * 40, "x\x00y"]
    a = np.array(strings * 3, dtype=StringDType())
    before = a.copy()
    result = sre.sub(r"(\d+)", r"<\1>", a)
    assert result.tolist() == strings * 3
    assert (a == before).all()
    result[0] = "changed"
    assert a[0] == ""


@pytest.mark.parametrize("pattern", [r"(\d+)", r"(a)(b)?(c)?(d)?(e)?(f)?(g)?(h)?(i)?", r"\d*"])
def test_shapes_and_strides(pattern):
    strings = (strings_for("shapes" + pattern, None, 48) * 2)[:48]
    base = np.array(strings, dtype=StringDType()).reshape(6, 8)
    compiled = re.compile(pattern)
    repl = template_for(pattern, "<\\1>")
    for a in (base, base.T, base[::2, 1::3], base[:, ::-1], base[0]):
        want = [compiled.sub(repl, s) for s in a.ravel().tolist()]
        got = sre.sub(pattern, repl, a)
        assert got.shape == a.shape
        assert got.ravel().tolist() == want
    assert sre.sub(pattern, repl, "ab12") == compiled.sub(repl, "ab12")


def test_results_cross_the_inline_limit():
    # A 13-byte string with matches grows into the arena; one without stays inline.
    a = np.array(["1" * 13, "abc"], dtype=StringDType())
    assert sre.sub(r"(\d)", "\\1" * 3, a).tolist() == ["1" * 39, "abc"]
