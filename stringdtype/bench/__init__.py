"""Side-by-side benchmark of stringdtype against other string containers.

Run it as ``python -m stringdtype.bench`` (``--help`` lists the options).  It times
the same operations on the same seeded data for up to six contestants:

* ``stringdtype``: this package's ``StringDType`` (Arrow string views in an arena);
* ``numpy``: NumPy's own ``np.dtypes.StringDType()``, the baseline of every ratio;
* ``U``: NumPy fixed-width unicode arrays;
* ``object``: NumPy ``object`` arrays of ``str``; ``np.strings`` has no loops for
  them, so string methods run as a Python loop over the elements (marked ``*``);
* ``pyarrow``: ``pyarrow.compute`` on a ``pa.string()`` array;
* ``polars``: a ``pl.Series`` and its ``.str`` namespace.

A contestant that cannot be imported is skipped with a note; an operation that a
contestant lacks is shown as ``n/a``; an exception is caught and shown as
``error: ...`` so one failing kernel never stops the run.  Each time is the best of
``--repeat`` runs after one warm-up (fewer once a cell has used up its ``--budget``
of seconds; a warm-up slower than the budget is the measurement), with the garbage
collector off and the result's deallocation excluded.  stringdtype's results are
checked against NumPy's StringDType on a sample of elements; a difference is reported
as ``error: wrong result ...``.  ``--json PATH`` stores everything for
``docs/plot_bench.py``; the memory section reports the bytes each container holds.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import faulthandler
import gc
import importlib.metadata
import json
import math
import operator
import os
import platform
import string
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:  # pragma: no cover - optional contestant
    pa = pc = None

try:
    import polars as pl
except ImportError:  # pragma: no cover - optional contestant
    pl = None

SCHEMA = "stringdtype-bench/1"
BASELINE = "numpy"
CHECKED = ("stringdtype",)  # contestants whose results must match the baseline's


def short_error(exc: BaseException, limit: int = 120) -> str:
    """``Type: first line of the message``, cut to ``limit`` characters."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def attempt(fn: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """``(fn(*args), None)``, or ``(None, message)``: the bench's only blind catch."""
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - report any failure, never die
        return None, short_error(exc)


def _import_stringdtype() -> tuple[Any, Any]:
    import stringdtype  # may be unbuilt or broken: imported under attempt()

    return stringdtype, stringdtype.StringDType


# Not built yet, or a broken build: the contestant is skipped with this message.
_sd_pair, SD_IMPORT_ERROR = attempt(_import_stringdtype)
sd, SDType = _sd_pair or (None, None)

# --------------------------------------------------------------------------- data


@dataclasses.dataclass(frozen=True)
class DatasetSpec:
    """How to generate one data set: ``n`` strings of ``min_len..max_len`` chars."""

    name: str
    n: int
    min_len: int
    max_len: int
    non_ascii: float  # fraction of strings that get two non-ASCII characters
    description: str


DATASETS = {
    "short": DatasetSpec("short", 1_000_000, 0, 16, 0.0, "ASCII, 0-16 bytes"),
    "medium": DatasetSpec("medium", 1_000_000, 16, 64, 0.2, "16-64 chars, 20% non-ASCII"),
    "long": DatasetSpec("long", 100_000, 200, 1000, 0.0, "ASCII, 200-1000 bytes"),
}

# Letters, digits and spaces (about 9%), so strip/partition/isdigit have work to do.
ALPHABET = string.ascii_letters + string.digits + " " * 6
NON_ASCII = "éüñßøçåжщы€中文字語😀🚀"
SEED = 20240229


def _codepoints(chars: str) -> np.ndarray:
    return np.frombuffer(chars.encode("utf-32-le"), dtype=np.uint32)


