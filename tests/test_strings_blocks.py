"""The kernels that read a string 16 bytes at a time (``str_len``, ``endswith`` of a
short suffix, step-1 ``slice`` with small bounds) against NumPy's StringDType and
Python's ``str``: ASCII strings of every length around the 12-byte inline limit and the
16-byte blocks, each also with a character of two, three or four bytes at every byte
position, NULs inside, missing values, and strided and 2-D inputs."""

import numpy as np
import pytest
from strings_support import check, make, run

BASE = "ab\x00cdefghijklmnopqrstuvwxyz0123456789" * 2
LENGTHS = [*range(41), 47, 48, 49, 63, 64, 65]


def block_values(flavor):
    """The strings of the module docstring; none ends with a NUL, which NumPy takes for
    padding (see test_strings.py). The flavor's missing value comes first and last."""
    values = []
    for length in LENGTHS:
        text = BASE[:length]
        values.append(text)
        for char in "é€😀":
            values += [text[:at] + char + text[at + 1 :] for at in range(length)]
    values = [v for v in values if not v.endswith("\x00")]
    if flavor.has_na:
        values = [flavor.na_object, *values, flavor.na_object]
    return values


def layouts(a):
    """``a`` as it comes, reversed with a stride, and as a 2-D array read by columns."""
    even = a[: len(a) // 2 * 2]
    return [a, a[::-3], even.reshape(2, -1).T]


def check_layouts(flavor, values, fn):
    run(lambda cls: tuple(fn(view) for view in layouts(make(values, flavor, cls))))


def test_str_len(flavor):
    values = block_values(flavor)
    check(flavor, values, lambda cls, a: np.strings.str_len(a), len)
    check_layouts(flavor, values, np.strings.str_len)


SUFFIXES = [
    "",
    "a",
    "9",
    "é",
    "😀",
    "yz",
    "z0123",
    "\x00cdefghijkl",
    "€defghijklm",
    "xyz0123456789",
]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_endswith(flavor, suffix):
    values = block_values(flavor)
    values += [v + suffix for v in values[::7] if isinstance(v, str)]
    check(
        flavor,
        values,
        lambda cls, a: np.strings.endswith(a, suffix),
        lambda s: s.endswith(suffix),
    )
    check_layouts(flavor, values, lambda a: np.strings.endswith(a, suffix))


BOUNDS = [(2, 8), (0, 16), (3, 17), (0, 13), (1, 12), (5, 3), (16, 16), (15, 40), (0, 0)]


@pytest.mark.skipif(not hasattr(np.strings, "slice"), reason="np.strings.slice is missing")
@pytest.mark.parametrize("bounds", BOUNDS, ids=str)
def test_slice(flavor, bounds):
    values = block_values(flavor)
    start, stop = bounds
    check(
        flavor,
        values,
        lambda cls, a: np.strings.slice(a, start, stop),
        lambda s: s[start:stop],
    )
    check_layouts(flavor, values, lambda a: np.strings.slice(a, start, stop))
