"""The thread pool for the regex ufuncs (``_regex_test``, ``_regex_count``, ``_regex_sub``,
``_regex_extract``) and ``_translate``: with one program or table for the call (a scalar
id), a large call is split between the pool's threads, the elements the Rust engine
leaves to Python answered afterwards on the calling thread in element order. Results must
be the one thread's: the same values and missing values, the same first error in element
order and the same output left after it."""

import random
import re

import numpy as np
import pytest
from conftest import NA_STRING, REFERENCE, UNSET, call_from_threads, random_strings

if REFERENCE:
    pytest.skip("the package's own thread pool", allow_module_level=True)

import stringdtype
from stringdtype import StringDType, _core

SRE, SS = stringdtype.regex, stringdtype.strings

# Above the threshold, with parts of uneven size.
N = 3 * _core._pool_threshold() + 1234
NA_OBJECTS = [UNSET, None, np.nan, NA_STRING]
NA_IDS = ["unset", "None", "nan", "str"]

# Strings on which the engine defers single elements to Python: `\b` next to '²' or a
# combining mark, `$` in a string with several newlines, `\B` on an empty string.
DEFERRED = ["x² y", "e\u0301 b", "a\nb\na\n", "ab\n", "", "12 ab 34 é"]


pytestmark = pytest.mark.usefixtures("pool_settings_restored")


def values(seed, na_object=UNSET, n=N):
    """``n`` random strings of every kind (missing ones when ``na_object`` is set), every
    seventh one of those the engine leaves to Python."""
    rng = random.Random(seed)
    base = random_strings(rng, 3000, na_object=na_object)
    strings = [base[rng.randrange(len(base))] for _ in range(n)]
    strings[::7] = [rng.choice(DEFERRED) for _ in strings[::7]]
    return strings


def dtype(na_object):
    return StringDType() if na_object is UNSET else StringDType(na_object=na_object)


def is_strings(array):
    return isinstance(array.dtype, StringDType)


def as_list(array):
    # A missing value as one token (NaN is not equal to itself).
    items = array.tolist()
    if not is_strings(array):
        return items
    return [("NA",) if isinstance(x, float) or x is None else x for x in items]


def outcome(fn):
    """What a call gives: its error, or its result (numbers bit for bit)."""
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001
        return ("error", type(exc), str(exc))
    # Numbers bit for bit; a string view differs between threads in its chunk and offset
    # only, so strings as strings.
    if not is_strings(result):
        return ("ok", result.dtype, result.shape, result.tobytes())
    return ("ok", result.dtype, result.shape, as_list(result))


def at_threads(threads, fn):
    _core._set_pool_threads(threads)
    return outcome(fn)


TABLE = {ord("a"): "AA", ord("é"): None, ord("1"): ord("9"), ord("\n"): "\\n"}

# name: function of an array; patterns the engine runs, patterns only Python's re runs
# (back-references, look-arounds) and patterns that leave single strings to Python.
CALLS = {
    "search": lambda a: SRE.search(r"\d+", a),
    "search fallback": lambda a: SRE.search(r"(\w)\1", a),
    "search deferred": lambda a: SRE.search(r"\b\w", a),
    "match": lambda a: SRE.match(r"[a-z]+", a, na=True),
    "fullmatch $": lambda a: SRE.fullmatch(r"(?m).*a$", a),
    "count": lambda a: SRE.count(r"[aeiou]", a),
    "count fallback": lambda a: SRE.count(r"(?<=a)b", a),
    "count deferred": lambda a: SRE.count(r"\b", a),
    "sub": lambda a: SRE.sub(r"(\d+)", r"<\1>", a),
    "sub long": lambda a: SRE.sub(r"\w", r"<a longer replacement>", a),
    "sub fallback": lambda a: SRE.sub(r"(?<=a)(b)", r"[\1]", a),
    "sub deferred": lambda a: SRE.sub(r"\B", "-", a),
    "sub callable": lambda a: SRE.sub(r"\w+", lambda m: m.group()[::-1], a),
    "extract": lambda a: SRE.extract(r"([A-Za-z]+) ?\d", a),
    "extract fallback": lambda a: SRE.extract(r"(\w)\1", a, group=0),
    "extract deferred": lambda a: SRE.extract(r"(\w+)$", a),
    "translate": lambda a: SS.translate(a, TABLE),
}


@pytest.mark.parametrize("na_object", NA_OBJECTS, ids=NA_IDS)
def test_two_threads_give_one_threads_results(na_object):
    a = np.array(values(1, na_object), dtype=dtype(na_object))
    for name, fn in CALLS.items():
        one = at_threads(1, lambda fn=fn: fn(a))
        two = at_threads(2, lambda fn=fn: fn(a))
        assert one[0] == "ok", (name, one)
        assert one == two, name


def test_results_are_pythons():
    va = values(2)
    a = np.array(va, dtype=StringDType())
    _core._set_pool_threads(2)
    assert SRE.search(r"\b\w", a).tolist() == [re.search(r"\b\w", s) is not None for s in va]
    assert SRE.count(r"(?<=a)b", a).tolist() == [len(re.findall(r"(?<=a)b", s)) for s in va]
    assert SRE.sub(r"\B", "-", a).tolist() == [re.sub(r"\B", "-", s) for s in va]
    expected = [m.group(1) if (m := re.search(r"(\w+)$", s)) else None for s in va]
    assert SRE.extract(r"(\w+)$", a).tolist() == expected
    assert SS.translate(a, TABLE).tolist() == [s.translate(TABLE) for s in va]


