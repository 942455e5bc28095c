"""Instructions per element of every benchmark row, counted by callgrind.

    python tools/instructions.py --out after.json [--datasets short,medium] [--ops create,add]
    PYTHONPATH=/path/to/other/build python tools/instructions.py --out before.json
    python tools/instructions.py --compare before.json after.json

Wall-clock times on a shared machine move by more than the differences that "no row
slower" asks about; instruction counts do not move at all. The first form runs this
script under ``valgrind --tool=callgrind`` once per data set, with whatever build of the
package the interpreter imports (another build comes in through ``PYTHONPATH``) and
always with this repository's benchmark code, so two builds run the same rows. The
child builds the benchmark's inputs at ``--scale`` times their size, and runs each row
of this package once to warm up and once counted, zeroing callgrind's counters before
the counted call and writing them out after it, through callgrind's client requests
(a three-line C helper, built with ``cc`` against valgrind's header). A count covers
the whole call, NumPy's and Python's share included, as a benchmark time does, except
freeing the result, and only the calling thread's (another library's background thread
is left out). The package runs on one thread (``STRINGDTYPE_NUM_THREADS=1`` unless
the environment sets it), so that a count is the one thread's work. ``--compare`` prints
the ratio of each row.

Instructions are not time: cache misses and page faults cost no instructions. Use the
counts to tell a real change from noise, and the benchmark for the times.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import gc
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "stringdtype" / "bench"


def load_bench():
    """This repository's benchmark package, whichever ``stringdtype`` is imported."""
    spec = importlib.util.spec_from_file_location(
        "_bench", BENCH / "__init__.py", submodule_search_locations=[str(BENCH)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["_bench"] = module
    spec.loader.exec_module(module)
    return module


def child(dataset: str, scale: float, ops: list[str] | None) -> None:
    """Runs under callgrind: one warm-up and one counted call of each row."""
    load_bench()
    from _bench.contestants import all_contestants, prepare
    from _bench.datasets import DATASETS, make_inputs, make_strings
    from _bench.libraries import attempt
    from _bench.operations import OPS, runnable

    spec = DATASETS[dataset]
    spec = dataclasses.replace(spec, n=max(1, round(spec.n * scale)))
    strings = make_strings(spec)
    contestant = next(c for c in all_contestants() if c.key == "stringdtype")
    d = prepare(contestant, make_inputs(spec, strings))
    requests = ctypes.CDLL(os.environ["INSTRUCTIONS_HELPER"])
    counted = []
    for op in ops or list(OPS):
        if op not in OPS or not runnable(op, "stringdtype"):
            print(f"{op}: not a row of this package", file=sys.stderr)
            continue
        fn = OPS[op]["stringdtype"]
        warm, error = attempt(fn, d)
        if error is not None:  # a row this build lacks: left out of the counts
            print(f"{op}: left out ({error})", file=sys.stderr)
            continue
        del warm
        gc.collect()
        requests.zero()
        out = fn(d)
        requests.dump(op.encode())
        del out
        gc.collect()
        counted.append(op)
    print(json.dumps({"n": spec.n, "ops": counted}))


HELPER = """
#include <valgrind/callgrind.h>
void zero(void) { CALLGRIND_ZERO_STATS; }
void dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
"""


def dumped(path: str) -> tuple[str, int]:
    """The row a dump was written for, and its instruction count."""
    name = None
    with open(path) as f:
        for line in f:
            if line.startswith("desc: Trigger: Client Request: "):
                name = line.split(": ", 3)[3].strip()
            elif line.startswith("summary:"):
                return name, int(line.split()[1])
    raise ValueError(f"no summary line in {path}")


def count(dataset: str, scale: float, ops: list[str] | None) -> dict[str, float]:
    """Instructions per element of each row on one data set."""
    with tempfile.TemporaryDirectory() as tmp:
        helper = os.path.join(tmp, "requests.so")
        source = os.path.join(tmp, "requests.c")
        Path(source).write_text(HELPER)
        subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", helper, source], check=True)
        out = os.path.join(tmp, "cg.out")
        command = [
            "valgrind",
            "--tool=callgrind",
            # A file per thread: only the calling thread's is counted, so that a
            # library's background thread (polars starts one) that happens to run
            # during a row is not counted into it.
            "--separate-threads=yes",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            dataset,
            "--scale",
            str(scale),
        ]
        if ops:
            command += ["--ops", ",".join(ops)]
        # One thread, the package's too: the counts are those of the calling thread's
        # work, which a split call would spread over threads callgrind adds together.
        env = {
            "STRINGDTYPE_NUM_THREADS": "1",
            **os.environ,
            "OPENBLAS_NUM_THREADS": "1",
            "INSTRUCTIONS_HELPER": helper,
        }
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        n = json.loads(result.stdout.strip().splitlines()[-1])["n"]
        totals = dict(dumped(p) for p in glob.glob(out + ".*-01"))
    return {op: total / n for op, total in totals.items() if op is not None}


def compare(before_path: str, after_path: str) -> None:
    before, after = (json.loads(Path(p).read_text()) for p in (before_path, after_path))
    print("| op | set | before | after | after/before |")
    print("| --- | --- | --- | --- | --- |")
    rows = []
    for dataset, counts in after.items():
        for op, value in counts.items():
            old = before.get(dataset, {}).get(op)
            if old:
                rows.append((value / old, op, dataset, old, value))
    for ratio, op, dataset, old, value in sorted(rows, reverse=True):
        print(f"| {op} | {dataset} | {old:,.1f} | {value:,.1f} | {ratio:.3f}x |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="write the counts here (JSON)")
    p.add_argument("--datasets", default="short,medium,long")
    p.add_argument("--ops", help="comma-separated rows (default: all)")
    p.add_argument("--scale", type=float, default=0.1, help="fraction of each data set")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    ops = args.ops.split(",") if args.ops else None
    if args.child:
        child(args.child, args.scale, ops)
    elif args.compare:
        compare(*args.compare)
    else:
        counts = {ds: count(ds, args.scale, ops) for ds in args.datasets.split(",")}
        text = json.dumps(counts, indent=1)
        if args.out:
            Path(args.out).write_text(text + "\n")
        else:
            print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
