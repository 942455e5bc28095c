//! Casts between this package's StringDType and NumPy's own (`np.dtypes.StringDType`),
//! over NumPy's public string C API (`NpyString_acquire_allocator`, `NpyString_load`,
//! `NpyString_pack`, `NpyString_pack_null`, in the C API table since NumPy 2.0).
//!
//! Each loop holds two locks: the arena of ours and the allocator of NumPy's descriptor,
//! always taken in that order (ours first: counting as the arena's holder may wait for
//! the GIL, see `stringdtype_core::lock::hold`, and a thread that holds the GIL may hold
//! NumPy's allocator), so that two casts running in opposite directions on the same pair
//! of arrays cannot deadlock. Nothing under either
//! lock calls the Python API; errors are lazily built exceptions, raised after both locks
//! are released.

use std::ffi::c_char;
use std::ptr;

use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use stringdtype_core::{Arena, View};

use crate::descr::{self, StringDescr};
use crate::element::read_view;
use crate::error::CoreResultExt;
use crate::ffi::*;
use crate::missing;
use crate::missing::na_text;

/// NumPy's descriptor of one end of the cast, with its allocator locked while alive.
struct LockedAllocator {
    allocator: *mut NpyStringAllocator,
}

impl LockedAllocator {
    /// Locks the allocator of `descr`, a NumPy StringDType descriptor.
    fn acquire(descr: *const PyArray_Descr) -> LockedAllocator {
        // SAFETY: the cast's signature makes `descr` a live descriptor of NumPy's
        // StringDType, whose layout is `PyArray_StringDTypeObject`; acquiring its
        // allocator needs no GIL.
        let allocator = unsafe { NpyString_acquire_allocator(descr.cast()) };
        LockedAllocator { allocator }
    }
}

impl Drop for LockedAllocator {
    fn drop(&mut self) {
        // SAFETY: acquired in `acquire`, released once.
        unsafe { NpyString_release_allocator(self.allocator) };
    }
}

/// The parameters of a NumPy StringDType descriptor.
fn numpy_params(descr: *const PyArray_Descr) -> &'static NumpyStringDescr {
    // SAFETY: the cast's signature makes `descr` a live NumPy StringDType descriptor
    // (NumPy keeps it alive for the call; the reference is used within it).
    unsafe { &*descr.cast::<NumpyStringDescr>() }
}

/// The bytes of an `npy_static_string`.
fn static_bytes(s: &NpyStaticString) -> &[u8] {
    if s.buf.is_null() || s.size == 0 {
        return &[];
    }
    // SAFETY: NumPy's unpacked strings point at `size` readable bytes.
    unsafe { std::slice::from_raw_parts(s.buf.cast::<u8>(), s.size) }
}

fn pack_failed() -> PyErr {
    PyMemoryError::new_err("Failed to pack string while casting to numpy.dtypes.StringDType")
}

// Every source element is checked readable before anything is written, so that a view
// that does not belong to the source's arena raises with the destination unchanged.
super::pairs::strided_loop!(pub(super) string_to_numpy_string, |pairs| {
    let src = pairs.src().state();
    let keeps_na = !numpy_params(pairs.dst_descr).na_object.is_null();
    // The arena first: counting as its holder may wait for the GIL (see `hold`),
    // which a thread holding NumPy's allocator may hold.
    let arena = src.arena.read();
    let allocator = LockedAllocator::acquire(pairs.dst_descr);
    pairs.for_each(|element, _| {
        // SAFETY: `element` is an element of the source array.
        let view = unsafe { read_view(element) };
        if !view.is_inline() {
            arena.get(&view).py()?;
        }
        Ok(())
    })?;
    pairs.for_each(|element, dst| {
        // SAFETY: as above.
        let view = unsafe { read_view(element) };
        let status = if view.is_na() && keeps_na {
            // SAFETY: `dst` is an element of NumPy's destination array, its allocator
            // locked.
            unsafe { NpyString_pack_null(allocator.allocator, dst) }
        } else {
            let bytes = if view.is_na() {
                na_text(src)
            } else {
                arena.get(&view).py()?
            };
            // SAFETY: as above; `bytes` is a live slice.
            unsafe {
                NpyString_pack(
                    allocator.allocator,
                    dst,
                    bytes.as_ptr().cast::<c_char>(),
                    bytes.len(),
                )
            }
        };
        if status < 0 {
            return Err(pack_failed());
        }
        Ok(())
    })
});

