"""NumPy's own tests of its StringDType, run against this package: the running NumPy's
``numpy/_core/tests/test_stringdtype.py`` (every NumPy wheel ships it), copied with this
package's ``StringDType`` in place of NumPy's (the import, ``np.dtypes.StringDType``, and
the dtype ``"T"`` given to ``np.array`` and ``astype``), run by pytest in a child process.

Every test of the file must pass except those in ``NUMPY_ONLY``, which check NumPy's own
implementation rather than a StringDType's behaviour, and those in ``DIFFERENCES``, where
the package differs from the running NumPy on purpose. With
``STRINGDTYPE_TEST_REFERENCE=numpy`` the file runs unchanged and every test must pass, as
the comparison assumes.

To run the copy by hand (NumPy's file, this package's dtype), for example on NumPy 2.5.5::

    python tests/test_numpy_suite.py /tmp/numpy-suite && python -m pytest -c /dev/null \\
        --rootdir /tmp/numpy-suite /tmp/numpy-suite/test_numpy_stringdtype.py
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from conftest import NUMPY_RELEASE, REFERENCE

NUMPY_TESTS = Path(np.__file__).parent / "_core" / "tests" / "test_stringdtype.py"

# The tests of NumPy's file that cannot pass with another StringDType (a test id without
# its parameters, or a class), and why.
NUMPY_ONLY = {
    "test_dtype_creation": "it checks that np.dtype('T') is the StringDType under test",
    "TestImplementation": "it reads NumPy's element layout (packed strings, arena) as bytes",
}

# Where the package differs from the running NumPy on purpose (src/numpy_version.rs).
DIFFERENCES = {
    "test_dtype_repr": "the repr names the package: stringdtype.StringDType() (str is NumPy's)",
}
if NUMPY_RELEASE < (2, 3):
    DIFFERENCES["test_string_too_large_error"] = (
        "a multiply result too long is an OverflowError on every release (NumPy 2.2: MemoryError)"
    )

# (pattern, replacement, whether the running NumPy's file must contain it)
SUBSTITUTIONS = [
    (r"^from numpy\.dtypes import StringDType$", "from stringdtype import StringDType", True),
    (r"\bnp\.dtypes\.StringDType\b", "StringDType", True),
    (r"\bdtype=\"T\"", "dtype=StringDType()", True),
    (r"\.astype\(\"T\"", ".astype(StringDType()", True),
]


def with_this_package(text):
    """NumPy's test file with this package's StringDType in place of NumPy's."""
    for pattern, replacement, required in SUBSTITUTIONS:
        text, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        assert count or not required, f"NumPy's test file no longer has {pattern!r}"
    return text


# NumPy up to 2.3 keeps some fixtures of the file in numpy/conftest.py, which a copy does
# not see; these are the same, for the StringDType under test (the file's own, from 2.4 on,
# take precedence).
FIXTURES = """\
import string

import numpy as np
import pytest
from numpy._core.tests._natype import pd_NA

{import_line}


@pytest.fixture
def random_string_list():
    chars = np.array(list(string.ascii_letters + string.digits), dtype="U1")
    return np.random.choice(chars, size=100 * 10, replace=True).view("U100")


@pytest.fixture(params=[True, False])
def coerce(request):
    return request.param


@pytest.fixture(
    params=["unset", None, pd_NA, np.nan, float("nan"), "__nan__"],
    ids=["unset", "None", "pandas.NA", "np.nan", "float('nan')", "string nan"],
)
def na_object(request):
    return request.param


@pytest.fixture
def dtype(na_object, coerce):
    if na_object is pd_NA or na_object != "unset":
        return StringDType(na_object=na_object, coerce=coerce)
    return StringDType(coerce=coerce)
"""


def write_suite(folder, reference=False):
    """Writes the test file to run (and its fixtures) into ``folder``; returns its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    text = NUMPY_TESTS.read_text(encoding="utf-8")
    target = folder / "test_numpy_stringdtype.py"
    target.write_text(text if reference else with_this_package(text), encoding="utf-8")
    package = "numpy.dtypes" if reference else "stringdtype"
    fixtures = FIXTURES.format(import_line=f"from {package} import StringDType")
    (folder / "conftest.py").write_text(fixtures, encoding="utf-8")
    return target


def outcomes(junit):
    """``{test id: "passed" | "failed" | "skipped"}`` from pytest's JUnit XML report."""
    results = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        classname = case.get("classname", "").split(".")
        test = "::".join(
            [part for part in classname[1:] if part[:1].isupper()] + [case.get("name")]
        )
        if case.find("failure") is not None or case.find("error") is not None:
            results[test] = "failed"
        elif case.find("skipped") is not None:
            results.setdefault(test, "skipped")
        else:
            results.setdefault(test, "passed")
    return results


def without_parameters(test):
    return test.split("[", 1)[0]


@pytest.mark.skipif(not NUMPY_TESTS.is_file(), reason="this NumPy ships without its tests")
def test_numpy_stringdtype_tests_pass(tmp_path):
    suite = write_suite(tmp_path / "suite", reference=REFERENCE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    junit = tmp_path / "report.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path)]
    command += [f"--junitxml={junit}", str(suite)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env, check=False
    )
    assert junit.is_file(), done.stdout + done.stderr
    results = outcomes(junit)
    failed = sorted(test for test, result in results.items() if result == "failed")
    allowed = {} if REFERENCE else {**NUMPY_ONLY, **DIFFERENCES}
    unexpected = [
        test
        for test in failed
        if without_parameters(test) not in allowed and test.split("::")[0] not in allowed
    ]
    summary = done.stdout[-3000:]
    assert not unexpected, f"NumPy's tests that fail here: {unexpected}\n{summary}"
    assert sum(result == "passed" for result in results.values()) > 1000, summary


if __name__ == "__main__":
    print(write_suite(sys.argv[1] if len(sys.argv) > 1 else "numpy-suite"))
