"""``np.strings`` on this dtype, continued from test_strings.py (whose docstring lists
the NumPy quirks these tests take as the reference): padding, partition, slice, the case
conversions, translate, encode/decode and mod, against NumPy's StringDType and Python's
``str`` methods."""

import numpy as np
import pytest
from conftest import (
    REFERENCE,
    StringDType,
    random_strings,
)
from strings_support import (
    NEGATIVE_WIDTHS_OK,
    check,
    is_na,
    make,
    needle_for,
    plant,
    python_only_for_width,
    run,
    sample,
)


def strs(cls, values, flavor=None, kind="T"):
    """An argument array: StringDType (of ``flavor``), ``U``, or 0-d StringDType."""
    if kind == "U":
        return np.array(values, dtype="U")
    dtype = flavor.dtype(cls) if flavor is not None else cls()
    return np.array(values, dtype=dtype)


# ---------------------------------------------------------------------------------------
# center ljust rjust zfill

JUSTS = ["center", "ljust", "rjust"]
WIDTHS = [
    (0, None),
    (5, None),
    (13, None),
    (40, None),
    (-3, None),
    (13, "*"),
    (40, "é"),
    (7, "😀"),
    (20, "\x00"),
]


@pytest.mark.parametrize("name", JUSTS)
@pytest.mark.parametrize("width,fillchar", WIDTHS, ids=[f"{w}_{f!r}" for w, f in WIDTHS])
def test_justify(flavor, rng, name, width, fillchar):
    values = sample(rng, flavor)
    fn = getattr(np.strings, name)
    python_only = python_only_for_width(width)
    if fillchar is None:
        check(
            flavor,
            values,
            lambda cls, a: fn(a, width),
            lambda s: getattr(s, name)(width),
            python_wins=python_only,
        )
    else:
        expected = None if fillchar == "\x00" else (lambda s: getattr(s, name)(width, fillchar))
        check(flavor, values, lambda cls, a: fn(a, width, fillchar), expected)


@pytest.mark.parametrize("name", JUSTS)
def test_justify_arrays(flavor, rng, name):
    values = sample(rng, flavor)
    widths = [rng.randint(-2 if NEGATIVE_WIDTHS_OK else 0, 30) for _ in values]
    fills = [rng.choice([" ", "*", "é", "中", "😀"]) for _ in values]
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a, w, f: fn(a, np.array(w), strs(cls, f, flavor)),
        lambda s, w, f: getattr(s, name)(w, f),
        extra=(widths, fills),
    )
    check(
        flavor,
        values,
        lambda cls, a, w: fn(a, np.array(w, dtype=np.int16), "-"),
        lambda s, w: getattr(s, name)(w, "-"),
        extra=(widths,),
    )


@pytest.mark.parametrize("name", JUSTS)
def test_justify_bad_arguments(flavor, name):
    fn = getattr(np.strings, name)
    values = ["abc", "é"]
    run(lambda cls: fn(make(values, flavor, cls), 5, "ab"))
    run(lambda cls: fn(make(values, flavor, cls), 5, ""))
    run(lambda cls: fn(make(values, flavor, cls), 5.0))
    run(
        lambda cls: fn(make(values, flavor, cls), 5, np.array(["a", "bc"], dtype=flavor.dtype(cls)))
    )


SIGNED = ["+12", "-3", "-", "+", "--1", "+-1", "-é", "+中", "12", "a-1", "", "-0012", "+ab"]


@pytest.mark.parametrize("width", [0, 1, 3, 5, 20, -1])
def test_zfill(flavor, rng, width):
    # NumPy's zfill of an empty string reads the byte after its result for a sign (its
    # answer is then whatever that byte was), so "" is checked against Python alone.
    values = [v for v in sample(rng, flavor) + SIGNED if v != ""]
    check(
        flavor,
        values,
        lambda cls, a: np.strings.zfill(a, width),
        lambda s: s.zfill(width),
        python_wins=python_only_for_width(width),
    )
    if not REFERENCE:
        empty = np.strings.zfill(np.array(["", "-"], dtype=flavor.dtype()), width)
        assert empty.tolist() == ["".zfill(width), "-".zfill(width)]


def test_zfill_width_array(flavor, rng):
    values = [v for v in sample(rng, flavor) + SIGNED if v != ""]  # see test_zfill
    widths = [rng.randint(-1 if NEGATIVE_WIDTHS_OK else 0, 25) for _ in values]
    check(
        flavor,
        values,
        lambda cls, a, w: np.strings.zfill(a, np.array(w)),
        lambda s, w: s.zfill(w),
        extra=(widths,),
    )
    run(lambda cls: np.strings.zfill(make(values, flavor, cls), 5.0))


