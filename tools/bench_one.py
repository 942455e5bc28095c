"""One benchmark row run many times on one data set at twice its size, for ``perf``.

    STRINGDTYPE_NUM_THREADS=1 perf record -g python tools/bench_one.py str_len 40 [medium]

Prints the best time of the runs. The data are the benchmark's (``make_strings``), so a
profile shows the same strings as the table; building them is part of the profile,
which ``perf report`` shows apart (NumPy's random generators, page zeroing).
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np

import stringdtype
from stringdtype import StringDType
from stringdtype.bench.datasets import DATASETS, make_strings

ROWS = {
    "str_len": lambda a: np.strings.str_len(a),
    "endswith": lambda a: np.strings.endswith(a, "a"),
    "slice": lambda a: stringdtype.strings.slice(a, 2, 8),
    "find": lambda a: np.strings.find(a, "a"),
    "lstrip": lambda a: np.strings.lstrip(a),
    "rstrip": lambda a: np.strings.rstrip(a),
    "strip": lambda a: np.strings.strip(a),
    "multiply_3": lambda a: a * 3,
    "upper": lambda a: stringdtype.strings.upper(a),
    "add": lambda a: a + a,
}


def main(argv: list[str]) -> None:
    row, runs = ROWS[argv[0]], int(argv[1])
    spec = DATASETS[argv[2] if len(argv) > 2 else "medium"]
    spec = dataclasses.replace(spec, n=spec.n * 2)
    a = np.array(make_strings(spec), dtype=StringDType())
    row(a)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        result = row(a)
        best = min(best, time.perf_counter() - start)
        del result
    print(f"{argv[0]} {spec.name}: best of {runs} {best * 1e3:.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
