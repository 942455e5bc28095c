"""Memory accounting (``memory_usage``, ``memory_info``) and the arena's promises:
short strings take no arena space, overwriting stays bounded, copies compact."""

import os

import numpy as np
import pytest
from conftest import FLAVORS, package_only, random_strings, stringdtype, utf8_len

pytestmark = package_only

INFO_KEYS = {"views", "arena_capacity", "arena_used", "string_bytes", "chunks", "arena_shared"}
INLINE_LIMIT = 12


def info(arr):
    return stringdtype.memory_info(arr)


def long_bytes(values):
    """Bytes of the strings that do not fit in a view."""
    return sum(utf8_len(v) for v in values if isinstance(v, str) and utf8_len(v) > INLINE_LIMIT)


def check_consistent(arr):
    data = info(arr)
    assert set(data) == INFO_KEYS
    assert all(type(v) is int and v >= 0 for v in data.values()), data
    assert data["views"] == arr.nbytes
    assert data["string_bytes"] <= data["arena_used"] <= data["arena_capacity"]
    assert data["arena_shared"] <= data["arena_capacity"]
    assert (data["chunks"] == 0) == (data["arena_capacity"] == 0)
    assert stringdtype.memory_usage(arr) == data["views"] + data["arena_capacity"]
    return data


def test_memory_info_keys_and_usage(flavor, strings):
    arr = np.array(strings, dtype=flavor.dtype())
    data = check_consistent(arr)
    assert data["views"] == 16 * len(strings)
    assert data["string_bytes"] == long_bytes(strings)
    assert type(stringdtype.memory_usage(arr)) is int


@pytest.mark.parametrize("maker", ["empty", "zeros"])
def test_fresh_arrays_have_no_arena(flavor, maker):
    arr = getattr(np, maker)(1000, dtype=flavor.dtype())
    data = check_consistent(arr)
    assert data["arena_capacity"] == 0
    assert data["string_bytes"] == 0
    assert stringdtype.memory_usage(arr) == 16000


def test_short_strings_use_no_arena(flavor, rng):
    # Up to 12 UTF-8 bytes, including multi-byte characters that fill exactly 12 bytes.
    values = ["", "a", "exactly12byt", "éééééé", "中中中中", "😀😀😀", "a\x00b"]
    values += [v for v in random_strings(rng, 200) if utf8_len(v) <= INLINE_LIMIT]
    if flavor.has_na:
        values.append(flavor.na_object)
    arr = np.array(values, dtype=flavor.dtype())
    data = check_consistent(arr)
    assert data["arena_capacity"] == 0
    assert data["chunks"] == 0
    assert data["string_bytes"] == 0
    assert stringdtype.memory_usage(arr) == arr.nbytes


def test_thirteen_bytes_use_the_arena(flavor):
    arr = np.array(["exactly13byte", "中中中中a"], dtype=flavor.dtype())
    data = check_consistent(arr)
    assert data["string_bytes"] == 26
    assert data["arena_capacity"] >= 26


def test_string_bytes_follow_contents(flavor, rng):
    values = random_strings(rng, 300, flavor.na_object)
    arr = np.array(values, dtype=flavor.dtype())
    assert check_consistent(arr)["string_bytes"] == long_bytes(values)
    for i in range(0, 300, 3):
        values[i] = "short"
        arr[i] = "short"
    for i in range(1, 300, 7):
        values[i] = "é" * 50
        arr[i] = "é" * 50
    assert check_consistent(arr)["string_bytes"] == long_bytes(values)


# 10**6 assignments take about a second: run them for one flavor with and one without NA.
@pytest.mark.parametrize("flavor", [FLAVORS[0], FLAVORS[3]], ids=str)
def test_repeated_overwrite_of_one_element_is_bounded(flavor):
    first = "a" * 100
    second = "b" * 100
    arr = np.array(["start", "neighbour-that-stays-put"], dtype=flavor.dtype())
    for i in range(10**6):
        arr[0] = first if i % 2 else second
    data = check_consistent(arr)
    assert data["arena_capacity"] < 1_000_000
    assert data["string_bytes"] == 100 + len("neighbour-that-stays-put")
    assert arr.tolist() == [first, "neighbour-that-stays-put"]


def test_repeated_slice_overwrite_is_bounded(flavor, rng):
    batches = [[rng.choice("xyz") * rng.randint(13, 300) for _ in range(500)] for _ in range(2)]
    arr = np.empty(500, dtype=flavor.dtype())
    for i in range(200):
        arr[:] = batches[i % 2]
    live = long_bytes(batches[1])
    data = check_consistent(arr)
    assert data["string_bytes"] == live
    assert data["arena_capacity"] < 4 * live + 2**20


COPIES = {
    "copy": lambda a: a.copy(),
    "astype": lambda a: a.astype(a.dtype),
    "fancy": lambda a: a[np.arange(a.size)],
    "concatenate": lambda a: np.concatenate([a[:10], a[10:]]),
    "np_array": lambda a: np.array(a),
}


@pytest.mark.parametrize("op", COPIES)
def test_copy_compacts(flavor, op):
    n = 1000
    arr = np.array(["x" * 1000] * n, dtype=flavor.dtype())
    big = check_consistent(arr)["arena_capacity"]
    assert big >= 1000 * n
    arr[:] = "y" * 20
    needed = 20 * n
    copy = COPIES[op](arr)
    data = check_consistent(copy)
    assert copy.tolist() == ["y" * 20] * n
    assert data["string_bytes"] == needed
    assert data["arena_capacity"] <= 2 * needed + 2**16
    assert data["arena_capacity"] < big // 4


def test_copy_of_short_strings_has_no_arena(flavor):
    arr = np.array(["x" * 500] * 100, dtype=flavor.dtype())
    arr[:] = "short"
    assert check_consistent(arr.copy())["arena_capacity"] == 0


def test_views_share_the_base_arena(flavor):
    arr = np.array(["z" * 100] * 100, dtype=flavor.dtype())
    view = arr[::2]
    view[0] = "w" * 100
    assert arr[0] == "w" * 100
    assert check_consistent(arr)["string_bytes"] == 100 * 100


def vma_flags(address):
    """The ``VmFlags`` of the mapping of this process that holds ``address``."""
    flags, inside = None, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split(" ", 1)[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= address < end
            elif inside and head == "VmFlags:":
                flags = line.split()[1:]
    return flags


@pytest.mark.skipif(
    not os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled"),
    reason="transparent huge pages are a Linux feature",
)
def test_large_chunks_ask_for_huge_pages():
    """Chunks of 4 MiB or more are advised for transparent huge pages (as NumPy does for
    its large arrays), so that filling them takes one page fault per 2 MiB."""
    pa = pytest.importorskip("pyarrow")
    a = np.array(["x" * 1000] * 40_000, dtype=stringdtype.StringDType())
    buffers = pa.array(stringdtype.to_arrow(a)).buffers()
    largest = max((b for b in buffers[2:] if b is not None), key=lambda b: b.size)
    assert largest.size >= 8 * 2**20
    flags = vma_flags(largest.address + largest.size // 2)
    assert flags is not None and "hg" in flags, flags
