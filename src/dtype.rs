//! The StringDType class: its DType slots (item access, discovery, promotion, the clear
//! loop, `finalize_descr`, the legacy compare/argmax/argmin/nonzero functions) and its
//! registration with NumPy through `PyArrayInitDTypeMeta_FromSpec`.

use std::cmp::Ordering;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering as AtomicOrdering};
use std::sync::OnceLock;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi::{self, PyObject, PyTypeObject, PyType_Slot};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use stringdtype_core::{kernels, Arena, View};

use crate::casts;
use crate::descr::{self, na_equal, NaKind, StringDescr};
use crate::error::{with_gil_guard, CoreResultExt};
use crate::ffi::*;
use crate::numpy_version::rules;
use crate::sort;

static DTYPE_CLASS: AtomicPtr<PyArray_DTypeMeta> = AtomicPtr::new(ptr::null_mut());

/// The StringDType class (set once at import).
pub fn dtype_class() -> *mut PyArray_DTypeMeta {
    DTYPE_CLASS.load(AtomicOrdering::Acquire)
}

/// Whether `descr` is a StringDType descriptor of this package.
///
/// # Safety
/// `descr` must be a live descriptor.
pub unsafe fn is_string_descr(descr: *const PyArray_Descr) -> bool {
    // SAFETY: forwarded contract.
    unsafe { dtype_of(descr) == dtype_class() }
}

/// Converts an object to the `str` to store, as NumPy's StringDType does: `str` as is,
/// `str` subclasses as exact `str`, and with `coerce` bytes as UTF-8 and anything else
/// through `str()`.
fn as_pystring<'py>(obj: &Bound<'py, PyAny>, coerce: bool) -> PyResult<Bound<'py, PyString>> {
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(s.clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(PyString::new(obj.py(), s.to_str()?));
    }
    if !coerce {
        return Err(PyValueError::new_err(
            "StringDType only allows string data when string coercion is disabled.",
        ));
    }
    if let Ok(b) = obj.cast_exact::<PyBytes>() {
        let text = std::str::from_utf8(b.as_bytes()).map_err(|e| {
            pyo3::exceptions::PyUnicodeDecodeError::new_utf8(obj.py(), b.as_bytes(), e)
                .map(|err| PyErr::from_value(err.into_any()))
                .unwrap_or_else(|err| err)
        })?;
        return Ok(PyString::new(obj.py(), text));
    }
    obj.str()
}

/// What `obj` is stored as in an array with descriptor `descr`: its `str` (see
/// [`as_pystring`]), or `None` for the descriptor's missing value.
///
/// # Safety
/// `descr` must be a live StringDType descriptor.
pub unsafe fn convert_object<'py>(
    py: Python<'py>,
    descr: *const PyArray_Descr,
    obj: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    // SAFETY: forwarded contract.
    let (state, na) = unsafe { (descr::state(descr), descr::na_object(py, descr)) };
    if na.is_some() && na_equal(Some(obj), na.as_ref()) {
        return Ok(None);
    }
    as_pystring(obj, state.coerce).map(Some)
}

/// Stores `obj` into the element at `dst` of an array with descriptor `descr`; on error
/// the element keeps its old value.
///
/// # Safety
/// `descr` must be a live StringDType descriptor and `dst` an element of its array.
pub unsafe fn set_element(
    py: Python<'_>,
    descr: *const PyArray_Descr,
    obj: &Bound<'_, PyAny>,
    dst: *mut u8,
) -> PyResult<()> {
    // SAFETY: forwarded contract.
    let (state, text) = unsafe { (descr::state(descr), convert_object(py, descr, obj)?) };
    let bytes = text.as_ref().map(|text| text.to_str()).transpose()?;
    let mut arena = state.arena.write();
    let view = match bytes {
        Some(bytes) => arena.store(bytes.as_bytes()).py()?,
        None => View::NA,
    };
    // SAFETY: `dst` is an element (forwarded contract).
    unsafe { replace_element(&mut arena, dst, view) };
    Ok(())
}

/// Writes `view` to the element at `dst` and releases the string it held.
///
/// # Safety
/// `dst` must be an element of an array whose arena is `arena`.
pub unsafe fn replace_element(arena: &mut Arena, dst: *mut u8, view: View) {
    // SAFETY: forwarded contract.
    let old = unsafe { descr::read_view(dst) };
    arena.release(old);
    // SAFETY: as above.
    unsafe { descr::write_view(dst, view) };
}

