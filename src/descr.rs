//! The StringDType descriptor: NumPy's `PyArray_Descr` followed by the dtype's parameters
//! (`na_object`, `coerce`) and the arena that holds the long strings of its array.
//!
//! Also the descriptor's Python face: `StringDType(*, na_object=..., coerce=True)`,
//! `repr`, `==`, `hash`, `__reduce__` and the `na_object` / `coerce` attributes.

use std::ffi::{c_int, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::ffi::{self, PyObject, PyTypeObject, Py_hash_t};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString, PyTuple};
use stringdtype_core::{ArenaLock, View};

use crate::dtype;
use crate::error::with_gil_guard;
use crate::ffi::{descr_type, PyArray_Descr, NPY_ITEM_REFCOUNT, NPY_LIST_PICKLE, NPY_NEEDS_INIT};

/// How the dtype treats missing values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NaKind {
    /// No `na_object`: every element is a string.
    Unset,
    /// A NaN-like object (`np.nan`, `pd.NA`): propagates through operations, sorts last.
    NanLike,
    /// A string: missing values act as this string in operations.
    String(Box<[u8]>),
    /// Any other object (`None`): operations that need a value raise.
    Other,
}

/// The Rust-owned part of a descriptor.
pub struct DescrState {
    pub na: NaKind,
    /// `str(na_object)` in UTF-8: what a missing value becomes in a dtype without one.
    pub na_name: Box<[u8]>,
    pub coerce: bool,
    pub arena: ArenaLock,
    /// Set once an array owns this descriptor (`finalize_descr`).
    pub owned: AtomicBool,
}

/// The descriptor object.
#[repr(C)]
pub struct StringDescr {
    pub base: PyArray_Descr,
    /// Strong reference, or null when `na_object` is unset.
    pub na_object: *mut PyObject,
    /// Null only while the object is being built.
    pub state: *mut DescrState,
}

/// The Rust state of a StringDType descriptor.
///
/// # Safety
/// `descr` must be a live, fully built StringDType descriptor; the reference must not
/// outlive it.
pub unsafe fn state<'a>(descr: *const PyArray_Descr) -> &'a DescrState {
    // SAFETY: by the contract, `descr` is a StringDescr whose `state` was set in `new_descr`.
    unsafe { &*(*(descr as *const StringDescr)).state }
}

/// The `na_object` of a descriptor (borrowed), or `None` when unset.
///
/// # Safety
/// As for [`state`].
pub unsafe fn na_object<'py>(
    py: Python<'py>,
    descr: *const PyArray_Descr,
) -> Option<Bound<'py, PyAny>> {
    // SAFETY: a StringDescr's na_object is null or a strong reference it holds.
    let ptr = unsafe { (*(descr as *const StringDescr)).na_object };
    // SAFETY: non-null pointers are live objects (see above).
    (!ptr.is_null()).then(|| unsafe { Bound::from_borrowed_ptr(py, ptr) })
}

/// Equality of two `na_object`s as NumPy defines it: identity, two float NaNs, or `==`
/// (an `==` that raises means unequal).
pub fn na_equal(a: Option<&Bound<'_, PyAny>>, b: Option<&Bound<'_, PyAny>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            if a.is(b) {
                return true;
            }
            if let (Ok(x), Ok(y)) = (a.cast::<PyFloat>(), b.cast::<PyFloat>()) {
                if x.value().is_nan() && y.value().is_nan() {
                    return true;
                }
            }
            a.eq(b).unwrap_or(false)
        }
        _ => false,
    }
}

fn classify_na(na: &Bound<'_, PyAny>) -> PyResult<NaKind> {
    if let Ok(s) = na.cast::<PyString>() {
        return Ok(NaKind::String(s.to_str()?.as_bytes().into()));
    }
    // NaN-like: `na != na` is truthy, or its truth value raises (pandas.NA).
    let ne = na.ne(na);
    let nan_like = match ne {
        Ok(true) => true,
        Ok(false) => false,
        Err(_) => {
            let raw = na.rich_compare(na, pyo3::basic::CompareOp::Ne)?;
            raw.is_truthy().unwrap_or(true)
        }
    };
    Ok(if nan_like {
        NaKind::NanLike
    } else {
        NaKind::Other
    })
}

