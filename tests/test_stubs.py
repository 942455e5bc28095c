"""The type stubs name what the compiled module has, and nothing it lacks."""

import ast
from pathlib import Path

import numpy as np
import pytest
from conftest import package_only

pytestmark = package_only

# Ufuncs the package makes only where the running NumPy lacks NumPy's own.
ONLY_ON_OLD_NUMPY = {"_slice"}


def stub_path():
    """The stub beside the module under test (the source tree or an installed wheel)."""
    core = pytest.importorskip("stringdtype._core")
    return Path(core.__file__).resolve().parent / "_core.pyi"


def stub_nodes(name="_core"):
    return ast.parse((stub_path().parent / f"{name}.pyi").read_text(encoding="utf-8")).body


def stub_names(name="_core"):
    names = set()
    for node in stub_nodes(name):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {n for n in names if not n.startswith("_") or name == "_core"} - {"MemoryInfo"}


def test_stubs_match_the_module():
    core = pytest.importorskip("stringdtype._core")
    public = {name for name in dir(core) if not name.startswith("__")}
    assert stub_names() - ONLY_ON_OLD_NUMPY == public - ONLY_ON_OLD_NUMPY
    assert ONLY_ON_OLD_NUMPY <= stub_names()
    # The package makes its own exactly where NumPy has none.
    umath = np._core.umath
    assert public & ONLY_ON_OLD_NUMPY == {n for n in ONLY_ON_OLD_NUMPY if not hasattr(umath, n)}


def stub_parameters(name):
    """Each function of stub ``name`` with its parameter names."""
    return {
        node.name: [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        for node in stub_nodes(name)
        if isinstance(node, ast.FunctionDef)
    }


@pytest.mark.parametrize("name", ["regex", "strings"])
def test_python_module_stubs_match(name):
    import importlib
    import inspect

    module = importlib.import_module(f"stringdtype.{name}")
    own = set(module.__all__) - set(np.strings.__all__) if name == "strings" else None
    if name == "regex":
        assert stub_names(name) == set(module.__all__)
    else:
        assert own <= stub_names(name) | set(getattr(module, "_BACKPORTS", ()))
    for function, parameters in stub_parameters(name).items():
        signature = inspect.signature(getattr(module, function))
        assert list(signature.parameters) == parameters, function
