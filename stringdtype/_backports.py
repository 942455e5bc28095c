"""``np.strings`` functions as NumPy 2.4 has them, for NumPy releases that lack their ufuncs.

NumPy 2.0 has no ``_center``, ``_ljust``, ``_rjust``, ``_zfill``, ``_partition`` or
``_rpartition`` ufunc (its ``np.strings`` pads through a Python call per element and has no
``partition``), and NumPy before 2.3 has no ``_slice`` (nor ``np.strings.slice``). Where
NumPy lacks one, ``stringdtype._core`` has a ufunc of that name with this package's loops,
and ``stringdtype.strings`` takes the function below: NumPy 2.4's code for StringDType
arrays on that ufunc. Other arrays go to NumPy's own function where there is one, and
otherwise ``U`` arrays go through StringDType and come back as ``U``.
"""

import numpy as np

from . import _core
from ._core import StringDType

# Which function needs which ufunc.
_UFUNCS = {
    "center": "_center",
    "ljust": "_ljust",
    "rjust": "_rjust",
    "zfill": "_zfill",
    "partition": "_partition",
    "rpartition": "_rpartition",
    "slice": "_slice",
}


def needed():
    """The functions whose ufunc the running NumPy lacks, by name."""
    return {name: globals()[name] for name, ufunc in _UFUNCS.items() if hasattr(_core, ufunc)}


def _is_ours(*arrays):
    try:
        return isinstance(np.result_type(*arrays), StringDType)
    except TypeError:
        return False


def _numpys(name):
    return getattr(np.strings, name, None)


def _as_unicode(result):
    if isinstance(result, tuple):
        return tuple(_as_unicode(r) for r in result)
    width = int(np.strings.str_len(result).max(initial=1))
    return result.astype(f"U{max(width, 1)}")


def _otherwise(name, a, *args):
    """NumPy's ``name`` for an array that is not this package's; else ``U`` by way of
    StringDType."""
    numpys = _numpys(name)
    if numpys is not None:
        return numpys(a, *args)
    if a.dtype.kind != "U":
        raise TypeError(
            f"stringdtype.strings.{name} needs a StringDType or str array under "
            f"NumPy {np.__version__}, got dtype {a.dtype}"
        )
    ufunc = getattr(_core, _UFUNCS[name])
    return _as_unicode(ufunc(a.astype(StringDType()), *args))


def _width(width):
    width = np.asanyarray(width)
    if not np.issubdtype(width.dtype, np.integer):
        raise TypeError(f"unsupported type {width.dtype} for operand 'width'")
    return width


def _justify(name):
    def justify(a, width, fillchar=" "):
        width = _width(width)
        a = np.asanyarray(a)
        fillchar = np.asanyarray(fillchar)
        if np.any(np.strings.str_len(fillchar) != 1):
            raise TypeError("The fill character must be exactly one character long")
        if _is_ours(a, fillchar):
            return getattr(_core, _UFUNCS[name])(a, width, fillchar)
        return _otherwise(name, a, width, fillchar)

    justify.__name__ = justify.__qualname__ = name
    justify.__doc__ = f"Element-wise ``str.{name}``, as ``np.strings.{name}`` of NumPy 2.4."
    return justify


center = _justify("center")
ljust = _justify("ljust")
rjust = _justify("rjust")


def zfill(a, width):
    """Element-wise ``str.zfill``, as ``np.strings.zfill`` of NumPy 2.4."""
    width = _width(width)
    a = np.asanyarray(a)
    if isinstance(a.dtype, StringDType):
        return _core._zfill(a, width)
    return _otherwise("zfill", a, width)


def _partitioner(name):
    def partition(a, sep):
        a = np.asanyarray(a)
        sep = np.asanyarray(sep)
        if _is_ours(a, sep):
            return getattr(_core, _UFUNCS[name])(a, sep)
        return _otherwise(name, a, sep)

    partition.__name__ = partition.__qualname__ = name
    partition.__doc__ = (
        f"Element-wise ``str.{name}``: three arrays, as ``np.strings.{name}`` of NumPy 2.4."
    )
    return partition


partition = _partitioner("partition")
rpartition = _partitioner("rpartition")


def slice(a, start=None, stop=np._NoValue, step=None, /):
    """Element-wise ``a[start:stop:step]``, as ``np.strings.slice`` of NumPy 2.4."""
    if stop is np._NoValue:
        stop = start
        start = None
    # Integers for start, stop and step, as PySlice_Unpack.
    if step is None:
        step = 1
    step = np.asanyarray(step)
    if not np.issubdtype(step.dtype, np.integer):
        raise TypeError(f"unsupported type {step.dtype} for operand 'step'")
    if np.any(step == 0):
        raise ValueError("slice step cannot be zero")
    if start is None:
        start = np.where(step < 0, np.iinfo(np.intp).max, 0)
    if stop is None:
        stop = np.where(step < 0, np.iinfo(np.intp).min, np.iinfo(np.intp).max)
    a = np.asanyarray(a)
    if isinstance(a.dtype, StringDType):
        return _core._slice(a, start, stop, step)
    return _otherwise("slice", a, start, stop, step)
