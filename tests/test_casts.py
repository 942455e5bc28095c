"""Casts to and from StringDType: other StringDType flavors, 'U', 'S', object, bool,
integers, floats, complex, datetime64/timedelta64; missing values in casts (np.can_cast:
test_can_cast.py).  Every result is compared with NumPy's StringDType and, where
it is well defined, with a value computed in Python."""

import sys
import warnings

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    FLOAT_NAN_IS_MISSING,
    NAN,
    NUMPY_RELEASE,
    REFERENCE,
    NumpyStringDType,
    StringDType,
    assert_same_list,
    both,
    is_nan,
    normalize,
    random_strings,
)

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float16, np.float32, np.float64, np.longdouble]
TIME_TYPES = ["M8[D]", "M8[s]", "M8[ms]", "m8[s]", "m8[D]"]


def cast_both(flavor, values, target, **kwargs):
    """``np.array(values, flavor).astype(target)`` on both implementations."""
    return both(lambda cls: np.array(values, dtype=flavor.dtype(cls)).astype(target, **kwargs))


def cast_from_both(values, source_dtype, flavor):
    """``np.array(values, source_dtype).astype(flavor)`` on both implementations."""
    return both(lambda cls: np.array(values, dtype=source_dtype).astype(flavor.dtype(cls)))


def ok_values(outcome):
    assert outcome[0] == "ok", outcome
    return outcome[1][3]


# --- StringDType to StringDType ----------------------------------------------------------


@pytest.mark.parametrize("target", FLAVORS, ids=str)
def test_between_flavors(flavor, target, rng):
    values = random_strings(rng, 40, flavor.na_object)
    src = np.array(values, dtype=flavor.dtype())
    result = src.astype(target.dtype())
    assert type(result.dtype) is StringDType
    assert result.dtype == target.dtype()
    expected = []
    for v in values:
        is_na = flavor.has_na and (v is flavor.na_object or is_nan(v))
        if is_na and target.has_na:
            expected.append(target.na_object)
        elif is_na:
            expected.append(str(flavor.na_object))
        else:
            expected.append(v)
    assert_same_list(result.tolist(), expected)
    both(lambda cls: np.array(values, dtype=flavor.dtype(cls)).astype(target.dtype(cls)))
    # The result owns its strings.
    src[...] = "overwritten-source-string"
    assert_same_list(result.tolist(), expected)


@pytest.mark.parametrize("target", FLAVORS, ids=str)
def test_between_flavors_one_element_at_a_time(flavor, target, rng):
    # NumPy casts one element per call for `take`, fancy indexing and masked copies;
    # each element kind (inline, long, missing) goes through that path here.
    values = random_strings(rng, 40, flavor.na_object)
    for v in values:
        outcome = both(
            lambda cls, v=v: np.array([v], dtype=flavor.dtype(cls)).astype(target.dtype(cls))
        )
        assert outcome[0] == "ok", outcome
    where = np.arange(len(values)) % 2 == 0
    fill = ["d" * (i % 20) for i in range(len(values))]

    def masked_copy(cls):
        dst = np.array(fill, dtype=target.dtype(cls))
        np.copyto(dst, np.array(values, dtype=flavor.dtype(cls)), casting="unsafe", where=where)
        return dst

    assert both(masked_copy)[0] == "ok"


def test_astype_same_dtype_copy_false_is_noop(flavor, strings):
    arr = np.array(strings, dtype=flavor.dtype())
    assert arr.astype(arr.dtype, copy=False) is arr
    copied = arr.astype(arr.dtype)
    assert copied is not arr
    assert_same_list(copied.tolist(), strings)


# --- unicode 'U' --------------------------------------------------------------------------


def strip_trailing_nul(s):
    return s.rstrip("\x00")


def unicode_run_cases(rng):
    """Strings on and off the eight-code-unit runs of the casts to and from 'U'."""
    values = [strip_trailing_nul(v) for v in random_strings(rng, 200) if v is not None]
    values += ["a" * k + "é" + "b" * j for k in (0, 7, 8, 9, 16) for j in (0, 7, 8, 30)]
    return values + ["x\x00" * 10 + "y", "\x00" * 9 + "z", "😀" * 17]


@pytest.mark.parametrize("size", [1, 5, 8, 9, 12, 13, 17, 1000])
def test_to_sized_unicode(flavor, rng, size):
    # ASCII is widened eight bytes at a time: sizes and strings on and off those runs.
    values = random_strings(rng, 40, flavor.na_object) + unicode_run_cases(rng)
    outcome = cast_both(flavor, values, f"U{size}")
    got = ok_values(outcome)
    assert outcome[1][1] == f"<U{size}"
    for g, v in zip(got, values):
        text = str(v) if not isinstance(v, str) else v
        assert g == strip_trailing_nul(text[:size])