def make_strings(spec: DatasetSpec, seed: int = SEED) -> list[str]:
    """Generate the data set's strings with NumPy, slicing them from one big str."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(spec.min_len, spec.max_len + 1, spec.n)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    alphabet = _codepoints(ALPHABET)
    cps = alphabet[rng.integers(0, len(alphabet), int(ends[-1]))]
    if spec.non_ascii:
        chosen = (rng.random(spec.n) < spec.non_ascii) & (lengths > 0)
        pool = _codepoints(NON_ASCII)
        for _ in range(2):
            where = starts[chosen] + (rng.random(chosen.sum()) * lengths[chosen])
            cps[where.astype(np.int64)] = pool[rng.integers(0, len(pool), len(where))]
    text = cps.tobytes().decode("utf-32-le")
    return [text[i:j] for i, j in zip(starts.tolist(), ends.tolist())]


@dataclasses.dataclass
class Inputs:
    """Everything an operation may use; ``a``/``b``/``dtype`` are per contestant."""

    strings: list[str]
    rotated: list[str]  # the same strings shifted by one: the right operand of a < b
    perm: np.ndarray  # a random permutation, for take
    scalar: str  # a value present in the data, for a == scalar
    width: int  # for center and zfill: a little over the longest string
    views: np.ndarray  # 16 * n bytes, for the memcpy yardstick
    arrow: Any = None  # pa.string() array of the strings
    arrow_view: Any = None  # pa.string_view() array of the strings
    series: Any = None  # polars Series of the strings
    encoded: Any = None  # the strings as UTF-8, an ``S`` array (for decode)
    a: Any = None

    b: Any = None
    dtype: Any = None


def make_inputs(spec: DatasetSpec, strings: list[str]) -> Inputs:
    """Build the contestant-independent inputs of one data set."""
    rng = np.random.default_rng(SEED + 1)
    n = len(strings)
    return Inputs(
        strings=strings,
        rotated=strings[1:] + strings[:1],
        perm=rng.permutation(n),
        scalar=strings[n // 2],
        width=spec.max_len + 4,
        views=np.ones(16 * n, dtype=np.uint8),
        arrow=pa.array(strings, type=pa.string()) if pa else None,
        arrow_view=pa.array(strings, type=pa.string_view()) if pa else None,
        series=pl.Series(strings, dtype=pl.String) if pl else None,
        encoded=np.array([s.encode() for s in strings], dtype="S"),
    )


def utf8_bytes(strings: list[str]) -> int:
    """Total UTF-8 size of the strings (the raw payload)."""
    return sum(map(len, (s.encode() for s in strings)))


# --------------------------------------------------------------------- contestants


@dataclasses.dataclass(frozen=True)
class Contestant:
    """A string container: how to build it from a list and what it is called."""

    key: str
    label: str
    make: Callable[[list[str]], Any]
    dtype: Any = None
    available: bool = True
    note: str = ""


def _numpy_contestant(key: str, label: str, dtype: Any, note: str = "") -> Contestant:
    return Contestant(key, label, lambda s: np.array(s, dtype=dtype), dtype, note=note)


def all_contestants() -> list[Contestant]:
    """All contestants, those that cannot be imported marked unavailable."""
    sd_dtype, sd_error = attempt(SDType) if sd else (None, SD_IMPORT_ERROR)
    return [
        dataclasses.replace(
            _numpy_contestant("stringdtype", "stringdtype", sd_dtype),
            available=sd_error is None,
            note="" if sd_error is None else f"not usable ({sd_error})",
        ),
        _numpy_contestant("numpy", "np StringDType", np.dtypes.StringDType()),
        _numpy_contestant("U", "U", str),
        _numpy_contestant(
            "object", "object*", object, "* str methods as a Python loop per element"
        ),
        Contestant(
            "pyarrow",
            "pyarrow",
            lambda s: pa.array(s, type=pa.string()),
            available=pa is not None,
            note="" if pa else "pyarrow not importable",
        ),
        Contestant(
            "polars",
            "polars",
            lambda s: pl.Series(s, dtype=pl.String),
            available=pl is not None,
            note="" if pl else "polars not importable",
        ),
    ]


# ---------------------------------------------------------------------- operations

Op = Callable[[Inputs], Any]
NUMPY_ARRAYS = ("stringdtype", "numpy", "U", "object")


def row(arrays: Op | None = None, **others: Op | None) -> dict[str, Op]:
    """One table row: ``arrays`` for all four NumPy arrays, then per-key overrides.

    An override of ``None`` removes a contestant (it lacks the operation: n/a).
    """
    cells: dict[str, Op | None] = dict.fromkeys(NUMPY_ARRAYS, arrays)
    cells.update(others)
    return {key: fn for key, fn in cells.items() if fn is not None}


def _pymap(method: str, *args: Any, dtype: Any = object) -> Op:
    """A Python loop calling ``str.<method>(*args)`` on each element of ``d.a``."""
    call = operator.methodcaller(method, *args)
    return lambda d: np.fromiter(map(call, d.a.tolist()), dtype=dtype, count=len(d.a))


def strings_row(
    name: str, *args: Any, result: Any = object, py: str | None = None, **others: Op
) -> dict[str, Op]:
    """A row for ``np.strings.<name>(a, *args)``, with ``object`` as a Python loop."""
    fn = getattr(np.strings, name)
    return row(
        lambda d: fn(d.a, *args),
        object=_pymap(py or name, *args, dtype=result),
        **others,
    )


def _sd_strings(name: str) -> Op:
    """stringdtype's own (fast) string function if it has one, else np.strings'."""

    def call(d: Inputs) -> Any:
        fast = getattr(getattr(sd, "strings", None), name, None)
        return (fast or getattr(np.strings, name))(d.a)

    return call


def _pa_sort(d: Inputs) -> Any:
    return pc.take(d.a, pc.array_sort_indices(d.a))


def _copy_buffers(array: Any) -> list[np.ndarray]:
    """A copy of every buffer of a pyarrow array, as NumPy byte arrays."""
    return [np.copy(np.frombuffer(b, np.uint8)) for b in array.buffers() if b is not None]


def _pl_arrow_view(d: Inputs) -> Any:
    return d.series.to_arrow(compat_level=pl.CompatLevel.newest())


def _width(fn: Callable[..., Any]) -> Op:
    return lambda d: fn(d.a, d.width)


OPS: dict[str, dict[str, Op]] = {
    "create": row(
        lambda d: np.array(d.strings, dtype=d.dtype),
        pyarrow=lambda d: pa.array(d.strings, type=pa.string()),
        polars=lambda d: pl.Series(d.strings, dtype=pl.String),
    ),
    "astype_object": row(
        lambda d: d.a.astype(object),
        pyarrow=lambda d: d.a.to_numpy(zero_copy_only=False),
        polars=lambda d: d.a.to_numpy(),
    ),
    "copy": row(lambda d: d.a.copy()),
    "take": row(
        lambda d: d.a[d.perm],
        pyarrow=lambda d: pc.take(d.a, d.perm),
        polars=lambda d: d.a.gather(d.perm),
    ),
    "eq_scalar": row(
        lambda d: d.a == d.scalar,
        pyarrow=lambda d: pc.equal(d.a, d.scalar),
        polars=lambda d: d.a == d.scalar,
    ),
    "lt_array": row(
        lambda d: d.a < d.b,
        pyarrow=lambda d: pc.less(d.a, d.b),
        polars=lambda d: d.a < d.b,
    ),
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
        object=_pymap("casefold"),
    ),
    "encode": row(
        lambda d: np.strings.encode(d.a),
        stringdtype=lambda d: sd.strings.encode(d.a),
        object=_pymap("encode"),
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
        object=lambda d: _pymap("ljust", d.width)(d),
        pyarrow=lambda d: pc.utf8_rpad(d.a, d.width),
        polars=lambda d: d.a.str.pad_end(d.width),
    ),
    "rjust": row(
        _width(np.strings.rjust),
        object=lambda d: _pymap("rjust", d.width)(d),
        pyarrow=lambda d: pc.utf8_lpad(d.a, d.width),
        polars=lambda d: d.a.str.pad_start(d.width),
    ),
    "center": row(
        _width(np.strings.center),
        object=lambda d: _pymap("center", d.width)(d),
        pyarrow=lambda d: pc.utf8_center(d.a, d.width),
    ),
    "zfill": row(
        _width(np.strings.zfill),
        object=lambda d: _pymap("zfill", d.width)(d),
        pyarrow=lambda d: pc.utf8_zero_fill(d.a, d.width),
        polars=lambda d: d.a.str.zfill(d.width),
    ),
    # NumPy 2.4 has no partition loop for (StringDType, str): pass sep as an array.
    "partition": row(
        lambda d: np.strings.partition(d.a, np.array(" ", dtype=d.a.dtype)),
        object=_pymap("partition", " "),
    ),
    "rpartition": row(
        lambda d: np.strings.rpartition(d.a, np.array(" ", dtype=d.a.dtype)),
        object=_pymap("rpartition", " "),
    ),
    "slice": row(
        lambda d: np.strings.slice(d.a, 2, 8),
        object=_pymap("__getitem__", slice(2, 8)),
        pyarrow=lambda d: pc.utf8_slice_codeunits(d.a, 2, 8),
        polars=lambda d: d.a.str.slice(2, 6),
    )
    if hasattr(np.strings, "slice")
    else {},
    "sort": row(
        lambda d: np.sort(d.a),
        pyarrow=_pa_sort,
        polars=lambda d: d.a.sort(),
    ),
    "argsort": row(
        lambda d: np.argsort(d.a),
        pyarrow=lambda d: pc.array_sort_indices(d.a),
        polars=lambda d: d.a.arg_sort(),
    ),
    "unique": row(
        lambda d: np.unique(d.a),
        pyarrow=lambda d: pc.unique(d.a),
        polars=lambda d: d.a.unique(),
    ),
    "max": row(
        lambda d: np.max(d.a),
        U=None,  # NumPy has no maximum loop for U
        pyarrow=lambda d: pc.max(d.a),
        polars=lambda d: d.a.max(),
    ),
    "min": row(
        lambda d: np.min(d.a),
        U=None,  # NumPy has no minimum loop for U
        pyarrow=lambda d: pc.min(d.a),
        polars=lambda d: d.a.min(),
    ),
    "argmax": row(
        lambda d: np.argmax(d.a),
        polars=lambda d: d.a.arg_max(),
    ),
    "to_arrow": row(
        stringdtype=lambda d: pa.array(sd.to_arrow(d.a)),
        numpy=lambda d: pa.array(d.a.astype(object)),
        U=lambda d: pa.array(d.a),
        object=lambda d: pa.array(d.a, type=pa.string()),
        polars=lambda d: d.a.to_arrow(),
    ),
    "from_arrow": row(
        stringdtype=lambda d: sd.from_arrow(d.arrow),
        numpy=lambda d: d.arrow.to_numpy(zero_copy_only=False).astype(d.dtype),
        U=lambda d: d.arrow.to_numpy(zero_copy_only=False).astype(str),
        object=lambda d: d.arrow.to_numpy(zero_copy_only=False),
        polars=lambda d: pl.from_arrow(d.arrow),
    ),
    "from_arrow_view": row(
        stringdtype=lambda d: sd.from_arrow(d.arrow_view),
        numpy=lambda d: d.arrow_view.to_numpy(zero_copy_only=False).astype(d.dtype),
        object=lambda d: d.arrow_view.to_numpy(zero_copy_only=False),
        polars=lambda d: pl.from_arrow(d.arrow_view),
    ),
    "from_polars": row(
        stringdtype=lambda d: sd.from_arrow(_pl_arrow_view(d)),
        numpy=lambda d: d.series.to_numpy().astype(d.dtype),
        object=lambda d: d.series.to_numpy(),
        polars=lambda d: d.a.to_numpy(),
    ),
    # Yardsticks for the Arrow rows, in the stringdtype column: what to_arrow and
    # from_arrow_view cannot beat (a copy of the bytes they must write).
    "memcpy_views": row(stringdtype=lambda d: np.copy(d.views)),
    "memcpy_arrow": row(stringdtype=lambda d: _copy_buffers(d.arrow_view)),
}
OPS = {name: cells for name, cells in OPS.items() if cells}

# What an op needs beyond the contestant's own array: optional modules, and the
# stringdtype function its stringdtype cell calls (n/a until the package has it).
NEEDS_MODULE = {
    "to_arrow": "pyarrow",
    "from_arrow": "pyarrow",
    "from_arrow_view": "pyarrow",
    "from_polars": "polars",
    "memcpy_arrow": "pyarrow",
}
NEEDS_SD_API = {
    "to_arrow": "to_arrow",
    "from_arrow": "from_arrow",
    "from_arrow_view": "from_arrow",
    "from_polars": "from_arrow",
}

OP_NOTES = {
    "object": "object*: str methods run as a Python loop (np.strings has no object loops)",
    "unique": "unique: pyarrow and polars hash and do not sort; NumPy sorts",
    "slice": "slice: a[2:8] (polars: offset 2, length 6)",
    "from_arrow": "from_arrow: from a pa.string() array (to the contestant's type)",
    "from_arrow_view": "from_arrow_view: from a pa.string_view() array",
    "from_polars": "from_polars: polars Series to a NumPy array of this kind "
    "(stringdtype: via to_arrow as string_view)",
    "memcpy_views": "memcpy_views: np.copy of a 16*n-byte array (what to_arrow must write)",
    "memcpy_arrow": "memcpy_arrow: np.copy of every buffer of the pa.string_view() array "
    "(what from_arrow_view must write)",
    "partition": "partition: sep passed as a 0-d array of the array's dtype "
    "(NumPy 2.4 lacks the (StringDType, str) loop)",
    "copy": "copy: pyarrow and polars arrays are immutable (n/a)",
}


# -------------------------------------------------------------------------- timing


@dataclasses.dataclass
class Timing:
    """The best time in seconds, or the error that stopped the measurement."""

    best: float | None = None
    error: str | None = None


Check = Callable[[Any], "str | None"]  # a result -> why it is wrong, or None


def _timed(fn: Op, d: Inputs) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn(d)
    return time.perf_counter() - start, out  # the caller frees out: not timed


def _best_of(fn: Op, d: Inputs, repeat: int, budget: float, check: Check) -> Timing:
    best, out = _timed(fn, d)  # the warm-up, where a missing kernel raises
    wrong = check(out)
    del out
    if wrong is not None:
        return Timing(error=f"wrong result: {wrong}")
    if best >= budget:
        return Timing(best=best)
    best, spent = math.inf, 0.0
    for _ in range(repeat):
        elapsed, out = _timed(fn, d)
        del out
        best, spent = min(best, elapsed), spent + elapsed
        if spent > budget:
            break
    return Timing(best=best)


def time_call(
    fn: Op, d: Inputs, repeat: int, budget: float, check: Check = lambda out: None
) -> Timing:
    """Best of ``repeat`` timed calls after one warm-up, with the collector off.

    The warm-up's result goes through ``check``.  A warm-up slower than ``budget``
    seconds is itself the measurement, and the timed calls stop once they have used
    ``budget`` seconds: slow cells cost one or two calls, not ``repeat + 1``.
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        timing, error = attempt(_best_of, fn, d, repeat, budget, check)
    finally:
        if gc_was_enabled:
            gc.enable()
    return timing if error is None else Timing(error=error)


