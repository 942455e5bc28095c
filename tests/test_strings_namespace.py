"""``stringdtype.strings``: a drop-in for ``np.strings`` (same names and signatures) whose
case conversions (plus ``casefold``) and UTF-8 ``encode``/``decode`` run in Rust.

The case conversions must equal Python's ``str`` methods element by element, including
the special cases of Unicode case mapping; a missing value gives a missing value, whatever
the ``na_object`` (pandas' rules: tests/test_missing_propagation.py covers every function).
Every other name must be ``np.strings``' behaviour on this package's arrays where no
value is missing, and ``mod`` and ``translate`` (which keep NumPy's rules) everywhere.
"""

import numpy as np
import pytest
from conftest import REFERENCE, describe, normalize, outcome, random_strings

if REFERENCE:
    pytest.skip("tests the stringdtype.strings namespace", allow_module_level=True)

sds = pytest.importorskip("stringdtype.strings")

from strings_support import SPECIAL, is_na

import stringdtype

StringDType = stringdtype.StringDType

CASE_FUNCTIONS = ["upper", "lower", "swapcase", "capitalize", "title", "casefold"]

# Characters whose case mappings are special: expansions ("ß" -> "SS", "ﬁ" -> "FI",
# "İ" -> "i̇"), final sigma, titlecase digraphs, Cherokee (lowercase maps to uppercase under
# casefold), Georgian Mtavruli, combining marks, and uncased digits and ideographs.
CASE_SPECIAL = [
    "ß",
    "ẞ",
    "ﬁ",
    "ﬀﬃ",
    "İ",
    "ı",
    "ΟΔΟΣ",
    "ΟΔΟΣ ΟΔΟΣ.",
    "Σ",
    "aΣ",
    "Σa",
    "aΣ!",
    "ǅ",
    "ǆ",
    "Ǆ",
    "ǈubljana",
    "Ꭰ",
    "ꭰ",
    "ᏸ",
    "Ᏸ",
    "ა",
    "Ა",
    "ᲥᲐᲠᲗᲣᲚᲘ",
    "ǰ",
    "ŉ",
    "ΐ",
    "e\u0301",
    "\u0345",
    "ᾳ",
    "ᾼ",
    "²",
    "٣",
    "一",
    "Ⅻ",
    "ⓐ",
    "Ⓐ",
    "𐐀",
    "𐐨",
    "ǲ1a",
    "hello wORLD 12ab",
    "o'neil mc-donald",
    "a\x00b",
    "",
]


def values_for(rng, flavor):
    values = random_strings(rng, 60, flavor.na_object) + SPECIAL + CASE_SPECIAL
    rng.shuffle(values)
    return values


def expected_case(values, name, flavor):
    out = []
    for v in values:
        if is_na(v, flavor):
            out.append(flavor.na_object)
        else:
            out.append(getattr(v, name)())
    return out


def assert_ours(result, a):
    assert isinstance(result, np.ndarray)
    assert type(result.dtype) is StringDType
    assert result.dtype == a.dtype
    assert result.shape == a.shape


@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_case_function(flavor, rng, name):
    values = values_for(rng, flavor)
    fn = getattr(sds, name)
    a = np.array(values, dtype=flavor.dtype())
    before = a.tolist()
    result = fn(a)
    assert_ours(result, a)
    assert normalize(result.tolist()) == normalize(expected_case(values, name, flavor))
    assert normalize(a.tolist()) == normalize(before)


@pytest.mark.parametrize("name", CASE_FUNCTIONS)
@pytest.mark.parametrize("char", CASE_SPECIAL, ids=[ascii(c) for c in CASE_SPECIAL])
def test_case_function_special(name, char):
    a = np.array([char, char * 3, f"x{char}y", f"{char} {char}", char * 20], dtype=StringDType())
    result = getattr(sds, name)(a)
    assert_ours(result, a)
    assert result.tolist() == [getattr(s, name)() for s in a.tolist()]


@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_case_function_shapes(rng, name):
    values = random_strings(rng, 24) + CASE_SPECIAL[:12]
    base = np.array(values, dtype=StringDType()).reshape(3, 4, 3)
    fn = getattr(sds, name)
    for a in [base, base[::-1, :, ::-2], base.transpose(2, 0, 1), base[:, 1], base[0, 0, 0:1]]:
        result = fn(a)
        assert_ours(result, a)
        expected = np.array(
            [getattr(s, name)() for s in a.ravel().tolist()], dtype=StringDType()
        ).reshape(a.shape)
        assert result.tolist() == expected.tolist()
    for a in [np.array([], dtype=StringDType()).reshape(0, 3), np.array("ß", dtype=StringDType())]:
        result = np.asarray(fn(a))
        assert result.shape == a.shape
        assert (
            result.tolist()
            == np.array([getattr(s, name)() for s in a.ravel().tolist()], dtype=object)
            .reshape(a.shape)
            .tolist()
        )


