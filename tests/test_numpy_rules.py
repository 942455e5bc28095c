"""The running NumPy's rules, differentially: every case runs on this package's StringDType
and on NumPy's own, and the outcomes (values, or the exception's type) must agree, with
the warnings NumPy emits. Casts from and to every builtin dtype (structured and subarray
ones included), in both directions, through ``astype`` and into a filled destination,
which must stay as it was after a failure wherever NumPy leaves it so; bytes and void
holding invalid UTF-8; ``multiply`` by counts at and above 2**63; invalid numeric strings
cast to every numeric dtype. test_casts.py checks the values of the ordinary casts."""

import re
import warnings

import numpy as np
import pytest
from conftest import (
    NUMPY_RELEASE,
    REFERENCE,
    NumpyStringDType,
    StringDType,
    both,
    describe,
    outcome,
)

INTS = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]
FLOATS = ["e", "f", "d", "g"]
COMPLEXES = ["F", "D", "G"]
NUMERIC = ["?"] + INTS + FLOATS + COMPLEXES
TIMES = ["M8[D]", "M8[s]", "M8[ms]", "M8[ns]", "m8[D]", "m8[s]", "m8[us]"]
STRUCTURED = [[("a", "i4"), ("b", "U3")], [("a", "U5")], [("s", "S4"), ("t", "V2")]]
STRUCTURED += [[("a", "i2", (2,))]]
SUBARRAYS = [("i4", (2,)), ("U3", (2,)), ("f8", (2, 2))]
SIZED = ["U5", "U1", "S5", "S1", "V8", "V3", "O"]
UNSIZED = ["U", "S", "V", "M8", "m8"]
BUILTIN = NUMERIC + TIMES + SIZED + UNSIZED + STRUCTURED + SUBARRAYS


def dtype_id(dtype):
    return str(np.dtype(dtype)) if not isinstance(dtype, str) else dtype


def nan_safe(x):
    """``x`` with complex numbers as their parts, so that NaN parts compare equal."""
    if isinstance(x, (list, tuple)):
        return type(x)(nan_safe(v) for v in x)
    if isinstance(x, (complex, np.complexfloating)):
        return ("complex", str(x.real), str(x.imag))
    return x


def in_numpys_rule(fn):
    """``outcome(fn)`` and the categories of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = outcome(fn)
    return nan_safe(result), sorted({w.category.__name__ for w in caught})


def same_everywhere(fn, warns=True):
    """``fn(cls)`` with both classes: the same outcome and (when ``warns``) the same
    warnings. Returns ours."""
    ours = in_numpys_rule(lambda: fn(StringDType))
    numpys = in_numpys_rule(lambda: fn(NumpyStringDType))
    if not warns:
        ours, numpys = ours[0], numpys[0]
    assert ours == numpys
    return ours[0] if warns else ours


# NumPy 2.3 and 2.4 parse every string cast to complex as its real part twice ("1.5" gives
# 1.5+1.5j); 2.5 fixed it, and the package follows Python's complex() on every release.
COMPLEX_PARSE_BUG = (2, 3) <= NUMPY_RELEASE < (2, 5)

# --- from the string dtype to every builtin dtype ----------------------------------------

# Strings that some target takes and others refuse.
TEXTS = ["0", "1", "-1", "127", "300", "1.5", "1e3", " 7 ", "True", "2020-01-01", "NaT"]
TEXTS += ["", "abc", "é", "x" * 20, "a\x00b"]


def to_target(flavor, target, values):
    return same_everywhere(
        lambda cls: np.array(values, dtype=flavor.dtype(cls)).astype(np.dtype(target))
    )


def parses_complex(target, values):
    """Whether a cast of ``values`` to ``target`` meets NumPy's complex parsing bug."""
    if not COMPLEX_PARSE_BUG or np.dtype(target).kind != "c":
        return False
    try:
        [complex(v) for v in values]
    except (TypeError, ValueError):
        return False
    return True


def expected_complex(flavor, target, values):
    """NumPy 2.5's answer (Python's complex(), then the target's precision), which the
    package gives on every release (the reference, NumPy 2.3-2.4, does not)."""
    if REFERENCE:
        return
    result = np.array(values, dtype=flavor.dtype()).astype(target)
    expected = np.array([complex(v) for v in values], dtype=target)
    np.testing.assert_array_equal(result, expected, strict=True)


