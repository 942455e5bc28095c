"""Checks the structure of the code: no import cycle between the files of a Rust crate or
of the Python package ``stringdtype/``, and no file over the size limit.

In Rust, a file's imports are the modules it names with ``use crate::...``, ``crate::...``,
``super::...`` and ``child::...`` paths, resolved to the files that define them; ``mod``
declarations and ``pub use`` re-exports do not count (a parent file may declare its
children and re-export their items, as long as the children do not import it back and
it does not use them otherwise).

In Python, a module's imports are the ``import`` and ``from ... import`` statements that
run when it is imported: at module level, in classes and in module-level ``try``/``if``
blocks, but not in functions (a lazy import is how a cycle is broken) nor under ``if
TYPE_CHECKING``. ``from package import name`` imports the submodule ``name`` when there
is one (a ``.py`` file, or a compiled module with a ``.pyi`` stub), else the package's
``__init__.py``. Importing a submodule does not count as importing its parents, so a
package may import its children as long as they do not import a name from it. Modules
that are not ``.py`` files (the Rust extension ``_core``, other packages) are left out.

One limit for both languages, 600 lines: the house style's, and within the 650 lines
issue 37 allows; it holds for the tests and tools too (``OTHER_PYTHON``), whose imports
are not checked. Run as ``python tools/check_layers.py``; the test suite runs it too
(tests/test_layers.py).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [ROOT / "src", ROOT / "crates" / "stringdtype-core" / "src"]
PACKAGE = ROOT / "stringdtype"
OTHER_PYTHON = [ROOT / "tests", ROOT / "tools", ROOT / "docs", ROOT / "noxfile.py"]
MAX_LINES = 600

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(
    r"\buse\s+(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\}", re.DOTALL
)
COMMENT = re.compile(r"//[^\n]*")
REEXPORT = re.compile(r"^\s*pub(?:\([a-z]+\))?\s+use\s[^;]*;", re.MULTILINE)
CHILD = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.MULTILINE)


def module_of(path: Path, root: Path) -> tuple[str, ...]:
    """The module path of a source file (``src/a/mod.rs`` and ``src/a.rs`` are ``a``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def files_of(root: Path) -> dict[tuple[str, ...], Path]:
    return {module_of(p, root): p for p in root.rglob("*.rs")}


def resolve(parts: tuple[str, ...], modules: dict[tuple[str, ...], Path]) -> tuple[str, ...]:
    """The longest prefix of ``parts`` that is a module with a file."""
    for end in range(len(parts), -1, -1):
        if parts[:end] in modules:
            return parts[:end]
    return ()


def imports(path: Path, root: Path, modules: dict[tuple[str, ...], Path]) -> set[tuple[str, ...]]:
    me = module_of(path, root)
    text = COMMENT.sub("", path.read_text(encoding="utf-8"))
    # A re-export (`pub use`) declares a module's surface; it is not a use of the item.
    text = REEXPORT.sub("", text)
    # The `#[cfg(test)] mod tests` at the bottom of a file may use anything above it.
    text = text.split("#[cfg(test)]\nmod tests", 1)[0]
    found: set[tuple[str, ...]] = set()

    def add(anchor: str, rest: str) -> None:
        names = tuple(n for n in rest.split("::") if n)
        # `super` is the parent of this file's module (for `a/mod.rs`, the crate root).
        base = () if anchor == "crate" else me[:-1]
        found.add(resolve(base + names, modules))

    for anchor, rest, group in USE_GROUP.findall(text):
        for item in group.split(","):
            item = item.strip().split(" as ")[0]
            if item and item != "self":
                add(anchor, rest + "::" + item.split("::{")[0])
            elif item == "self":
                add(anchor, rest)
    for anchor, rest in PATH.findall(text):
        add(anchor, rest)
    # Paths relative to this module reach its children (`child::item`), which also count.
    for child in CHILD.findall(text):
        if re.search(rf"(?<![A-Za-z0-9_:]){child}::", text):
            found.add(resolve(me + (child,), modules))
    found.discard(me)
    return found


def python_files_of(package: Path) -> dict[tuple[str, ...], Path]:
    """The modules of a Python package by dotted name (``pkg/sub/__init__.py`` is ``pkg.sub``)."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[parts[:-1] if parts[-1] == "__init__" else parts] = path
    return modules


def is_submodule(name: tuple[str, ...], modules: dict[tuple[str, ...], Path]) -> bool:
    """Whether ``name`` is a module: a ``.py`` file, or a compiled one (the Rust extension
    ``_core``) that a package marks with its stub, ``name.pyi``."""
    if name in modules:
        return True
    package = modules.get(name[:-1])
    if package is None or package.name != "__init__.py":
        return False
    return (package.parent / f"{name[-1]}.pyi").exists()


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_run_at_import(statements: list) -> list[ast.Import | ast.ImportFrom]:
    """The imports among ``statements`` that run with them: not those in a function body
    nor those under ``if TYPE_CHECKING``."""
    found = []
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            found.append(statement)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # runs when called, not when the module is imported
        elif isinstance(statement, ast.If) and is_type_checking(statement.test):
            found += imports_run_at_import(statement.orelse)
        else:  # classes, `try` (and its handlers), `if`, `with`, `for`, `match` cases
            for field in ("body", "handlers", "orelse", "finalbody", "cases"):
                found += imports_run_at_import(getattr(statement, field, []))
    return found


def python_imports(
    me: tuple[str, ...], modules: dict[tuple[str, ...], Path]
) -> set[tuple[str, ...]]:
    path = modules[me]
    package = me if path.name == "__init__.py" else me[:-1]
    found: set[tuple[str, ...]] = set()
    for node in imports_run_at_import(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            found.update(tuple(alias.name.split(".")) for alias in node.names)
            continue
        base = package[: len(package) - node.level + 1] if node.level else ()
        base += tuple(node.module.split(".")) if node.module else ()
        for alias in node.names:
            submodule = base + (alias.name,)
            found.add(submodule if is_submodule(submodule, modules) else base)
    found.discard(me)
    return found & modules.keys()


def cycles(graph: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[list[tuple[str, ...]]]:
    """The strongly connected components with more than one file (Tarjan)."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    out: list = []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def problems() -> list[str]:
    found = []
    trees = []  # (name, modules, import graph) of each crate and of the package
    for root in CRATES:
        modules = files_of(root)
        graph = {m: imports(p, root, modules) for m, p in modules.items()}
        trees.append((root.relative_to(ROOT), modules, graph))
    modules = python_files_of(PACKAGE)
    graph = {m: python_imports(m, modules) for m in modules}
    trees.append((PACKAGE.relative_to(ROOT), modules, graph))
    for name, modules, graph in trees:
        for component in cycles(graph):
            files = ", ".join(str(modules[m].relative_to(ROOT)) for m in component)
            found.append(f"{name}: import cycle between {files}")
        found += too_long(sorted(modules.values()))
    others = (p for o in OTHER_PYTHON for p in ([o] if o.is_file() else o.rglob("*.py")))
    return found + too_long(sorted(others))


def too_long(paths: list[Path]) -> list[str]:
    """The files of ``paths`` over the limit, each with its count of lines."""
    found = []
    for path in paths:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(ROOT)}: {lines} lines (limit {MAX_LINES})")
    return found


def main() -> int:
    found = problems()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
