"""Shared fixtures and helpers for the stringdtype test suite.

The implementation under test is ``StringDType`` below.  With the environment variable
``STRINGDTYPE_TEST_REFERENCE=numpy`` it is NumPy's own ``np.dtypes.StringDType``, which
proves that every hard-coded expectation in the suite is NumPy's real behaviour; tests
of package-only functions (``memory_usage``, ``memory_info``) are then skipped.

Helpers:
- ``NUMPY_RELEASE``: the running NumPy's ``(major, minor)``, for expectations that
  follow NumPy's release.
- ``Flavor`` / the ``flavor`` fixture: the eight ``na_object`` x ``coerce`` combinations.
- ``random_strings``: seeded random string lists covering every storage class (empty,
  inline, exactly 12 and 13 UTF-8 bytes, long, non-ASCII, embedded NUL, missing).
- ``outcome`` / ``both``: run one operation on our dtype and on NumPy's and compare the
  values (NaN-aware) or the exception types.
"""

import math
import os
import random
import re
import sys
from dataclasses import dataclass

import numpy as np
import pytest

# Test modules import the helpers below with ``from conftest import ...``; keep that
# working whatever import mode pytest is configured with.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

NumpyStringDType = np.dtypes.StringDType

# The running NumPy as (major, minor): some of NumPy's rules changed between releases (see
# the package's src/numpy_version.rs), and the expectations follow the running release.
NUMPY_RELEASE = tuple(int(part) for part in np.__version__.split(".")[:2])

# A float64 NaN cast to a StringDType with a NaN-like na_object (np.full's fill value goes
# through that cast) is the missing value from NumPy 2.3 on, the string "nan" before.
FLOAT_NAN_IS_MISSING = NUMPY_RELEASE >= (2, 3)

REFERENCE = os.environ.get("STRINGDTYPE_TEST_REFERENCE", "").lower() == "numpy"

if REFERENCE:
    stringdtype = None
    StringDType = NumpyStringDType
else:
    import stringdtype

    StringDType = stringdtype.StringDType

# This package's descriptor's repr names the package (``stringdtype.StringDType()``), so
# that NumPy's messages and array reprs tell it from NumPy's own (``StringDType()``); its
# ``str`` is NumPy's text.
REPR_PREFIX = "" if REFERENCE else "stringdtype."


def as_numpys_repr(text):
    """A repr with NumPy's name of the dtype, and the dtype on the line of the elements (a
    longer name may move it to a line of its own)."""
    text = text.replace(f"{REPR_PREFIX}StringDType(", "StringDType(") if REPR_PREFIX else text
    return re.sub(r",\s+dtype=", ", dtype=", text)


package_only = pytest.mark.skipif(
    REFERENCE, reason="tests a stringdtype-only function or guarantee"
)


class _Unset:
    """Marks a dtype parameter that is left at its default."""

    def __repr__(self):
        return "unset"


UNSET = _Unset()
NA_STRING = "__nan__"
NA_OBJECTS = [UNSET, None, np.nan, NA_STRING]
NA_IDS = ["unset", "None", "nan", "str"]


@dataclass(frozen=True)
class Flavor:
    """One combination of ``na_object`` and ``coerce``."""

    na_object: object
    coerce: bool

    @property
    def kwargs(self):
        kwargs = {} if self.coerce else {"coerce": False}
        if self.na_object is not UNSET:
            kwargs["na_object"] = self.na_object
        return kwargs

    @property
    def has_na(self):
        return self.na_object is not UNSET

    @property
    def na_is_nan(self):
        return is_nan(self.na_object)

    def dtype(self, cls=None):
        """A descriptor of ``cls`` (default: the implementation under test)."""
        return (cls or StringDType)(**self.kwargs)

    def ref(self):
        return NumpyStringDType(**self.kwargs)

    def __str__(self):
        na = next(name for name, o in zip(NA_IDS, NA_OBJECTS) if o is self.na_object)
        return f"na_{na}-{'coerce' if self.coerce else 'nocoerce'}"


FLAVORS = [Flavor(na, coerce) for na in NA_OBJECTS for coerce in (True, False)]


