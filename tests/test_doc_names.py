"""Every source file and Rust symbol that the docs name in backticks exists, so that the
docs cannot drift from the code unnoticed: `path/file.rs` (or `.py`) is a file of the
repository, `module::symbol` a module of one of the two crates holding that symbol."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if not (ROOT / "README.md").exists():  # a copy of the tests next to an installed wheel
    pytest.skip("needs the source tree", allow_module_level=True)
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CRATES = [ROOT / "src", ROOT / "crates" / "stringdtype-core" / "src"]
# Names of other crates or of the standard library that the docs cite.
EXTERNAL = {"memmem", "regex_automata", "str", "regex::bytes", "std", "pyo3"}

FILE = re.compile(r"`([A-Za-z_][A-Za-z0-9_/.-]*\.(?:rs|py))`")
SYMBOL = re.compile(r"`((?:crate|[a-z_][a-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
DEFINITION = r"(?:fn|struct|enum|trait|type|const|static|mod|macro_rules!)\s+{}\b|pub(?:\(crate\))? use .*\b{}\b"


def source_files():
    # The folders that hold sources (walking build outputs and environments is slow).
    tops = ["src", "crates", "stringdtype", "tests", "tools", "docs"]
    files = [p for top in tops for p in (ROOT / top).rglob("*") if "target" not in p.parts]
    files += list(ROOT.glob("*"))
    return [p.relative_to(ROOT).as_posix() for p in files if p.suffix in (".rs", ".py")]


def named(pattern):
    return sorted({(doc.name, m) for doc in DOCS for m in pattern.findall(doc.read_text())})


def module_files(segments):
    """The files of the module `segments` in either crate (a directory's files too)."""
    for root in CRATES:
        base = root.joinpath(*segments)
        if base.with_suffix(".rs").is_file():
            return [base.with_suffix(".rs")]
        if base.is_dir():
            return sorted(base.rglob("*.rs"))
    return None


@pytest.mark.parametrize(("doc", "name"), named(FILE))
def test_named_files_exist(doc, name):
    files = source_files()
    assert any(f == name or f.endswith("/" + name) for f in files), f"{doc}: {name}"


@pytest.mark.parametrize(("doc", "name"), named(SYMBOL))
def test_named_symbols_exist(doc, name):
    segments = [s for s in name.split("::") if s not in ("crate", "stringdtype_core")]
    if name.split("::")[0] in EXTERNAL or "::".join(segments[:2]) in EXTERNAL:
        return
    *path, symbol = segments
    files = module_files(path) if path else None
    if files is None:  # the last segment is itself a module (`loops::resolve`)
        files, symbol = module_files(segments), None
    assert files, f"{doc}: no module {'::'.join(segments)} ({name})"
    if symbol is not None:
        definition = re.compile(DEFINITION.format(re.escape(symbol), re.escape(symbol)))
        assert any(definition.search(f.read_text()) for f in files), f"{doc}: {name}"
