"""``np.strings``, with Rust versions of what NumPy runs per element in Python.

A drop-in namespace: ``import stringdtype.strings as sds`` offers every name of
``np.strings`` with the same signature. On arrays of :class:`stringdtype.StringDType`,

* ``upper lower swapcase capitalize title`` (and ``casefold``, which ``np.strings``
  lacks) are ufuncs written in Rust with Python's ``str`` semantics (full Unicode case
  mappings from the running interpreter's database, ASCII fast path);
* ``isascii`` (``str.isascii``, which ``np.strings`` lacks) is a Rust ufunc too;
* ``translate`` is a Rust loop with ``str.translate``'s results (deletions, replacements
  of any length, code points), the table prepared once per call;
* ``encode`` and ``decode`` with UTF-8 copy bytes without a Python object per element;
* everything else is ``np.strings``' own function, which already runs this package's
  loops; where the running NumPy lacks the ufunc behind one (``slice`` before NumPy 2.3),
  NumPy 2.4's function on a ufunc of this package's takes its place, so every name works
  on every NumPy.

Python ``str`` operands keep every character: when a StringDType array takes part, the
functions here turn ``str`` arguments (the other operand of a comparison or of ``add``,
``sub``, ``prefix``, ``suffix``, ``chars``, ``fillchar``, ``sep``, ``old``, ``new``)
into StringDType scalars of that array's dtype before calling NumPy's function. NumPy
itself turns a ``str`` operand into a ``U`` array first, which cannot hold trailing NUL
characters, so ``np.strings.find(a, "\x00")`` looks for ``""`` while
``stringdtype.strings.find(a, "\x00")`` looks for ``"\x00"``.

Missing values follow pandas and polars, whatever the ``na_object`` (``None``, a NaN-like
one, a string): a missing input gives a missing output. String results are missing;
``str_len find rfind index rindex count`` give int64 when no operand holds a missing
value, else float64 with NaN for each missing one (as pandas' ``str`` column does); the
comparisons are false for a missing operand (``not_equal`` true), as for NaN; the ``is*``
predicates, ``startswith`` and ``endswith`` take ``na=`` (default ``False``), the bool a
missing value gives; ``partition`` and ``rpartition`` give three missing parts;
``split``, ``rsplit``, ``split_flat`` and ``join`` a missing list or string. ``mod``,
``encode`` and ``decode`` keep ``np.strings``' rules (bytes arrays hold no missing value;
``mod`` is NumPy's per-element Python code). The loops decide
this in Rust, under a missing-value policy this module sets for the calling thread
around each call (``np.strings`` itself keeps NumPy's rules and raises where NumPy's
StringDType raises). Arrays of other dtypes go to ``np.strings`` unchanged, except
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
# The case conversions and ``isascii``: the ufuncs of the catalog with public names.
_CASE = [name for name, *_ in _core._catalog() if not name.startswith("_")]

__all__ = [  # noqa: PLE0604 - np.strings and catalog names
    *np.strings.__all__,
    *(name for name in _BACKPORTS if name not in np.strings.__all__),
    *(name for name in _CASE if name not in np.strings.__all__),
    "join",
    "join_chars",
    "rsplit",
    "slice_replace",
    "split",
    "split_flat",
]


def _is_ours(a):
    return isinstance(a.dtype, StringDType)


# The functions that keep np.strings' missing-value rules.
_NUMPY_RULES = {"mod", "encode", "decode"}
# The functions with bool results that take ``na=``.
_NA_KEYWORD = {"isalpha", "isdigit", "isspace", "isalnum", "islower", "isupper", "istitle"}
_NA_KEYWORD |= {"isdecimal", "isnumeric", "isascii", "startswith", "endswith"}


def _na_flag(na):
    if not isinstance(na, (bool, np.bool_)):
        raise TypeError(f"na must be a bool, not {type(na).__name__}")
    return bool(na)


def _propagating(function, na_keyword=False):
    """``function`` under pandas' missing-value policy (see the module docstring)."""
    if na_keyword:

        def call(*args, na=False, **kwargs):
            previous = _core._set_missing_policy(True, _na_flag(na))
            try:
                return function(*args, **kwargs)
            finally:
                _core._set_missing_policy(*previous)
    else:

        def call(*args, **kwargs):
            previous = _core._set_missing_policy(True, False)
            try:
                return function(*args, **kwargs)
            finally:
                _core._set_missing_policy(*previous)

    functools.update_wrapper(call, function)
    if na_keyword:
        parameters = list(_signature(function).parameters.values())
        na = inspect.Parameter("na", inspect.Parameter.KEYWORD_ONLY, default=False)
        # ``na`` goes before a ``**kwargs``, which must come last.
        at = len(parameters)
        if parameters and parameters[-1].kind is inspect.Parameter.VAR_KEYWORD:
            at -= 1
        parameters.insert(at, na)
        call.__signature__ = inspect.Signature(parameters)
    return call


