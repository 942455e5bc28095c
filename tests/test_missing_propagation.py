"""Missing values in the package's own namespaces (``stringdtype.strings``,
``stringdtype.regex``): pandas' and polars' rules for every kind of ``na_object``, each
function against a Python model (``str`` methods and ``re`` on the strings that are not
missing), on random strings (empty, 12 and 13 bytes, long, non-ASCII, embedded NUL),
in 2-D and strided arrays. ``np.strings`` keeps NumPy's rules (the last tests)."""

import random
import re

import numpy as np
import pytest
from conftest import UNSET, is_nan, random_strings

import stringdtype.regex as sre
import stringdtype.strings as sds
from stringdtype import StringDType, _core

try:
    import pandas as pd

    PD_NA = [pd.NA]
except ImportError:  # pragma: no cover - pandas is a test dependency
    PD_NA = []

NA_KINDS = [UNSET, None, float("nan"), *PD_NA, "__nan__"]
NA_IDS = ["unset", "None", "nan", *(["pd.NA"] if PD_NA else []), "str"]


def dtype_of(na):
    return StringDType() if na is UNSET else StringDType(na_object=na)


def is_missing(value, na):
    return na is not UNSET and value is na


@pytest.fixture(params=NA_KINDS, ids=NA_IDS)
def na(request):
    return request.param


@pytest.fixture(params=["2d", "strided"])
def case(request, na):
    """``(array, values)``: a 2-D or strided StringDType array and its values, flat."""
    rng = random.Random(f"{request.node.nodeid}")
    values = random_strings(rng, 48, na)
    # Every kind of string, and several missing values, in every array.
    if na is not UNSET:
        values[::7] = [na] * len(values[::7])
    full = np.array(values, dtype=dtype_of(na))
    index = np.arange(48)
    if request.param == "2d":
        array, index = full.reshape(6, 8), index.reshape(6, 8)
    else:  # strided, not contiguous
        array, index = full.reshape(8, 6)[:, ::2].T, index.reshape(8, 6)[:, ::2].T
    return array, [values[i] for i in index.reshape(-1)]


def same_na(got, na):
    return got is na or (is_nan(got) and is_nan(na))


def missing_mask(result):
    return _core._isna(result).reshape(-1).tolist()


def check_strings(result, values, na, model):
    assert isinstance(result.dtype, StringDType)
    assert result.shape == np.shape(result)
    missing = missing_mask(result)
    got = result.reshape(-1).tolist()
    for value, m, g in zip(values, missing, got, strict=True):
        if is_missing(value, na):
            assert m, (value, g)
        else:
            assert not m and g == model(value), (value, g, model(value))


def check_bools(function, values, na, model):
    for flag in (False, True):
        result = function(flag)
        assert result.dtype == np.bool_
        for value, g in zip(values, result.reshape(-1).tolist(), strict=True):
            assert g == (flag if is_missing(value, na) else model(value)), value


def check_counts(result, values, na, model):
    any_missing = any(is_missing(v, na) for v in values)
    assert result.dtype == (np.float64 if any_missing else np.int64)
    for value, g in zip(values, result.reshape(-1).tolist(), strict=True):
        if is_missing(value, na):
            assert np.isnan(g)
        else:
            assert g == model(value), value


def python_find(s, sub, last=False):
    return s.rfind(sub) if last else s.find(sub)


