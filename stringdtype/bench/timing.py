"""Timing one call, and checking its result against NumPy's StringDType.

``time_call`` takes the best of a few calls after a warm-up, within a time budget,
with the garbage collector off and the result's deallocation excluded.
``fingerprint`` summarises a result by sampled elements; ``mismatch`` says how two
summaries differ.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import Inputs
from .libraries import attempt, pa
from .rows import Op


@dataclasses.dataclass
class Timing:
    """The best time in seconds, or the error that stopped the measurement."""

    best: float | None = None
    error: str | None = None


Check = Callable[[Any], "str | None"]  # a result -> why it is wrong, or None


def _timed(fn: Op, d: Inputs) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn(d)
    return time.perf_counter() - start, out  # the caller frees out: not timed


def _best_of(fn: Op, d: Inputs, repeat: int, budget: float, check: Check) -> Timing:
    best, out = _timed(fn, d)  # the warm-up, where a missing kernel raises
    wrong = check(out)
    del out
    if wrong is not None:
        return Timing(error=f"wrong result: {wrong}")
    if best >= budget:
        return Timing(best=best)
    best, spent = math.inf, 0.0
    for _ in range(repeat):
        elapsed, out = _timed(fn, d)
        del out
        best, spent = min(best, elapsed), spent + elapsed
        if spent > budget:
            break
    return Timing(best=best)


def time_call(
    fn: Op, d: Inputs, repeat: int, budget: float, check: Check = lambda out: None
) -> Timing:
    """Best of ``repeat`` timed calls after one warm-up, with the collector off.

    The warm-up's result goes through ``check``.  A warm-up slower than ``budget``
    seconds is itself the measurement, and the timed calls stop once they have used
    ``budget`` seconds: slow cells cost one or two calls, not ``repeat + 1``.
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        timing, error = attempt(_best_of, fn, d, repeat, budget, check)
    finally:
        if gc_was_enabled:
            gc.enable()
    return timing if error is None else Timing(error=error)


# Checking a result against the baseline's, on a sample of its elements.

SAMPLES = 101  # elements compared per result


def fingerprint(out: Any) -> Any:
    """A small comparable summary of a result: its length and sampled values."""
    if isinstance(out, tuple):
        return tuple(fingerprint(x) for x in out)
    if isinstance(out, np.generic):
        return out.item()
    if isinstance(out, np.ndarray) and out.ndim == 1:
        return len(out), out[_sample_positions(len(out))].tolist()
    if pa is not None and isinstance(out, pa.Array):  # no pc.take for string_view
        return len(out), [out[i].as_py() for i in _sample_positions(len(out)).tolist()]
    return out


def _sample_positions(n: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, SAMPLES).astype(np.intp)) if n else np.zeros(0, np.intp)


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def mismatch(got: Any, expected: Any) -> str | None:
    """None if the fingerprints agree, else a short description of the difference."""
    if got == expected:
        return None
    if isinstance(got, tuple) and isinstance(expected, tuple) and len(got) == len(expected):
        if len(got) == 2 and isinstance(got[1], list) and got[0] == expected[0]:
            for g, e in zip(got[1], expected[1], strict=True):
                if g != e:
                    return f"got {_short(g)}, NumPy StringDType gives {_short(e)}"
        for g, e in zip(got, expected, strict=True):
            if (why := mismatch(g, e)) is not None:
                return why
    return f"got {_short(got)}, NumPy StringDType gives {_short(expected)}"
