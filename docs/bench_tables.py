"""Markdown tables for docs/performance.md from the JSON of ``python -m stringdtype.bench``.

Usage::

    python docs/bench_tables.py bench.json [--before B1.json ... [--after A2.json ...]] > tables.md

Prints, for the run in ``bench.json``: every operation against the performance targets
(ratio to NumPy's StringDType, to NumPy's ``U`` for indexing, to the faster of pyarrow
and polars where they have the operation), the regular-expression rows against Python's
``re`` and the peers, the Arrow rows against their memcpy yardsticks, and memory. With
``--before`` (runs of the previous build, any subset of contestants), a table of this
package's times before and after, each the best over the runs given (``--after`` adds
runs of this build to ``bench.json``'s): interleaved runs damp a noisy machine. The
JSON schema is described in docs/plot_bench.py.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

# Operations whose target against NumPy's StringDType is 0.2x (all others: 0.5x).
STRICT = {
    "str_len", "startswith", "strip", "lstrip", "rstrip", "strip_chars", "find", "count",
    "replace", "isalpha", "isdigit", "isspace", "isalnum", "isdecimal", "isnumeric",
    "islower", "isupper", "istitle",
}  # fmt: skip
# Operations measured against NumPy's `U` (no slower than it).
AGAINST_U = {"take", "take_mask", "assign_perm"}
# Operations the faster of pyarrow and polars sets the bar for, where they have them.
AGAINST_PEERS = {
    "create", "astype_object", "add", "add_scalar", "multiply_3", "eq_scalar", "lt_array",
    "strip", "lstrip", "rstrip", "find", "count", "replace", "upper", "lower", "swapcase",
    "capitalize", "title", "casefold", "str_len", "startswith", "endswith", "isalpha",
    "isdigit", "isspace", "isalnum", "isdecimal", "isnumeric", "islower", "isupper",
    "istitle", "sort", "argsort", "unique", "unique_unsorted", "from_U", "slice",
}  # fmt: skip
# Rows that are not operations of their own.
NOT_TARGETS = {"memcpy_views", "memcpy_arrow", "to_arrow", "from_arrow", "from_arrow_view"}
PEERS = ("pyarrow", "polars")
OURS, BASE = "stringdtype", "numpy"
MISS = " ✗"


def ms(seconds: float | None) -> str:
    """A time in milliseconds with three significant digits."""
    return "—" if seconds is None else f"{seconds * 1e3:.3g} ms"


def ratio(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None or y == 0 else x / y


def fmt(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}x"


def over(r: float | None, limit: float) -> str:
    """The miss mark when the ratio ``r`` is over its target ``limit``."""
    return MISS if r is not None and r > limit else ""


def marked(r: float | None, limit: float) -> str:
    """A ratio, marked when it is over its target."""
    return fmt(r) + over(r, limit)


def faster_peer(times: dict[str, float | None]) -> float | None:
    found = [times.get(k) for k in PEERS if times.get(k) is not None]
    return min(found) if found else None


def target_table(doc: dict[str, Any]) -> list[str]:
    names = list(doc["datasets"])
    lines = [
        "| op | " + " | ".join(names) + " | target | vs `U` | vs faster peer |",
        "| --- | " + " | ".join("---" for _ in names) + " | --- | --- | --- |",
    ]
    for op in doc["ops"]:
        if op in NOT_TARGETS or op.startswith(("re_", "split")):
            continue
        limit = 0.2 if op in STRICT else 0.5
        cells, u_cells, peer_cells = [], [], []
        for name in names:
            times = doc["datasets"][name]["times"].get(op, {})
            ours = times.get(OURS)
            r = ratio(ours, times.get(BASE))
            cells.append(f"{ms(ours)} ({fmt(r)}){over(r, limit)}")
            if op in AGAINST_U:
                ru = ratio(ours, times.get("U"))
                u_cells.append(marked(ru, 1))
            if op in AGAINST_PEERS:
                rp = ratio(ours, faster_peer(times))
                if rp is not None:
                    peer_cells.append(marked(rp, 1))
        lines.append(
            f"| {op} | "
            + " | ".join(cells)
            + f" | ≤{limit}x | {' / '.join(u_cells)} | {' / '.join(peer_cells)} |"
        )
    return lines


def regex_table(doc: dict[str, Any]) -> list[str]:
    lines = [
        (
            "| op | set | stringdtype | Python `re` loop | pyarrow | polars | vs `re` (≤0.1x) "
            "| vs faster peer (≤1x) |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for op in doc["ops"]:
        if not op.startswith(("re_", "split")):
            continue
        for name, data in doc["datasets"].items():
            t = data["times"].get(op, {})
            ours = t.get(OURS)
            rr, rp = ratio(ours, t.get("object")), ratio(ours, faster_peer(t))
            lines.append(
                f"| {op} | {name} | {ms(ours)} | {ms(t.get('object'))} | {ms(t.get('pyarrow'))} "
                f"| {ms(t.get('polars'))} | {marked(rr, 0.1)} "
                f"| {marked(rp, 1)} |"
            )
    return lines


def arrow_table(doc: dict[str, Any]) -> list[str]:
    lines = [
        (
            "| set | from_arrow | from_arrow_view | memcpy of the buffers | vs memcpy (≤2x) "
            "| NumPy's path (via object) | vs NumPy (≤0.05x) | to_arrow | memcpy of the views |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, data in doc["datasets"].items():
        t = data["times"]
        ours = t.get("from_arrow", {}).get(OURS)
        memcpy = t.get("memcpy_arrow", {}).get(OURS)
        numpy = t.get("from_arrow", {}).get(BASE)
        rm, rn = ratio(ours, memcpy), ratio(ours, numpy)
        lines.append(
            f"| {name} | {ms(ours)} | {ms(t.get('from_arrow_view', {}).get(OURS))} "
            f"| {ms(memcpy)} | {marked(rm, 2)} | {ms(numpy)} "
            f"| {marked(rn, 0.05)} "
            f"| {ms(t.get('to_arrow', {}).get(OURS))} "
            f"| {ms(t.get('memcpy_views', {}).get(OURS))} |"
        )
    return lines


def memory_table(doc: dict[str, Any]) -> list[str]:
    keys = list(doc["contestants"])
    labels = [doc["contestants"][k]["label"] for k in keys]
    lines = [
        "| set | UTF-8 payload | " + " | ".join(labels) + " | ours / (views + payload) |",
        "| --- | --- | " + " | ".join("---" for _ in keys) + " | --- |",
    ]
    for name, data in doc["datasets"].items():
        mem = data["memory"]
        held = [mem.get(k, {}).get("bytes") for k in keys]
        bound = 16 * data["n"] + data["utf8_bytes"]
        ours = mem.get(OURS, {}).get("bytes")
        r = ratio(ours, bound)
        lines.append(
            f"| {name} | {data['utf8_bytes'] / 1e6:.1f} MB | "
            + " | ".join("—" if b is None else f"{b / 1e6:.1f} MB" for b in held)
            + f" | {marked(r, 1.3)} |"
        )
    return lines


def best_times(docs: list[dict[str, Any]]) -> dict[tuple[str, str], float]:
    """This package's best time per (data set, op) over several runs of one build."""
    best: dict[tuple[str, str], float] = {}
    for doc in docs:
        for name, data in doc["datasets"].items():
            for op, times in data["times"].items():
                t = times.get(OURS)
                if isinstance(t, (int, float)):
                    best[name, op] = min(t, best.get((name, op), t))
    return best