@pytest.mark.parametrize("target", BUILTIN, ids=dtype_id)
def test_each_string_to_builtin(flavor, target):
    for text in TEXTS:
        if parses_complex(target, [text]):
            expected_complex(flavor, target, [text])
        else:
            to_target(flavor, target, [text])


@pytest.mark.parametrize("target", BUILTIN, ids=dtype_id)
def test_strings_to_builtin_with_missing(flavor, target):
    values = ["1", "0"] + ([flavor.na_object] if flavor.has_na else [])
    if parses_complex(target, values):
        if not flavor.has_na:
            expected_complex(flavor, target, values)
        return
    to_target(flavor, target, values)
    to_target(flavor, target, np.array(values * 3, dtype=object).reshape(3, -1))


def filled(target, n):
    """A destination of ``n`` elements of ``target`` whose every element is non-zero."""
    if np.dtype(target).kind == "O":
        return np.array(["kept"] * n, dtype=object)
    dst = np.zeros(n, dtype=target)
    dst.view(np.uint8)[...] = 0x37
    return dst


def failing_casts():
    for target in NUMERIC + TIMES + SIZED:
        for bad in ["abc", "300", "é", "-1"]:
            yield pytest.param(target, bad, id=f"{dtype_id(target)}-{bad}")


@pytest.mark.parametrize(("target", "bad"), list(failing_casts()))
def test_failed_cast_into_destination(flavor, target, bad):
    """A failing element after good ones: the error of NumPy and, where NumPy leaves the
    destination as it was, a destination left as it was."""
    values = ["1", "2", bad]
    if parses_complex(target, values):
        return

    def copy(cls):
        src = np.array(values, dtype=flavor.dtype(cls))
        dst = filled(target, len(values))
        done = outcome(lambda: np.copyto(dst, src, casting="unsafe"))
        return done, describe(dst)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (ours, ours_dst), (numpys, numpys_dst) = copy(StringDType), copy(NumpyStringDType)
    assert ours == numpys
    # After a failure, the destination as NumPy's wherever NumPy's is as it was.
    if ours[0] == "ok" or numpys_dst == describe(filled(target, len(values))):
        assert ours_dst == numpys_dst


@pytest.mark.parametrize("target", STRUCTURED + SUBARRAYS, ids=dtype_id)
def test_to_structured_and_subarray_refused(flavor, target):
    # Only unstructured voids take strings, on every release (NumPy 2.5 changed the message).
    assert to_target(flavor, target, ["1", "2"]) == ("raises", TypeError)


@pytest.mark.parametrize("target", STRUCTURED + SUBARRAYS, ids=dtype_id)
def test_to_structured_and_subarray_message(flavor, target):
    # NumPy 2.5 names the target ("... but dtype([('a', '<i4')]) is a structured or
    # subarray dtype."); before, "Casting from StringDType to a structured dtype is not
    # supported." (Rules::names_structured_target).
    def message(cls):
        with pytest.raises(TypeError) as info:
            np.array(["1", "2"], dtype=flavor.dtype(cls)).astype(np.dtype(target))
        return str(info.value)

    ours = message(StringDType)
    assert ours == message(NumpyStringDType)
    assert ("is a structured or subarray dtype" in ours) == (NUMPY_RELEASE >= (2, 5))


def cast_name(source, target):
    """The name of the cast between two DTypes, as its repr shows it."""
    impl = np._core._multiarray_umath._get_castingimpl(source, target)
    return re.search(r"`(.*)`", repr(impl)).group(1)


# How NumPy 2.5 names the casts of its StringDType: by the C type of the other end (its
# type number). Before 2.5 NumPy's names differ (2.2: "cast_StringDType_to_Bool",
# 2.3-2.4: "cast_bool_to_S", a bug fixed in 2.5); the package uses 2.5's names on every
# release, except "bytes" for `S`, which NumPy calls "byte" like int8. Casts to and from
# `object` are NumPy's own.
C_TYPE_NAMES = ["bool", "byte", "unsigned byte", "short", "unsigned short", "int"]
C_TYPE_NAMES += ["unsigned int", "long", "unsigned long", "long long", "unsigned long long"]
C_TYPE_NAMES += ["float", "double", "long double", "complex float", "complex double"]
C_TYPE_NAMES += ["complex long double", "object", "bytes", "unicode", "void", "datetime"]
C_TYPE_NAMES += ["timedelta", "half"]


