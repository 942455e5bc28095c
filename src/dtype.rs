//! The StringDType class: its DType slots (item access, discovery, promotion, the clear
//! loop, `finalize_descr`, the legacy compare/argmax/argmin/nonzero functions) and its
//! registration with NumPy through `PyArrayInitDTypeMeta_FromSpec`.

use std::cmp::Ordering;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::OnceLock;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi::{self, PyObject, PyTypeObject, PyType_Slot};
use pyo3::prelude::*;
use stringdtype_core::View;

use crate::arenas::holds_gil;
use crate::casts;
use crate::descr::{self, python, DescrObject, StringDescr};
use crate::element::{
    as_pystring, compare_elements, element_truth, get_element, read_view, read_view_whole,
    replace_element, set_element, sorting_order, write_view,
};
use crate::error::{loop_guard, with_gil_guard};
use crate::ffi::*;
use crate::missing;
use crate::numpy_version::rules;
use crate::sort;

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
            set_element(py, StringDescr::from_raw(descr), &obj, dataptr)?;
        }
        Ok(0)
    })
}

unsafe extern "C" fn getitem(descr: *mut PyArray_Descr, dataptr: *mut u8) -> *mut PyObject {
    // SAFETY: NumPy passes an element of an array of `descr`.
    with_gil_guard(ptr::null_mut(), |py| {
        Ok(unsafe { get_element(py, StringDescr::from_raw(descr), dataptr) }?.into_ptr())
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
        // `U` and NumPy's own StringDType meet this package's: it holds both losslessly
        // and keeps this package's kernels for the result (docs/design.md).
        if (*other).type_num == NPY_UNICODE || other == builtin_dtype(BuiltinDType::NumpyString) {
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
        let (da, db) = unsafe { (StringDescr::from_raw(a), StringDescr::from_raw(b)) };
        let common_coerce = |x, y| rules().common_coerce(x, y);
        let (na, coerce) = missing::common_params(py, &[da, db], common_coerce, |_, _| {
            // SAFETY: both are live objects.
            let (ra, rb) = unsafe {
                (
                    Bound::from_borrowed_ptr(py, a.cast()).repr()?,
                    Bound::from_borrowed_ptr(py, b.cast()).repr()?,
                )
            };
            Ok(PyTypeError::new_err(format!(
                "Cannot find common instance for incompatible dtypes '{ra}' and '{rb}'"
            )))
        })?;
        descr::new_descr(py, na.as_ref(), coerce)
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
        let given = unsafe { StringDescr::from_raw(descr) };
        if given.claim() {
            // SAFETY: a new reference for NumPy.
            unsafe { ffi::Py_INCREF(descr.cast()) };
            return Ok(descr);
        }
        let fresh = given.clone_params(py)?;
        // SAFETY: `clone_params` returns a new, built descriptor.
        unsafe { StringDescr::from_raw(fresh) }.claim();
        Ok(fresh)
    })
}

/// Releases every element's string and leaves the element empty (all zeros): the memory
/// may be an iteration buffer that a cast fills again. A dying array's elements hold
/// every string of its arena: then the arena frees its chunks at once
/// (`Arena::release_all`, which proves it first); any other buffer releases its strings
/// one by one.
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
    loop_guard(|| {
        // SAFETY: NumPy passes the array's own descriptor and `size` elements at `stride`.
        let mut arena = unsafe { StringDescr::from_raw(descr) }.arena().write();
        // SAFETY: element `i` lies inside the buffer NumPy gave.
        let element = |i: npy_intp| unsafe { data.offset(i * stride) }.cast::<u8>();
        // SAFETY: as above.
        let bulk = arena.release_all((0..size).map(|i| unsafe { read_view(element(i)) }));
        for i in 0..size {
            // SAFETY: as above.
            unsafe {
                if bulk {
                    write_view(element(i), View::EMPTY);
                } else {
                    replace_element(&mut arena, element(i), View::EMPTY);
                }
            }
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
    // The common case, one call per element of a list of `str`, alone: merged with the
    // other tests it was compiled into one branch-free chain of six comparisons.
    if pytype == &raw mut ffi::PyUnicode_Type {
        return 1;
    }
    // SAFETY: `pytype` is a live type object.
    unsafe { is_other_known_scalar_type(pytype) }
}

/// [`is_known_scalar_type`] for types other than `str`.
///
/// # Safety
/// `pytype` must be a live type object.
#[inline(never)]
unsafe fn is_other_known_scalar_type(pytype: *mut PyTypeObject) -> c_int {
    // SAFETY: the builtin type objects are static; `pytype` is live (caller).
    unsafe {
        let builtins = [
            &raw mut ffi::PyFloat_Type,
            &raw mut ffi::PyLong_Type,
            &raw mut ffi::PyBool_Type,
            &raw mut ffi::PyComplex_Type,
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

unsafe extern "C" fn compare(a: *const u8, b: *const u8, array: *mut c_void) -> c_int {
    let mut result = 0;
    let status = loop_guard(|| {
        // SAFETY: NumPy passes two elements and the array of one of them (which may be
        // of another array: `searchsorted`; the arena reads any array's strings).
        let descr = unsafe { StringDescr::of_array(array) };
        let arena = descr.arena().read();
        let (va, vb) = unsafe { (read_view(a), read_view(b)) };
        result = sorting_order(&arena, descr.na(), va, vb)? as c_int;
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
    loop_guard(|| {
        // SAFETY: NumPy passes `n` contiguous elements of `array` and an out-pointer.
        let descr = unsafe { StringDescr::of_array(array) };
        let arena = descr.arena().read();
        // SAFETY: element i of the `n` contiguous elements.
        let element = |i: npy_intp| unsafe { read_view(data.offset(i * 16)) };
        let mut best = 0;
        for i in 1..n {
            if compare_elements(&arena, descr.na(), element(i), element(best))? == want {
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

unsafe extern "C" fn nonzero(data: *const u8, array: *mut c_void) -> npy_bool {
    // SAFETY: NumPy passes an element of `array`.
    let descr = unsafe { StringDescr::of_array(array) };
    // Read whole (see `element::read_view_whole`), under the read lock when the GIL is
    // not held.
    let view = if holds_gil() {
        // SAFETY: the GIL is held until the view is read.
        unsafe { read_view_whole(Python::assume_attached(), descr.arena(), data) }
    } else {
        let _arena = descr.arena().read();
        // SAFETY: NumPy passes an element.
        unsafe { read_view(data) }
    };
    element_truth(descr.na(), view) as npy_bool
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
        (*tp).tp_basicsize = std::mem::size_of::<DescrObject>() as isize;
        (*tp).tp_flags = ffi::Py_TPFLAGS_DEFAULT;
        (*tp).tp_doc = c"StringDType(*, na_object=<unset>, coerce=True)\n--\n\nA variable-width UTF-8 string dtype whose elements are Arrow string views.".as_ptr();
        (*tp).tp_new = Some(python::descr_new);
        (*tp).tp_dealloc = Some(python::descr_dealloc);
        (*tp).tp_repr = Some(python::descr_repr);
        (*tp).tp_str = Some(python::descr_str);
        (*tp).tp_richcompare = Some(python::descr_richcompare);
        (*tp).tp_hash = Some(python::descr_hash);
        (*tp).tp_methods = python::methods();
        (*tp).tp_getset = python::getset();
        (*tp).tp_base = descr_type();
        if ffi::PyType_Ready(tp) < 0 {
            return Err(PyErr::fetch(py));
        }
    }
    descr::set_dtype_class(meta_ptr);

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
