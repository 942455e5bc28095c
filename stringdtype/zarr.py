"""zarr 3 support: arrays of StringDType are stored as zarr's standard ``"string"`` type.

``import stringdtype.zarr`` registers :class:`ArrowVariableLengthUTF8` with zarr's data
type registry, so that ``zarr.array(a)``, ``zarr.create_array(..., dtype=a.dtype)`` and
the other constructors accept this package's dtype. The stored metadata is zarr's
variable-length UTF-8 type (v3 ``"data_type": "string"`` with the ``vlen-utf8`` codec, v2
``"|O"`` with the ``vlen-utf8`` filter), which every zarr implementation reads, and which
zarr-python reads back as NumPy's ``np.dtypes.StringDType``; ``.astype(StringDType())``
turns that into this package's dtype. The ``zarr.array`` object made from this dtype
reads back as this dtype. See docs/usage.md.

The package never imports this module itself, so ``import stringdtype`` works without
zarr and does not import it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

try:
    from zarr.core.buffer import core as _buffer_core
    from zarr.core.buffer.core import NDBuffer
    from zarr.dtype import DataTypeValidationError, VariableLengthUTF8, data_type_registry
except ImportError as exc:  # no zarr, or one before 3.1 (which has no data type registry)
    raise ImportError(
        "stringdtype.zarr needs zarr 3.1 or later: pip install 'zarr>=3.1'", name=exc.name
    ) from exc

from ._core import StringDType

__all__ = ["ArrowVariableLengthUTF8"]


@dataclass(frozen=True, kw_only=True)
class ArrowVariableLengthUTF8(VariableLengthUTF8):  # type: ignore[misc]
    """zarr's variable-length UTF-8 string type, for arrays of ``stringdtype.StringDType``.

    It subclasses zarr's own ``VariableLengthUTF8`` (the wrapper of NumPy's StringDType),
    so zarr gives it the same codecs and checks, and writes the same metadata. Only its
    native dtype differs. It claims no stored metadata: zarr resolves ``"string"`` to its
    own class when it reads an array, so reading stays as it is for every zarr user.
    """

    dtype_cls = StringDType
    # The key in zarr's registry, which must differ from "string": zarr keeps one class per
    # key, and this one must not displace zarr's own. The stored name is "string".
    _zarr_v3_name: ClassVar[str] = "stringdtype.StringDType"  # type: ignore[assignment]

    @classmethod
    def from_native_dtype(cls, dtype: Any) -> ArrowVariableLengthUTF8:
        if not cls._check_native_dtype(dtype):
            raise DataTypeValidationError(
                f"Invalid data type: {dtype}. Expected an instance of {cls.dtype_cls}"
            )
        if hasattr(dtype, "na_object"):
            # The zarr "string" type has no missing value; zarr refuses NumPy's StringDType
            # with an na_object for the same reason, with the same exception type.
            raise ValueError(
                f"Zarr data type resolution from {dtype!r} failed: a "
                "`stringdtype.StringDType` with `na_object` set cannot be stored as the zarr "
                '"string" data type, which has no missing value (zarr refuses '
                "`numpy.dtypes.StringDType` with `na_object` set too)."
            )
        return cls()

    def to_native_dtype(self) -> StringDType:
        return StringDType()

    def to_json(self, zarr_format: Literal[2, 3]) -> Any:
        if zarr_format == 3:
            return VariableLengthUTF8._zarr_v3_name
        return super().to_json(zarr_format)

    # Stored metadata is zarr's own class's to read (see the class docstring).
    @classmethod
    def _check_json_v2(cls, data: Any) -> Literal[False]:
        return False

    @classmethod
    def _check_json_v3(cls, data: Any) -> Literal[False]:
        return False


def _strings_compare_without_nan(all_equal: Any) -> Any:
    """zarr's ``NDBuffer.all_equal`` (is a chunk all fill value, so not worth storing?)
    compares with ``equal_nan=False`` for the string kinds ``U S T O V`` and with
    ``np.isnan`` for every other kind. This dtype's kind is ``t`` (so that code written for
    NumPy's kind ``T`` does not run NumPy's string C API on it), and ``np.isnan`` of the
    ``str`` fill value raises ``TypeError``; so its chunks get the string kinds' rule."""
    if getattr(all_equal, "_compares_stringdtype", False):
        return all_equal

    @functools.wraps(all_equal)
    def compare(self: NDBuffer, other: Any, equal_nan: bool = True) -> bool:
        if isinstance(getattr(self._data, "dtype", None), StringDType):
            equal_nan = False
        return all_equal(self, other, equal_nan)

    compare._compares_stringdtype = True  # type: ignore[attr-defined]
    return compare


def _array_compare_without_nan(array_all_equal: Any) -> Any:
    """The same rule for zarr 3.2 and later, where ``NDBuffer.all_equal`` of the CPU
    buffer (a subclass) and of the base class both call the module's
    ``_array_all_equal(data, other, equal_nan)``."""
    if getattr(array_all_equal, "_compares_stringdtype", False):
        return array_all_equal

    @functools.wraps(array_all_equal)
    def compare(data: Any, other: Any, equal_nan: bool) -> bool:
        if isinstance(getattr(data, "dtype", None), StringDType):
            equal_nan = False
        return array_all_equal(data, other, equal_nan)

    compare._compares_stringdtype = True  # type: ignore[attr-defined]
    return compare


if hasattr(_buffer_core, "_array_all_equal"):
    _buffer_core._array_all_equal = _array_compare_without_nan(_buffer_core._array_all_equal)
elif hasattr(NDBuffer, "all_equal"):
    NDBuffer.all_equal = _strings_compare_without_nan(NDBuffer.all_equal)  # type: ignore[method-assign]

data_type_registry.register(ArrowVariableLengthUTF8._zarr_v3_name, ArrowVariableLengthUTF8)
