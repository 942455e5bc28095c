"""Times a few operations that build large results, with the page faults and CPU time
they cost per call, on one of the benchmark's data sets.

    python tools/faults.py long 31 mul,ljust

Each operation runs once to warm up, then ``runs`` times; printed per operation: the
best and median wall time, the CPU time per call (every thread, user and kernel) and the
minor page faults per call, both from ``resource.getrusage``. Fresh memory shows here:
its zeroing as kernel CPU time, its mapping as faults.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from stringdtype import StringDType
from stringdtype.bench.datasets import DATASETS, make_strings

OPS = {
    "mul": lambda a: a * 3,
    "add": lambda a: a + a,
    "ljust": lambda a: np.strings.ljust(a, 1200),
    "copy": lambda a: a.copy(),
    "strip": lambda a: np.strings.strip(a),
}


def main(argv: list[str]) -> None:
    name, runs = argv[0], int(argv[1])
    a = np.array(make_strings(DATASETS[name]), dtype=StringDType())
    for op in argv[2].split(","):
        f = OPS[op]
        f(a)
        before = resource.getrusage(resource.RUSAGE_SELF)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            result = f(a)
            times.append(time.perf_counter() - start)
            del result
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        faults = (after.ru_minflt - before.ru_minflt) / runs
        times.sort()
        print(
            f"{name:6} {op:6} best {times[0] * 1e3:7.2f} ms  median {times[runs // 2] * 1e3:7.2f}"
            f" ms  cpu {cpu / runs * 1e3:7.2f} ms/call  faults {faults:8.0f}/call"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
