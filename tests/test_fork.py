"""``fork()`` while other threads are inside the package's loops: the child finds every
lock of the package free and its arrays consistent. Each case runs in a subprocess,
whose child gets a few seconds before an alarm counts it as deadlocked."""

import sys
import textwrap

import pytest
from conftest import package_only, run_isolated

pytestmark = [
    package_only,
    pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows"),
]

BUSY_ARRAY = """
import os, signal, threading, time, warnings
warnings.simplefilter('ignore', DeprecationWarning)   # fork with threads, Python 3.12+
from stringdtype import to_arrow
A = np.tile(np.array(['some medium string %04d here' % i for i in range(1000)],
                     dtype=StringDType()), 1000)
"""


def test_fork_while_a_thread_runs_a_loop():
    out = run_isolated(
        BUSY_ARRAY
        + textwrap.dedent(
            """
        stop = False
        def finder():
            while not stop:
                np.strings.find(A, 'zz')
        def writer():
            i = 0
            while not stop:
                A[i % 1000] = 'a long string written by a thread %d' % i
                i += 1
        threads = [threading.Thread(target=f, daemon=True) for f in (finder, writer)]
        for t in threads:
            t.start()
        statuses = []
        for _ in range(5):
            time.sleep(0.05)
            pid = os.fork()
            if pid == 0:
                signal.alarm(10)                   # SIGALRM after 10 s: deadlocked
                A[0] = 'x' * 30
                assert A[0] == 'x' * 30
                assert np.strings.find(A[1:10], 'string').min() >= 0
                assert len(to_arrow(A[:100])) == 100
                B = np.strings.upper(A[:1000])
                assert B[5] == A[5].upper()
                os._exit(0)
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        stop = True
        for t in threads:
            t.join()
        print(statuses)
        """
        )
    )
    assert out.strip() == "[0, 0, 0, 0, 0]"


def test_multiprocessing_pool_with_fork_while_a_thread_is_busy():
    out = run_isolated(
        BUSY_ARRAY
        + textwrap.dedent(
            """
        import multiprocessing
        def work(i):
            part = A[i * 1000:(i + 1) * 1000].copy()
            part[0] = 'changed in the worker, long enough'
            return int(np.strings.str_len(part).sum())
        stop = False
        def busy():
            while not stop:
                np.strings.replace(A, 'here', 'there')
        thread = threading.Thread(target=busy, daemon=True)
        thread.start()
        time.sleep(0.1)
        with multiprocessing.get_context('fork').Pool(2) as pool:
            results = pool.map(work, range(4))
        stop = True
        thread.join()
        expected = [int(np.strings.str_len(A[:1000]).sum()) - len(A[0]) + 34] * 4
        print(results == expected)
        """
        ),
        timeout=120,
    )
    assert out.strip() == "True"