# ---------------------------------------------------------------- result checking

SAMPLES = 101  # elements compared per result


def fingerprint(out: Any) -> Any:
    """A small comparable summary of a result: its length and sampled values."""
    if isinstance(out, tuple):
        return tuple(fingerprint(x) for x in out)
    if isinstance(out, np.generic):
        return out.item()
    if isinstance(out, np.ndarray) and out.ndim == 1:
        return len(out), out[_sample_positions(len(out))].tolist()
    if pa is not None and isinstance(out, pa.Array):  # no pc.take for string_view
        return len(out), [out[i].as_py() for i in _sample_positions(len(out)).tolist()]
    return out


def _sample_positions(n: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, SAMPLES).astype(np.intp)) if n else np.zeros(0, np.intp)


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def mismatch(got: Any, expected: Any) -> str | None:
    """None if the fingerprints agree, else a short description of the difference."""
    if got == expected:
        return None
    if isinstance(got, tuple) and isinstance(expected, tuple) and len(got) == len(expected):
        if len(got) == 2 and isinstance(got[1], list) and got[0] == expected[0]:
            for g, e in zip(got[1], expected[1], strict=True):
                if g != e:
                    return f"got {_short(g)}, NumPy StringDType gives {_short(e)}"
        for g, e in zip(got, expected, strict=True):
            if (why := mismatch(g, e)) is not None:
                return why
    return f"got {_short(got)}, NumPy StringDType gives {_short(expected)}"


