from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np
from typing_extensions import Self

class StringScalar(str): ...

class StringDType(np.dtype[StringScalar]):  # type: ignore[misc]
    def __new__(cls, size: int = ..., /, *, na_object: Any = ..., coerce: bool = True) -> Self: ...
    @property
    def na_object(self) -> Any: ...
    @property
    def coerce(self) -> bool: ...

class MemoryInfo(TypedDict):
    views: int
    arena_capacity: int
    arena_used: int
    string_bytes: int
    chunks: int

def memory_info(array: np.ndarray) -> MemoryInfo: ...
def memory_usage(array: np.ndarray) -> int: ...
def _rebuild_dtype(coerce: bool, *na_object: Any) -> StringDType: ...
def _pool_threads() -> int: ...
def _set_pool_threads(n: int) -> None: ...
def _pool_threshold() -> int: ...
def _set_pool_threshold(n: int) -> None: ...
def _set_key_sort_limit(n: int) -> int: ...
def _set_part_span(n: int) -> None: ...

class ArrowStringViewArray:
    """An Arrow ``string_view`` array exported by ``to_arrow`` (Arrow PyCapsule interface)."""

    @property
    def null_count(self) -> int: ...
    def __len__(self) -> int: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...

def to_arrow(array: np.ndarray) -> ArrowStringViewArray: ...
def from_arrow(obj: Any, *, na_object: Any = ..., coerce: bool = True) -> np.ndarray: ...

# The Unicode version of the compiled-in tables: the running Python's
# ``unicodedata.unidata_version`` (the module refuses to load otherwise).
unicode_version: str

# The package's own ufuncs, each listed with its name, NumPy release, inputs, outputs and
# docstring in _catalog() (tests/test_stubs.py checks the ufuncs below against it).
def _catalog() -> list[tuple[str, tuple[int, int] | None, int, int, str]]: ...

# Case conversions (StringDType in, StringDType out; see stringdtype.strings).
upper: np.ufunc
lower: np.ufunc
swapcase: np.ufunc
capitalize: np.ufunc
title: np.ufunc
casefold: np.ufunc
# str.isascii (StringDType in, bool out).
isascii: np.ufunc
_utf8_nbytes: np.ufunc

# str.translate (see stringdtype.strings.translate, which makes the table for each call).
class TranslateTable:
    def __new__(cls, mapping: dict[int, Any]) -> Self: ...
    @property
    def id(self) -> int: ...

_translate: np.ufunc
_encode_utf8: np.ufunc

# Missing values under pandas' policy (see stringdtype.strings): the calling thread's
# policy, whether each element is missing, and float64 twins of the count results (NaN
# for a missing value).
def _set_missing_policy(propagate: bool, na: bool) -> tuple[bool, bool]: ...

_isna: np.ufunc
_str_len_nan: np.ufunc
_find_nan: np.ufunc
_rfind_nan: np.ufunc
_index_nan: np.ufunc
_rindex_nan: np.ufunc
_count_nan: np.ufunc

# Only under a NumPy that lacks NumPy's ufunc of that name (_slice before 2.3).
_slice: np.ufunc

# pandas' str.slice_replace in one pass (see stringdtype.strings.slice_replace).
_slice_replace: np.ufunc
# pandas' str.join of strings, sep.join(a) (see stringdtype.strings.join_chars).
_join_chars: np.ufunc

# Regular expressions (see stringdtype.regex, which makes and caches the programs).
class RegexProgram:
    def __new__(
        cls,
        pattern: str,
        flags: int,
        op: str,
        fallback: Callable[[str], Any],
        repl: str | None = None,
        count: int = 0,
        group: int = 0,
    ) -> Self: ...
    @property
    def id(self) -> int: ...
    @property
    def uses_engine(self) -> bool: ...

_regex_test: np.ufunc
_regex_count: np.ufunc
_regex_count_nan: np.ufunc
_regex_sub: np.ufunc
_regex_extract: np.ufunc

def _regex_lists(
    program: RegexProgram,
    array: np.ndarray,
    objects: bool = False,
    na: Any = None,
    group: int = 1,
) -> Any: ...

# pandas' factorize: int64 codes (-1 for a missing value, or with na_sentinel=False one
# more value in its place) and the distinct strings.
def _factorize(
    array: np.ndarray, na_sentinel: bool = True
) -> tuple[np.ndarray, np.ndarray]: ...

# pandas' take: array[i] for each int64 index, -1 a missing value.
def _take(array: np.ndarray, indices: np.ndarray) -> np.ndarray: ...

# Lists of strings in Arrow's list layout (see stringdtype.strings.split_flat and join).
def _split(
    array: np.ndarray,
    sep: str | None,
    maxsplit: int,
    right: bool,
    objects: bool = False,
    na: Any = None,
) -> Any: ...
def _join_flat(sep: str, parts: np.ndarray, offsets: np.ndarray) -> np.ndarray: ...

# pandas' partition and rpartition: an object array of (head, sep, tail) tuples.
def _partition_objects(array: np.ndarray, sep: str, right: bool, na: Any = None) -> np.ndarray: ...
