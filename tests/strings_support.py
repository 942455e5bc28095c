"""Inputs and comparison functions shared by the ``np.strings`` test modules.

- ``SPECIAL``: strings whose case mapping, classification or width is unusual.
- ``sample``: random strings (``conftest.random_strings``) plus ``SPECIAL``, shuffled.
- ``plant`` / ``pad``: put a substring inside, or characters around, some of the values.
- ``run``: ``conftest.both`` for operations that may return a tuple of arrays.
- ``check``: ``run`` on the values for our dtype and NumPy's, then the same operation on
  the "clean" values (no NA, no NUL) against Python's ``str`` methods.
- ``NEGATIVE_WIDTHS_OK`` / ``python_only_for_width``: NumPy before 2.3 crashes on negative
  widths, which are then compared with Python only.
"""

import numpy as np
import pytest
from conftest import (
    NUMPY_RELEASE,
    REFERENCE,
    NumpyStringDType,
    StringDType,
    describe,
    is_nan,
    is_string_dtype,
    normalize,
    outcome,
    random_strings,
)

# Case mappings that change the length ("ß", "ﬁ", "İ"), the final sigma rule ("ΟΔΟΣ"),
# titlecase digraphs ("ǅ"), Cherokee and Georgian (cased scripts added late to Unicode),
# combining marks, and characters that are digits/numerics but not decimals.
SPECIAL = [
    "ß",
    "straße",
    "ﬁx ﬂow",
    "İstanbul",
    "ΟΔΟΣ",
    "ὈΔΥΣΣΕΎΣ",
    "σς Σ",
    "ǅemal ǆ Ǆ",
    "ǆa",
    "Ꭰꭰ Ꮳ ᏸ",
    "ᏸᏹ",
    "ქართული ᲥᲐᲠᲗᲣᲚᲘ",
    "e\u0301te\u0301",
    "ǰ",
    "a\u0308\u0301B",
    "²³",
    "٣٤٥",
    "一二三",
    "Ⅷ ⅷ",
    "½",
    "123",
    "-12",
    "+7",
    "1.5",
    "Hello World",
    "Hello world",
    "hello world",
    "HELLO WORLD",
    "They'Re Bill'S",
    "a1b2 C3d4",
    " \t\n\x0b\x0c\r",
    "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u3000",
    "\u200b",
    "a\tb\tc",
    "ab\tcd\n\tefg\r\th",
    "😀🐍",
]


INTERIOR_NUL = "\x00\x00z"

# NumPy's own StringDType before 2.3 aborts or segfaults on a negative width in center,
# ljust, rjust and zfill (this package does not): such widths never reach it there.
NEGATIVE_WIDTHS_OK = NUMPY_RELEASE >= (2, 3)


def python_only_for_width(width):
    """Whether ``width`` must be checked against Python only (``check``'s ``python_wins``);
    skips the reference run, which has nothing to compare then."""
    if width >= 0 or NEGATIVE_WIDTHS_OK:
        return False
    if REFERENCE:
        pytest.skip("NumPy before 2.3 crashes on negative widths")
    return True


def sample(rng, flavor, n=50, special=True):
    """``n`` random strings of every storage class (NA for NA flavors) plus ``SPECIAL``."""
    values = random_strings(rng, n, flavor.na_object)
    # A trailing NUL is padding for NumPy (see test_strings.py); those strings are
    # covered by the NUL tests, the others keep NULs at the start and in the middle.
    values = [INTERIOR_NUL if v == "\x00" else v for v in values]
    if special:
        values += SPECIAL
        rng.shuffle(values)
    return values


def is_na(value, flavor):
    if not flavor.has_na:
        return False
    if flavor.na_is_nan:
        return is_nan(value)
    return value is flavor.na_object or (
        isinstance(value, str) and isinstance(flavor.na_object, str) and value == flavor.na_object
    )


def is_clean(value, flavor, nul_ok=False):
    """Whether Python's ``str`` methods define NumPy's result for this element.

    NumPy's StringDType kernels share code with the fixed-width ``U``/``S`` kernels, where
    trailing NULs are padding; strings and arguments containing NUL are therefore only
    compared against NumPy itself (see the NUL tests in test_strings.py).
    """
    if isinstance(value, str):
        return (nul_ok or not value.endswith("\x00")) and not is_na(value, flavor)
    return not is_na(value, flavor)


def plant(rng, values, needle, fraction=0.5, flavor=None):
    """Insert ``needle`` at a random position of about ``fraction`` of the strings."""
    out = []
    for v in values:
        if isinstance(v, str) and not (flavor and is_na(v, flavor)) and rng.random() < fraction:
            i = rng.randint(0, len(v))
            v = v[:i] + needle + v[i:]
        out.append(v)
    return out


def pad(rng, values, chars, fraction=0.6, flavor=None):
    """Surround about ``fraction`` of the strings with random runs of ``chars``."""
    out = []
    for v in values:
        if isinstance(v, str) and not (flavor and is_na(v, flavor)) and rng.random() < fraction:
            left = "".join(rng.choice(chars) for _ in range(rng.randint(0, 4)))
            right = "".join(rng.choice(chars) for _ in range(rng.randint(0, 4)))
            v = left + v + right
        out.append(v)
    return out


def make(values, flavor, cls=None):
    return np.array(values, dtype=flavor.dtype(cls or StringDType))