/// Whether a destination whose arena is `arena` and whose stride is `stride` can be
/// written without reading (and releasing) its old elements: its arena holds no long
/// string, and no element is visited twice. Reading a freshly allocated page before
/// writing it would also fault it in twice.
pub fn is_fresh_destination(arena: &Arena, stride: isize) -> bool {
    stride != 0 && arena.memory_usage().string_bytes == 0
}

/// Writes `view` to the element at `dst`, releasing the old element's string first
/// unless the destination is fresh (see [`is_fresh_destination`]).
///
/// # Safety
/// As for [`replace_element`].
#[inline]
pub unsafe fn write_element(arena: &mut Arena, dst: *mut u8, view: View, fresh: bool) {
    // SAFETY: forwarded contract.
    unsafe {
        if fresh {
            descr::write_view(dst, view);
        } else {
            replace_element(arena, dst, view);
        }
    }
}

/// Reads the element at `src` as a Python object: `str`, or the `na_object`.
///
/// # Safety
/// `descr` must be a live StringDType descriptor and `src` an element of its array.
pub unsafe fn get_element(
    py: Python<'_>,
    descr: *const PyArray_Descr,
    src: *const u8,
) -> PyResult<Py<PyAny>> {
    // SAFETY: forwarded contract.
    let view = unsafe { descr::read_view(src) };
    if view.is_na() {
        // SAFETY: as above.
        return Ok(match unsafe { descr::na_object(py, descr) } {
            Some(na) => na.unbind(),
            None => PyString::new(py, "").into_any().unbind(),
        });
    }
    if let Some(bytes) = view.inline_bytes() {
        return Ok(decode(py, bytes)?.into_any().unbind());
    }
    // The bytes are copied out, and the str built after the lock is released: no Python
    // runs under an arena lock.
    // SAFETY: as above.
    let bytes = unsafe { descr::state(descr) }
        .arena
        .read()
        .get(&view)
        .map(<[u8]>::to_vec)
        .py()?;
    Ok(decode(py, &bytes)?.into_any().unbind())
}

fn decode<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    // SAFETY: PyUnicode_DecodeUTF8 reads `len` bytes and validates them (raising
    // UnicodeDecodeError for corrupt data); it returns a new reference or null.
    unsafe {
        let obj = ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast(),
            bytes.len() as isize,
            c"strict".as_ptr(),
        );
        Bound::from_owned_ptr_or_err(py, obj).map(|o| o.cast_into_unchecked())
    }
}

unsafe extern "C" fn setitem(
    descr: *mut PyArray_Descr,
    obj: *mut PyObject,
    dataptr: *mut u8,
) -> c_int {
    // NumPy's unpickling (`_setlist_pkl`) keeps calling setitem after one failed, with
    // the exception still set: leave the element (and the first error) alone.
    // SAFETY: NumPy calls setitem with the GIL held.
    if unsafe { !ffi::PyErr_Occurred().is_null() } {
        return -1;
    }
    with_gil_guard(-1, |py| {
        // SAFETY: NumPy passes a live object and an element of an array of `descr`.
        unsafe {
            let obj = Bound::from_borrowed_ptr(py, obj);
            set_element(py, descr, &obj, dataptr)?;
        }
        Ok(0)
    })
}

unsafe extern "C" fn getitem(descr: *mut PyArray_Descr, dataptr: *mut u8) -> *mut PyObject {
    // SAFETY: NumPy passes an element of an array of `descr`.
    with_gil_guard(ptr::null_mut(), |py| {
        Ok(unsafe { get_element(py, descr, dataptr) }?.into_ptr())
    })
}

unsafe extern "C" fn discover_descr(
    _cls: *mut PyArray_DTypeMeta,
    obj: *mut PyObject,
) -> *mut PyArray_Descr {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: NumPy passes a live object.
        let obj = unsafe { Bound::from_borrowed_ptr(py, obj) };
        as_pystring(&obj, true)?;
        descr::new_descr(py, None, true)
    })
}

unsafe extern "C" fn default_descr(_cls: *mut PyArray_DTypeMeta) -> *mut PyArray_Descr {
    with_gil_guard(ptr::null_mut(), |py| descr::new_descr(py, None, true))
}

unsafe extern "C" fn common_dtype(
    cls: *mut PyArray_DTypeMeta,
    other: *mut PyArray_DTypeMeta,
) -> *mut PyArray_DTypeMeta {
    // SAFETY: NumPy passes two live DType classes.
    unsafe {
        if (*other).type_num == NPY_UNICODE {
            ffi::Py_INCREF(cls.cast());
            return cls;
        }
        let not_implemented = ffi::Py_NotImplemented();
        ffi::Py_INCREF(not_implemented);
        not_implemented.cast()
    }
}