# Results compared through a transformation: argsort may order ties either way.
VIA: dict[str, Callable[[Inputs, Any], Any]] = {"argsort": lambda d, out: d.a[out]}


# -------------------------------------------------------------------------- memory


def _numpy_traced(d: Inputs) -> tuple[int, str]:
    """NumPy StringDType: a.nbytes cannot see the arena; measure with tracemalloc."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        arr = np.array(d.strings, dtype=d.dtype)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del arr
    return held, f"tracemalloc delta around creation (a.nbytes = {d.a.nbytes:,})"


def _stringdtype_memory(d: Inputs) -> tuple[int, str]:
    if hasattr(sd, "memory_usage"):
        return int(sd.memory_usage(d.a)), "stringdtype.memory_usage(a)"
    return d.a.nbytes, "a.nbytes (views only: no stringdtype.memory_usage)"


def _object_memory(d: Inputs) -> tuple[int, str]:
    unique = {id(s): s for s in d.a.tolist()}.values()
    return d.a.nbytes + sum(map(sys.getsizeof, unique)), "nbytes + sys.getsizeof(strs)"


MEMORY: dict[str, Callable[[Inputs], tuple[int, str]]] = {
    "stringdtype": _stringdtype_memory,
    "numpy": _numpy_traced,
    "U": lambda d: (d.a.nbytes, "nbytes"),
    "object": _object_memory,
    "pyarrow": lambda d: (d.a.nbytes, "nbytes"),
    "polars": lambda d: (d.a.estimated_size(), "estimated_size()"),
}


# ------------------------------------------------------------------------- running


@dataclasses.dataclass
class DatasetResult:
    """Everything measured on one data set."""

    spec: DatasetSpec
    n: int
    utf8_bytes: int
    times: dict[str, dict[str, Timing]]  # op -> contestant -> timing
    memory: dict[str, dict[str, Any]]  # contestant -> {"bytes", "method"}
    memcpy_views: float | None


def prepare(contestant: Contestant, shared: Inputs) -> Inputs:
    """The contestant's own arrays (``a`` and the rotated ``b``) over ``shared``."""
    return dataclasses.replace(
        shared,
        a=contestant.make(shared.strings),
        b=contestant.make(shared.rotated),
        dtype=contestant.dtype,
    )


