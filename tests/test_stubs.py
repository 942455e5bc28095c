"""The type stubs name what the compiled module has, and nothing it lacks."""

import ast
from pathlib import Path

import numpy as np
import pytest
from conftest import package_only

pytestmark = package_only

# Ufuncs the package makes only where the running NumPy lacks NumPy's own.
ONLY_ON_OLD_NUMPY = {"_center", "_ljust", "_rjust", "_zfill", "_partition", "_rpartition", "_slice"}


def stub_path():
    """The stub beside the module under test (the source tree or an installed wheel)."""
    core = pytest.importorskip("stringdtype._core")
    return Path(core.__file__).resolve().parent / "_core.pyi"


def stub_names():
    tree = ast.parse(stub_path().read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names - {"MemoryInfo"}  # a typing-only TypedDict


def test_stubs_match_the_module():
    core = pytest.importorskip("stringdtype._core")
    public = {name for name in dir(core) if not name.startswith("__")}
    assert stub_names() - ONLY_ON_OLD_NUMPY == public - ONLY_ON_OLD_NUMPY
    assert ONLY_ON_OLD_NUMPY <= stub_names()
    # The package makes its own exactly where NumPy has none.
    umath = np._core.umath
    assert public & ONLY_ON_OLD_NUMPY == {n for n in ONLY_ON_OLD_NUMPY if not hasattr(umath, n)}
