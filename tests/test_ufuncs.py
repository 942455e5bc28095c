"""Ufunc loops (comparisons, maximum/minimum, add, multiply, str_len, isnan) against
NumPy's StringDType on random strings, broadcasting, strides and ``out=``."""

import math

import numpy as np
import pytest
from conftest import (
    KINDS,
    NUMPY_RELEASE,
    REFERENCE,
    StringDType,
    exact_bytes,
    package_only,
    random_string,
    random_strings,
)

NA_OBJECTS = {"unset": None, "none": None, "nan": np.nan, "str": "__nan__"}


# Where this package departs from NumPy's StringDType on purpose (each also asserted by a
# test below): it has the (StringDType, str) ``maximum``/``minimum`` loops NumPy lacks, and
# it follows Python's ``str`` where NumPy before 2.5 has bugs (a negative count in
# ``multiply`` raises OverflowError there, ``str_len("\x00")`` is 0 there).  Strict, so that
# a change on either side shows up here.
KNOWN_DIFFERENCES = {
    "test_binary_with_python_str[unset--maximum]",
    "test_binary_with_python_str[unset--minimum]",
    "test_binary_with_python_str[unset-abc-maximum]",
    "test_binary_with_python_str[unset-abc-minimum]",
    "test_binary_with_python_str[unset-exactly12byt-maximum]",
    "test_binary_with_python_str[unset-exactly12byt-minimum]",
    "test_binary_with_python_str[unset-aaaaaaaaaaaaa-maximum]",
    "test_binary_with_python_str[unset-aaaaaaaaaaaaa-minimum]",
    "test_binary_with_python_str[unset-\\xe9-maximum]",
    "test_binary_with_python_str[unset-\\xe9-minimum]",
    "test_binary_with_python_str[none--maximum]",
    "test_binary_with_python_str[none--minimum]",
    "test_binary_with_python_str[none-abc-maximum]",
    "test_binary_with_python_str[none-abc-minimum]",
    "test_binary_with_python_str[none-exactly12byt-maximum]",
    "test_binary_with_python_str[none-exactly12byt-minimum]",
    "test_binary_with_python_str[none-aaaaaaaaaaaaa-maximum]",
    "test_binary_with_python_str[none-aaaaaaaaaaaaa-minimum]",
    "test_binary_with_python_str[none-\\xe9-maximum]",
    "test_binary_with_python_str[none-\\xe9-minimum]",
    "test_binary_with_python_str[nan--maximum]",
    "test_binary_with_python_str[nan--minimum]",
    "test_binary_with_python_str[nan-abc-maximum]",
    "test_binary_with_python_str[nan-abc-minimum]",
    "test_binary_with_python_str[nan-exactly12byt-maximum]",
    "test_binary_with_python_str[nan-exactly12byt-minimum]",
    "test_binary_with_python_str[nan-aaaaaaaaaaaaa-maximum]",
    "test_binary_with_python_str[nan-aaaaaaaaaaaaa-minimum]",
    "test_binary_with_python_str[nan-\\xe9-maximum]",
    "test_binary_with_python_str[nan-\\xe9-minimum]",
    "test_binary_with_python_str[str--maximum]",
    "test_binary_with_python_str[str--minimum]",
    "test_binary_with_python_str[str-abc-maximum]",
    "test_binary_with_python_str[str-abc-minimum]",
    "test_binary_with_python_str[str-exactly12byt-maximum]",
    "test_binary_with_python_str[str-exactly12byt-minimum]",
    "test_binary_with_python_str[str-aaaaaaaaaaaaa-maximum]",
    "test_binary_with_python_str[str-aaaaaaaaaaaaa-minimum]",
    "test_binary_with_python_str[str-\\xe9-maximum]",
    "test_binary_with_python_str[str-\\xe9-minimum]",
}
if NUMPY_RELEASE < (2, 5):
    KNOWN_DIFFERENCES |= {
        "test_multiply[unset--2]",
        "test_multiply[none--2]",
        "test_multiply[nan--2]",
        "test_multiply[str--2]",
        "test_multiply_by_integer_array",
        "test_unary[unset-str_len]",
        "test_unary[str-str_len]",
    }