STRING_FUNCTIONS = {
    "upper": (lambda a: sds.upper(a), str.upper),
    "lower": (lambda a: sds.lower(a), str.lower),
    "swapcase": (lambda a: sds.swapcase(a), str.swapcase),
    "capitalize": (lambda a: sds.capitalize(a), str.capitalize),
    "title": (lambda a: sds.title(a), str.title),
    "casefold": (lambda a: sds.casefold(a), str.casefold),
    "strip": (lambda a: sds.strip(a), str.strip),
    "lstrip": (lambda a: sds.lstrip(a), str.lstrip),
    "rstrip": (lambda a: sds.rstrip(a), str.rstrip),
    "strip_chars": (lambda a: sds.strip(a, "ab"), lambda s: s.strip("ab")),
    "lstrip_chars": (lambda a: sds.lstrip(a, "ab"), lambda s: s.lstrip("ab")),
    "rstrip_chars": (lambda a: sds.rstrip(a, "ab"), lambda s: s.rstrip("ab")),
    "replace": (lambda a: sds.replace(a, "a", "XY"), lambda s: s.replace("a", "XY")),
    "replace_count": (
        lambda a: sds.replace(a, "a", "é", 1),
        lambda s: s.replace("a", "é", 1),
    ),
    "expandtabs": (lambda a: sds.expandtabs(a, 4), lambda s: s.expandtabs(4)),
    "center": (lambda a: sds.center(a, 20, "*"), lambda s: s.center(20, "*")),
    "ljust": (lambda a: sds.ljust(a, 20, "é"), lambda s: s.ljust(20, "é")),
    "rjust": (lambda a: sds.rjust(a, 20), lambda s: s.rjust(20)),
    "zfill": (lambda a: sds.zfill(a, 15), lambda s: s.zfill(15)),
    "slice": (lambda a: sds.slice(a, 1, 9), lambda s: s[1:9]),
    "slice_step": (lambda a: sds.slice(a, 0, None, 2), lambda s: s[::2]),
    "multiply": (lambda a: sds.multiply(a, 2), lambda s: s * 2),
    "add": (lambda a: sds.add(a, "xé"), lambda s: s + "xé"),
    "add_left": (lambda a: sds.add("xé", a), lambda s: "xé" + s),
    "translate": (
        lambda a: sds.translate(a, str.maketrans({"a": "αβ", "é": None, "\x00": 0x1F600})),
        lambda s: s.translate(str.maketrans({"a": "αβ", "é": None, "\x00": 0x1F600})),
    ),
    "regex_sub": (lambda a: sre.sub(r"[aeiou]+", "<\\g<0>>", a), None),
    "regex_sub_python": (lambda a: sre.sub(r"(a)(?=b)", r"\1!", a), None),
    "regex_extract": (lambda a: sre.extract(r"([a-z])\d", a), None),
}
REGEX_MODELS = {
    "regex_sub": lambda s: re.sub(r"[aeiou]+", "<\\g<0>>", s),
    "regex_sub_python": lambda s: re.sub(r"(a)(?=b)", r"\1!", s),
}


@pytest.mark.parametrize("name", list(STRING_FUNCTIONS))
def test_string_results(case, na, name):
    array, values = case
    function, model = STRING_FUNCTIONS[name]
    result = function(array)
    assert result.shape == array.shape
    if name == "regex_extract":
        missing = missing_mask(result)
        got = result.reshape(-1).tolist()
        for value, m, g in zip(values, missing, got, strict=True):
            found = None if is_missing(value, na) else re.search(r"([a-z])\d", value)
            if is_missing(value, na) or found is None:
                assert m, (value, g)
            else:
                assert not m and g == found.group(1)
        return
    check_strings(result, values, na, model or REGEX_MODELS[name])


PREDICATES = ["isalpha", "isdigit", "isspace", "isalnum", "islower", "isupper", "istitle"]
PREDICATES += ["isdecimal", "isnumeric"]


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates(case, na, name):
    array, values = case
    function = getattr(sds, name)
    check_bools(lambda na: function(array, na=na), values, na, getattr(str, name))


@pytest.mark.parametrize(
    ("name", "call", "model"),
    [
        ("startswith", lambda a, na: sds.startswith(a, "a", na=na), lambda s: s.startswith("a")),
        ("endswith", lambda a, na: sds.endswith(a, "b", na=na), lambda s: s.endswith("b")),
        ("search", lambda a, na: sre.search(r"\d[a-z]", a, na=na), None),
        ("match", lambda a, na: sre.match(r"[A-Z]", a, na=na), None),
        ("fullmatch", lambda a, na: sre.fullmatch(r"\w*", a, na=na), None),
    ],
)
def test_bool_results(case, na, name, call, model):
    array, values = case
    if model is None:
        pattern = {"search": r"\d[a-z]", "match": r"[A-Z]", "fullmatch": r"\w*"}[name]
        compiled = getattr(re.compile(pattern), name)

        def model(s):
            return compiled(s) is not None

    check_bools(lambda flag: call(array, flag), values, na, model)