def _signature(function):
    """``inspect.signature(function)``, where ``function`` is or wraps a ufunc the one that
    NumPy 2.4 gives it: NumPy 2.2 and 2.3 give their ufuncs none."""
    ufunc = inspect.unwrap(function)
    if not isinstance(ufunc, np.ufunc):
        return inspect.signature(function)
    P = inspect.Parameter
    names = ["x"] if ufunc.nin == 1 else [f"x{i + 1}" for i in range(ufunc.nin)]
    parameters = [P(name, P.POSITIONAL_ONLY) for name in names]
    parameters.append(P("out", P.POSITIONAL_OR_KEYWORD, default=None))
    keywords = {"where": True, "casting": "same_kind", "order": "K", "dtype": None}
    keywords |= {"subok": True, "signature": None}
    parameters += [P(name, P.KEYWORD_ONLY, default=value) for name, value in keywords.items()]
    return inspect.Signature(parameters)


def _has_missing(*operands):
    """Whether a StringDType array among ``operands`` holds a missing value."""
    for operand in operands:
        ours = isinstance(operand, np.ndarray) and _is_ours(operand)
        # A dtype without na_object (its attribute then raises) holds no missing value.
        if ours and hasattr(operand.dtype, "na_object") and _core._isna(operand).any():
            return True
    return False


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


globals().update(
    {name: _propagating(_case_function(name), name in _NA_KEYWORD) for name in _CASE}
)


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


def _translate_table(a, table):
    """``table`` as a ``_core.TranslateTable`` for the strings of ``a``.

    A ``dict`` with int keys (what ``str.maketrans`` returns) is read whole. Any other
    table (another mapping, a dict subclass that may define ``__missing__``, a sequence)
    is asked, as ``str.translate`` asks it, ``table[ord(c)]`` for each distinct
    character ``c`` of the strings that are not missing, a ``LookupError`` meaning "keep
    ``c``": once per character rather than once per occurrence.
    """
    if type(table) is dict and all(isinstance(key, int) for key in table):
        return _core.TranslateTable(table)
    present = a[~_core._isna(a)] if hasattr(a.dtype, "na_object") else a
    mapping = {}
    for code in map(ord, set("".join(present.ravel().tolist()))):
        try:
            mapping[code] = table[code]
        except LookupError:
            pass
    return _core.TranslateTable(mapping)


@_propagating
def translate(a, table, deletechars=None):
    """``str.translate(table)`` of each string, as ``np.strings.translate``.

    On a StringDType array (without ``deletechars``, which only bytes take) a Rust loop
    with ``str.translate``'s results and exceptions: ``table`` maps code points to a
    ``str`` (of any length), a code point or ``None`` (delete), as ``str.maketrans``
    builds it. A missing value stays missing. Other arrays go to ``np.strings.translate``.
    """
    a = np.asanyarray(a)
    if not _is_ours(a) or deletechars is not None:
        return np.strings.translate(a, table, deletechars)
    prepared = _translate_table(a, table)
    return _core._translate(a, prepared.id)


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


@_propagating
def split_flat(a, sep=None, maxsplit=-1):
    """``str.split(sep, maxsplit)`` of every string, without a Python object per piece:
    ``(parts, offsets)`` in Arrow's list layout, where ``parts`` is a 1-D array of the
    strings' dtype holding every piece in order (C order for N-D input) and
    ``offsets`` int64 of one more than the number of strings: string ``i``'s pieces are
    ``parts[offsets[i]:offsets[i + 1]]``. A missing value that is not a string gives one
    missing piece, so ``join(sep, *split_flat(a, sep))`` gives ``a`` back."""
    return _core._split(_strings(a), _sep(sep), _maxsplit(maxsplit), False)


@_propagating
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


