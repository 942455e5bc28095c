"""Regular expressions over arrays of strings, in the words of Python's :mod:`re`.

>>> import numpy as np
>>> from stringdtype import StringDType, regex as sre
>>> a = np.array(["id=12 ok", "no id", "id=7"], dtype=StringDType())
>>> sre.search(r"id=\\d+", a)
array([ True, False,  True])
>>> sre.extract(r"id=(\\d+)", a)
array(['12', None, '7'], dtype=StringDType(na_object=None))

Each function takes a pattern (a ``str`` or an ``re.compile``\\ d pattern, with the
``flags`` of :mod:`re`), strings (a StringDType array, any array-like of ``str``, or one
``str``) and returns an array of the strings' shape: ``search``, ``match`` and
``fullmatch`` give bools, ``count`` int64, ``sub`` and ``extract`` StringDType arrays,
``findall`` and ``split`` object arrays of lists (as ``np.char.split``), and
``findall_flat`` and ``split_flat`` the same lists without a Python object per item, in
Arrow's list layout ``(parts, offsets)``. ``out=`` works as for a ufunc where the result
is an array of one value per string.

Python's syntax and meaning are the contract. The Rust engine (linear time in the string,
for every pattern it runs) runs every pattern it can express with Python's meaning:
literals, classes and sets, ``\\d \\w \\s`` (Unicode or ASCII), anchors, groups and named
groups, alternation, greedy and lazy repeats, and the flags IGNORECASE, MULTILINE, DOTALL,
VERBOSE and ASCII. Patterns it cannot express (back-references, look-arounds, atomic
groups, possessive repeats, conditionals, ``\\N{...}``) run through Python's ``re``,
element by element, with the same results; so do the few strings on which the engine could
read a pattern differently (a ``\\b`` next to a character Python and the engine class
differently as a word character, ``$`` in a string with several newlines). An invalid
pattern raises ``re.error`` as Python does; a pattern too large for the engine's limits
raises ``ValueError``.

Missing values follow pandas and polars, whatever the ``na_object`` (``None``, a NaN-like
one, a string): a missing string stays missing in ``sub`` and ``extract``, gives the
``na_object`` in place of a list in ``findall`` and ``split`` and one missing item in
``findall_flat`` and ``split_flat``; ``count`` gives int64 when no string is missing, else
float64 with NaN for each missing one; ``search``, ``match`` and ``fullmatch`` take
``na=`` (default ``False``), the bool a missing string gives.
"""

import functools
import re

import numpy as np

from . import _core
from ._core import StringDType
from .strings import _has_missing, _na_flag, _propagating

__all__ = [
    "ASCII",
    "DOTALL",
    "IGNORECASE",
    "MULTILINE",
    "VERBOSE",
    "A",
    "I",
    "M",
    "S",
    "X",
    "count",
    "error",
    "escape",
    "extract",
    "findall",
    "findall_flat",
    "fullmatch",
    "match",
    "search",
    "split",
    "split_flat",
    "sub",
    "uses_engine",
]

A = ASCII = re.ASCII
I = IGNORECASE = re.IGNORECASE
M = MULTILINE = re.MULTILINE
S = DOTALL = re.DOTALL
X = VERBOSE = re.VERBOSE
error = re.error
escape = re.escape

_UNSET = object()


def _compile(pattern, flags):
    if isinstance(pattern, re.Pattern):
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        compiled = pattern
    else:
        compiled = re.compile(pattern, flags)
    if isinstance(compiled.pattern, bytes):
        raise TypeError("cannot use a bytes pattern on a string-like object")
    return compiled


def _fallback(op, compiled, repl, count, group):
    """The operation by Python's ``re`` for one string, as the program's loops want it."""
    if op in ("search", "match", "fullmatch"):
        find = getattr(compiled, op)
        return lambda s: find(s) is not None
    if op == "count":
        return lambda s: sum(1 for _ in compiled.finditer(s))
    if op == "sub":
        return lambda s: compiled.sub(repl, s, count=count)
    if op == "extract":

        def extract(s):
            m = compiled.search(s)
            return None if m is None else m.group(group)

        return extract
    if op == "split":
        return lambda s: compiled.split(s, maxsplit=count)
    if compiled.groups > 1:
        return lambda s: [item for groups in compiled.findall(s) for item in groups]
    return compiled.findall


@functools.lru_cache(maxsize=256)
def _cached_program(compiled, op, repl, count, group):
    engine_repl = repl if isinstance(repl, str) else None
    return _core.RegexProgram(
        compiled.pattern,
        compiled.flags,
        op,
        _fallback(op, compiled, repl, count, group),
        engine_repl,
        count,
        group,
    )


def _program(pattern, flags, op, repl=None, count=0, group=0):
    compiled = _compile(pattern, flags)
    try:
        return _cached_program(compiled, op, repl, count, group)
    except TypeError:  # an unhashable callable repl
        return _cached_program.__wrapped__(compiled, op, repl, count, group)


def _strings(a):
    if isinstance(a, np.ndarray) and isinstance(a.dtype, StringDType):
        return a
    return np.asarray(a, dtype=StringDType())


