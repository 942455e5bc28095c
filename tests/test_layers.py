"""The Rust crates and the Python package keep their shape: no import cycle between files,
no file over the size limit (tools/check_layers.py, which this runs)."""

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "check_layers.py"


@pytest.fixture(scope="module")
def check_layers():
    if not TOOL.exists():  # running from an installed wheel's copy of the tests
        pytest.skip("needs the source tree")
    spec = importlib.util.spec_from_file_location("check_layers", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_cycles_and_no_oversized_files(check_layers):
    assert check_layers.problems() == []


def test_the_checker_finds_a_cycle(check_layers, tmp_path):
    # Two files that import each other, and one that imports its parent.
    (tmp_path / "lib.rs").write_text("mod a;\nmod b;\nmod c;\n")
    (tmp_path / "a.rs").write_text("use crate::b::B;\npub struct A;\n")
    (tmp_path / "b.rs").write_text("use crate::a::A;\npub struct B;\n")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "mod.rs").write_text("mod d;\nfn f() { d::g(); }\npub struct C;\n")
    (tmp_path / "c" / "d.rs").write_text("use super::C;\npub fn g() {}\n")
    modules = check_layers.files_of(tmp_path)
    graph = {m: check_layers.imports(p, tmp_path, modules) for m, p in modules.items()}
    found = sorted(tuple(sorted(c)) for c in check_layers.cycles(graph))
    assert found == [(("a",), ("b",)), (("c",), ("c", "d"))]


def test_the_checker_finds_a_python_cycle(check_layers, tmp_path):
    # Two modules that import each other, and a child that imports a name from its parent
    # package. No cycle: `d` imports `c` back only in a function and under TYPE_CHECKING,
    # and `_ext` is a compiled submodule (it has a stub), not a name of `pkg`.
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import a, c\n")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("import pkg.a\n")
    (package / "c.py").write_text("from . import _ext, d\n")
    (package / "_ext.pyi").write_text("def f() -> None: ...\n")
    (package / "d.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .c import C\n"
        "def f():\n    from . import c\n"
    )
    (package / "sub" / "__init__.py").write_text("from .child import X\nNAME = 1\n")
    (package / "sub" / "child.py").write_text("from . import NAME\nX = NAME\n")
    modules = check_layers.python_files_of(package)
    graph = {m: check_layers.python_imports(m, modules) for m in modules}
    found = sorted(tuple(sorted(c)) for c in check_layers.cycles(graph))
    assert found == [(("pkg", "a"), ("pkg", "b")), (("pkg", "sub"), ("pkg", "sub", "child"))]
