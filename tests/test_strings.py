"""``np.strings`` functions (other than the comparisons, add, multiply and str_len of
test_ufuncs.py) on this dtype, against NumPy's StringDType and Python's ``str`` methods.

Every test runs the operation for our dtype and for NumPy's (``run``/``check`` from
strings_support.py): values, dtype and shape of the result, or the exception type, must
be identical.  Where Python's ``str`` defines the result (no NA, no trailing NUL), it is
compared with Python's too.

NumPy quirks.  Where one is a bug that makes NumPy's StringDType depart from Python's
``str`` (the trailing NUL, ``strip`` characters after a non-ASCII one) or a missing loop
(``partition`` with a ``str`` separator), this package follows Python: those tests pass
``python_wins`` to ``check``, which compares with Python's ``str`` outside the reference
run (and with NumPy inside it, to keep the quirk documented).  Elsewhere NumPy is the
reference:
- A trailing NUL is padding for NumPy's string kernels (test_nul_characters): ``"a\x00"``
  is alphabetic and ends with ``"a"``; a needle, ``old``, separator or ``chars`` of
  ``"\x00"`` acts as the empty string; ``strip``, ``slice``, ``expandtabs`` drop a
  trailing NUL (``"\x00"`` becomes ``""``); ``center``/``ljust``/``rjust``/``zfill`` do
  not count it in the width and put all the padding before it; ``count(a, "")`` and
  ``rfind(a, "")`` ignore it; the whitespace ``strip`` also removes a NUL next to
  whitespace (``" \x00 "`` becomes ``""``).  NULs elsewhere behave like Python's.
- ``strip``/``lstrip``/``rstrip`` with ``chars`` ignore ASCII characters that follow a
  non-ASCII one in ``chars`` (``strip("bab", "中b")`` is ``"bab"``, Python gives ``"a"``).
- ``replace`` with a count below -1 keeps short strings unchanged and corrupts the heap
  for long ones (not tested); -1 replaces all, as in Python.
- ``partition``/``rpartition`` have no loop for (StringDType, Python str/``U``): the
  separator must be a StringDType array; ``out=`` is not supported for them or ``slice``.
- ``mod`` formats NumPy scalars (``"%r" % np.str_("é")`` is ``"np.str_('é')"``) and
  returns a default ``StringDType()`` (the ``na_object`` is dropped); ``decode`` of an
  ``S`` array returns a ``U`` array, and on a StringDType array raises AttributeError.
- NA: a string ``na_object`` acts as its string except in ``slice`` (TypeError), and as a
  ``center`` fill character it is too long; NaN-like NA propagates for strip/replace/
  center/ljust/rjust/zfill, is ``False`` for the ``is*`` predicates and startswith/
  endswith, and is an error for find/count/index/expandtabs/partition and as ``old``,
  ``new`` or ``chars``; ``None`` is an error everywhere.  ``upper``/``lower``/.../
  ``translate``/``encode`` call the ``str`` method on the NA object itself (TypeError
  unless NA is a string).
- ``center(a, 2**63)``: the width does not fit int64 and is silently wrapped to a
  negative width (no padding, not tested); ``2**62`` is a MemoryError.
"""

import numpy as np
import pytest
from conftest import (
    REFERENCE,
)
from strings_support import (
    as_argument,
    check,
    is_na,
    make,
    needle_for,
    pad,
    plant,
    run,
    sample,
)

# Cases where this package's result or error still differs from NumPy's StringDType;
# strict, so that fixing one shows up here.
KNOWN_DIFFERENCES = set()


@pytest.fixture(autouse=True)
def _known_differences(request):
    if not REFERENCE and request.node.name in KNOWN_DIFFERENCES:
        request.applymarker(pytest.mark.xfail(strict=True, reason="known difference from NumPy"))


def strs(cls, values, flavor=None, kind="T"):
    """An argument array: StringDType (of ``flavor``), ``U``, or 0-d StringDType."""
    if kind == "U":
        return np.array(values, dtype="U")
    dtype = flavor.dtype(cls) if flavor is not None else cls()
    return np.array(values, dtype=dtype)


# ---------------------------------------------------------------------------------------
# Predicates

