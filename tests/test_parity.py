"""Parity with NumPy's StringDType for what mixes with other dtypes: comparisons with
``object`` operands, casts to and from ``void``, ``np.result_type`` against every
builtin dtype (``np.can_cast`` is in test_casts.py), the ``dtype=`` promoters of ``add``,
and ``na_object`` spelled ``np._NoValue``. Where NumPy is wrong, the improvement is checked against
Python's ``str`` instead (and is listed in docs/usage.md)."""

import numpy as np
import pytest
from conftest import (
    FLAVORS,
    NUMPY_RELEASE,
    NumpyStringDType,
    StringDType,
    assert_same_list,
    both,
    normalize,
    package_only,
    random_strings,
)

COMPARISONS = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]
OBJECTS = ["a", 1, None, "b" * 20, np.nan, "", 2.5, b"a"]


@pytest.mark.parametrize("ufunc", COMPARISONS, ids=lambda u: u.__name__)
def test_comparisons_with_object_arrays(flavor, ufunc):
    values = ["a", "1", "b" * 20, "", "zz", "a"]
    if flavor.has_na:
        values[4] = flavor.na_object
    objects = np.array(OBJECTS[: len(values)], dtype=object)

    def run(cls):
        t = np.array(values, dtype=flavor.dtype(cls))
        return [ufunc(t, objects), ufunc(objects, t), ufunc(t, objects[::-1])]

    both(lambda cls: run(cls)[0])
    both(lambda cls: run(cls)[1])
    both(lambda cls: run(cls)[2])


OPERATORS = {
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "<": lambda x, y: x < y,
    ">=": lambda x, y: x >= y,
}


@pytest.mark.parametrize("op", list(OPERATORS))
@pytest.mark.parametrize("scalar", ["a", 1, None, np.nan, "b" * 20], ids=repr)
def test_comparisons_with_object_scalars(flavor, op, scalar):
    values = ["a", "b" * 20, "", "1"]
    other = np.array(scalar, dtype=object)
    compare = OPERATORS[op]

    def run(cls):
        t = np.array(values, dtype=flavor.dtype(cls))
        return compare(t, other), compare(other, t)

    both(lambda cls: run(cls)[0])
    both(lambda cls: run(cls)[1])


def test_equality_with_an_object_array_is_element_wise():
    t = np.array(["a", "1", "b"], dtype=StringDType())
    o = np.array(["a", 1, None], dtype=object)
    assert (t == o).tolist() == [True, False, False]
    assert np.equal(t, o).tolist() == [True, False, False]
    assert np.equal(o, t).dtype == bool


@pytest.mark.parametrize("width", [1, 4, 13, 40])
def test_casts_to_void(flavor, rng, width):
    values = [v for v in random_strings(rng, 30, flavor.na_object)]
    both(lambda cls: np.array(values, dtype=flavor.dtype(cls)).astype(f"V{width}"))


def test_casts_from_void(flavor, rng):
    raw = [s.encode() for s in random_strings(rng, 30) if isinstance(s, str)]
    width = max(map(len, raw))
    voids = np.array(raw, dtype=f"S{width}").view(f"V{width}")
    both(lambda cls: voids.astype(flavor.dtype(cls)))
    both(lambda cls: voids.astype(flavor.dtype(cls)).astype(f"V{width}"))


def test_void_cast_errors():
    for cls in (StringDType, NumpyStringDType):
        t = np.array(["ab"], dtype=cls())
        with pytest.raises(TypeError):
            t.astype("V")
        with pytest.raises(TypeError, match="structured"):
            t.astype(np.dtype([("a", "i4")]))


@package_only
def test_invalid_utf8_from_void_raises():
    # NumPy's StringDType before 2.5 reports this as a MemoryError (an unsigned size
    # compared < 0); 2.5 raises a TypeError, which the package follows there.
    error = TypeError if NUMPY_RELEASE >= (2, 5) else UnicodeDecodeError
    with pytest.raises(error):
        np.array([b"\xff\xfe"], dtype="V2").astype(StringDType())


