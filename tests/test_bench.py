"""``python -m stringdtype.bench`` on a tiny run: the JSON ``docs/plot_bench.py`` reads.

One run (quick data, one repeat, a few ops) serves every test; pyarrow and polars are
checked only where they can be imported, and the package's modules keep their layers.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import package_only

pytestmark = package_only

OPS = ["create", "eq_scalar", "upper", "argsort", "from_arrow"]
DATASETS = ["short", "medium"]
ALWAYS = ["stringdtype", "numpy", "U", "object"]
OPTIONAL = ["pyarrow", "polars"]


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "stringdtype.bench", *args],
        capture_output=True,
        check=False,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """The stdout and JSON document of one quick run."""
    folder = tmp_path_factory.mktemp("bench")
    path = folder / "bench.json"
    args = ["--quick", "--repeat", "1", "--budget", "0.01", "--json", str(path)]
    result = run(*args, "--datasets", ",".join(DATASETS), "--ops", ",".join(OPS), cwd=folder)
    assert result.returncode == 0, result.stderr
    return result.stdout, json.loads(path.read_text(encoding="utf-8"))


def test_document_structure(tiny_run):
    _, doc = tiny_run
    assert doc["schema"] == "stringdtype-bench/1"
    assert set(doc) == {
        "schema",
        "created",
        "machine",
        "config",
        "baseline",
        "contestants",
        "ops",
        "datasets",
    }
    assert set(doc["machine"]) == {
        "python",
        "platform",
        "numpy",
        "pyarrow",
        "polars",
        "stringdtype",
        "cpu",
        "cores",
    }
    assert set(doc["config"]) == {
        "quick",
        "scale",
        "threads",
        "repeat",
        "budget_s",
        "seed",
        "argv",
        "pyarrow_string_view_functions",
    }
    assert doc["config"]["quick"] is True
    assert doc["config"]["scale"] == 0.01
    assert doc["config"]["threads"] is None
    assert doc["config"]["repeat"] == 1
    assert doc["baseline"] == "numpy"
    assert list(doc["contestants"]) == ALWAYS + OPTIONAL
    assert doc["ops"] == OPS
    assert list(doc["datasets"]) == DATASETS


@pytest.mark.parametrize("name", DATASETS)
def test_dataset_entry(tiny_run, name):
    _, doc = tiny_run
    data = doc["datasets"][name]
    assert set(data) == {"n", "description", "utf8_bytes", "times", "errors", "memory", "yardstick"}
    assert data["n"] == 10_000  # --quick: a hundredth of the full data set
    assert data["utf8_bytes"] > 0
    assert list(data["times"]) == OPS
    available = [key for key, c in doc["contestants"].items() if c["available"]]
    for cells in data["times"].values():
        assert list(cells) == available
    assert data["yardstick"]["memcpy_views"] > 0
    for key in available:
        assert set(data["memory"][key]) == {"bytes", "method"}


@pytest.mark.parametrize("name", DATASETS)
def test_stringdtype_has_no_errors(tiny_run, name):
    _, doc = tiny_run
    data = doc["datasets"][name]
    assert doc["contestants"]["stringdtype"]["available"]
    assert "stringdtype" not in {key for cells in data["errors"].values() for key in cells}
    with_arrow = doc["contestants"]["pyarrow"]["available"]
    for op in OPS if with_arrow else [op for op in OPS if op != "from_arrow"]:
        assert data["times"][op]["stringdtype"] is not None, op
    assert data["memory"]["stringdtype"]["bytes"] > 0


@pytest.mark.parametrize("library", OPTIONAL)
def test_optional_contestant(tiny_run, library):
    _, doc = tiny_run
    pytest.importorskip(library)
    assert doc["contestants"][library]["available"]
    assert doc["machine"][library] is not None
    for data in doc["datasets"].values():
        assert data["times"]["create"][library] is not None
        assert data["memory"][library]["bytes"] > 0


def test_printed_tables(tiny_run):
    stdout, doc = tiny_run
    assert stdout.startswith("stringdtype bench: numpy ")
    for name in DATASETS:
        assert f"== {name}: 10,000 strings (" in stdout
    labels = [c["label"] for c in doc["contestants"].values() if c["available"]]
    header = next(line for line in stdout.splitlines() if line.startswith("op "))
    assert header.split() == ["op", *" ".join(labels).split()]
    rows = [line.split()[0] for line in stdout.splitlines() if line.split()[:1] == ["create"]]
    assert len(rows) == len(DATASETS)
    assert "memory (raw UTF-8 payload" in stdout


def test_before_after_table_takes_the_best_of_each_side(tiny_run, tmp_path):
    # docs/bench_tables.py reads runs of two builds; each cell is the best of its side.
    script = Path(__file__).resolve().parents[1] / "docs" / "bench_tables.py"
    if not script.exists():  # running from a copy of the tests
        pytest.skip("needs the source tree")
    _, doc = tiny_run
    paths = []
    for k, scale in enumerate([3.0, 1.0, 2.0, 5.0]):
        run_doc = json.loads(json.dumps(doc))
        for data in run_doc["datasets"].values():
            data["times"]["create"]["stringdtype"] = scale * 1e-3
        paths.append(tmp_path / f"run{k}.json")
        paths[-1].write_text(json.dumps(run_doc), encoding="utf-8")
    args = [str(paths[2]), "--after", str(paths[3]), "--before", str(paths[0]), str(paths[1])]
    result = subprocess.run(
        [sys.executable, str(script), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    table = result.stdout.split("### Before and after")[1]
    row = next(line for line in table.splitlines() if line.startswith("| create |"))
    # before: best of 3 ms and 1 ms; after: best of 2 ms and 5 ms.
    assert row.split("|")[2:5] == [" 1 ms ", " 2 ms ", " 2.00x "]


def test_unknown_op_is_refused(tmp_path):
    result = run("--ops", "no_such_op", cwd=tmp_path)
    assert result.returncode != 0
    assert "unknown op no_such_op" in result.stderr


# The bench package's modules, each importing only those before it (no cycles).
LAYERS = [
    "libraries",
    "datasets",
    "contestants",
    "rows",
    "string_ops",
    "regex_ops",
    "operations",
    "timing",
    "threads",
    "runner",
    "report",
    "pandas_ops",
    "__init__",
]


def test_modules_import_only_lower_layers():
    folder = Path(__file__).resolve().parent.parent / "stringdtype" / "bench"
    if not folder.is_dir():
        pytest.skip("runs on the source tree")
    found = {path.stem for path in folder.glob("*.py")} - {"__main__"}
    assert found == set(LAYERS)
    for level, name in enumerate(LAYERS):
        tree = ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1
        }
        assert imported <= set(LAYERS[:level]), (name, imported - set(LAYERS[:level]))
