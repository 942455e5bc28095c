"""All of Unicode through the case conversions and predicates, against Python's ``str``.

The extension's Unicode tables are generated when it is built, from the building
interpreter's ``str`` methods (``tools/unicode_tables.py``). These tests walk every code
point but the surrogates through ``stringdtype.strings``' case conversions and
``np.strings``' predicates on the running interpreter, in three samples:

- ``single``: one element per code point;
- ``context``: ``"AΣ" + c + " A" + c + "Σ"`` for every code point ``c``, which shows
  whether ``c`` is cased (``title`` lowers the sigma after it) and whether it is
  case-ignorable (``lower`` makes the sigmas next to it final or not); 256 of these per
  element, separated by spaces;
- ``special``: strings with known pitfalls (final sigma, title case after case-ignorable
  characters, expansions, Georgian, Cherokee).

Missing values play no part here, so one default descriptor is used, not every flavor.
Expected values are the ``str`` methods mapped over the Python strings; results are
compared as whole arrays, and only a failure looks at elements one by one.
"""

import unicodedata

import numpy as np
import pytest
from conftest import REFERENCE, StringDType, package_only

if not REFERENCE:
    import stringdtype._core
    import stringdtype.strings as sds

CASE_FUNCTIONS = ["upper", "lower", "swapcase", "capitalize", "title", "casefold"]
PREDICATES = [
    "isalpha",
    "isdecimal",
    "isdigit",
    "isnumeric",
    "isalnum",
    "isspace",
    "islower",
    "isupper",
    "istitle",
]

SPECIAL = [
    "ΟΔΟΣ ΟΔΟΣ.",
    "ὈΔΥΣΣΕΎΣ",
    "aΣ",
    "aΣb",
    "aΣ'",
    "a'Σ",
    "a'Σ'",
    "aΣ\u00ad",
    "a\u00adΣ",
    "aΣ\u200b\u0301b",
    "aΣ\u0301",
    "a\u0301Σ",
    "\u02b0Σ",
    "Σ\u02b0",
    "\u02b0Σ\u02b0",
    "ǅΣ",
    "1Σ",
    "Σ1",
    "ΣΣ",
    "ΣΣΣ",
    "Σ\u0345",
    "they're bill's friends",
    "o'neil mc-donald",
    "ǈubljana ǉubljana ǊUBLJANA",
    "a\u0301b c\u0308D",
    "\u0345a \u0345A",
    "ß straße STRASSE ẞ",
    "İstanbul ıi",
    "ﬃ ﬀ ﬁne",
    "ŉ ǰ ΐ ᾳ ᾼ ῲ",
    "Ꭰᏸ ꭰᏸ ᏸᏸ",
    "ᲥᲐᲠᲗᲣᲚᲘ ქართული ᲥᲐᲠᲗᲣᲚᲘ",
    "𐐀𐐨 𞤀𞤢",
    "ǅemal ǄEMAL ǆemal",
    "ⅻ Ⅻ ⓐⒶ",
    "x\u0130y",
    "123 ١٢٣ ²³ ½ 一二三",
    "\u3000\u2028\x1c\x85 ",
    "\u00a0",
    "",
]


def code_points():
    return [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def in_context(c):
    return "AΣ" + c + " A" + c + "Σ"


def blocks(pieces, size=256):
    """The pieces joined by spaces, `size` at a time: spaces are neither cased nor
    case-ignorable, so each piece is converted as if it were alone."""
    return [" ".join(pieces[i : i + size]) for i in range(0, len(pieces), size)]


def as_array(strings):
    return strings, np.array(strings, dtype=StringDType())


@pytest.fixture(scope="module")
def single():
    return as_array(code_points())


@pytest.fixture(scope="module")
def context():
    return as_array(blocks([in_context(c) for c in code_points()]))


@pytest.fixture(scope="module")
def special():
    return as_array(SPECIAL)


def show(s):
    """A code point by number, a longer string by its start."""
    if len(s) == 1:
        return f"U+{ord(s):04X} {s!a}"
    return f"{s[:24]!a}" + ("..." if len(s) > 24 else "")


def first_difference(s, got, expected):
    """Excerpts of a string and of two different results of it around the results'
    first difference (where the input is near it as long as lengths have not changed)."""
    at = next(
        (i for i, (g, e) in enumerate(zip(got, expected)) if g != e),
        min(len(got), len(expected)),
    )
    near = slice(max(at - 6, 0), at + 6)
    return f"{s[near]!a}: got {got[near]!a}, expected {expected[near]!a}"


def mismatches(strings, got, expected, describe):
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    lines = [describe(strings[i], got[i], expected[i]) for i in bad[:10]]
    return f"{len(bad)} of {len(strings)} differ:\n" + "\n".join(lines)


def check_case(sample, name):
    strings, array = sample
    expected = list(map(getattr(str, name), strings))
    got = getattr(sds, name)(array)
    if not np.all(got == np.array(expected, dtype=StringDType())):
        pytest.fail(mismatches(strings, got.tolist(), expected, first_difference))


def describe_predicate(s, got, expected):
    return f"{show(s)}: got {got}, expected {expected}"


def check_predicate(sample, name):
    strings, array = sample
    expected = np.fromiter(map(getattr(str, name), strings), dtype=bool, count=len(strings))
    got = getattr(np.strings, name)(array)
    if not np.array_equal(got, expected):
        pytest.fail(mismatches(strings, got, expected, describe_predicate))


@package_only
@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_case_of_every_code_point(single, name):
    check_case(single, name)


@package_only
@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_case_of_every_code_point_in_context(context, name):
    """Title case after each code point (cased or not) and final sigmas on both sides of
    it (case-ignorable or not), for all of Unicode at once."""
    check_case(context, name)


@package_only
@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_case_of_special_strings(special, name):
    check_case(special, name)


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_of_every_code_point(single, name):
    check_predicate(single, name)


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_of_special_strings(special, name):
    check_predicate(special, name)


@package_only
def test_tables_are_the_running_pythons():
    assert stringdtype._core.unicode_version == unicodedata.unidata_version