/// The `na_object` a caller passed: `None` for NumPy's `np._NoValue`, which (as in
/// NumPy's signature) means "not given".
pub fn given_na_object(value: Bound<'_, PyAny>) -> PyResult<Option<Bound<'_, PyAny>>> {
    let no_value = value.py().import("numpy")?.getattr("_NoValue")?;
    Ok((!value.is(&no_value)).then_some(value))
}

/// Creates a new, unowned descriptor with the given parameters and an empty arena.
pub fn new_descr(
    py: Python<'_>,
    na_object: Option<&Bound<'_, PyAny>>,
    coerce: bool,
) -> PyResult<*mut PyArray_Descr> {
    let (na, na_name) = match na_object {
        None => (NaKind::Unset, Box::default()),
        Some(obj) => (classify_na(obj)?, obj.str()?.to_str()?.as_bytes().into()),
    };
    let cls = dtype::dtype_class() as *mut PyTypeObject;
    // SAFETY: NumPy's descriptor tp_new allocates an instance of a user DType class
    // (zero-filled, tp_basicsize bytes) and fills the PyArray_Descr head; args are unused.
    let obj = unsafe {
        let new = (*descr_type()).tp_new.expect("np.dtype has tp_new");
        new(cls, ptr::null_mut(), ptr::null_mut())
    };
    if obj.is_null() {
        return Err(PyErr::fetch(py));
    }
    let descr = obj as *mut StringDescr;
    let state = Box::new(DescrState {
        na,
        na_name,
        coerce,
        arena: ArenaLock::new(),
        owned: AtomicBool::new(false),
    });
    // SAFETY: `descr` is a fresh StringDescr that no one else sees yet.
    unsafe {
        let base = &mut (*descr).base;
        base.elsize = 16;
        base.alignment = 8;
        base.flags |= NPY_NEEDS_INIT | NPY_LIST_PICKLE | NPY_ITEM_REFCOUNT;
        base.kind = b'T' as _;
        base.type_ = b'T' as _;
        (*descr).na_object = na_object.map_or(ptr::null_mut(), |o| o.clone().into_ptr());
        (*descr).state = Box::into_raw(state);
    }
    Ok(descr as *mut PyArray_Descr)
}

/// A new descriptor with the same parameters as `descr`.
///
/// # Safety
/// `descr` must be a live StringDType descriptor.
pub unsafe fn clone_params(
    py: Python<'_>,
    descr: *const PyArray_Descr,
) -> PyResult<*mut PyArray_Descr> {
    // SAFETY: forwarded contract.
    let (na, coerce) = unsafe { (na_object(py, descr), state(descr).coerce) };
    new_descr(py, na.as_ref(), coerce)
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
    let descr = obj as *mut StringDescr;
    // SAFETY: called once by CPython when the last reference goes; `state` is either null
    // (construction failed) or the Box made in `new_descr`.
    unsafe {
        if !(*descr).state.is_null() {
            drop(Box::from_raw((*descr).state));
            (*descr).state = ptr::null_mut();
        }
        ffi::Py_XDECREF((*descr).na_object);
        (*descr).na_object = ptr::null_mut();
        let dealloc = (*descr_type()).tp_dealloc.expect("np.dtype has tp_dealloc");
        dealloc(obj);
    }
}

fn repr_of(py: Python<'_>, descr: *const PyArray_Descr) -> PyResult<String> {
    // SAFETY: called from slots of our own type.
    let (na, coerce) = unsafe { (na_object(py, descr), state(descr).coerce) };
    let mut params = Vec::new();
    if let Some(na) = na {
        params.push(format!("na_object={}", na.repr()?));
    }
    if !coerce {
        params.push("coerce=False".to_string());
    }
    Ok(format!("StringDType({})", params.join(", ")))
}

/// `tp_repr` and `tp_str`.
pub unsafe extern "C" fn descr_repr(obj: *mut PyObject) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        let text = repr_of(py, obj as *const PyArray_Descr)?;
        Ok(PyString::new(py, &text).into_ptr())
    })
}

