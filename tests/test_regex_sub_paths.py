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
from conftest import FLAVORS, StringDType, package_only
from regex_support import FILTERED, UNFILTERED, strings_for

pytestmark = package_only

from stringdtype import _core  # noqa: E402
from stringdtype import regex as sre  # noqa: E402

TEMPLATES = ["<\\1>", "\\g<0>!", "-", "", "[\\g<0>]\\n"]


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