@pytest.mark.parametrize("size", [1, 5, 11, 12, 13, 16])
def test_to_sized_unicode_of_either_byte_order(rng, size):
    # Inline ASCII strings are widened from their views, twelve units at once.
    values = [v for v in random_strings(rng, 60) if v is not None] + ["", "a", "abcdefghijkl"]
    values += ["ab\x00c", "\x7f" * 12, "abcdefghijké", "é"]
    a = np.array(values, dtype=StringDType())
    for order in "<>":
        got = a.astype(f"{order}U{size}")
        assert got.dtype == np.dtype(f"{order}U{size}")
        assert got.tolist() == [strip_trailing_nul(v[:size]) for v in values]
        assert got.tobytes() == np.array(values, dtype=f"{order}U{size}").tobytes()


def test_to_unsized_unicode_raises(flavor):
    with pytest.raises(TypeError):
        np.array(["a"], dtype=flavor.dtype()).astype("U")
    assert cast_both(flavor, ["a"], "U") == ("raises", TypeError)
    assert cast_both(flavor, ["a"], np.str_) == ("raises", TypeError)


@pytest.mark.parametrize("target", ["U", "S", "V", np.str_, np.bytes_])
@pytest.mark.parametrize(
    "convert",
    [
        lambda a, target: a.astype(target),
        lambda a, target: np.asarray(a, dtype=target),
        lambda a, target: a.astype(target, casting="unsafe"),
    ],
    ids=["astype", "asarray", "astype-unsafe"],
)
def test_unsized_fixed_width_error_matches_numpy(flavor, target, convert):
    """The message of the error and of the one it was raised from, as NumPy's."""

    def error(cls):
        a = np.array(["a", "bc"], dtype=flavor.dtype(cls))
        with pytest.raises(TypeError) as info:
            convert(a, target)
        cause = info.value.__cause__
        return str(info.value), type(cause), str(cause)

    assert error(StringDType) == error(NumpyStringDType)


def test_from_unicode(flavor, rng):
    values = [strip_trailing_nul(v) for v in random_strings(rng, 40) if v is not None]
    for source in (np.array(values), np.array(values, dtype="U2000")):
        result = source.astype(flavor.dtype())
        assert type(result.dtype) is StringDType
        assert result.tolist() == values
    cast_from_both(values, "U", flavor)
    # The result owns its strings: the unicode buffer can be changed.
    source = np.array(values)
    result = source.astype(flavor.dtype())
    source[...] = "z"
    assert result.tolist() == values


def test_from_unicode_in_runs(flavor, rng):
    # ASCII is converted eight code points at a time and NUL padding skipped eight at a
    # time: non-ASCII, embedded NULs and invalid code points on and off those runs.
    values = unicode_run_cases(rng)
    width = max(map(len, values)) + 19
    assert ok_values(cast_from_both(values, f"U{width}", flavor)) == values
    for k in (3, 8, 20):
        bad = ["fine", "a" * k + "\ud800"]
        assert cast_from_both(bad, f"U{width}", flavor) == ("raises", TypeError)


def test_unicode_strings_that_look_like_na(na_flavor):
    values = ["None", "nan", "__nan__", "NA", ""]
    outcome = cast_from_both(values, "U", na_flavor)
    got = ok_values(outcome)
    assert got == values


# --- bytes 'S' ----------------------------------------------------------------------------


def test_from_bytes_decodes_utf8(flavor):
    values = [b"", b"ascii", "é中😀".encode(), ("x" * 20).encode(), b"a\x00b"]
    result = np.array(values, dtype="S").astype(flavor.dtype())
    assert result.tolist() == ["", "ascii", "é中😀", "x" * 20, "a\x00b"]
    cast_from_both(values, "S", flavor)


@pytest.mark.xfail(
    REFERENCE,
    reason="NumPy before 2.5 copies invalid UTF-8 unchecked (reading the element raises "
    "later); 2.5 writes the elements before the invalid one",
    strict=True,
)
@pytest.mark.parametrize("bad", [b"\xff", b"ok\xc3", b"\xed\xa0\x80", b"x" * 20 + b"\xfe"])
def test_from_invalid_bytes_raises(flavor, bad):
    # NumPy 2.5's TypeError; before it, Python's codec's error (test_numpy_rules.py).
    error = TypeError if NUMPY_RELEASE >= (2, 5) else UnicodeDecodeError
    source = np.array([b"fine", bad], dtype="S")
    with pytest.raises(error):
        source.astype(flavor.dtype())
    target = np.array(["before", "before-and-long-enough"], dtype=flavor.dtype())
    with pytest.raises(error):
        target[:] = source
    assert target.tolist() == ["before", "before-and-long-enough"]


