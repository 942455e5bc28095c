"""``python -m stringdtype``: usage, version and a small demo run."""

import subprocess
import sys

import numpy as np
from conftest import package_only

pytestmark = package_only


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "stringdtype", *args],
        capture_output=True,
        check=False,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_help_prints_usage(tmp_path):
    result = run("--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m stringdtype")
    assert "--size" in result.stdout


def test_version(tmp_path):
    result = run("--version", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("stringdtype ")
    assert f"NumPy {np.__version__}" in result.stdout


def test_small_demo(tmp_path):
    result = run("--size", "500", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "500 generated strings" in result.stdout


def test_bad_size_is_refused(tmp_path):
    result = run("--size", "0", cwd=tmp_path)
    assert result.returncode != 0
    assert "--size" in result.stderr
