"""Copies and views: every copy owns its strings, every view sees its base's writes.

Each operation runs on a StringDType array and on an object array of the same strings;
the results must match.  Then the source is overwritten (with long and short strings)
and deleted: a copy must not change, a view must follow the writes.
"""

import copy

import numpy as np
import pytest
from conftest import (
    StringDType,
    assert_same_list,
    both,
    long_string,
    package_only,
    random_strings,
    run_isolated,
    stringdtype,
    utf8_len,
)

SHAPE = (6, 10)
MASK = np.arange(60).reshape(SHAPE) % 3 == 0
INDEX = [5, 0, 5, 2, -1]

# Operations that must return a new array that owns its strings.
COPY_OPS = {
    "copy_method": lambda a: a.copy(),
    "copy_copy": lambda a: copy.copy(a),
    "deepcopy": lambda a: copy.deepcopy(a),
    "np_copy": lambda a: np.copy(a),
    "np_array": lambda a: np.array(a),
    "fortran_copy": lambda a: a.copy(order="F"),
    "flatten": lambda a: a.flatten(),
    "ravel_noncontiguous": lambda a: a[:, ::2].ravel(),
    "reshape_noncontiguous": lambda a: a.T.reshape(-1),
    "fancy_rows": lambda a: a[INDEX],
    "fancy_2d": lambda a: a[[0, 3, 5], [9, 0, 4]],
    "boolean": lambda a: a[MASK],
    "take": lambda a: np.take(a, [7, 3, 3, 59, 0]),
    "take_axis": lambda a: np.take(a, [1, 1, 0], axis=1),
    "concatenate": lambda a: np.concatenate([a, a[::-1]]),
    "concatenate_axis1": lambda a: np.concatenate([a, a[:, :3]], axis=1),
    "stack": lambda a: np.stack([a, a]),
    "hstack": lambda a: np.hstack([a, a]),
    "vstack": lambda a: np.vstack([a[:2], a]),
    "where": lambda a: np.where(MASK, a, a[::-1]),
    "repeat": lambda a: np.repeat(a, 2, axis=0),
    "repeat_flat": lambda a: np.repeat(a, 3),
    "tile": lambda a: np.tile(a, (2, 1)),
    "roll": lambda a: np.roll(a, 7),
    "roll_axis": lambda a: np.roll(a, -2, axis=1),
    "compress": lambda a: np.compress([True, False, True, True, False, True], a, axis=0),
    "diagonal_copy": lambda a: np.diagonal(a).copy(),
    "extract": lambda a: np.extract(MASK, a),
    "delete": lambda a: np.delete(a, [0, 2], axis=0),
    "insert": lambda a: np.insert(a.ravel(), 3, a.ravel()[7]),
    "append": lambda a: np.append(a, a[0]),
    "pad": lambda a: np.pad(a, 1, mode="edge"),
    "astype_same": lambda a: a.astype(a.dtype),
}

# Operations that return a view: it shares the base's elements.
VIEW_OPS = {
    "basic_slice": lambda a: a[1:5, 2:8],
    "negative_step": lambda a: a[::-1, ::-2],
    "negative_step_1d": lambda a: a.ravel()[::-3],
    "reshape": lambda a: a.reshape(3, 20),
    "ravel": lambda a: a.ravel(),
    "transpose": lambda a: a.T,
    "swapaxes": lambda a: np.swapaxes(a, 0, 1),
    "flip": lambda a: np.flip(a),
    "flip_axis": lambda a: np.flip(a, axis=1),
    "view": lambda a: a.view(),
    "newaxis": lambda a: a[None, :, None],
    "squeeze": lambda a: a[:1].squeeze(),
    "moveaxis": lambda a: np.moveaxis(a[None], 0, -1),
    "ellipsis": lambda a: a[..., 3],
    "row": lambda a: a[2],
}


def make_source(flavor, rng):
    values = random_strings(rng, 60, flavor.na_object)
    arr = np.array(values, dtype=flavor.dtype()).reshape(SHAPE)
    obj = np.array(values, dtype=object).reshape(SHAPE)
    return arr, obj


def overwrite_all(arr, obj, tag):
    """Write new distinct strings (alternately long and short) into every element."""
    new = np.array(
        [f"{tag}{i}" + ("-padding-for-a-long-string" if i % 2 else "") for i in range(arr.size)],
        dtype=object,
    ).reshape(arr.shape)
    arr[...] = new
    obj[...] = new