def test_na_must_be_a_bool(case):
    array, _ = case
    with pytest.raises(TypeError, match="na must be a bool"):
        sds.isalpha(array, na=np.nan)
    with pytest.raises(TypeError, match="na must be a bool"):
        sre.search("a", array, na=None)


COUNTS = {
    "str_len": (lambda a: sds.str_len(a), len),
    "find": (lambda a: sds.find(a, "a"), lambda s: s.find("a")),
    "find_range": (lambda a: sds.find(a, "b", 2, 20), lambda s: s.find("b", 2, 20)),
    "rfind": (lambda a: sds.rfind(a, "ab"), lambda s: s.rfind("ab")),
    "count": (lambda a: sds.count(a, "a"), lambda s: s.count("a")),
    "count_empty": (lambda a: sds.count(a, ""), lambda s: s.count("")),
    "index": (lambda a: sds.index(a, ""), lambda s: s.index("")),
    "rindex": (lambda a: sds.rindex(a, ""), lambda s: s.rindex("")),
    "regex_count": (lambda a: sre.count(r"[a-z]\d?", a), None),
    "regex_count_python": (lambda a: sre.count(r"(?<=a)b", a), None),
}


@pytest.mark.parametrize("name", list(COUNTS))
def test_count_results(case, na, name):
    array, values = case
    function, model = COUNTS[name]
    if model is None:
        pattern = {"regex_count": r"[a-z]\d?", "regex_count_python": r"(?<=a)b"}[name]

        def model(s):
            return len(re.findall(pattern, s))

    check_counts(function(array), values, na, model)


def test_index_still_raises_when_not_found(case, na):
    array, _ = case
    with pytest.raises(ValueError, match="substring not found"):
        sds.index(array, "\U0001f40d\U0001f40d\U0001f40d")


@pytest.mark.parametrize(
    "name", ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
)
def test_comparisons(case, na, name):
    array, values = case
    other = values[1] if not is_missing(values[1], na) else "m"
    python = {
        "equal": lambda s: s == other,
        "not_equal": lambda s: s != other,
        "less": lambda s: s < other,
        "less_equal": lambda s: s <= other,
        "greater": lambda s: s > other,
        "greater_equal": lambda s: s >= other,
    }[name]
    result = getattr(sds, name)(array, other)
    for value, g in zip(values, result.reshape(-1).tolist(), strict=True):
        expected = (name == "not_equal") if is_missing(value, na) else python(value)
        assert g == expected, value


@pytest.mark.parametrize("name", ["partition", "rpartition"])
def test_partitions(case, na, name):
    array, values = case
    parts = getattr(sds, name)(array, "a")
    for k, part in enumerate(parts):
        check_strings(part, values, na, lambda s, k=k: getattr(s, name)("a")[k])


@pytest.mark.parametrize("name", ["split", "rsplit"])
def test_split_lists(case, na, name):
    array, values = case
    result = getattr(sds, name)(array, "a")
    for value, got in zip(values, result.reshape(-1).tolist(), strict=True):
        if is_missing(value, na):
            assert same_na(got, na)
        else:
            assert got == getattr(value, name)("a")


def test_split_flat_and_join(case, na):
    array, values = case
    flat_values = array.reshape(-1)
    parts, offsets = sds.split_flat(flat_values, "a")
    missing = missing_mask(parts)
    for i, value in enumerate(values):
        piece = slice(offsets[i], offsets[i + 1])
        if is_missing(value, na):
            assert offsets[i + 1] - offsets[i] == 1 and missing[piece] == [True]
        else:
            assert parts[piece].tolist() == value.split("a")
    check_strings(sds.join("a", parts, offsets), values, na, lambda s: s)


