//! The package's own ufuncs for the private string ufuncs that an older NumPy lacks
//! (`_slice` before 2.3: see `numpy_version`). Each gets the name, operands and loops of
//! NumPy's ufunc and is added to `stringdtype._core`, where `stringdtype.strings` finds it.

use std::ffi::{c_int, CStr};

use pyo3::prelude::*;

use super::registry::{new_ufunc, register_on, LoopDef};

/// Name, number of inputs and docstring of each ufunc that may be missing.
const MAY_BE_MISSING: [(&CStr, c_int, &CStr); 1] =
    [(c"_slice", 4, c"Element-wise a[start:stop:step].")];

/// Registers each of `defs` on a ufunc of the package's own with its ufunc's name,
/// creating that ufunc (and adding it to `module`) on its first loop.
pub fn add_missing(
    module: &Bound<'_, PyModule>,
    defs: impl Iterator<Item = LoopDef>,
) -> PyResult<()> {
    let py = module.py();
    for def in defs {
        let ufunc = match module.getattr(def.ufunc) {
            Ok(ufunc) => ufunc,
            Err(_) => {
                let (name, nin, doc) = MAY_BE_MISSING
                    .into_iter()
                    .find(|(name, _, _)| name.to_bytes() == def.ufunc.as_bytes())
                    .unwrap_or_else(|| panic!("NumPy 2.2 has the ufunc {}", def.ufunc));
                let nout = def.dtypes.len() as c_int - nin;
                let ufunc = new_ufunc(py, name, doc, nin, nout)?;
                module.add(def.ufunc, &ufunc)?;
                ufunc
            }
        };
        register_on(py, &ufunc, &def)?;
    }
    Ok(())
}
