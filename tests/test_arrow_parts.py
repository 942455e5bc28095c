"""``from_arrow`` on every core: the element loop of a large plain import is cut into parts
that the thread pool runs, each storing the long strings it copies into a region (a
chunk) of its own. With the pool's threshold lowered, arrays of a few thousand elements
split here; each import must give the one thread's values, memory figures and errors
(the same element named), leave nothing allocated after a failure, and survive
``fork()``.
"""

import random

import numpy as np
import pytest
from conftest import (
    REFERENCE,
    UNSET,
    call_from_threads,
    error_or_result,
    long_string,
    random_strings,
    run_isolated,
)

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.skipif(REFERENCE, reason="from_arrow is stringdtype-only")

if not REFERENCE:
    from stringdtype import _core, from_arrow, memory_info

TYPES = [pa.string(), pa.large_string(), pa.string_view()]
THRESHOLD = 16


@pytest.fixture(autouse=True)
def small_threshold():
    threads, threshold = _core._pool_threads(), _core._pool_threshold()
    _core._set_pool_threshold(THRESHOLD)
    yield
    _core._set_pool_threshold(threshold)
    _core._set_pool_threads(threads)


def at(threads, source, **kwargs):
    """``from_arrow(source)`` on ``threads`` threads: its values and string bytes, or
    its error."""
    _core._set_pool_threads(threads)

    def run():
        a = from_arrow(source, **kwargs)
        info = memory_info(a)
        return a.tolist(), info["string_bytes"], info["arena_used"]

    return error_or_result(run)


def same_at_one_and_two(source, **kwargs):
    one, two = at(1, source, **kwargs), at(2, source, **kwargs)
    assert one == two
    return one


def chunks_at(threads, source):
    """The chunks of ``from_arrow(source)``'s arena on ``threads`` threads: one region
    per part that copies strings."""
    _core._set_pool_threads(threads)
    return memory_info(from_arrow(source, na_object=None))["chunks"]


def values(seed, n, long_share, nulls=True):
    """Random strings of every kind (empty, 12 and 13 bytes, non-ASCII, NUL, missing),
    ``long_share`` of them 13 to 300 bytes long."""
    rng = random.Random(seed)
    kinds = random_strings(rng, 400, na_object=None if nulls else UNSET)
    out = []
    for i in range(n):
        if rng.random() < long_share:
            out.append(long_string(rng, rng.randint(13, 300)) + str(i))
        else:
            out.append(rng.choice(kinds))
    return out


def fresh(values, type_):
    return pa.array(values, type=pa.string()).cast(type_)


@pytest.mark.parametrize("type_", TYPES, ids=str)
@pytest.mark.parametrize("long_share", [0.0, 0.1, 0.9], ids=["short", "some-long", "long"])
def test_parts_give_the_one_threads_array(type_, long_share):
    # Mostly short strings are copied into regions; mostly long ones are read in place
    # from the adopted buffer.
    vals = values(1, 5000, long_share)
    source = fresh(vals, type_)
    one = same_at_one_and_two(source, na_object=None)
    assert one[0] == "ok"
    assert one[1][0] == vals


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_copied_strings_go_to_a_region_per_part(type_):
    # Mostly short strings: the few long ones are copied, by each of the two parts per
    # thread into a region of its own.
    rng = random.Random(8)
    vals = [
        long_string(rng, rng.randint(13, 40)) if i % 20 == 0 else "short" * (i % 3)
        for i in range(5000)
    ]
    vals[77] = None
    source = fresh(vals, type_)
    one = same_at_one_and_two(source, na_object=None)
    assert one[0] == "ok" and one[1][0] == vals
    assert (chunks_at(1, source), chunks_at(2, source)) == (1, 4)


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_slices_split_at_their_own_elements(type_):
    vals = values(2, 6000, 0.3)
    source = fresh(vals, type_)
    for start, stop in [(1, 6000), (37, 4000), (3001, 5999), (5900, 6000)]:
        part = source.slice(start, stop - start)
        one = same_at_one_and_two(part, na_object=None)
        assert one[0] == "ok" and one[1][0] == vals[start:stop]


def test_view_buffers_some_adopted_some_copied():
    # pyarrow's concatenation keeps one data buffer per piece: long pieces are adopted,
    # short ones copied, and the parts cross from one kind into the other.
    pieces = [values(10 + k, 700, share) for k, share in enumerate([0.95, 0.05, 0.9, 0.0])]
    joined = pa.concat_arrays([fresh(p, pa.string_view()) for p in pieces])
    assert len(joined.buffers()) > 4
    one = same_at_one_and_two(joined, na_object=None)
    assert one[0] == "ok" and one[1][0] == sum(pieces, [])


def test_polars():
    pl = pytest.importorskip("polars")
    vals = values(3, 5000, 0.3)
    series = pl.Series(vals, dtype=pl.String)
    one = same_at_one_and_two(series, na_object=None)
    assert one[0] == "ok" and one[1][0] == vals


