"""``python -m stringdtype.bench --threads 1,2``: stringdtype and polars once per thread
count (``stringdtype@1``, ``polars@2``, ...), the others once.

The data sets are big enough for the pool to split their calls (``--scale 0.04``: 40,000
strings); stringdtype@n's results are checked against NumPy's as stringdtype's are, the
pool is put back after each cell, and polars@n runs in a child process with
``POLARS_MAX_THREADS=n``.  No test looks at a time beyond its being measured.
"""

import dataclasses
import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import package_only

from stringdtype import _core
from stringdtype.bench import main, parse_args, threads
from stringdtype.bench.contestants import all_contestants, per_thread_count
from stringdtype.bench.datasets import DATASETS
from stringdtype.bench.operations import OPS
from stringdtype.bench.runner import run_dataset
from stringdtype.bench.threads import pinned

pytestmark = package_only

OPS_RUN = ["str_len", "eq_scalar", "find", "upper"]
SCALE = "0.04"
HAS_POLARS = importlib.util.find_spec("polars") is not None


def contestants(*keys, counts=(1, 2)):
    chosen = [c for c in all_contestants() if c.key in keys]
    return per_thread_count(chosen, list(counts))


@pytest.fixture(autouse=True)
def restore_threads():
    before = _core._pool_threads()
    yield
    _core._set_pool_threads(before)


@pytest.fixture(scope="module")
def threads_run(tmp_path_factory):
    """The stdout and JSON document of one run with ``--threads 1,2``."""
    folder = tmp_path_factory.mktemp("bench_threads")
    path = folder / "bench.json"
    args = [
        *("--scale", SCALE, "--threads", "1,2", "--repeat", "1", "--budget", "0.01"),
        *("--ops", ",".join(OPS_RUN), "--datasets", "medium"),
        *("--contestants", "stringdtype,numpy,pyarrow,polars", "--json", str(path)),
    ]
    result = subprocess.run(
        [sys.executable, "-m", "stringdtype.bench", *args],
        capture_output=True,
        check=False,
        text=True,
        cwd=folder,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, json.loads(path.read_text(encoding="utf-8"))


def test_contestants_per_thread_count(threads_run):
    stdout, doc = threads_run
    keys = ["stringdtype@1", "stringdtype@2", "numpy", "pyarrow", "polars@1", "polars@2"]
    assert list(doc["contestants"]) == keys
    assert doc["config"]["threads"] == [1, 2]
    assert doc["config"]["scale"] == 0.04
    for key, entry in doc["contestants"].items():
        assert entry["threads"] == (int(key[-1]) if "@" in key else None)
        assert entry["label"] == key or "@" not in key
    header = next(line for line in stdout.splitlines() if line.startswith("op "))
    assert "stringdtype@1" in header and "stringdtype@2" in header
    assert "name@n: n threads" in stdout


def test_the_pool_splits_these_calls(threads_run):
    _, doc = threads_run
    assert doc["datasets"]["medium"]["n"] >= _core._pool_threshold()


def test_stringdtype_at_every_count_matches_numpy(threads_run):
    # Each stringdtype@n cell is checked against NumPy's result (an error if not), so
    # stringdtype@1 and stringdtype@2 agree with each other.
    _, doc = threads_run
    data = doc["datasets"]["medium"]
    failed = {key for cells in data["errors"].values() for key in cells}
    assert not failed & {"stringdtype@1", "stringdtype@2"}, data["errors"]
    for op in OPS_RUN:
        for key in ("stringdtype@1", "stringdtype@2", "numpy"):
            assert data["times"][op][key] is not None, (op, key)
    assert data["memory"]["stringdtype@1"] == data["memory"]["stringdtype@2"]


@pytest.mark.skipif(not HAS_POLARS, reason="needs polars")
def test_polars_in_a_child_per_thread_count(threads_run):
    _, doc = threads_run
    data = doc["datasets"]["medium"]
    assert doc["contestants"]["polars@2"]["available"]
    for key in ("polars@1", "polars@2"):
        assert key not in {k for cells in data["errors"].values() for k in cells}
        assert data["memory"][key]["bytes"] > 0
        for op in OPS_RUN:
            assert data["times"][op][key] is not None, (op, key)


def test_a_failed_child_is_reported_in_its_cells(monkeypatch):
    monkeypatch.setattr(threads, "CHILD_MAIN", "raise SystemExit(3)")
    spec = dataclasses.replace(DATASETS["short"], n=1_000)
    chosen = contestants("numpy", "polars", counts=(2,))
    result = run_dataset(spec, chosen, ["str_len", "upper"], 1, 0.01, print)
    for op in ("str_len", "upper"):
        assert result.times[op]["numpy"].best is not None
        assert result.times[op]["polars@2"].error.startswith("creation failed: child process")
    assert "polars@2" not in result.memory


def test_wrong_result_at_one_count_is_reported(monkeypatch):
    # The check follows the pool: a str_len that is wrong with two threads only.
    def str_len_wrong_at_two(d):
        return np.strings.str_len(d.a) + (_core._pool_threads() == 2)

    monkeypatch.setitem(OPS["str_len"], "stringdtype", str_len_wrong_at_two)
    spec = dataclasses.replace(DATASETS["short"], n=40_000)
    result = run_dataset(spec, contestants("stringdtype", "numpy"), ["str_len"], 1, 0.01, print)
    cells = result.times["str_len"]
    assert cells["stringdtype@1"].error is None and cells["stringdtype@1"].best is not None
    assert cells["stringdtype@2"].error.startswith("wrong result")


def test_pool_restored_after_the_run(tmp_path):
    _core._set_pool_threads(3)
    args = ["--scale", SCALE, "--threads", "1,2", "--repeat", "1", "--budget", "0.01"]
    args += ["--ops", "str_len,upper", "--datasets", "short", "--contestants", "stringdtype"]
    assert main([*args, "--json", str(tmp_path / "bench.json")]) == 0
    assert _core._pool_threads() == 3


def test_pinned_sets_and_restores_the_pool():
    _core._set_pool_threads(3)
    two = contestants("stringdtype")[1]
    assert two.key == "stringdtype@2" and two.library == "stringdtype"
    with pinned(two):
        assert _core._pool_threads() == 2
    assert _core._pool_threads() == 3
    with pytest.raises(ZeroDivisionError), pinned(two):
        1 / 0  # noqa: B018
    assert _core._pool_threads() == 3


def test_other_contestants_appear_once():
    keys = [c.key for c in contestants("stringdtype", "numpy", "U", "polars", counts=(1, 4))]
    assert keys == ["stringdtype@1", "stringdtype@4", "numpy", "U", "polars@1", "polars@4"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--threads", "0"], "distinct positive integers"),
        (["--threads", "1,1"], "distinct positive integers"),
        (["--threads", "two"], "distinct positive integers"),
        (["--quick", "--scale", "2"], "--quick is --scale 0.01"),
        (["--scale", "0"], "--scale must be positive"),
    ],
)
def test_bad_options_are_refused(args, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(args)
    assert message in capsys.readouterr().err