BUILTINS = [
    "?",
    "b",
    "B",
    "h",
    "H",
    "i",
    "I",
    "l",
    "L",
    "q",
    "Q",
    "e",
    "f",
    "d",
    "g",
    "F",
    "D",
    "G",
    "S",
    "S5",
    "U",
    "U5",
    "V",
    "V8",
    "O",
    "M8",
    "M8[s]",
    "m8",
    "m8[ms]",
]


@pytest.mark.parametrize("other", BUILTINS)
def test_result_type_table(other):
    for kwargs in ({}, {"na_object": None}, {"coerce": False}):
        both(lambda cls, kw=kwargs: str(np.result_type(cls(**kw), other)))
        both(lambda cls, kw=kwargs: str(np.result_type(other, cls(**kw))))
        both(lambda cls, kw=kwargs: str(np.promote_types(cls(**kw), other)))


@pytest.mark.parametrize(
    "call",
    [
        lambda cls: np.add("hello", ["a", "b"], dtype=cls),
        lambda cls: np.add(["a", "b"], "!", dtype=cls),
        lambda cls: np.add(np.array(["a", "b"]), np.array(["x", "y"]), dtype=cls),
        lambda cls: np.add(np.array(["a", "b"], dtype=cls()), "x", dtype=cls),
        lambda cls: np.add(
            np.array(["a", "b"]), np.array(["x", "y"], dtype=cls()), signature=(None, None, cls)
        ),
        lambda cls: np.add(np.array(["a"]), np.array(["b"]), out=np.empty(1, dtype=cls())),
    ],
)
def test_add_promoters_for_string_outputs(call):
    both(call)


ADD_OPERANDS = {
    "U": lambda cls: np.array(["a", "b"]),
    "str": lambda cls: "x",
    "list": lambda cls: ["p", "q"],
    "ours": lambda cls: np.array(["m", ""], dtype=cls()),
    "int": lambda cls: np.array([1, 2]),
    "object": lambda cls: np.array(["o", "p"], dtype=object),
}
ADD_OUTPUTS = {
    "unset": lambda cls: {},
    "dtype": lambda cls: {"dtype": cls},
    "out": lambda cls: {"out": np.empty(2, dtype=cls())},
    "signature": lambda cls: {"signature": (None, None, cls)},
}


@pytest.mark.parametrize("output", ADD_OUTPUTS)
@pytest.mark.parametrize("right", ADD_OPERANDS)
@pytest.mark.parametrize("left", ADD_OPERANDS)
def test_add_of_every_operand_mix(left, right, output):
    """Every pair of operand kinds, with and without a StringDType output: the same
    result or the same error as NumPy (plain ``U + U`` stays NumPy's ``U``)."""
    both(
        lambda cls: np.add(
            ADD_OPERANDS[left](cls), ADD_OPERANDS[right](cls), **ADD_OUTPUTS[output](cls)
        )
    )


def test_no_value_means_unset():
    for cls in (StringDType, NumpyStringDType):
        dt = cls(na_object=np._NoValue)
        assert not hasattr(dt, "na_object")
        assert dt == cls()
        assert str(dt) == "StringDType()"


@package_only
def test_no_value_in_from_arrow():
    pa = pytest.importorskip("pyarrow")
    from stringdtype import from_arrow

    a = from_arrow(pa.array(["x"]), na_object=np._NoValue)
    assert not hasattr(a.dtype, "na_object")


# ------------------------------------------------------- improvements over NumPy 2.4