def measure_memory(key: str, d: Inputs) -> dict[str, Any]:
    measured, error = attempt(MEMORY[key], d)
    if error is not None:
        return {"bytes": None, "method": f"error: {error}"}
    held, method = measured
    return {"bytes": int(held), "method": method}


def run_dataset(
    spec: DatasetSpec,
    contestants: list[Contestant],
    ops: list[str],
    repeat: int,
    budget: float,
    progress: Callable[[str], None],
) -> DatasetResult:
    """Time every op of every contestant on one data set, one contestant at a time.

    The baseline goes first, so that the contestants in ``CHECKED`` can be compared
    with its results.
    """
    strings = make_strings(spec)
    shared = make_inputs(spec, strings)
    times: dict[str, dict[str, Timing]] = {op: {} for op in ops}
    memory: dict[str, dict[str, Any]] = {}
    expected: dict[str, Any] = {}
    for contestant in sorted(contestants, key=lambda c: c.key != BASELINE):
        progress(f"{spec.name}: {contestant.key}")
        d, error = attempt(prepare, contestant, shared)
        if error is not None:
            for op in ops:
                if runnable(op, contestant.key):
                    times[op][contestant.key] = Timing(error=f"creation failed: {error}")
            continue
        memory[contestant.key] = measure_memory(contestant.key, d)
        for op in ops:
            if runnable(op, contestant.key):
                times[op][contestant.key] = _time_op(
                    op, contestant.key, d, repeat, budget, expected
                )
        del d
    yardstick = time_call(lambda d: np.copy(d.views), shared, repeat, budget)
    return DatasetResult(spec, len(strings), utf8_bytes(strings), times, memory, yardstick.best)


