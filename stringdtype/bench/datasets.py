"""The data sets: their specs, the seeded string generator, and the inputs of one run.

``make_strings`` draws every data set from ``SEED``; ``make_inputs`` adds what the
operations need besides the contestant's own arrays (a permutation, a scalar, Arrow and
polars copies, ...), the same for every contestant.
"""

from __future__ import annotations

import dataclasses
import string
from typing import Any

import numpy as np

from .libraries import pa, pl


@dataclasses.dataclass(frozen=True)
class DatasetSpec:
    """How to generate one data set: ``n`` strings of ``min_len..max_len`` chars."""

    name: str
    n: int
    min_len: int
    max_len: int
    non_ascii: float  # fraction of strings that get two non-ASCII characters
    description: str


DATASETS = {
    "short": DatasetSpec("short", 1_000_000, 0, 16, 0.0, "ASCII, 0-16 bytes"),
    "medium": DatasetSpec("medium", 1_000_000, 16, 64, 0.2, "16-64 chars, 20% non-ASCII"),
    "long": DatasetSpec("long", 100_000, 200, 1000, 0.0, "ASCII, 200-1000 bytes"),
}

# Letters, digits and spaces (about 9%), so strip/partition/isdigit have work to do.
ALPHABET = string.ascii_letters + string.digits + " " * 6
NON_ASCII = "éüñßøçåжщы€中文字語😀🚀"
SEED = 20240229


def _codepoints(chars: str) -> np.ndarray:
    return np.frombuffer(chars.encode("utf-32-le"), dtype=np.uint32)


def make_strings(spec: DatasetSpec, seed: int = SEED) -> list[str]:
    """Generate the data set's strings with NumPy, slicing them from one big str."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(spec.min_len, spec.max_len + 1, spec.n)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    alphabet = _codepoints(ALPHABET)
    cps = alphabet[rng.integers(0, len(alphabet), int(ends[-1]))]
    if spec.non_ascii:
        chosen = (rng.random(spec.n) < spec.non_ascii) & (lengths > 0)
        pool = _codepoints(NON_ASCII)
        for _ in range(2):
            where = starts[chosen] + (rng.random(chosen.sum()) * lengths[chosen])
            cps[where.astype(np.int64)] = pool[rng.integers(0, len(pool), len(where))]
    text = cps.tobytes().decode("utf-32-le")
    return [text[i:j] for i, j in zip(starts.tolist(), ends.tolist())]


@dataclasses.dataclass
class Inputs:
    """Everything an operation may use; ``a``/``b``/``dtype`` are per contestant."""

    strings: list[str]
    rotated: list[str]  # the same strings shifted by one: the right operand of a < b
    perm: np.ndarray  # a random permutation, for take and fancy assignment
    mask: np.ndarray  # a random boolean mask, about half True, for mask selection
    fixed: np.ndarray  # the strings as a NumPy `U` array, for casts from and to `U`
    scalar: str  # a value present in the data, for a == scalar
    width: int  # for center and zfill: a little over the longest string
    views: np.ndarray  # 16 * n bytes, for the memcpy yardstick
    arrow: Any = None  # pa.string() array of the strings
    arrow_view: Any = None  # pa.string_view() array of the strings
    series: Any = None  # polars Series of the strings
    encoded: Any = None  # the strings as UTF-8, an ``S`` array (for decode)
    numpy_t: Any = None  # the strings as an array of NumPy's own StringDType
    a: Any = None  # the contestant's container of the strings
    b: Any = None  # and of the rotated strings
    dtype: Any = None  # the contestant's NumPy dtype, if it has one


def make_inputs(spec: DatasetSpec, strings: list[str]) -> Inputs:
    """Build the contestant-independent inputs of one data set."""
    rng = np.random.default_rng(SEED + 1)
    n = len(strings)
    return Inputs(
        strings=strings,
        rotated=strings[1:] + strings[:1],
        perm=rng.permutation(n),
        mask=rng.random(n) < 0.5,
        fixed=np.array(strings, dtype=str),
        scalar=strings[n // 2],
        width=spec.max_len + 4,
        views=np.ones(16 * n, dtype=np.uint8),
        arrow=pa.array(strings, type=pa.string()) if pa else None,
        arrow_view=pa.array(strings, type=pa.string_view()) if pa else None,
        series=pl.Series(strings, dtype=pl.String) if pl else None,
        encoded=np.array([s.encode() for s in strings], dtype="S"),
        numpy_t=np.array(strings, dtype=np.dtypes.StringDType()),
    )


def utf8_bytes(strings: list[str]) -> int:
    """Total UTF-8 size of the strings (the raw payload)."""
    return sum(map(len, (s.encode() for s in strings)))