unsafe extern "C" fn common_instance(
    a: *mut PyArray_Descr,
    b: *mut PyArray_Descr,
) -> *mut PyArray_Descr {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: NumPy passes two live StringDType descriptors.
        let (na_a, na_b, coerce) = unsafe {
            (
                descr::na_object(py, a),
                descr::na_object(py, b),
                rules().common_coerce(descr::state(a).coerce, descr::state(b).coerce),
            )
        };
        if na_a.is_some() && na_b.is_some() && !na_equal(na_a.as_ref(), na_b.as_ref()) {
            // SAFETY: both are live objects.
            let (ra, rb) = unsafe {
                (
                    Bound::from_borrowed_ptr(py, a.cast()).repr()?,
                    Bound::from_borrowed_ptr(py, b.cast()).repr()?,
                )
            };
            return Err(PyTypeError::new_err(format!(
                "Cannot find common instance for incompatible dtypes '{ra}' and '{rb}'"
            )));
        }
        descr::new_descr(py, na_a.or(na_b).as_ref(), coerce)
    })
}

unsafe extern "C" fn ensure_canonical(descr: *mut PyArray_Descr) -> *mut PyArray_Descr {
    // SAFETY: NumPy passes a live descriptor and expects a new reference.
    unsafe { ffi::Py_INCREF(descr.cast()) };
    descr
}

/// Gives every new array its own descriptor, and so its own arena.
unsafe extern "C" fn finalize_descr(descr: *mut PyArray_Descr) -> *mut PyArray_Descr {
    with_gil_guard(ptr::null_mut(), |py| {
        // SAFETY: NumPy passes a live StringDType descriptor.
        unsafe {
            if descr::claim(descr) {
                ffi::Py_INCREF(descr.cast());
                return Ok(descr);
            }
            let fresh = descr::clone_params(py, descr)?;
            descr::claim(fresh);
            Ok(fresh)
        }
    })
}

/// Releases every element's string and leaves the element empty (all zeros): the memory
/// may be an iteration buffer that a cast fills again.
unsafe extern "C" fn clear_loop(
    _traverse_context: *mut c_void,
    descr: *const PyArray_Descr,
    data: *mut std::ffi::c_char,
    size: npy_intp,
    stride: npy_intp,
    _auxdata: *mut c_void,
) -> c_int {
    if data.is_null() {
        return 0;
    }
    crate::error::loop_guard(|| {
        // SAFETY: NumPy passes the array's own descriptor and `size` elements at `stride`.
        let mut arena = unsafe { &descr::state(descr).arena }.write();
        for i in 0..size {
            // SAFETY: element `i` lies inside the buffer NumPy gave.
            unsafe { replace_element(&mut arena, data.offset(i * stride).cast(), View::EMPTY) };
        }
        Ok(())
    })
}

unsafe extern "C" fn get_clear_loop(
    _traverse_context: *mut c_void,
    _descr: *const PyArray_Descr,
    _aligned: c_int,
    _fixed_stride: npy_intp,
    out_loop: *mut Option<TraverseLoop>,
    _out_auxdata: *mut *mut c_void,
    flags: *mut c_int,
) -> c_int {
    // SAFETY: NumPy passes valid out-pointers.
    unsafe {
        *flags = NPY_METH_NO_FLOATINGPOINT_ERRORS;
        *out_loop = Some(clear_loop);
    }
    0
}

/// Python and NumPy scalar types that `np.array(..., dtype=StringDType)` converts with
/// `str()` rather than discovering a NumPy dtype for them first.
static KNOWN_SCALAR_TYPES: OnceLock<Vec<usize>> = OnceLock::new();

fn init_known_scalar_types(py: Python<'_>) -> PyResult<()> {
    let np = py.import("numpy")?;
    let mut types = Vec::new();
    for name in ["number", "bool_", "datetime64", "timedelta64", "str_"] {
        types.push(np.getattr(name)?.as_ptr() as usize);
    }
    let _ = KNOWN_SCALAR_TYPES.set(types);
    Ok(())
}

unsafe extern "C" fn is_known_scalar_type(
    _cls: *mut PyArray_DTypeMeta,
    pytype: *mut PyTypeObject,
) -> c_int {
    // SAFETY: `pytype` is a live type object; the builtin type objects are static.
    unsafe {
        let builtins = [
            &raw mut ffi::PyFloat_Type,
            &raw mut ffi::PyLong_Type,
            &raw mut ffi::PyBool_Type,
            &raw mut ffi::PyComplex_Type,
            &raw mut ffi::PyUnicode_Type,
            &raw mut ffi::PyBytes_Type,
        ];
        if builtins.contains(&pytype) {
            return 1;
        }
        let known = KNOWN_SCALAR_TYPES.get().map(Vec::as_slice).unwrap_or(&[]);
        known
            .iter()
            .any(|&t| ffi::PyType_IsSubtype(pytype, t as *mut PyTypeObject) != 0) as c_int
    }
}

