"""What the benchmark prints and stores: the header, the tables, the JSON document.

``to_json`` writes the document ``docs/plot_bench.py`` reads (``SCHEMA``, described
in that script's docstring); ``machine_info`` and ``string_view_support`` describe
the machine and libraries the figures come from.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
from typing import Any

import numpy as np

from .contestants import BASELINE, Contestant
from .libraries import attempt, pa, pc, pl, sd
from .operations import OP_NOTES
from .runner import DatasetResult
from .threads import pool_threads
from .timing import Timing

SCHEMA = "stringdtype-bench/1"

# The machine, the libraries and the header printed above the tables.


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


def _threads_note(everyone: list[Contestant]) -> str:
    if any(c.threads is not None for c in everyone):
        return (
            "name@n: n threads (stringdtype: its pool, which splits loops with bool, "
            "int64 or string results and sorts of 32,768+ elements; polars: a child process with "
            "POLARS_MAX_THREADS=n); NumPy and pyarrow's kernels here use one"
        )
    polars = pl.thread_pool_size() if pl else None
    return (
        f"stringdtype splits loops with bool, int64 or string results and sorts of 32,768+ "
        f"elements over "
        f"{pool_threads()} threads, polars uses {polars}; NumPy and pyarrow's kernels "
        "here use one (--threads to compare)"
    )


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
    notes.append(_threads_note(everyone))
    print("notes:\n" + "".join(f"  - {note}\n" for note in notes))


# One data set's table and memory section.


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


# The JSON document.


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
            c.key: {
                "label": c.label,
                "available": c.available,
                "note": c.note,
                "threads": c.threads,
            }
            for c in contestants
        },
        "ops": ops,
        "datasets": datasets,
    }
