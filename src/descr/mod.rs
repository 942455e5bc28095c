//! The StringDType descriptor: NumPy's `PyArray_Descr` followed by the dtype's parameters
//! (`na_object`, `coerce`) and the arena that holds the long strings of its array, and
//! [`StringDescr`], the typed handle through which the rest of the crate reaches them.
//!
//! The descriptor's Python face (`StringDType(...)`, `repr`, `==`, `hash`, pickling, the
//! attributes) is in [`python`].

pub mod python;

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use pyo3::exceptions::PyTypeError;
use pyo3::ffi::{self, PyObject, PyTypeObject};
use pyo3::prelude::*;
use pyo3::types::PyFloat;
use stringdtype_core::ArenaLock;

use crate::ffi::{
    array_descr, array_type, descr_type, dtype_of, PyArray_DTypeMeta, PyArray_Descr,
    NPY_ITEM_REFCOUNT, NPY_LIST_PICKLE, NPY_NEEDS_INIT,
};

pub use crate::missing::kind::NaKind;

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

/// The descriptor object: NumPy's head, then this package's fields.
///
/// The state lives in the object itself, not behind a pointer: every array has a
/// descriptor of its own, and a separate allocation cost a small array 208 bytes more
/// of the C heap against 200 in Python's object allocator, and a `malloc` and `free`.
/// Python objects never move, so the arena's lock stays where it was made.
#[repr(C)]
pub struct DescrObject {
    pub base: PyArray_Descr,
    /// Strong reference, or null when `na_object` is unset.
    pub na_object: *mut PyObject,
    /// Whether `state` was written: false only while the object is being built (it is
    /// zero-filled before).
    pub ready: bool,
    pub state: MaybeUninit<DescrState>,
}

static DTYPE_CLASS: AtomicPtr<PyArray_DTypeMeta> = AtomicPtr::new(ptr::null_mut());

/// The StringDType class (null until `dtype::create` registered it).
pub fn dtype_class() -> *mut PyArray_DTypeMeta {
    DTYPE_CLASS.load(Ordering::Acquire)
}

/// Records the StringDType class (once, at import).
pub fn set_dtype_class(class: *mut PyArray_DTypeMeta) {
    DTYPE_CLASS.store(class, Ordering::Release);
}

/// Whether `descr` is a StringDType descriptor of this package.
///
/// # Safety
/// `descr` must be a live descriptor.
pub unsafe fn is_string_descr(descr: *const PyArray_Descr) -> bool {
    // SAFETY: forwarded contract.
    unsafe { dtype_of(descr) == dtype_class() }
}

/// A live, fully built StringDType descriptor, borrowed for `'a`: the one way the crate
/// reads a descriptor's parameters and arena.
#[derive(Clone, Copy)]
pub struct StringDescr<'a> {
    object: NonNull<DescrObject>,
    _borrow: PhantomData<&'a DescrObject>,
}

// SAFETY: a descriptor's fields are set before it is shared and never change after
// (`na_object` is read under the GIL), and the state is Sync (its arena is behind a lock).
unsafe impl Send for StringDescr<'_> {}
// SAFETY: as above.
unsafe impl Sync for StringDescr<'_> {}

