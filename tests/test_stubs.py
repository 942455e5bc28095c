"""The type stubs name what the compiled module has, and nothing it lacks."""

import ast
from pathlib import Path

import pytest
from conftest import package_only

pytestmark = package_only

STUB = Path(__file__).resolve().parent.parent / "stringdtype" / "_core.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
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
    assert stub_names() == public
