//! The string ufuncs: the package's loops on NumPy's own ufunc objects (those that
//! `np.strings` dispatches to), its own ufuncs (case conversions, UTF-8 encoding, regex,
//! pandas' missing values, and the string ufuncs an older NumPy lacks), and the promoters
//! that let `str`, `U`, `object` and integer operands reach them. The loops live by kernel
//! family in `basic`, `search`, `transform`, `case` and `regex`; `registry` registers
//! them from their tables, the families' for NumPy's ufuncs and `catalog` for the
//! package's own.

mod basic;
mod case;
mod catalog;
mod regex;
mod registry;
mod search;
mod transform;

use pyo3::prelude::*;

use registry::{register, LoopDef};

/// Every loop of the package on a ufunc that `np.strings` dispatches to.
fn numpy_loops() -> impl Iterator<Item = LoopDef> {
    basic::loops()
        .into_iter()
        .chain(search::loops())
        .chain(transform::loops())
}

/// Registers the package's loops on NumPy's ufuncs and the promoters that are not any
/// one loop's.
pub fn register_all(py: Python<'_>) -> PyResult<()> {
    for def in numpy_loops() {
        register(py, &def)?;
    }
    registry::register_extra_promoters(py)
}

/// Creates the package's own ufuncs of the catalog that the running NumPy lacks (and
/// registers the loops of the others on NumPy's), adds them to `module` with
/// `_catalog` and `_set_missing_policy`.
pub fn add_ufuncs(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(catalog::_catalog, module)?)?;
    module.add_function(wrap_pyfunction!(
        crate::missing::_set_missing_policy,
        module
    )?)?;
    catalog::register_all(module)
}
