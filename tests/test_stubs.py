"""The type stubs name what the compiled module has, and nothing it lacks."""

import ast
from pathlib import Path

import numpy as np
import pytest
from conftest import NUMPY_RELEASE, package_only

pytestmark = package_only


def catalog():
    """The package's own ufuncs: ``(name, numpy_since, nin, nout, doc)`` tuples."""
    return pytest.importorskip("stringdtype._core")._catalog()


def only_on_old_numpy():
    """The ufuncs the package makes only where the running NumPy lacks NumPy's own."""
    return {name for name, since, *_ in catalog() if since is not None}


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
    old_numpy = only_on_old_numpy()
    assert stub_names() - old_numpy == public - old_numpy
    assert old_numpy <= stub_names()
    # The package makes its own exactly where NumPy has none.
    umath = np._core.umath
    assert public & old_numpy == {n for n in old_numpy if not hasattr(umath, n)}


def stub_ufuncs():
    """The names that the stub of ``_core`` annotates as ``np.ufunc``."""
    return {
        node.target.id
        for node in stub_nodes()
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation) == "np.ufunc"
    }


def test_stub_lists_the_catalog():
    assert stub_ufuncs() == {name for name, *_ in catalog()}


def test_catalog_matches_the_ufuncs():
    """Each ufunc of the catalog is NumPy's from its release on, else the package's own."""
    core = pytest.importorskip("stringdtype._core")
    for name, since, nin, nout, doc in catalog():
        numpy_has = since is not None and NUMPY_RELEASE >= since
        assert hasattr(np._core.umath, name) == numpy_has, name
        assert hasattr(core, name) != numpy_has, name
        ufunc = getattr(np._core.umath if numpy_has else core, name)
        assert (ufunc.__name__, ufunc.nin, ufunc.nout) == (name, nin, nout)
        if not numpy_has:
            assert doc in ufunc.__doc__, name


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