@_propagating
def split(a, sep=None, maxsplit=None):
    """``str.split(sep, maxsplit)`` of each string: an object array of lists, as
    ``np.char.split`` (a missing value that is not a string stays the ``na_object``)."""
    return _split(a, sep, maxsplit, False)


@_propagating
def rsplit(a, sep=None, maxsplit=None):
    """``str.rsplit(sep, maxsplit)`` of each string: an object array of lists, as
    ``np.char.rsplit``."""
    return _split(a, sep, maxsplit, True)


# Where ``_slice_replace`` stands for an omitted bound: a start of 0 and a stop past the
# end of every string give the results of ``None``.
_INT64 = np.iinfo(np.int64)


def _bound(value, omitted):
    """A ``slice_replace`` bound as int64: ``omitted`` for ``None``; a Python int
    beyond int64 clamped, which changes no result (bounds are clamped to lengths)."""
    if value is None:
        return omitted
    if isinstance(value, int) and not isinstance(value, bool):
        return min(max(value, int(_INT64.min)), int(_INT64.max))
    return value


@_propagating
def slice_replace(a, start=None, stop=None, repl=""):
    """pandas' ``str.slice_replace`` of each string, in one Rust pass.

    Each string ``x`` becomes ``x[:start] + repl + x[local_stop:]``, where
    ``local_stop`` is ``start`` when ``x[start:stop]`` is empty and ``stop`` otherwise;
    an omitted ``start`` keeps no head and an omitted ``stop`` no tail (indices in code
    points, with Python's slice rules). ``start``, ``stop`` and ``repl`` broadcast
    against ``a``. A missing string or replacement gives a missing result. The result
    has ``a``'s dtype (a StringDType one for other arrays).
    """
    a = _strings(a)
    if type(repl) is str:
        repl = np.array(repl, dtype=a.dtype)
    start = _bound(start, 0)
    stop = _bound(stop, _INT64.max)
    return _core._slice_replace(a, start, stop, repl)


@_propagating
def join_chars(a, sep):
    """pandas' ``str.join(sep)`` of each string, Python's ``sep.join(x)``: the characters
    of ``x`` with ``sep`` between each two, in one Rust pass. ``sep`` broadcasts against
    ``a``; a missing string or separator gives a missing result. The result has ``a``'s
    dtype (a StringDType one for other arrays)."""
    a = _strings(a)
    if type(sep) is str:
        sep = np.array(sep, dtype=a.dtype)
    return _core._join_chars(a, sep)


_OWN = {
    *_CASE,
    "encode",
    "decode",
    "join",
    "join_chars",
    "rsplit",
    "slice_replace",
    "split",
    "split_flat",
    "translate",
}
_UNWRAPPED = _OWN | {"mod", "multiply", "zfill", "slice"}


def _function(name):
    """The function behind ``name``: a backport where NumPy lacks the ufunc, else NumPy's."""
    return _BACKPORTS.get(name) or getattr(np.strings, name)


_WRAPPED = {
    name: _keeping_str_operands(_function(name)) for name in __all__ if name not in _UNWRAPPED
}
_WRAPPED |= {name: _function(name) for name in _UNWRAPPED - _OWN if name in __all__}

# The count results: float64 twins of the ufuncs, NaN for a missing value.
_MAX = np.iinfo(np.int64).max


def _counting(name):
    numpy_function = _WRAPPED[name]
    twin = _keeping_str_operands(getattr(_core, f"_{name}_nan"))

    def call(a, sub, start=0, end=None):
        if _has_missing(np.asanyarray(a), np.asanyarray(sub)):
            return twin(a, sub, start, _MAX if end is None else end)
        return numpy_function(a, sub, start, end)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = numpy_function.__doc__
    return call


def _str_len(a):
    a = np.asanyarray(a)
    if _has_missing(a):
        return _core._str_len_nan(a)
    return np.strings.str_len(a)


functools.update_wrapper(_str_len, np.strings.str_len)
_WRAPPED |= {name: _counting(name) for name in ("find", "rfind", "index", "rindex", "count")}
_WRAPPED["str_len"] = _str_len
_WRAPPED = {
    name: function
    if name in _NUMPY_RULES
    else _propagating(function, na_keyword=name in _NA_KEYWORD)
    for name, function in _WRAPPED.items()
}


def __getattr__(name):
    if name in _WRAPPED:
        return _WRAPPED[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
