"""Strings and patterns shared by the regex path tests (``test_regex_sub_paths.py``,
``test_regex_prefilter_paths.py``): patterns whose matches start with a small set of
bytes, patterns no first-byte filter may apply to, and strings with and without those
bytes."""

import random

from conftest import random_strings

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


def strings_for(seed, na_object, n=120):
    rng = random.Random(seed)
    return random_strings(rng, n, na_object) + EXTRA
