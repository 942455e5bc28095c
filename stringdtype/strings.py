"""``np.strings``, with Rust versions of what NumPy runs per element in Python.

A drop-in namespace: ``import stringdtype.strings as sds`` offers every name of
``np.strings`` with the same signature. On arrays of :class:`stringdtype.StringDType`,

* ``upper lower swapcase capitalize title`` (and ``casefold``, which ``np.strings``
  lacks) are ufuncs written in Rust with Python's ``str`` semantics (full Unicode case
  mappings from the running interpreter's database, ASCII fast path);
* ``encode`` and ``decode`` with UTF-8 copy bytes without a Python object per element;
* everything else is ``np.strings``' own function, which already runs this package's
  loops; where the running NumPy lacks the ufunc behind one (``center ljust rjust zfill
  partition rpartition`` before NumPy 2.1, ``slice`` before 2.3), NumPy 2.4's function on
  a ufunc of this package's takes its place, so every name works on every NumPy.

Python ``str`` operands keep every character: when a StringDType array takes part, the
functions here turn ``str`` arguments (the other operand of a comparison or of ``add``,
``sub``, ``prefix``, ``suffix``, ``chars``, ``fillchar``, ``sep``, ``old``, ``new``)
into StringDType scalars of that array's dtype before calling NumPy's function. NumPy
itself turns a ``str`` operand into a ``U`` array first, which cannot hold trailing NUL
characters, so ``np.strings.find(a, "\x00")`` looks for ``""`` while
``stringdtype.strings.find(a, "\x00")`` looks for ``"\x00"``.

Missing values: a string ``na_object`` acts as its string, a NaN-like one gives a missing
result, any other one raises ``TypeError`` (``np.strings`` raises for every missing value
in the case conversions). Arrays of other dtypes go to ``np.strings`` unchanged, except
``casefold``, which converts ``U`` input to StringDType.
"""

import codecs
import functools
import inspect

import numpy as np

from . import _backports, _core
from ._core import StringDType

# The functions whose ufunc this NumPy lacks (see _backports), as names of this module.
_BACKPORTS = _backports.needed()

__all__ = [  # noqa: PLE0604 - np.strings names
    *np.strings.__all__,
    *(name for name in _BACKPORTS if name not in np.strings.__all__),
    "casefold",
    "join",
    "rsplit",
    "split",
    "split_flat",
]


def _is_ours(a):
    return isinstance(a.dtype, StringDType)


def _case_function(name):
    ufunc = getattr(_core, name)
    fallback = getattr(np.strings, name, None)

    def convert(a):
        a = np.asanyarray(a)
        if _is_ours(a):
            return ufunc(a)
        if fallback is not None:
            return fallback(a)
        return ufunc(a.astype(StringDType()))

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = (
        f"Element-wise ``str.{name}`` of each string, in Rust for StringDType arrays.\n\n"
        f"Same results as Python's ``str.{name}``; see the module docstring for missing "
        "values."
    )
    return convert


upper = _case_function("upper")
lower = _case_function("lower")
swapcase = _case_function("swapcase")
capitalize = _case_function("capitalize")
title = _case_function("title")
casefold = _case_function("casefold")


def _is_utf8(encoding, errors):
    if errors not in (None, "strict"):
        return False
    return encoding is None or codecs.lookup(encoding).name == "utf-8"


def encode(a, encoding=None, errors=None):
    """Encode each string (``str.encode``) into an ``S`` array, as ``np.strings.encode``.

    UTF-8 (the default) on a StringDType array copies the stored bytes directly.
    """
    a = np.asanyarray(a)
    if not (_is_ours(a) and _is_utf8(encoding, errors)):
        return np.strings.encode(a, encoding, errors)
    width = max(int(_core._utf8_nbytes(a).max(initial=0)), 1)
    out = np.empty(a.shape, dtype=f"S{width}")
    _core._encode_utf8(a, out=out)
    return out


def decode(a, encoding=None, errors=None):
    """Decode each ``bytes`` element (``bytes.decode``).

    UTF-8 (the default) on an ``S`` array returns a StringDType array, validating the bytes
    without a Python object per element; other cases are ``np.strings.decode``.
    """
    a = np.asanyarray(a)
    if a.dtype.kind == "S" and _is_utf8(encoding, errors):
        try:
            return a.astype(StringDType())
        except TypeError:
            # From NumPy 2.5 the cast reports bytes that are not UTF-8 as a TypeError;
            # decode is bytes.decode, so it raises bytes.decode's UnicodeDecodeError.
            np.strings.decode(a, "utf-8", "strict")
            raise
    return np.strings.decode(a, encoding, errors)