def _time_op(
    op: str, key: str, d: Inputs, repeat: int, budget: float, expected: dict[str, Any]
) -> Timing:
    """Time one cell; the baseline records its results, CHECKED contestants match them."""

    def summary(out: Any) -> Any:
        return fingerprint(VIA[op](d, out) if op in VIA else out)

    def record(out: Any) -> None:
        expected[op] = summary(out)

    def compare(out: Any) -> str | None:
        return mismatch(summary(out), expected[op]) if op in expected else None

    checks = {BASELINE: record, **dict.fromkeys(CHECKED, compare)}
    return time_call(OPS[op][key], d, repeat, budget, checks.get(key, lambda out: None))


def runnable(op: str, key: str) -> bool:
    """Whether ``key`` has the op and everything the op needs is importable."""
    module = NEEDS_MODULE.get(op)
    if module is not None and {"pyarrow": pa, "polars": pl}[module] is None:
        return False
    api = NEEDS_SD_API.get(op)
    if key == "stringdtype" and api is not None and not hasattr(sd, api):
        return False
    return key in OPS[op]


def string_view_support() -> list[str]:
    """The pyarrow.compute functions used here that accept a string_view array."""
    if pa is None:
        return []
    arr = pa.array(["a b", "cd"], type=pa.string_view())
    probes = {
        "equal": lambda: pc.equal(arr, "a"),
        "less": lambda: pc.less(arr, arr),
        "utf8_length": lambda: pc.utf8_length(arr),
        "utf8_upper": lambda: pc.utf8_upper(arr),
        "utf8_trim_whitespace": lambda: pc.utf8_trim_whitespace(arr),
        "starts_with": lambda: pc.starts_with(arr, "a"),
        "find_substring": lambda: pc.find_substring(arr, "a"),
        "replace_substring": lambda: pc.replace_substring(arr, "a", "b"),
        "take": lambda: pc.take(arr, [1, 0]),
        "array_sort_indices": lambda: pc.array_sort_indices(arr),
        "unique": lambda: pc.unique(arr),
        "max": lambda: pc.max(arr),
    }
    return [name for name, probe in probes.items() if attempt(probe)[1] is None]