PREDICATES = [
    "isalpha",
    "isdigit",
    "isspace",
    "isalnum",
    "islower",
    "isupper",
    "istitle",
    "isdecimal",
    "isnumeric",
]


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates(flavor, rng, name):
    values = sample(rng, flavor) + ["A", "a", "1", " ", "Ab Cd", "ab1", "١", "Ⅻ", "\u2028"]
    check(
        flavor,
        values,
        lambda cls, a: getattr(np.strings, name)(a),
        lambda s: getattr(s, name)(),
    )


# ---------------------------------------------------------------------------------------
# find rfind index rindex count startswith endswith

SEARCH = ["find", "rfind", "index", "rindex", "count", "startswith", "endswith"]
NEEDLES = ["a", "", "é", "ab", "中😀", "x" * 1200, "\x00"]
NEEDLE_IDS = ["a", "empty", "e_acute", "ab", "wide", "longer", "nul"]


def search_values(rng, flavor, name, needle):
    values = sample(rng, flavor)
    if name in ("index", "rindex") and len(needle) > 50:
        # Never found: the whole call raises ValueError.
        return values
    fraction = 1.0 if name in ("index", "rindex") else 0.5
    values = plant(rng, values, needle, fraction, flavor)
    return plant(rng, values, needle, 0.3, flavor)




def python_search(name, s, *args):
    return getattr(s, name)(*args)


@pytest.mark.parametrize("name", SEARCH)
@pytest.mark.parametrize("needle", NEEDLES, ids=NEEDLE_IDS)
def test_search_str_needle(flavor, rng, name, needle):
    values = search_values(rng, flavor, name, needle)
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a: fn(a, needle),
        lambda s: python_search(name, s, as_argument(needle)),
        python_wins="\x00" in needle,
    )


RANGES = [
    (0, None),
    (3, None),
    (-4, None),
    (2, 9),
    (-9, -2),
    (0, 0),
    (7, 3),
    (40, None),
    (-1000, None),
    (0, -1000),
    (0, 2**40),
    (-(2**40), 2**40),
]


@pytest.mark.parametrize("name", SEARCH)
@pytest.mark.parametrize("needle", ["a", ""], ids=["a", "empty"])
def test_search_ranges(flavor, rng, name, needle):
    values = search_values(rng, flavor, name, needle)
    fn = getattr(np.strings, name)
    for start, end in RANGES:
        try:
            check(
                flavor,
                values,
                lambda cls, a, start=start, end=end: fn(a, needle, start, end),
                lambda s, start=start, end=end: python_search(name, s, needle, start, end),
            )
        except AssertionError as exc:
            raise AssertionError(f"start={start}, end={end}: {exc}") from None


@pytest.mark.parametrize("name", SEARCH)
def test_search_start_only(flavor, rng, name):
    values = search_values(rng, flavor, name, "é")
    fn = getattr(np.strings, name)
    check(flavor, values, lambda cls, a: fn(a, "é", 2), lambda s: python_search(name, s, "é", 2))


@pytest.mark.parametrize("name", SEARCH)
def test_search_range_arrays(flavor, rng, name):
    values = search_values(rng, flavor, name, "a")
    starts = [rng.randint(-20, 30) for _ in values]
    ends = [rng.choice([rng.randint(-20, 40), 2**40]) for _ in values]
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a, s, e: fn(a, "a", np.array(s), np.array(e)),
        lambda v, s, e: python_search(name, v, "a", s, e),
        extra=(starts, ends),
    )
    # Starts (a row) broadcast against the strings (a column); ends as a scalar.
    row = np.arange(-3, 5)
    run(lambda cls: fn(make(values, flavor, cls)[:, None], "a", row, 12))




@pytest.mark.parametrize("name", SEARCH)
@pytest.mark.parametrize("kind", ["T", "U"])
def test_search_needle_array(flavor, rng, name, kind):
    values = sample(rng, flavor)
    needles = [needle_for(rng, v) for v in values]
    if name in ("index", "rindex"):
        needles = [n if isinstance(v, str) and n in v else "" for v, n in zip(values, needles)]
    # ``U`` arrays cannot hold trailing NULs; those needles are only compared with NumPy.
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a, n: fn(a, strs(cls, n, flavor, kind)),
        lambda v, n: python_search(name, v, n),
        extra=(needles,),
    )


