"""Do read-only loops on one shared array run in parallel?

    python tools/thread_scaling.py [--n 2000000]

Two threads each run ``np.strings.find`` and ``str_len`` three times over one shared
StringDType array; the script prints the wall time of that against the same work done
one thread after the other (best of 3 each). On 2 idle cores a ratio near 0.5 means the
readers of the array's arena do not wait for each other. Run it on an otherwise idle
machine.
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np

from stringdtype import StringDType


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=2_000_000, help="strings in the shared array")
    args = p.parse_args(argv)
    a = np.array(
        [f"some medium string number {i:07d} here" for i in range(args.n)], dtype=StringDType()
    )

    def work() -> None:
        for _ in range(3):
            np.strings.find(a, "zz")
            np.strings.str_len(a)

    def timed(fn) -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    def parallel() -> None:
        threads = [threading.Thread(target=work) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    work()  # warm up
    sequential = min(timed(lambda: (work(), work())) for _ in range(3))
    together = min(timed(parallel) for _ in range(3))
    print(
        f"sequential {sequential:.3f} s, two threads {together:.3f} s, "
        f"ratio {together / sequential:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