@pytest.mark.parametrize("name", ["findall", "split"])
def test_regex_lists(case, na, name):
    array, values = case
    pattern = r"[a-z]\d" if name == "findall" else r"\d+"
    result = getattr(sre, name)(pattern, array)
    flat_parts, offsets = getattr(sre, f"{name}_flat")(pattern, array.reshape(-1))
    missing = missing_mask(flat_parts)
    for i, (value, got) in enumerate(zip(values, result.reshape(-1).tolist(), strict=True)):
        piece = slice(offsets[i], offsets[i + 1])
        if is_missing(value, na):
            assert same_na(got, na)
            assert offsets[i + 1] - offsets[i] == 1 and missing[piece] == [True]
        else:
            assert got == getattr(re, name)(pattern, value)


@pytest.mark.parametrize("name", ["mod", "encode", "decode"])
def test_numpy_rules_kept(case, na, name):
    """``mod``, ``encode`` and ``decode`` keep np.strings' rules."""
    array, _ = case
    calls = {
        "mod": lambda m, a: m.mod(a, ()),
        "encode": lambda m, a: m.encode(a),
        "decode": lambda m, a: np.asarray(m.decode(np.strings.encode(a)), dtype=object),
    }

    def outcome(module):
        try:
            return calls[name](module, array).tolist()
        except Exception as error:  # noqa: BLE001 - the outcome is compared
            return type(error)

    assert outcome(sds) == outcome(np.strings)


def test_np_strings_keeps_numpys_rules():
    """``np.strings`` and the plain ufuncs still raise where NumPy's StringDType raises,
    and the policy does not leak out of a call that raised."""
    a = np.array(["ab", None, "c"], dtype=StringDType(na_object=None))
    with pytest.raises(ValueError):
        sds.index(a, "zz")
    with pytest.raises(TypeError):
        np.strings.upper(a.astype(np.dtypes.StringDType(na_object=None)))
    with pytest.raises(TypeError):
        _core.upper(a)
    with pytest.raises(ValueError):
        np.strings.str_len(a)
    with pytest.raises(ValueError):
        np.strings.find(a, "a")
    nan = np.array(["ab", np.nan], dtype=StringDType(na_object=np.nan))
    with pytest.raises(ValueError):
        np.strings.str_len(nan)
    assert sds.str_len(nan).tolist()[0] == 2
    assert np.isnan(sds.str_len(nan)[1])
    assert np.strings.isalpha(nan).tolist() == [True, False]
    assert sds.isalpha(nan, na=True).tolist() == [True, True]
    s = np.array(["ab", "__nan__"], dtype=StringDType(na_object="__nan__"))
    s[1] = "__nan__"
    assert np.strings.upper(s).tolist() == ["AB", "__NAN__"]
    assert _core._isna(sds.upper(s)).tolist() == [False, True]


def test_policy_is_per_thread():
    import threading

    a = np.array(["ab", None], dtype=StringDType(na_object=None))
    seen = []
    previous = _core._set_missing_policy(True, True)
    try:
        thread = threading.Thread(
            target=lambda: seen.append(_core._set_missing_policy(False, False))
        )
        thread.start()
        thread.join()
        assert sds.isalpha(a).tolist() == [True, False]  # the call's own policy
    finally:
        _core._set_missing_policy(*previous)
    assert seen == [(False, False)]
    with pytest.raises(TypeError):
        _core.upper(a)


@pytest.mark.parametrize("na", [None, "__nan__"], ids=["None", "str"])
def test_policy_reaches_the_pools_threads(na):
    """A call large enough for the thread pool: the workers follow the caller's policy."""
    before = _core._pool_threads()
    _core._set_pool_threads(4)
    try:
        n = 2 * _core._pool_threshold() + 17
        values = ["ab", "xyz é", na, "a" * 20]
        a = np.array([values[i % 4] for i in range(n)], dtype=StringDType(na_object=na))
        missing = [i % 4 == 2 for i in range(n)]
        assert missing_mask(sds.upper(a)) == missing
        assert sds.startswith(a, "a", na=True).tolist() == [i % 4 in (0, 2, 3) for i in range(n)]
        lengths = sds.str_len(a)
        assert lengths.dtype == np.float64 and np.isnan(lengths).tolist() == missing
        assert sds.equal(a, "ab").tolist() == [i % 4 == 0 for i in range(n)]
    finally:
        _core._set_pool_threads(before)
