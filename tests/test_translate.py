"""``stringdtype.strings.translate``: a Rust loop with Python's ``str.translate`` as the
model, element by element, on random strings (ASCII, non-ASCII, empty, 12 and 13 bytes,
long, embedded NUL, missing values) in several shapes and strides, with random tables
(deletions, replacements of any length, code points) and the tables ``str.translate``
accepts besides a dict (any object with ``__getitem__``); its exceptions are Python's."""

import collections
import random
from collections.abc import Mapping

import numpy as np
import pytest
from conftest import UNSET, WIDE_CHARS, package_only, random_strings

import stringdtype.strings as sds
from stringdtype import StringDType, _core

pytestmark = package_only

NA_KINDS = [UNSET, None, float("nan"), "__nan__"]
NA_IDS = ["unset", "None", "nan", "str"]
KEYS = [*"abcxyz ._\x00\x7f", *WIDE_CHARS, "\u0100", "\U0010ffff"]


def dtype_of(na):
    return StringDType() if na is UNSET else StringDType(na_object=na)


def random_table(rng):
    """A table of ``str.maketrans``' kind: deletions, strings of 0-20 characters and code
    points, ASCII and not."""
    table = {}
    for key in rng.sample(KEYS, rng.randint(0, 10)):
        kind = rng.randrange(4)
        if kind == 0:
            value = None
        elif kind == 1:
            value = ord(rng.choice(KEYS))
        else:
            value = "".join(rng.choice(KEYS) for _ in range(rng.choice([0, 1, 2, 5, 20])))
        table[ord(key)] = value
    return table


def layouts(values, na):
    """The values as 1-D, 2-D, strided, reversed and Fortran-ordered arrays, each with the
    values in the order a flat read of the array gives them."""
    full = np.array(values, dtype=dtype_of(na))
    index = np.arange(len(values))
    yield full, values
    yield full.reshape(6, 8), values
    strided = index.reshape(8, 6)[:, ::2].T
    yield full.reshape(8, 6)[:, ::2].T, [values[i] for i in strided.reshape(-1)]
    yield full[::-1], values[::-1]
    fortran = np.asfortranarray(full.reshape(6, 8))
    yield fortran, values


def check(result, values, na, table):
    assert isinstance(result.dtype, StringDType)
    missing = _core._isna(result).reshape(-1).tolist()
    got = result.reshape(-1).tolist()
    for value, m, g in zip(values, missing, got, strict=True):
        if na is not UNSET and value is na:
            assert m, (value, g)
        else:
            assert not m and g == value.translate(table), (value, g)


@pytest.mark.parametrize("na", NA_KINDS, ids=NA_IDS)
@pytest.mark.parametrize("seed", range(6))
def test_matches_str_translate(na, seed):
    rng = random.Random(f"translate-{seed}")
    # Strings made of the table's keys too, so that every kind of mapping is met.
    keyed = ["".join(rng.choice(KEYS) for _ in range(n)) for n in (3, 12, 13, 40, 500)]
    values = random_strings(rng, 43, na) + keyed
    rng.shuffle(values)
    if na is not UNSET:
        values[::7] = [na] * len(values[::7])
    for _ in range(4):
        table = random_table(rng)
        for array, flat in layouts(values, na):
            check(sds.translate(array, table), flat, na, table)


def test_maketrans_tables():
    a = np.array(["abc", "", "héllo wörld", "x" * 13, "a\x00b", "中文😀"], dtype=StringDType())
    tables = [
        {},
        str.maketrans("abc", "xyz"),
        str.maketrans("", "", "aeiouö"),
        str.maketrans({"a": "ααα", "é": None, "😀": ":-)", "\x00": "<NUL>", "x": ""}),
        str.maketrans("ab", "ba", "c"),
        {ord(c): ord(c) for c in "abc"},
        {i: None for i in range(128)},
        {ord("中"): 0x1F600, ord("a"): True},
    ]
    for table in tables:
        assert sds.translate(a, table).tolist() == [s.translate(table) for s in a.tolist()]


def test_missing_values_stay_missing():
    for na in (None, float("nan"), "__nan__"):
        a = np.array(["ab", na, "ba"], dtype=StringDType(na_object=na))
        a[1] = na
        result = sds.translate(a, {ord("a"): "A"})
        assert _core._isna(result).tolist() == [False, True, False]
        assert result[[0, 2]].tolist() == ["Ab", "bA"]
        # As upper does: the package's policy for stringdtype.strings.
        assert _core._isna(sds.upper(a)).tolist() == [False, True, False]


def test_shapes_and_empty():
    table = {ord("a"): "AA"}
    empty = np.array([], dtype=StringDType())
    assert sds.translate(empty, table).shape == (0,)
    assert sds.translate(np.zeros((2, 0), dtype=StringDType()), table).shape == (2, 0)
    zero_d = np.array("banana", dtype=StringDType())
    assert str(sds.translate(zero_d, table)) == "bAAnAAnAA"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (-1, ValueError),
        (0x110000, ValueError),
        (2**100, ValueError),
        (1.5, TypeError),
        (b"x", TypeError),
        ([], TypeError),
    ],
)
def test_invalid_values_raise_pythons_error(value, error):
    table = {ord("a"): value}
    a = np.array(["xyz", "long string without the letter" * 3, "bab"], dtype=StringDType())
    with pytest.raises(error) as python:
        "bab".translate(table)
    with pytest.raises(error) as ours:
        sds.translate(a, table)
    # Python's message, with the operation and the element in front and behind.
    assert str(ours.value) == f"translate: {python.value} (element 'bab')"
    # As in Python, a value is only an error when a string holds its key.
    assert sds.translate(a[:2], table).tolist() == a[:2].tolist()


