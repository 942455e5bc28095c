"""Plot the JSON written by ``python -m stringdtype.bench --json PATH``.

Usage::

    python docs/plot_bench.py bench.json [--out docs/img] [--contestants a,b]

For every data set it saves ``bench_<dataset>.png``: one horizontal bar per
operation and contestant, the contestant's time divided by the baseline's (NumPy's
StringDType), on a log scale, so a bar left of the 1x line is faster than NumPy.
Cells without a time (n/a, errors, or no baseline time) are left out.

The JSON document (``"schema": "stringdtype-bench/1"``)::

    {
      "schema": "stringdtype-bench/1",
      "created": "2025-01-01T00:00:00+00:00",
      "machine": {"python", "platform", "numpy", "pyarrow", "polars",
                  "stringdtype", "cpu", "cores"},        # versions are str or null
      "config": {"quick", "scale", "threads", "repeat", "budget_s", "seed", "argv",
                 "pyarrow_string_view_functions"},     # threads: [n, ...] or null
      "baseline": "numpy",
      "contestants": {key: {"label", "available", "note", "threads"}},
                                  # key "stringdtype@2": 2 threads (--threads); else null
      "ops": [op, ...],                                   # in table order
      "datasets": {
        name: {
          "n": int, "description": str, "utf8_bytes": int,
          "times": {op: {contestant: seconds or null}},   # best of N; null = n/a or error
          "errors": {op: {contestant: "message"}},
          "memory": {contestant: {"bytes": int or null, "method": str}},
          "yardstick": {"memcpy_views": seconds}          # np.copy of 16*n bytes
        }
      }
    }
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

DEFAULT_OUT = Path(__file__).resolve().parent / "img"
COLORS = {
    "stringdtype": "#d62728",
    "U": "#7f7f7f",
    "object": "#bcbd22",
    "pyarrow": "#1f77b4",
    "polars": "#2ca02c",
}


def ratios(times: dict[str, dict[str, float | None]], baseline: str, key: str) -> list:
    """``key``'s time over the baseline's for every op (None where either is missing)."""
    out = []
    for cells in times.values():
        base, mine = cells.get(baseline), cells.get(key)
        out.append(mine / base if base and mine is not None else None)
    return out


def _offset(i: int, count: int) -> float:
    """Where the ``i``-th of ``count`` bars sits within an op's row."""
    return (i - (count - 1) / 2) * _bar_height(count)


def _bar_height(count: int) -> float:
    return 0.8 / max(count, 1)


def _draw_bars(ax: Any, data: dict[str, Any], doc: dict[str, Any], keys: list[str]) -> None:
    """One bar per op and contestant, growing from the 1x line (left is faster)."""
    labels = {k: v["label"] for k, v in doc["contestants"].items()}
    for i, key in enumerate(keys):
        values = ratios(data["times"], doc["baseline"], key)
        shown = [(j + _offset(i, len(keys)), v) for j, v in enumerate(values) if v]
        if shown:
            ax.barh(
                [y for y, _ in shown],
                [v - 1 for _, v in shown],
                height=_bar_height(len(keys)),
                left=1,
                color=COLORS.get(key),
                label=labels.get(key, key),
            )
    ops = list(data["times"])
    for op, cells in data.get("errors", {}).items():
        for key in cells:
            if key in keys and op in ops:
                y = ops.index(op) + _offset(keys.index(key), len(keys))
                ax.text(1.02, y, f"{labels.get(key, key)}: error", va="center", fontsize=6)


def _decorate(ax: Any, name: str, data: dict[str, Any], doc: dict[str, Any]) -> None:
    ops = list(data["times"])
    base = doc["contestants"].get(doc["baseline"], {}).get("label", doc["baseline"])
    machine = doc["machine"]
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(ops)), ops)
    ax.set_ylim(len(ops) - 0.5, -0.5)
    ax.set_xlabel(f"time / {base} time (log scale; < 1 is faster)")
    ax.set_title(
        f"{name}: {data['n']:,} strings ({data['description']})\n"
        f"numpy {machine['numpy']}, {machine['cpu']}, {machine['cores']} cores",
        fontsize=10,
    )
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="best", fontsize=8)


def plot_dataset(
    name: str, data: dict[str, Any], doc: dict[str, Any], keys: list[str], out: Path
) -> Path:
    """Draw one data set's chart of ratios to the baseline and save it as a PNG."""
    height = 1.6 + len(data["times"]) * (0.12 + 0.05 * len(keys))
    fig, ax = plt.subplots(figsize=(9, height))
    _draw_bars(ax, data, doc, keys)
    _decorate(ax, name, data, doc)
    fig.tight_layout()
    path = out / f"bench_{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def contestants_to_plot(doc: dict[str, Any], wanted: list[str] | None) -> list[str]:
    """Every available contestant but the baseline, or those asked for."""
    keys = [k for k, v in doc["contestants"].items() if v["available"]]
    keys = [k for k in keys if k != doc["baseline"]]
    return [k for k in keys if k in wanted] if wanted else keys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", type=Path, help="JSON from stringdtype.bench --json")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="PNG directory")
    p.add_argument("--contestants", help="comma-separated contestants to draw")
    args = p.parse_args(argv)
    doc = json.loads(args.results.read_text(encoding="utf-8"))
    if not str(doc.get("schema", "")).startswith("stringdtype-bench/"):
        p.error(f"{args.results} is not stringdtype.bench JSON")
    wanted = args.contestants.split(",") if args.contestants else None
    keys = contestants_to_plot(doc, wanted)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in doc["datasets"].items():
        print(plot_dataset(name, data, doc, keys, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
