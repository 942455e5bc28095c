# Every name of numpy.strings, with the same signatures, plus the functions below.
from typing import Any

import numpy as np
from numpy.strings import *
from numpy.typing import ArrayLike

def casefold(a: ArrayLike) -> np.ndarray: ...
def isascii(a: ArrayLike, *, na: bool = False) -> np.ndarray: ...
def split(a: ArrayLike, sep: str | None = None, maxsplit: int | None = None) -> np.ndarray: ...
def rsplit(a: ArrayLike, sep: str | None = None, maxsplit: int | None = None) -> np.ndarray: ...
def split_flat(
    a: ArrayLike, sep: str | None = None, maxsplit: int = -1
) -> tuple[np.ndarray, np.ndarray]: ...
def join(sep: str, parts: np.ndarray, offsets: ArrayLike) -> np.ndarray: ...
def translate(a: ArrayLike, table: Any, deletechars: bytes | None = None) -> np.ndarray: ...
def join_chars(a: ArrayLike, sep: ArrayLike) -> np.ndarray: ...
def slice_replace(
    a: ArrayLike,
    start: ArrayLike | None = None,
    stop: ArrayLike | None = None,
    repl: ArrayLike = "",
) -> np.ndarray: ...

# The bool results take na=, the bool a missing value gives (default False).
def isalpha(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def isdigit(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def isspace(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def isalnum(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def islower(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def isupper(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def istitle(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def isdecimal(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def isnumeric(
    x: ArrayLike,
    /,
    out: np.ndarray | None = None,
    *,
    where: ArrayLike = True,
    casting: str = "same_kind",
    order: str = "K",
    dtype: object = None,
    subok: bool = True,
    signature: object = None,
    na: bool = False,
) -> np.ndarray: ...
def startswith(
    a: ArrayLike,
    prefix: ArrayLike,
    start: ArrayLike = 0,
    end: ArrayLike | None = None,
    *,
    na: bool = False,
) -> np.ndarray: ...
def endswith(
    a: ArrayLike,
    suffix: ArrayLike,
    start: ArrayLike = 0,
    end: ArrayLike | None = None,
    *,
    na: bool = False,
) -> np.ndarray: ...