@pytest.mark.parametrize("op", COPY_OPS)
def test_copy_owns_its_strings(flavor, rng, op):
    assert_copy_owns_its_strings(COPY_OPS[op], lambda: make_source(flavor, rng))


def assert_copy_owns_its_strings(func, make):
    """`func` of the array that `make` returns (with its object twin) is a copy of the
    same dtype holding what `func` of the twin holds, untouched by writes to the source
    and by its deletion, and writes to it leave the source as it was. Returns the copy
    and its object twin."""
    src, src_obj = make()
    result = func(src)
    expected = func(src_obj).tolist()
    assert type(result.dtype) is StringDType
    assert result.dtype == src.dtype
    assert not np.shares_memory(result, src)
    assert_same_list(result.tolist(), expected)

    overwrite_all(src, src_obj, "source")
    assert_same_list(result.tolist(), expected)
    result_obj = np.array(result.tolist(), dtype=object)
    overwrite_all(result, result_obj, "result")
    assert_same_list(src.tolist(), src_obj.tolist())

    del src  # the result must not depend on the source's lifetime
    assert_same_list(result.tolist(), result_obj.tolist())
    return result, result_obj


@pytest.mark.parametrize("op", COPY_OPS)
def test_copy_matches_numpy(flavor, rng, op):
    values = random_strings(rng, 60, flavor.na_object)
    both(lambda cls: COPY_OPS[op](np.array(values, dtype=flavor.dtype(cls)).reshape(SHAPE)))


@pytest.mark.parametrize("op", VIEW_OPS)
def test_view_sees_writes(flavor, rng, op):
    func = VIEW_OPS[op]
    src, src_obj = make_source(flavor, rng)
    view = func(src)
    assert np.shares_memory(view, src)
    assert view.dtype == src.dtype
    assert_same_list(view.tolist(), func(src_obj).tolist())

    overwrite_all(src, src_obj, "base")
    assert_same_list(view.tolist(), func(src_obj).tolist())

    view[...] = "written-through-the-view"
    func(src_obj)[...] = "written-through-the-view"
    assert_same_list(src.tolist(), src_obj.tolist())

    del src  # the result must not depend on the source's lifetime
    assert_same_list(view.tolist(), func(src_obj).tolist())


def test_view_of_view_then_write(flavor, rng):
    src, src_obj = make_source(flavor, rng)
    view = src[::-1][1:, ::3].T
    view[0, 0] = "new-long-value-in-a-view-of-a-view"
    src_obj[::-1][1:, ::3].T[0, 0] = "new-long-value-in-a-view-of-a-view"
    assert_same_list(src.tolist(), src_obj.tolist())


def test_fancy_assignment(flavor, rng):
    dst, dst_obj = make_source(flavor, rng)
    values = random_strings(rng, 5, flavor.na_object)
    src = np.array(values, dtype=flavor.dtype())
    dst[[0, 2, 4, 1, 5], [1, 1, 9, 0, 3]] = src
    dst_obj[[0, 2, 4, 1, 5], [1, 1, 9, 0, 3]] = np.array(values, dtype=object)
    assert_same_list(dst.tolist(), dst_obj.tolist())
    src[...] = "changed-after-assignment"
    assert_same_list(dst.tolist(), dst_obj.tolist())


def test_fancy_assignment_repeated_index(flavor, rng):
    dst, dst_obj = make_source(flavor, rng)
    dst.ravel()[[3, 3, 3]] = ["first-long-string-value", "second", "third-long-string-value"]
    assert dst.ravel()[3] == "third-long-string-value"
    dst_obj.ravel()[3] = "third-long-string-value"
    assert_same_list(dst.tolist(), dst_obj.tolist())


def test_boolean_assignment(flavor, rng):
    dst, dst_obj = make_source(flavor, rng)
    count = int(MASK.sum())
    values = random_strings(rng, count, flavor.na_object)
    src = np.array(values, dtype=flavor.dtype())
    dst[MASK] = src
    dst_obj[MASK] = np.array(values, dtype=object)
    assert_same_list(dst.tolist(), dst_obj.tolist())
    src[...] = "changed"
    assert_same_list(dst.tolist(), dst_obj.tolist())
    dst[~MASK] = "scalar-broadcast-long-string"
    dst_obj[~MASK] = "scalar-broadcast-long-string"
    assert_same_list(dst.tolist(), dst_obj.tolist())