/// Whether two descriptors have the same parameters.
///
/// # Safety
/// Both must be live StringDType descriptors.
pub unsafe fn same_params(
    py: Python<'_>,
    a: *const PyArray_Descr,
    b: *const PyArray_Descr,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        state(a).coerce == state(b).coerce
            && na_equal(na_object(py, a).as_ref(), na_object(py, b).as_ref())
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
        // SAFETY: both are StringDType descriptors.
        let eq = unsafe { same_params(py, a as *const _, b as *const _) };
        Ok(pyo3::types::PyBool::new(py, eq == (op == ffi::Py_EQ))
            .to_owned()
            .into_any()
            .into_ptr())
    })
}

/// `tp_hash`, consistent with `==`: all NaN `na_object`s hash alike.
pub unsafe extern "C" fn descr_hash(obj: *mut PyObject) -> Py_hash_t {
    with_gil_guard(-1, |py| {
        let descr = obj as *const PyArray_Descr;
        // SAFETY: `obj` is ours.
        let (na, coerce) = unsafe { (na_object(py, descr), state(descr).coerce) };
        let key = match na {
            None => PyTuple::new(py, [coerce.into_pyobject(py)?.to_owned().into_any()])?,
            Some(na) => {
                let is_nan = na.cast::<PyFloat>().is_ok_and(|f| f.value().is_nan());
                let na = if is_nan {
                    PyString::new(py, "nan").into_any()
                } else {
                    na
                };
                PyTuple::new(py, [coerce.into_pyobject(py)?.to_owned().into_any(), na])?
            }
        };
        key.hash()
    })
}

unsafe extern "C" fn descr_reduce(obj: *mut PyObject, _args: *mut PyObject) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        let descr = obj as *const PyArray_Descr;
        let rebuild = py.import("stringdtype._core")?.getattr("_rebuild_dtype")?;
        // SAFETY: `obj` is ours.
        let (na, coerce) = unsafe { (na_object(py, descr), state(descr).coerce) };
        let args = match na {
            None => PyTuple::new(py, [coerce.into_pyobject(py)?.to_owned().into_any()])?,
            Some(na) => PyTuple::new(py, [coerce.into_pyobject(py)?.to_owned().into_any(), na])?,
        };
        Ok(PyTuple::new(py, [rebuild, args.into_any()])?.into_ptr())
    })
}

unsafe extern "C" fn get_na_object(obj: *mut PyObject, _closure: *mut c_void) -> *mut PyObject {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: `obj` is ours.
        match unsafe { na_object(py, obj as *const PyArray_Descr) } {
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
        let coerce = unsafe { state(obj as *const PyArray_Descr).coerce };
        Ok(pyo3::types::PyBool::new(py, coerce)
            .to_owned()
            .into_any()
            .into_ptr())
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

/// Marks `descr` as owned by an array if it is not yet; returns whether this call did.
///
/// # Safety
/// `descr` must be a live StringDType descriptor.
pub unsafe fn claim(descr: *const PyArray_Descr) -> bool {
    // SAFETY: forwarded contract.
    let owned = unsafe { &state(descr).owned };
    owned
        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
}

/// Reads the element at `ptr` (any alignment).
///
/// # Safety
/// `ptr` must point at 16 readable bytes.
#[inline]
pub unsafe fn read_view(ptr: *const u8) -> View {
    // SAFETY: forwarded contract; View is plain bytes, valid for any bit pattern.
    unsafe { ptr::read_unaligned(ptr as *const View) }
}

/// Writes the element at `ptr` (any alignment).
///
/// # Safety
/// `ptr` must point at 16 writable bytes.
#[inline]
pub unsafe fn write_view(ptr: *mut u8, view: View) {
    // SAFETY: forwarded contract.
    unsafe { ptr::write_unaligned(ptr as *mut View, view) }
}
