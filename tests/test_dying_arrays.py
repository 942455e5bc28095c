"""Arrays that die: NumPy clears every element of an array before freeing it, and the
arena then frees its chunks at once when the elements hold all its strings
(``Arena::release_all``), or releases them one by one otherwise (a part of the array,
strings out of order, elements forged from raw bytes). Whichever way, what is left
alive reads right and counts right, and nothing crashes."""

import gc

import numpy as np
import pytest
from conftest import (
    NUMPY_RELEASE,
    StringDType,
    assert_same_list,
    call_from_threads,
    expected_strings,
    long_string,
    package_only,
    random_strings,
    run_isolated,
    stringdtype,
    utf8_len,
)

pytestmark = package_only

# `ndarray.resize` clears the elements it cuts off from NumPy 2.3 on (numpy#29970); NumPy
# 2.2 leaves their strings in the arena until the array dies.
RESIZE_CLEARS = NUMPY_RELEASE >= (2, 3)
needs_resize_clearing = pytest.mark.skipif(
    not RESIZE_CLEARS, reason="this NumPy's resize does not clear the elements it cuts off"
)


def long_bytes(values):
    return sum(utf8_len(v) for v in values if isinstance(v, str) and utf8_len(v) > 12)


def mixed(rng, n, na_object):
    """Short, long and missing strings (a third long), as the pandas rows hold."""
    values = random_strings(rng, n, na_object)
    for i in range(0, n, 3):
        values[i] = long_string(rng, 13 + i % 60)
    return values


def test_views_outlive_their_dead_base(flavor, rng):
    values = mixed(rng, 300, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    every_other, reshaped = a[1::2], a.reshape(3, 100)
    del a
    gc.collect()
    assert_same_list(every_other.tolist(), expected_strings(values[1::2], flavor))
    assert_same_list(reshaped.ravel().tolist(), expected_strings(values, flavor))


def test_a_copy_counts_the_same_after_the_original_dies(flavor, rng):
    values = mixed(rng, 2000, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    b = a.copy()
    before = stringdtype.memory_info(b)
    assert before["string_bytes"] == long_bytes(values)
    del a
    gc.collect()
    after = stringdtype.memory_info(b)
    # Only the chunks it shared with the original are no longer shared.
    assert after["arena_shared"] == 0
    assert after == {**before, "arena_shared": 0}
    assert_same_list(b.tolist(), expected_strings(values, flavor))


@pytest.mark.parametrize("width", [20, 200])
def test_copies_of_copies_each_dying_in_turn(flavor, rng, width):
    # Strings of 20 bytes are copied; of 200, the copies share the source's chunks.
    missing = flavor.na_object if flavor.has_na else ""
    values = [missing if i % 10 == 0 else long_string(rng, width + i % 7) for i in range(3000)]
    current = np.array(values, dtype=flavor.dtype())
    for _ in range(6):
        current = current.copy()
        gc.collect()
        info = stringdtype.memory_info(current)
        assert info["string_bytes"] == long_bytes(values)
    assert_same_list(current.tolist(), expected_strings(values, flavor))


def test_a_sorted_copy_and_its_source_die_in_any_order(flavor, rng):
    values = mixed(rng, 1500, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    b = a.copy()
    b[::-1] = a  # b's strings are now in the reverse order of their blocks
    c = b[::-1].copy()
    del a, b
    gc.collect()
    assert_same_list(c.tolist(), expected_strings(values, flavor))


def test_a_shrunk_array_keeps_its_other_strings(flavor, rng):
    values = mixed(rng, 900, flavor.na_object)
    a = np.array(values, dtype=flavor.dtype())
    a.resize(400, refcheck=False)  # NumPy 2.3 on clears the 500 elements cut off
    assert_same_list(a.tolist(), expected_strings(values[:400], flavor))
    if RESIZE_CLEARS:
        assert stringdtype.memory_info(a)["string_bytes"] == long_bytes(values[:400])
    a[0] = "a new string longer than twelve"
    assert a[0] == "a new string longer than twelve"


def test_arrays_of_imported_strings_die_cleanly(rng):
    pa = pytest.importorskip("pyarrow")
    values = mixed(rng, 1000, None)
    a = stringdtype.from_arrow(pa.array(values, type=pa.string()), na_object=None)
    b = a.copy()
    del a
    gc.collect()
    assert b.tolist() == values


def test_arrays_dying_in_threads():
    values = [f"x{i}" + "y" * (i % 40) for i in range(20_000)]
    shared = np.array(values, dtype=StringDType(na_object=None))

    def churn():
        for _ in range(5):
            b = shared.copy()
            c = np.strings.strip(b)
            del b
            d = c[::2].copy()
            del c
        return d.tolist()

    failures = call_from_threads(
        {"churn": churn}, lambda _, result: result == values[::2], threads=4, rounds=3
    )
    assert failures == []
    assert shared.tolist() == values


def test_forged_elements_in_a_dying_array_never_crash():
    out = run_isolated(
        """
        import ctypes, gc
        a = np.array(['string number %03d, long enough' % i for i in range(200)],
                     dtype=StringDType())
        raw = lambda i: ctypes.string_at(a.ctypes.data + 16 * i, 16)
        put = lambda i, b: ctypes.memmove(a.ctypes.data + 16 * i, b, 16)
        put(5, raw(4))          # one string twice, another one nowhere
        keep = a[150:].copy()
        b = a.copy()
        del a
        gc.collect()
        c = np.array(['fresh string, long enough %d' % i for i in range(300)],
                     dtype=StringDType())
        assert b[4] == b[5] == 'string number 004, long enough'
        assert keep[0] == 'string number 150, long enough'
        del b
        gc.collect()
        assert c[299] == 'fresh string, long enough 299'
        print('ok')
        """
    )
    assert out.strip() == "ok"


def cleared_whole(arr):
    """Clears every element, as NumPy does when the array dies, and keeps the array."""
    arr.resize(0, refcheck=False)
    return stringdtype.memory_info(arr)


@needs_resize_clearing
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda a: a.copy(), id="copy"),
        pytest.param(lambda a: a.copy().copy(), id="copy-of-copy"),
        pytest.param(lambda a: stringdtype.strings.strip(a), id="strip"),
        pytest.param(lambda a: a.take(np.arange(len(a))[::-3]), id="take"),
        pytest.param(
            lambda a: np.array(["y" * 200 + str(i) for i in range(3000)], dtype=a.dtype).copy(),
            id="shared-copy",
        ),
    ],
)
def test_an_array_cleared_whole_gives_its_chunks_back(rng, make):
    values = mixed(rng, 3000, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    info = cleared_whole(make(a))
    assert (info["arena_capacity"], info["string_bytes"], info["chunks"]) == (0, 0, 0)
    assert a.tolist() == values  # the source, whose chunks a copy may have shared


@needs_resize_clearing
def test_an_array_permuted_in_place_is_released_string_by_string(rng):
    values = mixed(rng, 3000, None)
    a = np.array(values, dtype=StringDType(na_object=None))
    a[::-1] = a.copy()
    info = cleared_whole(a)
    assert (info["string_bytes"], info["arena_used"]) == (0, 0)
    assert info["arena_capacity"] > 0  # the free blocks stay for the next strings