@pytest.mark.parametrize("size", [1, 3, 20])
def test_to_sized_bytes(flavor, size):
    values = ["", "abc", "x" * 15, "a\x00b"]
    got = ok_values(cast_both(flavor, values, f"S{size}"))
    assert got == [v.encode()[:size].rstrip(b"\x00") for v in values]


def test_to_bytes_non_ascii_raises(flavor):
    assert cast_both(flavor, ["ok", "é"], "S5") == ("raises", UnicodeEncodeError)
    assert cast_both(flavor, ["a"], "S") == ("raises", TypeError)


# --- object -------------------------------------------------------------------------------


def test_to_object(flavor, strings):
    result = np.array(strings, dtype=flavor.dtype()).astype(object)
    assert result.dtype == object
    assert_same_list(result.tolist(), strings)
    for v in result.ravel():
        assert type(v) is str or (flavor.has_na and (v is flavor.na_object or is_nan(v)))
    cast_both(flavor, strings, object)


def test_to_object_strings_are_ordinary_str():
    # ASCII strings are built without the decoder: they must be the str Python builds,
    # equal with the same hash, ASCII, usable as keys.
    values = ["ab", "a\x00b", "x" * 13, "x" * 300, "", "q", "é", "ab é", "\x7f\x00"]
    result = np.array(values, dtype=StringDType()).astype(object)
    keys = {v: i for i, v in enumerate(values)}
    for got, want in zip(result, values):
        assert type(got) is str
        assert got == want and hash(got) == hash(want)
        assert got.isascii() == want.isascii()
        assert keys[got] == values.index(want)
        assert len(got) == len(want)


def test_to_object_in_batches_strided_and_over_objects(flavor, rng):
    # More elements than one batch of the cast, read through strides and orders, and
    # written over an object array's references, which are released.
    values = random_strings(rng, 2500, flavor.na_object)

    def source(cls):
        return np.array(values, dtype=flavor.dtype(cls))

    def grid(cls):
        return source(cls)[:2400].reshape(40, 60)

    for cast in (
        lambda cls: source(cls)[::3].astype(object),
        lambda cls: grid(cls).T.astype(object),
        lambda cls: grid(cls).astype(object, order="F"),
    ):
        outcome = both(cast)
        assert outcome[0] == "ok", outcome
    src = np.array(values, dtype=flavor.dtype())
    sentinel = object()
    target = np.full(len(values), sentinel, dtype=object)
    before = sys.getrefcount(sentinel)
    np.copyto(target, src)
    assert sys.getrefcount(sentinel) == before - len(values)
    assert_same_list(target.tolist(), values)
    mask = np.arange(len(values)) % 2 == 0
    target = np.full(len(values), sentinel, dtype=object)
    np.copyto(target, src, where=mask)
    expected = [v if keep else sentinel for v, keep in zip(values, mask)]
    assert all(
        a is b if b is sentinel else normalize([a]) == normalize([b])
        for a, b in zip(target.tolist(), expected)
    )


def test_from_object(flavor, strings):
    result = np.array(strings, dtype=object).astype(flavor.dtype())
    assert_same_list(result.tolist(), strings)
    cast_from_both(strings, object, flavor)


# --- bool ---------------------------------------------------------------------------------


def test_to_bool(flavor, rng):
    values = ["", "a", "False", "0", " ", "\x00", "long-string-here"]
    values += random_strings(rng, 20)
    got = ok_values(cast_both(flavor, values, bool))
    assert got == [bool(v) for v in values]


def test_from_bool(flavor):
    got = ok_values(cast_from_both([True, False, True], bool, flavor))
    assert got == ["True", "False", "True"]


# --- integers -----------------------------------------------------------------------------


