"""The pandas ExtensionDtype ``"stringdtype"`` and its ExtensionArray.

The array is pandas' ``NDArrayBackedExtensionArray`` over a NumPy array of
``StringDType(na_object=np.nan)`` (1-D, or 2-D inside DataFrame blocks), so take, copy,
reshape, concatenation and assignment are NumPy operations on that array, which run this
package's loops. Missing values follow pandas' NaN variant (the default ``str`` dtype);
see the package docstring.
"""

import numpy as np
import pandas as pd
from pandas._libs import lib
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype
from pandas.api.indexers import check_array_indexer
from pandas.core.arraylike import OpsMixin
from pandas.core.arrays._mixins import NDArrayBackedExtensionArray
from pandas.core.construction import extract_array
from pandas.core.indexers import validate_indices

from .. import strings as sds
from .._core import StringDType, _factorize, _take, memory_usage
from . import _convert, _reductions
from ._convert import BACKING, to_backing
from ._handoff import fresh_results, wrapping_result
from ._merge import merge_codes
from ._strings import StringMethodsMixin

# The comparison of each of pandas' operator names.
_COMPARISONS = {
    "eq": sds.equal,
    "ne": sds.not_equal,
    "lt": sds.less,
    "le": sds.less_equal,
    "gt": sds.greater,
    "ge": sds.greater_equal,
}

try:
    import pyarrow.compute as pc
except ImportError:  # factorizing then goes through pandas' object hash table
    pc = None


@register_extension_dtype
class StringDTypePandasDtype(ExtensionDtype):
    """pandas dtype of a string column stored as ``stringdtype.StringDType``.

    Its name is ``"stringdtype"``; it compares equal to that name and to ``"string"``
    (so ``pd.api.types.is_string_dtype`` holds), and its ``na_value`` is ``np.nan``.
    """

    name = "stringdtype"
    type = str
    kind = "O"
    na_value = np.nan
    _metadata = ()

    @classmethod
    def construct_array_type(cls):
        return StringDTypeArray

    @classmethod
    def construct_from_string(cls, string):
        if not isinstance(string, str):
            raise TypeError(f"'construct_from_string' expects a string, got {type(string)}")
        if string == cls.name:
            return cls()
        raise TypeError(f"Cannot construct a '{cls.__name__}' from '{string}'")

    def __eq__(self, other):
        if isinstance(other, str):
            return other in (self.name, "string")
        return isinstance(other, StringDTypePandasDtype)

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "StringDTypePandasDtype()"

    @property
    def _is_boolean(self):
        return False

    def _get_common_dtype(self, dtypes):
        for dtype in dtypes:
            if isinstance(dtype, StringDTypePandasDtype):
                continue
            # `U`, NumPy's StringDType (kind 'T') and this package's (kind 't').
            if isinstance(dtype, np.dtype) and (
                dtype.kind in "UT" or isinstance(dtype, StringDType)
            ):
                continue
            if isinstance(dtype, pd.StringDtype):
                continue
            return None
        return self

    def __from_arrow__(self, array):
        data = _convert._arrow_data(array)
        if data is not None:
            return StringDTypeArray(_convert.from_arrow_strings(data))
        return StringDTypeArray._from_sequence(array.to_pylist())


_DTYPE = StringDTypePandasDtype()


def _is_our_numpy_dtype(dtype):
    return isinstance(dtype, StringDType) or dtype is StringDType


