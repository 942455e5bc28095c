"""Reading and writing single elements, tolist, iteration, repr/str/print of arrays."""

import numpy as np
import pytest
from conftest import (
    KINDS,
    REFERENCE,
    REPR_PREFIX,
    NumpyStringDType,
    StringDType,
    as_numpys_repr,
    assert_plain_str_or_na,
    assert_same_list,
    both,
    is_nan,
    normalize,
    package_only,
    random_string,
    random_strings,
    stringdtype,
)


def same_element(actual, expected):
    return normalize(actual) == normalize(expected) and type(actual) is type(expected)


def test_getitem_returns_plain_str(flavor, strings):
    arr = np.array(strings, dtype=flavor.dtype())
    for i, expected in enumerate(strings):
        assert same_element(arr[i], expected), (i, arr[i], expected)
        assert same_element(arr[i - len(strings)], expected)
        assert same_element(arr.item(i), expected)
        assert same_element(arr.flat[i], expected)


def test_getitem_na_is_the_na_object(na_flavor):
    arr = np.array(["a", na_flavor.na_object], dtype=na_flavor.dtype())
    if na_flavor.na_is_nan:
        assert is_nan(arr[1])
    else:
        assert arr[1] is na_flavor.na_object


def test_getitem_2d(flavor, rng):
    values = random_strings(rng, 12, flavor.na_object)
    arr = np.array(values, dtype=flavor.dtype()).reshape(3, 4)
    obj = np.array(values, dtype=object).reshape(3, 4)
    for i in range(3):
        for j in range(4):
            assert same_element(arr[i, j], obj[i, j])
        row = arr[i]
        assert isinstance(row, np.ndarray)
        assert row.dtype == arr.dtype
        assert_same_list(row.tolist(), obj[i].tolist())


def test_getitem_out_of_range(flavor):
    arr = np.array(["a", "b"], dtype=flavor.dtype())
    with pytest.raises(IndexError):
        arr[2]
    with pytest.raises(IndexError):
        arr[-3]


@pytest.mark.parametrize("kind", KINDS)
def test_setitem_each_kind(flavor, rng, kind):
    if kind == "na" and not flavor.has_na:
        pytest.skip("no na_object")
    arr = np.array(["initial", "neighbour-that-is-long-enough"], dtype=flavor.dtype())
    for _ in range(5):
        value = random_string(rng, kind, flavor.na_object)
        arr[0] = value
        assert same_element(arr[0], value)
        assert arr[1] == "neighbour-that-is-long-enough"


def test_setitem_all_then_read(flavor, strings):
    arr = np.empty(len(strings), dtype=flavor.dtype())
    for i, s in enumerate(strings):
        arr[i] = s
    assert_same_list(arr.tolist(), strings)
    # Overwrite every element with the reversed list (long over short and back).
    for i, s in enumerate(reversed(strings)):
        arr[i] = s
    assert_same_list(arr.tolist(), strings[::-1])
    assert_plain_str_or_na(arr, flavor)


@pytest.mark.parametrize(
    "value",
    [5, -2.5, True, b"bytes", np.int8(7), np.float64(0.25), 1j, None, np.nan],
    ids=repr,
)
def test_setitem_non_str(flavor, value):
    def assign(cls):
        arr = np.array(["x", "y" * 20], dtype=flavor.dtype(cls))
        arr[0] = value
        return arr

    result = both(assign)
    is_na = flavor.has_na and (value is flavor.na_object or (flavor.na_is_nan and is_nan(value)))
    if is_na:
        assert result[0] == "ok"
        assert result[1][3][0] == normalize(flavor.na_object)
    elif flavor.coerce:
        expected = value.decode() if isinstance(value, bytes) else str(value)
        assert result == ("ok", ("array", str(flavor.ref()), (2,), [expected, "y" * 20]))
    else:
        assert result == ("raises", ValueError)


def test_setitem_str_subclass(flavor):
    arr = np.array(["x"], dtype=flavor.dtype())
    arr[0] = np.str_("numpy-str-scalar-long")
    assert arr[0] == "numpy-str-scalar-long"
    assert type(arr[0]) is str


def test_setitem_broadcast_and_slices(flavor):
    arr = np.array(["a", "b", "c", "d", "e"], dtype=flavor.dtype())
    arr[1:4] = "long-string-over-twelve-bytes"
    assert arr.tolist() == ["a"] + ["long-string-over-twelve-bytes"] * 3 + ["e"]
    arr[::2] = ["x", "y" * 13, "z"]
    assert arr.tolist() == [
        "x",
        "long-string-over-twelve-bytes",
        "y" * 13,
        "long-string-over-twelve-bytes",
        "z",
    ]
    arr[...] = "é"
    assert arr.tolist() == ["é"] * 5
    arr[:] = np.array(["1", "22", "333", "4444", "55555"], dtype="U")
    assert arr.tolist() == ["1", "22", "333", "4444", "55555"]


def test_setitem_from_other_string_array(flavor, strings):
    src = np.array(strings, dtype=flavor.dtype())
    dst = np.empty(len(strings), dtype=flavor.dtype())
    dst[:] = src
    assert_same_list(dst.tolist(), strings)
    src[:] = "changed"
    assert_same_list(dst.tolist(), strings)


