"""The per-call path of the StringDType to StringDType cast: `take`, fancy indexing, masks,
`np.put` and assignments, which NumPy runs one element (or a short run) per cast call.

Calls of up to 16 elements copy without the arenas' locks (inline strings and missing
values as their views, long strings read from the source's arena and stored in the
destination's, old long strings of the destination released there) while no loop
without the GIL holds either arena; everything else takes the locked path. The
results are compared with NumPy's own StringDType on random strings of every kind, the
arenas' accounting with the strings the arrays hold, and threads and fork run in
subprocesses with a timeout.
"""

import struct
import sys

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    StringDType,
    assert_same_list,
    both,
    forge,
    package_only,
    random_strings,
    run_isolated,
    stringdtype,
    utf8_len,
)

SIZE = 40


def source(flavor, rng, cls=None, n=SIZE):
    return np.array(random_strings(rng, n, flavor.na_object), dtype=flavor.dtype(cls))


def indices(rng, n, size=SIZE):
    return np.array([rng.randrange(-size, size) for _ in range(n)])


# Each takes the source values (a list) and a dtype, and returns the array it built.
TAKE_OPS = {
    "take": lambda a, i, m: np.take(a, i),
    "take_clip": lambda a, i, m: np.take(a, i + 100, mode="clip"),
    "take_wrap": lambda a, i, m: np.take(a, i * 7, mode="wrap"),
    "take_out": lambda a, i, m: np.take(a, i, out=np.empty(len(i), dtype=a.dtype)),
    "fancy": lambda a, i, m: a[i],
    "fancy_strided": lambda a, i, m: a[::-2][i // 2],
    "fancy_2d": lambda a, i, m: a.reshape(4, 10)[[1, 3, 0, 3], [9, 0, 4, 4]],
    "fancy_rows": lambda a, i, m: a.reshape(8, 5)[[7, 0, 0, 3]],
    "fancy_columns": lambda a, i, m: a.reshape(8, 5)[:, [4, 0, 2, 2]],
    "mask": lambda a, i, m: a[m],
    "mask_2d": lambda a, i, m: a.reshape(4, 10)[m.reshape(4, 10)],
    "compress": lambda a, i, m: np.compress(m, a),
}


@pytest.mark.parametrize("op", TAKE_OPS)
def test_take_matches_numpy(flavor, rng, op):
    values = random_strings(rng, SIZE, flavor.na_object)
    idx = indices(rng, 30)
    mask = np.array([rng.random() < 0.5 for _ in range(SIZE)])
    both(lambda cls: TAKE_OPS[op](np.array(values, dtype=flavor.dtype(cls)), idx, mask))


def assign_fancy(dst, src, idx, mask):
    dst[idx] = src[: len(idx)]


def assign_mask(dst, src, idx, mask):
    dst[mask] = src[: int(mask.sum())]


def assign_mask_scalar(dst, src, idx, mask):
    dst[mask] = src[3]


def assign_put(dst, src, idx, mask):
    np.put(dst, idx, src[: len(idx)])


def assign_put_wrap(dst, src, idx, mask):
    np.put(dst, idx * 3, src[: len(idx)], mode="wrap")


def assign_place(dst, src, idx, mask):
    np.place(dst, mask, src[:5])


def assign_putmask(dst, src, idx, mask):
    np.putmask(dst, mask, src)


def assign_copyto(dst, src, idx, mask):
    np.copyto(dst, src, where=mask)


def assign_strided(dst, src, idx, mask):
    dst[::3] = src[::-3]


def assign_2d(dst, src, idx, mask):
    dst.reshape(4, 10)[[3, 0, 2], 1:4] = src.reshape(4, 10)[:3, 5:8]


ASSIGN_OPS = [
    assign_fancy,
    assign_mask,
    assign_mask_scalar,
    assign_put,
    assign_put_wrap,
    assign_place,
    assign_putmask,
    assign_copyto,
    assign_strided,
    assign_2d,
]


@pytest.mark.parametrize("assign", ASSIGN_OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shared", [False, True], ids=["two_arenas", "one_arena"])
def test_assignment_matches_numpy(flavor, rng, assign, shared):
    """Assignments over destinations that hold strings of every kind (inline ones are
    overwritten without the arenas, long ones are released), from another array or from
    the destination itself (one arena)."""
    dst_values = random_strings(rng, SIZE, flavor.na_object)
    src_values = random_strings(rng, SIZE, flavor.na_object)
    idx = indices(rng, 12)
    mask = np.array([rng.random() < 0.5 for _ in range(SIZE)])

    def run(cls):
        dst = np.array(dst_values, dtype=flavor.dtype(cls))
        src = dst[::-1].copy() if not shared else dst[::-1]
        if not shared:
            src[...] = np.array(src_values, dtype=flavor.dtype(cls))
        # NumPy copies an overlapping source first; the result is the same either way.
        assign(dst, src, idx, mask)
        return dst

    def run_object():
        dst = np.array(dst_values, dtype=object)
        src = dst[::-1].copy() if not shared else dst[::-1]
        if not shared:
            src[...] = np.array(src_values, dtype=object)
        assign(dst, src, idx, mask)
        return dst

    assert_same_list(run(StringDType).tolist(), run_object().tolist())
    if not shared and assign not in (assign_put, assign_put_wrap, assign_place, assign_putmask):
        # NumPy's own StringDType cannot take these: `np.put` and `np.putmask` (2.4) copy
        # its packed strings' bytes wrongly, `np.place` calls its null `copyswap`
        # (numpy#30795), and a masked assignment from a view of the destination itself
        # comes out different from `object` arrays'.
        both(run)


@pytest.mark.parametrize("src_flavor", FLAVORS, ids=str)
def test_assignment_between_flavors(flavor, src_flavor, rng):
    """Missing values go between dtypes with different na_objects as NumPy's cast makes
    them (kept, or turned into their text, which is stored)."""
    values = random_strings(rng, SIZE, src_flavor.na_object)
    idx = indices(rng, 10)

    def run(cls):
        src = np.array(values, dtype=src_flavor.dtype(cls))
        dst = np.array(random_strings(rng, SIZE, flavor.na_object), dtype=flavor.dtype(cls))
        dst[idx] = src[idx]
        return dst

    # Same random destination on both sides.
    state = rng.getstate()
    ours = run(StringDType)
    rng.setstate(state)
    theirs = run(np.dtypes.StringDType)
    assert_same_list(ours.tolist(), theirs.tolist())


def long_bytes(arr, flavor):
    """Bytes of the long strings (over 12 bytes) that `arr` holds."""
    total = 0
    for v in arr.ravel().tolist():
        if not isinstance(v, str) or (flavor.has_na and v == flavor.na_object):
            continue
        size = utf8_len(v)
        total += size if size > 12 else 0
    return total


@package_only
@pytest.mark.parametrize("assign", ASSIGN_OPS, ids=lambda f: f.__name__)
def test_assignment_keeps_the_arena_exact(flavor, rng, assign):
    """After each assignment the destination's arena holds exactly its long strings:
    inline strings written over long ones released them, none was leaked or released
    twice, and later writes reuse the space."""
    dst = source(flavor, rng)
    for _ in range(4):
        src = source(flavor, rng)
        idx = indices(rng, 12)
        mask = np.array([rng.random() < 0.5 for _ in range(SIZE)])
        assign(dst, src, idx, mask)
        assert stringdtype.memory_info(dst)["string_bytes"] == long_bytes(dst, flavor)
        del src
        assert stringdtype.memory_info(dst)["string_bytes"] == long_bytes(dst, flavor)


@package_only
def test_take_result_owns_its_strings(flavor, rng):
    a = source(flavor, rng)
    idx = indices(rng, 60)
    b = a[idx]
    expected = np.array(a.tolist(), dtype=object)[idx].tolist()
    a[...] = "overwritten with a long string"
    del a
    assert_same_list(b.tolist(), expected)
    assert stringdtype.memory_info(b)["string_bytes"] == long_bytes(b, flavor)


@pytest.mark.parametrize("size", [0, 1, 12, 13, 40])
def test_take_of_one_length(rng, size):
    """Every element of one byte length, at the border of inline storage, with embedded
    NULs."""
    values = [("\x00" + "x" * size)[:size] if i % 2 else "y" * size for i in range(50)]
    idx = [rng.randrange(50) for _ in range(80)]
    both(lambda cls: np.array(values, dtype=cls())[idx])
    both(lambda cls: np.take(np.array(values, dtype=cls()), idx))


def test_inline_over_long_in_one_short_call(rng):
    """Short calls that mix elements copied without the arenas and elements that need
    them: inline strings then a long one, over destinations holding both."""
    values = ["a", "b" * 12, "c" * 13, "", "d" * 40, "é" * 6, "e\x00f", "g" * 30]
    for _ in range(20):
        order = [rng.randrange(len(values)) for _ in range(8)]
        dst_order = [rng.randrange(len(values)) for _ in range(8)]
        mask = [rng.random() < 0.7 for _ in range(8)]

        def run(cls, order=order, dst_order=dst_order, mask=mask):
            src = np.array([values[k] for k in order], dtype=cls())
            dst = np.array([values[k] for k in dst_order], dtype=cls())
            dst[mask] = src[mask]
            return dst

        both(run)


@package_only
def test_a_corrupt_long_element_fails_the_take_and_keeps_the_destination():
    """A long view that names no string, met by the per-call copy: a ValueError, the
    destination's elements written before it kept, the failing one as it was, and the
    destination's arena counting exactly the strings its elements hold."""
    c = np.array(["x", "a long string in the source", "y"], dtype=StringDType())
    forge(c, 2, struct.pack("<I4sII", 100, b"abcd", 5, 0))
    with pytest.raises(ValueError, match="corrupt string element"):
        c[[1, 2]]
    dst = np.array(["kept", "old", "also kept over twelve bytes"], dtype=StringDType())
    with pytest.raises(ValueError, match="corrupt string element"):
        dst[[0, 1]] = c[1:]
    assert dst.tolist() == ["a long string in the source", "old", "also kept over twelve bytes"]
    assert stringdtype.memory_info(dst)["string_bytes"] == sum(
        len(v) for v in dst.tolist() if len(v) > 12
    )


@package_only
def test_long_strings_taken_one_call_each_own_their_blocks(rng):
    """Long strings (13 bytes and more, non-ASCII, embedded NUL) and missing values taken
    by the per-call copy into a fresh array and assigned through a permutation: each
    element a block of the destination's own, freed and reused as the destination is
    overwritten, and nothing left when it is overwritten with inline strings."""
    values = ["é" * 7, "a" * 13, "b\x00" * 20, "c" * 300, "d" * 12, ""]
    a = np.array([values[rng.randrange(len(values))] for _ in range(500)], dtype=StringDType())
    idx = np.array([rng.randrange(500) for _ in range(700)])
    b = a[idx]
    expected = [a[int(i)] for i in idx]
    assert b.tolist() == expected
    info = stringdtype.memory_info(b)
    assert info["string_bytes"] == sum(utf8_len(v) for v in expected if utf8_len(v) > 12)
    a[...] = "x"
    del a
    assert b.tolist() == expected
    c = np.empty(700, dtype=StringDType())
    perm = np.array(rng.sample(range(700), 700))
    c[perm] = b
    assert [c[int(i)] for i in perm] == expected
    c[...] = "y"
    assert stringdtype.memory_info(c)["string_bytes"] == 0


@package_only
def test_permuted_assignments_over_long_strings_reuse_their_blocks(rng):
    """Fancy assignment of long strings over long strings, one call per element: each old
    string is released into the destination's free lists and its block reused, so 50
    rounds keep the arena where the first left it, with exact accounting."""
    n = 400
    src = np.array([f"s{i}" + "x" * (i % 40 + 12) for i in range(n)], dtype=StringDType())
    dst = np.array([f"d{i}" + "y" * (i % 40 + 12) for i in range(n)], dtype=StringDType())
    perm = np.array(rng.sample(range(n), n))
    dst[perm] = src
    first = stringdtype.memory_info(dst)
    for _ in range(50):
        perm = np.array(rng.sample(range(n), n))
        dst[perm] = src
        assert [dst[int(i)] for i in perm] == src.tolist()
    info = stringdtype.memory_info(dst)
    assert info["arena_capacity"] == first["arena_capacity"]
    assert info["string_bytes"] == sum(utf8_len(v) for v in src.tolist())
    dst[perm] = np.array(["short"] * n, dtype=StringDType())
    assert stringdtype.memory_info(dst)["string_bytes"] == 0


THREADED_TAKES = """
import threading, time
from stringdtype import memory_info
n = 20000
short = ['s%d' % (i % 977) for i in range(n)]
longs = ['a long string number %d %s' % (i, 'x' * (i % 50)) for i in range(n)]
a = np.array([short[i] if i % 3 else longs[i] for i in range(n)], dtype=StringDType())
rng = np.random.default_rng(1)
stop = time.time() + 2
errors = []
outs = []
def taker(seed):
    r = np.random.default_rng(seed)
    try:
        while time.time() < stop:
            idx = r.integers(0, n, 5000)
            b = a[idx] if seed % 2 else np.take(a, idx)
            vals = b.tolist()
            for v in vals[:200]:
                assert v.startswith('s') or v.startswith('a long') or v.startswith('w'), v
            dst = np.empty(5000, dtype=StringDType())
            dst[:] = 'a destination string over twelve bytes'
            dst[r.permutation(5000)] = b
            assert sorted(dst.tolist()) == sorted(vals)
            assert memory_info(dst)['string_bytes'] == sum(
                len(v) for v in vals if len(v) > 12)
            outs.append(b)
            del outs[:-4]
    except Exception as exc:
        errors.append(repr(exc))
def writer(seed):
    # Writes other elements than the takers read (odd ones), short and long.
    r = np.random.default_rng(seed)
    while time.time() < stop:
        i = int(r.integers(0, n // 2)) * 2 + 1
        a[i] = 'w%d' % i if i % 4 == 1 else 'w a long written string %d' % i
threads = [threading.Thread(target=taker, args=(s,)) for s in (1, 2, 3)]
threads.append(threading.Thread(target=writer, args=(9,)))
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
for b in outs:
    assert memory_info(b)['string_bytes'] == sum(len(v) for v in b.tolist() if len(v) > 12)
print('ok')
"""


@package_only
def test_takes_in_threads_with_a_writer():
    assert run_isolated(THREADED_TAKES, timeout=120).strip() == "ok"


@package_only
@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_fork_while_threads_take():
    out = run_isolated(
        """
        import os, signal, threading, time, warnings
        warnings.simplefilter('ignore', DeprecationWarning)   # fork with threads
        n = 20000
        a = np.array(['v%d' % i if i % 2 else 'a long value number %d' % i
                      for i in range(n)], dtype=StringDType())
        stop = False
        def taker(seed):
            r = np.random.default_rng(seed)
            while not stop:
                b = a[r.integers(0, n, 3000)]
                c = np.empty(3000, dtype=StringDType())
                c[r.permutation(3000)] = b
        threads = [threading.Thread(target=taker, args=(s,), daemon=True) for s in (1, 2)]
        for t in threads:
            t.start()
        statuses = []
        for _ in range(6):
            time.sleep(0.05)
            pid = os.fork()
            if pid == 0:
                signal.alarm(10)                   # SIGALRM after 10 s: deadlocked
                idx = np.arange(0, n, 7)
                b = a[idx]
                assert b.tolist() == [a[i] for i in idx]
                b[::2] = 'x'
                b[1::2] = a[:len(b[1::2])]
                os._exit(0)
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        stop = True
        for t in threads:
            t.join()
        print(statuses)
        """,
        timeout=120,
    )
    assert out.strip() == "[0, 0, 0, 0, 0, 0]"


# One element written by a loop that runs without the GIL (`np.add(..., out=a)` over
# 100,000 elements, or a cast from NumPy's StringDType into it) while other threads take
# it (`a[idx]`, the per-call path), read it (`a[i]`, `tolist`, `astype(object)`, a cast
# to NumPy's StringDType, `nonzero`) or copy it into another array: every value seen
# must be one of those written, never the first word of one view and the second of
# another, and nothing may hang.
RACING_ONE_ELEMENT = """
import threading, time
n = 100_000
T = np.dtypes.StringDType()
a = np.array(['a' * 12] * n, dtype=StringDType())
p = np.array(['a' * 6] * n, dtype=StringDType())
q = np.array(['b'] * n, dtype=StringDType())
t = np.array(['c' * 12] * n, dtype=T)
values = {'a' * 12, 'bb', 'a' * 6 + 'b', 'c' * 12}
stop = time.time() + {seconds}
seen = set()
def writer():
    k = 0
    while time.time() < stop:
        if k % 8 == 7:
            a[...] = t
        else:
            x, y = [(p, p), (q, q), (p, q)][k % 3]
            np.add(x, y, out=a)
        k += 1
def taker(seed):
    r = np.random.default_rng(seed)
    while time.time() < stop:
        idx = r.integers(0, n, 2000)
        seen.update(a[idx].tolist())
        seen.update(a[int(i)] for i in idx[:200])
def reader(seed):
    r = np.random.default_rng(seed)
    b = np.empty(2000, dtype=StringDType())
    while time.time() < stop:
        start = int(r.integers(0, n - 2000))
        seen.update(a[start:start + 300].tolist())
        seen.update(a[start:start + 300].astype(object).tolist())
        seen.update(a[start:start + 2000].astype(T).tolist())
        b[r.permutation(2000)] = a[start:start + 2000]
        seen.update(b.tolist())
        assert np.count_nonzero(a[start:start + 300]) == 300
def setter(seed):
    r = np.random.default_rng(seed)
    k = 0
    while time.time() < stop:
        for i in r.integers(0, n, 200):
            a[int(i)] = ['bb', 'a' * 6 + 'b'][k % 2]
        k += 1
jobs = [(taker, 1), (taker, 2), (reader, 3), (setter, 4)]
threads = [threading.Thread(target=f, args=(s,)) for f, s in jobs]
threads.append(threading.Thread(target=writer))
for th in threads:
    th.start()
for th in threads:
    th.join()
assert seen <= values, sorted(seen - values)[:5]
print('ok')
"""


@package_only
def test_no_torn_value_while_a_loop_writes():
    out = run_isolated(RACING_ONE_ELEMENT.replace("{seconds}", "3"), timeout=120)
    assert out.strip() == "ok"


# Long strings (and the arenas behind them) copied by the per-call path without the
# locks while loops that run without the GIL write the same arrays: `np.add(..., out=a)`
# rewrites the source's long strings (freeing and reusing its blocks) while threads take
# from it, `np.add(..., out=d)` writes a destination while another thread takes into it
# (`np.take(a, idx, out=d)`), and a third assigns single long strings to both. Every
# value seen must be one that was written, each arena must count exactly the strings
# its array holds, and nothing may crash or hang.
RACING_LONG = """
import threading, time
from stringdtype import memory_info
n = 50_000
a = np.array(['a long source string %d' % (i % 7) for i in range(n)], dtype=StringDType())
p = np.array(['p' * 13] * n, dtype=StringDType())
q = np.array(['q' * 20] * n, dtype=StringDType())
d = np.empty(3000, dtype=StringDType())
pd_, qd = p[:3000].copy(), q[:3000].copy()
values = {'a long source string %d' % k for k in range(7)}
values |= {'p' * 26, 'q' * 40, 'p' * 13 + 'q' * 20, 'x'}
stop = time.time() + {seconds}
seen = set()
errors = []
def writer():
    k = 0
    while time.time() < stop:
        x, y = [(p, p), (q, q), (p, q)][k % 3]
        np.add(x, y, out=a)
        k += 1
def taker(seed):
    r = np.random.default_rng(seed)
    try:
        while time.time() < stop:
            b = a[r.integers(0, n, 2000)]
            vals = b.tolist()
            seen.update(vals)
            got = memory_info(b)['string_bytes']
            assert got == sum(len(v) for v in vals if len(v) > 12), got
    except Exception as exc:
        errors.append(repr(exc))
def into_d(seed):
    r = np.random.default_rng(seed)
    try:
        while time.time() < stop:
            d[...] = 'x'
            np.take(a, r.integers(0, n, 3000), out=d)
    except Exception as exc:
        errors.append(repr(exc))
def d_writer():
    while time.time() < stop:
        np.add(pd_, qd, out=d)
def setter(seed):
    # Single long strings written into the source and the destination (setitem).
    r = np.random.default_rng(seed)
    k = 0
    while time.time() < stop:
        for i in r.integers(0, 3000, 100):
            a[int(i)] = 'a long source string %d' % (k % 7)
            d[int(i)] = 'p' * 26
        k += 1
threads = [threading.Thread(target=f, args=a_) for f, a_ in
           [(writer, ()), (taker, (1,)), (taker, (2,)), (into_d, (3,)), (d_writer, ()),
            (setter, (4,))]]
for th in threads:
    th.start()
for th in threads:
    th.join()
assert not errors, errors[:3]
assert seen <= values, sorted(seen - values)[:5]
vals = d.tolist()
assert set(vals) <= values, sorted(set(vals) - values)[:5]
assert memory_info(d)['string_bytes'] == sum(len(v) for v in vals if len(v) > 12)
assert memory_info(a)['string_bytes'] == sum(len(v) for v in a.tolist() if len(v) > 12)
print('ok')
"""


@package_only
def test_no_torn_arena_while_loops_write_long_strings():
    out = run_isolated(RACING_LONG.replace("{seconds}", "3"), timeout=120)
    assert out.strip() == "ok"
