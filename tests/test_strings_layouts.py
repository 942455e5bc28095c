"""``np.strings`` on this dtype, continued from test_strings.py (whose docstring lists
the NumPy quirks these tests take as the reference): missing values as arguments, NUL
characters, and shapes, strides, broadcasting, ``out=`` and in-place calls for a
representative subset of the functions, against NumPy's StringDType."""

import numpy as np
import pytest
from conftest import (
    NUMPY_RELEASE,
    REFERENCE,
    NumpyStringDType,
    StringDType,
    normalize,
    outcome,
)
from numpy._core import umath
from strings_support import (
    NEGATIVE_WIDTHS_OK,
    as_argument,
    check,
    is_na,
    make,
    pad,
    run,
    sample,
)


# ---------------------------------------------------------------------------------------
# NA values as arguments


@pytest.mark.parametrize(
    "op",
    [
        "find",
        "count",
        "startswith",
        "strip",
        "replace_old",
        "replace_new",
        "center_fill",
        "partition",
    ],
)
def test_na_arguments(na_flavor, rng, op):
    values = [v for v in sample(rng, na_flavor, 20) if not is_na(v, na_flavor)]
    args = [na_flavor.na_object if i % 3 == 0 else "a" for i in range(len(values))]

    def call(cls):
        a = make(values, na_flavor, cls)
        b = make(args, na_flavor, cls)
        if op == "find":
            return np.strings.find(a, b)
        if op == "count":
            return np.strings.count(a, b)
        if op == "startswith":
            return np.strings.startswith(a, b)
        if op == "strip":
            return np.strings.strip(a, b)
        if op == "replace_old":
            return np.strings.replace(a, b, "-")
        if op == "replace_new":
            return np.strings.replace(a, "a", b)
        if op == "center_fill":
            return np.strings.center(a, 30, b)
        return np.strings.partition(a, b)

    run(call)


# ---------------------------------------------------------------------------------------
# NUL characters (see the module docstring): only compared with NumPy.

NULS = [
    "\x00",
    "\x00\x00",
    "a\x00",
    "\x00a",
    "a\x00\x00",
    " \x00 ",
    "\x00 ",
    " \x00",
    "ab\x00",
    "1\x00",
    "-1\x00",
    "A\x00b\x00",
    "é\x00",
    "\t\x00",
    "x" * 13 + "\x00",
]


def _t(cls, flavor, value):
    return np.array(value, dtype=flavor.dtype(cls))


NUL_OPS = {
    "isalpha": lambda a, t: np.strings.isalpha(a),
    "isalnum": lambda a, t: np.strings.isalnum(a),
    "isspace": lambda a, t: np.strings.isspace(a),
    "isdigit": lambda a, t: np.strings.isdigit(a),
    "isnumeric": lambda a, t: np.strings.isnumeric(a),
    "islower": lambda a, t: np.strings.islower(a),
    "istitle": lambda a, t: np.strings.istitle(a),
    "find": lambda a, t: np.strings.find(a, "a"),
    "find_nul": lambda a, t: np.strings.find(a, "\x00"),
    "find_nul_array": lambda a, t: np.strings.find(a, t(["\x00"])),
    "rfind_empty": lambda a, t: np.strings.rfind(a, ""),
    "rfind_range": lambda a, t: np.strings.rfind(a, "", 0, 2),
    "count_empty": lambda a, t: np.strings.count(a, ""),
    "count_nul": lambda a, t: np.strings.count(a, "\x00"),
    "index_nul": lambda a, t: np.strings.index(a, "\x00"),
    "startswith_nul": lambda a, t: np.strings.startswith(a, "\x00"),
    "endswith": lambda a, t: np.strings.endswith(a, "a"),
    "endswith_empty": lambda a, t: np.strings.endswith(a, "", 1),
    "strip": lambda a, t: np.strings.strip(a),
    "lstrip": lambda a, t: np.strings.lstrip(a),
    "rstrip": lambda a, t: np.strings.rstrip(a),
    "rstrip_chars": lambda a, t: np.strings.rstrip(a, "a\x00"),
    "lstrip_nul": lambda a, t: np.strings.lstrip(a, "\x00"),
    "replace_nul": lambda a, t: np.strings.replace(a, "\x00", "0"),
    "replace_to_nul": lambda a, t: np.strings.replace(a, "a", "\x00"),
    "replace_empty": lambda a, t: np.strings.replace(a, "", "-"),
    "expandtabs": lambda a, t: np.strings.expandtabs(a),
    "center": lambda a, t: np.strings.center(a, 6, "é"),
    "ljust": lambda a, t: np.strings.ljust(a, 4),
    "rjust": lambda a, t: np.strings.rjust(a, 4),
    "center_nul_fill": lambda a, t: np.strings.center(a, 5, "\x00"),
    "zfill": lambda a, t: np.strings.zfill(a, 5),
    "partition": lambda a, t: np.strings.partition(a, t("\x00")),
    "rpartition": lambda a, t: np.strings.rpartition(a, t("a")),
    "slice": lambda a, t: np.strings.slice(a, 1),
    "slice_reversed": lambda a, t: np.strings.slice(a, None, None, -1),
    "upper": lambda a, t: np.strings.upper(a),
    "title": lambda a, t: np.strings.title(a),
    "translate": lambda a, t: np.strings.translate(a, {0: "0"}),
    "encode": lambda a, t: np.strings.encode(a),
}