def test_width_overflow_is_an_error(rng):
    a = np.array(random_strings(rng, 20), dtype=StringDType())
    before = a.tolist()
    for fn in (np.strings.center, np.strings.ljust, np.strings.rjust, np.strings.zfill):
        with pytest.raises((OverflowError, MemoryError)):
            fn(a, 2**62)
        assert a.tolist() == before


# ---------------------------------------------------------------------------------------
# partition rpartition

PARTS = ["partition", "rpartition"]
SEPS = ["a", "é", "ab", "中😀", "x" * 50]


@pytest.mark.parametrize("name", PARTS)
@pytest.mark.parametrize("sep", SEPS, ids=["a", "e_acute", "ab", "wide", "absent"])
def test_partition(flavor, rng, name, sep):
    values = sample(rng, flavor)
    if len(sep) < 50:
        values = plant(rng, plant(rng, values, sep, 0.5, flavor), sep, 0.3, flavor)
    # The separator at the start, at the end, alone, twice, and adjacent to itself.
    values += [sep + "xy", "xy" + sep, sep, sep + "é" + sep, sep + sep]
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a: fn(a, strs(cls, sep, flavor)),
        lambda s: getattr(s, name)(sep),
    )


@pytest.mark.parametrize("name", PARTS)
def test_partition_python_str_separator(flavor, rng, name):
    # NumPy has no loop for a Python str (or ``U``) separator with StringDType (it
    # raises); this package promotes the separator, so the result is Python's.
    values = plant(rng, sample(rng, flavor, 20, special=False), "a", 0.5, flavor)
    fn = getattr(np.strings, name)
    expected = lambda s: getattr(s, name)("a")
    check(flavor, values, lambda cls, a: fn(a, "a"), expected, python_wins=True)
    u_sep = lambda cls, a: fn(a, strs(cls, ["a"], kind="U"))
    check(flavor, values, u_sep, expected, python_wins=True)


@pytest.mark.parametrize("name", PARTS)
def test_partition_sep_array(flavor, rng, name):
    values = sample(rng, flavor)
    seps = [needle_for(rng, v) or "é" for v in values]
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a, s: fn(a, strs(cls, s, flavor)),
        lambda v, s: getattr(v, name)(s),
        extra=(seps,),
    )


@pytest.mark.parametrize("name", PARTS)
def test_partition_empty_separator_raises(flavor, name):
    fn = getattr(np.strings, name)
    if not flavor.has_na:
        with pytest.raises(ValueError):
            fn(make(["abc", ""], flavor), make("", flavor))
    run(lambda cls: fn(make(["abc", ""], flavor, cls), strs(cls, "", flavor)))
    run(lambda cls: fn(make(["abc", ""], flavor, cls), strs(cls, ["a", ""], flavor)))


# ---------------------------------------------------------------------------------------
# slice

SLICES = [
    (3,),
    (None, 3),
    (1, None, 2),
    (-3, None),
    (None, None, -1),
    (5, 1, -1),
    (-1, -10, -2),
    (None, None, 3),
    (100, None),
    (None, -100),
    (0, 0),
    (2, 2**40),
    (-(2**40), None, -3),
]


@pytest.mark.skipif(not hasattr(np.strings, "slice"), reason="np.strings.slice is missing")
@pytest.mark.parametrize("args", SLICES, ids=[repr(s) for s in SLICES])
def test_slice(flavor, rng, args):
    values = sample(rng, flavor)
    py = slice(*args)
    check(flavor, values, lambda cls, a: np.strings.slice(a, *args), lambda s: s[py])


@pytest.mark.skipif(not hasattr(np.strings, "slice"), reason="np.strings.slice is missing")
def test_slice_arrays(flavor, rng):
    values = sample(rng, flavor)
    starts = [rng.randint(-10, 10) for _ in values]
    stops = [rng.randint(-10, 15) for _ in values]
    steps = [rng.choice([-3, -1, 1, 2, 5]) for _ in values]
    check(
        flavor,
        values,
        lambda cls, a, b, e, s: np.strings.slice(a, np.array(b), np.array(e), np.array(s)),
        lambda v, b, e, s: v[b:e:s],
        extra=(starts, stops, steps),
    )
    run(lambda cls: np.strings.slice(make(values, flavor, cls), 0, 5, 0))
    run(lambda cls: np.strings.slice(make(values, flavor, cls), 0, 5, np.array([1, 0])[:, None]))
    run(lambda cls: np.strings.slice(make(values, flavor, cls), 0, 5, 1.0))