class StringDTypeArray(OpsMixin, NDArrayBackedExtensionArray, StringMethodsMixin):
    """A pandas ExtensionArray of strings stored in a ``StringDType(na_object=np.nan)``
    NumPy array (``_ndarray``), with pandas' ``str`` (NaN) missing-value semantics."""

    _internal_fill_value = np.nan
    __array_priority__ = 1000
    # Above pandas' own arrays (1000): in ``str_series + this``, pandas' Arrow-backed
    # array defers to this one, whose loops take Arrow string views.
    __pandas_priority__ = 1001

    def __init__(self, values, dtype=None, copy=False):
        if dtype is not None and pd.api.types.pandas_dtype(dtype) != _DTYPE:
            raise ValueError(f"StringDTypeArray cannot hold dtype {dtype}")
        NDArrayBackedExtensionArray.__init__(self, to_backing(values, copy=copy), _DTYPE)

    @property
    def dtype(self):
        return self._dtype

    @classmethod
    def _from_sequence(cls, scalars, *, dtype=None, copy=False):
        if dtype is None:
            # Without the dtype asked for (pandas 2 casting the result of a pointwise
            # operation back), only strings and missing values make this dtype.
            return cls(to_backing(scalars, copy=copy, strict=True))
        return cls(scalars, dtype=dtype, copy=copy)

    @classmethod
    def _from_scalars(cls, scalars, *, dtype):
        # pandas 2.x: only strings and missing values make this dtype (Series.combine)
        if lib.infer_dtype(scalars, skipna=True) not in ("string", "empty"):
            raise ValueError("not a sequence of strings")
        return cls._from_sequence(scalars, dtype=dtype)

    @classmethod
    def _from_sequence_of_strings(cls, strings, *, dtype=None, copy=False):
        return cls(strings, dtype=dtype, copy=copy)

    @classmethod
    def _from_factorized(cls, values, original):
        return cls(values)

    @classmethod
    def _empty(cls, shape, dtype):
        backing = np.empty(shape, dtype=BACKING)
        backing[...] = np.nan
        return cls(backing)

    def _cast_pointwise_result(self, values):
        result = NDArrayBackedExtensionArray._cast_pointwise_result(self, values)
        if isinstance(result.dtype, pd.StringDtype):
            return type(self)(result)
        return result

    def copy(self, order="C"):
        # A ``.str`` result is handed to the Series pandas wraps it in (see _handoff).
        if self.__dict__.pop("_fresh", False) and wrapping_result():
            return self
        return NDArrayBackedExtensionArray.copy(self, order)

    def _from_backing_data(self, arr):
        if not _convert.is_backing(arr):
            arr = to_backing(arr)
        return NDArrayBackedExtensionArray._from_backing_data(self, arr)

    # ---- scalars, missing values, conversions ------------------------------------------

    def _box_func(self, x):
        return x if isinstance(x, str) else np.nan

    def _validate_scalar(self, value):
        if lib.is_scalar(value) and pd.isna(value):
            return np.nan
        if not isinstance(value, str):
            raise TypeError(
                f"Invalid value '{value}' for dtype 'stringdtype'. Value should be a "
                f"string or missing value, got '{type(value).__name__}' instead."
            )
        return value

    def _validate_setitem_value(self, value):
        if lib.is_scalar(value):
            return np.array(self._validate_scalar(value), dtype=BACKING)
        return to_backing(value, strict=True)

    # pandas 2.x asks an array whose dtype equals "string" for this name.
    _maybe_convert_setitem_value = _validate_setitem_value

    def isna(self):
        return np.isnan(self._ndarray)

    @property
    def _hasna(self):
        return bool(self.isna().any())

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and _is_our_numpy_dtype(np.dtype(dtype)):
            return self._ndarray.copy() if copy else self._ndarray
        if copy is False:  # no copy: the backing array itself (objects would be copies)
            return self._ndarray
        result = self._ndarray.astype(object)
        return result if dtype is None else result.astype(dtype)

    def to_numpy(self, dtype=None, copy=False, na_value=lib.no_default):
        if dtype is not None and _is_our_numpy_dtype(dtype):
            if na_value is not lib.no_default and not pd.isna(na_value):
                return self.fillna(na_value)._ndarray
            return self._ndarray.copy() if copy else self._ndarray
        result = self._ndarray.astype(object)
        if na_value is not lib.no_default:
            result[self.isna()] = na_value
        return result if dtype is None else result.astype(dtype)

    def __arrow_array__(self, type=None):
        return _convert.to_arrow_array(self._ndarray.ravel(), type)

    def astype(self, dtype, copy=True):
        if _is_our_numpy_dtype(dtype):
            return self._ndarray.astype(dtype, copy=copy)
        dtype = pd.api.types.pandas_dtype(dtype)
        if dtype == _DTYPE:
            return self.copy() if copy else self
        if isinstance(dtype, pd.StringDtype) and _convert.pa is not None and self.ndim == 1:
            return dtype.__from_arrow__(self.__arrow_array__())
        if isinstance(dtype, pd.CategoricalDtype):
            return pd.Categorical(self, dtype=dtype)
        if isinstance(dtype, ExtensionDtype):
            return ExtensionArray.astype(self, dtype, copy=copy)
        if dtype.kind == "O":
            return self._ndarray.astype(object)
        mask = self.isna()
        if dtype.kind == "f" and mask.any():
            values = self.fillna("0")._ndarray.astype(dtype)
            values[mask] = np.nan
            return values
        if dtype.kind in "iufcb" and not mask.any():
            return self._ndarray.astype(dtype)
        return self._ndarray.astype(object).astype(dtype)

    def _values_for_factorize(self):
        codes = merge_codes(self)  # the keys of a merge: see _merge
        if codes is not None:
            return codes, -1
        return self._ndarray.astype(object), np.nan

    def _values_for_json(self):
        return self._ndarray.astype(object)

    def _hash_pandas_object(self, *, encoding, hash_key, categorize):
        from pandas.core.util.hashing import hash_array

        codes, uniques = self.factorize(use_na_sentinel=False)
        hashed = hash_array(uniques.to_numpy(), encoding=encoding, hash_key=hash_key)
        return hashed.take(codes)

    def memory_usage(self, deep=False):
        return memory_usage(self._ndarray) if deep else self._ndarray.nbytes

    @property
    def nbytes(self):
        return memory_usage(self._ndarray)

    def _formatter(self, boxed=False):
        from pandas.io.formats import printing

        def format_one(value):
            return printing.pprint_thing(
                value, escape_chars=("\t", "\r", "\n"), quote_strings=not boxed
            )

        return format_one

    def tolist(self):
        if self.ndim > 1:
            return [x.tolist() for x in self]
        return self._ndarray.tolist()

    def view(self, dtype=None):
        if dtype is not None:
            raise TypeError("Cannot change data-type for string array.")
        return super().view()

    # ---- indexing and assignment -------------------------------------------------------

    def __getitem__(self, key):
        if self.ndim == 1 and not lib.is_integer(key) and not isinstance(key, (slice, tuple)):
            key = check_array_indexer(self, extract_array(key, extract_numpy=True))
            if isinstance(key, np.ndarray) and key.ndim == 1 and key.dtype.kind in "bi":
                # Sorting, filtering and reindexing pick elements by an array: one pass in
                # Rust (NumPy's indexing copies each element by a call of its own).
                if key.dtype.kind == "b":
                    indices = np.flatnonzero(key)
                else:
                    indices = _in_bounds(key, len(self))
                return self._from_backing_data(_take(self._ndarray, indices.astype(np.int64)))
        return super().__getitem__(key)

    def take(self, indices, *, allow_fill=False, fill_value=None, axis=0):
        indices = np.asarray(indices, dtype=np.intp)
        n = self._ndarray.shape[axis]
        if allow_fill:
            fill_value = self._validate_scalar(fill_value)
            validate_indices(indices, n)
            if n == 0 and indices.size and not (indices == -1).all():
                raise IndexError("cannot do a non-empty take from an empty axes.")
        elif indices.size:
            if n == 0:
                raise IndexError("cannot do a non-empty take from an empty axes.")
            indices = _in_bounds(indices, n)
        if self.ndim == 1 and indices.ndim == 1 and (not allow_fill or pd.isna(fill_value)):
            # One pass in Rust, -1 a missing value (NumPy's take copies each element by
            # a call of its own); an index out of range raises IndexError.
            return self._from_backing_data(_take(self._ndarray, indices.astype(np.int64)))
        if not allow_fill:
            return self._from_backing_data(self._ndarray.take(indices, axis=axis))
        missing = indices == -1
        if n == 0:
            shape = list(self._ndarray.shape)
            shape[axis] = len(indices)
            result = np.empty(shape, dtype=BACKING)
            result[...] = fill_value
            return self._from_backing_data(result)
        result = self._ndarray.take(np.where(missing, 0, indices), axis=axis)
        if missing.any():
            where = [slice(None)] * result.ndim
            where[axis] = missing
            result[tuple(where)] = fill_value
        return self._from_backing_data(result)

    def __setitem__(self, key, value):
        if self.ndim == 1 and lib.is_integer(key) and not lib.is_scalar(value):
            raise ValueError("setting an array element with a sequence.")
        super().__setitem__(key, value)

    def _where(self, mask, value):
        value = self._validate_setitem_value(value)
        return self._from_backing_data(np.where(mask, self._ndarray, value))

    def _putmask(self, mask, value):
        value = self._validate_setitem_value(value)
        if value.ndim and len(value) == mask.sum() != len(mask):
            self[mask] = value
        else:
            np.putmask(self._ndarray, mask, value)

    def _pad_or_backfill(self, *, method, limit=None, limit_area=None, copy=True):
        if self.ndim == 2:  # each column is filled downwards, as NumPy-backed arrays are
            columns = [
                self[:, j]._pad_or_backfill(method=method, limit=limit, limit_area=limit_area)
                for j in range(self.shape[1])
            ]
            result = np.stack([c._ndarray for c in columns], axis=1) if columns else None
        elif limit is not None or limit_area is not None:
            objects = pd.array(self.to_numpy(), dtype=pd.StringDtype("python", np.nan))
            filled = objects._pad_or_backfill(method=method, limit=limit, limit_area=limit_area)
            result = to_backing(filled)
        else:
            result = _fill_1d(self._ndarray, self.isna(), forward=method in ("pad", "ffill"))
        if result is None:
            result = self._ndarray.copy()
        if not copy:
            self._ndarray[...] = result
            return self
        return self._from_backing_data(result)

    def equals(self, other):
        if not isinstance(other, StringDTypeArray) or self.shape != other.shape:
            return False
        mask = self.isna()
        if not np.array_equal(mask, other.isna()):
            return False
        return bool(np.equal(self._ndarray[~mask], other._ndarray[~mask]).all())

    # ---- hashing: factorize, unique, value_counts, isin --------------------------------

    def factorize(self, use_na_sentinel=True):
        # One pass in Rust (hash maps over the views): missing values get -1, or
        # without the sentinel are one more value in its place of first appearance.
        codes, uniques = _factorize(self._ndarray, use_na_sentinel)
        return codes.astype(np.intp, copy=False), type(self)(uniques)

    def unique(self):
        return self.factorize(use_na_sentinel=False)[1]

    def value_counts(self, dropna=True):
        codes, uniques = self.factorize(use_na_sentinel=dropna)
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        index = pd.Index(uniques, copy=False)
        return pd.Series(counts, index=index, name="count", copy=False)

    def isin(self, values):
        values = getattr(values, "array", values)
        if not isinstance(values, StringDTypeArray):
            try:
                values = type(self)(to_backing(values, strict=True))
            except TypeError:  # only the strings and missing values can be found
                objects = np.asarray(values, dtype=object)
                keep = [isinstance(v, str) or (lib.is_scalar(v) and pd.isna(v)) for v in objects]
                values = type(self)(objects[np.array(keep, dtype=bool)])
        if pc is None:
            return pd.core.algorithms.isin(self.to_numpy(), values.to_numpy())
        arrow = _convert.to_arrow_array(self._ndarray)
        value_set = _convert.to_arrow_array(values._ndarray)
        try:
            found = pc.is_in(arrow, value_set=value_set, skip_nulls=False)
        except NotImplementedError:  # a pyarrow without is_in for string_view
            large = _convert.pa.large_string()
            found = pc.is_in(arrow.cast(large), value_set=value_set.cast(large), skip_nulls=False)
        return found.to_numpy(zero_copy_only=False)

    # ---- operators ---------------------------------------------------------------------

    def _operand(self, other):
        """``other`` as a backing array or 0-d backing scalar, or ``None`` when it holds
        something other than strings and missing values."""
        if isinstance(other, str):
            return np.array(other, dtype=BACKING)
        if lib.is_scalar(other):
            return np.array(np.nan, dtype=BACKING) if pd.isna(other) else None
        if len(other) != len(self):
            raise ValueError(f"Lengths of operands do not match: {len(self)} != {len(other)}")
        try:
            return to_backing(other, strict=True)
        except TypeError:
            return None

    def _cmp_method(self, other, op):
        name = op.__name__.strip("_")
        operand = self._operand(other)
        if operand is None:
            objects = np.asarray(other, dtype=object) if not lib.is_scalar(other) else other
            if name in ("eq", "ne"):
                result = np.full(self.shape, name == "ne")
                if not lib.is_scalar(other):
                    result = op(self._ndarray.astype(object), objects).astype(bool)
                    result[self.isna() | pd.isna(objects)] = name == "ne"
                return result
            raise TypeError(
                f"'{name}' not supported between instances of 'str' and '{type(other).__name__}'"
            )
        # pandas' rule for a missing operand (false, `!=` true) is the package's own
        # policy in stringdtype.strings: no mask pass afterwards.
        return _COMPARISONS[name](self._ndarray, operand)

    def _arith_method(self, other, op):
        name = op.__name__.strip("_")
        if name in ("mul", "rmul"):
            if lib.is_bool(other) or getattr(getattr(other, "dtype", None), "kind", "") == "b":
                raise TypeError("Cannot multiply a string column by bools; cast them to integers")
            if lib.is_integer(other) or getattr(getattr(other, "dtype", None), "kind", "") in "iu":
                counts = np.asarray(other)
                result = np.strings.multiply(self._ndarray, np.where(counts < 0, 0, counts))
                return self._from_backing_data(result)
        if name in ("add", "radd"):
            operand = self._operand(other)
            if operand is not None:
                pair = (operand, self._ndarray) if name == "radd" else (self._ndarray, operand)
                result = np.strings.add(*pair)
                missing = self.isna() | np.isnan(operand)
                if missing.any():
                    result[missing] = np.nan
                return self._from_backing_data(result)
        raise TypeError(
            f"unsupported operand type(s) for {name}: 'stringdtype' and '{type(other).__name__}'"
        )

    def _logical_method(self, other, op):
        return NotImplemented

    # ---- reductions, accumulations, groupby --------------------------------------------

    def min(self, *, axis=None, skipna=True, **kwargs):
        return self._reduce("min", axis=axis, skipna=skipna)

    def max(self, *, axis=None, skipna=True, **kwargs):
        return self._reduce("max", axis=axis, skipna=skipna)

    def sum(self, *, axis=None, skipna=True, min_count=0, **kwargs):
        return self._reduce("sum", axis=axis, skipna=skipna, min_count=min_count)

    def any(self, *, axis=None, skipna=True, **kwargs):
        return self._reduce("any", axis=axis, skipna=skipna)

    def all(self, *, axis=None, skipna=True, **kwargs):
        return self._reduce("all", axis=axis, skipna=skipna)

    def _reduce(self, name, *, skipna=True, keepdims=False, axis=0, **kwargs):
        return _reductions.reduce(self, name, skipna=skipna, keepdims=keepdims, axis=axis, **kwargs)

    def _accumulate(self, name, *, skipna=True, **kwargs):
        return _reductions.accumulate(self, name, skipna=skipna)

    def _groupby_op(self, *, how, has_dropped_na, min_count, ngroups, ids, **kwargs):
        objects = pd.array(self.to_numpy(), dtype=pd.StringDtype("python", np.nan))
        result = objects._groupby_op(
            how=how,
            has_dropped_na=has_dropped_na,
            min_count=min_count,
            ngroups=ngroups,
            ids=ids,
            **kwargs,
        )
        if isinstance(result.dtype, pd.StringDtype):
            return type(self)(result)
        return result