@pytest.mark.skipif(REFERENCE, reason="the names of this package's casts")
@pytest.mark.parametrize("other", NUMERIC + TIMES + ["U", "S", "V"], ids=dtype_id)
def test_cast_names(other):
    ours, numpys = type(StringDType()), NumpyStringDType
    name = C_TYPE_NAMES[np.dtype(other).num]
    other = type(np.dtype(other))
    assert cast_name(ours, other) == f"cast_StringDType_to_{name}"
    assert cast_name(other, ours) == f"cast_{name}_to_StringDType"
    if NUMPY_RELEASE >= (2, 5):
        numpys_name = "byte" if other is np.dtypes.BytesDType else name
        assert cast_name(numpys, other) == f"cast_StringDType_to_{numpys_name}"
        assert cast_name(other, numpys) == f"cast_{numpys_name}_to_StringDType"


@pytest.mark.skipif(REFERENCE, reason="the names of this package's casts")
def test_cast_names_between_the_string_dtypes():
    ours = type(StringDType())
    assert cast_name(ours, ours) == "cast_StringDType_to_StringDType"
    assert cast_name(ours, NumpyStringDType) == "cast_StringDType_to_numpy.dtypes.StringDType"
    assert cast_name(NumpyStringDType, ours) == "cast_numpy.dtypes.StringDType_to_StringDType"


# --- from every builtin dtype to the string dtype ----------------------------------------


def builtin_values(source):
    """Values of ``source`` to cast, each element a case of its own."""
    dtype = np.dtype(source)
    if dtype.kind == "b":
        return np.array([True, False])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array([0, 1, info.max, info.min, 42], dtype=dtype)
    if dtype.kind in "fc":
        with np.errstate(over="ignore", invalid="ignore"):
            values = np.array([0.0, -0.0, 1.5, 0.1, 1e20, np.inf, -np.inf, np.nan])
            if dtype.kind == "c":
                values = values + np.array([0, 1, -2, np.nan, 0, 0, np.inf, 0]) * 1j
            return values.astype(dtype)
    if dtype.kind == "M":
        if not np.datetime_data(dtype)[1]:
            return np.array(["NaT", "NaT"], dtype=dtype)
        return np.array(["2020-01-01", "1969-12-31T23:59:59", "NaT"]).astype(dtype)
    if dtype.kind == "m":
        if not np.datetime_data(dtype)[1]:
            return np.array([0, 5, "NaT"]).astype(dtype)
        return np.array([0, 10, -5, "NaT"]).astype(dtype)
    if dtype.kind == "U":
        return np.array(["", "abc", "é中", "a\x00b"], dtype=dtype)
    if dtype.kind == "S":
        return np.array([b"", b"abc", b"a\x00b"], dtype=dtype)
    if dtype.kind == "O":
        return np.array(["a", 1, 2.5, None, np.nan, b"x", ("t",)], dtype=object)
    if dtype.kind == "V" and dtype.fields is None and dtype.subdtype is None:
        width = max(dtype.itemsize, 1)
        return np.array([b"", b"ab", b"\x00a", b"z" * width], dtype=f"V{width}")
    if dtype.fields is not None:
        # Field values whose bytes are valid UTF-8 (invalid ones have tests of their own).
        values = np.zeros(3, dtype=dtype)
        for name in dtype.names:
            field = dtype[name]
            column = {"i": [0, 1, 65], "U": ["", "ab", "c"], "S": [b"", b"ab", b"c"]}.get(
                field.base.kind, [b"", b"\x01\x02", b"z"]
            )
            values[name] = np.array(column).reshape((3,) + (1,) * len(field.shape))
        return values
    # An array of a subarray dtype is an array of its base with the subarray's axes.
    return np.arange(3 * int(np.prod(dtype.shape))).astype(dtype.base).reshape(3, *dtype.shape)


