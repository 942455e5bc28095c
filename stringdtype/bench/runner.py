"""Running one data set: every operation of every contestant, one operation at a time.

Every contestant's containers are made first (their memory measured on the way); then
each operation is timed for every contestant in turn, so that the times of one row are
taken seconds apart on a machine whose speed drifts over minutes. The baseline runs
first in each row and records its results, which the checked contestants must match.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from .contestants import BASELINE, CHECKED, Contestant, measure_memory, prepare
from .datasets import DatasetSpec, Inputs, make_inputs, make_strings, utf8_bytes
from .libraries import attempt
from .operations import OPS, VIA, runnable
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
    compared with its results.
    """
    strings = make_strings(spec)
    shared = make_inputs(spec, strings)
    times: dict[str, dict[str, Timing]] = {op: {} for op in ops}
    memory: dict[str, dict[str, Any]] = {}
    expected: dict[str, Any] = {}
    prepared: dict[str, Inputs] = {}
    for contestant in sorted(contestants, key=lambda c: c.key != BASELINE):
        progress(f"{spec.name}: {contestant.key}")
        d, error = attempt(prepare, contestant, shared)
        if error is not None:
            for op in ops:
                if runnable(op, contestant.key):
                    times[op][contestant.key] = Timing(error=f"creation failed: {error}")
            continue
        memory[contestant.key] = measure_memory(contestant, d)
        prepared[contestant.key] = d
    for op in ops:
        for key, d in prepared.items():
            if runnable(op, key):
                times[op][key] = _time_op(op, key, d, repeat, budget, expected)
    prepared.clear()
    yardstick = time_call(lambda d: np.copy(d.views), shared, repeat, budget)
    return DatasetResult(spec, len(strings), utf8_bytes(strings), times, memory, yardstick.best)


def _time_op(
    op: str, key: str, d: Inputs, repeat: int, budget: float, expected: dict[str, Any]
) -> Timing:
    """Time one cell; the baseline records its results, CHECKED contestants match them."""

    def summary(out: Any) -> Any:
        return fingerprint(VIA[op](d, out) if op in VIA else out)

    def record(out: Any) -> None:
        expected[op] = summary(out)

    def compare(out: Any) -> str | None:
        return mismatch(summary(out), expected[op]) if op in expected else None

    checks = {BASELINE: record, **dict.fromkeys(CHECKED, compare)}
    return time_call(OPS[op][key], d, repeat, budget, checks.get(key, lambda out: None))
