import re
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

_Pattern: TypeAlias = str | re.Pattern[str]
_Group: TypeAlias = int | str

A: Final = re.ASCII
ASCII: Final = re.ASCII
I: Final = re.IGNORECASE
IGNORECASE: Final = re.IGNORECASE
M: Final = re.MULTILINE
MULTILINE: Final = re.MULTILINE
S: Final = re.DOTALL
DOTALL: Final = re.DOTALL
X: Final = re.VERBOSE
VERBOSE: Final = re.VERBOSE

error = re.error

def escape(pattern: str) -> str: ...
def search(
    pattern: _Pattern,
    a: ArrayLike,
    flags: int = 0,
    *,
    na: bool = False,
    out: NDArray[np.bool_] | None = None,
) -> Any: ...
def match(
    pattern: _Pattern,
    a: ArrayLike,
    flags: int = 0,
    *,
    na: bool = False,
    out: NDArray[np.bool_] | None = None,
) -> Any: ...
def fullmatch(
    pattern: _Pattern,
    a: ArrayLike,
    flags: int = 0,
    *,
    na: bool = False,
    out: NDArray[np.bool_] | None = None,
) -> Any: ...
def count(
    pattern: _Pattern, a: ArrayLike, flags: int = 0, *, out: NDArray[np.int64] | None = None
) -> Any: ...
def sub(
    pattern: _Pattern,
    repl: str | Callable[[re.Match[str]], str],
    a: ArrayLike,
    count: int = 0,
    flags: int = 0,
    *,
    out: np.ndarray | None = None,
) -> Any: ...
def extract(
    pattern: _Pattern,
    a: ArrayLike,
    group: _Group = 1,
    flags: int = 0,
    *,
    na_object: Any = ...,
    out: np.ndarray | None = None,
) -> Any: ...
def findall(pattern: _Pattern, a: ArrayLike, flags: int = 0) -> Any: ...
def split(pattern: _Pattern, a: ArrayLike, maxsplit: int = 0, flags: int = 0) -> Any: ...
def findall_flat(
    pattern: _Pattern, a: ArrayLike, flags: int = 0
) -> tuple[np.ndarray, np.ndarray]: ...
def split_flat(
    pattern: _Pattern, a: ArrayLike, maxsplit: int = 0, flags: int = 0
) -> tuple[np.ndarray, np.ndarray]: ...
def uses_engine(pattern: _Pattern, flags: int = 0) -> bool: ...
