"""The thread pool (src/loops/pool.rs): loops with bool and int64 results split calls of
at least ``_core._pool_threshold()`` elements between the pool's threads. Results must be
the one thread's bit for bit (errors and the output left after them included) and
NumPy's; threadpoolctl sees and limits the pool; a child after ``fork()`` gets a pool of
its own; many Python threads share the one pool."""

import random
import sys

import numpy as np
import pytest
from conftest import (
    NA_STRING,
    REFERENCE,
    UNSET,
    call_from_threads,
    error_or_result,
    random_strings,
    run_isolated,
)

if REFERENCE:
    pytest.skip("the package's own thread pool", allow_module_level=True)

from stringdtype import StringDType, _core

# Above the threshold, with parts of uneven size.
N = 3 * _core._pool_threshold() + 1234


@pytest.fixture(autouse=True)
def restore_threads():
    before = _core._pool_threads()
    yield
    _core._set_pool_threads(before)


def values(seed, na_object=UNSET, n=N):
    """``n`` random strings of every kind (empty, 12 and 13 bytes, long, non-ASCII, NUL,
    missing when ``na_object`` is set), drawn from a base of 3,000."""
    rng = random.Random(seed)
    base = random_strings(rng, 3000, na_object=na_object)
    return [base[rng.randrange(len(base))] for _ in range(n)]


def dtypes(na_object):
    if na_object is UNSET:
        return StringDType(), np.dtypes.StringDType()
    return StringDType(na_object=na_object), np.dtypes.StringDType(na_object=na_object)


def at_threads(threads, fn):
    _core._set_pool_threads(threads)
    return fn()


def same(x, y):
    if x[0] != y[0]:
        return False
    if x[0] == "error":
        return x == y
    a, b = x[1], y[1]
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


S = np.strings
# name: function of (a, b), a and b arrays of the same strings' dtype
KERNELS = {
    "str_len": lambda a, b: S.str_len(a),
    "find 1 byte": lambda a, b: S.find(a, "a"),
    "find": lambda a, b: S.find(a, "ab"),
    "find array": lambda a, b: S.find(a, b),
    "find start end": lambda a, b: S.find(a, "e", 1, 20),
    "rfind": lambda a, b: S.rfind(a, "é"),
    "rfind 1 byte": lambda a, b: S.rfind(a, "e"),
    "count": lambda a, b: S.count(a, "a"),
    "count long": lambda a, b: S.count(a, "ab"),
    "index": lambda a, b: S.index(a, ""),
    "startswith": lambda a, b: S.startswith(a, "a"),
    "startswith long": lambda a, b: S.startswith(a, "abcdef"),
    "endswith": lambda a, b: S.endswith(a, "z"),
    "endswith array": lambda a, b: S.endswith(a, b),
    "isalpha": lambda a, b: S.isalpha(a),
    "isdigit": lambda a, b: S.isdigit(a),
    "isspace": lambda a, b: S.isspace(a),
    "isalnum": lambda a, b: S.isalnum(a),
    "islower": lambda a, b: S.islower(a),
    "isupper": lambda a, b: S.isupper(a),
    "istitle": lambda a, b: S.istitle(a),
    "isdecimal": lambda a, b: S.isdecimal(a),
    "isnumeric": lambda a, b: S.isnumeric(a),
    "isnan": lambda a, b: np.isnan(a),
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "== scalar": lambda a, b: a == a[7],
    "!= long scalar": lambda a, b: a != "a long scalar of more than twelve bytes",
}
OWN = {
    "utf8 nbytes": lambda a, b: _core._utf8_nbytes(a),
    "isascii": lambda a, b: _core.isascii(a),
}
NA_OBJECTS = [UNSET, None, np.nan, NA_STRING]
NA_IDS = ["unset", "None", "nan", "str"]


