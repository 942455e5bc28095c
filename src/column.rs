//! Whole-array functions behind the pandas column, each one pass in Rust with the GIL
//! released: `_factorize` (pandas' `factorize`, and so `unique` and `value_counts`) and
//! `_take` (pandas' `take`, behind sorting, reindexing and joins).

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stringdtype_core::arena::factorize::factorize;
use stringdtype_core::arena::gather::gather;
use stringdtype_core::View;

use crate::descr::StringDescr;
use crate::error::CoreResultExt;
use crate::missing::has_na;
use crate::ndarray::{array_from_views, int64_vector, numpy_array, Elements};

/// _factorize(array, na_sentinel=True)
/// --
///
/// ``(codes, uniques)`` of the elements of ``array`` in C order: ``uniques`` a new 1-D
/// array of ``array``'s dtype holding each distinct string once, in order of first
/// appearance, and ``codes`` int64, each element's index into ``uniques``; a missing
/// value (whatever the ``na_object``) gets -1, or with ``na_sentinel=False`` is one
/// more distinct value, the dtype's missing value in ``uniques`` at its first appearance.
#[pyfunction]
#[pyo3(signature = (array, na_sentinel=true))]
pub fn _factorize<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    na_sentinel: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let descr = StringDescr::of_ndarray(array, "factorize")?;
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let factorized = py.detach(|| {
        let source = state.arena.read();
        factorize(elements.views(), &source, na_sentinel)
    });
    let factorized = factorized.py()?;
    let codes = numpy_array(py, "int64", &factorized.codes)?;
    let uniques = array_from_views(
        py,
        &fresh_like(py, descr)?,
        &factorized.uniques,
        factorized.arena,
    )?;
    PyTuple::new(py, [codes, uniques])
}

/// _take(array, indices)
/// --
///
/// A new 1-D array of ``array``'s dtype holding ``array[i]`` for each ``i`` of
/// ``indices`` (a 1-D contiguous int64 array), where -1 is a missing value if the dtype has an ``na_object``.
/// ``array`` is 1-D; any other index raises ``IndexError``.
#[pyfunction]
pub fn _take<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let descr = StringDescr::of_ndarray(array, "take")?;
    let indices = int64_vector(indices, "indices")?;
    if array.getattr("ndim")?.extract::<usize>()? != 1 {
        return Err(PyValueError::new_err("take: the array must be 1-D"));
    }
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let n = elements.len();
    let lowest = if has_na(&state.na) { -1 } else { 0 };
    if let Some(&bad) = indices.iter().find(|&&i| i < lowest || i >= n as i64) {
        return Err(PyIndexError::new_err(format!(
            "index {bad} is out of bounds for axis 0 with size {n}"
        )));
    }
    let gathered = py.detach(|| {
        let source = state.arena.read();
        match elements.as_slice() {
            Some(views) => gather(views, &source, &indices),
            None => gather(&elements.views().collect::<Vec<View>>(), &source, &indices),
        }
    });
    let (views, arena) = gathered.py()?;
    array_from_views(py, &fresh_like(py, descr)?, &views, arena)
}

/// A fresh descriptor with the parameters of `descr`, for a new array.
fn fresh_like<'py>(py: Python<'py>, descr: StringDescr<'_>) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `clone_params` returns a new reference to a fresh descriptor.
    Ok(unsafe { Bound::from_owned_ptr(py, descr.clone_params(py)?.cast()) })
}
