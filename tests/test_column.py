"""The whole-array functions behind the pandas column: ``_core._factorize`` (behind
``factorize``, ``unique`` and ``value_counts``), whose codes and distinct strings equal
pandas' ``factorize`` of the same strings as Python objects (order of first appearance,
-1 for a missing value), and ``_core._take`` (behind ``take``), ``array[i]`` for each
index, -1 a missing value."""

import numpy as np
import pytest
from conftest import REFERENCE, random_strings

if REFERENCE:
    pytest.skip("tests a function of this package's own", allow_module_level=True)

pd = pytest.importorskip("pandas")

from strings_support import is_na

import stringdtype
from stringdtype import _core

StringDType = stringdtype.StringDType


def expected(values, flavor=None):
    """The codes and distinct strings in order of first appearance (a Python model),
    checked against pandas' factorize where no value is missing and none holds a NUL
    (pandas 2 compares object strings as C strings, so "a\x00b" and "a" are one value
    there; pandas 3 tells them apart)."""
    missing = [flavor is not None and is_na(v, flavor) for v in values]
    first = {}
    codes = [-1 if m else first.setdefault(v, len(first)) for v, m in zip(values, missing)]
    if not any(missing) and not any("\x00" in v for v in values):
        pandas_codes, pandas_uniques = pd.factorize(np.array(values, dtype=object))
        assert pandas_codes.tolist() == codes and list(pandas_uniques) == list(first)
    return np.array(codes, dtype=np.int64), list(first)


def test_against_pandas(flavor, rng):
    base = random_strings(rng, 80, flavor.na_object)
    # Repeats, and the edges of the inline form: 12 and 13 bytes, non-ASCII, NULs.
    extra = ["abcdefghijkl", "abcdefghijklm", "ßßßßßß", "ßßßßßßa", "a\x00b", "\x00", ""]
    values = [base[rng.randrange(len(base))] for _ in range(300)] + extra * 3
    a = np.array(values, dtype=flavor.dtype())
    codes, uniques = _core._factorize(a)
    want_codes, want_uniques = expected(a.tolist(), flavor)
    assert codes.dtype == np.int64
    assert np.array_equal(codes, want_codes)
    assert uniques.dtype == a.dtype and uniques.ndim == 1
    assert uniques.tolist() == want_uniques


def test_shapes_and_strides(rng):
    values = random_strings(rng, 40) * 3
    base = np.array(values, dtype=StringDType()).reshape(4, 30)
    for a in [base, base[:, ::-3], base.T, base[1:2], base[:0]]:
        codes, uniques = _core._factorize(a)
        want_codes, want_uniques = expected(a.ravel().tolist())
        assert np.array_equal(codes, want_codes)
        assert uniques.tolist() == want_uniques
    codes, uniques = _core._factorize(np.array("x" * 20, dtype=StringDType()))
    assert codes.tolist() == [0] and uniques.tolist() == ["x" * 20]


def test_uniques_own_their_strings():
    a = np.array(["a long string number %d" % (i % 7) for i in range(100)], dtype=StringDType())
    codes, uniques = _core._factorize(a)
    a[:] = "overwritten with another long string"
    del a
    assert uniques.tolist() == ["a long string number %d" % i for i in range(7)]
    assert codes.tolist() == [i % 7 for i in range(100)]
    uniques[0] = "changed"
    assert uniques[0] == "changed"


def test_refuses_other_dtypes():
    with pytest.raises(TypeError):
        _core._factorize(np.array(["a", "b"]))


# ---------------------------------------------------------------------------------------
# _take


def test_take_against_indexing(flavor, rng):
    values = random_strings(rng, 60, flavor.na_object)
    values += ["abcdefghijkl", "abcdefghijklm", "ßßßßßßa", "a\x00b", "x" * 300]
    base = np.array(values, dtype=flavor.dtype())
    for a in [base, base[::-2], base[3:4], base[:0]]:
        n = len(a)
        indices = np.array([rng.randrange(n) for _ in range(200)] if n else [], dtype=np.int64)
        if flavor.has_na and n:
            indices[::7] = -1
        result = _core._take(a, indices)
        assert result.dtype == a.dtype and result.shape == indices.shape
        items = a.tolist()
        want = [flavor.na_object if i == -1 else items[i] for i in indices]
        got = result.tolist()
        assert len(got) == len(want)
        for g, w, i in zip(got, want, indices):
            assert g == w or (is_na(g, flavor) and (i == -1 or is_na(w, flavor))), (g, w, i)


def test_take_result_owns_its_strings():
    a = np.array([f"a long string number {i}" for i in range(50)], dtype=StringDType())
    result = _core._take(a, np.arange(49, -1, -1, dtype=np.int64))
    a[:] = "overwritten by another long string"
    del a
    assert result.tolist() == [f"a long string number {i}" for i in range(49, -1, -1)]
    result[0] = "changed"
    assert result[0] == "changed" and result[1] == "a long string number 48"


@pytest.mark.parametrize("repeats", [False, True], ids=["permutation", "repeats"])
def test_take_of_mostly_every_element(flavor, rng, repeats):
    # Long strings throughout: the result shares the source's memory where it can (each
    # string once), copies the rest, and each array then changes alone.
    values = random_strings(rng, 300, flavor.na_object)
    values += ["ß" * rng.randrange(7, 60) + f"{i}\x00" for i in range(900)]
    rng.shuffle(values)
    a = np.array(values, dtype=flavor.dtype())
    n = len(a)
    order = list(range(n))
    rng.shuffle(order)
    if repeats:  # the last fifth: a tenth picked again, then one short string
        short = next(i for i, v in enumerate(values) if isinstance(v, str) and len(v) < 4)
        order[-(n // 5) :] = order[: n // 10] + [short] * (n // 5 - n // 10)
    if flavor.has_na:
        order[::50] = [-1] * len(order[::50])
    items = a.tolist()
    want = [flavor.na_object if i == -1 else items[i] for i in order]
    result = _core._take(a, np.array(order, dtype=np.int64))
    assert stringdtype.memory_info(result)["arena_shared"] > 0

    def same(got, want):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g == w or (is_na(g, flavor) and is_na(w, flavor)), (g, w)

    same(result.tolist(), want)
    a[:] = "every element overwritten by one long string"
    same(result.tolist(), want)
    result[::3] = "changed in the result, a long string"
    want[::3] = ["changed in the result, a long string"] * len(want[::3])
    assert a.tolist() == ["every element overwritten by one long string"] * n
    del a
    same(result.tolist(), want)
    result[:] = ""
    assert result.tolist() == [""] * n


def test_take_refuses_bad_input():
    plain = np.array(["a", "b" * 20], dtype=StringDType())
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        _core._take(plain, np.array([0, 2], dtype=np.int64))
    # -1 is a missing value, which a dtype without na_object cannot hold.
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        _core._take(plain, np.array([-1], dtype=np.int64))
    with_na = np.array(["a", None], dtype=StringDType(na_object=None))
    with pytest.raises(IndexError, match="index -2 is out of bounds"):
        _core._take(with_na, np.array([-2], dtype=np.int64))
    with pytest.raises(ValueError, match="indices must be a 1-D contiguous int64 array"):
        _core._take(plain, np.array([0, 1], dtype=np.int32))
    with pytest.raises(ValueError, match="1-D"):
        _core._take(plain.reshape(1, 2), np.array([0], dtype=np.int64))
    with pytest.raises(TypeError):
        _core._take(np.array(["a"]), np.array([0], dtype=np.int64))
    assert plain.tolist() == ["a", "b" * 20]
