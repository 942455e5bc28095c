//! `_factorize`: pandas' `factorize` (and so `unique`, `value_counts`) of a StringDType
//! array in one pass with the GIL released, on the hash maps of
//! `stringdtype_core::arena::factorize`.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use stringdtype_core::arena::factorize::factorize;

use crate::descr::StringDescr;
use crate::error::CoreResultExt;
use crate::ndarray::{array_from_views, numpy_array, Elements};

/// _factorize(array)
/// --
///
/// ``(codes, uniques)`` of the elements of ``array`` in C order: ``uniques`` a new 1-D
/// array of ``array``'s dtype holding each distinct string once, in order of first
/// appearance, and ``codes`` int64, each element's index into ``uniques``, -1 for a
/// missing value (whatever the ``na_object``).
#[pyfunction]
pub fn _factorize<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let descr = StringDescr::of_ndarray(array, "factorize")?;
    let elements = Elements::of(array, descr);
    let state = descr.state();
    let factorized = py.detach(|| {
        let source = state.arena.read();
        factorize(elements.views(), &source)
    });
    let factorized = factorized.py()?;
    let codes = numpy_array(py, "int64", &factorized.codes)?;
    // SAFETY: `clone_params` returns a new reference to a fresh descriptor.
    let fresh = unsafe { Bound::from_owned_ptr(py, descr.clone_params(py)?.cast()) };
    let uniques = array_from_views(py, &fresh, &factorized.uniques, factorized.arena)?;
    PyTuple::new(py, [codes, uniques])
}
