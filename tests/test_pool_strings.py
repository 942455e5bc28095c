"""The thread pool for loops with string results (``strings_out`` in
src/loops/drivers.rs): a large call into a fresh output is split between the pool's
threads, each part storing its long strings in chunks its output's arena reserved for it
(``Arena::reserve_parts``). Results must be the one thread's: the same strings and missing
values, the same first error in element order and the same output left after it; the
result's memory one thread's plus at most a partly filled chunk per part."""

import random
import sys

import numpy as np
import pytest
from conftest import (
    NA_STRING,
    REFERENCE,
    UNSET,
    call_from_threads,
    random_strings,
    run_isolated,
)

if REFERENCE:
    pytest.skip("the package's own thread pool", allow_module_level=True)

import stringdtype
from stringdtype import StringDType, _core

# Above the threshold, with parts of uneven size.
N = 3 * _core._pool_threshold() + 1234
NA_OBJECTS = [UNSET, None, np.nan, NA_STRING]
NA_IDS = ["unset", "None", "nan", "str"]


pytestmark = pytest.mark.usefixtures("pool_settings_restored")


def values(seed, na_object=UNSET, n=N):
    """``n`` random strings of every kind (empty, 12 and 13 bytes, long, non-ASCII, NUL,
    missing when ``na_object`` is set), drawn from a base of 3,000."""
    rng = random.Random(seed)
    base = random_strings(rng, 3000, na_object=na_object)
    return [base[rng.randrange(len(base))] for _ in range(n)]


def dtype(na_object):
    return StringDType() if na_object is UNSET else StringDType(na_object=na_object)


def outcome(fn):
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001
        return ("error", type(exc), str(exc))
    return ("ok", result.dtype, result.shape, as_list(result))


def as_list(array):
    # A missing value as one token, whatever it is (NaN is not equal to itself).
    return [("NA",) if isinstance(x, float) or x is None else x for x in array.tolist()]


def at_threads(threads, fn):
    _core._set_pool_threads(threads)
    return outcome(fn)


SS, S = stringdtype.strings, np.strings
COUNTS = np.arange(N) % 4
# name: function of (a, b), arrays of the same strings' dtype
KERNELS = {
    "upper": lambda a, b: SS.upper(a),
    "lower": lambda a, b: SS.lower(a),
    "swapcase": lambda a, b: SS.swapcase(a),
    "capitalize": lambda a, b: SS.capitalize(a),
    "title": lambda a, b: SS.title(a),
    "casefold": lambda a, b: SS.casefold(a),
    "replace 1 byte": lambda a, b: S.replace(a, "a", "XY"),
    "replace": lambda a, b: S.replace(a, "ab", "-"),
    "replace count": lambda a, b: S.replace(a, "é", "EE", 1),
    "replace array": lambda a, b: S.replace(a, b, "z"),
    "strip": lambda a, b: S.strip(a),
    "lstrip": lambda a, b: S.lstrip(a),
    "rstrip": lambda a, b: S.rstrip(a),
    "strip chars": lambda a, b: S.strip(a, "ab"),
    "strip chars array": lambda a, b: S.strip(a, b),
    "+": lambda a, b: a + b,
    "+ scalar": lambda a, b: a + "a suffix",
    "*": lambda a, b: a * 3,
    "* array": lambda a, b: np.multiply(a, COUNTS),
    "ljust": lambda a, b: S.ljust(a, 20),
    "center": lambda a, b: S.center(a, 25, "*"),
    "zfill": lambda a, b: S.zfill(a, 15),
    "expandtabs": lambda a, b: S.expandtabs(a, 4),
    "maximum": lambda a, b: np.maximum(a, b),
    "minimum": lambda a, b: np.minimum(a, b),
}
if hasattr(S, "slice"):
    KERNELS["slice"] = lambda a, b: S.slice(a, 1, 20)


@pytest.mark.parametrize("na_object", NA_OBJECTS, ids=NA_IDS)
def test_two_threads_give_one_threads_results(na_object):
    va, vb = values(1, na_object), values(2, na_object)
    vb[::5] = va[::5]
    a, b = np.array(va, dtype=dtype(na_object)), np.array(vb, dtype=dtype(na_object))
    for name, fn in KERNELS.items():
        one = at_threads(1, lambda fn=fn: fn(a, b))
        two = at_threads(2, lambda fn=fn: fn(a, b))
        assert one == two, (name, one[:3], two[:3])


def test_two_threads_give_one_threads_ascii_case_results():
    # All-ASCII strings take the path that writes results straight into each part's
    # blocks.
    rng = random.Random(3)
    text = "".join(map(chr, range(32, 127))) * 4
    va = [text[(k := rng.randrange(95)) : k + rng.randrange(80)] for _ in range(N)]
    a = np.array(va, dtype=StringDType())
    for name in ["upper", "lower", "swapcase", "capitalize", "title", "casefold"]:
        fn = getattr(stringdtype.strings, name)
        one = at_threads(1, lambda fn=fn: fn(a))
        two = at_threads(2, lambda fn=fn: fn(a))
        assert one == two, name
        assert one[3] == [getattr(str, name)(s) for s in va], name


