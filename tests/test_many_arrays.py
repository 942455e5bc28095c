"""Any number of small arrays: millions of live arrays that each hold a long string (one
array per document of a corpus), what a small array's arena holds, and arrays that
meet each other's strings (reads, copies, Arrow) across all of them."""

import numpy as np
import pytest
from conftest import StringDType, package_only, run_isolated

LONG = "a string of more than twelve bytes"


def test_millions_of_live_arrays_that_hold_long_strings():
    # Past 2^20 arrays (the old limit) by far; in a child, so that a failure to free
    # them or a crash cannot take the suite with it.
    out = run_isolated(
        """
        import gc
        n = 3_000_000
        arrays = [np.empty(1, dtype=StringDType()) for _ in range(n)]
        for i, a in enumerate(arrays):
            a[0] = f"document {i:010d} of the corpus"
        for i in range(0, n, 10_007):
            assert arrays[i][0] == f"document {i:010d} of the corpus", i
        # Strings of many arenas meet in one array, and in a copy.
        picked = list(range(0, n, n // 1000))
        joined = np.concatenate([arrays[i] for i in picked])
        want = [f"document {i:010d} of the corpus" for i in picked]
        assert joined.tolist() == want
        assert (joined.copy() == np.array(want, dtype=StringDType())).all()
        del arrays
        gc.collect()
        again = [np.array([f"{i} and a long tail of text"], dtype=StringDType()) for i in range(1000)]
        assert [a[0] for a in again] == [f"{i} and a long tail of text" for i in range(1000)]
        assert joined.tolist() == want
        print("ok")
        """,
        timeout=240,
    )
    assert out.strip() == "ok"


def test_small_arrays_hold_their_own_strings(flavor):
    dtype = flavor.dtype()
    values = [[f"{i} {LONG}", "ab", f"{i}" * 13] for i in range(2000)]
    arrays = [np.array(v, dtype=dtype) for v in values]
    # Each one reads, compares and copies its own strings, and others' through them.
    for a, v in zip(arrays[::97], values[::97]):
        assert a.tolist() == v
        assert (a == np.array(v, dtype=dtype)).all()
    mixed = np.concatenate(arrays[:50])
    assert mixed.tolist() == [s for v in values[:50] for s in v]
    # Writing one array's strings into another through assignment copies them.
    target = arrays[0].copy()
    target[:] = arrays[1]
    del arrays
    assert target.tolist() == values[1]


@package_only
def test_a_small_arrays_arena_fits_what_it_stores():
    import stringdtype

    info = stringdtype.memory_info(np.array([LONG, "ab"], dtype=StringDType()))
    assert info["chunks"] == 1
    assert info["string_bytes"] <= info["arena_used"] <= info["arena_capacity"] <= 256
    big = "x" * 3000
    info = stringdtype.memory_info(np.array([big], dtype=StringDType()))
    assert info["chunks"] == 1
    assert 3000 <= info["arena_capacity"] <= 4096


@package_only
def test_an_array_built_element_by_element_has_few_chunks():
    import stringdtype

    values = [f"element {i:08d} with a tail" for i in range(200_000)]
    a = np.array(values, dtype=StringDType())
    info = stringdtype.memory_info(a)
    # From the first string's block, each chunk double the last, up to 16 MiB.
    assert info["chunks"] <= 20
    assert info["arena_capacity"] < 2 * info["arena_used"] + 64
    assert a[::1009].tolist() == values[::1009]


@package_only
def test_small_arrays_round_trip_through_arrow():
    pa = pytest.importorskip("pyarrow")
    import stringdtype

    arrays = [
        np.array([f"{i} {LONG}", None, "ab"], dtype=StringDType(na_object=None)) for i in range(300)
    ]
    for a in arrays[::37]:
        exported = pa.array(stringdtype.to_arrow(a))
        assert exported.to_pylist() == a.tolist()
        back = stringdtype.from_arrow(exported, na_object=None)
        assert back.tolist() == a.tolist()


def test_small_arrays_grow_past_their_first_chunk(flavor):
    dtype = flavor.dtype()
    a = np.array(["ab", LONG], dtype=dtype)
    want = ["ab", LONG]
    # Overwrites in place (the released block is the last carved), then more strings
    # than the first chunk holds, of other sizes, released in other orders.
    for i in range(200):
        a[i % 2] = f"{i} " + "y" * (i % 40)
        want[i % 2] = f"{i} " + "y" * (i % 40)
        assert a.tolist() == want
    b = np.resize(a, 50)
    b[::3] = [f"{i} {LONG} {'z' * i}" for i in range(0, 50, 3)]
    assert b[3] == f"3 {LONG} zzz"
    b[::2] = b[1::2].copy()
    assert (b[::2] == b[1::2]).all()


def test_copies_and_views_of_small_arrays(flavor):
    dtype = flavor.dtype()
    a = np.array(["ab", LONG], dtype=dtype)
    copy, view, tail = a.copy(), a.view(dtype), a[1:]
    # Writing any of them leaves the copy's strings and the others' readings right.
    a[1] = "another " + LONG
    assert copy.tolist() == ["ab", LONG]
    assert view[1] == tail[0] == "another " + LONG
    copy[0] = LONG + "!"
    assert a[0] == "ab" and copy.tolist() == [LONG + "!", LONG]
    # Strings read through another array's descriptor, and mixed into new arrays.
    many = [np.array([f"{i} {LONG}"], dtype=dtype) for i in range(100)]
    joined = np.concatenate(many + [a])
    assert joined[-1] == "another " + LONG and joined[7] == f"7 {LONG}"


@package_only
def test_small_arrays_across_fork():
    import sys

    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    out = run_isolated(
        """
        import os, signal
        arrays = [np.array(["ab", f"{i} a string of more than twelve bytes"],
                           dtype=StringDType()) for i in range(10_000)]
        pid = os.fork()
        if pid == 0:
            signal.alarm(20)
            for i, a in enumerate(arrays[::101]):
                a[0] = "written in the child " + str(i)
            more = [np.array([f"{i} a new long string in the child"], dtype=StringDType())
                    for i in range(10_000)]
            assert more[-1][0] == "9999 a new long string in the child"
            assert arrays[101][0] == "written in the child 1"
            assert arrays[5000][1] == "5000 a string of more than twelve bytes"
            os._exit(0)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        assert arrays[101][0] == "ab"
        print(status)
        """
    )
    assert out.strip() == "0"