@pytest.fixture(params=FLAVORS, ids=str)
def flavor(request):
    return request.param


@pytest.fixture(params=[f for f in FLAVORS if f.has_na], ids=str)
def na_flavor(request):
    return request.param


@pytest.fixture(params=[f for f in FLAVORS if f.coerce], ids=str)
def coerce_flavor(request):
    return request.param


@pytest.fixture
def rng(request):
    # One seed per test, stable across runs and independent of test order.
    return random.Random(request.node.nodeid)


@pytest.fixture
def strings(flavor, rng):
    return random_strings(rng, 60, flavor.na_object)


# ---------------------------------------------------------------------------------------
# Random strings

# Characters of 2, 3 and 4 UTF-8 bytes, so that byte lengths differ from code points.
WIDE_CHARS = ["é", "ß", "ü", "ř", "中", "日", "€", "😀", "🐍", "𝄞"]
ASCII_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-_!?"
KINDS = ["empty", "short", "twelve", "thirteen", "long", "non_ascii", "nul", "na"]


def forge(arr, i, raw):
    """Writes the 16 bytes ``raw`` over element ``i`` of the 1-D array ``arr``: an element
    the arena never wrote."""
    import ctypes

    ctypes.memmove(arr.ctypes.data + i * arr.strides[0], bytes(raw), 16)


def utf8_len(s):
    return len(s.encode("utf-8"))


def exact_bytes(rng, nbytes, wide=0.3):
    """A random string of exactly ``nbytes`` UTF-8 bytes, mixing 1-4 byte characters."""
    out = []
    remaining = nbytes
    while remaining:
        fitting = [c for c in WIDE_CHARS if utf8_len(c) <= remaining]
        if fitting and rng.random() < wide:
            c = rng.choice(fitting)
        else:
            c = rng.choice(ASCII_CHARS)
        out.append(c)
        remaining -= utf8_len(c)
    s = "".join(out)
    assert utf8_len(s) == nbytes
    return s


def random_string(rng, kind, na_object=UNSET):
    if kind == "empty":
        return ""
    if kind == "short":
        return exact_bytes(rng, rng.randint(1, 12), wide=0.0)
    if kind == "twelve":
        return exact_bytes(rng, 12)
    if kind == "thirteen":
        return exact_bytes(rng, 13)
    if kind == "long":
        return exact_bytes(rng, rng.randint(100, 1000))
    if kind == "non_ascii":
        return exact_bytes(rng, rng.randint(1, 40), wide=0.9)
    if kind == "nul":
        return rng.choice(["a\x00b", "\x00", "x" * 13 + "\x00" + "y", "中\x00é"])
    if kind == "na":
        return na_object
    raise ValueError(kind)


def random_strings(rng, n, na_object=UNSET):
    """``n`` strings with every kind present (NA only when ``na_object`` is set)."""
    kinds = [k for k in KINDS if k != "na" or na_object is not UNSET]
    chosen = kinds + [rng.choice(kinds) for _ in range(max(0, n - len(kinds)))]
    rng.shuffle(chosen)
    return [random_string(rng, kind, na_object) for kind in chosen[:n]]


def long_string(rng, nbytes=100):
    return exact_bytes(rng, nbytes)


# ---------------------------------------------------------------------------------------
# Comparing results


def is_nan(x):
    return isinstance(x, (float, np.floating)) and math.isnan(x)


class _NanToken:
    def __repr__(self):
        return "NaN"

    def __eq__(self, other):
        return isinstance(other, _NanToken)

    def __hash__(self):
        return 0


NAN = _NanToken()


def normalize(x):
    """Make ``x`` comparable with ``==``: NaN equals NaN, str subclasses are told apart."""
    if isinstance(x, (list, tuple)):
        return [normalize(v) for v in x]
    if is_nan(x):
        return NAN
    if isinstance(x, str) and type(x) is not str:
        return (type(x).__name__, str(x))
    return x


def is_string_dtype(dtype):
    return isinstance(dtype, (StringDType, NumpyStringDType))