# Python's results where NumPy takes a trailing NUL for padding; this package keeps NUL
# characters as characters, as Python's ``str`` does.
NUL_PYTHON = {
    "isalpha": str.isalpha,
    "isalnum": str.isalnum,
    "isspace": str.isspace,
    "isdigit": str.isdigit,
    "isnumeric": str.isnumeric,
    "find_nul_array": lambda s: s.find("\x00"),
    "rfind_empty": lambda s: s.rfind(""),
    "rfind_range": lambda s: s.rfind("", 0, 2),
    "count_empty": lambda s: s.count(""),
    "count_nul": lambda s: s.count(as_argument("\x00")),
    "endswith": lambda s: s.endswith("a"),
    "endswith_empty": lambda s: s.endswith("", 1),
    "strip": str.strip,
    "lstrip": str.lstrip,
    "rstrip": str.rstrip,
    "rstrip_chars": lambda s: s.rstrip(as_argument("a\x00")),
    "lstrip_nul": lambda s: s.lstrip(as_argument("\x00")),
    "replace_nul": lambda s: s.replace(as_argument("\x00"), "0"),
    "replace_empty": lambda s: s.replace("", "-"),
    "expandtabs": str.expandtabs,
    "center": lambda s: s.center(6, "é"),
    "ljust": lambda s: s.ljust(4),
    "rjust": lambda s: s.rjust(4),
    "zfill": lambda s: s.zfill(5),
    "slice": lambda s: s[:1],
    "slice_reversed": lambda s: s[::-1],
}


@pytest.mark.parametrize("op", NUL_OPS)
def test_nul_characters(coerce_flavor, op):
    flavor = coerce_flavor
    if op.startswith("slice") and not hasattr(np.strings, "slice"):
        pytest.skip("np.strings.slice is missing")
    check(
        flavor,
        NULS,
        lambda cls, a: NUL_OPS[op](a, lambda v: _t(cls, flavor, v)),
        NUL_PYTHON.get(op),
        python_wins=op in NUL_PYTHON,
    )


# ---------------------------------------------------------------------------------------
# Shapes, strides, broadcasting, out= and in-place, for a representative subset.
#
# Each entry: (call(a, b), call_out(a, b, out), out_kind, argument values).  ``b`` is an
# array argument built from the argument values, broadcast against the strings.

