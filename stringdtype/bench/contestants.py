"""The six contestants: how each builds its container and counts the bytes it holds.

``BASELINE`` (NumPy's StringDType) is the contestant every ratio divides by; the results
of the contestants in ``CHECKED`` must match the baseline's.  ``per_thread_count`` makes
the contestants in ``THREADED`` appear once per thread count (``stringdtype@2``).
"""

from __future__ import annotations

import dataclasses
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import Inputs
from .libraries import SD_IMPORT_ERROR, SDType, attempt, pa, pl, sd

BASELINE = "numpy"
CHECKED = ("stringdtype",)  # contestants whose results must match the baseline's
THREADED = ("stringdtype", "polars")  # contestants whose thread count can be chosen


# The bytes a contestant's array ``d.a`` holds, and how they were counted.
Memory = Callable[[Inputs], tuple[int, str]]


@dataclasses.dataclass(frozen=True)
class Contestant:
    """A string container: what it is called, how to build it and to count its bytes."""

    key: str
    label: str
    make: Callable[[list[str]], Any]
    memory: Memory
    dtype: Any = None
    available: bool = True
    note: str = ""
    threads: int | None = None  # the thread count it runs with; None: its own default

    @property
    def library(self) -> str:
        """The key of its cells in the rows of ``OPS``: ``polars`` for ``polars@2``."""
        return self.key.partition("@")[0]


def _numpy_traced(d: Inputs) -> tuple[int, str]:
    """NumPy StringDType: a.nbytes cannot see the arena; measure with tracemalloc."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        arr = np.array(d.strings, dtype=d.dtype)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del arr
    return held, f"tracemalloc delta around creation (a.nbytes = {d.a.nbytes:,})"


def _stringdtype_memory(d: Inputs) -> tuple[int, str]:
    if hasattr(sd, "memory_usage"):
        return int(sd.memory_usage(d.a)), "stringdtype.memory_usage(a)"
    return d.a.nbytes, "a.nbytes (views only: no stringdtype.memory_usage)"


def _object_memory(d: Inputs) -> tuple[int, str]:
    unique = {id(s): s for s in d.a.tolist()}.values()
    return d.a.nbytes + sum(map(sys.getsizeof, unique)), "nbytes + sys.getsizeof(strs)"


def _nbytes(d: Inputs) -> tuple[int, str]:
    return d.a.nbytes, "nbytes"


def _numpy_contestant(
    key: str, label: str, dtype: Any, memory: Memory, note: str = ""
) -> Contestant:
    return Contestant(key, label, lambda s: np.array(s, dtype=dtype), memory, dtype, note=note)


def all_contestants() -> list[Contestant]:
    """All contestants, those that cannot be imported marked unavailable."""
    sd_dtype, sd_error = attempt(SDType) if sd else (None, SD_IMPORT_ERROR)
    return [
        dataclasses.replace(
            _numpy_contestant("stringdtype", "stringdtype", sd_dtype, _stringdtype_memory),
            available=sd_error is None,
            note="" if sd_error is None else f"not usable ({sd_error})",
        ),
        _numpy_contestant("numpy", "np StringDType", np.dtypes.StringDType(), _numpy_traced),
        _numpy_contestant("U", "U", str, _nbytes),
        _numpy_contestant(
            "object",
            "object*",
            object,
            _object_memory,
            "* str methods as a Python loop per element",
        ),
        Contestant(
            "pyarrow",
            "pyarrow",
            lambda s: pa.array(s, type=pa.string()),
            _nbytes,
            available=pa is not None,
            note="" if pa else "pyarrow not importable",
        ),
        Contestant(
            "polars",
            "polars",
            lambda s: pl.Series(s, dtype=pl.String),
            lambda d: (d.a.estimated_size(), "estimated_size()"),
            available=pl is not None,
            note="" if pl else "polars not importable",
        ),
    ]


def per_thread_count(contestants: list[Contestant], counts: list[int]) -> list[Contestant]:
    """Each contestant in ``THREADED`` once per thread count, the others once."""
    pinnable = hasattr(getattr(sd, "_core", None), "_set_pool_threads")
    out = []
    for c in contestants:
        if c.key not in THREADED:
            out.append(c)
            continue
        for n in counts:
            key = f"{c.key}@{n}"
            out.append(dataclasses.replace(c, key=key, label=key, threads=n))
            if c.key == "stringdtype" and c.available and not pinnable:
                out[-1] = dataclasses.replace(out[-1], available=False, note="no thread pool")
    return out


def prepare(contestant: Contestant, shared: Inputs) -> Inputs:
    """The contestant's own arrays (``a`` and the rotated ``b``) over ``shared``."""
    return dataclasses.replace(
        shared,
        a=contestant.make(shared.strings),
        b=contestant.make(shared.rotated),
        dtype=contestant.dtype,
    )


def measure_memory(contestant: Contestant, d: Inputs) -> dict[str, Any]:
    """``{"bytes", "method"}`` of the contestant's array; an error leaves bytes None."""
    measured, error = attempt(contestant.memory, d)
    if error is not None:
        return {"bytes": None, "method": f"error: {error}"}
    held, method = measured
    return {"bytes": int(held), "method": method}
