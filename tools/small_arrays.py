"""What one small array costs: resident memory and creation time, against NumPy.

    python tools/small_arrays.py [--count 200000] [--repeat 5] [--contestants ours,numpy,U,object]

Each contestant runs in a fresh interpreter of its own (the one running this script),
so that no contestant finds memory another freed. The child imports NumPy (and the
package), creates 100 arrays to warm up, then creates ``--count`` arrays of the issue's
shape, ``np.array(["ab", "x" * 36], dtype=...)``, and holds them all at once:

- *resident*: the rise of the process's resident set (``/proc/self/statm``) while they
  live, divided by the count. This package allocates through the Rust allocator, which
  ``tracemalloc`` does not see, so only the resident set compares the two dtypes.
- *heap*: the rise of glibc's bytes in use (``mallinfo2``), divided by the count: the
  part of *resident* that went through ``malloc`` (descriptors' Rust state, arenas,
  NumPy's data buffers and allocators), without Python's small-object arenas.
- *create*: the best of ``--repeat`` times of creating the ``--count`` arrays (a fresh
  list each time, the previous one freed first).

The list holding the arrays (8 bytes a pointer) is counted for every contestant alike.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CONTESTANTS = ("ours", "numpy", "U", "object")

CHILD = """
import ctypes, gc, json, os, sys, time
import numpy as np

contestant, count, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if contestant == "ours":
    from stringdtype import StringDType
    dtype = StringDType()
elif contestant == "numpy":
    dtype = np.dtypes.StringDType()
else:
    dtype = np.dtype(contestant)

libc = ctypes.CDLL(None)


class Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]


libc.mallinfo2.restype = Mallinfo2
page = os.sysconf("SC_PAGE_SIZE")


def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page


def heap():
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


values = ["ab", "x" * 36]
warm = [np.array(values, dtype=dtype) for _ in range(100)]
gc.collect()
gc.disable()
rss0, heap0 = resident(), heap()
arrays = [np.array(values, dtype=dtype) for _ in range(count)]
rss1, heap1 = resident(), heap()
assert arrays[-1].tolist() == values
del arrays
times = []
for _ in range(repeat):
    start = time.perf_counter()
    arrays = [np.array(values, dtype=dtype) for _ in range(count)]
    times.append(time.perf_counter() - start)
    del arrays
print(json.dumps({
    "resident": (rss1 - rss0) / count,
    "heap": (heap1 - heap0) / count,
    "create": min(times),
}))
"""


def run(contestant: str, count: int, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, contestant, str(count), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--contestants", default=",".join(CONTESTANTS))
    args = parser.parse_args()
    names = args.contestants.split(",")
    results = {name: run(name, args.count, args.repeat) for name in names}
    reference = results.get("numpy")
    print(f"{args.count:,} arrays np.array(['ab', 'x' * 36], dtype=...), each contestant")
    print("in a fresh process; per array, and ratios to NumPy's StringDType\n")
    print(f"{'':8} {'resident':>10} {'heap':>8} {'create':>9} {'res. x':>7} {'time x':>7}")
    for name, r in results.items():
        ratios = ("", "")
        if reference:
            ratios = (
                f"{r['resident'] / reference['resident']:.2f}",
                f"{r['create'] / reference['create']:.2f}",
            )
        print(
            f"{name:8} {r['resident']:>8.0f} B {r['heap']:>6.0f} B {r['create']:>7.3f} s"
            f" {ratios[0]:>7} {ratios[1]:>7}"
        )


if __name__ == "__main__":
    main()
