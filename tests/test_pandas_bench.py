"""The pandas section of the benchmark (``stringdtype/bench/pandas_ops.py``) on a tiny
column: every operation runs on every column, and this package's never fails."""

import pytest
from conftest import package_only

pytest.importorskip("pandas", minversion="2.3")
pytest.importorskip("pyarrow")

from stringdtype.bench import pandas_ops

pytestmark = package_only


def test_every_operation_runs_on_every_column():
    times = pandas_ops.run(2_000, list(pandas_ops.OPS), repeat=1, budget=0.001)
    assert set(times) == set(pandas_ops.OPS)
    for op, cells in times.items():
        assert set(cells) == {"stringdtype", "str", "string[python]"}
        error = cells["stringdtype"].error
        assert error is None or "no attribute" in error, (op, error)  # str.isascii: pandas 3
        assert cells["str"].best is not None or "AttributeError" in cells["str"].error
    text = pandas_ops.format_section(times, 2_000)
    assert "ratio to pandas' str (pyarrow)" in text
    assert text.splitlines()[3].split()[0] == "upper"
