"""The pandas section: a ``"stringdtype"`` column against pandas' own string columns.

``python -m stringdtype.bench --pandas`` (or ``python -m stringdtype.bench.pandas_ops``)
times each ``.str`` method, ``==``, ``sort_values``, ``value_counts``,
``groupby(...).size()``, ``merge``, ``unique`` and 1,000 single assignments on one
column of 1,000,000 strings of the short data set with 10% missing, for three columns:

* ``stringdtype``: ``pd.Series(strings, dtype="stringdtype")`` (this package);
* ``str``: pandas' default string column, ``pd.StringDtype("pyarrow", np.nan)``, the
  baseline of every ratio;
* ``string[python]``: ``pd.StringDtype("python")``, Python ``str`` objects.

Times are the best of ``--repeat`` calls within ``--budget`` seconds per cell, as in the
other sections (``timing.time_call``). A method a column lacks is ``n/a``; a failure is
shown as ``error: ...``. Results are not compared here: tests/test_pandas_strings.py
checks every method against pandas on Python strings.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import DATASETS, SEED, make_strings
from .libraries import attempt
from .report import _fmt_ms, _fmt_ratio
from .timing import Timing, time_call

MISSING = 0.1  # the fraction of missing values
ASSIGNMENTS = 1_000
BASELINE = "str"


@dataclasses.dataclass
class Column:
    """One contestant's column and the inputs its operations use."""

    s: Any  # the Series
    frame: Any  # DataFrame({"k": s, "v": 0..n-1})
    right: Any  # DataFrame({"k": up to n / 10 distinct present values, "w": 1})
    positions: list[int]  # where the single assignments go


def _str(method: str, *args: Any, **kwargs: Any) -> Callable[[Column], Any]:
    return lambda c: getattr(c.s.str, method)(*args, **kwargs)


def _assign(c: Column) -> Any:
    s = c.s
    for i in c.positions:
        s.iloc[i] = "z"
    return s


OPS: dict[str, Callable[[Column], Any]] = {
    **{m: _str(m) for m in ("upper", "lower", "title", "capitalize", "swapcase", "casefold")},
    "len": _str("len"),
    **{m: _str(m) for m in ("isalnum", "isalpha", "isdigit", "isspace", "islower")},
    **{m: _str(m) for m in ("isupper", "istitle", "isnumeric", "isdecimal", "isascii")},
    "contains": _str("contains", "ab", regex=False),
    "contains_re": _str("contains", r"\d\d"),
    "contains_nocase": _str("contains", "ab", case=False, regex=False),
    "startswith": _str("startswith", "a"),
    "endswith": _str("endswith", "z"),
    "match": _str("match", r"[a-f]\d"),
    "fullmatch": _str("fullmatch", r"[a-z ]*"),
    "count": _str("count", "[aeiou]"),
    "find": _str("find", "a"),
    "rfind": _str("rfind", "a"),
    "replace": _str("replace", "a", "XY", regex=False),
    "replace_re": _str("replace", r"(\d+)", r"<\1>", regex=True),
    "repeat": _str("repeat", 2),
    "pad": _str("pad", 20),
    "center": _str("center", 20, "*"),
    "ljust": _str("ljust", 20),
    "rjust": _str("rjust", 20),
    "zfill": _str("zfill", 20),
    "strip": _str("strip"),
    "lstrip": _str("lstrip", "ab"),
    "rstrip": _str("rstrip"),
    "removeprefix": _str("removeprefix", "a"),
    "removesuffix": _str("removesuffix", "z"),
    "slice": _str("slice", 1, 5),
    "get": _str("get", 0),
    "slice_replace": _str("slice_replace", 1, 3, "X"),
    "findall": _str("findall", r"\d+"),
    "extract": _str("extract", r"([A-Za-z]+) ([0-9])", expand=False),
    "split": _str("split", " "),
    "rsplit": _str("rsplit", " ", n=1),
    "partition": _str("partition", " ", expand=False),
    "rpartition": _str("rpartition", " ", expand=False),
    "encode": _str("encode", "utf-8"),
    "normalize": _str("normalize", "NFC"),
    "translate": _str("translate", {ord("a"): "b"}),
    "join": _str("join", "-"),
    "eq_scalar": lambda c: c.s == "abc",
    "add_scalar": lambda c: c.s + "!",
    "sort_values": lambda c: c.s.sort_values(),
    "value_counts": lambda c: c.s.value_counts(),
    "groupby_size": lambda c: c.frame.groupby("k").size(),
    "merge": lambda c: c.frame.merge(c.right, on="k"),
    "unique": lambda c: c.s.unique(),
    "isin": lambda c: c.s.isin(c.right["k"]),
    "assign_1000": _assign,
}


