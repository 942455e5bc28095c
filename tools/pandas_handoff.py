"""``.str`` methods of the pandas column with the result handed to its Series and with
pandas' copy, side by side with pandas' ``str`` column, in one process.

    python tools/pandas_handoff.py [rounds]

The column is the pandas benchmark's (``stringdtype.bench.pandas_ops``: 1,000,000 short
strings, 10 % missing). "copy" sets ``StringDTypeArray.copy`` to pandas'
``NDArrayBackedExtensionArray.copy`` (the behaviour before the handoff), "handoff" puts
the column's own back; each cell is the best of 9 calls, one value per round, rounds
alternating. Prints a Markdown table in ms (see docs/pandas.md).
"""

from __future__ import annotations

import os
import sys
import time

from pandas.core.arrays._mixins import NDArrayBackedExtensionArray

from stringdtype.bench.pandas_ops import _columns
from stringdtype.pandas import StringDTypeArray

OPS = [
    ("upper", ()),
    ("lower", ()),
    ("swapcase", ()),
    ("lstrip", ("ab",)),
    ("rstrip", ()),
    ("pad", (20,)),
    ("center", (20, "*")),
    ("ljust", (20,)),
    ("rjust", (20,)),
    ("zfill", (20,)),
    ("repeat", (2,)),
    ("strip", ()),
    ("replace", ("a", "XY")),
]


def best_ms(call, runs=9):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main(rounds: int = 2) -> None:
    columns = _columns(1_000_000)
    ours, theirs = columns["stringdtype"].s, columns["str"].s
    handoff = StringDTypeArray.copy
    times: dict[tuple[str, str], list[float]] = {}
    try:
        for _ in range(rounds):
            for mode in ("copy", "handoff"):
                copy = handoff if mode == "handoff" else NDArrayBackedExtensionArray.copy
                StringDTypeArray.copy = copy
                for name, args in OPS:
                    call = getattr(ours.str, name)
                    times.setdefault((name, mode), []).append(best_ms(lambda: call(*args)))
            for name, args in OPS:
                call = getattr(theirs.str, name)
                times.setdefault((name, "str"), []).append(best_ms(lambda: call(*args)))
    finally:
        StringDTypeArray.copy = handoff
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| `.str` method | copy | handoff | `str` (pyarrow) |")
    print("| --- | --- | --- | --- |")
    for name, args in OPS:
        modes = ("copy", "handoff", "str")
        cells = (" / ".join(f"{t:.1f}" for t in times[(name, mode)]) for mode in modes)
        call = f"{name}({', '.join(map(repr, args))})"
        print(f"| `{call}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
