"""The test matrix: one session per supported (Python, NumPy) pair.

    nox -s matrix                                  # every pair (docs/platforms.md)
    nox -t edges                                   # oldest and newest NumPy per Python (CI)
    nox -s "matrix(python='3.12', numpy='2.5')"     # one pair; `nox -l` lists them

The extension is built once per Python: a release wheel, cached in .nox/wheels/ under a
hash of the sources, is installed with the test extras into each pair's environment.
pytest runs on a copy of tests/ in the session's temporary folder, so it imports the
installed wheel, never the source tree. Arguments after `--` go to pytest (which runs
tests/, its `testpaths`, when they name no test).

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

# The supported NumPy minor releases for each Python: every pair pip can install
# (NumPy 2.2 is the last for Python 3.10, 2.5 needs Python 3.12). Keep in step with
# pyproject.toml, README.md and docs/platforms.md.
NUMPY_FOR_PYTHON = {
    "3.10": ["2.2"],
    "3.11": ["2.2", "2.3", "2.4"],
    "3.12": ["2.2", "2.3", "2.4", "2.5"],
    "3.13": ["2.2", "2.3", "2.4", "2.5"],
}
nox.options.sessions = ["matrix"]


def _pair(python: str, numpy: str) -> nox.param:
    versions = NUMPY_FOR_PYTHON[python]
    tags = ["edges"] if numpy in (versions[0], versions[-1]) else []
    return nox.param(python, numpy, tags=tags)


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
    wheel = _wheel(session)
    session.install("--only-binary", "numpy", f"{wheel}[test]", f"numpy=={numpy}.*")
    run_tests(session, *session.posargs)