# Parameters of np.strings functions that are string operands (the first, ``a``, too).
_STRING_PARAMETERS = {"a", "sub", "prefix", "suffix", "chars", "fillchar", "sep", "old", "new"}


def _string_dtype_of(values):
    """The dtype of the first StringDType array among ``values``, or ``None``."""
    for value in values:
        dtype = getattr(value, "dtype", None)
        if isinstance(dtype, StringDType):
            return dtype
    return None


def _keeping_str_operands(function):
    """``function`` (an ``np.strings`` function) with ``str`` string operands made
    StringDType scalars."""
    if isinstance(function, np.ufunc):
        operands = function.nin

        def is_operand(position, _keyword):
            return position is not None and position < operands
    else:
        parameters = list(inspect.signature(function).parameters)

        def is_operand(position, keyword):
            if keyword is None:
                keyword = parameters[position] if position < len(parameters) else None
            return keyword in _STRING_PARAMETERS

    @functools.wraps(function)
    def call(*args, **kwargs):
        dtype = _string_dtype_of([*args, *kwargs.values()])
        if dtype is not None:

            def convert(value, position, keyword):
                if type(value) is str and is_operand(position, keyword):
                    return np.array(value, dtype=dtype)
                return value

            args = [convert(v, i, None) for i, v in enumerate(args)]
            kwargs = {k: convert(v, None, k) for k, v in kwargs.items()}
        return function(*args, **kwargs)

    return call


def _strings(a):
    a = np.asanyarray(a)
    return a if _is_ours(a) else a.astype(StringDType())


def _maxsplit(maxsplit):
    if maxsplit is None:
        return -1
    if isinstance(maxsplit, (bool, np.bool_)) or not isinstance(maxsplit, (int, np.integer)):
        raise TypeError(f"maxsplit must be an integer, not {type(maxsplit).__name__}")
    return int(maxsplit)


def _sep(sep):
    if sep is not None and not isinstance(sep, str):
        raise TypeError(f"must be str or None, not {type(sep).__name__}")
    return sep


def split_flat(a, sep=None, maxsplit=-1):
    """``str.split(sep, maxsplit)`` of every string, without a Python object per piece:
    ``(parts, offsets)`` in Arrow's list layout, where ``parts`` is a 1-D array of the
    strings' dtype holding every piece in order (C order for N-D input) and
    ``offsets`` int64 of one more than the number of strings: string ``i``'s pieces are
    ``parts[offsets[i]:offsets[i + 1]]``. A missing value that is not a string gives one
    missing piece, so ``join(sep, *split_flat(a, sep))`` gives ``a`` back."""
    return _core._split(_strings(a), _sep(sep), _maxsplit(maxsplit), False)


def join(sep, parts, offsets):
    """``sep.join(parts[offsets[i]:offsets[i + 1]])`` for each ``i``: the inverse of
    :func:`split_flat`, a 1-D array of ``parts``' dtype. A list holding a missing value
    that is not a string is missing."""
    offsets = np.asarray(offsets)
    if offsets.dtype.kind not in "iu":
        raise TypeError(f"offsets must be integers, not {offsets.dtype}")
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    return _core._join_flat(_sep(sep) or "", _strings(parts), offsets)


def _split(a, sep, maxsplit, right):
    strings = _strings(a)
    na = getattr(strings.dtype, "na_object", None)
    result = _core._split(strings, _sep(sep), _maxsplit(maxsplit), right, True, na)
    return result[()] if result.ndim == 0 else result


def split(a, sep=None, maxsplit=None):
    """``str.split(sep, maxsplit)`` of each string: an object array of lists, as
    ``np.char.split`` (a missing value that is not a string stays the ``na_object``)."""
    return _split(a, sep, maxsplit, False)


def rsplit(a, sep=None, maxsplit=None):
    """``str.rsplit(sep, maxsplit)`` of each string: an object array of lists, as
    ``np.char.rsplit``."""
    return _split(a, sep, maxsplit, True)


_OWN = {"upper", "lower", "swapcase", "capitalize", "title", "casefold", "encode", "decode"}
_OWN |= {"join", "rsplit", "split", "split_flat"}
_UNWRAPPED = _OWN | {"mod", "translate", "multiply", "zfill", "slice"}


def _function(name):
    """The function behind ``name``: a backport where NumPy lacks the ufunc, else NumPy's."""
    return _BACKPORTS.get(name) or getattr(np.strings, name)


_WRAPPED = {
    name: _keeping_str_operands(_function(name)) for name in __all__ if name not in _UNWRAPPED
}


def __getattr__(name):
    if name in _WRAPPED:
        return _WRAPPED[name]
    if name in __all__:
        return _function(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