@pytest.mark.parametrize("where", [None, "mask"])
def test_copyto(flavor, rng, where):
    dst, dst_obj = make_source(flavor, rng)
    src, src_obj = make_source(flavor, rng)
    kwargs = {} if where is None else {"where": MASK}
    np.copyto(dst, src, **kwargs)
    np.copyto(dst_obj, src_obj, **kwargs)
    assert_same_list(dst.tolist(), dst_obj.tolist())
    overwrite_all(src, src_obj, "after-copyto")
    assert_same_list(dst.tolist(), dst_obj.tolist())


def test_copyto_from_unicode_and_scalar(flavor):
    dst = np.empty(3, dtype=flavor.dtype())
    np.copyto(dst, np.array(["u1", "u2-long-long-long", "u3"]))
    assert dst.tolist() == ["u1", "u2-long-long-long", "u3"]
    np.copyto(dst, "scalar")
    assert dst.tolist() == ["scalar"] * 3


@pytest.mark.parametrize(
    "assign",
    [
        "shift_right",
        "shift_left",
        "reverse",
        "self",
        "rows_swap",
    ],
)
def test_overlapping_assignment(flavor, rng, assign):
    arr, obj = make_source(flavor, rng)
    for a in (arr, obj):
        flat = a.reshape(-1)
        if assign == "shift_right":
            flat[1:] = flat[:-1]
        elif assign == "shift_left":
            flat[:-1] = flat[1:]
        elif assign == "reverse":
            flat[...] = flat[::-1]
        elif assign == "self":
            a[...] = a
        elif assign == "rows_swap":
            a[[0, 1]] = a[[1, 0]]
    assert_same_list(arr.tolist(), obj.tolist())


def test_element_copied_within_array_is_independent(flavor):
    arr = np.array(["a" * 30, "b"], dtype=flavor.dtype())
    arr[1] = arr[0]
    arr[0] = "c" * 40
    assert arr.tolist() == ["c" * 40, "a" * 30]


def test_copy_keeps_dtype_parameters(flavor, rng):
    src, _ = make_source(flavor, rng)
    for func in COPY_OPS.values():
        result = func(src)
        assert str(result.dtype) == str(flavor.ref())


def test_concatenate_different_flavors_promotes():
    a = np.array(["a", None], dtype=StringDType(na_object=None))
    b = np.array(["b" * 20], dtype=StringDType())
    result = np.concatenate([a, b])
    assert result.dtype == StringDType(na_object=None)
    assert result.tolist() == ["a", None, "b" * 20]


def test_concatenate_with_unicode():
    a = np.array(["a", "b" * 20], dtype=StringDType())
    result = np.concatenate([a, np.array(["unicode"])])
    assert type(result.dtype) is StringDType
    assert result.tolist() == ["a", "b" * 20, "unicode"]


# ---------------------------------------------------------------------------------------
# Copies of whole large arrays share the full arena chunks of their source instead of
# copying the bytes; they must behave as every other copy.

LARGE_COPY_OPS = {
    "copy_method": lambda a: a.copy(),
    "deepcopy": lambda a: copy.deepcopy(a),
    "np_array": lambda a: np.array(a),
    "fortran_copy": lambda a: a.copy(order="F"),
    "flatten": lambda a: a.flatten(),
    "astype_same": lambda a: a.astype(a.dtype),
    # The first input shared, the second copied into the same new arena.
    "concatenate": lambda a: np.concatenate([a, a[::-1]]),
    "tile": lambda a: np.tile(a, (2, 1)),
    # Half of the strings: copied, not shared.
    "ravel_noncontiguous": lambda a: a[:, ::2].ravel(),
}