@pytest.mark.parametrize("name", SEARCH)
def test_search_0d_needle_array(flavor, rng, name):
    values = plant(rng, sample(rng, flavor), "ü", 1.0, flavor)
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a: fn(a, strs(cls, "ü", flavor)),
        lambda s: python_search(name, s, "ü"),
    )


@pytest.mark.parametrize("name", ["index", "rindex"])
def test_index_not_found_raises(coerce_flavor, name):
    a = make(["abc", "xyz"], coerce_flavor)
    with pytest.raises(ValueError):
        getattr(np.strings, name)(a, "b")
    with pytest.raises(ValueError):
        getattr(np.strings, name)(a, "a", 1)
    run(lambda cls: getattr(np.strings, name)(make(["abc", "xyz"], coerce_flavor, cls), "b"))


# ---------------------------------------------------------------------------------------
# strip lstrip rstrip

STRIPS = ["strip", "lstrip", "rstrip"]
CHARS = [None, "", " ", "a", "aé", "é中😀", " \t\n", "ab\x00", "é ", "中b"]
CHARS_IDS = [
    "none",
    "empty",
    "space",
    "a",
    "a_eacute",
    "wide",
    "whitespace",
    "nul",
    "eacute_space",
    "wide_b",
]


def python_strips_like_numpy(chars):
    """NumPy ignores ASCII characters that follow a non-ASCII one in ``chars``."""
    seen_wide = False
    for c in chars:
        if ord(c) >= 128:
            seen_wide = True
        elif seen_wide or c == "\x00":
            return False
    return True


WHITESPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000"]


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("chars", CHARS, ids=CHARS_IDS)
def test_strip(flavor, rng, name, chars):
    pads = WHITESPACE if not chars else list(chars) + [" "]
    values = pad(rng, sample(rng, flavor), pads, flavor=flavor)
    fn = getattr(np.strings, name)

    def expected(s):
        return getattr(s, name)(as_argument(chars))

    wins = chars is not None and not python_strips_like_numpy(chars)
    if chars is None:
        check(flavor, values, lambda cls, a: fn(a), expected, python_wins=True)
    check(flavor, values, lambda cls, a: fn(a, chars), expected, python_wins=wins)


@pytest.mark.parametrize("name", STRIPS)
@pytest.mark.parametrize("kind", ["T", "U"])
def test_strip_chars_array(flavor, rng, name, kind):
    values = pad(rng, sample(rng, flavor), ["a", "b", "é", " ", "中"], flavor=flavor)
    chars = [rng.choice(["a", "ab", " é", "", "b中", "xyz", "a b 中é"]) for _ in values]
    fn = getattr(np.strings, name)
    check(
        flavor,
        values,
        lambda cls, a, c: fn(a, strs(cls, c, flavor, kind)),
        lambda s, c: getattr(s, name)(c),
        extra=(chars,),
    )


@pytest.mark.parametrize("name", STRIPS)
def test_strip_ascii_after_non_ascii_chars(flavor, rng, name):
    # NumPy ignores these ASCII characters (see python_strips_like_numpy); this package
    # strips them, as Python does.
    values = pad(rng, sample(rng, flavor), ["a", "b", "é", " ", "中", "x"], flavor=flavor)
    chars = [rng.choice(["é ", "中b", "a中b", "😀 x"]) for _ in values]
    fn = getattr(np.strings, name)
    for kind in ("T", "U"):
        check(
            flavor,
            values,
            lambda cls, a, c, kind=kind: fn(a, strs(cls, c, flavor, kind)),
            lambda s, c: getattr(s, name)(c),
            extra=(chars,),
            python_wins=True,
        )


# ---------------------------------------------------------------------------------------
# replace