/// The order of two elements of one array (the `compare` slot, argmax, argmin).
pub fn compare_elements(arena: &Arena, na: &NaKind, a: View, b: View) -> PyResult<Ordering> {
    compare_with_na(na, &a, arena, &b, arena)
}

/// The order of two elements as NumPy 2.4's StringDType decides it, with the missing-value
/// rule `na` (the first operand's): a NaN-like missing value is greater than anything,
/// itself included, when it is `a` (so `argmax` finds the last one, as NumPy does); a
/// string one, or any missing value under a descriptor without `na_object`, compares as
/// that string (the empty string); any other one is an error.
pub fn compare_with_na(
    na: &NaKind,
    a: &View,
    arena_a: &Arena,
    b: &View,
    arena_b: &Arena,
) -> PyResult<Ordering> {
    if a.is_na() || b.is_na() {
        let default: &[u8] = match na {
            NaKind::NanLike if a.is_na() => return Ok(Ordering::Greater),
            NaKind::NanLike => return Ok(Ordering::Less),
            NaKind::Other => {
                return Err(PyValueError::new_err(
                    "Cannot compare null that is not a nan-like value",
                ))
            }
            NaKind::String(default) => default,
            NaKind::Unset => b"",
        };
        let x = if a.is_na() {
            default
        } else {
            arena_a.get(a).py()?
        };
        let y = if b.is_na() {
            default
        } else {
            arena_b.get(b).py()?
        };
        return Ok(x.cmp(y));
    }
    kernels::compare_views(a, b, || arena_a.get(a).py(), || arena_b.get(b).py())
}

unsafe extern "C" fn compare(a: *const u8, b: *const u8, array: *mut c_void) -> c_int {
    let mut result = 0;
    let status = crate::error::loop_guard(|| {
        // SAFETY: NumPy passes two elements of `array`.
        let descr = unsafe { array_descr(array) };
        let state = unsafe { descr::state(descr) };
        let arena = state.arena.read();
        let (va, vb) = unsafe { (descr::read_view(a), descr::read_view(b)) };
        result = compare_elements(&arena, &state.na, va, vb)? as c_int;
        Ok(())
    });
    if status < 0 {
        0
    } else {
        result
    }
}

/// The index of the first largest (`want` = Greater) or smallest element.
unsafe fn arg_extreme(
    data: *const u8,
    n: npy_intp,
    out: *mut npy_intp,
    array: *mut c_void,
    want: Ordering,
) -> c_int {
    crate::error::loop_guard(|| {
        // SAFETY: NumPy passes `n` contiguous elements of `array` and an out-pointer.
        let descr = unsafe { array_descr(array) };
        let state = unsafe { descr::state(descr) };
        let arena = state.arena.read();
        let element = |i: npy_intp| unsafe { descr::read_view(data.offset(i * 16)) };
        let mut best = 0;
        for i in 1..n {
            if compare_elements(&arena, &state.na, element(i), element(best))? == want {
                best = i;
            }
        }
        unsafe { *out = best };
        Ok(())
    })
}

unsafe extern "C" fn argmax(
    data: *const u8,
    n: npy_intp,
    out: *mut npy_intp,
    array: *mut c_void,
) -> c_int {
    // SAFETY: forwarded from NumPy.
    unsafe { arg_extreme(data, n, out, array, Ordering::Greater) }
}

unsafe extern "C" fn argmin(
    data: *const u8,
    n: npy_intp,
    out: *mut npy_intp,
    array: *mut c_void,
) -> c_int {
    // SAFETY: forwarded from NumPy.
    unsafe { arg_extreme(data, n, out, array, Ordering::Less) }
}

/// Truth of an element: non-empty; a NaN-like missing value is true (as NaN is), any
/// other non-string missing value false.
pub fn element_truth(na: &NaKind, view: View) -> bool {
    if view.is_na() {
        return match na {
            NaKind::NanLike => true,
            // NumPy's StringDType gives this (surprising) answer; kept for parity.
            NaKind::String(default) => default.is_empty(),
            NaKind::Other | NaKind::Unset => false,
        };
    }
    !view.is_empty()
}

unsafe extern "C" fn nonzero(data: *const u8, array: *mut c_void) -> npy_bool {
    // SAFETY: NumPy passes an element of `array`.
    unsafe {
        let state = descr::state(array_descr(array));
        element_truth(&state.na, descr::read_view(data)) as npy_bool
    }
}