def _flat(values):
    if isinstance(values, list):
        return [x for v in values for x in _flat(v)]
    return [values]


def _is_array_description(x):
    return isinstance(x, (list, tuple)) and len(x) == 4 and x[0] == "array"


def _explain(ours, numpys):
    """Where two outcomes differ: exception types, dtype/shape, or the first elements."""
    if ours[0] != numpys[0] or ours[0] == "raises":
        return f"ours {ours[0]} {ours[1]!r:.300}, NumPy {numpys[0]} {numpys[1]!r:.300}"
    parts = []
    a, b = ours[1], numpys[1]
    pairs = list(zip(a, b)) if isinstance(a, list) and len(a) == len(b) else [(a, b)]
    for k, (x, y) in enumerate(pairs):
        if x == y:
            continue
        if _is_array_description(x) and _is_array_description(y):
            if x[:3] != y[:3]:
                parts.append(f"[{k}] ours {x[:3]}, NumPy {y[:3]}")
                continue
            fx, fy = _flat(x[3]), _flat(y[3])
            diffs = [(i, u, v) for i, (u, v) in enumerate(zip(fx, fy)) if u != v]
            shown = ", ".join(f"#{i}: ours {u!r:.80} NumPy {v!r:.80}" for i, u, v in diffs[:4])
            parts.append(f"[{k}] {len(diffs)} elements differ: {shown}")
        else:
            parts.append(f"[{k}] ours {x!r:.200}, NumPy {y!r:.200}")
    return "; ".join(parts) or "outcomes differ"


def run(fn):
    """Like ``conftest.both``; ``fn(cls)`` may also return a tuple of arrays, and a
    difference is reported element by element."""

    def checked(cls):
        result = fn(cls)
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, np.ndarray) and is_string_dtype(r.dtype):
                assert type(r.dtype) is cls, (type(r.dtype), cls)
        if isinstance(result, tuple):
            return [describe(r) for r in result]
        return result

    __tracebackhide__ = True
    ours = outcome(checked, StringDType)
    numpys = outcome(checked, NumpyStringDType)
    if ours != numpys:
        raise AssertionError("differs from NumPy: " + _explain(ours, numpys))
    return ours


def as_python(result):
    """Element values of a result (tuples of arrays become lists of tuples)."""
    if isinstance(result, tuple):
        return list(zip(*[as_python(r) for r in result]))
    if isinstance(result, np.ndarray):
        return result.tolist()
    return result


def check(flavor, values, fn, expected=None, extra=(), python_wins=False):
    """Compare ``fn(cls, a, *extra)`` for both classes; then against Python's ``str``.

    ``extra`` are lists aligned with ``values`` (needles, widths, ...) that ``fn`` turns
    into arrays itself.  ``expected(s, *items)`` is the Python result for one element;
    when it raises ``ValueError`` for any clean element, the whole operation must raise
    ``ValueError`` (``index``, ``rindex``).

    ``python_wins`` marks a case where NumPy's StringDType departs from Python's ``str``
    (NumPy bugs: a trailing NUL taken for padding, ``strip`` characters skipped after a
    non-ASCII one): this package follows Python there, so outside the reference run the
    result is compared with Python's on every element, NULs included, not with NumPy's.
    """
    __tracebackhide__ = True
    if REFERENCE or not python_wins:
        run(lambda cls: fn(cls, make(values, flavor, cls), *extra))
    if expected is None or (REFERENCE and python_wins):
        return
    keep = [
        i
        for i, v in enumerate(values)
        if is_clean(v, flavor, python_wins)
        and all(is_clean(e[i], flavor, python_wins) for e in extra)
    ]
    assert keep, "no clean values to compare against Python"
    clean = [values[i] for i in keep]
    clean_extra = [[e[i] for i in keep] for e in extra]
    wanted = []
    not_found = False
    for i in keep:
        try:
            wanted.append(expected(values[i], *(e[i] for e in extra)))
        except ValueError:
            not_found = True
    a = make(clean, flavor)
    before = a.tolist()
    if not_found:
        try:
            fn(StringDType, a, *clean_extra)
        except ValueError:
            return
        raise AssertionError("expected ValueError like Python's str method")
    got = as_python(fn(StringDType, a, *clean_extra))
    if normalize(got) != normalize(wanted):
        rows = [
            (clean[k], *(e[k] for e in clean_extra), g, w)
            for k, (g, w) in enumerate(zip(got, wanted))
            if normalize(g) != normalize(w)
        ]
        raise AssertionError(f"differs from Python (input, args..., got, expected): {rows[:5]}")
    assert a.tolist() == before


def as_argument(value):
    """What a Python ``str`` argument becomes on its way into a ufunc: ``np.strings``
    makes it a ``U`` array, which drops trailing NULs."""
    return value if value is None else value.rstrip("\x00")


def needle_for(rng, value):
    if not isinstance(value, str) or rng.random() < 0.15:
        return rng.choice(["", "é", "zz", "中"])
    if rng.random() < 0.15:
        return value + "x"  # longer than the haystack
    i = rng.randint(0, len(value))
    j = rng.randint(i, min(len(value), i + 4))
    # A trailing NUL makes NumPy search for a shorter needle (see test_nul_characters).
    return value[i:j].rstrip("\x00")