@pytest.mark.parametrize("size", [1 << 20, 2 << 20], ids=["1MiB", "2MiB"])
def test_long_copied_strings_fit_regions_or_go_one_thread(size):
    # The last 40 of 100 long strings: copied (they are less than half of the buffer up
    # to them), 10 to a part: 10 MiB regions, or 20 MiB, more than a region holds, which
    # the calling thread copies instead.
    rng = random.Random(4)
    vals = [long_string(rng, 64) * (size // 64) + str(i) for i in range(100)]
    source = fresh(vals, pa.large_string()).slice(60, 40)
    one = same_at_one_and_two(source)
    assert one[0] == "ok" and one[1][0] == vals[60:]
    assert one[1][1] >= 40 * size


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_long_adopted_strings_split_whatever_their_size(type_):
    # 40 strings of 2 MiB, read in place: 20 MiB a part, none of it copied.
    rng = random.Random(5)
    vals = [long_string(rng, 64) * (2 << 14) + str(i) for i in range(40)]
    source = fresh(vals, type_)
    one = same_at_one_and_two(source)
    assert one[0] == "ok" and one[1][0] == vals
    assert chunks_at(2, source) == len(source.buffers()) - 2


def bad_utf8(n, where, type_):
    raw = [v.encode() for v in values(5, n, 0.3, nulls=False)]
    raw[where] = raw[where][:3] + b"\xff" + raw[where][3:]
    offsets = np.cumsum([0] + [len(r) for r in raw]).astype(np.int64)
    source = pa.Array.from_buffers(
        pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(raw))]
    )
    return source.cast(type_, safe=False)


@pytest.mark.parametrize("type_", TYPES, ids=str)
@pytest.mark.parametrize("where", [0, 1999, 2000, 4999])
def test_the_first_bad_element_is_named_whatever_part_holds_it(type_, where):
    source = bad_utf8(5000, where, type_)
    base = pa.total_allocated_bytes()
    one = same_at_one_and_two(source)
    assert one[:2] == ("error", UnicodeDecodeError)
    assert f"element {where} " in one[2]
    assert pa.total_allocated_bytes() == base


@pytest.mark.parametrize("type_", TYPES, ids=str)
def test_a_missing_value_without_na_object_is_named(type_):
    vals = values(6, 5000, 0.3, nulls=False)
    vals[3333] = None
    one = same_at_one_and_two(fresh(vals, type_))
    assert one[0] == "error" and "3333" in one[2]


def test_a_bad_view_in_a_later_part_is_named():
    vals = values(7, 5000, 0.5, nulls=False)
    source = fresh(vals, pa.string_view())
    _, views, *data = source.buffers()
    raw = bytearray(views.to_pybytes())
    long_at = [i for i, v in enumerate(vals) if len(v.encode()) > 12]
    bad = long_at[-3]
    raw[bad * 16 + 8 : bad * 16 + 12] = (len(data) + 5).to_bytes(4, "little")
    forged = pa.Array.from_buffers(pa.string_view(), len(vals), [None, pa.py_buffer(raw), *data])
    one = same_at_one_and_two(forged)
    assert one[0] == "error" and f"{bad}" in one[2]


def test_parts_after_fork():
    out = run_isolated(
        f"""
import os, sys
import pyarrow as pa
from stringdtype import _core, from_arrow
_core._set_pool_threshold({THRESHOLD})
_core._set_pool_threads(2)
vals = [("x" * 20 + str(i)) if i % 3 else "é" for i in range(5000)]
source = pa.array(vals).slice(1)
assert from_arrow(source).tolist() == vals[1:]
pid = os.fork()
if pid == 0:
    ok = from_arrow(source).tolist() == vals[1:]
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), from_arrow(source).tolist() == vals[1:])
""",
        timeout=60,
    )
    assert out.split() == ["0", "True"]


def test_python_threads_importing_at_once_share_the_pool():
    # Imports in parts from several Python threads at once, some failing, against
    # the values and errors of one thread.
    _core._set_pool_threads(2)
    vals = values(9, 5000, 0.3)
    sources = {
        "string": fresh(vals, pa.string()),
        "view": fresh(vals, pa.string_view()),
        "pieces": pa.concat_arrays(
            [fresh(vals[:2500], pa.string_view()), fresh(vals[2500:], pa.string_view())]
        ),
        "bad": bad_utf8(5000, 4321, pa.string_view()),
    }
    calls = {
        name: (lambda s=s: error_or_result(lambda: from_arrow(s, na_object=None).tolist()))
        for name, s in sources.items()
    }

    def check(name, got):
        if name == "bad":
            return got[:2] == ("error", UnicodeDecodeError) and "element 4321 " in got[2]
        return got == ("ok", vals)

    assert call_from_threads(calls, check, threads=6, rounds=8) == []
