"""Bad input: a clear Python exception of the same type as NumPy's, and the array left
exactly as it was.  Nothing here may crash the interpreter."""

import os

import numpy as np
import pytest
from conftest import (
    NA_STRING,
    REFERENCE,
    StringDType,
    assert_same_list,
    both,
    package_only,
    random_strings,
    run_isolated,
)

SURROGATES = ["\ud800", "x" * 20 + "\udfff", "ok\udc80ok"]


class FailingStr:
    """An object whose conversion to str raises."""

    def __str__(self):
        raise RuntimeError("str() of this object fails")


class NonStrStr:
    def __str__(self):
        return 5  # noqa: PLE0307 - the point of this class


def raises_like_numpy(fn, expected):
    outcome = both(fn)
    assert outcome == ("raises", expected)


def snapshot(arr):
    return (arr.shape, repr(arr.dtype), arr.tolist())


def assert_unchanged(arr, before):
    assert snapshot(arr)[:2] == before[:2]
    assert_same_list(arr.tolist(), before[2])


@pytest.fixture
def target(flavor, rng):
    """A 6-element array with inline, long, non-ASCII and (if any) missing strings."""
    values = ["short", "a-long-string-over-twelve-bytes", "é中😀", "", "x" * 13]
    values.append(flavor.na_object if flavor.has_na else "last")
    return np.array(values, dtype=flavor.dtype())


# --- lone surrogates ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", SURROGATES, ids=repr)
def test_surrogate_on_creation(flavor, bad):
    with pytest.raises(UnicodeEncodeError):
        np.array(["fine", bad], dtype=flavor.dtype())
    raises_like_numpy(
        lambda cls: np.array(["fine", bad], dtype=flavor.dtype(cls)), UnicodeEncodeError
    )
    raises_like_numpy(
        lambda cls: np.array([["a", "b"], ["c", bad]], dtype=flavor.dtype(cls)), UnicodeEncodeError
    )
    raises_like_numpy(
        lambda cls: np.fromiter(["a", bad], dtype=flavor.dtype(cls)), UnicodeEncodeError
    )


@pytest.mark.parametrize("bad", SURROGATES, ids=repr)
def test_surrogate_from_unicode_array(flavor, bad):
    # NumPy reports an invalid code point in a 'U' array as TypeError.
    source = np.array(["fine", bad])
    raises_like_numpy(lambda cls: source.astype(flavor.dtype(cls)), TypeError)
    raises_like_numpy(lambda cls: np.full(2, bad, dtype=flavor.dtype(cls)), TypeError)


@pytest.mark.parametrize("bad", SURROGATES, ids=repr)
@pytest.mark.parametrize("index", [0, 1, -1])
def test_surrogate_on_setitem(target, bad, index):
    before = snapshot(target)
    with pytest.raises(UnicodeEncodeError):
        target[index] = bad
    assert_unchanged(target, before)


def test_surrogate_in_object_array_cast(flavor):
    source = np.array(["fine", "\ud800"], dtype=object)
    raises_like_numpy(lambda cls: source.astype(flavor.dtype(cls)), UnicodeEncodeError)


# --- non-strings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [1, 2.5, b"bytes", True, np.int64(3), object()],
    # Stable ids (no address), so that every run collects the same tests.
    ids=lambda v: type(v).__name__ if type(v) is object else repr(v),
)
def test_non_str_without_coerce(flavor, target, value):
    if flavor.coerce:
        pytest.skip("coercing flavor")
    raises_like_numpy(lambda cls: np.array(["a", value], dtype=flavor.dtype(cls)), ValueError)
    before = snapshot(target)
    with pytest.raises(ValueError):
        target[2] = value
    assert_unchanged(target, before)
    source = np.array(["a", value], dtype=object)
    raises_like_numpy(lambda cls: source.astype(flavor.dtype(cls)), ValueError)


def test_none_without_coerce_or_na():
    with pytest.raises(ValueError):
        np.array([None], dtype=StringDType(coerce=False))
    with pytest.raises(ValueError):
        np.array([None], dtype=StringDType(na_object=np.nan, coerce=False))
    assert np.array([None], dtype=StringDType(na_object=None, coerce=False)).tolist() == [None]


def test_failing_str_propagates(flavor, target):
    if not flavor.coerce:
        pytest.skip("without coerce the object is rejected before str() is called")
    coerce_flavor = flavor
    raises_like_numpy(
        lambda cls: np.array(["a", FailingStr()], dtype=coerce_flavor.dtype(cls)), RuntimeError
    )
    raises_like_numpy(
        lambda cls: np.array(["a", NonStrStr()], dtype=coerce_flavor.dtype(cls)), TypeError
    )
    before = snapshot(target)
    with pytest.raises(RuntimeError):
        target[1] = FailingStr()
    assert_unchanged(target, before)
    with pytest.raises(TypeError):
        target[0] = NonStrStr()
    assert_unchanged(target, before)


