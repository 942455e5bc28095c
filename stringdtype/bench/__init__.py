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
``--scale F`` multiplies the size of every data set (``--scale 2``: 2,000,000 short and
medium strings; ``--quick`` is ``--scale 0.01``).

``--threads 1,2`` shows stringdtype and polars once per thread count, as contestants
``stringdtype@1``, ``stringdtype@2``, ``polars@1``, ``polars@2``; the others appear once.
``stringdtype@n`` runs each cell with the package's pool set to ``n`` threads
(``_core._set_pool_threads``; it is put back afterwards): only loops with bool or int64
results of 32,768 elements or more are split, so the other rows differ by noise alone.
polars sizes its pool once per process, from ``POLARS_MAX_THREADS``, so ``polars@n``
lives in a child process started with ``POLARS_MAX_THREADS=n``: the child generates the
same seeded data set, builds its Series and times each cell with the same ``time_call``
when the parent asks for it, at the row's turn, while the parent waits (``threads``).
A row's cells are thus still timed one after the other, the child's cells on a fresh
process's heap.  pyarrow appears once: the ``pyarrow.compute`` kernels of these rows
run on the calling thread (with ``pa.set_cpu_count(2)``, their CPU time equals their
wall time; docs/performance.md).  Without ``--threads``, stringdtype runs its pool's
default size (``STRINGDTYPE_NUM_THREADS``, else the cores) and polars its own.

The modules, each importing only those listed before it: ``libraries`` (the optional
imports and ``attempt``), ``datasets``, ``contestants``, ``rows`` (how a table row is
written), ``string_ops`` and ``operations`` (the table ``OPS``), ``timing``,
``threads`` (the thread counts of ``--threads``), ``runner`` (one data set), ``report``
(tables, header, JSON), ``pandas_ops`` (the pandas section, ``--pandas``) and this one
(the command line).  A new row joins a group of ``string_ops`` or ``operations``; a new
family of rows gets a module of its own beside ``string_ops``, joined into ``OPS`` in
``operations``.
"""

from __future__ import annotations

import argparse
import dataclasses
import faulthandler
import json
import sys
import time
from collections.abc import Callable

from .contestants import all_contestants, per_thread_count
from .datasets import DATASETS, SEED
from .operations import OPS
from .report import print_header, report_dataset, string_view_support, to_json
from .runner import run_dataset

__all__ = ["main", "parse_args"]


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


def _counts(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1 or len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"{text!r}: distinct positive integers, e.g. 1,2")
    return counts


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    contestant_keys = [c.key for c in all_contestants()]
    p = argparse.ArgumentParser(
        prog="python -m stringdtype.bench",
        description="Benchmark stringdtype against NumPy StringDType, U, object, "
        "pyarrow and polars; times are ratios to NumPy's StringDType.",
    )
    p.add_argument("--quick", action="store_true", help="data sets 100x smaller")
    p.add_argument(
        "--scale",
        type=float,
        default=None,
        help="multiply every data set's size (default 1: 1,000,000 short and medium "
        "strings, 100,000 long; --scale 2 doubles them)",
    )
    p.add_argument(
        "--threads",
        type=_counts,
        default=None,
        metavar="LIST",
        help="comma-separated thread counts, e.g. 1,2: stringdtype and polars once per "
        "count (stringdtype@1, polars@2, ...); default: each as it runs by itself",
    )
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
    # Fifteen: the first calls of a cell can pay page faults for their output until the
    # allocator reuses freed memory; five runs did not always get past them (str_len of
    # the short set: 3.9-5.5 ms in runs of five, 3.1 ms in runs of ten to thirty).
    p.add_argument("--repeat", type=int, default=15, help="timed runs per cell (best of)")
    p.add_argument(
        "--budget",
        type=float,
        default=0.2,
        help="seconds per cell after which repeats stop (default 0.2); "
        "a cell whose warm-up takes longer is timed by that one call",
    )
    p.add_argument("--json", metavar="PATH", help="write all results as JSON")
    p.add_argument("--pandas", action="store_true", help="also run the pandas section")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if args.quick and args.scale is not None:
        p.error("--quick is --scale 0.01: give one of them")
    if args.scale is not None and args.scale <= 0:
        p.error("--scale must be positive")
    args.scale = 0.01 if args.quick else 1.0 if args.scale is None else args.scale
    return args


def _progress(msg: str) -> None:
    if sys.stderr.isatty():
        print(f"  ... {msg}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    faulthandler.enable()  # a crash in an extension still names the op it was running
    args = parse_args(argv)
    everyone = [c for c in all_contestants() if c.key in args.contestants]
    if args.threads:
        everyone = per_thread_count(everyone, args.threads)
    contestants = [c for c in everyone if c.available]
    specs = [
        dataclasses.replace(DATASETS[name], n=max(1, round(DATASETS[name].n * args.scale)))
        for name in args.datasets
    ]
    view_ops = string_view_support()
    print_header(everyone, args.ops, view_ops)
    config = {
        "quick": args.quick,
        "scale": args.scale,
        "threads": args.threads,
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
    if args.pandas:
        from .pandas_ops import section  # imported here: it is also a script of its own

        print(section(args.quick, args.repeat, args.budget), flush=True)
    print(
        f"total {time.perf_counter() - started:.1f} s"
        + (f"; wrote {args.json}" if args.json else "")
    )
    return 0
