"""Concurrent use from threads: setitem, getitem, copy and astype on shared and on
private arrays at the same time.  Every value read must be one that was written, and
nothing may crash or deadlock."""

import threading
import time

import numpy as np
import pytest
from conftest import FLAVORS, StringDType, assert_same_list

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