# ------------------------------------------------------------------------ printing


def _fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 1000 else f"{ms:.0f}"


def _fmt_ratio(ratio: float) -> str:
    if ratio >= 10:
        return f"{ratio:.0f}x"
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


def format_cell(timing: Timing | None, baseline: float | None, fastest: bool) -> str:
    if timing is None:
        return "n/a"
    if timing.error is not None:
        return "error: " + timing.error
    text = _fmt_ms(timing.best)
    if baseline:
        text += f" {_fmt_ratio(timing.best / baseline)}"
    return text + (" *" if fastest else "")


def format_table(result: DatasetResult, contestants: list[Contestant], width: int = 18) -> str:
    """The op-by-contestant table of one data set, in ms with ratios to NumPy."""
    keys = [c.key for c in contestants]
    labels = [c.label for c in contestants]
    lines = ["op".ljust(16) + "".join(lab.rjust(width) for lab in labels)]
    errors = []
    for op, cells in result.times.items():
        ok = {k: t.best for k, t in cells.items() if t.best is not None}
        fastest = min(ok, key=ok.get) if len(ok) > 1 else None
        base = ok.get(BASELINE)
        line = op.ljust(16)
        for key in keys:
            cell = format_cell(cells.get(key), base, key == fastest)
            if len(cell) > width - 1:
                errors.append(f"  {op} / {key}: {cell}")
                cell = cell[: width - 4] + "..."
            line += cell.rjust(width)
        lines.append(line)
    return "\n".join(lines + errors)


def format_memory(result: DatasetResult, contestants: list[Contestant]) -> str:
    lines = [f"memory (raw UTF-8 payload {result.utf8_bytes:,} bytes):"]
    for c in contestants:
        mem = result.memory.get(c.key)
        if mem is None:
            continue
        if mem["bytes"] is None:
            lines.append(f"  {c.label:<16}{'':>15}  {mem['method']}")
            continue
        per = mem["bytes"] / max(result.n, 1)
        lines.append(f"  {c.label:<16}{mem['bytes']:>15,} B  {per:7.1f} B/str  {mem['method']}")
    return "\n".join(lines)


def report_dataset(result: DatasetResult, contestants: list[Contestant]) -> str:
    spec = result.spec
    head = f"== {spec.name}: {result.n:,} strings ({spec.description}) "
    unit = "times in ms (best of N), ratio to np StringDType; * fastest"
    yard = (
        f"yardstick: memcpy of the 16*n-byte views buffer: {_fmt_ms(result.memcpy_views)} ms"
        if result.memcpy_views is not None
        else ""
    )
    body = [head.ljust(80, "="), unit, format_table(result, contestants), yard]
    return "\n".join(body + [format_memory(result, contestants), ""])


# ---------------------------------------------------------------------------- JSON


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    def version(mod: Any) -> str | None:
        if mod is None:
            return None
        found, _ = attempt(importlib.metadata.version, mod.__name__.split(".")[0])
        return getattr(mod, "__version__", None) or found or "unknown"

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "pyarrow": version(pa),
        "polars": version(pl),
        "stringdtype": version(sd),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
    }


def _best(timing: Timing | None) -> float | None:
    return None if timing is None else timing.best