def _dtypes() -> dict[str, Any]:
    import pandas as pd

    import stringdtype.pandas  # noqa: F401 - registers "stringdtype"

    return {
        "stringdtype": "stringdtype",
        "str": pd.StringDtype("pyarrow", na_value=np.nan),
        "string[python]": pd.StringDtype("python"),
    }


def _columns(n: int) -> dict[str, Column]:
    import pandas as pd

    spec = dataclasses.replace(DATASETS["short"], n=n)
    rng = np.random.default_rng(SEED + 2)
    values = np.array(make_strings(spec), dtype=object)
    values[rng.random(n) < MISSING] = None
    # A lookup table: distinct present values (merge pairs equal keys, missing ones too,
    # so repeated keys on both sides would make the output, not the keys, the work).
    present = values[pd.notna(values)]
    right_keys = pd.unique(present[rng.choice(len(present), size=max(n // 10, 1))])
    positions = rng.integers(0, n, ASSIGNMENTS).tolist()
    columns = {}
    for key, dtype in _dtypes().items():
        s = pd.Series(values, dtype=dtype)
        frame = pd.DataFrame({"k": s, "v": np.arange(n)})
        right = pd.DataFrame({"k": pd.Series(right_keys, dtype=dtype), "w": 1})
        columns[key] = Column(s, frame, right, positions)
    return columns


def run(n: int, ops: list[str], repeat: int, budget: float) -> dict[str, dict[str, Timing]]:
    """Time every op on every column: op -> column -> timing."""
    columns = _columns(n)
    return {
        op: {key: time_call(OPS[op], column, repeat, budget) for key, column in columns.items()}
        for op in ops
    }


def _cell(timing: Timing, base: float | None) -> str:
    if timing.error is not None:
        return "n/a" if "AttributeError" in timing.error else "error"
    text = _fmt_ms(timing.best)
    return text + (f" {_fmt_ratio(timing.best / base)}" if base else "")


def format_section(times: dict[str, dict[str, Timing]], n: int, width: int = 20) -> str:
    keys = list(next(iter(times.values())))
    head = f"== pandas: one column of {n:,} short strings, {MISSING:.0%} missing "
    lines = [
        head.ljust(80, "="),
        f"times in ms (best of N), ratio to pandas' {BASELINE} (pyarrow)",
        "op".ljust(16) + "".join(key.rjust(width) for key in keys),
    ]
    errors = []
    for op, cells in times.items():
        base = cells[BASELINE].best
        lines.append(op.ljust(16) + "".join(_cell(cells[k], base).rjust(width) for k in keys))
        errors += [f"  {op} / {k}: {t.error}" for k, t in cells.items() if t.error]
    return "\n".join(lines + errors)


def section(quick: bool = False, repeat: int = 5, budget: float = 0.2) -> str:
    """The section's text, for ``python -m stringdtype.bench --pandas``."""
    n = 10_000 if quick else 1_000_000
    times, error = attempt(run, n, list(OPS), repeat, budget)
    return f"== pandas: {error}" if error else format_section(times, n)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m stringdtype.bench.pandas_ops")
    p.add_argument("--quick", action="store_true", help="10,000 strings")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--budget", type=float, default=0.2)
    args = p.parse_args(argv)
    started = time.perf_counter()
    print(section(args.quick, args.repeat, args.budget))
    print(f"total {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