def describe(result):
    """A comparable summary of an operation's result."""
    if isinstance(result, np.ndarray):
        dtype = result.dtype
        dtype_id = str(dtype) if is_string_dtype(dtype) else dtype.str
        return ("array", dtype_id, result.shape, normalize(result.tolist()))
    if isinstance(result, np.generic):
        return (type(result).__name__, normalize(result.item()))
    return normalize(result)


def error_or_result(fn):
    """``("ok", fn())``, or ``("error", exception type, message)``: for comparing two ways
    of running one call, errors included."""
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the error is the outcome
        return ("error", type(exc), str(exc))


def outcome(fn, *args):
    """``("ok", describe(result))`` or ``("raises", exception type)``."""
    try:
        result = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the type is the outcome
        return ("raises", type(exc))
    return ("ok", describe(result))


def both(fn):
    """Run ``fn(cls)`` with our StringDType class and NumPy's; the outcomes must agree.

    String-dtype results of our side must use our class.  Returns our outcome.
    """

    def checked(cls):
        result = fn(cls)
        if isinstance(result, np.ndarray) and is_string_dtype(result.dtype):
            assert type(result.dtype) is cls, (type(result.dtype), cls)
        return result

    ours = outcome(checked, StringDType)
    numpys = outcome(checked, NumpyStringDType)
    assert ours == numpys
    return ours


def assert_same_list(actual, expected):
    assert normalize(actual) == normalize(expected)


def assert_plain_str_or_na(values, flavor):
    """Every element is exactly ``str`` or is the flavor's na_object."""
    for v in np.asarray(values, dtype=object).ravel():
        if flavor.has_na and (v is flavor.na_object or (flavor.na_is_nan and is_nan(v))):
            continue
        assert type(v) is str, (type(v), v)


def expected_strings(values, flavor):
    """What an array built from ``values`` must read back as: NA stays NA, rest ``str``."""
    out = []
    for v in values:
        if isinstance(v, list):
            out.append(expected_strings(v, flavor))
        elif flavor.has_na and (v is flavor.na_object or (flavor.na_is_nan and is_nan(v))):
            out.append(flavor.na_object)
        elif isinstance(v, bytes):
            out.append(v.decode("utf-8"))
        else:
            out.append(str(v))
    return out


# ---------------------------------------------------------------------------------------
# The package's thread pool


@pytest.fixture
def pool_settings_restored():
    """Puts the pool's thread count and part span back after a test that sets them."""
    from stringdtype import _core

    before = _core._pool_threads()
    yield
    _core._set_pool_threads(before)
    _core._set_part_span(64)


# ---------------------------------------------------------------------------------------
# Running code that may crash or hang


def call_from_threads(calls, check, threads, rounds):
    """Runs ``calls`` (a dict of name to function) from ``threads`` Python threads at once,
    each calling ``rounds`` of them in turn, and returns what went wrong: ``(thread,
    name)`` where ``check(name, result)`` is false, ``(thread, repr(exception))`` where a
    call raised. Every thread must end within two minutes."""
    import threading

    names = list(calls)
    failures = []

    def worker(k):
        try:
            for j in range(rounds):
                name = names[(k + j) % len(names)]
                if not check(name, calls[name]()):
                    failures.append((k, name))
        except Exception as exc:  # noqa: BLE001
            failures.append((k, repr(exc)))

    running = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in running)
    return failures


def run_isolated(code, timeout=60):
    """Runs ``code`` in a fresh interpreter (with this suite's StringDType importable as
    ``StringDType``) and returns its standard output. A crash, a hang past ``timeout``
    seconds or an uncaught exception fails the calling test with what the child said;
    the suite itself survives all three."""
    import subprocess
    import textwrap

    prelude = "import numpy as np\n" + (
        "StringDType = np.dtypes.StringDType\n"
        if REFERENCE
        else "from stringdtype import StringDType\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"hung for {timeout} s; output so far:\n{exc.stdout}\n{exc.stderr}")
    if done.returncode != 0:
        how = (
            f"killed by signal {-done.returncode}"
            if done.returncode < 0
            else f"exit status {done.returncode}"
        )
        pytest.fail(f"child process {how}:\n{done.stdout}\n{done.stderr}")
    return done.stdout
