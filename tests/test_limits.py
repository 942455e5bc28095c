"""Sizes from users: counts and widths beyond int64, results over the largest string,
allocations the machine cannot give, and work that a count alone would make endless.
Each is a clear exception (or an instant answer), never an abort or a hang."""

import numpy as np
import pytest
from conftest import StringDType, package_only, run_isolated

COUNT_OPS = {
    "multiply": lambda a, n: np.strings.multiply(a, n),
    "multiply_left": lambda a, n: np.multiply(n, a),
    "zfill": lambda a, n: np.strings.zfill(a, n),
    "center": lambda a, n: np.strings.center(a, n, "*"),
    "ljust": lambda a, n: np.strings.ljust(a, n),
    "rjust": lambda a, n: np.strings.rjust(a, n),
    "expandtabs": lambda a, n: np.strings.expandtabs(a, n),
    "replace": lambda a, n: np.strings.replace(a, "b", "x", n),
}


@package_only
@pytest.mark.parametrize("op", list(COUNT_OPS))
@pytest.mark.parametrize(
    "values",
    # The second has only short strings that each operation leaves as they are.
    [["abc", "x" * 20, "a\tb"], ["xyz", "q", ""]],
)
def test_uint64_counts_beyond_int64_overflow(op, values):
    a = np.array(values, dtype=StringDType())
    with pytest.raises(OverflowError):
        COUNT_OPS[op](a, np.uint64(2**63))
    with pytest.raises(OverflowError):
        COUNT_OPS[op](a, np.array([1, 2**63, 2], dtype=np.uint64))


@package_only
@pytest.mark.parametrize("op", list(COUNT_OPS))
@pytest.mark.parametrize("count", [0, 1, 3, 25])
def test_uint64_counts_within_range_act_as_int64(op, count):
    # NumPy's StringDType takes uint64 counts in multiply only.
    a = np.array(["abc", "x" * 20, "a\tb", ""], dtype=StringDType())
    want = COUNT_OPS[op](a, np.int64(count))
    assert COUNT_OPS[op](a, np.uint64(count)).tolist() == want.tolist()
    counts = np.array([count, 0, 1, count], dtype=np.uint64)
    assert COUNT_OPS[op](a, counts).tolist() == COUNT_OPS[op](a, counts.astype(np.int64)).tolist()


@package_only
def test_repeating_the_empty_string_is_instant():
    # NumPy's StringDType loops once per count.
    out = run_isolated(
        """
        a = np.array(['', ''], dtype=StringDType())
        assert np.strings.multiply(a, 2**62).tolist() == ['', '']
        assert np.strings.multiply(a, np.array([2**62, 2**63 - 1])).tolist() == ['', '']
        assert (a * (2**63 - 1)).tolist() == ['', '']
        print('ok')
        """,
        timeout=30,
    )
    assert out.strip() == "ok"


@package_only
@pytest.mark.parametrize(
    "call",
    [
        "np.strings.center(a, 2**40, '*')",
        "np.strings.zfill(a, 2**40)",
        "np.strings.ljust(a, 2**31)",
        "a * 2**40",
        "np.strings.expandtabs(np.array(['\\t' * 10], dtype=StringDType()), 2**30)",
        "np.strings.replace(np.array(['a' * 1000], dtype=StringDType()), 'a', 'b' * 2**22)",
    ],
)
def test_results_over_the_largest_string_overflow_at_once(call):
    out = run_isolated(
        f"""
        a = np.array(['x', 'y' * 20], dtype=StringDType())
        try:
            {call}
        except OverflowError:
            print('OverflowError')
        """,
        timeout=30,
    )
    assert out.strip() == "OverflowError"


@package_only
@pytest.mark.parametrize(
    "call",
    [
        "np.strings.zfill(np.array(['x' * 20], dtype=StringDType()), 2**31 - 1)",
        "np.strings.center(np.array(['x' * 20], dtype=StringDType()), 2**31 - 100, '*')",
        "np.strings.ljust(np.array(['é'], dtype=StringDType()), 2**30 - 100, 'é')",
        "np.strings.multiply(np.array(['x' * 1024], dtype=StringDType()), 2**21 - 1)",
        "np.strings.replace(np.array(['a' * 1000], dtype=StringDType()), 'a', 'b' * 2**21)",
        "np.array(['x' * 1024], dtype=StringDType()) + np.array(['y' * (2**31 - 1025)], dtype=StringDType())",
    ],
)
def test_allocation_failures_are_memory_errors(call):
    # Under an address-space limit with 1.5 GiB of headroom, results of ~2 GiB cannot
    # be allocated; the process must survive and go on working.
    out = run_isolated(
        f"""
        import resource
        status = open('/proc/self/status').read()
        vm = int(status.split('VmSize:')[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (vm + 1536 * 2**20,) * 2)
        try:
            {call}
        except MemoryError:
            print('MemoryError')
        a = np.array(['still works'] * 3, dtype=StringDType())
        assert np.strings.upper(a).tolist() == ['STILL WORKS'] * 3
        """,
        timeout=120,
    )
    assert out.strip() == "MemoryError"
