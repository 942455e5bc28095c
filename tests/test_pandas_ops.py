"""The ``"stringdtype"`` column outside ``.str``: construction and registration,
comparisons, ``+``, sorting, hashing (unique, factorize, value_counts, groupby, merge,
isin), concat, fillna, where, assignment, casts, NumPy and Arrow exchange without copies,
and CSV and Parquet round trips, each against pandas on Python ``str`` objects.
"""

import io
import subprocess
import sys

import numpy as np
import pytest
from conftest import package_only

pd = pytest.importorskip("pandas", minversion="2.3")
pytestmark = package_only

import pandas._testing as tm

from stringdtype import StringDType, memory_info
from stringdtype.pandas import StringDTypePandasDtype

PYTHON_STR = pd.StringDtype("python", na_value=np.nan)
PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3
WORDS = ["pear", None, "apple", "", "straße", "a string longer than 12", "pear", np.nan, "ß"]


def ours(values=WORDS, **kwargs):
    return pd.Series(values, dtype="stringdtype", **kwargs)


def reference(values=WORDS, **kwargs):
    return pd.Series(values, dtype=PYTHON_STR, **kwargs)


def same_values(result, expected):
    """Equal values (NaN where missing), the dtype aside."""
    tm.assert_series_equal(
        result.astype(object),
        expected.astype(object),
        check_dtype=False,
        check_index_type=False,
        check_names=False,
    )


# ---- construction and registration -----------------------------------------------------


def test_constructors_take_the_name():
    a = np.array(["x", None, "yz"], dtype=StringDType(na_object=None))
    frame = pd.DataFrame({"s": ["x", None]}).astype({"s": "stringdtype"})
    for made in (
        pd.Series(WORDS, dtype="stringdtype"),
        pd.array(a, dtype="stringdtype"),
        frame["s"],
        pd.read_csv(io.StringIO("s\nx\n\nyz\n"), dtype={"s": "stringdtype"})["s"],
    ):
        assert made.dtype == "stringdtype"
        assert isinstance(made.dtype, StringDTypePandasDtype)
    assert pd.array(a, dtype="stringdtype").tolist() == ["x", np.nan, "yz"]
    numpys = np.array(["x", None], dtype=np.dtypes.StringDType(na_object=None))
    assert pd.array(numpys, dtype="stringdtype").tolist() == ["x", np.nan]
    arrow = pd.Series(["x", None, "a string longer than twelve"], dtype="str")
    assert pd.array(arrow, dtype="stringdtype").tolist() == ["x", np.nan, arrow[2]]


def test_numpy_arrays_become_the_column_by_name():
    a = np.array(["x", None, "yz", "a string longer than 12"], dtype=StringDType(na_object=None))
    expected = reference(["x", None, "yz", "a string longer than 12"])
    # pandas infers objects from any NumPy array of str scalars (docs/pandas.md).
    assert pd.Series(a).dtype == object
    assert pd.DataFrame({"s": a})["s"].dtype == object
    for made in (
        pd.Series(a, dtype="stringdtype"),
        pd.Series(pd.Index(a, dtype="stringdtype")),
        pd.Series(pd.array(a, dtype="stringdtype")),
        pd.DataFrame({"s": pd.Series(a, dtype="stringdtype")})["s"],
    ):
        assert made.dtype == "stringdtype"
        same_values(made, expected)


def test_missing_values_are_nan():
    s = ours([None, pd.NA, np.nan, float("nan"), "x"])
    assert s.isna().tolist() == [True, True, True, True, False]
    assert isinstance(s[0], float) and np.isnan(s[0])
    assert isinstance(s.dtype.na_value, float) and np.isnan(s.dtype.na_value)


def test_non_strings_become_their_str_and_assignment_refuses_them():
    assert ours([1, 2.5, True]).tolist() == ["1", "2.5", "True"]
    s = ours(["a", "b"])
    with pytest.raises(TypeError, match="Value should be a string or missing value"):
        s[0] = 1