def to_json(
    results: list[DatasetResult],
    contestants: list[Contestant],
    ops: list[str],
    config: dict[str, Any],
) -> dict[str, Any]:
    """The JSON document read by ``docs/plot_bench.py`` (schema in its docstring)."""
    datasets = {}
    for r in results:
        datasets[r.spec.name] = {
            "n": r.n,
            "description": r.spec.description,
            "utf8_bytes": r.utf8_bytes,
            "times": {
                op: {c.key: _best(cells.get(c.key)) for c in contestants if c.available}
                for op, cells in r.times.items()
            },
            "errors": {
                op: {k: t.error for k, t in cells.items() if t.error}
                for op, cells in r.times.items()
                if any(t.error for t in cells.values())
            },
            "memory": r.memory,
            "yardstick": {"memcpy_views": r.memcpy_views},
        }
    return {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "config": config,
        "baseline": BASELINE,
        "contestants": {
            c.key: {"label": c.label, "available": c.available, "note": c.note} for c in contestants
        },
        "ops": ops,
        "datasets": datasets,
    }


# ----------------------------------------------------------------------------- CLI


def _csv(choices: list[str], what: str) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [x.strip() for x in text.split(",") if x.strip()]
        unknown = [x for x in names if x not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown)}; choose from {', '.join(choices)}"
            )
        return names

    return parse


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    contestant_keys = [c.key for c in all_contestants()]
    p = argparse.ArgumentParser(
        prog="python -m stringdtype.bench",
        description="Benchmark stringdtype against NumPy StringDType, U, object, "
        "pyarrow and polars; times are ratios to NumPy's StringDType.",
    )
    p.add_argument("--quick", action="store_true", help="data sets 100x smaller")
    p.add_argument(
        "--ops",
        type=_csv(list(OPS), "op"),
        default=list(OPS),
        help="comma-separated ops (default: all): " + ",".join(OPS),
    )
    p.add_argument(
        "--datasets",
        type=_csv(list(DATASETS), "data set"),
        default=list(DATASETS),
        help="comma-separated: short,medium,long",
    )
    p.add_argument(
        "--contestants",
        type=_csv(contestant_keys, "contestant"),
        default=contestant_keys,
        help="comma-separated (default: all importable): " + ",".join(contestant_keys),
    )
    p.add_argument("--repeat", type=int, default=5, help="timed runs per cell (best of)")
    p.add_argument(
        "--budget",
        type=float,
        default=0.2,
        help="seconds per cell after which repeats stop (default 0.2); "
        "a cell whose warm-up takes longer is timed by that one call",
    )
    p.add_argument("--json", metavar="PATH", help="write all results as JSON")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def print_header(everyone: list[Contestant], ops: list[str], view_ops: list[str]) -> None:
    """Versions, machine, skipped contestants and the notes that explain the rows."""
    info = machine_info()
    print(
        f"stringdtype bench: numpy {info['numpy']}, pyarrow {info['pyarrow']}, "
        f"polars {info['polars']}, stringdtype {info['stringdtype']}; "
        f"{info['cpu']}, {info['cores']} cores"
    )
    for c in everyone:
        if not c.available:
            print(f"skipped {c.key}: {c.note}")
    if view_ops:
        print("pyarrow.compute on string_view (not timed): " + ", ".join(view_ops))
    notes = [OP_NOTES[k] for k in ("object", *ops) if k in OP_NOTES]
    notes.append("polars and pyarrow may use all cores; NumPy and stringdtype use one")
    print("notes:\n" + "".join(f"  - {note}\n" for note in notes))


def _progress(msg: str) -> None:
    if sys.stderr.isatty():
        print(f"  ... {msg}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    faulthandler.enable()  # a crash in an extension still names the op it was running
    args = parse_args(argv)
    everyone = [c for c in all_contestants() if c.key in args.contestants]
    contestants = [c for c in everyone if c.available]
    scale = 100 if args.quick else 1
    specs = [
        dataclasses.replace(DATASETS[name], n=DATASETS[name].n // scale) for name in args.datasets
    ]
    view_ops = string_view_support()
    print_header(everyone, args.ops, view_ops)
    config = {
        "quick": args.quick,
        "repeat": args.repeat,
        "budget_s": args.budget,
        "seed": SEED,
        "argv": sys.argv[1:] if argv is None else argv,
        "pyarrow_string_view_functions": view_ops,
    }
    results = []
    started = time.perf_counter()
    for spec in specs:
        results.append(
            run_dataset(spec, contestants, args.ops, args.repeat, args.budget, _progress)
        )
        print(report_dataset(results[-1], contestants), flush=True)
        if args.json:  # after every data set, so a crash keeps what was measured
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(to_json(results, everyone, args.ops, config), f, indent=1)
    print(
        f"total {time.perf_counter() - started:.1f} s"
        + (f"; wrote {args.json}" if args.json else "")
    )
    return 0
