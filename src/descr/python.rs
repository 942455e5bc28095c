//! The descriptor's Python face: `StringDType(*, na_object=..., coerce=True)`, `repr`,
//! `==`, `hash`, `__reduce__` and the `na_object` / `coerce` attributes, as `tp_*` slots
//! and tables of the DType class.

use std::ffi::{c_int, c_void, CStr};
use std::ptr;

use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::ffi::{self, PyObject, PyTypeObject, Py_hash_t};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString, PyTuple};

use super::{given_na_object, new_descr, DescrObject, StringDescr};
use crate::error::with_gil_guard;
use crate::ffi::{descr_type, PyArray_Descr};

/// The handle of an object that CPython passes to one of this type's slots.
///
/// # Safety
/// `obj` must be a live StringDType descriptor (`self` of a slot of the class).
unsafe fn this<'a>(obj: *mut PyObject) -> StringDescr<'a> {
    // SAFETY: forwarded contract.
    unsafe { StringDescr::from_raw(obj as *const PyArray_Descr) }
}

/// `tp_new`: `StringDType(*, na_object=<unset>, coerce=True)` (see below for a size).
pub unsafe extern "C" fn descr_new(
    _cls: *mut PyTypeObject,
    args: *mut PyObject,
    kwargs: *mut PyObject,
) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: CPython passes a tuple and a dict or null.
        let args = unsafe { Bound::from_borrowed_ptr(py, args) };
        // One integer is accepted and ignored: NumPy's own Python code builds
        // `type(dtype)(size)` for string results of a dtype it does not know
        // (`np.strings.mod`), and a variable-width dtype has no size to set.
        let size_only = args.len()? == 1 && {
            let size = args.get_item(0)?;
            !size.is_instance_of::<PyBool>() && size.extract::<u64>().is_ok()
        };
        if args.len()? != 0 && !size_only {
            return Err(PyTypeError::new_err(
                "StringDType() takes no positional arguments",
            ));
        }
        let mut na = None;
        let mut coerce = true;
        if !kwargs.is_null() {
            // SAFETY: as above.
            let kwargs = unsafe { Bound::from_borrowed_ptr(py, kwargs) };
            for (key, value) in kwargs.cast::<PyDict>()?.iter() {
                match key.extract::<&str>()? {
                    "na_object" => na = given_na_object(value)?,
                    "coerce" => coerce = value.is_truthy()?,
                    other => {
                        return Err(PyTypeError::new_err(format!(
                            "StringDType() got an unexpected keyword argument '{other}'"
                        )))
                    }
                }
            }
        }
        Ok(new_descr(py, na.as_ref(), coerce)? as *mut PyObject)
    })
}

/// `tp_dealloc`: frees the arena (all strings at once) and the parameters.
pub unsafe extern "C" fn descr_dealloc(obj: *mut PyObject) {
    let descr = obj as *mut DescrObject;
    // SAFETY: called once by CPython when the last reference goes; `state` was written
    // by `new_descr` when `ready` is set (else construction failed before it).
    unsafe {
        if (*descr).ready {
            (*descr).ready = false;
            (*descr).state.assume_init_drop();
            // Imported Arrow arrays whose buffers the arena adopted are released here,
            // holding the GIL and no lock of the package (see `release_kept`).
            stringdtype_core::arrow::release_kept();
        }
        ffi::Py_XDECREF((*descr).na_object);
        (*descr).na_object = ptr::null_mut();
        let dealloc = (*descr_type()).tp_dealloc.expect("np.dtype has tp_dealloc");
        dealloc(obj);
    }
}

/// `StringDType(...)`: the text of NumPy's StringDType, which `str` gives.
fn str_of(py: Python<'_>, descr: StringDescr<'_>) -> PyResult<String> {
    let mut params = Vec::new();
    if let Some(na) = descr.na_object(py) {
        params.push(format!("na_object={}", na.repr()?));
    }
    if !descr.coerce() {
        params.push("coerce=False".to_string());
    }
    Ok(format!("StringDType({})", params.join(", ")))
}

/// `tp_str`: `StringDType(...)`, as NumPy's StringDType.
pub unsafe extern "C" fn descr_str(obj: *mut PyObject) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: `obj` is ours.
        let text = str_of(py, unsafe { this(obj) })?;
        Ok(PyString::new(py, &text).into_ptr())
    })
}

/// `tp_repr`: `stringdtype.StringDType(...)`. NumPy prints descriptors by their repr in
/// its messages (`Cannot cast array data from stringdtype.StringDType() to StringDType()
/// according to the rule 'no'`) and in an array's repr, where NumPy's own StringDType
/// reads `StringDType()`: the package's name tells the two apart.
pub unsafe extern "C" fn descr_repr(obj: *mut PyObject) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: `obj` is ours.
        let text = format!("stringdtype.{}", str_of(py, unsafe { this(obj) })?);
        Ok(PyString::new(py, &text).into_ptr())
    })
}

