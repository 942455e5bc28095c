"""How a row of the operations table is written: one function per contestant.

A row maps contestant keys to ``Op``s, functions of the data set's ``Inputs``; a
contestant missing from a row lacks the operation (``n/a``).  ``row`` fills the four
NumPy arrays at once, ``strings_row`` covers an ``np.strings`` function.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import Inputs

Op = Callable[[Inputs], Any]
NUMPY_ARRAYS = ("stringdtype", "numpy", "U", "object")


def row(arrays: Op | None = None, **others: Op | None) -> dict[str, Op]:
    """One table row: ``arrays`` for all four NumPy arrays, then per-key overrides.

    An override of ``None`` removes a contestant (it lacks the operation: n/a).
    """
    cells: dict[str, Op | None] = dict.fromkeys(NUMPY_ARRAYS, arrays)
    cells.update(others)
    return {key: fn for key, fn in cells.items() if fn is not None}


def pymap(method: str, *args: Any, dtype: Any = object) -> Op:
    """A Python loop calling ``str.<method>(*args)`` on each element of ``d.a``."""
    call = operator.methodcaller(method, *args)
    return lambda d: np.fromiter(map(call, d.a.tolist()), dtype=dtype, count=len(d.a))


def strings_row(
    name: str, *args: Any, result: Any = object, py: str | None = None, **others: Op
) -> dict[str, Op]:
    """A row for ``np.strings.<name>(a, *args)``, with ``object`` as a Python loop."""
    fn = getattr(np.strings, name)
    return row(
        lambda d: fn(d.a, *args),
        object=pymap(py or name, *args, dtype=result),
        **others,
    )