@pytest.mark.parametrize("source", BUILTIN, ids=dtype_id)
def test_builtin_to_string(flavor, source):
    values = builtin_values(source)
    for i in range(len(values)):
        same_everywhere(lambda cls, i=i: values[i : i + 1].astype(flavor.dtype(cls)), False)
    same_everywhere(lambda cls: values.astype(flavor.dtype(cls)), False)
    same_everywhere(lambda cls: np.array(values, dtype=flavor.dtype(cls)), False)


def initial(values):
    """What a string destination for ``values`` holds before the cast: short and long."""
    before = ["before"] + ["a long string, not inline"] * (len(values) - 1)
    rows = np.array(before, dtype=object).reshape(-1, *[1] * (values.ndim - 1))
    return np.broadcast_to(rows, values.shape)


@pytest.mark.parametrize("source", BUILTIN, ids=dtype_id)
def test_builtin_into_string_destination(flavor, source):
    values = builtin_values(source)

    def copy(cls):
        dst = np.array(initial(values), dtype=flavor.dtype(cls))
        done = outcome(lambda: np.copyto(dst, values, casting="unsafe"))
        return done, describe(dst)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (ours, ours_dst), (numpys, numpys_dst) = copy(StringDType), copy(NumpyStringDType)
    assert ours == numpys
    if ours[0] == "ok":
        assert ours_dst == numpys_dst
    elif not REFERENCE:
        # A failed cast to strings leaves the destination as it was (NumPy's may not).
        assert ours_dst[3] == initial(values).tolist()


def test_structured_to_string_follows_the_release():
    values = np.array([(1, "ab"), (2, "xyz")], dtype=[("a", "i4"), ("b", "U3")])
    result = outcome(lambda: values.astype(StringDType()))
    if NUMPY_RELEASE >= (2, 5):
        # NumPy 2.5 refuses casts from structured voids.
        assert result == ("raises", TypeError)
    else:
        # Before, their bytes are cast as those of an unstructured void.
        assert result[0] == "ok"
        assert result[1][3] == [
            "\x01\x00\x00\x00a\x00\x00\x00b",
            "\x02\x00\x00\x00x\x00\x00\x00y\x00\x00\x00z",
        ]


def test_empty_structured_to_string_follows_the_release():
    values = np.zeros(0, dtype=[("a", "i4")])
    both(lambda cls: values.astype(cls()))


CASTING = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.parametrize("other", STRUCTURED + SUBARRAYS + UNSIZED + SIZED, ids=dtype_id)
def test_can_cast_structured_and_subarray(flavor, other):
    for casting in CASTING:
        ours = (
            np.can_cast(flavor.dtype(), other, casting=casting),
            np.can_cast(other, flavor.dtype(), casting=casting),
        )
        assert ours == (
            np.can_cast(flavor.ref(), other, casting=casting),
            np.can_cast(other, flavor.ref(), casting=casting),
        )


# --- bytes and void holding invalid UTF-8 --------------------------------------------------

