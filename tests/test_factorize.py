"""``_core._factorize``, behind the pandas column's ``factorize``, ``unique`` and
``value_counts``: codes and distinct strings equal pandas' ``factorize`` of the same
strings as Python objects (order of first appearance, -1 for a missing value)."""

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
    checked against pandas' factorize where no value is missing."""
    missing = [flavor is not None and is_na(v, flavor) for v in values]
    first = {}
    codes = [-1 if m else first.setdefault(v, len(first)) for v, m in zip(values, missing)]
    if not any(missing):
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