def _run(code):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout


def test_import_stringdtype_does_not_import_pandas():
    assert _run("import sys, stringdtype; print('pandas' in sys.modules)").strip() == "False"


def test_import_stringdtype_registers_when_pandas_is_imported():
    code = "import pandas as pd, stringdtype; print(pd.Series(['a'], dtype='stringdtype').dtype)"
    assert _run(code).strip() == "stringdtype"


# ---- operators -------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("other", ["pear", "", "ß", np.nan, "list"])
def test_comparisons(op, other):
    if isinstance(other, str) and other == "list":
        other = list(reversed(WORDS))
    result = getattr(ours(), op)(other)
    expected = getattr(reference(), op)(other)
    tm.assert_series_equal(result, expected)
    assert result.dtype == np.bool_


def test_comparison_with_other_string_columns():
    for other in (reference(), pd.Series(WORDS, dtype="str"), pd.Series(WORDS, dtype=object)):
        tm.assert_series_equal(ours() == other, reference() == reference())
        tm.assert_series_equal(other == ours(), reference() == reference())


def test_comparison_with_a_number():
    assert not (ours() == 1).any()
    assert (ours() != 1).all()
    with pytest.raises(TypeError):
        _ = ours() < 1


def test_add():
    same_values(ours() + "!", reference() + "!")
    same_values("<" + ours(), "<" + reference())
    same_values(
        ours() + ours()[::-1].reset_index(drop=True),
        reference() + reference()[::-1].reset_index(drop=True),
    )
    same_values(pd.Series(WORDS, dtype="str") + ours(), reference() + reference())
    assert (ours() + "!").dtype == "stringdtype"
    with pytest.raises(TypeError):
        ours() + 1
    with pytest.raises(TypeError):
        ours() - "a"


def test_multiply_by_integers():
    same_values(ours() * 2, reference() * 2)


# ---- sorting and hashing ---------------------------------------------------------------


@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("na_position", ["first", "last"])
def test_sort_values_and_argsort(ascending, na_position):
    result = ours().sort_values(ascending=ascending, na_position=na_position)
    expected = reference().sort_values(ascending=ascending, na_position=na_position)
    same_values(result, expected)
    assert result.index.tolist() == expected.index.tolist()
    assert (ours().argsort() == reference().argsort()).all()