def before_after_table(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    names = [n for n in after[0]["datasets"] if all(n in b["datasets"] for b in before)]
    old_best, new_best = best_times(before), best_times(after)
    lines = [
        "| op | " + " | ".join(f"{n} before | {n} after | {n} after/before" for n in names) + " |",
        "| --- | " + " | ".join("--- | --- | ---" for _ in names) + " |",
    ]
    for op in after[0]["ops"]:
        cells = []
        for name in names:
            old, new = old_best.get((name, op)), new_best.get((name, op))
            cells.append(f"{ms(old)} | {ms(new)} | {fmt(ratio(new, old))}")
        lines.append(f"| {op} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", type=Path, help="JSON from stringdtype.bench --json")
    p.add_argument(
        "--before", type=Path, nargs="+", help="JSON of the previous build, for before/after"
    )
    p.add_argument(
        "--after", type=Path, nargs="*", default=[], help="more runs of this build (best of)"
    )
    args = p.parse_args(argv)
    doc = json.loads(args.results.read_text())
    sections = [
        ("Against the targets", target_table(doc)),
        ("Regular expressions and split", regex_table(doc)),
        ("Arrow", arrow_table(doc)),
        ("Memory", memory_table(doc)),
    ]
    if args.before:
        before = [json.loads(path.read_text()) for path in args.before]
        after = [doc] + [json.loads(path.read_text()) for path in args.after]
        sections.append(("Before and after", before_after_table(before, after)))
    for title, lines in sections:
        print(f"### {title}\n")
        print("\n".join(lines))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
