//! StringDType ndarrays seen from functions that work on them with the GIL released:
//! reading the elements of an array of any shape and strides in C order ([`Elements`]),
//! and making a new 1-D array that takes an arena of strings ([`new_array`], [`install`]).

use std::ffi::c_int;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use stringdtype_core::{Arena, View};

use crate::descr::StringDescr;
use crate::element::read_view;
use crate::ffi::PyArrayObject_fields;

/// `NPY_ARRAY_C_CONTIGUOUS` and `NPY_ARRAY_ALIGNED` (ndarraytypes.h).
const NPY_ARRAY_C_CONTIGUOUS: c_int = 0x0001;
const NPY_ARRAY_ALIGNED: c_int = 0x0100;

/// A raw pointer that crosses into code running without the GIL.
#[derive(Clone, Copy)]
pub struct SendPtr<T>(pub *mut T);

// SAFETY: the pointers wrapped are an array's data, kept alive by a reference the caller
// holds across the GIL-free section, and used by that one section only.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above; the section only reads through the pointer.
unsafe impl<T> Sync for SendPtr<T> {}

/// Where the elements of a StringDType ndarray are: enough to read them in C order
/// without the GIL, while the caller keeps the array alive.
pub struct Elements {
    data: SendPtr<u8>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    len: usize,
    contiguous: bool,
}

impl Elements {
    /// The elements of `array`, an ndarray whose dtype is this package's StringDType
    /// (checked by `descr`, which [`StringDescr::of_ndarray`] made from it).
    pub fn of(array: &Bound<'_, PyAny>, _descr: StringDescr<'_>) -> Elements {
        // SAFETY: `array` is an ndarray (the descriptor was read from it), alive for the
        // caller's use of the result.
        let fields = unsafe { &*(array.as_ptr() as *const PyArrayObject_fields) };
        let ndim = fields.nd as usize;
        let (shape, strides) = if ndim == 0 {
            // A 0-d array's dimension and stride pointers may be null.
            (Vec::new(), Vec::new())
        } else {
            // SAFETY: an ndarray's dimensions and strides hold `nd` entries each.
            unsafe {
                (
                    std::slice::from_raw_parts(fields.dimensions, ndim).to_vec(),
                    std::slice::from_raw_parts(fields.strides, ndim).to_vec(),
                )
            }
        };
        let shape: Vec<usize> = shape.into_iter().map(|d| d as usize).collect();
        let len = shape.iter().product();
        let contiguous = fields.flags & NPY_ARRAY_C_CONTIGUOUS != 0
            && fields.flags & NPY_ARRAY_ALIGNED != 0
            && (fields.data as usize) % std::mem::align_of::<View>() == 0;
        Elements {
            data: SendPtr(fields.data.cast::<u8>()),
            shape,
            strides,
            len,
            contiguous,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The elements' views as a slice, when the array is C-contiguous and aligned. The
    /// caller holds the array's arena lock (so that no loop writes them meanwhile) and
    /// keeps the array alive.
    pub fn as_slice(&self) -> Option<&[View]> {
        if self.len == 0 {
            return Some(&[]);
        }
        // SAFETY: a C-contiguous, aligned array holds `len` elements of 16 bytes from
        // `data`, alive while the caller keeps the array.
        self.contiguous
            .then(|| unsafe { std::slice::from_raw_parts(self.data.0.cast::<View>(), self.len) })
    }

    /// The elements' views in C order. The caller holds the array's arena lock (so that
    /// no loop writes them meanwhile) and keeps the array alive.
    pub fn views(&self) -> Views<'_> {
        if let Some(views) = self.as_slice() {
            return Views::Slice(views.iter().copied());
        }
        Views::Strided(StridedViews {
            data: self.data,
            shape: &self.shape,
            strides: &self.strides,
            index: vec![0; self.shape.len()],
            offset: 0,
            remaining: self.len,
        })
    }
}

/// The views of [`Elements`] in C order.
pub enum Views<'a> {
    Slice(std::iter::Copied<std::slice::Iter<'a, View>>),
    Strided(StridedViews<'a>),
}

impl Iterator for Views<'_> {
    type Item = View;

    #[inline]
    fn next(&mut self) -> Option<View> {
        match self {
            Views::Slice(views) => views.next(),
            Views::Strided(views) => views.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Views::Slice(views) => views.size_hint(),
            Views::Strided(views) => views.size_hint(),
        }
    }
}

impl ExactSizeIterator for Views<'_> {}

/// The elements of a strided N-D array in C order.
pub struct StridedViews<'a> {
    data: SendPtr<u8>,
    shape: &'a [usize],
    strides: &'a [isize],
    index: Vec<usize>,
    offset: isize,
    remaining: usize,
}