@pytest.fixture(autouse=True)
def _known_differences(request):
    if not REFERENCE and request.node.name in KNOWN_DIFFERENCES:
        request.applymarker(pytest.mark.xfail(strict=True, reason="known difference from NumPy"))


def make(values, na_key, cls):
    if na_key == "unset":
        return np.array(values, dtype=cls())
    return np.array(values, dtype=cls(na_object=NA_OBJECTS[na_key]))


def outcome(fn):
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return ("raises", type(exc))
    if isinstance(result, np.ndarray):
        return ("array", result.dtype.char, result.shape, result.tolist())
    return ("value", result)


def same(a, b):
    def norm(x):
        if isinstance(x, float) and math.isnan(x):
            return "NaN"
        if isinstance(x, (list, tuple)):
            return [norm(v) for v in x]
        return x

    assert norm(a) == norm(b)


def check(op, na_key, values_a, values_b=None):
    """Runs ``op`` on arrays of ours and of NumPy's StringDType and compares."""
    numpy_cls = np.dtypes.StringDType
    ours = outcome(
        lambda: op(*[make(v, na_key, StringDType) for v in filter(None, [values_a, values_b])])
    )
    ref = outcome(
        lambda: op(*[make(v, na_key, numpy_cls) for v in filter(None, [values_a, values_b])])
    )
    same(ours, ref)
    return ours


BINARY = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "add": np.add,
}


def skip_missing_comparison(na_key, name):
    """Comparisons with missing values follow NumPy's fixed rules (numpy#32564), which no
    supported NumPy's own StringDType has: tests/test_missing_comparisons.py checks them
    against Python's semantics."""
    if na_key != "unset" and name not in ("maximum", "minimum", "add"):
        pytest.skip("missing values compare by numpy#32564: test_missing_comparisons.py")


@pytest.fixture(params=list(NA_OBJECTS))
def na_key(request):
    return request.param


def values(rng, na_key, n=60):
    if na_key == "unset":
        return random_strings(rng, n)
    return random_strings(rng, n, NA_OBJECTS[na_key])


@pytest.mark.parametrize("name", BINARY)
def test_binary_arrays(rng, na_key, name):
    skip_missing_comparison(na_key, name)
    a, b = values(rng, na_key), values(rng, na_key)
    # Share some elements so that equality and prefix ties are exercised.
    b[::3] = a[::3]
    check(BINARY[name], na_key, a, b)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("scalar", ["", "abc", "exactly12byt", "a" * 13, "é"])
def test_binary_with_python_str(rng, na_key, name, scalar):
    skip_missing_comparison(na_key, name)
    a = values(rng, na_key)
    check(lambda x: BINARY[name](x, scalar), na_key, a)
    check(lambda x: BINARY[name](scalar, x), na_key, a)


@pytest.mark.parametrize("name", ["equal", "less", "add"])
def test_binary_with_unicode_array(rng, name):
    a = values(rng, "unset")
    u = np.array(values(rng, "unset"), dtype="U")
    check(lambda x: BINARY[name](x, u), "unset", a)
    check(lambda x: BINARY[name](u, x), "unset", a)


def test_broadcasting_and_strides(rng):
    a = np.array(values(rng, "unset", 24), dtype=StringDType()).reshape(4, 6)
    r = np.array(a.tolist(), dtype=np.dtypes.StringDType())
    b = np.array(values(rng, "unset", 6), dtype=StringDType())
    rb = np.array(b.tolist(), dtype=np.dtypes.StringDType())
    assert (a[:, ::-2] + b[::2]).tolist() == (r[:, ::-2] + rb[::2]).tolist()
    assert (a.T < b[:, None]).tolist() == (r.T < rb[:, None]).tolist()
    assert np.maximum(a, b).tolist() == np.maximum(r, rb).tolist()


@pytest.mark.parametrize("count", [0, 1, 3, -2, np.int8(2), np.uint16(4)])
def test_multiply(rng, na_key, count):
    a = values(rng, na_key)
    check(lambda x: x * count, na_key, a)
    check(lambda x: count * x, na_key, a)