# Each ``_str_*`` method marks the string array it makes as fresh (see _handoff).
for _name in dir(StringDTypeArray):
    if _name.startswith("_str_") and callable(getattr(StringDTypeArray, _name)):
        setattr(StringDTypeArray, _name, fresh_results(getattr(StringDTypeArray, _name)))
del _name


def _fill_1d(values, missing, forward):
    """``values`` with each missing element taking the last (or next) present one."""
    if not missing.any():
        return values.copy()
    n = len(values)
    positions = np.where(missing, -1 if forward else n, np.arange(n))
    if forward:
        source = np.maximum.accumulate(positions)
    else:
        source = np.minimum.accumulate(positions[::-1])[::-1]
    unfilled = (source < 0) | (source >= n)
    result = values.take(np.clip(source, 0, n - 1))
    result[unfilled] = np.nan
    return result


def _in_bounds(indices, n):
    """``indices`` (integers) with each negative one counted from the end, as NumPy's
    indexing reads them; ``IndexError`` naming the first one out of range of ``n``."""
    if not indices.size:
        return indices
    low, high = indices.min(), indices.max()
    if low < -n or high >= n:
        bad = indices[(indices < -n) | (indices >= n)][0]
        raise IndexError(f"index {bad} is out of bounds for axis 0 with size {n}")
    return np.where(indices < 0, indices + n, indices) if low < 0 else indices