def test_mixed_na_objects():
    a = np.array(["a", None], dtype=StringDType(na_object=None))
    b = np.array(["b", np.nan], dtype=StringDType(na_object=np.nan))
    c = np.array(["c", NA_STRING], dtype=StringDType(na_object=NA_STRING))
    for left, right in [(a, b), (b, c), (a, c)]:
        with pytest.raises(TypeError):
            np.concatenate([left, right])
        with pytest.raises(TypeError):
            np.result_type(left.dtype, right.dtype)


# --- failed multi-element assignment --------------------------------------------------------
# NumPy writes the elements before the bad one; the package promises to leave the whole
# array untouched.  The single-element cases above hold for both.

FAILING_SOURCES = {
    "list_surrogate": lambda n: ["ok"] * (n - 1) + ["\ud800"],
    "list_failing_str": lambda n: ["ok-long-string-value"] * (n - 1) + [FailingStr()],
    "object_array_surrogate": lambda n: np.array(["ok"] * (n - 1) + ["\ud800"], dtype=object),
    "object_array_failing_str": lambda n: np.array(["ok"] * (n - 1) + [FailingStr()], object),
    "unicode_array_surrogate": lambda n: np.array(["ok"] * (n - 1) + ["\ud800"]),
}


# Known gaps, where NumPy hands the dtype a bulk assignment in pieces, so the elements
# before the bad one are already written, exactly as with NumPy's StringDType: a list
# assigned to a slice of its shape reaches it one element at a time (NumPy's
# PyArray_AssignFromCache calls setitem on the destination), and a masked assignment
# calls the cast once per run of selected elements. Arrays (object, U) assigned to
# slices go through one call of the package's casts, which convert everything before
# writing.
PARTIAL_REASON = "NumPy hands this assignment to the dtype in pieces"
PARTIAL_BULK_ASSIGNMENT = {
    (where, source)
    for where in ("full_slice", "step_slice")
    for source in FAILING_SOURCES
    if source.startswith("list_")
} | {("mask", s) for s in FAILING_SOURCES if not s.startswith("list_")}


@package_only
@pytest.mark.parametrize("source", FAILING_SOURCES)
@pytest.mark.parametrize("where", ["full_slice", "step_slice", "fancy", "mask"])
def test_failed_assignment_leaves_array_unchanged(request, target, source, where):
    if (where, source) in PARTIAL_BULK_ASSIGNMENT:
        request.applymarker(pytest.mark.xfail(strict=True, reason=PARTIAL_REASON))
    index = {
        "full_slice": slice(None),
        "step_slice": slice(None, None, 2),
        "fancy": [4, 0, 2],
        "mask": np.array([True, False, True, False, True, False]),
    }[where]
    count = len(target[index])
    before = snapshot(target)
    with pytest.raises((UnicodeEncodeError, RuntimeError, TypeError, ValueError)):
        target[index] = FAILING_SOURCES[source](count)
    assert_unchanged(target, before)


@package_only
@pytest.mark.xfail(strict=True, reason=PARTIAL_REASON)
def test_failed_assignment_without_coerce_leaves_array_unchanged(flavor, target):
    if flavor.coerce:
        pytest.skip("coercing flavor")
    before = snapshot(target)
    with pytest.raises(ValueError):
        target[:] = ["ok"] * 5 + [5]
    assert_unchanged(target, before)


@package_only
def test_failed_copyto_leaves_array_unchanged(target):
    before = snapshot(target)
    with pytest.raises(UnicodeEncodeError):
        np.copyto(target, np.array(["ok"] * 5 + ["\ud800"], dtype=object), casting="unsafe")
    assert_unchanged(target, before)


@package_only
def test_failed_cast_from_unicode_leaves_array_and_arena_unchanged(target):
    # The cast stores each string as it converts it, and releases them all on failure.
    from stringdtype import memory_info

    before, info = snapshot(target), memory_info(target)
    bad = np.array(["y" * 30] * 5 + ["z" * 20 + "\ud800"], dtype="U40")
    with pytest.raises(TypeError, match="Invalid unicode code point"):
        np.copyto(target, bad)
    assert_unchanged(target, before)
    assert memory_info(target)["string_bytes"] == info["string_bytes"]