// A failed cast leaves the destination as it was and releases what it stored
// (`Pairs::in_place`).
super::pairs::strided_loop!(pub(super) numpy_string_to_string, |pairs| {
    let source = numpy_params(pairs.src_descr);
    let na_name = static_bytes(&source.na_name);
    let dst = pairs.dst().state();
    let keeps_na = missing::has_na(&dst.na);
    // The arena first, as in `string_to_numpy_string`.
    let mut arena = dst.arena.write();
    let allocator = LockedAllocator::acquire(pairs.src_descr);
    if pairs.in_place(&arena) {
        pairs.store_in_place(&mut arena, |element, arena| {
            load_and_store(&allocator, element, na_name, keeps_na, arena)
        })
    } else {
        pairs.store_after(&mut arena, |element, arena| {
            load_and_store(&allocator, element, na_name, keeps_na, arena)
        })
    }
});

/// The view in `arena` of the NumPy string at `element`.
#[inline(always)]
fn load_and_store(
    allocator: &LockedAllocator,
    element: *mut u8,
    na_name: &[u8],
    keeps_na: bool,
    arena: &mut Arena,
) -> PyResult<View> {
    let mut unpacked = NpyStaticString {
        size: 0,
        buf: ptr::null(),
    };
    // SAFETY: `element` is an element of NumPy's source array, its allocator locked.
    let status = unsafe { NpyString_load(allocator.allocator, element, &mut unpacked) };
    match status {
        // NumPy's StringDType holds UTF-8 only (it validates every string it packs), so
        // the bytes are not checked again; nothing here relies on them being valid.
        0 => arena.store(static_bytes(&unpacked)).py(),
        1 if keeps_na => Ok(View::NA),
        1 => arena.store(na_name).py(),
        _ => Err(PyValueError::new_err(
            "a numpy.dtypes.StringDType element could not be read",
        )),
    }
}

/// The casting level between the two dtypes, as NumPy's for its own string-to-string
/// casts: unsafe when missing values become strings, else safe (never a view: the
/// element layouts differ).
fn casting(src_has_na: bool, dst_has_na: bool) -> std::ffi::c_int {
    if src_has_na && !dst_has_na {
        NPY_UNSAFE_CASTING
    } else {
        NPY_SAFE_CASTING
    }
}

/// A NumPy StringDType descriptor with the given parameters.
fn numpy_descr(
    py: Python<'_>,
    na_object: Option<&Bound<'_, PyAny>>,
    coerce: bool,
) -> PyResult<*mut PyArray_Descr> {
    let kwargs = PyDict::new(py);
    if let Some(na) = na_object {
        kwargs.set_item("na_object", na)?;
    }
    kwargs.set_item("coerce", coerce)?;
    let class = py
        .import("numpy")?
        .getattr("dtypes")?
        .getattr("StringDType")?;
    Ok(class.call((), Some(&kwargs))?.into_ptr().cast())
}

super::resolve::resolver!(
    /// This package's StringDType to NumPy's: a missing destination gets NumPy's
    /// descriptor with the source's parameters.
    resolve_to_numpy_string,
    |py, r| {
        // SAFETY: the source of this cast is a given StringDType descriptor of ours.
        let src = unsafe { StringDescr::from_raw(r.given(0)) };
        r.fill(|_, _| numpy_descr(py, src.na_object(py).as_ref(), src.coerce()))?;
        let dst = numpy_params(r.chosen(1));
        Ok(casting(missing::has_na(src.na()), !dst.na_object.is_null()))
    }
);

super::resolve::resolver!(
    /// NumPy's StringDType to this package's: a missing destination gets a fresh
    /// descriptor with the source's parameters.
    resolve_from_numpy_string,
    |py, r| {
        let src = numpy_params(r.given(0));
        let na_object = (!src.na_object.is_null())
            // SAFETY: a non-null `na_object` is a strong reference NumPy's descriptor holds.
            .then(|| unsafe { Bound::from_borrowed_ptr(py, src.na_object) });
        r.fill(|_, _| descr::new_descr(py, na_object.as_ref(), src.coerce != 0))?;
        // SAFETY: the destination is a StringDType descriptor of ours (filled above).
        let dst = unsafe { StringDescr::from_raw(r.chosen(1)) };
        Ok(casting(!src.na_object.is_null(), missing::has_na(dst.na())))
    }
);