@pytest.mark.parametrize("name", [n for n in CASE_FUNCTIONS if n != "casefold"])
def test_case_function_matches_np_strings(flavor, rng, name):
    values = [v for v in values_for(rng, flavor) if not is_na(v, flavor)]
    a = np.array(values, dtype=flavor.dtype())
    assert describe(getattr(sds, name)(a)) == describe(getattr(np.strings, name)(a))


def test_casefold_of_unicode_array():
    u = np.array(["Straße", "ΟΔΟΣ", "ᏸ"])
    result = sds.casefold(u)
    assert result.tolist() == [s.casefold() for s in u.tolist()]


# ---------------------------------------------------------------------------------------
# isascii (str.isascii, which np.strings lacks)


def isascii_values(rng, flavor):
    """Random strings plus a non-ASCII character at every place of strings of 0 to 16,
    40 and 100 bytes (inline, the long prefix, past it), and embedded NULs."""
    values = values_for(rng, flavor)
    for n in [*range(17), 40, 100]:
        values.append("x" * n)
        values += ["x" * i + "é" + "x" * (n - i) for i in range(n + 1)]
    return values + ["\x00", "a\x00b", "\x7f" * 13, "\x80", "\U0001f600" * 4]


@pytest.mark.parametrize("na", [False, True])
def test_isascii(flavor, rng, na):
    values = isascii_values(rng, flavor)
    a = np.array(values, dtype=flavor.dtype())
    result = sds.isascii(a, na=na) if na else sds.isascii(a)
    assert result.dtype == np.bool_ and result.shape == a.shape
    expected = [na if is_na(v, flavor) else v.isascii() for v in a.tolist()]
    assert result.tolist() == expected


def test_isascii_shapes_and_other_dtypes(rng):
    values = random_strings(rng, 24) + ["é" * 7, "x" * 13 + "é", ""] * 4
    base = np.array(values, dtype=StringDType()).reshape(3, 4, 3)
    for a in [base, base[::-1, :, ::-2], base.transpose(2, 0, 1), base[:, 1], base[0, 0, 0, ...]]:
        expected = np.array([s.isascii() for s in np.ravel(a).tolist()]).reshape(a.shape)
        assert np.array_equal(sds.isascii(a), expected)
    u = np.array(["abc", "straße", ""])
    assert sds.isascii(u).tolist() == [True, False, True]
    with pytest.raises(TypeError, match="na must be a bool"):
        sds.isascii(u, na="yes")


# ---------------------------------------------------------------------------------------
# encode / decode


def test_encode(flavor, rng):
    values = values_for(rng, flavor)
    if flavor.has_na and flavor.na_object is None:
        with pytest.raises((TypeError, ValueError)):
            sds.encode(np.array(values, dtype=flavor.dtype()))
    if flavor.has_na and not isinstance(flavor.na_object, str):
        values = [v for v in values if not is_na(v, flavor)]
    a = np.array(values, dtype=flavor.dtype())
    before = a.tolist()
    for args in [(), ("utf-8",), ("UTF8", "strict")]:
        result = sds.encode(a, *args)
        assert result.dtype.kind == "S"
        # ``S`` arrays drop trailing NULs, like np.strings.encode.
        assert result.tolist() == [s.encode().rstrip(b"\x00") for s in a.tolist()]
        assert describe(result) == describe(np.strings.encode(a, *args))
    assert a.tolist() == before


@pytest.mark.parametrize(
    "args", [("ascii",), ("ascii", "replace"), ("latin-1", "ignore"), ("utf-16",)]
)
def test_encode_other_codecs(rng, args):
    a = np.array(random_strings(rng, 60) + SPECIAL + CASE_SPECIAL, dtype=StringDType())
    assert outcome(lambda: sds.encode(a, *args)) == outcome(lambda: np.strings.encode(a, *args))


def test_encode_shapes(rng):
    base = np.array(random_strings(rng, 24), dtype=StringDType()).reshape(4, 6)
    for a in [base, base[::-1, ::-2], base.T, np.array([], dtype=StringDType()).reshape(0, 2)]:
        assert describe(sds.encode(a)) == describe(np.strings.encode(a))
    a = np.array(["", ""], dtype=StringDType())
    assert describe(sds.encode(a)) == describe(np.strings.encode(a))