def test_tolist(flavor, rng):
    values = random_strings(rng, 24, flavor.na_object)
    arr = np.array(values, dtype=flavor.dtype()).reshape(2, 3, 4)
    expected = np.array(values, dtype=object).reshape(2, 3, 4).tolist()
    assert_same_list(arr.tolist(), expected)
    assert_plain_str_or_na(arr, flavor)
    assert arr[1, 2].tolist() == arr.tolist()[1][2]


def test_iteration(flavor, strings):
    arr = np.array(strings, dtype=flavor.dtype())
    items = list(arr)
    assert len(items) == len(strings)
    for got, expected in zip(items, strings):
        assert same_element(got, expected)
    rows = list(arr.reshape(6, 10))
    assert [row.shape for row in rows] == [(10,)] * 6
    assert all(row.dtype == arr.dtype for row in rows)
    assert_same_list([v for row in rows for v in row], strings)
    assert_same_list([v for _, v in np.ndenumerate(arr)], strings)
    assert_same_list(list(arr.flat), strings)


REPR_CASES = {
    "simple": [["a", "bb", "é"]],
    "long": [["x" * 50, "short", "y" * 13]],
    "nul": [["a\x00b", "\x00", "quote'", 'dq"']],
    "empty": [[]],
    "2d": [[["a", "b" * 20], ["c", ""]]],
    "many": [[f"item{i}" for i in range(2000)]],
}


@pytest.mark.parametrize("case", REPR_CASES)
def test_repr_and_str_equal_numpys(flavor, case):
    (values,) = REPR_CASES[case]
    ours = np.array(values, dtype=flavor.dtype())
    numpys = np.array(values, dtype=flavor.ref())
    assert as_numpys_repr(repr(ours)) == as_numpys_repr(repr(numpys))
    assert str(ours) == str(numpys)
    assert np.array2string(ours) == np.array2string(numpys)
    assert repr(ours).endswith(f"dtype={flavor.dtype()!r})")


def test_repr_with_na(na_flavor, rng):
    values = random_strings(rng, 12, na_flavor.na_object)
    ours = np.array(values, dtype=na_flavor.dtype())
    numpys = np.array(values, dtype=na_flavor.ref())
    assert as_numpys_repr(repr(ours)) == as_numpys_repr(repr(numpys))
    assert str(ours) == str(numpys)


def test_repr_random(flavor, strings):
    ours = np.array(strings, dtype=flavor.dtype())
    numpys = np.array(strings, dtype=flavor.ref())
    assert as_numpys_repr(repr(ours)) == as_numpys_repr(repr(numpys))
    assert as_numpys_repr(repr(ours.reshape(3, 4, 5))) == as_numpys_repr(
        repr(numpys.reshape(3, 4, 5))
    )


def test_repr_zero_dim():
    ours = np.array("zero-dimensional-string", dtype=StringDType())
    numpys = np.array("zero-dimensional-string", dtype=NumpyStringDType())
    assert repr(numpys) == "array('zero-dimensional-string', dtype=StringDType())"
    assert repr(ours) == f"array('zero-dimensional-string', dtype={REPR_PREFIX}StringDType())"


def test_repr_exact():
    arr = np.array(["a", None, "b" * 13], dtype=StringDType(na_object=None))
    expected = "array(['a', None, 'bbbbbbbbbbbbb'], dtype=StringDType(na_object=None))"
    assert as_numpys_repr(repr(arr)) == expected
    if not REFERENCE:
        # The longer name moves the dtype to a line of its own, as NumPy wraps reprs.
        assert repr(arr) == (
            "array(['a', None, 'bbbbbbbbbbbbb'],\n"
            "      dtype=stringdtype.StringDType(na_object=None))"
        )
    assert str(arr) == "['a' None 'bbbbbbbbbbbbb']"


def test_print(flavor, capsys):
    values = ["one", "two-which-is-long", "three"]
    print(np.array(values, dtype=flavor.dtype()))
    ours = capsys.readouterr().out
    print(np.array(values, dtype=flavor.ref()))
    numpys = capsys.readouterr().out
    assert ours == numpys == "['one' 'two-which-is-long' 'three']\n"


def test_0d_setitem(flavor):
    arr = np.array("first", dtype=flavor.dtype())
    arr[()] = "second-value-long-enough"
    assert arr[()] == "second-value-long-enough"
    arr[...] = "third"
    assert arr.item() == "third"
    both(lambda cls: np.array("x", dtype=flavor.dtype(cls))[()])


@package_only
@pytest.mark.parametrize("old", ["", "twelve bytes", "thirteen byte", "a long string " * 4, "na"])
@pytest.mark.parametrize("new", ["", "twelve bytes", "thirteen byte", "ünï", "na"])
def test_setitem_over_every_kind_releases_what_it_replaces(flavor, old, new):
    """An inline string or missing value is written without the arena when the element
    names no block; over a long string it goes through the arena, which frees the old
    string: the arena's live string bytes always match the array's long strings."""
    if "na" in (old, new) and not flavor.has_na:
        pytest.skip("no na_object")
    as_value = {"na": flavor.na_object}.get
    old, new = as_value(old, old), as_value(new, new)
    arr = np.array([old, "neighbour that is long enough", old], dtype=flavor.dtype())
    arr[0] = new
    arr[2:] = np.array([new], dtype=object)
    for element, value in zip(arr.tolist(), [new, "neighbour that is long enough", new]):
        assert same_element(element, value)
    longs = [new, "neighbour that is long enough", new]
    expected = sum(len(v.encode()) for v in longs if isinstance(v, str) and len(v.encode()) > 12)
    assert stringdtype.memory_info(arr)["string_bytes"] == expected