/// `(coerce,)` or `(coerce, na_object)`: the parameters as `__reduce__` passes them, and
/// (with every NaN as `"nan"`, so that all NaN `na_object`s hash alike) the hash key.
fn params<'py>(
    py: Python<'py>,
    descr: StringDescr<'_>,
    for_hash: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let coerce = PyBool::new(py, descr.coerce()).to_owned().into_any();
    match descr.na_object(py) {
        None => PyTuple::new(py, [coerce]),
        Some(na) => {
            let is_nan = na.cast::<PyFloat>().is_ok_and(|f| f.value().is_nan());
            let na = if for_hash && is_nan {
                PyString::new(py, "nan").into_any()
            } else {
                na
            };
            PyTuple::new(py, [coerce, na])
        }
    }
}

/// `tp_richcompare`: `==` and `!=` between StringDType descriptors.
pub unsafe extern "C" fn descr_richcompare(
    a: *mut PyObject,
    b: *mut PyObject,
    op: c_int,
) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: `a` is ours; `b` is any live object.
        let same_type = unsafe { ffi::Py_TYPE(a) == ffi::Py_TYPE(b) };
        if !same_type || (op != ffi::Py_EQ && op != ffi::Py_NE) {
            return Ok(py.NotImplemented().into_ptr());
        }
        // SAFETY: both are StringDType descriptors (same type as `a`, ours).
        let eq = unsafe { this(a).same_params(py, this(b)) };
        Ok(PyBool::new(py, eq == (op == ffi::Py_EQ))
            .to_owned()
            .into_any()
            .into_ptr())
    })
}

/// `tp_hash`, consistent with `==`: all NaN `na_object`s hash alike.
pub unsafe extern "C" fn descr_hash(obj: *mut PyObject) -> Py_hash_t {
    // SAFETY: `obj` is ours.
    with_gil_guard(-1, |py| params(py, unsafe { this(obj) }, true)?.hash())
}

unsafe extern "C" fn descr_reduce(obj: *mut PyObject, _args: *mut PyObject) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        let rebuild = py.import("stringdtype._core")?.getattr("_rebuild_dtype")?;
        // SAFETY: `obj` is ours.
        let args = params(py, unsafe { this(obj) }, false)?;
        Ok(PyTuple::new(py, [rebuild, args.into_any()])?.into_ptr())
    })
}

unsafe extern "C" fn get_na_object(obj: *mut PyObject, _closure: *mut c_void) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: `obj` is ours.
        match unsafe { this(obj) }.na_object(py) {
            Some(na) => Ok(na.into_ptr()),
            None => Err(PyAttributeError::new_err(
                "'StringDType' object has no attribute 'na_object'",
            )),
        }
    })
}

unsafe extern "C" fn get_coerce(obj: *mut PyObject, _closure: *mut c_void) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: `obj` is ours.
        let coerce = unsafe { this(obj) }.coerce();
        Ok(PyBool::new(py, coerce).to_owned().into_any().into_ptr())
    })
}

const fn cstr(s: &'static CStr) -> *const std::ffi::c_char {
    s.as_ptr()
}

/// `tp_methods` of the DType class (null-terminated, leaked once at import).
pub fn methods() -> *mut ffi::PyMethodDef {
    let defs = vec![
        ffi::PyMethodDef {
            ml_name: cstr(c"__reduce__"),
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunction: descr_reduce,
            },
            ml_flags: ffi::METH_NOARGS,
            ml_doc: cstr(c"Pickle support: rebuilds the dtype from its parameters."),
        },
        ffi::PyMethodDef::zeroed(),
    ];
    Box::leak(defs.into_boxed_slice()).as_mut_ptr()
}

/// `tp_getset` of the DType class (null-terminated, leaked once at import).
pub fn getset() -> *mut ffi::PyGetSetDef {
    let defs = vec![
        ffi::PyGetSetDef {
            name: cstr(c"na_object"),
            get: Some(get_na_object),
            set: None,
            doc: cstr(c"The object that stands for a missing value (unset: no missing values)."),
            closure: ptr::null_mut(),
        },
        ffi::PyGetSetDef {
            name: cstr(c"coerce"),
            get: Some(get_coerce),
            set: None,
            doc: cstr(c"Whether non-string values are converted with str() on assignment."),
            closure: ptr::null_mut(),
        },
        ffi::PyGetSetDef {
            name: ptr::null(),
            get: None,
            set: None,
            doc: ptr::null(),
            closure: ptr::null_mut(),
        },
    ];
    Box::leak(defs.into_boxed_slice()).as_mut_ptr()
}
