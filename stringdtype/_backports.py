"""``np.strings`` functions as NumPy 2.4 has them, for NumPy releases that lack their ufuncs.

NumPy before 2.3 has no ``_slice`` ufunc (nor ``np.strings.slice``). Where NumPy lacks one,
``stringdtype._core`` has a ufunc of that name with this package's loops, and
``stringdtype.strings`` takes the function below: NumPy 2.4's code for StringDType arrays
on that ufunc. Other arrays go to NumPy's own function where there is one, and otherwise
``U`` arrays go through StringDType and come back as ``U``.
"""

import numpy as np

from . import _core
from ._core import StringDType

# Which function needs which ufunc: the ufuncs of the catalog that NumPy added late, each
# the name of its function with a leading underscore.
_UFUNCS = {name[1:]: name for name, since, *_ in _core._catalog() if since is not None}


def needed():
    """The functions whose ufunc the running NumPy lacks, by name."""
    return {name: globals()[name] for name, ufunc in _UFUNCS.items() if hasattr(_core, ufunc)}


def _numpys(name):
    return getattr(np.strings, name, None)


def _as_unicode(result):
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