INVALID_UTF8 = [b"\xff", b"ok\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"x" * 20 + b"\xfe"]

# NumPy 2.5 raises a TypeError for both; NumPy 2.2-2.4 copy invalid bytes of 'S' unchecked
# (an array whose reading raises later) and report those of 'V' as a MemoryError, where
# the package raises a UnicodeDecodeError (Rules::invalid_utf8 in src/numpy_version.rs).
INVALID_UTF8_ERROR = TypeError if NUMPY_RELEASE >= (2, 5) else UnicodeDecodeError


@pytest.mark.skipif(REFERENCE, reason="NumPy's own leaves some destinations changed")
@pytest.mark.parametrize("kind", ["S", "V"])
@pytest.mark.parametrize("bad", INVALID_UTF8, ids=lambda b: b.hex())
def test_invalid_utf8_raises(flavor, kind, bad):
    source = np.array([b"fine", bad], dtype=f"{kind}24")
    before = ["before", "before-and-long-enough"]

    def fail(convert):
        target = np.array(before, dtype=flavor.dtype())
        with pytest.raises(INVALID_UTF8_ERROR):
            convert(target)
        assert target.tolist() == before

    fail(lambda target: source.astype(flavor.dtype()))
    fail(lambda target: np.array(source, dtype=flavor.dtype()))
    fail(lambda target: target.__setitem__(slice(None), source))
    fail(lambda target: np.copyto(target, source, casting="unsafe"))
    fail(lambda target: target.__setitem__(1, source[1]))
    # NumPy's own: the same error from 2.5 on; before, none for 'S', a MemoryError for 'V'.
    numpys = outcome(lambda: source.astype(NumpyStringDType(**flavor.kwargs)).shape)
    if NUMPY_RELEASE >= (2, 5):
        assert numpys == ("raises", TypeError)
    elif kind == "V":
        assert numpys == ("raises", MemoryError)
    else:
        assert numpys == ("ok", [2])


@pytest.mark.skipif(NUMPY_RELEASE < (2, 5), reason="NumPy's message from 2.5 on")
@pytest.mark.parametrize("kind", ["S", "V"])
def test_invalid_utf8_message(kind):
    source = np.array([b"\xff"], dtype=f"{kind}2")

    def message(cls):
        with pytest.raises(TypeError) as info:
            source.astype(cls())
        return str(info.value)

    assert message(StringDType) == message(NumpyStringDType)


# --- multiply by counts at and above 2**63 -------------------------------------------------

BIG_COUNTS = [2**63 - 1, 2**63, 2**64 - 1]
COUNT_FORMS = ["int", "uint64", "ulonglong", "uint64[]", "int64", "int64[]", "object[]"]


def count_form(form, count, n):
    """``count`` as a Python int, a NumPy scalar or an array of ``n`` (the count first)."""
    if form == "int":
        return count
    if form.endswith("[]"):
        return np.array([count] + [1] * (n - 1), dtype=form[:-2].replace("object", "O"))
    return getattr(np, form)(count)


MULTIPLIES = {
    "a*n": lambda a, n: a * n,
    "n*a": lambda a, n: n * a,
    "strings.multiply": lambda a, n: np.strings.multiply(a, n),
}

# Where the package's multiply differs from NumPy's: its promoters (src/ufuncs/) promote a
# ulonglong count (np.ulonglong, and what np.strings.multiply makes of a Python int of
# 2**63 and more) to int64, where it wraps to a negative count and gives '' as NumPy 2.5
# does, where NumPy 2.3-2.4 raise OverflowError (2.2 MemoryError). A uint64 count beyond
# int64 repeats an empty string that often ('') and overflows for any other, as in NumPy.
ULONGLONG_WRAPS = pytest.mark.xfail(
    NUMPY_RELEASE < (2, 5) and not REFERENCE,
    strict=True,
    reason="a ulonglong count is promoted to int64 and wraps to a negative count",
)


def multiply_cases():
    for count in BIG_COUNTS:
        for text in ["", "ab", "x" * 20]:
            for op in MULTIPLIES:
                for form in COUNT_FORMS:
                    if form.startswith("int64") and count >= 2**63:
                        continue  # no int64 holds it
                    marks = []
                    big = count >= 2**63
                    ulonglong = form == "ulonglong" or (form == "int" and op == "strings.multiply")
                    if big and text and ulonglong:
                        marks.append(ULONGLONG_WRAPS)
                    yield pytest.param(count, text, op, form, marks=marks)


@pytest.mark.parametrize(("count", "text", "op", "form"), list(multiply_cases()))
def test_multiply_by_huge_counts(flavor, count, text, op, form):
    if text == "" and NUMPY_RELEASE < (2, 5):
        # NumPy 2.2-2.4 repeat an empty string once per count: 2**63 times (see
        # test_multiply_empty_by_huge_counts for what every release must give).
        pytest.skip("NumPy before 2.5 loops once per count")
    values = [text, text] + ([flavor.na_object] if flavor.has_na else [])
    n = count_form(form, count, len(values))

    def run(cls):
        return in_numpys_rule(lambda: MULTIPLIES[op](np.array(values, dtype=flavor.dtype(cls)), n))

    ours, numpys = run(StringDType), run(NumpyStringDType)
    if NUMPY_RELEASE < (2, 3) and numpys[0] == ("raises", MemoryError):
        # NumPy 2.2 reports a result too long as a MemoryError; 2.3 on, as the package
        # on every release, an OverflowError.
        numpys = (("raises", OverflowError), numpys[1])
    assert ours == numpys


@pytest.mark.parametrize("form", ["uint64", "uint64[]"])
def test_multiply_missing_by_huge_count(na_flavor, form):
    # A NaN-like missing value stays missing, a None-like one cannot be repeated, and a
    # string one is repeated (and overflows), as in NumPy on every release.
    count = count_form(form, 2**63, 1)

    def run(cls):
        return outcome(lambda: np.array([na_flavor.na_object], dtype=na_flavor.dtype(cls)) * count)

    # NumPy 2.2 calls a result too long a MemoryError, later releases an OverflowError.
    too_long = ("raises", OverflowError)
    ours, numpys = [
        too_long if NUMPY_RELEASE < (2, 3) and result == ("raises", MemoryError) else result
        for result in (run(StringDType), run(NumpyStringDType))
    ]
    assert ours == numpys


@pytest.mark.parametrize(
    ("form", "op"),
    [
        ("int", "strings.multiply"),
        ("ulonglong", "a*n"),
        ("uint64", "a*n"),
        ("uint64", "n*a"),
        ("uint64[]", "strings.multiply"),
    ],
)
@pytest.mark.parametrize("count", BIG_COUNTS[1:])
@pytest.mark.skipif(REFERENCE and NUMPY_RELEASE < (2, 5), reason="loops once per count")
def test_multiply_empty_by_huge_counts(count, form, op):
    # NumPy 2.5's answers, which are NumPy 2.2-2.4's after 2**63 repetitions of nothing.
    a = np.array(["", ""], dtype=StringDType())
    assert MULTIPLIES[op](a, count_form(form, count, 2)).tolist() == ["", ""]


@pytest.mark.parametrize(
    "op",
    ["a*n", "n*a", pytest.param("strings.multiply", marks=ULONGLONG_WRAPS)],
)
@pytest.mark.parametrize("count", BIG_COUNTS[1:])
def test_multiply_by_python_int_beyond_int64(count, op):
    # `*` converts the Python int to a C long first; np.strings.multiply makes it a
    # ulonglong, which NumPy 2.5 takes as a negative count ('').
    a = np.array(["", "ab"], dtype=StringDType())
    if op == "strings.multiply" and NUMPY_RELEASE >= (2, 5):
        assert MULTIPLIES[op](a[1:], count).tolist() == [""]
        return
    with pytest.raises(OverflowError):
        MULTIPLIES[op](a[1:], count)
    if op != "strings.multiply":
        with pytest.raises(OverflowError):
            MULTIPLIES[op](a[:1], count)


# --- invalid numeric strings to every numeric dtype ----------------------------------------

INVALID_NUMBERS = ["", " ", "1e", "0x10", "nan", "inf", "-inf", "1_000", "١٢", "12abc"]
INVALID_NUMBERS += ["1e400", "-1e400", "1e5000", "70000", str(2**64), str(-(2**63) - 1)]
INVALID_NUMBERS += ["-1", "300", "-129", "1.5", "1,5", "0b11", "1__0", "_1", "+", "--1"]
# A NUL after a number: NumPy 2.5 refuses it everywhere; 2.2-2.4 read a long double up to
# it ('1\x00abc' is 1.0) and refuse it elsewhere.
INVALID_NUMBERS += ["1\x00", "1\x00abc", "1.5\x00", "\x001"]


@pytest.mark.parametrize("target", NUMERIC + TIMES, ids=dtype_id)
def test_invalid_numeric_strings(flavor, target):
    for text in INVALID_NUMBERS:
        if parses_complex(target, [text]):
            expected_complex(flavor, target, [text])
            continue
        to_target(flavor, target, [text])
        to_target(flavor, target, ["1", text, "2"])


@pytest.mark.skipif(REFERENCE, reason="the reference is the package here")
def test_invalid_numbers_reference_is_numpy():
    # The cases above compare with NumPy; a few answers, so that a change of both is seen.
    def cast(text, target):
        return outcome(lambda: np.array([text], dtype=StringDType()).astype(target))

    assert cast("1_000", "i8") == ("ok", ("array", "<i8", (1,), [1000]))
    assert cast("0x10", "i8") == ("raises", ValueError)
    assert cast(str(2**64), "u8") == ("raises", OverflowError)
    assert cast("12abc", "f8") == ("raises", ValueError)