def make_large_source(flavor, rng, n=3000):
    """Every kind of string, and enough long ones (13-400 bytes) to fill arena chunks."""
    values = random_strings(rng, n // 2, flavor.na_object)
    values += [long_string(rng, rng.randint(13, 399)) for _ in range(n - n // 2)]
    rng.shuffle(values)
    arr = np.array(values, dtype=flavor.dtype()).reshape(-1, 10)
    return arr, np.array(values, dtype=object).reshape(-1, 10)


@pytest.mark.parametrize("op", LARGE_COPY_OPS)
def test_large_copy_owns_its_strings(flavor, rng, op):
    make = lambda: make_large_source(flavor, rng)
    result, result_obj = assert_copy_owns_its_strings(LARGE_COPY_OPS[op], make)
    # With the source gone, the copy reuses the blocks it gave back.
    for round_ in range(3):
        overwrite_all(result, result_obj, f"again{round_}")
    assert_same_list(result.tolist(), result_obj.tolist())


@pytest.mark.parametrize("func", [np.sort, np.unique], ids=["sort", "unique"])
def test_large_sorted_copies_match_numpy(flavor, rng, func, request):
    if func is np.unique and isinstance(flavor.na_object, float):
        reason = (
            "NumPy answers np.unique of its own StringDType from a hash table, which keeps "
            "one NaN-like missing value; a user dtype's goes through sorting, where each "
            "missing value stays (NaN != NaN, tests/test_missing_comparisons.py)"
        )
        request.applymarker(pytest.mark.xfail(reason=reason))
    values = make_large_source(flavor, rng)[1].ravel().tolist()
    both(lambda cls: func(np.array(values, dtype=flavor.dtype(cls))))


@package_only
def test_large_copy_shares_the_chunks_of_its_source(rng):
    pa = pytest.importorskip("pyarrow")
    values = [long_string(rng, rng.randint(13, 399)) for _ in range(3000)]
    src = np.array(values, dtype=StringDType())
    result = src.copy()

    def data_buffers(arr):
        return {b.address for b in pa.array(stringdtype.to_arrow(arr)).buffers()[2:]}

    assert data_buffers(src) & data_buffers(result), "no chunk shared"
    info = stringdtype.memory_info(result)
    assert info["string_bytes"] == stringdtype.memory_info(src)["string_bytes"]
    assert info["arena_capacity"] <= 2 * info["string_bytes"]
    # A copy of a part of it copies the bytes it needs, as before.
    part = src[:100].copy()
    assert not data_buffers(src) & data_buffers(part)
    assert stringdtype.memory_info(part)["arena_capacity"] < info["arena_capacity"] // 4


@package_only
def test_memory_info_counts_the_chunks_a_copy_or_an_export_shares(rng):
    """``arena_shared``: the bytes of ``arena_capacity`` in chunks that another array or
    an Arrow export holds too; they are no longer shared once that holder is gone."""
    pa = pytest.importorskip("pyarrow")
    values = [long_string(rng, rng.randint(13, 399)) for _ in range(3000)]
    src = np.array(values, dtype=StringDType())
    assert stringdtype.memory_info(src)["arena_shared"] == 0
    result = src.copy()
    shared = stringdtype.memory_info(result)["arena_shared"]
    assert 0 < shared <= stringdtype.memory_info(result)["arena_capacity"]
    assert stringdtype.memory_info(src)["arena_shared"] >= shared
    del src
    assert stringdtype.memory_info(result)["arena_shared"] == 0
    exported = pa.array(stringdtype.to_arrow(result))
    assert stringdtype.memory_info(result)["arena_shared"] > 0
    assert exported.to_pylist() == values
    del exported
    assert stringdtype.memory_info(result)["arena_shared"] == 0
    # A copy of a few strings copies them: nothing shared.
    part = result[:10].copy()
    assert stringdtype.memory_info(part)["arena_shared"] == 0


@package_only
def test_copies_of_copies_stay_independent(rng):
    """Random writes, sorts, copies (of copies) and deletions over arrays that share
    chunks, each checked against a list that models it, and the live long-string bytes
    of each against its model."""
    pool = [long_string(rng, rng.randint(13, 300)) for _ in range(200)]
    pool += ["", "short", "x" * 12, "\x00" * 13]
    models = [[rng.choice(pool) for _ in range(2000)]]
    arrays = [np.array(models[0], dtype=StringDType())]
    for step in range(300):
        k = rng.randrange(len(arrays))
        action = rng.choice(["copy", "copy", "write", "slice", "sort", "drop"])
        if action == "copy":
            arrays.append(arrays[k].copy())
            models.append(list(models[k]))
        elif action == "write":
            for _ in range(50):
                i = rng.randrange(2000)
                arrays[k][i] = models[k][i] = rng.choice(pool)
        elif action == "slice":
            start = rng.randrange(2000)
            new = [rng.choice(pool) for _ in range(2000 - start)]
            arrays[k][start:] = new
            models[k][start:] = new
        elif action == "sort":
            arrays[k].sort()
            models[k].sort()
        elif len(arrays) > 1:
            del arrays[k], models[k]
        if step % 25 == 0 or step == 299:
            for arr, model in zip(arrays, models):
                assert arr.tolist() == model
                long_bytes = sum(n for n in map(utf8_len, model) if n > 12)
                assert stringdtype.memory_info(arr)["string_bytes"] == long_bytes


# Copies into a fresh array that do not share chunks (mostly inline strings, as the
# pandas column's results hold) gather the elements that need an arena a few at a time:
# runs of long strings shorter and longer than a gather, and every kind of string.
def mostly_inline(rng, n, na_object, pattern):
    values = random_strings(rng, n, na_object)
    if pattern == "runs":
        i = 0
        while i < n:
            run = rng.randrange(0, 40)
            for j in range(i, min(n, i + run)):
                values[j] = long_string(rng, rng.choice([13, 14, 16, 40, 300]))
            i += run + rng.randrange(0, 20)
    elif pattern == "all_long":
        values = [long_string(rng, rng.randint(13, 60)) for _ in range(n)]
    elif pattern == "twelve_thirteen":
        kinds = ["x" * 12, "y" * 13, "é" * 6, "é" * 6 + "z", "\x00" * 13]
        values = [rng.choice(kinds) for _ in range(n)]
    return values


SOURCES = {
    "contiguous": lambda a: a,
    "strided": lambda a: a[::3],
    "reversed": lambda a: a[::-1],
    "2d": lambda a: a[: len(a) // 10 * 10].reshape(-1, 10),
    "2d_transposed": lambda a: a[: len(a) // 10 * 10].reshape(-1, 10).T,
}


@pytest.mark.parametrize("n", [2, 16, 17, 1000])
@pytest.mark.parametrize("pattern", ["random", "runs", "all_long", "twelve_thirteen"])
@pytest.mark.parametrize("source", SOURCES)
def test_copies_of_mixes_own_their_strings(flavor, rng, n, pattern, source):
    values = mostly_inline(rng, n, flavor.na_object, pattern)
    base = np.array(values, dtype=flavor.dtype())
    src = SOURCES[source](base)
    expected = SOURCES[source](np.array(values, dtype=object))
    copied = src.copy()
    assert copied.shape == expected.shape
    assert_same_list(copied.ravel().tolist(), expected.ravel().tolist())
    # Writes to either side stay on that side; the copy outlives its source.
    copied.flat[::2] = "written into the copy, long enough"
    base[1::2] = "written into the source, long enough"
    expected_copy = expected.copy()
    expected_copy.flat[::2] = "written into the copy, long enough"
    assert_same_list(copied.ravel().tolist(), expected_copy.ravel().tolist())
    del base, src
    assert_same_list(copied.ravel().tolist(), expected_copy.ravel().tolist())


@pytest.mark.parametrize("pattern", ["random", "runs"])
def test_copies_between_missing_values_match_numpy(rng, pattern):
    """Into a dtype without the source's missing value, a missing value becomes text."""
    values = mostly_inline(rng, 500, None, pattern)

    def cast(cls):
        a = np.array(values, dtype=cls(na_object=None))
        return a[::-1].astype(cls()).tolist()

    both(cast)


@package_only
def test_a_copy_written_in_part_dies_cleanly(rng):
    values = mostly_inline(rng, 3000, None, "runs")
    src = np.array(values, dtype=StringDType(na_object=None))
    for _ in range(3):
        copied = src.copy()
        copied[::7] = "replaced by a long string in the copy"
        copied[3::11] = "short"
        copied[5] = None
        assert copied[7] == "replaced by a long string in the copy"
        del copied
    assert src.tolist() == values
    info = stringdtype.memory_info(src)
    long_bytes = sum(utf8_len(v) for v in values if v is not None and utf8_len(v) > 12)
    assert info["string_bytes"] == long_bytes


@package_only
def test_a_copy_of_a_forged_element_fails_without_crashing():
    """An element that names no string of its arena stops the copy with an error; the
    destination, freed right after, holds no view of the source's arena."""
    out = run_isolated(
        """
        import ctypes, gc
        # 15-byte strings, too few bytes for the copy to share chunks.
        values = ['long string %03d' % i if i % 3 else 'short' for i in range(100)]
        a = np.array(values, dtype=StringDType())
        bogus = (40).to_bytes(4, 'little') + b'abcd' + (123456789).to_bytes(8, 'little')
        ctypes.memmove(a.ctypes.data + 16 * 50, bogus, 16)
        for _ in range(3):
            try:
                a.copy()
            except Exception as exc:
                kind = type(exc).__name__
            else:
                kind = 'no error'
            gc.collect()
        values[50] = a[49]
        b = a[:50].copy()
        assert b.tolist() == values[:50]
        print(kind)
        """
    )
    assert out.strip() == "ValueError"
