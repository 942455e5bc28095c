"""Reductions (``min``, ``max``, ``sum``, ``count``, ``any``, ``all``) and accumulations
(``cummin``, ``cummax``, ``cumsum``) of a ``StringDTypeArray``, with the results of
pandas' ``str`` dtype (its NaN variant).
"""

import numpy as np

_SUPPORTED = ("min", "max", "sum", "count", "any", "all", "argmin", "argmax")
# Reductions whose result is not a string: with ``keepdims`` (DataFrame reductions) they
# give a NumPy array, as pandas' string arrays do (``bool`` for ``any``/``all``).
_NOT_STRINGS = ("count", "any", "all", "argmin", "argmax")


def _reduce_1d(values, missing, name, skipna, min_count):
    """One reduction of the 1-D backing array ``values``."""
    if name == "count":
        return int((~missing).sum())
    if name in ("any", "all"):
        truthy = np.strings.str_len(np.where(missing, "x", values)) > 0
        if skipna:
            truthy = truthy[~missing]
        return bool(truthy.any() if name == "any" else truthy.all())
    if name in ("argmin", "argmax"):
        if missing.any() and not skipna:
            raise ValueError(f"Encountered an NA value with skipna=False in {name}")
        valid = np.flatnonzero(~missing)
        if not len(valid):
            raise ValueError(f"attempt to get {name} of an empty sequence")
        choose = np.argmin if name == "argmin" else np.argmax
        return int(valid[choose(values[valid])])
    if missing.any() and not skipna:
        return np.nan
    present = values[~missing]
    if name == "sum":
        if len(present) < min_count:
            return np.nan
        return "".join(present.tolist())
    if not len(present):
        return np.nan
    return str(present.min() if name == "min" else present.max())


def reduce(array, name, *, skipna=True, keepdims=False, axis=0, min_count=0, **kwargs):
    if name not in _SUPPORTED:
        raise TypeError(f"Cannot perform reduction '{name}' with string dtype")
    values, missing = array._ndarray, array.isna()
    if values.ndim == 1 or axis is None:
        result = _reduce_1d(values.ravel(), missing.ravel(), name, skipna, min_count)
        if keepdims:
            if name in _NOT_STRINGS:
                return np.array([result])
            return type(array)._from_sequence([result])
        return result
    lines = np.moveaxis(values, axis, -1)
    line_missing = np.moveaxis(missing, axis, -1)
    results = [
        _reduce_1d(line, mask, name, skipna, min_count)
        for line, mask in zip(lines, line_missing, strict=True)
    ]
    if name in _NOT_STRINGS:
        return np.array(results)
    return type(array)._from_sequence(results)


def accumulate(array, name, *, skipna=True):
    """``cummin``, ``cummax`` or ``cumsum`` as pandas' string arrays compute them."""
    if name not in ("cummin", "cummax", "cumsum"):
        raise TypeError(f"operation '{name}' not supported for dtype '{array.dtype}'")
    values = array._ndarray.astype(object)
    missing = array.isna()
    tail = None
    if missing.any():
        if missing.all():
            return array.copy()
        if skipna:
            if name == "cumsum":
                values = np.where(missing, "", values)
            else:
                import pandas as pd

                values = pd.Series(values).ffill().bfill().to_numpy()
        else:
            first = int(np.argmax(missing))
            tail = len(values) - first
            values = values[:first]
    function = {
        "cumsum": np.cumsum,
        "cummin": np.minimum.accumulate,
        "cummax": np.maximum.accumulate,
    }[name]
    result = function(values) if len(values) else values
    if tail is not None:
        result = np.concatenate([result, np.full(tail, np.nan, dtype=object)])
    elif missing.any():
        result = np.where(missing, np.nan, result)
    return type(array)._from_sequence(result)
