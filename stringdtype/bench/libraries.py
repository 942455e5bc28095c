"""The libraries under test, imported once, and the guard that keeps the run going.

pyarrow and polars are optional contestants (``None`` when missing); stringdtype may be
unbuilt or broken, in which case ``sd``/``SDType`` are ``None`` and ``SD_IMPORT_ERROR``
says why.  ``attempt`` is the benchmark's only blind catch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:  # pragma: no cover - optional contestant
    pa = pc = None

try:
    import polars as pl
except ImportError:  # pragma: no cover - optional contestant
    pl = None


def short_error(exc: BaseException, limit: int = 120) -> str:
    """``Type: first line of the message``, cut to ``limit`` characters."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def attempt(fn: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """``(fn(*args), None)``, or ``(None, message)``: the bench's only blind catch."""
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - report any failure, never die
        return None, short_error(exc)


def _import_stringdtype() -> tuple[Any, Any]:
    import stringdtype  # may be unbuilt or broken: imported under attempt()

    return stringdtype, stringdtype.StringDType


# Not built yet, or a broken build: the contestant is skipped with this message.
_sd_pair, SD_IMPORT_ERROR = attempt(_import_stringdtype)
sd, SDType = _sd_pair or (None, None)