impl Iterator for StridedViews<'_> {
    type Item = View;

    fn next(&mut self) -> Option<View> {
        if self.remaining == 0 {
            return None;
        }
        // SAFETY: `index` stays inside `shape`, so `offset` addresses an element of the
        // array, which the caller keeps alive.
        let view = unsafe { read_view(self.data.0.offset(self.offset)) };
        self.remaining -= 1;
        for axis in (0..self.shape.len()).rev() {
            self.index[axis] += 1;
            self.offset += self.strides[axis];
            if self.index[axis] < self.shape[axis] {
                break;
            }
            self.offset -= self.strides[axis] * self.shape[axis] as isize;
            self.index[axis] = 0;
        }
        Some(view)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for StridedViews<'_> {}

/// A new 1-D array of `n` empty strings that owns `descr` (a fresh StringDType
/// descriptor), and its elements, to fill without the GIL before [`install`]ing their
/// arena.
pub fn new_array<'py>(
    py: Python<'py>,
    descr: &Bound<'py, PyAny>,
    n: usize,
) -> PyResult<(Bound<'py, PyAny>, SendPtr<View>)> {
    let array = py.import("numpy")?.call_method1("empty", (n, descr))?;
    // SAFETY: `np.empty` returns an ndarray.
    let fields = unsafe { &*(array.as_ptr() as *const PyArrayObject_fields) };
    let data = fields.data.cast::<View>();
    // `descr` is fresh and unowned, so `finalize_descr` gives it to this array; its arena
    // is then the array's, which `install` relies on.
    if fields.descr != descr.as_ptr().cast() || (data as usize) % std::mem::align_of::<View>() != 0
    {
        return Err(PyRuntimeError::new_err(
            "internal error in stringdtype: a new array did not get its descriptor",
        ));
    }
    Ok((array, SendPtr(data)))
}

/// A new 1-D array holding `views`, whose long strings live in `arena`, with the fresh
/// descriptor `descr`.
pub fn array_from_views<'py>(
    py: Python<'py>,
    descr: &Bound<'py, PyAny>,
    views: &[View],
    arena: Arena,
) -> PyResult<Bound<'py, PyAny>> {
    let (array, data) = new_array(py, descr, views.len())?;
    // SAFETY: the new array holds `views.len()` aligned elements at `data`, not yet
    // shared with anyone.
    unsafe { std::ptr::copy_nonoverlapping(views.as_ptr(), data.0, views.len()) };
    install(descr, arena);
    Ok(array)
}

/// Makes `arena`, which holds the strings of the elements of the array made by
/// [`new_array`] with `descr`, that array's arena.
pub fn install(descr: &Bound<'_, PyAny>, arena: Arena) {
    // SAFETY: `descr` is a live StringDType descriptor (given to `new_array`).
    let descr = unsafe { StringDescr::from_raw(descr.as_ptr().cast()) };
    // The array is new and its elements were all empty, so nothing points into the
    // arena being replaced.
    descr.arena().replace(arena);
}

/// A new 1-D NumPy array of dtype `dtype` (whose items are `T`'s size) holding `values`.
pub fn numpy_array<'py, T: Copy>(
    py: Python<'py>,
    dtype: &str,
    values: &[T],
) -> PyResult<Bound<'py, PyAny>> {
    let array = py
        .import("numpy")?
        .call_method1("empty", (values.len(), dtype))?;
    if array.getattr("itemsize")?.extract::<usize>()? != std::mem::size_of::<T>() {
        return Err(PyRuntimeError::new_err(format!(
            "internal error in stringdtype: {dtype} items are not {} bytes",
            std::mem::size_of::<T>()
        )));
    }
    // SAFETY: `np.empty` returns a new C-contiguous array of `values.len()` items of
    // `T`'s size (checked), aligned for its dtype.
    unsafe {
        let fields = &*(array.as_ptr() as *const PyArrayObject_fields);
        std::ptr::copy_nonoverlapping(values.as_ptr(), fields.data.cast::<T>(), values.len());
    }
    Ok(array)
}

/// The items of `obj`, which must be a 1-D, C-contiguous int64 ndarray (else a
/// `ValueError` naming it `what`), copied out.
pub fn int64_vector(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i64>> {
    let np = obj.py().import("numpy")?;
    let is_int64 = np.getattr("ndarray").and_then(|t| obj.is_instance(&t))?
        && obj.getattr("dtype")?.eq(np.getattr("int64")?)?
        && obj.getattr("ndim")?.extract::<usize>()? == 1
        && obj.getattr("flags")?.getattr("c_contiguous")?.is_truthy()?;
    if !is_int64 {
        return Err(PyValueError::new_err(format!(
            "{what} must be a 1-D contiguous int64 array"
        )));
    }
    // SAFETY: a 1-D, C-contiguous int64 ndarray (checked above), alive while `obj` is.
    Ok(unsafe {
        let fields = &*(obj.as_ptr() as *const PyArrayObject_fields);
        let n = *fields.dimensions as usize;
        std::slice::from_raw_parts(fields.data as *const i64, n).to_vec()
    })
}
