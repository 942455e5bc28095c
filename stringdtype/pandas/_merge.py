"""The keys of a pandas merge or join on two ``"stringdtype"`` columns as int64 codes.

pandas' ``_factorize_keys`` (pandas/core/reshape/merge.py) asks each key column for
``_values_for_factorize()``, the left one and right after it the right one, and hashes
what they give. For an ExtensionArray from outside pandas that is an ``object`` array of
``str``, and hashing those is most of a merge (about 240 of 435 ms for the benchmark's
1,000,000 keys); pandas' own Arrow-backed strings take a path chosen by their dtype's
class instead.

When the caller is that function, of a pandas release whose function was read for this
(``_CHECKED``), the first call factorizes both key columns together in one Rust pass
(``stringdtype._core._factorize``) and returns the left column's codes; the second call,
from the same call of ``_factorize_keys`` (the same frame), returns the right column's.
Equal strings get equal codes in both, every missing value one code of its own (pandas
pairs missing keys with each other, as its object path does), and with ``sort`` the codes
follow the strings' order with missing last, so the labels pandas' integer factorizer
makes from them are the ones its object factorizer makes from the strings.

Any other caller, release or pair of columns gets the ``object`` array as before.
"""

import sys
import threading

import numpy as np

from .._core import _factorize

# pandas releases (major, minor) whose ``_factorize_keys`` asks the left and then the
# right key column in consecutive statements, with ``lk``, ``rk`` and ``sort`` arguments.
_CHECKED = {(2, 3), (3, 0), (3, 1)}


def _factorize_keys_code():
    try:
        import pandas as pd
        from pandas.core.reshape import merge
    except ImportError:
        return None
    try:
        release = tuple(int(part) for part in pd.__version__.split(".")[:2])
    except ValueError:
        return None
    function = getattr(merge, "_factorize_keys", None)
    if release not in _CHECKED or function is None:
        return None
    return function.__code__


_CODE = _factorize_keys_code()

# The right column's codes between the two calls: (frame, right column, codes).
_pending = threading.local()


def merge_codes(array):
    """``array``'s int64 codes when ``_factorize_keys`` asks for its values (see the
    module docstring), else ``None``."""
    if _CODE is None:
        return None
    # 0: this function, 1: _values_for_factorize, 2: its caller
    frame = sys._getframe(2)
    if frame.f_code is not _CODE:
        return None
    pending = getattr(_pending, "value", None)
    if pending is not None and pending[0] is frame:
        _pending.value = None
        _, right, codes = pending
        if right is not array:
            # The left column got codes, so this one must too: pandas has changed.
            raise RuntimeError(
                "stringdtype: pandas' merge asked for the keys of an unexpected column"
            )
        return codes
    arguments = frame.f_locals
    left, right = arguments.get("lk"), arguments.get("rk")
    if left is not array or type(right) is not type(array) or right.dtype != array.dtype:
        return None
    left_codes, right_codes = joint_codes(left._ndarray, right._ndarray, bool(arguments["sort"]))
    _pending.value = (frame, right, right_codes)
    return left_codes


def joint_codes(left, right, sort):
    """int64 codes of the strings of 1-D ``left`` and ``right``, equal for equal strings
    across both; a missing value's code is the number of distinct strings; with
    ``sort`` the codes follow the strings' order."""
    codes, uniques = _factorize(np.concatenate([left, right]))
    distinct = len(uniques)
    if sort:
        rank = np.empty(distinct, dtype=np.int64)
        rank[np.argsort(uniques)] = np.arange(distinct)
        codes = np.where(codes >= 0, rank[codes], distinct)
    else:
        codes[codes < 0] = distinct
    return codes[: len(left)], codes[len(left) :]