def test_a_part_out_of_chunk_ids_is_redone_on_the_calling_thread():
    # One chunk id per part: every part with long results runs out, and the call is
    # finished on the calling thread from the first such part on.
    _core._set_part_span(1)
    va, vb = values(3), values(4)
    a, b = np.array(va, dtype=StringDType()), np.array(vb, dtype=StringDType())
    for name in ["upper", "+", "replace", "*", "center"]:
        one = at_threads(1, lambda name=name: KERNELS[name](a, b))
        two = at_threads(2, lambda name=name: KERNELS[name](a, b))
        assert one == two, name
    expected = [s.upper() for s in va]
    assert SS.upper(a).tolist() == expected


def error_positions(n):
    # One error in the first part, or in later parts only, or in several.
    return [[n - 5], [n // 2, n - 5], [3 * n // 4], [10, n // 3]]


@pytest.mark.parametrize("span", [64, 1], ids=["ids", "out of ids"])
@pytest.mark.parametrize("positions", error_positions(N), ids=["last", "two", "late", "first"])
def test_the_first_error_in_element_order_and_the_output_left_after_it(positions, span):
    # A count too large for a string fails at its element; the output is fresh (inline
    # strings only), so the call is split.
    _core._set_part_span(span)
    a = np.array(values(5), dtype=StringDType())
    counts = np.arange(N) % 3
    for at in positions:
        a[at] = "a long string of more than twelve bytes"
        counts[at] = 2**40
    left = {}
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        out = np.full(N, "old", dtype=StringDType())
        with pytest.raises(OverflowError, match="multiply"):
            np.multiply(a, counts, out=out)
        left[threads] = out.tolist()
    assert left[1] == left[2]
    first = min(positions)
    assert left[2][first:] == ["old"] * (N - first)
    assert left[2][:first] == [s * c for s, c in zip(a.tolist()[:first], counts[:first])]
    # The output's arena holds the strings of the elements written and no more.
    assert stringdtype.memory_info(out)["string_bytes"] == sum(
        len(s.encode()) for s in left[2][:first] if len(s.encode()) > 12
    )


@pytest.mark.parametrize("na_object", [None, np.nan], ids=["None", "nan"])
def test_missing_value_errors(na_object):
    va = values(6, na_object)
    a = np.array(va, dtype=dtype(na_object))
    for name in ["+", "strip", "replace", "*", "ljust", "maximum", "zfill", "expandtabs"]:
        one = at_threads(1, lambda name=name: KERNELS[name](a, a))
        two = at_threads(2, lambda name=name: KERNELS[name](a, a))
        assert one == two, (name, one[:3], two[:3])


def test_outputs_that_share_an_arena_or_hold_strings():
    va, vb = values(7), values(8)
    expected = [x + y for x, y in zip(va, vb)]
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        a, b = np.array(va, dtype=StringDType()), np.array(vb, dtype=StringDType())
        np.add(a, b, out=a)  # in place: one thread
        assert a.tolist() == expected
        out = np.array(vb, dtype=StringDType())  # holds long strings: one thread
        np.add(np.array(va, dtype=StringDType()), b, out=out)
        assert out.tolist() == expected
        assert np.maximum.accumulate(b).tolist()[-1] == max(vb)


def test_memory_is_one_threads_plus_a_chunk_per_part():
    a = np.array(values(9), dtype=StringDType())
    info = {}
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        info[threads] = stringdtype.memory_info(SS.upper(a))
    one, two = info[1], info[2]
    assert two["string_bytes"] == one["string_bytes"]
    assert two["arena_used"] == one["arena_used"]
    # Each part's chunks double from the first one: at most its last one is partly
    # filled, so a part holds less than twice what it uses.
    assert two["arena_capacity"] <= one["arena_capacity"] + two["arena_used"] + 8 * 4096


def test_many_python_threads_with_string_results():
    _core._set_pool_threads(2)
    va = values(10)
    a = np.array(va, dtype=StringDType())
    expected = {"upper": [s.upper() for s in va], "+": [s + s for s in va]}
    calls = {"upper": lambda: SS.upper(a), "+": lambda: a + a}

    def matches(name, got):
        return got.tolist() == expected[name]

    assert call_from_threads(calls, matches, threads=6, rounds=3) == []


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_fork_after_parallel_string_work():
    out = run_isolated(
        """
        import os, signal, warnings
        warnings.simplefilter('ignore', DeprecationWarning)   # fork with threads
        import stringdtype
        from stringdtype import _core
        _core._set_pool_threads(2)
        A = np.array(['some medium string %05d here' % i for i in range(90_000)],
                     dtype=StringDType())
        expected = [s.upper() for s in A.tolist()]
        assert stringdtype.strings.upper(A).tolist() == expected
        statuses = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                signal.alarm(30)                  # SIGALRM after 30 s: deadlocked
                for _ in range(2):
                    assert stringdtype.strings.upper(A).tolist() == expected
                    assert (A + A).tolist() == [s + s for s in A.tolist()]
                inner = os.fork()
                if inner == 0:
                    signal.alarm(30)
                    assert stringdtype.strings.upper(A).tolist() == expected
                    os._exit(0)
                os._exit(os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1]))
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
            assert np.strings.replace(A, 'me', 'ME').tolist() == [
                s.replace('me', 'ME') for s in A.tolist()]
        print(statuses)
        """,
        timeout=180,
    )
    assert out.strip() == "[0, 0, 0]"