def test_multiply_by_integer_array(rng):
    a = values(rng, "unset", 20)
    counts = np.arange(-2, 18, dtype=np.int32)
    check(lambda x: x * counts, "unset", a)
    check(lambda x: counts * x, "unset", a)


def test_multiply_overflow_is_an_error():
    a = np.array(["x" * 100], dtype=StringDType())
    with pytest.raises((OverflowError, MemoryError)):
        a * (2**31)
    assert a.tolist() == ["x" * 100]


@pytest.mark.parametrize("op", [np.strings.str_len, np.isnan], ids=["str_len", "isnan"])
def test_unary(rng, na_key, op):
    check(op, na_key, values(rng, na_key))


def runs_of_short_and_long(rng, na_object=None, kinds=None):
    """Runs longer than ``str_len``'s batches (256 elements) of mostly inline and of
    mostly long strings (13 bytes and more), with the other ``kinds`` (by default every
    kind but the missing value) sprinkled in, so that the loop switches between its
    paths both ways."""
    kinds = kinds or [k for k in KINDS if k != "na"]
    strings = []
    for run, long_share in enumerate([0.1, 1.0, 0.6, 0.3, 0.95, 0.0, 0.5]):
        for i in range(rng.randint(200, 700)):
            if na_object is not None and i == run * 37:
                strings.append(na_object)
            elif rng.random() < 0.05:
                strings.append(random_string(rng, rng.choice(kinds)))
            elif rng.random() < long_share:
                strings.append(exact_bytes(rng, rng.choice([13, 14, 16, 17, 40, 300])))
            else:
                strings.append(exact_bytes(rng, rng.randint(0, 12)))
    return strings


def test_str_len_over_runs_of_short_and_long_strings(rng):
    strings = runs_of_short_and_long(rng)
    arr = np.array(strings, dtype=StringDType())
    for step in (1, 3, -2):
        want = [len(s) for s in strings[::step]]
        assert np.strings.str_len(arr[::step]).tolist() == want
    out = np.full(len(strings), -1, dtype=np.int64)
    np.strings.str_len(arr, out=out)
    assert out.tolist() == [len(s) for s in strings]


@pytest.mark.parametrize("na_key", ["nan", "str"])
def test_str_len_of_missing_values_in_every_run(rng, na_key):
    """A missing value in a batch of mostly long strings or mostly short ones: NumPy's
    rule (an error for a NaN-like one, the length of a string one) either way. No
    embedded NUL: NumPy before 2.5 counts it wrong (see KNOWN_DIFFERENCES)."""
    kinds = [k for k in KINDS if k not in ("na", "nul")]
    strings = runs_of_short_and_long(rng, NA_OBJECTS[na_key], kinds)
    check(np.strings.str_len, na_key, strings)


@package_only
def test_str_len_error_writes_no_wrong_count(rng):
    """A missing value without a length in the middle of a batch of mixed strings: the
    error leaves each element of ``out=`` either as it was or at its right length."""
    strings = [
        exact_bytes(rng, rng.choice([13, 20])) if rng.random() < 0.3 else exact_bytes(rng, 5)
        for _ in range(700)
    ]
    arr = np.array(strings, dtype=StringDType(na_object=np.nan))
    arr[400] = np.nan
    out = np.full(len(strings), -1, dtype=np.int64)
    with pytest.raises(ValueError):
        np.strings.str_len(arr, out=out)
    for got, s in zip(out.tolist(), strings):
        assert got in (-1, len(s))
    assert out[401:].tolist() == [-1] * (len(strings) - 401)


def test_add_in_place_and_out(rng):
    base = values(rng, "unset", 30)
    a = np.array(base, dtype=StringDType())
    b = np.array(values(rng, "unset", 30), dtype=StringDType())
    expected = [x + y for x, y in zip(a.tolist(), b.tolist())]
    np.add(a, b, out=a)
    assert a.tolist() == expected
    a += "!"
    assert a.tolist() == [x + "!" for x in expected]
    out = np.empty(30, dtype=StringDType())
    np.add(b, b, out=out)
    assert out.tolist() == [x + x for x in b.tolist()]
    # The output owns its strings: changing an input leaves it alone.
    b[:] = "changed"
    assert out.tolist() != [x + x for x in b.tolist()] or all(x == "" for x in out.tolist())


