"""Concurrent use from threads: setitem, getitem, copy and astype on shared and on
private arrays at the same time.  Every value read must be one that was written, and
nothing may crash or deadlock."""

import threading
import time

import numpy as np
import pytest
from conftest import FLAVORS, StringDType, assert_same_list, package_only, run_isolated

THREADS = 4
DURATION = 0.5  # seconds per test
SIZE = 64

# A dtype with a missing value and one without, to exercise both cast paths.
THREAD_FLAVORS = [FLAVORS[0], FLAVORS[2]]


def value(index, generation):
    """The string written to ``index`` in ``generation``: short or long by parity."""
    head = f"{index}:{generation}:"
    return head + ("L" * (20 + generation % 50) if generation % 2 else "")


def check_value(index, text):
    head, _, tail = text.partition(":")
    generation = int(tail.partition(":")[0])
    assert int(head) == index, (index, text)
    assert text == value(index, generation), (index, text)


def run_threads(worker):
    barrier = threading.Barrier(THREADS)
    errors = []

    def target(tid):
        try:
            barrier.wait()
            worker(tid)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append((tid, exc))

    threads = [threading.Thread(target=target, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0][1]


@pytest.mark.parametrize("flavor", THREAD_FLAVORS, ids=str)
def test_shared_array(flavor):
    arr = np.array([value(j, 0) for j in range(SIZE)], dtype=flavor.dtype())
    last = [0] * SIZE
    counts = [0] * THREADS

    def worker(tid):
        deadline = time.monotonic() + DURATION
        generation = 0
        mine = range(tid, SIZE, THREADS)
        while time.monotonic() < deadline:
            generation += 1
            for j in mine:
                arr[j] = value(j, generation)
                last[j] = generation
            for j in range(generation % THREADS, SIZE, 5):
                check_value(j, arr[j])
            op = generation % 4
            if op == 0:
                snapshot = arr.copy()
            elif op == 1:
                snapshot = arr.astype(object)
            elif op == 2:
                snapshot = arr.astype(StringDType(na_object=None))
            else:
                snapshot = arr[::-1][::-1]
            for j, text in enumerate(snapshot.tolist()):
                check_value(j, text)
            texts = arr.astype("U80")
            for j, text in enumerate(texts.tolist()):
                check_value(j, text)
            counts[tid] += 1

    run_threads(worker)
    assert all(c > 0 for c in counts), counts
    assert arr.tolist() == [value(j, last[j]) for j in range(SIZE)]


@pytest.mark.parametrize("flavor", THREAD_FLAVORS, ids=str)
def test_private_arrays(flavor):
    results = {}

    def worker(tid):
        deadline = time.monotonic() + DURATION
        mirror = [value(j, tid) for j in range(SIZE)]
        arr = np.array(mirror, dtype=flavor.dtype())
        generation = tid
        while time.monotonic() < deadline:
            generation += THREADS
            j = generation % SIZE
            arr[j] = mirror[j] = value(j, generation)
            assert arr[j] == mirror[j]
            copy = arr.copy()
            assert copy.tolist() == mirror
            assert arr.astype(object).tolist() == mirror
            back = arr.astype("U80").astype(flavor.dtype())
            assert back.tolist() == mirror
            arr[::2] = copy[::2]
        results[tid] = (arr, mirror)

    run_threads(worker)
    assert sorted(results) == list(range(THREADS))
    for arr, mirror in results.values():
        assert_same_list(arr.tolist(), mirror)


def test_one_writer_many_readers():
    arr = np.array([value(j, 0) for j in range(SIZE)], dtype=StringDType())
    stop = threading.Event()

    def worker(tid):
        deadline = time.monotonic() + DURATION
        if tid == 0:
            generation = 0
            try:
                while time.monotonic() < deadline:
                    generation += 1
                    arr[:] = [value(j, generation) for j in range(SIZE)]
            finally:
                stop.set()
            return
        while not stop.is_set() and time.monotonic() < deadline + 10:
            for j, text in enumerate(arr.copy().tolist()):
                check_value(j, text)
            for j, text in enumerate(np.concatenate([arr[:10], arr[10:]]).tolist()):
                check_value(j, text)

    run_threads(worker)
    for j, text in enumerate(arr.tolist()):
        check_value(j, text)


@pytest.mark.parametrize("flavor", THREAD_FLAVORS, ids=str)
def test_string_operations_on_a_shared_array(flavor):
    # String loops run with the GIL released; here they run on an array that other
    # threads keep rewriting (and, in place, on that array itself).
    import stringdtype.strings as sds

    arr = np.array([value(j, 0) for j in range(SIZE)], dtype=flavor.dtype())

    def worker(tid):
        deadline = time.monotonic() + DURATION
        generation = 0
        mine = range(tid, SIZE, THREADS)
        while time.monotonic() < deadline:
            generation += 1
            for j in mine:
                arr[j] = value(j, generation)
            for j, text in enumerate(np.strings.rstrip(arr, "L").tolist()):
                head, _, rest = text.split(":")
                assert (int(head), rest) == (j, ""), text
            padded = np.strings.ljust(arr, 90, "*")
            for j, text in enumerate(np.strings.rstrip(padded, "*").tolist()):
                check_value(j, text)
            for j, text in enumerate(sds.lower(sds.upper(arr)).tolist()):
                check_value(j, text.replace("l", "L"))
            for j, text in enumerate(np.strings.replace(arr, ":", ";").tolist()):
                check_value(j, text.replace(";", ":"))
            assert (np.strings.find(arr, ":") > 0).all()
            snapshot = arr + ""
            for j, text in enumerate(np.sort(snapshot)[np.argsort(np.argsort(snapshot))].tolist()):
                check_value(j, text)
            np.add(arr[mine[0] : mine[0] + 1], "", out=arr[mine[0] : mine[0] + 1])

    run_threads(worker)
    for j, text in enumerate(arr.tolist()):
        check_value(j, text)


@package_only
def test_an_error_in_a_loop_never_holds_a_lock_while_waiting_for_python():
    # One thread casts to 'S' and fails on a non-ASCII string (the error is built with
    # the GIL released); another assigns elements holding the GIL. No deadlock.
    out = run_isolated(
        """
        import threading, time
        a = np.array(['ascii string number %d' % i for i in range(200_000)], dtype=StringDType())
        a[-1] = 'non-ascii é at the end'
        stop = False
        failures = [0]
        def caster():
            while not stop:
                try:
                    a.astype('S40')
                except UnicodeEncodeError:
                    failures[0] += 1
        def setter():
            i = 0
            while not stop:
                a[i % 1000] = 'long string stored in the arena %d' % i
                i += 1
        threads = [threading.Thread(target=f, daemon=True) for f in (caster, setter)]
        for t in threads:
            t.start()
        time.sleep(2)
        stop = True
        for t in threads:
            t.join()
        print(failures[0] > 0)
        """,
        timeout=60,
    )
    assert out.strip() == "True"


@package_only
def test_in_place_sort_racing_with_writers():
    out = run_isolated(
        """
        import random, threading, time
        from stringdtype import memory_info
        longs = ['long value %03d %s' % (i, 's' * (i % 40)) for i in range(200)]
        n = 2000
        a = np.array([random.Random(3).choice(longs) for _ in range(n)], dtype=StringDType())
        stop = time.time() + 2
        def sorter():
            while time.time() < stop:
                a.sort()
        def setter(seed):
            r = random.Random(seed)
            while time.time() < stop:
                a[r.randrange(n)] = r.choice(longs)
        threads = [threading.Thread(target=sorter)]
        threads += [threading.Thread(target=setter, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        values = a.tolist()
        assert set(values) <= set(longs), 'values never written'
        long_bytes = sum(len(v.encode()) for v in values if len(v.encode()) > 12)
        assert memory_info(a)['string_bytes'] == long_bytes
        # No two elements share a block: rewriting each changes only itself.
        new = ['unique %d %s' % (i, 'u' * (20 + i % 50)) for i in range(n)]
        for i, v in enumerate(new):
            a[i] = v
        assert a.tolist() == new
        print('ok')
        """,
        timeout=60,
    )
    assert out.strip() == "ok"


def test_copies_sharing_chunks_racing_with_writers():
    out = run_isolated(
        """
        import random, threading, time
        from stringdtype import memory_info
        longs = ['long value %03d %s' % (i, 's' * (i % 200)) for i in range(300)]
        n = 4000
        r0 = random.Random(5)
        a = np.array([r0.choice(longs) for _ in range(n)], dtype=StringDType())
        stop = time.time() + 2
        copies = []
        def copier():
            while time.time() < stop:
                b = np.sort(a) if len(copies) % 2 else a.copy()
                assert set(b.tolist()) <= set(longs), 'a torn copy'
                copies.append(b)
                del copies[:-3]
        def setter(seed):
            r = random.Random(seed)
            while time.time() < stop:
                a[r.randrange(n)] = r.choice(longs)
        threads = [threading.Thread(target=copier)]
        threads += [threading.Thread(target=setter, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        snapshots = [b.tolist() for b in copies]
        del a
        # Each copy owns its strings: rewriting one changes nothing else.
        for b, before in zip(copies, snapshots):
            assert b.tolist() == before
            new = ['new %d %s' % (i, 'n' * (20 + i % 50)) for i in range(n)]
            b[:] = new
            assert b.tolist() == new
            assert memory_info(b)['string_bytes'] == sum(len(v) for v in new)
        print('ok')
        """,
        timeout=60,
    )
    assert out.strip() == "ok"


def test_readers_of_one_array_run_together_correctly():
    # Read-only loops on one shared array from several threads (they share its arena
    # lock): every result equals the single-threaded one.
    arr = np.array([value(j, j) for j in range(20_000)], dtype=StringDType())
    want = (np.strings.find(arr, "L").tolist(), np.strings.str_len(arr).tolist())
    results = []

    def worker(tid):
        for _ in range(5):
            results.append((np.strings.find(arr, "L").tolist(), np.strings.str_len(arr).tolist()))

    run_threads(worker)
    assert len(results) == 5 * THREADS
    assert all(r == want for r in results)