def _index(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    return int(value)


def _test(op, pattern, a, flags, out, na):
    program = _program(pattern, flags, op)
    previous = _core._set_missing_policy(True, _na_flag(na))
    try:
        return _core._regex_test(_strings(a), program.id, out=out)
    finally:
        _core._set_missing_policy(*previous)


def search(pattern, a, flags=0, *, na=False, out=None):
    """Whether ``re.search(pattern, s, flags)`` finds a match in each string (bool; ``na``
    for a missing string)."""
    return _test("search", pattern, a, flags, out, na)


def match(pattern, a, flags=0, *, na=False, out=None):
    """Whether ``re.match(pattern, s, flags)`` matches at the start of each string (``na``
    for a missing string)."""
    return _test("match", pattern, a, flags, out, na)


def fullmatch(pattern, a, flags=0, *, na=False, out=None):
    """Whether ``re.fullmatch(pattern, s, flags)`` matches the whole of each string
    (``na`` for a missing string)."""
    return _test("fullmatch", pattern, a, flags, out, na)


@_propagating
def count(pattern, a, flags=0, *, out=None):
    """The number of matches of ``pattern`` in each string, ``len(re.findall(...))``:
    int64, or float64 with NaN for each missing string when there is one."""
    program = _program(pattern, flags, "count")
    strings = _strings(a)
    if _has_missing(strings):
        return _core._regex_count_nan(strings, program.id, out=out)
    return _core._regex_count(strings, program.id, out=out)


@_propagating
def sub(pattern, repl, a, count=0, flags=0, *, out=None):
    """``re.sub(pattern, repl, s, count, flags)`` of each string (StringDType).

    ``repl`` is a string with Python's ``\\1``, ``\\g<1>`` and ``\\g<name>`` references and
    escapes, or a callable (which Python calls with each match); ``count`` 0 replaces
    every match."""
    count = _index(count, "count")
    compiled = _compile(pattern, flags)
    if isinstance(repl, str):
        compiled.sub(repl, "")  # raises Python's error for a bad replacement
    elif not callable(repl):
        raise TypeError(f"repl must be a str or a callable, not {type(repl).__name__}")
    program = _program(compiled, 0, "sub", repl, count)
    return _core._regex_sub(_strings(a), program.id, out=out)


@_propagating
def extract(pattern, a, group=1, flags=0, *, na_object=_UNSET, out=None):
    """Group ``group`` (a number or a name) of the first match in each string,
    ``re.search(pattern, s).group(group)``; a missing value where nothing matches or the
    group did not take part.

    The result has the strings' ``na_object``, or ``na_object`` if given, else ``None``.
    """
    compiled = _compile(pattern, flags)
    if isinstance(group, str):
        if group not in compiled.groupindex:
            raise IndexError("no such group")
        group = compiled.groupindex[group]
    group = _index(group, "group")
    if not 0 <= group <= compiled.groups:
        raise IndexError("no such group")
    strings = _strings(a)
    program = _program(compiled, 0, "extract", group=group)
    if out is not None:
        if not (isinstance(out, np.ndarray) and hasattr(out.dtype, "na_object")):
            raise TypeError("extract's out= must be a StringDType array with an na_object")
        return _core._regex_extract(strings, program.id, out=out)
    if na_object is _UNSET:
        na_object = getattr(strings.dtype, "na_object", None)
    dtype = StringDType(na_object=na_object, coerce=strings.dtype.coerce)
    result = _core._regex_extract(strings, program.id, out=np.empty(strings.shape, dtype=dtype))
    return result[()] if result.ndim == 0 else result


@_propagating
def _lists(program, a, group=1):
    strings = _strings(a)
    na = getattr(strings.dtype, "na_object", None)
    result = _core._regex_lists(program, strings, True, na, group)
    return result[()] if result.ndim == 0 else result


def findall(pattern, a, flags=0):
    """``re.findall(pattern, s, flags)`` of each string: an object array of lists (of
    tuples when the pattern has several groups)."""
    compiled = _compile(pattern, flags)
    return _lists(_program(compiled, 0, "findall"), a, max(compiled.groups, 1))


def split(pattern, a, maxsplit=0, flags=0):
    """``re.split(pattern, s, maxsplit, flags)`` of each string: an object array of
    lists (with each match's groups between the pieces, ``None`` for a group that did
    not take part)."""
    maxsplit = _index(maxsplit, "maxsplit")
    return _lists(_program(pattern, flags, "split", count=maxsplit), a)


def findall_flat(pattern, a, flags=0):
    """:func:`findall` without a Python object per item: ``(parts, offsets)`` in Arrow's
    list layout (see ``stringdtype.strings.split_flat``). With several groups, each match
    gives its groups one after the other. ``parts`` has ``StringDType(na_object=None)``;
    a NaN-like missing string gives one missing item."""
    return _flat(_program(pattern, flags, "findall"), a)


def split_flat(pattern, a, maxsplit=0, flags=0):
    """:func:`split` without a Python object per item: ``(parts, offsets)`` in Arrow's
    list layout; a group that did not take part, and a NaN-like missing string, give a
    missing item (``parts`` has ``StringDType(na_object=None)``)."""
    maxsplit = _index(maxsplit, "maxsplit")
    return _flat(_program(pattern, flags, "split", count=maxsplit), a)


@_propagating
def _flat(program, a):
    return _core._regex_lists(program, _strings(a))


def uses_engine(pattern, flags=0):
    """Whether the Rust engine runs ``pattern`` (else Python's ``re`` answers for every
    string): see the module docstring for what it runs."""
    return _program(pattern, flags, "search").uses_engine