INLINE_TARGETS = {
    # Elements of all zero bits, as in a new array: nothing of them is kept aside.
    "empty": lambda flavor: np.empty(6, dtype=flavor.dtype()),
    # Inline strings, missing values and zero bits mixed: each is kept and put back.
    "inline": lambda flavor: np.array(
        ["short", "", "é中😀", "x" * 12, flavor.na_object if flavor.has_na else "na", ""],
        dtype=flavor.dtype(),
    ),
}


@package_only
@pytest.mark.parametrize("kind", INLINE_TARGETS)
@pytest.mark.parametrize("where", ["full_slice", "step_slice", "reversed", "fancy"])
def test_failed_cast_into_inline_strings_leaves_array_and_arena_unchanged(flavor, kind, where):
    # A destination without long strings is written as each string converts; after a
    # failure the elements written are released and put back as they were.
    from stringdtype import memory_info

    target = INLINE_TARGETS[kind](flavor)
    index = {
        "full_slice": slice(None),
        "step_slice": slice(None, None, 2),
        "reversed": slice(None, None, -1),
        "fancy": [4, 0, 2, 5],
    }[where]
    count = len(target[index])
    before = snapshot(target)
    bad = np.array(["y" * 30, "é" * 3, "z" * 13][:count - 1] + ["z" * 20 + "\ud800"], dtype="U40")
    bad = np.concatenate([bad[:-1], ["w" * 16] * (count - len(bad)), bad[-1:]])
    with pytest.raises(TypeError, match="Invalid unicode code point"):
        target[index] = bad
    assert_unchanged(target, before)
    assert memory_info(target)["string_bytes"] == 0
    # The array takes long strings afterwards as before.
    target[index] = bad[:-1].tolist() + ["fine"]
    assert target[index].tolist() == bad[:-1].tolist() + ["fine"]


@package_only
@pytest.mark.parametrize("headroom", [150, 300, 700])
def test_a_cast_from_bytes_that_runs_out_of_memory_changes_nothing(headroom):
    # Elements of 100 MiB under an address-space limit `headroom` MiB above the process's:
    # with 150 and 300 the copy of the checked bytes cannot be allocated (an infallible
    # buffer once aborted the process there), with 700 the copy fits and the third
    # string's block does not (the first two were once written already). Arrays with and
    # without long strings are left as they were.
    out = run_isolated(
        f"""
        import resource
        from stringdtype import memory_info
        s = np.full(4, b"y" * (100 * 2**20), dtype="S%d" % (100 * 2**20))
        targets = {{"inline": ["keep", "", "é中", "q" * 12], "long": ["keep", "", "é中", "q" * 20]}}
        arrays = {{k: np.array(v, dtype=StringDType()) for k, v in targets.items()}}
        held = {{k: memory_info(a)["string_bytes"] for k, a in arrays.items()}}
        status = open("/proc/self/status").read()
        vm = int(status.split("VmSize:")[1].split()[0]) * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (vm + {headroom} * 2**20, hard))
        for kind, a in arrays.items():
            try:
                np.copyto(a, s, casting="unsafe")
            except MemoryError:
                print(kind, "MemoryError")
            assert a.tolist() == targets[kind], (kind, [x[:20] for x in a.tolist()])
            assert memory_info(a)["string_bytes"] == held[kind]
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        assert s[:1].astype(StringDType()).tolist() == ["y" * (100 * 2**20)]
        """,
        timeout=120,
    )
    assert out.split("\n")[:2] == ["inline MemoryError", "long MemoryError"]


def test_array_usable_after_errors(flavor, rng):
    values = random_strings(rng, 30, flavor.na_object)
    arr = np.array(values, dtype=flavor.dtype())
    for bad in SURROGATES:
        with pytest.raises(UnicodeEncodeError):
            arr[3] = bad
    arr[3] = "recovered-after-errors"
    values[3] = "recovered-after-errors"
    assert_same_list(arr.tolist(), values)
    assert_same_list(arr.copy().tolist(), values)


# --- the length limit ----------------------------------------------------------------------


@pytest.mark.skipif(
    os.environ.get("STRINGDTYPE_TEST_HUGE") != "1",
    reason="allocates more than 2 GiB; set STRINGDTYPE_TEST_HUGE=1",
)
@pytest.mark.skipif(REFERENCE, reason="NumPy has no 2**31 - 1 byte limit")
def test_string_over_length_limit():
    huge = "x" * 2**31
    arr = np.array(["small"], dtype=StringDType())
    with pytest.raises((ValueError, OverflowError, MemoryError)):
        arr[0] = huge
    assert arr.tolist() == ["small"]
    with pytest.raises((ValueError, OverflowError, MemoryError)):
        np.array([huge], dtype=StringDType())
