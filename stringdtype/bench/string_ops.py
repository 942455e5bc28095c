"""The rows for string functions: ``np.strings`` and its pyarrow and polars peers.

On ``object`` arrays these run as a Python loop over the elements (``np.strings`` has
no object loops); stringdtype's own faster functions are used where it has them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import Inputs
from .libraries import pa, pc, pl, sd
from .rows import Op, pymap, row, strings_row


def _sd_strings(name: str) -> Op:
    """stringdtype's own (fast) string function if it has one, else np.strings'."""

    def call(d: Inputs) -> Any:
        fast = getattr(getattr(sd, "strings", None), name, None)
        return (fast or getattr(np.strings, name))(d.a)

    return call


# ``translate``'s table: a replacement of one character, one of two, a deletion.
_TABLE = str.maketrans({"a": "A", "e": "ée", " ": None})


def _width(fn: Callable[..., Any]) -> Op:
    return lambda d: fn(d.a, d.width)


STRING_OPS: dict[str, dict[str, Op]] = {
    "add": row(
        lambda d: np.strings.add(d.a, d.b),
        object=lambda d: d.a + d.b,
        pyarrow=lambda d: pc.binary_join_element_wise(d.a, d.b, ""),
        polars=lambda d: d.a + d.b,
    ),
    "add_scalar": row(
        lambda d: np.strings.add(d.a, "!"),
        object=lambda d: d.a + "!",
        pyarrow=lambda d: pc.binary_join_element_wise(d.a, "!", ""),
        polars=lambda d: d.a + "!",
    ),
    "multiply_3": row(
        lambda d: np.strings.multiply(d.a, 3),
        object=lambda d: d.a * 3,
        pyarrow=lambda d: pc.binary_repeat(d.a, 3),
    ),
    "str_len": strings_row(
        "str_len",
        result=np.int64,
        py="__len__",
        pyarrow=lambda d: pc.utf8_length(d.a),
        polars=lambda d: d.a.str.len_chars(),
    ),
    "isalpha": strings_row("isalpha", result=bool, pyarrow=lambda d: pc.utf8_is_alpha(d.a)),
    "isdigit": strings_row("isdigit", result=bool, pyarrow=lambda d: pc.utf8_is_digit(d.a)),
    "isspace": strings_row("isspace", result=bool, pyarrow=lambda d: pc.utf8_is_space(d.a)),
    "strip": strings_row(
        "strip",
        pyarrow=lambda d: pc.utf8_trim_whitespace(d.a),
        polars=lambda d: d.a.str.strip_chars(),
    ),
    "lstrip": strings_row(
        "lstrip",
        pyarrow=lambda d: pc.utf8_ltrim_whitespace(d.a),
        polars=lambda d: d.a.str.strip_chars_start(),
    ),
    "startswith": strings_row(
        "startswith",
        "a",
        result=bool,
        pyarrow=lambda d: pc.starts_with(d.a, "a"),
        polars=lambda d: d.a.str.starts_with("a"),
    ),
    "endswith": strings_row(
        "endswith",
        "a",
        result=bool,
        pyarrow=lambda d: pc.ends_with(d.a, "a"),
        polars=lambda d: d.a.str.ends_with("a"),
    ),
    "find": strings_row(
        "find",
        "a",
        result=np.int64,
        pyarrow=lambda d: pc.find_substring(d.a, "a"),
        polars=lambda d: d.a.str.find("a", literal=True),
    ),
    "count": strings_row(
        "count",
        "a",
        result=np.int64,
        pyarrow=lambda d: pc.count_substring(d.a, "a"),
        polars=lambda d: d.a.str.count_matches("a", literal=True),
    ),
    "replace": strings_row(
        "replace",
        "a",
        "XY",
        pyarrow=lambda d: pc.replace_substring(d.a, "a", "XY"),
        polars=lambda d: d.a.str.replace_all("a", "XY", literal=True),
    ),
    "upper": strings_row(
        "upper",
        stringdtype=_sd_strings("upper"),
        pyarrow=lambda d: pc.utf8_upper(d.a),
        polars=lambda d: d.a.str.to_uppercase(),
    ),
    "lower": strings_row(
        "lower",
        stringdtype=_sd_strings("lower"),
        pyarrow=lambda d: pc.utf8_lower(d.a),
        polars=lambda d: d.a.str.to_lowercase(),
    ),
    "swapcase": strings_row(
        "swapcase", stringdtype=_sd_strings("swapcase"), pyarrow=lambda d: pc.utf8_swapcase(d.a)
    ),
    "capitalize": strings_row(
        "capitalize",
        stringdtype=_sd_strings("capitalize"),
        pyarrow=lambda d: pc.utf8_capitalize(d.a),
    ),
    "title": strings_row(
        "title", stringdtype=_sd_strings("title"), pyarrow=lambda d: pc.utf8_title(d.a)
    ),
    "casefold": row(
        stringdtype=_sd_strings("casefold"),
        object=pymap("casefold"),
    ),
    # polars' replace_many of single characters is translate: leftmost, not rescanned.
    "translate": row(
        lambda d: np.strings.translate(d.a, _TABLE),
        stringdtype=lambda d: sd.strings.translate(d.a, _TABLE),
        object=pymap("translate", _TABLE),
        polars=lambda d: d.a.str.replace_many({"a": "A", "e": "ée", " ": ""}),
    ),
    "encode": row(
        lambda d: np.strings.encode(d.a),
        stringdtype=lambda d: sd.strings.encode(d.a),
        object=pymap("encode"),
        pyarrow=lambda d: d.a.cast(pa.binary()),
        polars=lambda d: d.a.cast(pl.Binary),
    ),
    "decode": row(
        lambda d: np.strings.decode(d.encoded),
        stringdtype=lambda d: sd.strings.decode(d.encoded),
        pyarrow=lambda d: d.arrow.cast(pa.binary()).cast(pa.string()),
    ),
    "isalnum": strings_row("isalnum", result=bool, pyarrow=lambda d: pc.utf8_is_alnum(d.a)),
    "isdecimal": strings_row("isdecimal", result=bool, pyarrow=lambda d: pc.utf8_is_decimal(d.a)),
    "isnumeric": strings_row("isnumeric", result=bool, pyarrow=lambda d: pc.utf8_is_numeric(d.a)),
    "islower": strings_row("islower", result=bool, pyarrow=lambda d: pc.utf8_is_lower(d.a)),
    "isupper": strings_row("isupper", result=bool, pyarrow=lambda d: pc.utf8_is_upper(d.a)),
    "istitle": strings_row("istitle", result=bool, pyarrow=lambda d: pc.utf8_is_title(d.a)),
    "rstrip": strings_row(
        "rstrip",
        pyarrow=lambda d: pc.utf8_rtrim_whitespace(d.a),
        polars=lambda d: d.a.str.strip_chars_end(),
    ),
    "strip_chars": strings_row(
        "strip",
        "ab ",
        pyarrow=lambda d: pc.utf8_trim(d.a, "ab "),
        polars=lambda d: d.a.str.strip_chars("ab "),
    ),
    "rfind": strings_row("rfind", "a", result=np.int64),
    "index": strings_row("index", "", result=np.int64),
    "rindex": strings_row("rindex", "", result=np.int64),
    "expandtabs": strings_row("expandtabs", 4),
    "ljust": row(
        _width(np.strings.ljust),
        object=lambda d: pymap("ljust", d.width)(d),
        pyarrow=lambda d: pc.utf8_rpad(d.a, d.width),
        polars=lambda d: d.a.str.pad_end(d.width),
    ),
    "rjust": row(
        _width(np.strings.rjust),
        object=lambda d: pymap("rjust", d.width)(d),
        pyarrow=lambda d: pc.utf8_lpad(d.a, d.width),
        polars=lambda d: d.a.str.pad_start(d.width),
    ),
    "center": row(
        _width(np.strings.center),
        object=lambda d: pymap("center", d.width)(d),
        pyarrow=lambda d: pc.utf8_center(d.a, d.width),
    ),
    "zfill": row(
        _width(np.strings.zfill),
        object=lambda d: pymap("zfill", d.width)(d),
        pyarrow=lambda d: pc.utf8_zero_fill(d.a, d.width),
        polars=lambda d: d.a.str.zfill(d.width),
    ),
    # NumPy 2.4 has no partition loop for (StringDType, str): pass sep as an array.
    "partition": row(
        lambda d: np.strings.partition(d.a, np.array(" ", dtype=d.a.dtype)),
        object=pymap("partition", " "),
    ),
    "rpartition": row(
        lambda d: np.strings.rpartition(d.a, np.array(" ", dtype=d.a.dtype)),
        object=pymap("rpartition", " "),
    ),
    "slice": row(
        lambda d: np.strings.slice(d.a, 2, 8),
        object=pymap("__getitem__", slice(2, 8)),
        pyarrow=lambda d: pc.utf8_slice_codeunits(d.a, 2, 8),
        polars=lambda d: d.a.str.slice(2, 6),
    )
    if hasattr(np.strings, "slice")
    else {},
}
