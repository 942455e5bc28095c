"""The rows for regular expressions and splitting: ``stringdtype.regex`` and
``stringdtype.strings.split``/``split_flat`` against a Python loop over ``re`` (or
``str.split``) in the NumPy columns, ``pyarrow.compute`` (RE2) and polars (Rust's
``regex``).

The NumPy arrays have no regular expressions: their cells run the list comprehension a
user writes, ``[re.search(p, s) is not None for s in a.tolist()]``, which is the
baseline that stringdtype's results are checked against.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import Inputs
from .libraries import pc, sd
from .rows import Op, row

# Patterns with work to do on the data sets (letters, digits and spaces).
DIGITS = r"\d\d"
VOWEL = r"[aeiou]"
NUMBER = r"(\d+)"
DIGIT_RUN = r"\d+"
WORD_AT = r"([A-Za-z]+) ([0-9])"


def _loop(fn: Callable[[str], Any], dtype: Any = object) -> Op:
    """A Python loop of ``fn`` over the elements, as a user of NumPy writes it."""
    return lambda d: np.fromiter(map(fn, d.a.tolist()), dtype=dtype, count=len(d.a))


def _lists(fn: Callable[[str], list[Any]]) -> Op:
    """A Python loop giving a list per element, in an object array."""
    return lambda d: np.fromiter(map(fn, d.a.tolist()), dtype=object, count=len(d.a))


def _sre(name: str, *args: Any) -> Op:
    def call(d: Inputs) -> Any:
        return getattr(sd.regex, name)(*args[:1], d.a, *args[1:])

    return call


def _extract_first(pattern: str) -> Callable[[str], str | None]:
    compiled = re.compile(pattern)

    def first(s: str) -> str | None:
        m = compiled.search(s)
        return None if m is None else m.group(1)

    return first


_searcher = re.compile(DIGITS).search
_vowels = re.compile(VOWEL).finditer
_numbers = re.compile(NUMBER)
_digits = re.compile(DIGIT_RUN)
_word_at = re.compile(WORD_AT)
_spaces = re.compile(r"\s+")


def _flat_to_lists(d: Inputs, out: Any) -> Any:
    """``split_flat``'s ``(parts, offsets)`` as the lists the other cells give."""
    if not isinstance(out, tuple):
        return out
    parts, offsets = out
    items, bounds = parts.tolist(), offsets.tolist()
    lists = [items[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]
    return np.fromiter(lists, dtype=object, count=len(lists))


REGEX_OPS: dict[str, dict[str, Op]] = {
    "re_search": row(
        _loop(lambda s: _searcher(s) is not None, bool),
        stringdtype=_sre("search", DIGITS),
        pyarrow=lambda d: pc.match_substring_regex(d.a, DIGITS),
        polars=lambda d: d.a.str.contains(DIGITS),
    ),
    "re_count": row(
        _loop(lambda s: sum(1 for _ in _vowels(s)), np.int64),
        stringdtype=_sre("count", VOWEL),
        pyarrow=lambda d: pc.count_substring_regex(d.a, VOWEL),
        polars=lambda d: d.a.str.count_matches(VOWEL),
    ),
    "re_sub": row(
        _loop(lambda s: _numbers.sub(r"<\1>", s)),
        stringdtype=lambda d: sd.regex.sub(NUMBER, r"<\1>", d.a),
        pyarrow=lambda d: pc.replace_substring_regex(d.a, NUMBER, r"<\1>"),
        polars=lambda d: d.a.str.replace_all(NUMBER, "<${1}>"),
    ),
    "re_extract": row(
        _loop(_extract_first(WORD_AT)),
        stringdtype=_sre("extract", WORD_AT),
        pyarrow=lambda d: pc.struct_field(pc.extract_regex(d.a, r"(?P<w>[A-Za-z]+) [0-9]"), 0),
        polars=lambda d: d.a.str.extract(WORD_AT, 1),
    ),
    "re_findall": row(
        _lists(_digits.findall),
        stringdtype=_sre("findall", DIGIT_RUN),
        polars=lambda d: d.a.str.extract_all(DIGIT_RUN),
    ),
    "re_split": row(
        _lists(_spaces.split),
        stringdtype=_sre("split", r"\s+"),
        pyarrow=lambda d: pc.split_pattern_regex(d.a, r"\s+"),
    ),
    "re_findall_flat": row(
        _lists(_digits.findall),
        stringdtype=lambda d: sd.regex.findall_flat(DIGIT_RUN, d.a),
        polars=lambda d: d.a.str.extract_all(DIGIT_RUN),
    ),
    "re_split_flat": row(
        _lists(_spaces.split),
        stringdtype=lambda d: sd.regex.split_flat(r"\s+", d.a),
        pyarrow=lambda d: pc.split_pattern_regex(d.a, r"\s+"),
    ),
    "split": row(
        _lists(lambda s: s.split(" ")),
        numpy=lambda d: np.char.split(d.a, " "),
        stringdtype=lambda d: sd.strings.split(d.a, " "),
        pyarrow=lambda d: pc.split_pattern(d.a, " "),
        polars=lambda d: d.a.str.split(" "),
    ),
    "split_flat": row(
        _lists(lambda s: s.split(" ")),
        numpy=lambda d: np.char.split(d.a, " "),
        stringdtype=lambda d: sd.strings.split_flat(d.a, " "),
        pyarrow=lambda d: pc.split_pattern(d.a, " "),
        polars=lambda d: d.a.str.split(" "),
    ),
}

REGEX_NOTES = {
    "re_search": "re_*: NumPy columns are a Python loop over re (NumPy has no regex); "
    "pyarrow runs RE2, polars Rust's regex",
    "re_extract": "re_extract: pyarrow needs a named group and gives a struct",
    "split_flat": "*_flat: stringdtype returns (parts, offsets), Arrow's list layout; "
    "split, re_findall, re_split: object arrays of lists (NumPy: np.char.split)",
}

# split_flat's result is checked as the lists it stands for.
REGEX_VIA: dict[str, Callable[[Inputs, Any], Any]] = dict.fromkeys(
    ("split_flat", "re_findall_flat", "re_split_flat"), _flat_to_lists
)