# ---------------------------------------------------------------------------------------
# upper lower swapcase capitalize title, translate, encode/decode, mod

CASES = ["upper", "lower", "swapcase", "capitalize", "title"]


@pytest.mark.parametrize("name", CASES)
def test_case(flavor, rng, name):
    values = sample(rng, flavor)
    check(flavor, values, lambda cls, a: getattr(np.strings, name)(a), lambda s: getattr(s, name)())


def one_non_ascii_everywhere():
    """ASCII strings of lengths around the case kernels' steps (4, 8 and 16 bytes; up to
    12 inline), and each with one non-ASCII character at every position in turn: one
    that grows in upper case, a capital sigma, a title-case digraph, an accented letter."""
    ascii = "aB3 xY_z@[`{" * 4
    values = []
    for length in [3, 4, 7, 8, 12, 13, 15, 16, 17, 31, 32, 33, 40]:
        text = ascii[:length]
        values.append(text)
        for char in "ßΣǅé":
            values += [text[:at] + char + text[at + 1 :] for at in range(length)]
    return values


@pytest.mark.parametrize("name", CASES)
def test_case_non_ascii_at_every_position(flavor, name):
    values = one_non_ascii_everywhere()
    check(flavor, values, lambda cls, a: getattr(np.strings, name)(a), lambda s: getattr(s, name)())


TABLES = [
    {ord("a"): "XY", ord("é"): None, ord("b"): "中"},
    str.maketrans("abcé", "xyzE"),
    str.maketrans("", "", " \t"),
    {},
]


@pytest.mark.parametrize("table", TABLES, ids=["mixed", "maketrans", "delete", "empty"])
def test_translate(flavor, rng, table):
    values = sample(rng, flavor)
    check(
        flavor, values, lambda cls, a: np.strings.translate(a, table), lambda s: s.translate(table)
    )


@pytest.mark.parametrize(
    "args", [(), ("utf-8",), ("ascii",), ("ascii", "replace"), ("latin-1", "ignore")]
)
def test_encode(flavor, rng, args):
    values = sample(rng, flavor)
    check(flavor, values, lambda cls, a: np.strings.encode(a, *args), lambda s: s.encode(*args))


def test_decode(flavor, rng):
    values = sample(rng, flavor)
    check(
        flavor,
        values,
        lambda cls, a: np.strings.decode(np.strings.encode(a), "utf-8"),
        lambda s: s,
    )
    # A StringDType array has nothing to decode.
    run(lambda cls: np.strings.decode(make(values, flavor, cls)))


@pytest.mark.parametrize(
    "value", ["é", 5, 2.5, None, "x" * 20], ids=["e_acute", "int", "float", "None", "long"]
)
def test_mod(flavor, rng, value):
    values = [
        v if is_na(v, flavor) else v.replace("%", "%%") + rng.choice(["%s", " <%s>", "%-4s|"])
        for v in sample(rng, flavor)
    ]
    check(flavor, values, lambda cls, a: np.strings.mod(a, value), lambda s: s % value)
    # NumPy formats NumPy scalars: "%r" gives "np.str_('é')", not "'é'".
    run(lambda cls: np.strings.mod(make(["%r", "<%r>"], flavor, cls), value))


def test_mod_value_arrays(flavor, rng):
    values = [
        v if is_na(v, flavor) else v.replace("%", "%%") + "%s"
        for v in sample(rng, flavor, special=False)
    ]
    args = random_strings(rng, len(values))
    check(
        flavor,
        values,
        lambda cls, a, v: np.strings.mod(a, strs(cls, v)),
        lambda s, v: s % v,
        extra=(args,),
    )
    ints = [rng.randint(-500, 500) for _ in values]
    check(
        flavor,
        ["%d" if i % 2 else "<%05x>" for i in range(len(values))],
        lambda cls, a, v: np.strings.mod(a, np.array(v)),
        lambda s, v: s % v,
        extra=(ints,),
    )
    run(lambda cls: np.strings.mod(make(["%d"], flavor, cls), "x"))
    run(lambda cls: np.strings.mod(make(["abc"], flavor, cls), "x"))
