//! The string ufuncs: the package's loops on NumPy's own ufunc objects (those that
//! `np.strings` dispatches to), its own ufuncs (case conversions, UTF-8 encoding, and the
//! string ufuncs an older NumPy lacks), and the promoters that let `str`, `U`, `object`
//! and integer operands reach them. The loops live by kernel family in `basic`, `search`,
//! `transform` and `case`; `registry` registers them from their tables.

mod basic;
mod case;
mod own;
mod regex;
mod registry;
mod search;
mod transform;

use pyo3::prelude::*;

use crate::numpy_version::rules;
use registry::{register, LoopDef};

/// Every loop of the package on a ufunc that `np.strings` dispatches to.
fn numpy_loops() -> impl Iterator<Item = LoopDef> {
    basic::loops()
        .into_iter()
        .chain(search::loops())
        .chain(transform::loops())
}

/// Registers the package's loops on NumPy's ufuncs, those that the running NumPy has,
/// and the promoters that are not any one loop's.
pub fn register_all(py: Python<'_>) -> PyResult<()> {
    for def in numpy_loops().filter(|def| rules().numpy_has_ufunc(def.ufunc)) {
        register(py, &def)?;
    }
    registry::register_extra_promoters(py)
}

/// Creates the package's own ufuncs (case conversions, UTF-8 encoding, and the string
/// ufuncs the running NumPy lacks), registers their loops and adds them to `module`.
pub fn add_ufuncs(module: &Bound<'_, PyModule>) -> PyResult<()> {
    case::add_ufuncs(module)?;
    regex::add_ufuncs(module)?;
    basic::add_ufuncs(module)?;
    search::add_ufuncs(module)?;
    let missing = numpy_loops().filter(|def| !rules().numpy_has_ufunc(def.ufunc));
    own::add_missing(module, missing)
}