SUBSET = {
    "find": (
        lambda a, b: np.strings.find(a, b, 1, None),
        lambda a, b, out: umath.find(a, b, 1, np.iinfo(np.int64).max, out=out),
        np.int64,
        ["a", "", "é", "ab", "zz"],
    ),
    "startswith": (
        lambda a, b: np.strings.startswith(a, b),
        lambda a, b, out: umath.startswith(a, b, 0, np.iinfo(np.int64).max, out=out),
        np.bool_,
        ["a", "", "é", "ab", "zz"],
    ),
    "strip": (
        lambda a, b: np.strings.strip(a, b),
        lambda a, b, out: umath._strip_chars(a, b, out=out),
        "T",
        ["a", "", " é", "ab", " "],
    ),
    "replace": (
        lambda a, b: np.strings.replace(a, b, "<é>", 2),
        lambda a, b, out: umath._replace(a, b, "<é>", 2, out=out),
        "T",
        ["a", "", "é", "ab", "zz"],
    ),
    "center": (
        lambda a, b: np.strings.center(a, b, "*"),
        lambda a, b, out: umath._center(a, b, np.array("*", dtype=a.dtype), out=out),
        "T",
        [0, 5, 13, 20, -1 if NEGATIVE_WIDTHS_OK else 3],
    ),
    "partition": (
        lambda a, b: np.strings.partition(a, b),
        lambda a, b, out: umath._partition(a, b, out=out),
        "TTT",
        ["a", "é", "ab", "zz", " "],
    ),
    "isalpha": (
        lambda a, b: np.strings.isalpha(a),
        lambda a, b, out: np.strings.isalpha(a, out=out),
        np.bool_,
        ["unused"] * 5,
    ),
    "slice": (
        lambda a, b: np.strings.slice(a, b, None, -1),
        lambda a, b, out: umath._slice(a, b, np.iinfo(np.intp).min, -1, out=out),
        "T",
        [0, 3, -2, 12, -40],
    ),
}


def argument(cls, flavor, values):
    if isinstance(values[0], str):
        return make(values, flavor, cls)
    return np.array(values)


def snapshot(*arrays):
    return [(x.shape, np.asarray(x, dtype=object).tolist()) for x in arrays]


def unchanged(fn, *arrays):
    """Run ``fn()`` and assert that it did not modify ``arrays``."""
    before = snapshot(*arrays)
    result = fn()
    assert normalize(snapshot(*arrays)) == normalize(before)
    return result


@pytest.mark.parametrize("name", SUBSET)
def test_nd_and_strides(coerce_flavor, rng, name):
    call, _, _, arg_values = SUBSET[name]
    flavor = coerce_flavor
    values = sample(rng, flavor, 24, special=False)
    args = [rng.choice(arg_values) for _ in range(24)]

    def fn(cls):
        a = make(values, flavor, cls).reshape(2, 3, 4)
        b = argument(cls, flavor, args).reshape(2, 3, 4)
        results = []
        for view_a, view_b in [
            (a, b),
            (a[::-1, :, ::-2], b[::-1, :, ::-2]),
            (a.transpose(2, 0, 1), b.transpose(2, 0, 1)),
            (a.T, b[::-1].T),
            (a[:, 1], b[:, 2]),
            (a.reshape(6, 4)[::-2], b.reshape(6, 4)[1::2]),
        ]:
            result = unchanged(lambda x=view_a, y=view_b: call(x, y), a, b)
            contiguous = call(np.ascontiguousarray(view_a), np.ascontiguousarray(view_b))
            if isinstance(result, tuple):
                for r, c in zip(result, contiguous):
                    assert r.tolist() == c.tolist()
                results.extend(result)
            else:
                assert result.tolist() == contiguous.tolist()
                results.append(result)
        return tuple(results)

    run(fn)


@pytest.mark.parametrize("name", SUBSET)
def test_broadcasting(flavor, rng, name):
    call, _, _, arg_values = SUBSET[name]
    values = sample(rng, flavor, 12, special=False)

    def fn(cls):
        a = make(values, flavor, cls)
        b = argument(cls, flavor, arg_values)
        out = [
            call(a[:, None], b[None, :]),
            call(a[None, :], b[:, None]),
            call(a.reshape(3, 1, 4), b[:, None, None]),
            call(a, b[2]),
            call(a[:1], b[:, None]),
        ]
        result = []
        for r in out:
            result.extend(r if isinstance(r, tuple) else (r,))
        return tuple(result)

    run(fn)