fn slot(slot: c_int, pfunc: *mut c_void) -> PyType_Slot {
    PyType_Slot { slot, pfunc }
}

/// Creates the StringDType class, with `scalar_type` as its scalar type.
pub fn create(py: Python<'_>, scalar_type: &Bound<'_, PyAny>) -> PyResult<*mut PyArray_DTypeMeta> {
    init_known_scalar_types(py)?;
    // SAFETY: an all-zero PyArray_DTypeMeta is the blank static type object that NumPy's
    // own user DTypes start from; it is leaked, so it lives for the process.
    let meta: &'static mut PyArray_DTypeMeta = Box::leak(Box::new(unsafe { std::mem::zeroed() }));
    let meta_ptr: *mut PyArray_DTypeMeta = meta;
    let tp = meta_ptr as *mut PyTypeObject;
    // SAFETY: `tp` is our zeroed type object, not yet visible to anyone.
    unsafe {
        (*tp).ob_base.ob_base.ob_type = dtypemeta_type();
        ffi::Py_INCREF(tp.cast());
        (*tp).tp_name = c"stringdtype.StringDType".as_ptr();
        (*tp).tp_basicsize = std::mem::size_of::<StringDescr>() as isize;
        (*tp).tp_flags = ffi::Py_TPFLAGS_DEFAULT;
        (*tp).tp_doc = c"StringDType(*, na_object=<unset>, coerce=True)\n--\n\nA variable-width UTF-8 string dtype whose elements are Arrow string views.".as_ptr();
        (*tp).tp_new = Some(descr::descr_new);
        (*tp).tp_dealloc = Some(descr::descr_dealloc);
        (*tp).tp_repr = Some(descr::descr_repr);
        (*tp).tp_str = Some(descr::descr_repr);
        (*tp).tp_richcompare = Some(descr::descr_richcompare);
        (*tp).tp_hash = Some(descr::descr_hash);
        (*tp).tp_methods = descr::methods();
        (*tp).tp_getset = descr::getset();
        (*tp).tp_base = descr_type();
        if ffi::PyType_Ready(tp) < 0 {
            return Err(PyErr::fetch(py));
        }
    }
    DTYPE_CLASS.store(meta_ptr, AtomicOrdering::Release);

    let slots = vec![
        slot(
            NPY_DT_discover_descr_from_pyobject,
            discover_descr as *mut c_void,
        ),
        slot(
            _NPY_DT_is_known_scalar_type,
            is_known_scalar_type as *mut c_void,
        ),
        slot(NPY_DT_default_descr, default_descr as *mut c_void),
        slot(NPY_DT_common_dtype, common_dtype as *mut c_void),
        slot(NPY_DT_common_instance, common_instance as *mut c_void),
        slot(NPY_DT_ensure_canonical, ensure_canonical as *mut c_void),
        slot(NPY_DT_setitem, setitem as *mut c_void),
        slot(NPY_DT_getitem, getitem as *mut c_void),
        slot(NPY_DT_get_clear_loop, get_clear_loop as *mut c_void),
        slot(NPY_DT_finalize_descr, finalize_descr as *mut c_void),
        slot(
            rules().arrfuncs_slot(ArrFuncs::Compare),
            compare as *mut c_void,
        ),
        slot(
            rules().arrfuncs_slot(ArrFuncs::Argmax),
            argmax as *mut c_void,
        ),
        slot(
            rules().arrfuncs_slot(ArrFuncs::Argmin),
            argmin as *mut c_void,
        ),
        slot(
            rules().arrfuncs_slot(ArrFuncs::Nonzero),
            nonzero as *mut c_void,
        ),
        slot(
            rules().arrfuncs_slot(ArrFuncs::Sort),
            sort::sort as *mut c_void,
        ),
        slot(
            rules().arrfuncs_slot(ArrFuncs::Argsort),
            sort::argsort as *mut c_void,
        ),
        slot(0, ptr::null_mut()),
    ];
    let mut spec = PyArrayDTypeMeta_Spec {
        typeobj: scalar_type.as_ptr() as *mut PyTypeObject,
        flags: NPY_DT_PARAMETRIC,
        casts: casts::specs(),
        slots: Box::leak(slots.into_boxed_slice()).as_mut_ptr(),
        baseclass: ptr::null_mut(),
    };
    // SAFETY: `meta` is a ready type object of the DTypeMeta metatype; the spec and
    // everything it points to is leaked, so it outlives the call.
    if unsafe { PyArrayInitDTypeMeta_FromSpec(meta_ptr, &mut spec) } < 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(meta_ptr)
}