def test_indexing_by_arrays():
    # Integer arrays (negatives count from the end) and masks pick in one pass in Rust.
    rng = np.random.default_rng(7)
    longer = [f"{w}, a string of some length {i}" for i, w in enumerate(WORDS) if w]
    values = [(WORDS + longer)[i] for i in rng.integers(0, len(WORDS + longer), 400)]
    mine, theirs = ours(values).array, reference(values).array
    n = len(values)
    keys = [
        rng.permutation(n),
        rng.integers(-n, n, 1000),
        np.array([], dtype=np.intp),
        rng.integers(0, n, 50).astype(np.int32),
        rng.random(n) < 0.3,
        np.zeros(n, dtype=bool),
        [3, -1, 0, 3],
        [True, False] * (n // 2),
        pd.array(rng.integers(0, n, 20), dtype="Int64"),
    ]
    for key in keys:
        got = mine[key]
        assert type(got) is type(mine) and got.dtype == mine.dtype
        same_values(pd.Series(got), pd.Series(theirs[key]))
    for bad in ([0, n], [-n - 1], np.array([5, n + 3]), np.ones(n - 1, dtype=bool)):
        with pytest.raises(IndexError) as mine_error:
            mine[bad]
        with pytest.raises(IndexError) as their_error:
            theirs[bad]
        assert str(mine_error.value) == str(their_error.value)
    assert list(mine) == list(ours(values).array), "unchanged"
    series = ours(values)
    same_values(series.iloc[keys[1]], reference(values).iloc[keys[1]])
    same_values(series[keys[4]], reference(values)[keys[4]])


def test_unique_factorize_value_counts():
    assert pd.unique(ours()).tolist() == pd.unique(reference()).tolist()
    codes, uniques = ours().factorize()
    expected_codes, expected_uniques = reference().factorize()
    assert codes.tolist() == expected_codes.tolist()
    assert uniques.tolist() == expected_uniques.tolist()
    for dropna in (True, False):
        result = ours().value_counts(dropna=dropna)
        expected = reference().value_counts(dropna=dropna)
        assert result.tolist() == expected.tolist()
        assert result.index.astype(object).tolist() == expected.index.astype(object).tolist()


@pytest.mark.parametrize(
    "values",
    [
        [None, "b", "a string longer than 12", "b", None, "ß"],
        ["b", "c", None, "a", "b", np.nan, "a string longer than 12"],
        ["x", "a string longer than 12", "x"],
        [None, np.nan, None],
        [],
    ],
    ids=["first", "middle", "none", "all", "empty"],
)
def test_factorize_without_sentinel_places_missing_values_where_they_first_appear(values):
    # Missing values are one more distinct value, in order of first appearance.
    rng = np.random.default_rng(len(values))
    values = values + [values[i] for i in rng.integers(0, len(values), 50)] if values else []
    codes, uniques = ours(values).factorize(use_na_sentinel=False)
    expected_codes, expected_uniques = reference(values).factorize(use_na_sentinel=False)
    assert codes.tolist() == expected_codes.tolist()
    assert pd.isna(uniques).tolist() == pd.isna(expected_uniques).tolist()
    assert uniques.astype(object).tolist() == expected_uniques.astype(object).tolist()
    unique = pd.unique(ours(values))
    assert pd.isna(unique).tolist() == pd.isna(pd.unique(reference(values))).tolist()


def test_groupby_keys():
    frame = pd.DataFrame({"k": ours(), "v": range(len(WORDS))})
    expected_frame = pd.DataFrame({"k": reference(), "v": range(len(WORDS))})
    for dropna in (True, False):
        result = frame.groupby("k", dropna=dropna)["v"].sum()
        expected = expected_frame.groupby("k", dropna=dropna)["v"].sum()
        assert result.tolist() == expected.tolist()
        assert result.index.astype(object).tolist() == expected.index.astype(object).tolist()
        assert result.index.dtype == "stringdtype"
    size = frame.groupby("k").size()
    assert size.tolist() == expected_frame.groupby("k").size().tolist()
    first = frame.groupby("v")["k"].first()
    same_values(first, expected_frame.groupby("v")["k"].first())


def test_merge_keys():
    left = pd.DataFrame({"k": ours(), "a": range(len(WORDS))})
    right = pd.DataFrame({"k": ours(["pear", "ß", "zzz", None]), "b": range(4)})
    left_ref = pd.DataFrame({"k": reference(), "a": range(len(WORDS))})
    right_ref = pd.DataFrame({"k": reference(["pear", "ß", "zzz", None]), "b": range(4)})
    for how in ("inner", "left", "outer"):
        result = left.merge(right, on="k", how=how)
        expected = left_ref.merge(right_ref, on="k", how=how)
        tm.assert_frame_equal(result.astype(object), expected.astype(object))
        assert result["k"].dtype == "stringdtype"


def test_isin():
    for values in (["pear", "ß"], ["pear", None], [1, "apple"], ours(["", "x"])):
        assert ours().isin(values).tolist() == reference().isin(list(values)).tolist()


# ---- reshaping, filling, assignment ----------------------------------------------------


def test_concat():
    result = pd.concat([ours(), ours(["z"])], ignore_index=True)
    assert result.dtype == "stringdtype"
    same_values(result, pd.concat([reference(), reference(["z"])], ignore_index=True))
    frame = pd.concat([pd.DataFrame({"s": ours()}), pd.DataFrame({"s": ours(["q"])})])
    assert frame["s"].dtype == "stringdtype"


def test_fillna_ffill_where():
    same_values(ours().fillna("?"), reference().fillna("?"))
    same_values(ours().ffill(), reference().ffill())
    same_values(ours().bfill(), reference().bfill())
    same_values(ours().ffill(limit=1), reference().ffill(limit=1))
    mask = ours().str.len() > 3
    same_values(ours().where(mask, "short"), reference().where(mask, "short"))
    same_values(ours().mask(mask), reference().mask(mask))
    assert ours().where(mask).dtype == "stringdtype"


def test_assignment():
    s, expected = ours(), reference()
    for target in (s, expected):
        target.iloc[0] = "first"
        target.iloc[[1, 2]] = ["one", None]
        target[target.str.len() == 0] = "was empty"
        target.loc[20] = "expanded"
        target.loc[3] = np.nan
    same_values(s, expected)
    if PANDAS_3:  # pandas 2 turns pandas' own string columns into object here too
        assert s.dtype == "stringdtype"


def test_assignment_is_in_place():
    s = ours(["a"] * 1000)
    backing = s.array._ndarray
    for i in range(0, 1000, 7):
        s.iloc[i] = "a string longer than twelve bytes"
    assert s.array._ndarray is backing
    assert s.iloc[7] == "a string longer than twelve bytes"


# ---- reductions ------------------------------------------------------------------------

# Empty strings are falsy and missing values truthy where they are not skipped, as in
# Python (bool(nan) is True): the rules of pandas' ``str`` dtype.
TRUTH_COLUMNS = {
    "mixed": ["x", "", None],
    "empty": ["", "", ""],
    "missing": [None, None, None],
    "full": ["x", "y", "z"],
    "empty_and_missing": ["", None, ""],
}


@pytest.mark.parametrize("skipna", [True, False])
@pytest.mark.parametrize("name", ["any", "all"])
def test_any_all(name, skipna):
    for values in [*TRUTH_COLUMNS.values(), []]:
        result = getattr(ours(values), name)(skipna=skipna)
        assert result == getattr(reference(values), name)(skipna=skipna), values


@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("skipna", [True, False])
@pytest.mark.parametrize("name", ["any", "all", "min", "max", "sum", "count"])
def test_frame_reductions(name, skipna, axis):
    # A DataFrame reduces each column with keepdims=True (any and all gave TypeError).
    kwargs = {"axis": axis, "skipna": skipna}
    if name == "count":  # no skipna, and no axis=None
        kwargs = {"axis": axis or 0}
    frame = pd.DataFrame(TRUTH_COLUMNS)
    if name == "sum" and not PANDAS_3:  # pandas 2.3's str sums an all-missing column to "0"
        frame = frame.drop(columns="missing")
    try:
        expected = getattr(frame.astype(PYTHON_STR), name)(**kwargs)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(frame.astype("stringdtype"), name)(**kwargs)
        return
    result = getattr(frame.astype("stringdtype"), name)(**kwargs)
    if not isinstance(expected, pd.Series):
        assert result == expected or (pd.isna(result) and pd.isna(expected))
    elif isinstance(expected.dtype, pd.StringDtype):
        assert result.dtype == "stringdtype"
        same_values(result, expected)
    else:
        tm.assert_series_equal(result, expected)


# ---- casts -----------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["str", "string", object, "category", PYTHON_STR])
def test_astype_round_trip(target):
    there = ours().astype(target)
    expected = reference().astype(target)
    same_values(there, expected)
    if target == "category":  # the categories keep the column's dtype
        assert there.cat.categories.dtype == "stringdtype"
    else:
        assert there.dtype == expected.dtype
    back = there.astype("stringdtype")
    assert back.dtype == "stringdtype"
    if (
        isinstance(target, str) and target == "str" and not PANDAS_3
    ):  # NumPy's str: missing values became "nan"
        same_values(back, reference().astype(str))
    else:
        same_values(back, reference())


def test_astype_numbers():
    numbers = ours(["1", "2.5", None])
    assert numbers.astype(float).tolist()[:2] == [1.0, 2.5]
    assert np.isnan(numbers.astype(float)[2])
    assert ours(["1", "-2"]).astype("int64").tolist() == [1, -2]


# ---- exchange without copies -----------------------------------------------------------


def test_numpy_in_and_out_without_copies():
    backing = StringDType(na_object=np.nan)
    a = np.array(["x", np.nan, "a string longer than twelve bytes"] * 10, dtype=backing)
    s = pd.Series(a, dtype="stringdtype", copy=False)
    assert s.array._ndarray is a
    assert s.to_numpy(dtype=StringDType()) is a
    assert np.asarray(s.array, dtype=backing) is a
    assert s.to_numpy().dtype == object
    assert (
        memory_info(s.to_numpy(dtype=StringDType()))["string_bytes"]
        == memory_info(a)["string_bytes"]
    )


def test_arrow_string_view():
    pa = pytest.importorskip("pyarrow")
    arrow = pa.array(ours())
    assert arrow.type == pa.string_view()
    assert arrow.to_pylist() == [w if isinstance(w, str) else None for w in WORDS]
    assert pa.array(ours(), type=pa.large_string()).type == pa.large_string()
    table = pa.Table.from_pandas(pd.DataFrame({"s": ours()}))
    back = table.to_pandas()
    assert back["s"].dtype == "stringdtype"
    same_values(back["s"], reference())


def test_parquet_round_trip(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"s": ours(), "n": range(len(WORDS))})
    frame.to_parquet(tmp_path / "f.parquet")
    back = pd.read_parquet(tmp_path / "f.parquet")
    assert back["s"].dtype == "stringdtype"
    same_values(back["s"], reference())
    plain = pd.read_parquet(tmp_path / "f.parquet", dtype_backend="pyarrow")
    assert plain["s"].tolist()[0] == "pear"