def new_out(kind, shape, flavor, cls, fill):
    if kind == "T":
        return np.full(shape, fill, dtype=flavor.dtype(cls))
    if kind == "TTT":
        return tuple(np.full(shape, fill, dtype=flavor.dtype(cls)) for _ in range(3))
    return np.zeros(shape, dtype=kind)


@pytest.mark.parametrize("name", SUBSET)
@pytest.mark.parametrize(
    "fill", ["", "a previous value longer than 12 bytes"], ids=["short", "long"]
)
def test_out_argument(flavor, rng, name, fill):
    call, call_out, kind, arg_values = SUBSET[name]
    values = sample(rng, flavor, 30, special=False)
    args = [rng.choice(arg_values) for _ in values]

    def fn(cls):
        a = make(values, flavor, cls)
        b = argument(cls, flavor, args)
        out = new_out(kind, a.shape, flavor, cls, fill)
        result = unchanged(lambda: call_out(a, b, out), a, b)
        assert result is out or (
            isinstance(out, tuple) and all(r is o for r, o in zip(result, out))
        )
        expected = call(a, b)
        if isinstance(out, tuple):
            assert [o.tolist() for o in out] == [e.tolist() for e in expected]
            return out
        assert out.tolist() == expected.tolist()
        # A strided view as the output leaves the other elements alone.
        big = new_out(kind, (2, len(values)), flavor, cls, fill)
        call_out(a, b, big[1, ::-1])
        assert big[0].tolist() == new_out(kind, a.shape, flavor, cls, fill).tolist()
        assert big[1, ::-1].tolist() == expected.tolist()
        return out, big

    run(fn)


@pytest.mark.parametrize("name", ["strip", "replace", "center", "slice"])
def test_in_place(flavor, rng, name):
    call, call_out, _, arg_values = SUBSET[name]
    values = pad(rng, sample(rng, flavor, 30, special=False), [" ", "a", "é"], flavor=flavor)
    args = [rng.choice(arg_values) for _ in values]

    def fn(cls):
        a = make(values, flavor, cls)
        b = argument(cls, flavor, args)
        expected = call(a.copy(), b)
        result = call_out(a, b, a)
        assert result is a
        assert a.tolist() == expected.tolist()
        # Whitespace strip, in place, also on a reversed view.
        c = make(values, flavor, cls)
        expected = np.strings.strip(c.copy())
        umath._strip_whitespace(c[::-1], out=c[::-1])
        assert c.tolist() == expected.tolist()
        return a, c

    if name == "replace" and NUMPY_RELEASE < (2, 3):
        # NumPy's StringDType before 2.3 garbles long strings replaced in place.
        if REFERENCE:
            pytest.skip("NumPy before 2.3 garbles long strings replaced in place")
        ours = outcome(fn, StringDType)
        if ours[0] == "raises":
            assert ours == outcome(fn, NumpyStringDType)
        return
    run(fn)


@pytest.mark.parametrize("name", SUBSET)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)], ids=str)
def test_empty_arrays(flavor, name, shape):
    call, _, _, arg_values = SUBSET[name]

    def fn(cls):
        a = np.empty(shape, dtype=flavor.dtype(cls))
        b = argument(cls, flavor, arg_values[:3])
        result = call(a, b if shape[-1] == 3 else b[:1])
        return result if isinstance(result, tuple) else (result,)

    run(fn)


@pytest.mark.parametrize("name", SUBSET)
def test_zero_d(flavor, rng, name):
    call, _, _, arg_values = SUBSET[name]
    values = sample(rng, flavor, 8, special=False)

    def fn(cls):
        results = []
        for i, v in enumerate(values):
            a = make(v, flavor, cls)
            b = argument(cls, flavor, [arg_values[i % len(arg_values)]]).reshape(())
            r = unchanged(lambda x=a, y=b: call(x, y), a, b)
            results.extend(r if isinstance(r, tuple) else (r,))
        return tuple(results)

    run(fn)