def error_positions(n):
    # One error in the first part, or in later parts only, or in several.
    return [[n - 5], [n // 2, n - 5], [3 * n // 4], [10, n // 3]]


def missing_at(positions, seed):
    """Strings with ``None`` (a missing value the regex loops refuse under NumPy's
    rules) at ``positions`` only."""
    strings = values(seed, None)
    strings = ["x" if s is None else s for s in strings]
    for at in positions:
        strings[at] = None
    return np.array(strings, dtype=StringDType(na_object=None))


@pytest.mark.parametrize("positions", error_positions(N), ids=["last", "two", "late", "first"])
@pytest.mark.parametrize("pattern", [r"\w+", r"(\w)\1", r"\b\w"], ids=["engine", "re", "some"])
def test_the_first_error_in_element_order_and_the_output_left_after_it(positions, pattern):
    # The private ufuncs run under NumPy's rules for missing values: a missing value
    # that is neither a string nor NaN-like is an error at its element. Elements left
    # to Python before it are never answered, on one thread as on two.
    a = missing_at(positions, 3)
    test = _core.RegexProgram(pattern, 0, "search", lambda s: re.search(pattern, s) is not None)
    sub = _core.RegexProgram(pattern, 0, "sub", lambda s: re.sub(pattern, "<>", s), "<>")
    left = {}
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        bools = np.arange(N) % 3 == 0
        with pytest.raises(ValueError, match="null") as error:
            _core._regex_test(a, test.id, out=bools)
        strings = np.full(N, "old", dtype=StringDType())
        with pytest.raises(ValueError, match="null") as sub_error:
            _core._regex_sub(a, sub.id, out=strings)
        left[threads] = (str(error.value), bools.tolist(), str(sub_error.value), as_list(strings))
    assert left[1] == left[2]
    first = min(positions)
    assert left[2][1][first:] == (np.arange(N) % 3 == 0).tolist()[first:]
    assert left[2][3][first:] == ["old"] * (N - first)


@pytest.mark.parametrize("positions", error_positions(N), ids=["last", "two", "late", "first"])
def test_the_first_python_error_in_element_order(positions):
    # A callable replacement: Python answers every element, and raises at the first
    # element (in order) that holds "boom".
    va = values(4)
    for at in positions:
        va[at] = f"a boom {at}"

    def repl(m):
        if m.group() == "boom":
            raise KeyError(m.string)
        return m.group().upper()

    a = np.array(va, dtype=StringDType())
    one = at_threads(1, lambda: SRE.sub(r"\w+", repl, a))
    two = at_threads(2, lambda: SRE.sub(r"\w+", repl, a))
    assert one == two == ("error", KeyError, repr(f"a boom {min(positions)}"))


@pytest.mark.parametrize("positions", error_positions(N), ids=["last", "two", "late", "first"])
def test_translate_errors(positions):
    # A table value str.translate refuses is an error only where a string holds its key.
    va = [s.replace("☃", "") if isinstance(s, str) else s for s in values(5)]
    for at in positions:
        va[at] = f"snow ☃ {at}"
    a = np.array(va, dtype=StringDType())
    table = {ord("a"): "b", ord("☃"): 2**40}
    one = at_threads(1, lambda: SS.translate(a, table))
    two = at_threads(2, lambda: SS.translate(a, table))
    assert one == two
    assert one[:2] == ("error", ValueError)
    assert f"snow ☃ {min(positions)}" in one[2]


def test_a_part_out_of_chunk_ids_is_redone_on_the_calling_thread():
    # One chunk id per part: every part with long results runs out, and the call is
    # finished on the calling thread from the first such part on; the elements left to
    # Python in the parts redone are answered once.
    _core._set_part_span(1)
    va = values(6)
    a = np.array(va, dtype=StringDType())
    for name in ["sub long", "sub deferred", "sub fallback", "translate"]:
        one = at_threads(1, lambda name=name: CALLS[name](a))
        two = at_threads(2, lambda name=name: CALLS[name](a))
        assert one == two, name
    _core._set_pool_threads(2)
    expected = [re.sub(r"\w", "<a longer replacement>", s) for s in va]
    assert SRE.sub(r"\w", "<a longer replacement>", a).tolist() == expected


def test_an_id_per_element_stays_on_the_calling_thread():
    va = values(7)
    a = np.array(va, dtype=StringDType())
    first = _core.RegexProgram(r"\d", 0, "search", lambda s: re.search(r"\d", s) is not None)
    second = _core.RegexProgram(r"\b\w", 0, "search", lambda s: re.search(r"\b\w", s) is not None)
    ids = np.where(np.arange(N) % 2 == 0, first.id, second.id)
    patterns = [r"\d" if k % 2 == 0 else r"\b\w" for k in range(N)]
    expected = [re.search(p, s) is not None for p, s in zip(patterns, va)]
    one_table, other_table = _core.TranslateTable({ord("a"): "x"}), _core.TranslateTable({})
    tables = np.where(np.arange(N) % 2 == 0, one_table.id, other_table.id)
    translated = [s.replace("a", "x") if k % 2 == 0 else s for k, s in enumerate(va)]
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        assert _core._regex_test(a, ids).tolist() == expected
        assert _core._translate(a, tables).tolist() == translated


def test_many_python_threads():
    _core._set_pool_threads(2)
    va = values(8)
    a = np.array(va, dtype=StringDType())
    expected = {
        "search deferred": [re.search(r"\b\w", s) is not None for s in va],
        "sub": [re.sub(r"(\d+)", r"<\1>", s) for s in va],
        "sub deferred": [re.sub(r"\B", "-", s) for s in va],
        "translate": [s.translate(TABLE) for s in va],
    }
    calls = {name: (lambda name=name: CALLS[name](a)) for name in expected}

    def matches(name, got):
        return got.tolist() == expected[name]

    assert call_from_threads(calls, matches, threads=4, rounds=3) == []