@package_only
def test_big_endian_unicode_arrays_cast_both_ways(rng):
    # NumPy 2.4's StringDType reads the code units of a '>U' array unswapped, so every
    # non-empty string fails as an invalid code point, and writes '>U' unswapped too.
    values = ["", "a", "abcdefghijklmnopq", "é" * 9 + "x", "x\x00y", "😀" * 3]
    for v in values:
        source = np.array([v], dtype=">U20")
        assert source.astype(StringDType()).tolist() == [v]
        result = np.array([v], dtype=StringDType()).astype(">U20")
        assert result.dtype == np.dtype(">U20")
        assert result.tolist() == [v]
    bad = np.array(["a" * 9 + "\ud800"], dtype=">U20")
    with pytest.raises(TypeError, match="Invalid unicode code point"):
        bad.astype(StringDType())


NUL_CASES = ["a\x00b", "\x00", "x\x00", "", "xx", "a" * 13 + "\x00", "\x00" * 14]


@package_only
@pytest.mark.parametrize("operand", ["\x00", "x\x00", "a\x00", "\x00\x00", "b"])
def test_str_operands_keep_trailing_nuls_in_the_package_namespace(operand):
    import stringdtype.strings as sds

    a = np.array(NUL_CASES, dtype=StringDType())
    assert sds.find(a, operand).tolist() == [s.find(operand) for s in NUL_CASES]
    assert sds.count(a, operand).tolist() == [s.count(operand) for s in NUL_CASES]
    assert sds.startswith(a, operand).tolist() == [s.startswith(operand) for s in NUL_CASES]
    assert sds.endswith(a, suffix=operand).tolist() == [s.endswith(operand) for s in NUL_CASES]
    assert sds.strip(a, operand).tolist() == [s.strip(operand) for s in NUL_CASES]
    assert sds.replace(a, operand, "-").tolist() == [s.replace(operand, "-") for s in NUL_CASES]
    assert sds.replace(a, "a", operand).tolist() == [s.replace("a", operand) for s in NUL_CASES]
    assert sds.equal(a, operand).tolist() == [s == operand for s in NUL_CASES]
    assert sds.less(operand, a).tolist() == [operand < s for s in NUL_CASES]
    assert sds.add(a, operand).tolist() == [s + operand for s in NUL_CASES]
    parts = sds.partition(a, operand)
    assert [tuple(p) for p in zip(*(x.tolist() for x in parts))] == [
        s.partition(operand) for s in NUL_CASES
    ]


@package_only
def test_namespace_keeps_the_arrays_dtype_for_str_operands():
    import stringdtype.strings as sds

    a = np.array(["a", np.nan], dtype=StringDType(na_object=np.nan))
    assert sds.add(a, "!").dtype == a.dtype
    assert sds.find(["abc"], "c").tolist() == [2]  # not StringDType: NumPy's function


@package_only
@pytest.mark.parametrize("flavor", [f for f in FLAVORS if f.coerce], ids=str)
def test_assignment_from_an_object_array_is_all_or_nothing(flavor):
    a = np.array(["a", "b" * 20, "c"], dtype=flavor.dtype())
    before = a.tolist()
    bad = np.array(["x" * 30, "y", "\ud800"], dtype=object)
    for assign in (
        lambda: a.__setitem__(slice(None), bad),
        lambda: a.__setitem__(slice(None, None, -1), bad),
        lambda: np.copyto(a, bad, casting="unsafe"),
        lambda: a.__setitem__([2, 0, 1], bad),
    ):
        with pytest.raises(UnicodeEncodeError):
            assign()
        assert_same_list(a.tolist(), before)
    good = np.array(["x" * 30, None, 3], dtype=object)
    a[:] = good
    want = ["x" * 30, None if flavor.na_object is None else "None", "3"]
    assert normalize(a.tolist()) == normalize(want)


def test_assignment_from_a_list_matches_numpy():
    # NumPy assigns a list of the array's shape element by element, calling the dtype
    # for each: a failure leaves the elements before it written. No dtype can change
    # this; the workaround is to build the array first (docs/usage.md).
    def run(cls):
        a = np.array(["a", "b", "c"], dtype=cls())
        try:
            a[:] = ["x", "y", "\ud800"]
        except UnicodeEncodeError:
            pass
        return a

    both(run)