def test_decode(rng):
    values = random_strings(rng, 60) + CASE_SPECIAL
    b = np.array([s.encode() for s in values])
    before = b.tolist()
    for args in [(), ("utf-8",), ("utf_8", "strict")]:
        result = sds.decode(b, *args)
        assert type(result.dtype) is StringDType
        assert result.shape == b.shape
        assert result.tolist() == [x.decode() for x in b.tolist()]
    assert b.tolist() == before
    # Strided and N-D input.
    b2 = b[: len(b) // 6 * 6].reshape(-1, 6)[::-1, ::2]
    result = sds.decode(b2)
    assert type(result.dtype) is StringDType
    assert result.tolist() == [[x.decode() for x in row] for row in b2.tolist()]


def test_decode_round_trip(flavor, rng):
    values = [v for v in values_for(rng, flavor) if not is_na(v, flavor)]
    a = np.array(values, dtype=flavor.dtype())
    assert sds.decode(sds.encode(a)).tolist() == [s.rstrip("\x00") for s in values]


def test_decode_errors():
    for bad in [b"\xff", b"abc\xc3", b"\xed\xa0\x80", b"ok\xe2\x82"]:
        b = np.array([b"fine", bad])
        with pytest.raises(UnicodeDecodeError):
            sds.decode(b)
        replaced = sds.decode(b, "utf-8", "replace")
        assert replaced.tolist() == [x.decode("utf-8", "replace") for x in b.tolist()]


def test_decode_other_codecs():
    # Big-endian UTF-16 of these strings ends in a non-NUL byte (``S`` drops trailing NULs).
    b = np.array(["é€".encode("utf-16-be"), "abc".encode("utf-16-be")])
    assert sds.decode(b, "utf-16-be").tolist() == ["é€", "abc"]
    c = np.array([b"\xe9t\xe9"])
    assert sds.decode(c, "latin-1").tolist() == ["été"]


# ---------------------------------------------------------------------------------------
# Every other np.strings name


# Functions whose ufunc older NumPy releases lack (slice before 2.3): the namespace has
# them on every NumPy.
NOT_IN_EVERY_NUMPY = {"slice"}


# The functions np.strings lacks (casefold is tested above, the split family in
# test_split.py against str, slice_replace in test_slice_replace.py).
OWN = {"casefold", "isascii", "join", "join_chars", "rsplit", "slice_replace", "split", "split_flat"}


def test_namespace_has_every_name():
    missing = [n for n in [*np.strings.__all__, *NOT_IN_EVERY_NUMPY] if not hasattr(sds, n)]
    assert missing == []
    assert set(np.strings.__all__) | NOT_IN_EVERY_NUMPY | OWN == set(sds.__all__)
    assert "casefold" in dir(sds)
    for name in CASE_FUNCTIONS:
        assert callable(getattr(sds, name))


TABLE = str.maketrans({"a": "XY", "é": None})

CALLS = {
    "equal": lambda m, a: m.equal(a, a[::-1]),
    "not_equal": lambda m, a: m.not_equal(a, "abc"),
    "less": lambda m, a: m.less(a, a[::-1]),
    "less_equal": lambda m, a: m.less_equal(a, a[::-1]),
    "greater": lambda m, a: m.greater(a, a[::-1]),
    "greater_equal": lambda m, a: m.greater_equal(a, a[::-1]),
    "add": lambda m, a: m.add(a, a[::-1]),
    "multiply": lambda m, a: m.multiply(a, 2),
    "isalpha": lambda m, a: m.isalpha(a),
    "isdigit": lambda m, a: m.isdigit(a),
    "isspace": lambda m, a: m.isspace(a),
    "isalnum": lambda m, a: m.isalnum(a),
    "islower": lambda m, a: m.islower(a),
    "isupper": lambda m, a: m.isupper(a),
    "istitle": lambda m, a: m.istitle(a),
    "isdecimal": lambda m, a: m.isdecimal(a),
    "isnumeric": lambda m, a: m.isnumeric(a),
    "str_len": lambda m, a: m.str_len(a),
    "find": lambda m, a: m.find(a, "a", 1),
    "rfind": lambda m, a: m.rfind(a, "a", 0, -1),
    "index": lambda m, a: m.index(a, ""),
    "rindex": lambda m, a: m.rindex(a, "", 1),
    "count": lambda m, a: m.count(a, "a"),
    "startswith": lambda m, a: m.startswith(a, "a"),
    "endswith": lambda m, a: m.endswith(a, "a"),
    "lstrip": lambda m, a: m.lstrip(a),
    "rstrip": lambda m, a: m.rstrip(a, "a "),
    "strip": lambda m, a: m.strip(a, "é"),
    "replace": lambda m, a: m.replace(a, "a", "bé", 2),
    "expandtabs": lambda m, a: m.expandtabs(a, 4),
    "center": lambda m, a: m.center(a, 15, "*"),
    "ljust": lambda m, a: m.ljust(a, 15),
    "rjust": lambda m, a: m.rjust(a, 15, "é"),
    "zfill": lambda m, a: m.zfill(a, 8),
    "partition": lambda m, a: m.partition(a, np.array("a", dtype=a.dtype)),
    "rpartition": lambda m, a: m.rpartition(a, np.array("a", dtype=a.dtype)),
    "slice": lambda m, a: m.slice(a, 1, None, 2),
    "upper": lambda m, a: m.upper(a),
    "lower": lambda m, a: m.lower(a),
    "swapcase": lambda m, a: m.swapcase(a),
    "capitalize": lambda m, a: m.capitalize(a),
    "title": lambda m, a: m.title(a),
    "mod": lambda m, a: m.mod(np.array(["%s!", "<%s>"] * (a.size // 2), dtype=a.dtype), "x"),
    "decode": lambda m, a: m.decode(np.strings.encode(a)),
    "encode": lambda m, a: m.encode(a),
    "translate": lambda m, a: m.translate(a, TABLE),
}


def test_calls_cover_every_name():
    assert sorted(CALLS) == sorted(set(sds.__all__) - OWN)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_as_np_strings(flavor, rng, name):
    values = random_strings(rng, 40, flavor.na_object)
    if name in ("encode", "decode"):
        # These differ from np.strings only where np.strings raises for NA (above).
        values = [v for v in values if not is_na(v, flavor) or isinstance(v, str)]
    elif name != "mod":
        # The others propagate missing values (tests/test_missing_propagation.py).
        values = [v for v in values if not is_na(v, flavor)]
    if not hasattr(np.strings, name):
        pytest.skip(f"np.strings.{name} is missing in NumPy {np.__version__}")
    a = np.array(values, dtype=flavor.dtype())
    before = a.tolist()

    def call(module):
        result = CALLS[name](module, a)
        if isinstance(result, tuple):
            return [describe(r) for r in result]
        return result

    ours = outcome(call, sds)
    reference = outcome(call, np.strings)
    if name == "decode":
        # np.strings.decode returns a ``U`` array, this namespace a StringDType one.
        assert ours[0] == reference[0] == "ok"
        assert ours[1][2:] == reference[1][2:]
    else:
        assert ours == reference
    assert normalize(a.tolist()) == normalize(before)
    if ours[0] == "ok":
        result = CALLS[name](sds, a)
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, np.ndarray) and r.dtype.kind == "T":
                assert type(r.dtype) is StringDType


def python_results(result):
    if isinstance(result, tuple):
        return list(zip(*[r.tolist() for r in result]))
    return result.tolist()


PYTHON_CALLS = {
    "center": lambda s: s.center(15, "*"),
    "ljust": lambda s: s.ljust(15),
    "rjust": lambda s: s.rjust(15, "é"),
    "zfill": lambda s: s.zfill(8),
    "partition": lambda s: s.partition("a"),
    "rpartition": lambda s: s.rpartition("a"),
    "slice": lambda s: s[1::2],
}


@pytest.mark.parametrize("name", sorted(PYTHON_CALLS))
def test_functions_against_python(rng, name):
    """The padding, partition and slice functions give Python's results on every NumPy
    (``slice`` through the package's own ufunc where NumPy lacks its ufunc), for
    StringDType and, as ``U``, for ``U`` arrays."""
    values = [v for v in random_strings(rng, 40) if not v.endswith("\x00")] + SPECIAL
    expected = [PYTHON_CALLS[name](v) for v in values]
    a = np.array(values, dtype=StringDType())
    result = CALLS[name](sds, a)
    for r in result if isinstance(result, tuple) else (result,):
        assert type(r.dtype) is StringDType
    assert python_results(result) == expected
    u = np.array(values)
    result = CALLS[name](sds, u)
    for r in result if isinstance(result, tuple) else (result,):
        assert r.dtype.kind == "U"
    assert python_results(result) == [as_unicode_element(e) for e in expected]


def as_unicode_element(x):
    """What a ``U`` array holds for ``x``: trailing NULs are padding there."""
    if isinstance(x, tuple):
        return tuple(as_unicode_element(part) for part in x)
    return x.rstrip("\x00")