impl<'a> StringDescr<'a> {
    /// The handle of `descr`.
    ///
    /// # Safety
    /// `descr` must be a live StringDType descriptor whose construction finished (its
    /// state is set), and must stay alive for `'a`: NumPy passes such descriptors to
    /// slots and loops for the call, and an array keeps its own alive.
    #[inline]
    pub unsafe fn from_raw(descr: *const PyArray_Descr) -> StringDescr<'a> {
        debug_assert!(!descr.is_null());
        StringDescr {
            // SAFETY: non-null by the contract.
            object: unsafe { NonNull::new_unchecked(descr as *mut DescrObject) },
            _borrow: PhantomData,
        }
    }

    /// The descriptor of `array`, an array of this DType (what NumPy passes to the
    /// legacy `compare`, `argmax`, `argmin`, `nonzero`, `sort` and `argsort` functions).
    ///
    /// # Safety
    /// `array` must be a live ndarray of this DType, alive for `'a`.
    pub unsafe fn of_array(array: *mut std::ffi::c_void) -> StringDescr<'a> {
        // SAFETY: forwarded contract: an array's descriptor is live while it is.
        unsafe { StringDescr::from_raw(crate::ffi::array_descr(array)) }
    }

    /// The descriptor of `array` if it is a NumPy array of this DType; else a `TypeError`
    /// saying that `function` expects one.
    pub fn of_ndarray(array: &'a Bound<'_, PyAny>, function: &str) -> PyResult<StringDescr<'a>> {
        // SAFETY: `array` is live.
        let is_ndarray = unsafe { ffi::PyObject_TypeCheck(array.as_ptr(), array_type()) != 0 };
        if !is_ndarray {
            return Err(PyTypeError::new_err(format!(
                "{function} expects a NumPy array of stringdtype.StringDType, got {}",
                array.get_type().name()?
            )));
        }
        // SAFETY: an ndarray starts with PyArrayObject_fields; its descriptor is live
        // while the array is, which `array` keeps for 'a.
        let descr = unsafe { StringDescr::try_from_raw(array_descr(array.as_ptr().cast())) };
        descr.map_or_else(
            || {
                Err(PyTypeError::new_err(format!(
                    "{function} expects an array of stringdtype.StringDType, got dtype {}",
                    array.getattr("dtype")?.repr()?
                )))
            },
            Ok,
        )
    }

    /// The handle of `descr` if it is a StringDType descriptor of this package.
    ///
    /// # Safety
    /// `descr` must be null or a live descriptor that stays alive for `'a`.
    #[inline]
    pub unsafe fn try_from_raw(descr: *const PyArray_Descr) -> Option<StringDescr<'a>> {
        // SAFETY: forwarded contract; a StringDType descriptor that NumPy or an array
        // hands out is fully built.
        (!descr.is_null() && unsafe { is_string_descr(descr) })
            .then(|| unsafe { StringDescr::from_raw(descr) })
    }

    fn object(self) -> &'a DescrObject {
        // SAFETY: live for 'a (the constructor's contract).
        unsafe { self.object.as_ref() }
    }

    /// The descriptor's parameters and arena.
    #[inline]
    pub fn state(self) -> &'a DescrState {
        // SAFETY: written when the descriptor was built (the constructor's contract),
        // dropped only when it dies.
        unsafe { self.object().state.assume_init_ref() }
    }

    /// The arena of the descriptor's array.
    #[inline]
    pub fn arena(self) -> &'a ArenaLock {
        &self.state().arena
    }

    /// How the descriptor treats missing values.
    #[inline]
    pub fn na(self) -> &'a NaKind {
        &self.state().na
    }

    /// Whether non-strings are converted with `str()`.
    #[inline]
    pub fn coerce(self) -> bool {
        self.state().coerce
    }

    /// The `na_object` (borrowed), or `None` when unset.
    pub fn na_object<'py>(self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        let ptr = self.object().na_object;
        // SAFETY: a non-null `na_object` is a strong reference the descriptor holds.
        (!ptr.is_null()).then(|| unsafe { Bound::from_borrowed_ptr(py, ptr) })
    }

    /// Whether the two have the same parameters (`==` of the dtypes).
    pub fn same_params(self, py: Python<'_>, other: StringDescr<'_>) -> bool {
        self.coerce() == other.coerce()
            && na_equal(self.na_object(py).as_ref(), other.na_object(py).as_ref())
    }

    /// A new descriptor with the same parameters.
    pub fn clone_params(self, py: Python<'_>) -> PyResult<*mut PyArray_Descr> {
        new_descr(py, self.na_object(py).as_ref(), self.coerce())
    }

    /// Marks the descriptor as owned by an array if it is not yet; returns whether this
    /// call did.
    pub fn claim(self) -> bool {
        self.state()
            .owned
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
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

/// The `na_object` a caller passed: `None` for NumPy's `np._NoValue`, which (as in
/// NumPy's signature) means "not given".
pub fn given_na_object(value: Bound<'_, PyAny>) -> PyResult<Option<Bound<'_, PyAny>>> {
    let no_value = value.py().import("numpy")?.getattr("_NoValue")?;
    Ok((!value.is(&no_value)).then_some(value))
}

/// The descriptor's `kind`: a letter NumPy does not use, so that no library mistakes it
/// for NumPy's StringDType (kind 'T') or any other NumPy kind.
pub const IDENTITY_KIND: u8 = b't';

/// Creates a new, unowned descriptor with the given parameters and an empty arena.
pub fn new_descr(
    py: Python<'_>,
    na_object: Option<&Bound<'_, PyAny>>,
    coerce: bool,
) -> PyResult<*mut PyArray_Descr> {
    let (na, na_name) = crate::missing::kind::params(na_object)?;
    let cls = dtype_class() as *mut PyTypeObject;
    // SAFETY: NumPy's descriptor tp_new allocates an instance of a user DType class
    // (zero-filled, tp_basicsize bytes) and fills the PyArray_Descr head; args are unused.
    let obj = unsafe {
        let new = (*descr_type()).tp_new.expect("np.dtype has tp_new");
        new(cls, ptr::null_mut(), ptr::null_mut())
    };
    if obj.is_null() {
        return Err(PyErr::fetch(py));
    }
    let descr = obj as *mut DescrObject;
    let state = MaybeUninit::new(DescrState {
        na,
        na_name,
        coerce,
        arena: ArenaLock::new(),
        owned: AtomicBool::new(false),
    });
    // SAFETY: `descr` is a fresh DescrObject that no one else sees yet.
    unsafe {
        let base = &mut (*descr).base;
        base.elsize = 16;
        base.alignment = 8;
        base.flags |= NPY_NEEDS_INIT | NPY_LIST_PICKLE | NPY_ITEM_REFCOUNT;
        // Not NumPy's kind 'T': code that dispatches on it (h5py) calls NumPy's C string
        // API, which would read these views as NumPy's packed strings. The char stays
        // 'T': `np.strings` takes its variable-width path on it (docs/design.md).
        base.kind = IDENTITY_KIND as _;
        base.type_ = b'T' as _;
        (*descr).na_object = na_object.map_or(ptr::null_mut(), |o| o.clone().into_ptr());
        ptr::addr_of_mut!((*descr).state).write(state);
        (*descr).ready = true;
    }
    Ok(descr as *mut PyArray_Descr)
}
