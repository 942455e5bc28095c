"""The table of operations: every row, in the order of the printed table.

``OPS`` joins the groups of rows (array basics, string functions, ordering, Arrow
interchange); a new group goes in its own module and joins ``OPS`` here.  Beside the
table: what an op needs beyond the contestant's array, the notes printed under the
header, and the results that are compared through a transformation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .datasets import Inputs
from .libraries import pa, pc, pl, sd
from .regex_ops import REGEX_NOTES, REGEX_OPS, REGEX_VIA
from .rows import Op, row
from .string_ops import STRING_OPS

NUMPY_T = np.dtypes.StringDType()


def _pa_sort(d: Inputs) -> Any:
    return pc.take(d.a, pc.array_sort_indices(d.a))


def _copy_buffers(array: Any) -> list[np.ndarray]:
    """A copy of every buffer of a pyarrow array, as NumPy byte arrays."""
    return [np.copy(np.frombuffer(b, np.uint8)) for b in array.buffers() if b is not None]


def _assign_permuted(d: Inputs) -> Any:
    """``target[perm] = a`` into a target array made once per contestant (untimed)."""
    target = d.__dict__.setdefault("_target", d.a.copy())
    target[d.perm] = d.a
    return target


def _unique_unsorted() -> dict[str, Op]:
    """``np.unique(a, sorted=False)``; an empty row where NumPy lacks ``sorted``."""
    if "sorted" not in inspect.signature(np.unique).parameters:
        return {}
    return row(
        lambda d: np.unique(d.a, sorted=False),
        pyarrow=lambda d: pc.unique(d.a),
        polars=lambda d: d.a.unique(maintain_order=False),
    )


def _pl_arrow_view(d: Inputs) -> Any:
    return d.series.to_arrow(compat_level=pl.CompatLevel.newest())


# Creation, conversion, copy, indexing and comparison.
ARRAY_OPS: dict[str, dict[str, Op]] = {
    "create": row(
        lambda d: np.array(d.strings, dtype=d.dtype),
        pyarrow=lambda d: pa.array(d.strings, type=pa.string()),
        polars=lambda d: pl.Series(d.strings, dtype=pl.String),
    ),
    "astype_object": row(
        lambda d: d.a.astype(object),
        pyarrow=lambda d: d.a.to_numpy(zero_copy_only=False),
        polars=lambda d: d.a.to_numpy(),
    ),
    "copy": row(lambda d: d.a.copy()),
    "take": row(
        lambda d: d.a[d.perm],
        pyarrow=lambda d: pc.take(d.a, d.perm),
        polars=lambda d: d.a.gather(d.perm),
    ),
    "take_mask": row(
        lambda d: d.a[d.mask],
        pyarrow=lambda d: pc.filter(d.a, d.mask),
        polars=lambda d: d.a.filter(d.mask),
    ),
    "assign_perm": row(_assign_permuted),
    "from_U": row(
        lambda d: d.fixed.astype(d.dtype),
        U=None,
        pyarrow=lambda d: pa.array(d.fixed, type=pa.string()),
        polars=lambda d: pl.Series(d.fixed, dtype=pl.String),
    ),
    "astype_U": row(
        lambda d: d.a.astype(d.fixed.dtype),
        U=None,
        pyarrow=lambda d: d.a.to_numpy(zero_copy_only=False).astype(d.fixed.dtype),
        polars=lambda d: d.a.to_numpy().astype(d.fixed.dtype),
    ),
    # NumPy's own StringDType and back; the `_object` rows are the path without a cast
    # between the two (through Python objects), for this package only.
    "to_numpy_T": row(lambda d: d.a.astype(NUMPY_T)),
    "to_numpy_T_object": row(stringdtype=lambda d: d.a.astype(object).astype(NUMPY_T)),
    "from_numpy_T": row(
        lambda d: d.numpy_t.astype(d.dtype),
        U=lambda d: d.numpy_t.astype(d.fixed.dtype),
    ),
    "from_numpy_T_object": row(
        stringdtype=lambda d: d.numpy_t.astype(object).astype(d.dtype),
    ),
    "eq_scalar": row(
        lambda d: d.a == d.scalar,
        pyarrow=lambda d: pc.equal(d.a, d.scalar),
        polars=lambda d: d.a == d.scalar,
    ),
    "lt_array": row(
        lambda d: d.a < d.b,
        pyarrow=lambda d: pc.less(d.a, d.b),
        polars=lambda d: d.a < d.b,
    ),
}

# Sorting, distinct values and reductions.
ORDER_OPS: dict[str, dict[str, Op]] = {
    "sort": row(
        lambda d: np.sort(d.a),
        pyarrow=_pa_sort,
        polars=lambda d: d.a.sort(),
    ),
    "argsort": row(
        lambda d: np.argsort(d.a),
        pyarrow=lambda d: pc.array_sort_indices(d.a),
        polars=lambda d: d.a.arg_sort(),
    ),
    "unique": row(
        lambda d: np.unique(d.a),
        pyarrow=lambda d: pc.unique(d.a),
        polars=lambda d: d.a.unique(),
    ),
    "unique_unsorted": _unique_unsorted(),
    "max": row(
        lambda d: np.max(d.a),
        U=None,  # NumPy has no maximum loop for U
        pyarrow=lambda d: pc.max(d.a),
        polars=lambda d: d.a.max(),
    ),
    "min": row(
        lambda d: np.min(d.a),
        U=None,  # NumPy has no minimum loop for U
        pyarrow=lambda d: pc.min(d.a),
        polars=lambda d: d.a.min(),
    ),
    "argmax": row(
        lambda d: np.argmax(d.a),
        polars=lambda d: d.a.arg_max(),
    ),
}

# Conversions to and from Arrow and polars.
ARROW_OPS: dict[str, dict[str, Op]] = {
    "to_arrow": row(
        stringdtype=lambda d: pa.array(sd.to_arrow(d.a)),
        numpy=lambda d: pa.array(d.a.astype(object)),
        U=lambda d: pa.array(d.a),
        object=lambda d: pa.array(d.a, type=pa.string()),
        polars=lambda d: d.a.to_arrow(),
    ),
    "from_arrow": row(
        stringdtype=lambda d: sd.from_arrow(d.arrow),
        numpy=lambda d: d.arrow.to_numpy(zero_copy_only=False).astype(d.dtype),
        U=lambda d: d.arrow.to_numpy(zero_copy_only=False).astype(str),
        object=lambda d: d.arrow.to_numpy(zero_copy_only=False),
        polars=lambda d: pl.from_arrow(d.arrow),
    ),
    "from_arrow_view": row(
        stringdtype=lambda d: sd.from_arrow(d.arrow_view),
        numpy=lambda d: d.arrow_view.to_numpy(zero_copy_only=False).astype(d.dtype),
        object=lambda d: d.arrow_view.to_numpy(zero_copy_only=False),
        polars=lambda d: pl.from_arrow(d.arrow_view),
    ),
    "from_polars": row(
        stringdtype=lambda d: sd.from_arrow(_pl_arrow_view(d)),
        numpy=lambda d: d.series.to_numpy().astype(d.dtype),
        object=lambda d: d.series.to_numpy(),
        polars=lambda d: d.a.to_numpy(),
    ),
    # Yardsticks for the Arrow rows, in the stringdtype column: what to_arrow and
    # from_arrow_view cannot beat (a copy of the bytes they must write).
    "memcpy_views": row(stringdtype=lambda d: np.copy(d.views)),
    "memcpy_arrow": row(stringdtype=lambda d: _copy_buffers(d.arrow_view)),
}

# An empty row is an op this NumPy lacks.
OPS: dict[str, dict[str, Op]] = {
    name: cells
    for name, cells in {**ARRAY_OPS, **STRING_OPS, **REGEX_OPS, **ORDER_OPS, **ARROW_OPS}.items()
    if cells
}

# What an op needs beyond the contestant's own array: optional modules, and the
# stringdtype function its stringdtype cell calls (n/a until the package has it).
NEEDS_MODULE = {
    "to_arrow": "pyarrow",
    "from_arrow": "pyarrow",
    "from_arrow_view": "pyarrow",
    "from_polars": "polars",
    "memcpy_arrow": "pyarrow",
}
NEEDS_SD_API = {
    **{name: "regex" for name in REGEX_OPS if name.startswith("re_")},
    "to_arrow": "to_arrow",
    "from_arrow": "from_arrow",
    "from_arrow_view": "from_arrow",
    "from_polars": "from_arrow",
}

OP_NOTES = {
    "object": "object*: str methods run as a Python loop (np.strings has no object loops)",
    "unique": "unique: pyarrow and polars hash and do not sort; NumPy sorts",
    "unique_unsorted": "unique_unsorted: np.unique(a, sorted=False); compared sorted",
    "take_mask": "take_mask: a[mask] with a random mask, about half True",
    "assign_perm": "assign_perm: target[perm] = a (pyarrow and polars: immutable, n/a)",
    "from_U": "from_U: a `U` array to the contestant's type",
    "astype_U": "astype_U: to `U` of the longest string's width (pyarrow and polars: "
    "through to_numpy)",
    "slice": "slice: a[2:8] (polars: offset 2, length 6)",
    "from_arrow": "from_arrow: from a pa.string() array (to the contestant's type)",
    "from_arrow_view": "from_arrow_view: from a pa.string_view() array",
    "from_polars": "from_polars: polars Series to a NumPy array of this kind "
    "(stringdtype: via to_arrow as string_view)",
    "memcpy_views": "memcpy_views: np.copy of a 16*n-byte array (what to_arrow must write)",
    "memcpy_arrow": "memcpy_arrow: np.copy of every buffer of the pa.string_view() array "
    "(what from_arrow_view must write)",
    "partition": "partition: sep passed as a 0-d array of the array's dtype "
    "(NumPy 2.4 lacks the (StringDType, str) loop)",
    "copy": "copy: pyarrow and polars arrays are immutable (n/a)",
    "to_numpy_T": "to_numpy_T: a.astype(np.dtypes.StringDType()); from_numpy_T: back, from "
    "an array of NumPy's StringDType; *_object: the same through astype(object)",
    **REGEX_NOTES,
}


# Results compared through a transformation: argsort may order ties either way.
VIA: dict[str, Callable[[Inputs, Any], Any]] = {
    "argsort": lambda d, out: d.a[out],
    "unique_unsorted": lambda d, out: np.sort(out),
    **REGEX_VIA,
}


def runnable(op: str, key: str) -> bool:
    """Whether ``key`` has the op and everything the op needs is importable."""
    module = NEEDS_MODULE.get(op)
    if module is not None and {"pyarrow": pa, "polars": pl}[module] is None:
        return False
    api = NEEDS_SD_API.get(op)
    if key == "stringdtype" and api is not None and not hasattr(sd, api):
        return False
    return key in OPS[op]
