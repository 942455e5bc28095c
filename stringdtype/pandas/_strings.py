"""``Series.str`` for the ``"stringdtype"`` column: pandas' ``_str_*`` hooks on this
package's kernels.

pandas' ``StringMethods`` calls ``array._str_<name>(...)`` for every method it dispatches;
this mixin runs each of them on the backing ``StringDType`` array with
``stringdtype.strings`` and ``stringdtype.regex``, whose missing-value rules are pandas'
(a missing element gives a missing string, ``NaN`` in a count, which is then ``float64``
rather than ``int64``, and ``na=`` in a bool result, ``False`` by default), so most
methods hand the backing array to a kernel and return its result as it is. The methods
that combine several kernels (``removeprefix``, ``get``, ``extract``, ``split``,
``partition``, ``encode``) still work on a copy whose missing elements are strings and
apply the missing mask themselves. The methods without a kernel
(``join``, ``translate``, ``wrap``, ``get_dummies``, ``decode``, ``normalize`` of the
non-ASCII strings, and ``cat`` and ``extractall``, which pandas does not dispatch) run
Python's ``str`` method per element, as pandas' own string arrays do.
"""

import re
import unicodedata

import numpy as np
from pandas import isna
from pandas._libs import lib
from pandas.api.types import is_bool_dtype, is_integer_dtype, is_object_dtype, is_string_dtype
from pandas.core.strings.object_array import ObjectStringArrayMixin

from .. import _core
from .. import regex as sre
from .. import strings as sds
from ._convert import BACKING, is_backing

try:
    from pandas.util._validators import validate_na_arg
except ImportError:  # pandas < 3 accepts any ``na``

    def validate_na_arg(value, name):
        return None


# The input of kernels that refuse a missing element: casting to a dtype without an
# na_object turns each into the string "nan", whose results are then masked.
_FILLED = _core.StringDType()
_PREDICATES = ("isalnum", "isalpha", "isdigit", "isspace", "islower", "isupper", "istitle")
_PREDICATES += ("isnumeric", "isdecimal", "isascii")
_CASES = ("lower", "upper", "title", "capitalize", "swapcase", "casefold")
# A stop past the end of every string (slice stops are int64).
_LONGEST = np.iinfo(np.int64).max


def _fill_for(na):
    """The boolean result of a missing element: ``False`` unless ``na`` says otherwise."""
    if na is lib.no_default or na is None or (lib.is_scalar(na) and isna(na)):
        return False
    return bool(na)