def test_surrogates():
    a = np.array(["abc"], dtype=StringDType())
    # A surrogate key can never match; a surrogate value cannot be stored in UTF-8.
    assert sds.translate(a, {0xD800: "x"}).tolist() == ["abc"]
    for value in (0xD800, "x\udc00"):
        with pytest.raises(ValueError, match="surrogate"):
            sds.translate(a, {ord("b"): value})


def shown(element):
    """An element as an error message names it: in single quotes, backslash, quote and
    ASCII control characters escaped, cut after 40 characters."""
    escapes = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    body = "".join(
        escapes.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x20 or c == "\x7f" else c)
        for c in element[:40]
    )
    return f"'{body}'" + ("..." if len(element) > 40 else "")


@pytest.mark.parametrize(
    "element",
    ["", "it's\\ \n\x00\t\x7f", "déjà vu, " * 3, "ü" * 39, "ü" * 40, "€" * 12 + "ü" * 400],
)
def test_errors_name_the_element(element):
    """The error names the first element in order whose translation fails (its key
    "x" is in every element but the first)."""
    table = {ord("x"): 0x110000}
    a = np.array(["abc", element + "x", "x"], dtype=StringDType())
    with pytest.raises(ValueError) as error:
        sds.translate(a, table)
    named = shown(element + "x")
    message = "character mapping must be in range(0x110000)"
    assert str(error.value) == f"translate: {message} (element {named})"
    if element.isprintable() and not {"\\", "'"} & set(element):
        # Where Python's repr has nothing to escape, the element is shown as repr does.
        assert named == (repr(element + "x") if len(element) < 40 else repr(element[:40]) + "...")


class Rot13(Mapping):
    """A mapping that computes its values, and has no list of keys to read."""

    def __getitem__(self, code):
        c = chr(code)
        if c.isascii() and c.isalpha():
            base = ord("a") if c.islower() else ord("A")
            return chr((code - base + 13) % 26 + base)
        raise KeyError(code)

    def __iter__(self):
        raise AssertionError("str.translate never iterates its table")

    def __len__(self):
        raise AssertionError("str.translate never asks a table's length")


class Missing(dict):
    def __missing__(self, code):
        if code == ord("é"):
            return "e"
        raise LookupError(code)


def test_tables_that_are_not_dicts_of_ints():
    rng = random.Random("translate-mappings")
    values = random_strings(rng, 48, None) + ["Hello é!", "\x00é"]
    a = np.array(values, dtype=StringDType(na_object=None))
    tables = [
        Rot13(),
        collections.defaultdict(lambda: "?", {ord("a"): "A"}),
        Missing({ord("b"): None}),
        ["<%d>" % i for i in range(100)],  # a sequence: IndexError is a LookupError
        {97.0: "float key", True: "bool key", "a": "never"},  # keys equal to ints
    ]
    for table in tables:
        got = sds.translate(a, table).tolist()
        assert got == [v if v is None else v.translate(table) for v in values], table


def test_errors_of_a_table_propagate():
    a = np.array(["abc"], dtype=StringDType())

    class Broken(Mapping):
        def __getitem__(self, code):
            raise RuntimeError("broken table")

        def __iter__(self):
            return iter(())

        def __len__(self):
            return 0

    with pytest.raises(RuntimeError, match="broken table"):
        sds.translate(a, Broken())
    with pytest.raises(TypeError):
        sds.translate(a, None)


def test_other_arrays_go_to_numpy():
    u = np.array(["abc", "bcd"])
    table = str.maketrans("b", "B")
    result = sds.translate(u, table)
    assert result.dtype.kind == "U"
    assert result.tolist() == ["aBc", "Bcd"]


def test_in_place_and_out():
    """The private ufunc with ``out=``: into another array, and in place (the output
    shares the input's arena)."""
    rng = random.Random("translate-out")
    values = random_strings(rng, 40)
    table = {ord("a"): "ααα" * 5, ord("é"): None, ord(" "): "_"}
    expected = [v.translate(table) for v in values]
    prepared = _core.TranslateTable(table)
    a = np.array(values, dtype=StringDType())
    out = np.array(["old"] * 40, dtype=StringDType())
    _core._translate(a, prepared.id, out=out)
    assert out.tolist() == expected
    _core._translate(a, prepared.id, out=a)
    assert a.tolist() == expected


def test_ids_name_a_table():
    a = np.array(["abc"], dtype=StringDType())
    prepared = _core.TranslateTable({ord("a"): "x"})
    assert _core._translate(a, prepared.id).tolist() == ["xbc"]
    with pytest.raises(ValueError, match="no translate table has id"):
        _core._translate(a, 2**62)
    program = _core.RegexProgram("a", 0, "sub", lambda s: s, "x")
    with pytest.raises(ValueError, match="no translate table has id"):
        _core._translate(a, program.id)
    # Several tables in one call, by element.
    other = _core.TranslateTable({ord("b"): None})
    b = np.array(["abc", "abc"], dtype=StringDType())
    got = _core._translate(b, np.array([prepared.id, other.id]))
    assert got.tolist() == ["xbc", "ac"]
