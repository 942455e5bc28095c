"""Wall time of the loops the thread pool splits, with one thread and with more.

    python tools/pool_scaling.py                      # 2,000,000 strings, 1 and 2 threads
    python tools/pool_scaling.py --n 2000,16384,32768,65536 --threshold 1
    python tools/pool_scaling.py --threads 1,2,4 --repeat 21

The strings are those of issue 39's polars figures: random lowercase letters, 5-40 of
them, seeded. Each row runs its thread counts in turn, ``--repeat`` times round, and
prints the best time of each (the machine is shared: the best is the least disturbed)
and the ratio to one thread. ``--threshold`` sets the number of elements from which a
call is split (``_core._set_pool_threshold``), to measure where the split pays; by
default the package's own.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from stringdtype import StringDType, _core


def strings(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(5, 41, n)
    codes = rng.integers(ord("a"), ord("z") + 1, int(lengths.sum()), dtype=np.uint8)
    text = codes.tobytes().decode("ascii")
    ends = np.cumsum(lengths)
    words = [text[end - length : end] for end, length in zip(ends, lengths)]
    return np.array(words, dtype=StringDType())


def rows(a: np.ndarray, b: np.ndarray) -> dict:
    return {
        "str_len": lambda: np.strings.str_len(a),
        "find 'ab'": lambda: np.strings.find(a, "ab"),
        "find 'a'": lambda: np.strings.find(a, "a"),
        "startswith 'ab'": lambda: np.strings.startswith(a, "ab"),
        "isalpha": lambda: np.strings.isalpha(a),
        "a == b": lambda: a == b,
        "a == 'hello'": lambda: a == "hello",
        "a < b": lambda: a < b,
    }


def best(fn, threads: int) -> float:
    _core._set_pool_threads(threads)
    start = time.perf_counter()
    out = fn()
    elapsed = time.perf_counter() - start
    del out
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="2000000", help="comma-separated sizes")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--threshold", type=int, default=None)
    parser.add_argument("--ops", default=None, help="comma-separated rows (default: all)")
    args = parser.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    if args.threshold is not None:
        _core._set_pool_threshold(args.threshold)
    for n in (int(x) for x in args.n.split(",")):
        a, b = strings(n, 0), strings(n, 1)
        table = rows(a, b)
        wanted = args.ops.split(",") if args.ops else list(table)
        # Small calls are repeated within one timing, so that the clock resolves them.
        inner = max(1, 200_000 // n)
        for name in wanted:
            fn = table[name]

            def many(fn=fn, inner=inner):
                for _ in range(inner):
                    fn()

            times = {t: float("inf") for t in counts}
            for _ in range(args.repeat):
                for t in counts:
                    times[t] = min(times[t], best(many, t) / inner)
            cells = "  ".join(
                f"{t} thr {times[t] * 1e3:9.3f} ms ({times[t] / times[counts[0]]:.2f}x)"
                for t in counts
            )
            print(f"n={n:<9d} {name:16s} {cells}", flush=True)


if __name__ == "__main__":
    main()