@pytest.mark.skipif(REFERENCE, reason="checks the package's arenas")
def test_results_own_their_strings(rng):
    import stringdtype

    a = np.array(["a" * 20, "b" * 30], dtype=StringDType())
    total = a + a
    before = stringdtype.memory_info(a)["string_bytes"]
    assert stringdtype.memory_info(total)["string_bytes"] == 100
    assert stringdtype.memory_info(a)["string_bytes"] == before


def test_mixed_na_objects_are_an_error():
    a = np.array(["a"], dtype=StringDType(na_object=None))
    b = np.array(["a"], dtype=StringDType(na_object="x"))
    with pytest.raises(TypeError):
        a + b


def test_sort_and_extremes(rng, na_key):
    a = values(rng, na_key)
    check(np.sort, na_key, a)
    check(lambda x: np.argsort(x, kind="stable"), na_key, a)
    check(lambda x: x.argmax(), na_key, a)
    check(lambda x: x.argmin(), na_key, a)


def test_min_and_max_reductions(rng, na_key):
    # A reduction hands the loop its running value as input 0 and output (stride 0):
    # whole arrays, axes of a 2-D array, strided rows, accumulations and ties.
    a = values(rng, na_key)
    check(np.min, na_key, a)
    check(np.max, na_key, a)
    check(lambda x: np.min(x[::-3]), na_key, a)
    check(lambda x: np.maximum.reduce(x[: len(x) // 4 * 4].reshape(4, -1), axis=0), na_key, a)
    check(lambda x: np.minimum.reduce(x[: len(x) // 4 * 4].reshape(4, -1), axis=1), na_key, a)
    check(np.maximum.accumulate, na_key, a)
    check(np.minimum.accumulate, na_key, a)
    check(np.min, na_key, a[:1] * 5 + a)
    check(np.max, na_key, a + a[:1] * 5)


def test_unicode_arrays_stay_numpys():
    # Importing the package must not reroute NumPy's own U loops through this dtype.
    u = np.array(["b" * 20, "a"])
    assert (u + u).dtype == np.dtype("U40")
    assert (u < u[::-1]).tolist() == [False, True]
    assert np.strings.str_len(u).tolist() == [20, 1]


@package_only
def test_departures_follow_python(rng):
    values = values_for_python(rng)
    a = np.array(values, dtype=StringDType())
    assert (a * -2).tolist() == [""] * len(values)
    assert (a * np.arange(-3, len(values) - 3)).tolist() == [
        v * n for v, n in zip(values, range(-3, len(values) - 3))
    ]
    assert np.strings.str_len(a).tolist() == [len(v) for v in values]
    for scalar in ["", "abc", "é"]:
        assert np.maximum(a, scalar).tolist() == [max(v, scalar) for v in values]
        assert np.minimum(scalar, a).tolist() == [min(scalar, v) for v in values]


def values_for_python(rng):
    return random_strings(rng, 40) + ["\x00", "a\x00", "\x00\x00b"]


def test_equal_to_a_scalar_matches_python(rng):
    values = random_strings(rng, 50) + ["x" * 20, "x" * 20, "exactly12byt", "", "é" * 7]
    a = np.array(values, dtype=StringDType())
    # "x" * 19 + "y": same length and prefix as "x" * 20, so its bytes decide.
    for scalar in [
        "x" * 20,
        "x" * 19,
        "x" * 19 + "y",
        "exactly12byt",
        "exactly12byu",
        "",
        "é" * 7,
        "y",
    ]:
        assert (a == scalar).tolist() == [v == scalar for v in values]
        assert (a != scalar).tolist() == [v != scalar for v in values]
        assert (scalar == a).tolist() == [scalar == v for v in values]
        assert (a[::-2] == scalar).tolist() == [v == scalar for v in values[::-2]]