@pytest.mark.parametrize("int_type", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_to_int(flavor, int_type):
    info = np.iinfo(int_type)
    numbers = [0, 1, 7, int(info.max), int(info.min), int(info.max) // 3]
    values = [str(n) for n in numbers] + [" 12 ", "+5", "1_0", "-0"]
    got = ok_values(cast_both(flavor, values, int_type))
    expected = numbers + [12, 5, 10, 0]
    assert got == expected
    result = np.array(values, dtype=flavor.dtype()).astype(int_type)
    assert result.dtype == np.dtype(int_type)


@pytest.mark.parametrize("int_type", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_to_int_out_of_range(flavor, int_type):
    info = np.iinfo(int_type)
    for n in (int(info.max) + 1, int(info.min) - 1, 10**30):
        assert cast_both(flavor, ["1", str(n)], int_type) == ("raises", OverflowError)


@pytest.mark.parametrize("bad", ["", "x", "1.5", "0x10", "1e3", "2**70", "٣a"])
def test_to_int_invalid(flavor, bad):
    assert cast_both(flavor, ["1", bad], np.int64) == ("raises", ValueError)


@pytest.mark.parametrize("int_type", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_from_int(flavor, int_type):
    info = np.iinfo(int_type)
    numbers = [0, 1, int(info.max), int(info.min), 42]
    got = ok_values(cast_from_both(numbers, int_type, flavor))
    assert got == [str(n) for n in numbers]


def test_int_and_string_roundtrip_in_assignment(flavor):
    ints = np.zeros(3, dtype=np.int32)
    ints[:] = np.array(["1", "-2", "300"], dtype=flavor.dtype())
    assert ints.tolist() == [1, -2, 300]
    strs = np.empty(3, dtype=flavor.dtype())
    strs[:] = np.array([10, 20, 30])
    assert strs.tolist() == ["10", "20", "30"]


# --- floats and complex -------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("float_type", FLOAT_TYPES, ids=lambda t: np.dtype(t).name)
def test_to_float(flavor, float_type):
    values = ["1.5", "-0.0", "inf", "-inf", "nan", "1e3", "2", "0.1", "1e5000", "-1e-5000"]
    outcome = cast_both(flavor, values, float_type)
    result = np.array(values, dtype=flavor.dtype()).astype(float_type)
    assert result.dtype == np.dtype(float_type)
    expected = np.array([float_type(v) for v in values[:-2]], dtype=float_type)
    np.testing.assert_array_equal(result[:-2], expected)
    assert np.signbit(result[1])
    assert result[-2] == np.inf
    assert result[-1] == 0 and np.signbit(result[-1])
    assert outcome[0] == "ok"


def cast_with_warnings(dtype, values, target):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = np.array(values, dtype=dtype).astype(target)
    return result.tolist(), sorted({w.category.__name__ for w in caught})


@pytest.mark.parametrize("float_type", FLOAT_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("text", ["1e5000", "-1e-5000", "1e400", "70000"])
def test_to_float_overflow_warnings(float_type, text):
    ours = cast_with_warnings(StringDType(), [text], float_type)
    numpys = cast_with_warnings(NumpyStringDType(), [text], float_type)
    assert ours == numpys


@pytest.mark.parametrize("bad", ["", "x", "1.5.5", "1,5", "0x1p3"])
def test_to_float_invalid(flavor, bad):
    assert cast_both(flavor, ["1", bad], np.float64) == ("raises", ValueError)


# NumPy warns when it casts a float16 NaN to a string; the warning is not the point here.
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("float_type", FLOAT_TYPES, ids=lambda t: np.dtype(t).name)
def test_from_float(flavor, float_type):
    numbers = np.array([0.0, -0.0, 1.5, 0.1, 1 / 3, 1e20, 1e-5, np.inf, -np.inf, np.nan])
    with np.errstate(over="ignore"):
        numbers = numbers.astype(float_type)
    got = ok_values(cast_from_both(numbers, float_type, flavor))
    expected = [str(x) for x in numbers]
    if flavor.na_is_nan and float_type is np.float64 and FLOAT_NAN_IS_MISSING:
        # A float64 NaN (a Python float) becomes the NaN missing value; NumPy keeps
        # the other widths' NaN as the string "nan".
        expected[-1] = NAN
    assert got == expected


@pytest.mark.parametrize("complex_type", [np.complex64, np.complex128])
def test_from_complex(flavor, complex_type):
    numbers = np.array([0, 1 + 2j, -1.5j, complex(np.inf, np.nan)], dtype=complex_type)
    got = ok_values(cast_from_both(numbers, complex_type, flavor))
    assert got == [str(x) for x in numbers]


@pytest.mark.xfail(
    REFERENCE and (2, 3) <= NUMPY_RELEASE < (2, 5),
    reason="NumPy 2.3 and 2.4 parse complex strings wrongly ('1.5' -> (1.5+1.5j))",
    strict=True,
)
@pytest.mark.parametrize("complex_type", [np.complex64, np.complex128])
def test_to_complex(flavor, complex_type):
    values = ["1.5", "(1+2j)", "-2j", "inf"]
    result = np.array(values, dtype=flavor.dtype()).astype(complex_type)
    assert result.tolist() == [complex(v) for v in values]


# --- datetime64 / timedelta64 --------------------------------------------------------------


@pytest.mark.parametrize("time_type", TIME_TYPES)
def test_to_datetime_like(flavor, time_type):
    if time_type.startswith("M8"):
        values = ["2020-01-01", "1969-12-31T23:59:59", "NaT", "nat", "", "2000-02-29"]
    else:
        values = ["0", "10", "-5", "NaT", ""]
    got = cast_both(flavor, values, time_type)
    expected = np.array(values, dtype=object).astype("U").astype(time_type)
    assert got == ("ok", ("array", np.dtype(time_type).str, (len(values),), expected.tolist()))


@pytest.mark.parametrize("time_type", ["M8", "m8"])
def test_to_generic_datetime_like_raises(flavor, time_type):
    assert cast_both(flavor, ["1"], time_type) == ("raises", TypeError)


@pytest.mark.parametrize("time_type", ["M8[D]", "m8[s]"])
def test_to_datetime_like_invalid(flavor, time_type):
    assert cast_both(flavor, ["1", "not-a-time"], time_type) == ("raises", ValueError)


@pytest.mark.parametrize("time_type", TIME_TYPES)
def test_from_datetime_like(flavor, time_type):
    if time_type.startswith("M8"):
        values = np.array(["2020-01-01", "1969-12-31T23:59:59", "NaT"]).astype(time_type)
    else:
        values = np.array([0, 10, -5, "NaT"]).astype(time_type)
    outcome = cast_from_both(values, time_type, flavor)
    got = ok_values(outcome)
    if time_type.startswith("M8"):
        expected = values.astype("U").tolist()
    else:
        expected = [str(x) for x in values[:-1].astype(np.int64)] + ["NaT"]
    if flavor.has_na:
        # NaT becomes the missing value.
        assert got[:-1] == expected[:-1]
        assert got[-1] == normalize(flavor.na_object)
    else:
        assert got == expected


def test_datetime_nat_becomes_na():
    values = np.array(["2020-01-01", "NaT"], dtype="M8[D]")
    assert values.astype(StringDType(na_object=None)).tolist() == ["2020-01-01", None]
    assert values.astype(StringDType()).tolist() == ["2020-01-01", "NaT"]


# --- void and others ------------------------------------------------------------------------


def test_to_unsized_void_raises(flavor):
    assert cast_both(flavor, ["a"], "V") == ("raises", TypeError)


# --- missing values in casts ------------------------------------------------------------------

NA_TARGETS = [
    bool,
    object,
    "U4",
    "S4",
    "M8[s]",
    "m8[s]",
    np.float64,
    np.float32,
    np.int64,
    np.uint8,
] + [np.complex128]


@pytest.mark.parametrize("target", NA_TARGETS, ids=lambda t: np.dtype(t).str)
def test_na_in_casts_matches_numpy(na_flavor, target):
    values = ["1", na_flavor.na_object]
    cast_both(na_flavor, values, target)


@pytest.mark.parametrize("target", [np.float64, np.float32, np.int64, np.uint8, np.complex128])
def test_na_to_numbers_raises_value_error(target):
    for na in (None, np.nan):
        arr = np.array(["1", na], dtype=StringDType(na_object=na))
        with pytest.raises(ValueError):
            arr.astype(target)


def test_na_to_simple_targets():
    nones = np.array(["1", None], dtype=StringDType(na_object=None))
    nans = np.array(["1", np.nan], dtype=StringDType(na_object=np.nan))
    assert nones.astype(bool).tolist() == [True, False]
    assert nans.astype(bool).tolist() == [True, True]
    assert nones.astype("U3").tolist() == ["1", "Non"]
    assert nans.astype("U3").tolist() == ["1", "nan"]
    assert nones.astype(object).tolist() == ["1", None]
    assert nones.astype(StringDType()).tolist() == ["1", "None"]
    assert nones.astype("M8[s]")[1] != nones.astype("M8[s]")[1]  # NaT
    result = nans.astype(StringDType(na_object=None)).tolist()
    assert result == ["1", None]


def test_na_from_object_nan_and_none(flavor):
    outcome = cast_from_both([np.nan, None, "x"], object, flavor)
    if not flavor.coerce and not flavor.has_na:
        assert outcome == ("raises", ValueError)
        return
    if flavor.coerce:
        got = ok_values(outcome)
        na = normalize(flavor.na_object)
        assert got[0] == (na if flavor.na_is_nan else "nan")
        assert got[1] == (na if flavor.na_object is None else "None")
        assert got[2] == "x"