class StringMethodsMixin(ObjectStringArrayMixin):
    """The ``_str_*`` methods of ``StringDTypeArray``."""

    # ---- inputs and results ------------------------------------------------------------

    def _filled(self):
        """The backing array with each missing element a (masked) string, and the mask."""
        mask = self.isna()
        if mask.any():
            return self._ndarray.astype(_FILLED), mask
        return self._ndarray, mask

    def _apply(self, kernel):
        """``kernel`` of the backing array, and the mask, which the caller applies to the
        result (for kernels whose missing results are not pandas' as they are)."""
        return kernel(self._ndarray), self.isna()

    def _strings(self, result, mask):
        result = np.asarray(result)
        if not is_backing(result):
            result = result.astype(BACKING)
        if mask.any():
            stale = mask & ~np.isnan(result)  # most kernels propagate NaN themselves
            if stale.any():
                result[stale] = np.nan
        return self._from_backing_data(result)

    def _string_kernel(self, kernel):
        """``kernel`` (backing array -> strings), which keeps missing elements missing."""
        result = np.asarray(kernel(self._ndarray))
        if not is_backing(result):
            result = result.astype(BACKING)
        return self._from_backing_data(result)

    @staticmethod
    def _booleans(result, mask, na=lib.no_default):
        result = np.array(result, dtype=bool)
        result[mask] = _fill_for(na)
        return result

    @staticmethod
    def _objects(result, mask):
        result = np.asarray(result, dtype=object)
        if mask.any():
            result[mask] = np.nan
        return result

    def _str_map(self, f, na_value=lib.no_default, dtype=None, convert=True):
        """``f`` on each present string in Python, with pandas' ``str`` results."""
        dtype = self.dtype if dtype is None else dtype
        if na_value is lib.no_default:
            na_value = False if is_bool_dtype(dtype) else np.nan
        mask = self.isna()
        values = self._ndarray.astype(object)
        if is_integer_dtype(dtype) or is_bool_dtype(dtype):
            missing = lib.is_scalar(na_value) and isna(na_value)
            fill = (0 if is_integer_dtype(dtype) else False) if missing else na_value
            result = lib.map_infer_mask(
                values, f, mask.view("uint8"), convert=False, na_value=fill, dtype=np.dtype(dtype)
            )
            if missing and is_integer_dtype(dtype) and mask.any():
                result = result.astype(np.float64)
                result[mask] = np.nan
            return result
        if is_string_dtype(dtype) and not is_object_dtype(dtype):
            result = lib.map_infer_mask(
                values, f, mask.view("uint8"), convert=False, na_value=na_value
            )
            return type(self)._from_sequence(result)
        return lib.map_infer_mask(values, f, mask.view("uint8"))

    # ---- case, predicates, length ------------------------------------------------------

    def _str_normalize(self, form):
        # ASCII strings are their own normal form in all four forms: only the others
        # go through unicodedata, one by one (a missing element counts as ASCII).
        others = ~sds.isascii(self._ndarray, na=True)
        result = self._ndarray.copy()
        if others.any():
            normalized = [unicodedata.normalize(form, x) for x in result[others].tolist()]
            result[others] = np.array(normalized, dtype=BACKING)
        return self._from_backing_data(result)

    def _str_len(self):
        return sds.str_len(self._ndarray)

    # ---- searching ---------------------------------------------------------------------

    def _str_contains(self, pat, case=True, flags=0, na=lib.no_default, regex=True):
        validate_na_arg(na, name="na")
        if regex:
            compiled = re.compile(pat, flags=flags | (0 if case else re.IGNORECASE))
            return sre.search(compiled, self._ndarray, na=_fill_for(na))
        if case:
            found, mask = self._apply(lambda a: sds.find(a, pat) >= 0)
        else:
            upper = pat.upper()
            found, mask = self._apply(lambda a: sds.find(sds.upper(a), upper) >= 0)
        return self._booleans(found, mask, na)

    def _affix_test(self, function, pat, na):
        validate_na_arg(na, name="na")
        na = _fill_for(na)
        if isinstance(pat, str):
            return function(self._ndarray, pat, na=na)
        found = np.zeros(self._ndarray.shape, dtype=bool)
        for affix in pat:
            found |= function(self._ndarray, affix, na=False)
        return self._booleans(found, self.isna(), na)

    def _str_startswith(self, pat, na=lib.no_default):
        return self._affix_test(sds.startswith, pat, na)

    def _str_endswith(self, pat, na=lib.no_default):
        return self._affix_test(sds.endswith, pat, na)

    def _regex_test(self, function, pat, case, flags, na):
        validate_na_arg(na, name="na")
        if not case:
            flags |= re.IGNORECASE
        compiled = re.compile(pat, flags=flags)
        return function(compiled, self._ndarray, na=_fill_for(na))

    def _str_match(self, pat, case=True, flags=0, na=lib.no_default):
        return self._regex_test(sre.match, pat, case, flags, na)

    def _str_fullmatch(self, pat, case=True, flags=0, na=lib.no_default):
        return self._regex_test(sre.fullmatch, pat, case, flags, na)

    def _str_count(self, pat, flags=0):
        compiled = re.compile(pat, flags=flags)
        return sre.count(compiled, self._ndarray)

    def _str_find(self, sub, start=0, end=None):
        return sds.find(self._ndarray, sub, start, end)

    def _str_rfind(self, sub, start=0, end=None):
        return sds.rfind(self._ndarray, sub, start, end)

    def _str_index(self, sub, start=0, end=None):
        return sds.index(self._ndarray, sub, start, end)

    def _str_rindex(self, sub, start=0, end=None):
        return sds.rindex(self._ndarray, sub, start, end)

    # ---- transforming ------------------------------------------------------------------

    def _str_replace(self, pat, repl, n=-1, case=True, flags=0, regex=True):
        if case is False:
            flags |= re.IGNORECASE
        if regex or flags or callable(repl):
            if not isinstance(pat, re.Pattern):
                pat = re.compile(re.escape(pat) if regex is False else pat, flags=flags)
            count = max(n, 0)
            return self._string_kernel(lambda a: sre.sub(pat, repl, a, count=count))
        return self._string_kernel(lambda a: sds.replace(a, pat, repl, n))

    def _str_repeat(self, repeats):
        if lib.is_integer(repeats):
            counts = max(int(repeats), 0)
        else:
            counts = np.asarray(repeats)
            if counts.dtype.kind not in "iu":
                return super()._str_repeat(repeats)
            counts = np.maximum(counts, 0)
        return self._string_kernel(lambda a: np.strings.multiply(a, counts))

    def _str_pad(self, width, side="left", fillchar=" "):
        function = {"left": sds.rjust, "right": sds.ljust, "both": sds.center}[side]
        return self._string_kernel(lambda a: function(a, width, fillchar))

    def _str_zfill(self, width):
        return self._string_kernel(lambda a: sds.zfill(a, width))

    def _str_strip(self, to_strip=None):
        return self._string_kernel(lambda a: sds.strip(a, to_strip))

    def _str_lstrip(self, to_strip=None):
        return self._string_kernel(lambda a: sds.lstrip(a, to_strip))

    def _str_rstrip(self, to_strip=None):
        return self._string_kernel(lambda a: sds.rstrip(a, to_strip))

    def _str_removeprefix(self, prefix):
        starts = np.where(sds.startswith(self._ndarray, prefix), len(prefix), 0)
        return self._string_kernel(lambda a: sds.slice(a, starts, None))

    def _str_removesuffix(self, suffix):
        if not suffix:
            return self.copy()
        # A negative stop counts from the end; one past every length keeps the string.
        stops = np.where(sds.endswith(self._ndarray, suffix), -len(suffix), _LONGEST)
        return self._string_kernel(lambda a: sds.slice(a, 0, stops))

    def _str_slice(self, start=None, stop=None, step=None):
        return self._string_kernel(lambda a: sds.slice(a, start, stop, step))

    def _str_get(self, i):
        if not lib.is_integer(i):
            return super()._str_get(i)
        stop = i + 1 if i != -1 else None
        result = sds.slice(self._ndarray, i, stop)
        # The character at an index that is there is never empty: an empty result is an
        # index out of range, which pandas makes missing (a missing input stays missing).
        absent = sds.equal(result, "")
        if absent.any():
            result[absent] = np.nan
        return self._from_backing_data(result)

    def _str_slice_replace(self, start=None, stop=None, repl=None):
        repl = "" if repl is None else repl
        return self._string_kernel(lambda a: sds.slice_replace(a, start, stop, repl))

    # ---- regular expressions with string and list results ------------------------------

    def _str_findall(self, pat, flags=0):
        compiled = re.compile(pat, flags=flags)
        return self._objects(*self._apply(lambda a: sre.findall(compiled, a)))

    def _str_extract(self, pat, flags=0, expand=True):
        compiled = re.compile(pat, flags=flags)
        values, mask = self._filled()
        if not expand:
            return self._strings(sre.extract(compiled, values, 1, na_object=np.nan), mask)
        columns = [
            sre.extract(compiled, values, group, na_object=np.nan).astype(object)
            for group in range(1, compiled.groups + 1)
        ]
        rows = np.empty((len(values), compiled.groups), dtype=object)
        for group, column in enumerate(columns):
            rows[:, group] = column
        rows[mask] = np.nan
        return rows

    def _str_split(self, pat=None, n=-1, expand=False, regex=None):
        values, mask = self._filled()
        if pat is None:
            pieces = sds.split(values, None, -1 if n is None or n == 0 else n)
            return self._objects(pieces, mask)
        if regex is True or isinstance(pat, re.Pattern) or (regex is None and len(pat) != 1):
            maxsplit = 0 if n is None or n == -1 else n
            return self._objects(sre.split(re.compile(pat), values, maxsplit), mask)
        pieces = sds.split(values, pat, -1 if n is None or n == 0 else n)
        return self._objects(pieces, mask)

    def _str_rsplit(self, pat=None, n=-1):
        if pat is not None and not isinstance(pat, str):
            raise TypeError(f"expected a string object, not {type(pat).__name__}")
        values, mask = self._filled()
        return self._objects(sds.rsplit(values, pat, -1 if n is None or n == 0 else n), mask)

    def _partition(self, sep, right):
        """Tuples of ``str.partition`` (``rpartition`` if ``right``), NaN where missing,
        made in one pass with no array of parts in between."""
        if not isinstance(sep, str):
            raise TypeError(f"must be str, not {type(sep).__name__}")
        return _core._partition_objects(self._ndarray, sep, right, np.nan)

    def _str_partition(self, sep, expand):
        return self._partition(sep, False)

    def _str_rpartition(self, sep, expand):
        return self._partition(sep, True)

    def _str_join(self, sep):
        if not isinstance(sep, str):
            return super()._str_join(sep)
        return self._string_kernel(lambda a: sds.join_chars(a, sep))

    def _str_translate(self, table):
        return self._string_kernel(lambda a: sds.translate(a, table))

    def _str_encode(self, encoding, errors="strict"):
        values, mask = self._filled()
        if sds.endswith(values, "\x00").any():  # an ``S`` array drops trailing NULs
            return super()._str_encode(encoding, errors)
        return self._objects(sds.encode(values, encoding, errors).astype(object), mask)


def _case(name):
    function = getattr(sds, name)

    def convert(self):
        return self._string_kernel(function)

    convert.__name__ = f"_str_{name}"
    return convert


def _predicate(name):
    function = getattr(sds, name)

    def test(self):
        return function(self._ndarray)

    test.__name__ = f"_str_{name}"
    return test


for _name in _CASES:
    setattr(StringMethodsMixin, f"_str_{_name}", _case(_name))
for _name in _PREDICATES:
    setattr(StringMethodsMixin, f"_str_{_name}", _predicate(_name))
