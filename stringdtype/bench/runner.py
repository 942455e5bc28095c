"""Running one data set: every operation of every contestant, one operation at a time.

Every contestant's containers are made first (their memory measured on the way); then
each operation is timed for every contestant in turn, so that the times of one row are
taken seconds apart on a machine whose speed drifts over minutes. The baseline runs
first in each row and records its results, which the checked contestants must match.
With ``--threads``, ``stringdtype@n`` runs each cell with its pool at ``n`` threads and
``polars@n`` is timed in a child process at its row's turn (``threads``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .contestants import BASELINE, CHECKED, Contestant, measure_memory, prepare
from .datasets import DatasetSpec, Inputs, make_inputs, make_strings, utf8_bytes
from .libraries import attempt
from .operations import OPS, VIA, runnable
from .threads import Child, in_child, pinned
from .timing import Timing, fingerprint, mismatch, time_call


@dataclasses.dataclass
class DatasetResult:
    """Everything measured on one data set."""

    spec: DatasetSpec
    n: int
    utf8_bytes: int
    times: dict[str, dict[str, Timing]]  # op -> contestant -> timing
    memory: dict[str, dict[str, Any]]  # contestant -> {"bytes", "method"}
    memcpy_views: float | None


def run_dataset(
    spec: DatasetSpec,
    contestants: list[Contestant],
    ops: list[str],
    repeat: int,
    budget: float,
    progress: Callable[[str], None],
) -> DatasetResult:
    """Time every op of every contestant on one data set, one op at a time.

    The baseline goes first in each row, so that the contestants in ``CHECKED`` can be
    compared with its results.  ``polars@n`` is timed in a child process (``threads``),
    started first so that it builds its data while this process builds its own.
    """
    order = sorted(contestants, key=lambda c: c.key != BASELINE)
    children = {c.key: Child(c, spec) for c in order if in_child(c)}
    try:
        return _run(spec, order, children, ops, repeat, budget, progress)
    finally:
        for child in children.values():
            child.close()


def _run(
    spec: DatasetSpec,
    order: list[Contestant],
    children: dict[str, Child],
    ops: list[str],
    repeat: int,
    budget: float,
    progress: Callable[[str], None],
) -> DatasetResult:
    strings = make_strings(spec)
    shared = make_inputs(spec, strings)
    times: dict[str, dict[str, Timing]] = {op: {} for op in ops}
    memory: dict[str, dict[str, Any]] = {}
    expected: dict[str, Any] = {}
    timers: dict[str, Callable[[str], Timing]] = {}  # contestant -> op -> its timing
    for contestant in order:
        key = contestant.key
        progress(f"{spec.name}: {key}")
        if key in children:
            held, error = children[key].ready()
            timer = functools.partial(children[key].time, repeat=repeat, budget=budget)
        else:
            d, error = attempt(prepare, contestant, shared)
            held = None if error else measure_memory(contestant, d)
            timer = functools.partial(
                _time_op,
                contestant=contestant,
                d=d,
                repeat=repeat,
                budget=budget,
                expected=expected,
            )
        if error is not None:
            for op in ops:
                if runnable(op, contestant.library):
                    times[op][key] = Timing(error=f"creation failed: {error}")
            continue
        memory[key] = held
        timers[key] = timer
    for op in ops:
        for contestant in order:
            if contestant.key in timers and runnable(op, contestant.library):
                times[op][contestant.key] = timers[contestant.key](op)
    timers.clear()
    yardstick = time_call(lambda d: np.copy(d.views), shared, repeat, budget)
    return DatasetResult(spec, len(strings), utf8_bytes(strings), times, memory, yardstick.best)


def _time_op(
    op: str,
    contestant: Contestant,
    d: Inputs,
    repeat: int,
    budget: float,
    expected: dict[str, Any],
) -> Timing:
    """Time one cell; the baseline records its results, CHECKED contestants match them.

    ``stringdtype@n`` and ``stringdtype`` alike are checked (``contestant.library``).
    """

    def summary(out: Any) -> Any:
        return fingerprint(VIA[op](d, out) if op in VIA else out)

    def record(out: Any) -> None:
        expected[op] = summary(out)

    def compare(out: Any) -> str | None:
        return mismatch(summary(out), expected[op]) if op in expected else None

    checks = {BASELINE: record, **dict.fromkeys(CHECKED, compare)}
    check = checks.get(contestant.library, lambda out: None)
    with pinned(contestant):
        return time_call(OPS[op][contestant.library], d, repeat, budget, check)