def test_csv_round_trip():
    frame = pd.DataFrame({"s": ours(), "n": range(len(WORDS))})
    text = frame.to_csv(index=False)
    back = pd.read_csv(
        io.StringIO(text), dtype={"s": "stringdtype"}, keep_default_na=False, na_values=[""]
    )
    assert back["s"].dtype == "stringdtype"
    expected = reference().mask(reference() == "")
    same_values(back["s"], expected)


def test_duckdb_takes_the_column_as_an_arrow_table():
    duckdb = pytest.importorskip("duckdb")
    pa = pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"s": ours(), "n": range(len(WORDS))})
    # duckdb scans a DataFrame by its dtypes' names and knows pandas' own (docs/pandas.md)
    with pytest.raises(duckdb.NotImplementedException, match="'stringdtype' not recognized"):
        duckdb.from_df(frame)
    connection = duckdb.connect()
    connection.register("ours", pa.Table.from_pandas(frame))
    connection.register("theirs", pd.DataFrame({"s": reference(), "n": range(len(WORDS))}))
    query = "select s, count(*) as n, max(n) as last from {} group by s order by s"
    result = connection.sql(query.format("ours")).df()
    expected = connection.sql(query.format("theirs")).df()
    tm.assert_frame_equal(result, expected)
    rows = duckdb.from_arrow(pa.Table.from_pandas(frame)).fetchall()
    assert rows == [(w if isinstance(w, str) else None, i) for i, w in enumerate(WORDS)]
    back = result.astype({"s": "stringdtype"})
    assert back["s"].dtype == "stringdtype"
    same_values(back["s"], expected["s"])


@pytest.mark.parametrize(
    "method", ["rank", "drop_duplicates", "duplicated", "mode", "nunique", "min", "max"]
)
def test_series_methods(method):
    result, expected = getattr(ours(), method)(), getattr(reference(), method)()
    if isinstance(expected, pd.Series):
        same_values(result, expected)
    else:
        assert result == expected


def test_concat_with_pandas_string_columns_takes_this_dtype():
    assert pd.concat([ours(), reference()]).dtype == "stringdtype"
    assert pd.concat([reference(), ours()]).dtype == "stringdtype"
