"""Handing a ``.str`` result to its Series instead of copying it.

pandas' ``StringMethods._wrap_result`` wraps each ``_str_*`` result in a Series with
``Series(result, index=..., name=..., dtype=...)``, and ``Series.__init__`` (pandas 3,
copy-on-write) copies an ExtensionArray handed to it without ``copy=False``. The result
was made by the ``_str_*`` method a moment before and ``_wrap_result`` drops it right
after, so that copy (and freeing the original) is all waste: 5-15 ms of a
``s.str.upper()`` of 1,000,000 strings, where Arrow's immutable arrays copy for free.

Two conditions, both needed, let ``StringDTypeArray.copy`` return the array itself:

* the array is *fresh*: a ``_str_*`` method of the column made it and marked it so
  (``fresh_results``), and its backing array shares no memory with the column's own;
  any copy, handed over or not, clears the mark;
* the copy is asked for by ``Series.__init__`` called from ``StringMethods._wrap_result``
  (``wrapping_result``, which looks at the two calling frames).

Everything else copies as before: a ``_str_*`` result used directly (``r = s.array.
_str_upper(); r.copy()``), a result that ended in an ``Index`` (built with ``copy=False``,
the mark stays but no later caller is ``_wrap_result``'s ``Series``), a subclass of
``Series`` with its own ``__init__``, and any pandas release whose call path differs.
"""

import functools
import sys

import numpy as np

try:
    from pandas import Series
    from pandas.core.strings.accessor import StringMethods

    _CALLERS = (Series.__init__.__code__, StringMethods._wrap_result.__code__)
except (ImportError, AttributeError):  # a pandas without this path: always copy
    _CALLERS = None


def wrapping_result():
    """Whether the caller of ``copy`` is ``Series.__init__`` inside ``_wrap_result``."""
    if _CALLERS is None:
        return False
    # 0: this function, 1: StringDTypeArray.copy, 2: Series.__init__, 3: _wrap_result
    frame = sys._getframe(2)
    caller = frame.f_back
    return frame.f_code is _CALLERS[0] and caller is not None and caller.f_code is _CALLERS[1]


def fresh_results(method):
    """``method`` (a ``_str_*`` method), marking a string result it made as fresh."""

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        if type(result) is type(self) and not np.may_share_memory(
            result._ndarray, self._ndarray
        ):
            result._fresh = True
        return result

    return call
