"""pandas' own ExtensionArray conformance suite (``pandas.tests.extension.base``, 2-D
included) run on the ``"stringdtype"`` column.

The fixtures follow pandas' tests/extension/test_string.py; the overrides below are the
ones pandas makes there for its own string arrays of the NaN variant (``str``), because
a string column differs from the suite's generic expectations in the same ways.
"""

import operator
import string

import numpy as np
import pytest
from conftest import package_only

pd = pytest.importorskip("pandas", minversion="2.3")
pytestmark = package_only
pytest.importorskip("pandas.tests.extension.base")

PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3

import pandas._testing as tm
from pandas.api.types import is_string_dtype
from pandas.tests.extension import base
from pandas.tests.extension.conftest import *

from stringdtype.pandas import StringDTypeArray, StringDTypePandasDtype

if not PANDAS_3:
    # pandas 2 keeps these fixtures of the suite in its top conftest, whose import would
    # also load its hypothesis profile for the whole session: the same ones, here.
    @pytest.fixture(params=tm.arithmetic_dunder_methods)
    def all_arithmetic_operators(request):
        return request.param

    @pytest.fixture(
        params=["count", "sum", "max", "min", "mean", "prod", "std", "var", "median"]
        + ["kurt", "skew", "sem"]
    )
    def all_numeric_reductions(request):
        return request.param

    @pytest.fixture(params=["all", "any"])
    def all_boolean_reductions(request):
        return request.param

    @pytest.fixture(params=["cumsum", "cumprod", "cummin", "cummax"])
    def all_numeric_accumulations(request):
        return request.param

    ops = [operator.eq, operator.ne, operator.gt, operator.ge, operator.lt, operator.le]

    @pytest.fixture(params=ops)
    def comparison_op(request):
        return request.param

    @pytest.fixture(params=[None, lambda x: x])
    def sort_by_key(request):
        return request.param


@pytest.fixture
def dtype():
    return StringDTypePandasDtype()


@pytest.fixture
def data(dtype):
    strings = np.random.default_rng(2).choice(
        list(string.ascii_letters), size=10 if PANDAS_3 else 100
    )
    while strings[0] == strings[1]:
        strings = np.random.default_rng(2).choice(
            list(string.ascii_letters), size=10 if PANDAS_3 else 100
        )
    return StringDTypeArray._from_sequence(strings, dtype=dtype)


@pytest.fixture
def data_missing(dtype):
    return StringDTypeArray._from_sequence([pd.NA, "A"], dtype=dtype)


@pytest.fixture
def data_for_sorting(dtype):
    return StringDTypeArray._from_sequence(["B", "C", "A"], dtype=dtype)


@pytest.fixture
def data_missing_for_sorting(dtype):
    return StringDTypeArray._from_sequence(["B", pd.NA, "A"], dtype=dtype)


@pytest.fixture
def data_for_grouping(dtype):
    values = ["B", "B", pd.NA, pd.NA, "A", "A", "B", "C"]
    return StringDTypeArray._from_sequence(values, dtype=dtype)


@pytest.fixture
def using_infer_string():
    return pd.options.future.infer_string if hasattr(pd.options, "future") else False


class TestStringDTypeArray(base.ExtensionTests):
    # The array supports 2-D (its backing array is NumPy's), but the dtype tells pandas'
    # blocks that it does not (``_supports_2d`` is False, as for pandas' own string
    # dtypes: pandas makes a 1-D ExtensionBlock for every dtype defined outside pandas),
    # with which the suite would skip its 2-D tests. Run them on the array.
    @pytest.fixture(autouse=True)
    def skip_if_doesnt_support_2d(self):
        return None

    def test_eq_with_str(self, dtype):
        super().test_eq_with_str(dtype)
        assert dtype == "stringdtype"

    if hasattr(base.ExtensionTests, "test_plot_on_y_axis"):  # pandas 3.1 on

        def test_plot_on_y_axis(self, plot_data):
            # As for pandas' own string dtypes (pandas/tests/extension/test_string.py):
            # pandas plots no strings on the y axis. Runs where matplotlib is installed.
            with pytest.raises(TypeError, match="no numeric data to plot"):
                super().test_plot_on_y_axis(plot_data)

    def test_is_not_string_type(self, dtype):
        # As for pandas' StringDtype: a string dtype is a string type.
        assert is_string_dtype(dtype)

    def test_from_dtype(self, data):
        # As pandas' own string test: the base test uses the dtype's string form.
        pass

    def test_view(self, data):
        super().test_view(data)

    def _get_expected_exception(self, op_name, obj, other):
        # The same as for pandas' string arrays: only + (and * by integers) are defined.
        if op_name in ("__add__", "__radd__"):
            return None
        return TypeError

    def _supports_reduction(self, ser, op_name):
        return op_name in ("min", "max", "sum", "count", "any", "all")

    def _supports_accumulation(self, ser, op_name):
        return op_name in ("cummin", "cummax", "cumsum")

    def _cast_pointwise_result(self, op_name, obj, other, pointwise_result):
        if op_name in ("__add__", "__radd__"):
            return pointwise_result.astype(tm.get_dtype(obj))
        return pointwise_result.astype(np.bool_)

    def test_combine_le(self, data_repeated):
        self._combine_le_expected_dtype = "bool"
        super().test_combine_le(data_repeated)

    def test_dropna_array(self, data_missing):
        result = data_missing.dropna()
        tm.assert_extension_array_equal(result, data_missing[[1]])

    @pytest.mark.parametrize("method", ["mean", "median", "var", "std", "sum", "prod"])
    @pytest.mark.parametrize("min_count", [0, 1])
    def test_reductions_2d_axis0(self, data, method, min_count, request):
        if method == "sum" and min_count == 0:
            reason = (
                "the test builds its expectation with fillna(0), which pandas' own "
                "string arrays refuse with the same TypeError (a string column takes "
                "strings)"
            )
            request.applymarker(pytest.mark.xfail(raises=TypeError, reason=reason))
        super().test_reductions_2d_axis0(data, method, min_count)