@pytest.mark.parametrize("na_object", NA_OBJECTS, ids=NA_IDS)
def test_two_threads_give_one_threads_results_and_numpys(na_object):
    ours, numpys = dtypes(na_object)
    va, vb = values(1, na_object), values(2, na_object)
    # Runs of one equal element, so that equality is true now and then.
    vb[::5] = va[::5]
    a, b = np.array(va, dtype=ours), np.array(vb, dtype=ours)
    ra, rb = np.array(va, dtype=numpys), np.array(vb, dtype=numpys)
    # NumPy's StringDType stops at a NUL in places (str_len of "\0" is 0 there), and
    # NumPy before 2.5 compares missing values by other rules (numpy#32564): those elements
    # are compared with one thread only.
    clean = np.array(
        [isinstance(x, str) and isinstance(y, str) and "\0" not in x + y for x, y in zip(va, vb)]
    )
    for name, fn in {**KERNELS, **OWN}.items():
        one = at_threads(1, lambda fn=fn: error_or_result(lambda: fn(a, b)))
        two = at_threads(2, lambda fn=fn: error_or_result(lambda: fn(a, b)))
        assert same(one, two), (name, one[:2], two[:2])
        if name in OWN:
            continue
        reference = error_or_result(lambda fn=fn: fn(ra, rb))
        assert one[0] == reference[0], (name, one, reference)
        if one[0] == "ok":
            np.testing.assert_array_equal(one[1][clean], reference[1][clean], err_msg=name)


# Loops decided from the views alone split only from 64 times the threshold
# (`in_parts_views`): with the threshold lowered, they split here too.
VIEWS_ONLY = ["== scalar", "!= long scalar", "startswith"]


