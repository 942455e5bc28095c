"""The test matrix: one session per supported (Python, NumPy) pair.

    nox -s matrix                                  # every pair (docs/platforms.md)
    nox -t edges                                   # the pairs CI runs (EDGES below)
    nox -s "matrix(python='3.12', numpy='2.5')"     # one pair; `nox -l` lists them

The extension is built once per Python: a release wheel, cached in .nox/wheels/ under a
hash of the sources, is installed with the test extras into each pair's environment.
pytest runs on a copy of tests/ in the session's temporary folder, so it imports the
installed wheel, never the source tree. Arguments after `--` go to pytest (which runs
tests/, its `testpaths`, when they name no test).

CPython 3.14 and 3.15, where this machine lacks them, come from tools/newer_pythons.sh (a
Debian root filesystem, made on first use): the session of such a pair runs nox there
under the same session name, with the same arguments.

The release wheels (manylinux, stripped, checked, tested without Rust) are built by
tools/build_wheels.sh.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
WHEELS = ROOT / ".nox" / "wheels"

# The supported NumPy minor releases for each Python: every pair pip can install, which is
# every pair NumPy publishes wheels for (NumPy 2.2 is the last for Python 3.10, 2.3 the
# first for 3.14; 2.5 needs Python 3.12 and is the first for 3.15). Keep in step with
# pyproject.toml, README.md and docs/platforms.md.
NUMPY_FOR_PYTHON = {
    "3.10": ["2.2"],
    "3.11": ["2.2", "2.3", "2.4"],
    "3.12": ["2.2", "2.3", "2.4", "2.5"],
    "3.13": ["2.2", "2.3", "2.4", "2.5"],
    "3.14": ["2.3", "2.4", "2.5"],
    "3.15": ["2.5"],
}
# The Pythons that tools/newer_pythons.sh provides where this machine has none.
NEWER_PYTHONS = ("3.14", "3.15")
nox.options.sessions = ["matrix"]


# The pairs CI runs (tag `edges`), seven that keep .ci/run within its time: every Python,
# and every NumPy release with its oldest and its newest Python, except that 2.3 and 2.4,
# released for the same Pythons (3.11-3.14), share those two (2.4 with 3.11, 2.3 with
# 3.14); and 3.14 also with its newest NumPy. `nox -s matrix` runs every pair.
EDGES = {
    ("3.10", "2.2"),
    ("3.13", "2.2"),
    ("3.11", "2.4"),
    ("3.14", "2.3"),
    ("3.12", "2.5"),
    ("3.14", "2.5"),
    ("3.15", "2.5"),
}


def _runs(command: str) -> bool:
    try:
        return subprocess.run([command, "-c", ""], capture_output=True, check=False).returncode == 0
    except OSError:
        return False


def _expose_pyenv_interpreters() -> None:
    """Put each supported Python that pyenv installed but does not activate (its shim then
    fails) on PATH, through links in .nox/pythons/, so that nox finds it."""
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    links = ROOT / ".nox" / "pythons"
    for python in NUMPY_FOR_PYTHON:
        name = f"python{python}"
        if _runs(name):
            continue
        found = sorted(versions.glob(f"{python}.*/bin/{name}"))
        if found:
            links.mkdir(parents=True, exist_ok=True)
            link = links / name
            link.unlink(missing_ok=True)
            link.symlink_to(found[-1])
    if links.is_dir():
        os.environ["PATH"] = f"{links}{os.pathsep}{os.environ['PATH']}"


_expose_pyenv_interpreters()


def _pair(python: str, numpy: str) -> nox.param:
    """One pair's session. For a Python that only tools/newer_pythons.sh has, a session
    without an environment here (python=False) under the same name, which runs there."""
    tags = ["edges"] if (python, numpy) in EDGES else []
    if python in NEWER_PYTHONS and not _runs(f"python{python}"):
        return nox.param(False, numpy, id=f"python='{python}', numpy='{numpy}'", tags=tags)
    return nox.param(python, numpy, tags=tags)


def _source_hash() -> str:
    """A hash of everything that goes into a wheel."""
    digest = hashlib.sha256()
    files = [ROOT / name for name in ("Cargo.toml", "Cargo.lock", "pyproject.toml", "README.md")]
    files.append(ROOT / ".cargo" / "config.toml")
    for folder in ("src", "crates", "stringdtype"):
        files += [
            p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts
        ]
    for path in sorted(files):
        if path.is_file():
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _wheel(session: nox.Session) -> Path:
    """The release wheel for the session's Python, built on first use."""
    folder = WHEELS / _source_hash()
    tag = "cp" + session.python.replace(".", "")
    found = sorted(folder.glob(f"stringdtype-*-{tag}-{tag}-*.whl"))
    if not found:
        session.install("maturin>=1.5,<2")
        python = Path(session.virtualenv.location) / "bin" / "python"
        session.run("maturin", "build", "--release", "-i", str(python), "-o", str(folder))
        found = sorted(folder.glob(f"stringdtype-*-{tag}-{tag}-*.whl"))
    return found[-1]


def run_tests(session: nox.Session, *extra: str) -> None:
    """pytest on a copy of tests/, from a folder where the source package is not importable."""
    tmp = Path(session.create_tmp())
    shutil.rmtree(tmp / "tests", ignore_errors=True)
    shutil.copytree(ROOT / "tests", tmp / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    # pytest's configuration, and a root there: test ids (which seed the random strings)
    # are then the same as in the source tree.
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    session.chdir(tmp)
    session.run(
        "python",
        "-c",
        "import sys, numpy, stringdtype; "
        "print('Python', sys.version.split()[0], '| NumPy', numpy.__version__, "
        "'| stringdtype from', stringdtype.__file__)",
    )
    session.run("python", "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", *extra)


@nox.session
@nox.parametrize(
    ("python", "numpy"),
    [_pair(python, numpy) for python, numpys in NUMPY_FOR_PYTHON.items() for numpy in numpys],
)
def matrix(session: nox.Session, numpy: str) -> None:
    """The test suite with one NumPy minor release (its newest patch) on one Python."""
    if session.python is False:
        _run_in_newer_pythons(session)
        return
    wheel = _wheel(session)
    session.install("--only-binary", "numpy", f"{wheel}[test]", f"numpy=={numpy}.*")
    run_tests(session, *session.posargs)


def _run_in_newer_pythons(session: nox.Session) -> None:
    """This session, run by a nox inside tools/newer_pythons.sh's root filesystem (installed
    on first use into .nox/newer-pythons/nox with the newest Python there)."""
    nox_env = ROOT / ".nox" / "newer-pythons" / "nox"
    install_and_run = (
        f'[ -x "$0/bin/nox" ] || {{ python{NEWER_PYTHONS[-1]} -m venv "$0" '
        '&& "$0/bin/pip" install -q "nox>=2024.4"; }; exec "$0/bin/nox" "$@"'
    )
    session.run(
        str(ROOT / "tools" / "newer_pythons.sh"),
        *("bash", "-c", install_and_run, str(nox_env)),
        *("--noxfile", str(ROOT / "noxfile.py"), "-s", session.name),
        *("--", *session.posargs),
        external=True,
    )
