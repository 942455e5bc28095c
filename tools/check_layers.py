"""Checks the structure of the Rust crates: no import cycles between files, and no file
over the size limit.

A file's imports are the modules it names with ``use crate::...``, ``crate::...``,
``super::...`` and ``child::...`` paths, resolved to the files that define them; ``mod``
declarations and ``pub use`` re-exports do not count (a parent file may declare its
children and re-export their items, as long as the children do not import it back and
it does not use them otherwise). Run as ``python tools/check_layers.py``; the test
suite runs it too (tests/test_layers.py).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [ROOT / "src", ROOT / "crates" / "stringdtype-core" / "src"]
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
    for root in CRATES:
        modules = files_of(root)
        graph = {m: imports(p, root, modules) for m, p in modules.items()}
        name = root.relative_to(ROOT)
        for component in cycles(graph):
            files = ", ".join(str(modules[m].relative_to(ROOT)) for m in component)
            found.append(f"{name}: import cycle between {files}")
        for module, path in sorted(modules.items()):
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