@pytest.mark.parametrize("na_object", NA_OBJECTS, ids=NA_IDS)
def test_loops_over_the_views_alone_split_from_a_larger_size(na_object):
    ours, numpys = dtypes(na_object)
    va = values(7, na_object)
    a, ra = np.array(va, dtype=ours), np.array(va, dtype=numpys)
    clean = np.array([isinstance(x, str) and "\0" not in x for x in va])
    before = _core._pool_threshold()
    try:
        for threshold in (before, N // 64):
            _core._set_pool_threshold(threshold)
            for name in VIEWS_ONLY:
                fn = KERNELS[name]
                one = at_threads(1, lambda fn=fn: error_or_result(lambda: fn(a, a)))
                two = at_threads(2, lambda fn=fn: error_or_result(lambda: fn(a, a)))
                assert same(one, two), (name, threshold, one[:2], two[:2])
                reference = error_or_result(lambda fn=fn: fn(ra, ra))
                assert one[0] == reference[0], (name, one, reference)
                if one[0] == "ok":
                    np.testing.assert_array_equal(
                        one[1][clean], reference[1][clean], err_msg=name
                    )
    finally:
        _core._set_pool_threshold(before)


def test_strided_and_reversed_operands():
    va = values(3)
    a = np.array(va + va, dtype=StringDType())[::-2]
    expected = np.array([len(s) for s in (va + va)[::-2]])
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        np.testing.assert_array_equal(S.str_len(a), expected)
        np.testing.assert_array_equal(S.find(a, "ab"), [s.find("ab") for s in (va + va)[::-2]])


def error_positions(n):
    # One error in the first part, or in later parts only, or in several.
    return [[n - 5], [n // 2, n - 5], [3 * n // 4], [10, n // 3]]


@pytest.mark.parametrize("needle", ["a", "ab"], ids=["byte", "general"])
@pytest.mark.parametrize("positions", error_positions(N), ids=["last", "two", "late", "first"])
def test_the_first_error_in_element_order_and_the_output_left_after_it(positions, needle):
    va = [needle + s for s in values(4)]
    for at in positions:
        va[at] = "none here" if at % 2 else "no needle in this long string"
    a = np.array(va, dtype=StringDType())
    left = {}
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        out = np.full(N, -7, dtype=np.int64)
        with pytest.raises(ValueError, match="substring not found"):
            np._core.umath.index(a, needle, 0, np.iinfo(np.int64).max, out=out)
        left[threads] = out
    assert left[1].tobytes() == left[2].tobytes()
    first = min(positions)
    assert (left[2][first:] == -7).all()
    assert (left[2][:first] == 0).all()


def test_comparison_errors_stop_at_the_first_missing_value():
    # A missing value that is neither NaN-like nor a string cannot be ordered: the first
    # one met raises, here in the later parts of the call only.
    ours = StringDType(na_object=None)
    va, vb = values(5), values(6)
    for at in (N - 100, N // 2):
        va[at] = None
    a, b = np.array(va, dtype=ours), np.array(vb, dtype=ours)
    results = {}
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        out = np.ones(N, dtype=bool)
        results[threads] = error_or_result(lambda out=out: np.less(a, b, out=out)), out
    assert results[1][0][:2] == results[2][0][:2]
    assert results[1][0][0] == "error"
    assert results[1][1].tobytes() == results[2][1].tobytes()
    reference = error_or_result(
        lambda: np.less(
            np.array(va, dtype=np.dtypes.StringDType(na_object=None)),
            np.array(vb, dtype=np.dtypes.StringDType(na_object=None)),
        )
    )
    assert reference[:2] == results[1][0][:2]


def test_threshold_and_calls_below_it_run_on_the_calling_thread():
    # Pool threads are started by the first parallel call only: checked in a fresh
    # interpreter, whose threads are listed by name.
    out = run_isolated(
        """
        import os
        from stringdtype import _core
        import time
        def pool_threads():
            # A new worker names itself when it starts: give it a moment.
            for _ in range(100):
                names = [open(f'/proc/self/task/{t}/comm').read().strip()
                         for t in os.listdir('/proc/self/task')]
                count = sum(name.startswith('stringdtype-') for name in names)
                if count == 0 or count >= 2:
                    return count
                time.sleep(0.05)
            return count
        _core._set_pool_threads(2)
        a = np.array(['x' * (i % 30) for i in range(_core._pool_threshold() - 1)],
                     dtype=StringDType())
        np.strings.str_len(a)
        print(pool_threads())
        b = np.concatenate([a, a])
        np.strings.str_len(b)
        print(pool_threads())
        """
    )
    assert out.split() == ["0", "2"]


@pytest.mark.skipif(sys.platform != "linux", reason="threads listed through /proc")
def test_environment_variable_sets_the_threads():
    import os
    import subprocess

    code = (
        "from stringdtype import _core; import numpy as np; "
        "from stringdtype import StringDType; "
        "a = np.array(['abc'] * (_core._pool_threshold() * 2), dtype=StringDType()); "
        "np.strings.str_len(a); print(_core._pool_threads())"
    )
    # Anything but a positive integer leaves the default, the cores available.
    for value, expected in [("3", "3"), ("1", "1"), ("0", None), ("nonsense", None)]:
        env = dict(os.environ, STRINGDTYPE_NUM_THREADS=value)
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        if expected is None:
            assert int(done.stdout) >= 1
        else:
            assert done.stdout.strip() == expected


def test_threadpoolctl_lists_and_limits_the_pool():
    threadpoolctl = pytest.importorskip("threadpoolctl", minversion="3.5")
    _core._set_pool_threads(2)
    ours = [
        info for info in threadpoolctl.threadpool_info() if info["internal_api"] == "stringdtype"
    ]
    assert len(ours) == 1
    assert ours[0]["user_api"] == "stringdtype"
    assert ours[0]["num_threads"] == 2
    assert "_core" in ours[0]["filepath"]
    with threadpoolctl.threadpool_limits(limits=1):
        assert _core._pool_threads() == 1
        a = np.array(values(6), dtype=StringDType())
        np.testing.assert_array_equal(S.str_len(a), [len(s) for s in values(6)])
    assert _core._pool_threads() == 2
    with threadpoolctl.threadpool_limits(limits=1, user_api="stringdtype"):
        assert _core._pool_threads() == 1
    assert _core._pool_threads() == 2


def test_a_limit_of_one_starts_no_thread():
    pytest.importorskip("threadpoolctl", minversion="3.5")
    out = run_isolated(
        """
        import os
        from threadpoolctl import threadpool_limits
        from stringdtype import _core
        import time
        def pool_threads():
            # A new worker names itself when it starts: give it a moment.
            for _ in range(100):
                names = [open(f'/proc/self/task/{t}/comm').read().strip()
                         for t in os.listdir('/proc/self/task')]
                count = sum(name.startswith('stringdtype-') for name in names)
                if count == 0 or count >= 2:
                    return count
                time.sleep(0.05)
            return count
        _core._set_pool_threads(2)
        a = np.array(['some string %d' % i for i in range(3 * _core._pool_threshold())],
                     dtype=StringDType())
        with threadpool_limits(limits=1):
            np.strings.find(a, 'ng 1')
            a == a
            print(pool_threads())
        np.strings.find(a, 'ng 1')
        print(pool_threads())
        """
    )
    assert out.split() == ["0", "2"]


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_fork_after_parallel_work():
    out = run_isolated(
        """
        import os, signal, warnings
        warnings.simplefilter('ignore', DeprecationWarning)   # fork with threads
        from stringdtype import _core
        _core._set_pool_threads(2)
        A = np.array(['some medium string %05d here' % i for i in range(90_000)],
                     dtype=StringDType())
        expected = np.strings.find(A, '9 h')
        assert (np.strings.str_len(A) == 29).all()
        statuses = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                signal.alarm(20)                  # SIGALRM after 20 s: deadlocked
                for _ in range(3):
                    assert (np.strings.find(A, '9 h') == expected).all()
                    assert (np.strings.str_len(A) == 29).all()
                    assert (A == A).all()
                # A grandchild, forked from a child whose pool has run.
                inner = os.fork()
                if inner == 0:
                    signal.alarm(20)
                    assert (np.strings.find(A, '9 h') == expected).all()
                    os._exit(0)
                os._exit(os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1]))
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
            assert (np.strings.find(A, '9 h') == expected).all()
        print(statuses)
        """,
        timeout=120,
    )
    assert out.strip() == "[0, 0, 0]"


def test_many_python_threads_share_the_one_pool():
    _core._set_pool_threads(2)
    va, vb = values(7), values(8)
    a, b = np.array(va, dtype=StringDType()), np.array(vb, dtype=StringDType())
    expected = {
        "str_len": np.array([len(s) for s in va]),
        "find": np.array([s.find("ab") for s in va]),
        "==": np.array([x == y for x, y in zip(va, vb)]),
    }
    calls = {
        "str_len": lambda: S.str_len(a),
        "find": lambda: S.find(a, "ab"),
        "==": lambda: a == b,
    }

    def matches(name, got):
        return np.array_equal(got, expected[name])

    assert call_from_threads(calls, matches, threads=8, rounds=4) == []


@pytest.mark.skipif(sys.platform != "linux", reason="threads listed through /proc")
def test_many_python_threads_start_no_more_workers():
    out = run_isolated(
        """
        import os, threading
        from stringdtype import _core
        _core._set_pool_threads(2)
        a = np.array(['some string %d' % i for i in range(3 * _core._pool_threshold())],
                     dtype=StringDType())
        def work():
            for _ in range(5):
                np.strings.find(a, 'ng 1')
                np.strings.str_len(a)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        import time
        for _ in range(100):
            names = [open(f'/proc/self/task/{t}/comm').read().strip()
                     for t in os.listdir('/proc/self/task')]
            count = sum(name.startswith('stringdtype-') for name in names)
            if count >= 2:
                break
            time.sleep(0.05)
        print(count)
        """
    )
    # One pool of two workers, whatever the number of calling threads.
    assert out.split() == ["2"]


# Sorting splits too: contiguous parts sorted on the pool's threads, then merged stably.
@pytest.mark.parametrize("na_object", NA_OBJECTS, ids=NA_IDS)
def test_sorts_on_two_threads_give_one_threads_order(na_object):
    ours, numpys = dtypes(na_object)
    va = values(8, na_object)
    a, ra = np.array(va, dtype=ours), np.array(va, dtype=numpys)
    results = {}
    for threads in (1, 2):
        _core._set_pool_threads(threads)
        results[threads] = {
            "sort": error_or_result(lambda: np.sort(a)),
            "argsort": error_or_result(lambda: np.argsort(a)),
            "argsort stable": error_or_result(lambda: np.argsort(a, kind="stable")),
            "unique": error_or_result(lambda: np.unique(a)),
            "sort in place": error_or_result(lambda: (lambda c: (c.sort(), c)[1])(a.copy())),
        }
    for name, one in results[1].items():
        two = results[2][name]
        assert one[0] == two[0], (name, one[:2], two[:2])
        if one[0] == "error":
            assert one[:2] == two[:2], name
            continue
        if name.startswith("argsort"):
            # Stable: one order only. Unstable: equal strings may trade places.
            if name == "argsort stable":
                assert one[1].tobytes() == two[1].tobytes(), name
            else:
                np.testing.assert_array_equal(a[one[1]], a[two[1]], err_msg=name)
        else:
            np.testing.assert_array_equal(one[1], two[1], err_msg=name)
    # NumPy's StringDType as the reference, where it has the same rules (no NUL).
    reference = error_or_result(lambda: np.sort(ra))
    assert results[1]["sort"][0] == reference[0]
    if reference[0] == "ok" and not any(isinstance(x, str) and "\0" in x for x in va):
        np.testing.assert_array_equal(results[2]["sort"][1], reference[1])
        order = np.argsort(ra, kind="stable")
        assert results[2]["argsort stable"][1].tobytes() == order.tobytes()


def test_a_sort_on_two_threads_of_an_uneven_size_and_of_each_row():
    va = values(9, n=N + 3)
    a = np.array(va, dtype=StringDType())
    _core._set_pool_threads(2)
    np.testing.assert_array_equal(np.sort(a), np.array(sorted(va), dtype=StringDType()))
    rows = np.array(va[: 2 * (N // 2)], dtype=StringDType()).reshape(2, -1)
    for row, got in zip(rows, np.sort(rows, axis=1)):
        np.testing.assert_array_equal(got, np.sort(row))


def orders(seed):
    """Inputs whose merges cut at every kind of place: ties across the parts, one value
    only, already sorted, reversed, and parts that do not overlap or interleave."""
    rng = random.Random(seed)
    few = random_strings(rng, 20)
    ties = [rng.choice(few) for _ in range(N)]
    va = values(seed)
    halves = sorted(va[: N // 2]) + sorted(va[N // 2 :])
    return {
        "ties": ties,
        "one value": ["the same string, long"] * N,
        "sorted": sorted(va),
        "reversed": sorted(va, reverse=True),
        "sorted halves": halves,
        "sorted halves swapped": halves[N // 2 :] + halves[: N // 2],
    }


@pytest.mark.parametrize("threads", [2, 3, 4, 7])
def test_sorts_merged_in_pieces_on_many_threads_keep_python_order(threads):
    """Each merge is cut into pieces that threads merge at once: for any number of
    threads and any input, argsort gives Python's stable order and sort ``sorted``."""
    _core._set_pool_threads(threads)
    for name, va in orders(threads).items():
        a = np.array(va, dtype=StringDType())
        # The package's argsort (NumPy's default kind) is stable; kind="stable" is
        # NumPy's own sort over the compare slot, the reference here.
        stable = sorted(range(len(va)), key=va.__getitem__)
        assert np.argsort(a).tolist() == stable, name
        assert np.argsort(a, kind="stable").tolist() == stable, name
        np.testing.assert_array_equal(np.sort(a), np.array(sorted(va), dtype=StringDType()))
        assert np.unique(a).tolist() == sorted(set(va)), name
