"""Turning whatever pandas hands the column into its backing array, and back to Arrow.

The backing array is a NumPy array of ``StringDType(na_object=np.nan)``. Arrays of this
package's dtype, NumPy ``U`` arrays and Arrow string arrays convert without a Python
object per element; everything else goes through pandas' own ``ensure_string_array``,
so that ``None``, ``pd.NA`` and ``NaN`` become missing and other values ``str(value)``,
as for pandas' ``str`` dtype.
"""

import numpy as np
from pandas._libs import lib
from pandas.api.types import is_list_like

from .._core import StringDType, from_arrow, to_arrow

try:
    import pyarrow as pa
except ImportError:  # pyarrow is optional: the conversions below then go through objects
    pa = None

#: The dtype of every backing array.
BACKING = StringDType(na_object=np.nan)


def is_backing(values):
    return isinstance(values, np.ndarray) and values.dtype == BACKING


def _is_arrow_string(arrow_type):
    types = pa.types
    if types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    checks = (types.is_string, types.is_large_string, getattr(types, "is_string_view", None))
    return any(check is not None and check(arrow_type) for check in checks)


def _arrow_data(values):
    """The Arrow data behind ``values`` if they are Arrow strings, else ``None``."""
    if pa is None:
        return None
    data = getattr(values, "_pa_array", values)  # pandas' Arrow-backed arrays
    if isinstance(data, (pa.Array, pa.ChunkedArray)) and _is_arrow_string(data.type):
        return data
    return None


def from_arrow_strings(data):
    if isinstance(data, pa.ChunkedArray) and data.num_chunks == 0:
        return np.array([], dtype=BACKING)
    return from_arrow(data, na_object=np.nan)


def _from_objects(values, strict):
    values = np.array(values, dtype=object, copy=True)
    if strict and len(values) and not lib.is_string_array(values.ravel(), skipna=True):
        raise TypeError(
            "Invalid value for dtype 'stringdtype'. Value should be a string or missing "
            "value (or array of those)."
        )
    if values.ndim == 1:
        values = lib.ensure_string_array(values, na_value=np.nan, copy=False)
    else:
        flat = lib.ensure_string_array(values.ravel(), na_value=np.nan, copy=False)
        values = flat.reshape(values.shape)
    return values.astype(BACKING)


def to_backing(values, *, copy=False, strict=False):
    """A backing array holding ``values`` (strings, NA-likes, arrays of them).

    ``strict`` refuses values that are not strings or missing (``TypeError``), as
    pandas' string arrays do on assignment; otherwise they become ``str(value)``.
    """
    from ._array import StringDTypeArray

    if isinstance(values, StringDTypeArray):
        return values._ndarray.copy() if copy else values._ndarray
    values = getattr(values, "array", values)  # Series and Index
    if isinstance(values, StringDTypeArray):
        return values._ndarray.copy() if copy else values._ndarray
    if isinstance(values, np.ndarray):
        if is_backing(values):
            return values.copy() if copy else values
        if isinstance(values.dtype, StringDType) or values.dtype.kind == "U":
            return values.astype(BACKING)
        return _from_objects(values, strict)
    arrow = _arrow_data(values)
    if arrow is not None:
        return from_arrow_strings(arrow)
    codes = getattr(values, "codes", None)
    if codes is not None and hasattr(values, "categories"):  # a Categorical
        categories = to_backing(values.categories, strict=strict)
        result = categories.take(np.maximum(codes, 0))
        result[codes < 0] = np.nan
        return result
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy(dtype=object, na_value=np.nan)
    elif not is_list_like(values):
        raise TypeError(f"expected a sequence of strings, not {type(values).__name__}")
    return _from_objects(values, strict)


def to_arrow_array(backing, arrow_type=None):
    """A pyarrow array of ``backing`` (1-D): string_view sharing its bytes, or
    ``arrow_type`` when one is asked for."""
    result = pa.array(to_arrow(backing))
    if arrow_type is not None and result.type != arrow_type:
        result = result.cast(arrow_type)
    return result