REPLACES = [
    ("a", "XY", -1),
    ("a", "", -1),
    ("a", "XY", 0),
    ("a", "XY", 1),
    ("", "-", -1),
    ("", "-", 2),
    ("", "", -1),
    ("é", "€😀", -1),
    ("ab", "é中", 1),
    ("ab", "ab", -1),
    ("x" * 1200, "y", -1),
    ("\x00", "0", -1),
    ("a", "\x00", -1),
]
REPLACE_IDS = [
    "a_XY",
    "a_deleted",
    "count0",
    "count1",
    "empty_old",
    "empty_old_count2",
    "empty_empty",
    "wide",
    "ab_once",
    "same",
    "longer",
    "nul_old",
    "nul_new",
]


@pytest.mark.parametrize("old,new,count", REPLACES, ids=REPLACE_IDS)
def test_replace(flavor, rng, old, new, count):
    values = plant(rng, plant(rng, sample(rng, flavor), old, 0.6, flavor), old, 0.4, flavor)
    check(
        flavor,
        values,
        lambda cls, a: np.strings.replace(a, old, new, count),
        lambda s: s.replace(as_argument(old), as_argument(new), count),
        python_wins="\x00" in old + new,
    )
    if count == -1:
        check(
            flavor,
            values,
            lambda cls, a: np.strings.replace(a, old, new),
            lambda s: s.replace(as_argument(old), as_argument(new)),
            python_wins="\x00" in old + new,
        )


def test_replace_count_array(flavor, rng):
    values = plant(rng, plant(rng, sample(rng, flavor), "b", 0.7, flavor), "b", 0.7, flavor)
    # Negative counts other than -1 are not tested: NumPy's StringDType loop treats them
    # as 0 for short strings and corrupts the heap for long ones.
    counts = [rng.randint(-1, 3) for _ in values]
    check(
        flavor,
        values,
        lambda cls, a, c: np.strings.replace(a, "b", "<é>", np.array(c)),
        lambda s, c: s.replace("b", "<é>", c),
        extra=(counts,),
    )
    run(lambda cls: np.strings.replace(make(values, flavor, cls), "b", "-", 1.0))


@pytest.mark.parametrize("kind", ["T", "U"])
def test_replace_old_new_arrays(flavor, rng, kind):
    values = sample(rng, flavor)
    olds = [needle_for(rng, v) for v in values]
    news = [rng.choice(["", "-", "é中", "x" * 20]) for _ in values]
    check(
        flavor,
        values,
        lambda cls, a, o, n: np.strings.replace(
            a, strs(cls, o, flavor, kind), strs(cls, n, flavor, kind)
        ),
        lambda s, o, n: s.replace(o, n),
        extra=(olds, news),
    )
    check(
        flavor,
        values,
        lambda cls, a, o: np.strings.replace(a, strs(cls, o, flavor, kind), "+", 1),
        lambda s, o: s.replace(o, "+", 1),
        extra=(olds,),
    )


# ---------------------------------------------------------------------------------------
# expandtabs


def with_tabs(rng, values, flavor):
    out = []
    for v in values:
        if isinstance(v, str) and not is_na(v, flavor) and rng.random() < 0.7:
            chars = list(v)
            for _ in range(rng.randint(1, 4)):
                chars.insert(rng.randint(0, len(chars)), rng.choice(["\t", "\t", "\n", "\r"]))
            v = "".join(chars)
        out.append(v)
    return out


@pytest.mark.parametrize("tabsize", [None, 0, 1, 3, 8, -1], ids=lambda t: f"tab{t}")
def test_expandtabs(flavor, rng, tabsize):
    values = with_tabs(rng, sample(rng, flavor), flavor)
    if tabsize is None:
        check(flavor, values, lambda cls, a: np.strings.expandtabs(a), lambda s: s.expandtabs())
    else:
        check(
            flavor,
            values,
            lambda cls, a: np.strings.expandtabs(a, tabsize),
            lambda s: s.expandtabs(tabsize),
        )


def test_expandtabs_tabsize_array(flavor, rng):
    values = with_tabs(rng, sample(rng, flavor), flavor)
    sizes = [rng.randint(-1, 9) for _ in values]
    check(
        flavor,
        values,
        lambda cls, a, t: np.strings.expandtabs(a, np.array(t)),
        lambda s, t: s.expandtabs(t),
        extra=(sizes,),
    )
