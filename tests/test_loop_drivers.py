"""The loop drivers' rule for string results (src/loops/drivers.rs): a result goes
straight into the output's arena when no input shares it, and is copied out first when
one does (in place, or into a view of an input). Every shape of call must give Python's
answer: a new array, `out=` another array holding long strings, `out=` the input itself,
and `out=` a reversed view of the input."""

import math
import random

import numpy as np
import pytest
from conftest import REFERENCE, StringDType, random_strings

if REFERENCE:
    pytest.skip("the package's own ufuncs", allow_module_level=True)

from stringdtype import _core

umath = np._core.umath

LONG = "a previous value longer than twelve bytes"

# name: (ufunc, extra operands of n elements, Python model of one element)
UNARY = {
    "upper": (_core.upper, lambda s: s.upper()),
    "lower": (_core.lower, lambda s: s.lower()),
    "swapcase": (_core.swapcase, lambda s: s.swapcase()),
    "capitalize": (_core.capitalize, lambda s: s.capitalize()),
    "title": (_core.title, lambda s: s.title()),
    "strip": (umath._strip_whitespace, lambda s: s.strip()),
}


def strings(seed, n=40, na_object=None):
    rng = random.Random(seed)
    if na_object is None:
        return random_strings(rng, n)
    return random_strings(rng, n, na_object=na_object)


def model_list(values, fn):
    return [v if isinstance(v, float) and math.isnan(v) else fn(v) for v in values]


def as_list(a):
    return [v if isinstance(v, str) else "<na>" for v in a.tolist()]


def shapes_of_call(make, call, expected):
    """The four shapes of call, each checked against `expected`."""
    expected = as_list(np.array(expected, dtype=object))
    assert as_list(call(make(), None)) == expected
    out = np.full(len(expected), LONG, dtype=StringDType(na_object=np.nan))
    call(make(), out)
    assert as_list(out) == expected
    a = make()
    call(a, a)
    assert as_list(a) == expected
    a = make()
    call(a[::-1], a[::-1])
    assert as_list(a) == expected


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("seed", range(3))
def test_unary_string_results_in_every_shape_of_call(name, seed):
    ufunc, fn = UNARY[name]
    values = strings(seed, na_object=np.nan)
    dtype = StringDType(na_object=np.nan)

    def call(a, out):
        return ufunc(a, out=out) if out is not None else ufunc(a)

    shapes_of_call(lambda: np.array(values, dtype=dtype), call, model_list(values, fn))


CASES = {
    "upper": (_core.upper, str.upper),
    "lower": (_core.lower, str.lower),
    "swapcase": (_core.swapcase, str.swapcase),
    "capitalize": (_core.capitalize, str.capitalize),
    "title": (_core.title, str.title),
    "casefold": (_core.casefold, str.casefold),
}


@pytest.mark.parametrize("name", CASES)
def test_ascii_case_results_are_written_into_their_block_in_every_shape_of_call(name):
    # All-ASCII strings are converted straight into their result's block (one length
    # for result and input): every length around the inline limit and the kernels'
    # 16-byte steps, every ASCII byte, between missing and non-ASCII values.
    ufunc, fn = CASES[name]
    text = "".join(map(chr, range(128))) * 3
    values = [text[k : k + n] for k, n in enumerate([*range(41), 63, 64, 65, 300])]
    values += [np.nan, "ÉCOLE normale ß", "x" * 12 + "é"]
    dtype = StringDType(na_object=np.nan)

    def call(a, out):
        return ufunc(a, out=out) if out is not None else ufunc(a)

    shapes_of_call(lambda: np.array(values, dtype=dtype), call, model_list(values, fn))


@pytest.mark.parametrize("name", CASES)
def test_case_with_one_non_ascii_character_at_every_position(name):
    # The ASCII runs around the character go through the kernels' 16-byte blocks,
    # their overlapping last block and the two-word step of 4 to 15 bytes; the
    # characters grow ('ß'), depend on their neighbours ('Σ') or title-case ('ǅ').
    ufunc, fn = CASES[name]
    ascii = "aB3 xY_z@[`{" * 4
    values = []
    for length in [3, 4, 7, 8, 12, 13, 15, 16, 17, 31, 32, 33, 40]:
        text = ascii[:length]
        values.append(text)
        for char in "ßΣǅé":
            values += [text[:at] + char + text[at + 1 :] for at in range(length)]
    dtype = StringDType(na_object=np.nan)

    def call(a, out):
        return ufunc(a, out=out) if out is not None else ufunc(a)

    shapes_of_call(lambda: np.array(values, dtype=dtype), call, model_list(values, fn))


@pytest.mark.parametrize("seed", range(3))
def test_add_multiply_and_extremes_in_every_shape_of_call(seed):
    values = strings(seed)
    others = strings(seed + 100)
    counts = np.array([random.Random(seed + i).randint(-1, 4) for i in range(len(values))])
    dtype = StringDType(na_object=np.nan)

    def make():
        return np.array(values, dtype=dtype)

    b = np.array(others, dtype=dtype)
    cases = [
        (np.add, b, [x + y for x, y in zip(values, others)]),
        (np.multiply, counts, [x * max(int(c), 0) for x, c in zip(values, counts)]),
        (np.maximum, b, [max(x, y) for x, y in zip(values, others)]),
        (np.minimum, b, [min(x, y) for x, y in zip(values, others)]),
    ]
    for ufunc, other, expected in cases:

        def call(a, out, ufunc=ufunc, other=other):
            # A reversed view of the input comes with the other operand reversed.
            if out is not None and out.base is not None and out.strides[0] < 0:
                other = other[::-1]
            return ufunc(a, other, out=out) if out is not None else ufunc(a, other)

        shapes_of_call(make, call, expected)


@pytest.mark.parametrize("seed", range(3))
def test_partition_writes_three_outputs(seed):
    # NumPy refuses `out=` for partition, so its outputs never share an arena.
    values = [s + ("-" + s if i % 2 else "") for i, s in enumerate(strings(seed))]
    dtype = StringDType()
    outs = umath._partition(np.array(values, dtype=dtype), np.array("-", dtype=dtype))
    for k in range(3):
        assert outs[k].tolist() == [v.partition("-")[k] for v in values]


def test_regex_sub_in_every_shape_of_call():
    from stringdtype import regex as sre

    values = strings(7, na_object=np.nan)
    dtype = StringDType(na_object=np.nan)
    expected = model_list(values, lambda s: s.replace("a", "<A>"))
    result = sre.sub("a", "<A>", np.array(values, dtype=dtype))
    assert as_list(result) == as_list(np.array(expected, dtype=object))
