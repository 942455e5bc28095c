//! Casts between StringDType and NumPy's dtypes, registered with the DType spec.
//!
//! String-to-string, `U`, `S` and `bool` casts are Rust loops over the views that run
//! without the GIL. Casts to and from numbers, datetimes and timedeltas go through
//! Python's own `int()` / `float()` / `complex()` and NumPy's scalars, so that results and
//! errors are exactly those of NumPy's StringDType. Casts to and from `object` need no
//! code: NumPy uses `getitem` / `setitem`.

use std::ffi::{c_int, c_void, CStr};
use std::ptr;

use pyo3::exceptions::{PyTypeError, PyUnicodeDecodeError, PyUnicodeEncodeError, PyValueError};
use pyo3::ffi as pyffi;
use pyo3::prelude::*;
use pyo3::types::PyString;
use stringdtype_core::View;

use crate::arenas::ArenaLocks;
use crate::descr::{self, DescrState, NaKind};
use crate::dtype::{
    convert_object, element_truth, get_element, is_fresh_destination, replace_element,
    write_element,
};
use crate::error::{with_gil_guard, CoreResultExt};
use crate::ffi::*;
use crate::numpy_version::rules;
use crate::ufuncs::Args;

/// One end of a cast: this package's DType or one of NumPy's.
#[derive(Clone, Copy)]
enum End {
    Ours,
    Builtin(BuiltinDType),
}

struct CastDef {
    name: &'static CStr,
    from: End,
    to: End,
    casting: c_int,
    flags: c_int,
    resolve: ResolveDescriptors,
    strided: StridedLoop,
}

const FAST: c_int = NPY_METH_NO_FLOATINGPOINT_ERRORS | NPY_METH_SUPPORTS_UNALIGNED;
const PYAPI: c_int = NPY_METH_REQUIRES_PYAPI | NPY_METH_NO_FLOATINGPOINT_ERRORS;

/// The numeric, datetime and timedelta DTypes, cast through Python scalars.
const SCALAR_DTYPES: [BuiltinDType; 21] = {
    use BuiltinDType::*;
    [
        Int8,
        UInt8,
        Int16,
        UInt16,
        Int32,
        UInt32,
        Int64,
        UInt64,
        Long,
        ULong,
        LongLong,
        ULongLong,
        Half,
        Float,
        Double,
        LongDouble,
        CFloat,
        CDouble,
        CLongDouble,
        Datetime,
        Timedelta,
    ]
};

fn cast_defs() -> Vec<CastDef> {
    use BuiltinDType::*;
    let mut defs = vec![
        CastDef {
            name: c"string_to_string",
            from: End::Ours,
            to: End::Ours,
            // The least safe level this cast can have: NumPy skips `resolve_descriptors`
            // when the spec's level already satisfies the requested one.
            casting: NPY_UNSAFE_CASTING,
            flags: FAST,
            resolve: resolve_string_to_string,
            strided: string_to_string,
        },
        CastDef {
            name: c"unicode_to_string",
            from: End::Builtin(Unicode),
            to: End::Ours,
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAME_KIND_CASTING>,
            strided: unicode_to_string,
        },
        CastDef {
            name: c"string_to_unicode",
            from: End::Ours,
            to: End::Builtin(Unicode),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_from_string::<NPY_SAME_KIND_CASTING>,
            strided: string_to_unicode,
        },
        CastDef {
            name: c"bytes_to_string",
            from: End::Builtin(Bytes),
            to: End::Ours,
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAME_KIND_CASTING>,
            strided: bytes_to_string,
        },
        CastDef {
            name: c"string_to_bytes",
            from: End::Ours,
            to: End::Builtin(Bytes),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_from_string::<NPY_SAME_KIND_CASTING>,
            strided: string_to_bytes,
        },
        CastDef {
            name: c"void_to_string",
            from: End::Builtin(Void),
            to: End::Ours,
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAME_KIND_CASTING>,
            strided: void_to_string,
        },
        CastDef {
            name: c"string_to_void",
            from: End::Ours,
            to: End::Builtin(Void),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_string_to_void,
            strided: string_to_void,
        },
        CastDef {
            name: c"object_to_string",
            from: End::Builtin(Object),
            to: End::Ours,
            casting: NPY_UNSAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_to_string::<NPY_UNSAFE_CASTING>,
            strided: object_to_string,
        },
        CastDef {
            name: c"bool_to_string",
            from: End::Builtin(Bool),
            to: End::Ours,
            casting: NPY_SAFE_CASTING,
            flags: FAST,
            resolve: resolve_to_string::<NPY_SAFE_CASTING>,
            strided: bool_to_string,
        },
        CastDef {
            name: c"string_to_bool",
            from: End::Ours,
            to: End::Builtin(Bool),
            casting: NPY_SAME_KIND_CASTING,
            flags: FAST,
            resolve: resolve_from_string::<NPY_SAME_KIND_CASTING>,
            strided: string_to_bool,
        },
    ];
    for dtype in SCALAR_DTYPES {
        defs.push(CastDef {
            name: c"number_to_string",
            from: End::Builtin(dtype),
            to: End::Ours,
            casting: NPY_SAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_to_string::<NPY_SAFE_CASTING>,
            strided: scalar_to_string,
        });
        defs.push(CastDef {
            name: c"string_to_number",
            from: End::Ours,
            to: End::Builtin(dtype),
            casting: NPY_UNSAFE_CASTING,
            flags: PYAPI,
            resolve: resolve_from_string::<NPY_UNSAFE_CASTING>,
            strided: string_to_scalar,
        });
    }
    defs
}

fn end_ptr(end: End) -> *mut PyArray_DTypeMeta {
    match end {
        End::Ours => ptr::null_mut(),
        End::Builtin(dtype) => builtin_dtype(dtype),
    }
}

/// The cast specs for the DType spec: a null-terminated, leaked array. DTypes that are
/// the same object under two names (`int64` and `long` on most platforms) appear once.
pub fn specs() -> *mut *mut PyArrayMethod_Spec {
    let mut seen: Vec<(usize, usize)> = Vec::new();
    let mut specs: Vec<*mut PyArrayMethod_Spec> = Vec::new();
    for def in cast_defs() {
        let dtypes = [end_ptr(def.from), end_ptr(def.to)];
        let key = (dtypes[0] as usize, dtypes[1] as usize);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let slots = method_slots(
            def.resolve as *mut c_void,
            def.strided as *mut c_void,
            def.flags,
        );
        let spec = PyArrayMethod_Spec {
            name: def.name.as_ptr(),
            nin: 1,
            nout: 1,
            casting: def.casting,
            flags: def.flags,
            dtypes: Box::leak(Box::new(dtypes)).as_mut_ptr(),
            slots: Box::leak(Box::new(slots)).as_mut_ptr(),
        };
        specs.push(Box::into_raw(Box::new(spec)));
    }
    specs.push(ptr::null_mut());
    Box::leak(specs.into_boxed_slice()).as_mut_ptr()
}

// ---------------------------------------------------------------------------------------
// Descriptor resolution

unsafe fn incref(descr: *mut PyArray_Descr) -> *mut PyArray_Descr {
    // SAFETY: callers pass live descriptors.
    unsafe { pyffi::Py_INCREF(descr.cast()) };
    descr
}

unsafe extern "C" fn resolve_string_to_string(
    _method: *mut c_void,
    _dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    _view_offset: *mut npy_intp,
) -> c_int {
    with_gil_guard(-1, |py| {
        // SAFETY: NumPy passes two given descriptors (the second may be null) and room
        // for two loop descriptors. A missing output gets a fresh, unowned descriptor so
        // that the new array, not the input, owns the strings.
        unsafe {
            let (src, dst) = (*given, *given.add(1));
            let dst = if dst.is_null() {
                descr::clone_params(py, src)?
            } else {
                incref(dst)
            };
            *loop_descrs = incref(src);
            *loop_descrs.add(1) = dst;
            let lossy =
                descr::state(src).na != NaKind::Unset && descr::state(dst).na == NaKind::Unset;
            Ok(if lossy {
                NPY_UNSAFE_CASTING
            } else {
                NPY_NO_CASTING
            })
        }
    })
}

unsafe extern "C" fn resolve_to_string<const CASTING: c_int>(
    _method: *mut c_void,
    _dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    _view_offset: *mut npy_intp,
) -> c_int {
    with_gil_guard(-1, |py| {
        // SAFETY: as in `resolve_string_to_string`.
        unsafe {
            let dst = *given.add(1);
            let dst = if dst.is_null() {
                descr::new_descr(py, None, true)?
            } else {
                incref(dst)
            };
            *loop_descrs = incref(*given);
            *loop_descrs.add(1) = dst;
        }
        Ok(CASTING)
    })
}

unsafe extern "C" fn resolve_from_string<const CASTING: c_int>(
    _method: *mut c_void,
    dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    _view_offset: *mut npy_intp,
) -> c_int {
    with_gil_guard(-1, |py| {
        // SAFETY: as in `resolve_string_to_string`; `dtypes[1]` is the target DType.
        unsafe {
            let mut dst = *given.add(1);
            if dst.is_null() {
                let target = *dtypes.add(1);
                let flexible = target == builtin_dtype(BuiltinDType::Unicode)
                    || target == builtin_dtype(BuiltinDType::Bytes);
                if flexible {
                    let src = Bound::from_borrowed_ptr(py, (*given).cast()).repr()?;
                    let cls = Bound::from_borrowed_ptr(py, target.cast()).repr()?;
                    return Err(PyTypeError::new_err(format!(
                        "cannot cast dtype {src} to {cls}."
                    )));
                }
                let time = target == builtin_dtype(BuiltinDType::Datetime)
                    || target == builtin_dtype(BuiltinDType::Timedelta);
                if time {
                    return Err(PyTypeError::new_err(
                        "Cannot cast a StringDType array to a datetime64 or timedelta64 dtype \
                         without a unit; give one, for example 'datetime64[s]'",
                    ));
                }
                dst = default_descr_of(py, target)?;
            } else {
                incref(dst);
            }
            *loop_descrs = incref(*given);
            *loop_descrs.add(1) = dst;
        }
        Ok(CASTING)
    })
}

/// To a void dtype: only a sized, unstructured one, as NumPy's StringDType (the level is
/// unsafe: bytes may be cut anywhere).
unsafe extern "C" fn resolve_string_to_void(
    _method: *mut c_void,
    _dtypes: *const *mut PyArray_DTypeMeta,
    given: *const *mut PyArray_Descr,
    loop_descrs: *mut *mut PyArray_Descr,
    _view_offset: *mut npy_intp,
) -> c_int {
    with_gil_guard(-1, |py| {
        // SAFETY: as in `resolve_string_to_string`.
        unsafe {
            let dst = *given.add(1);
            if dst.is_null() {
                return Err(PyTypeError::new_err(
                    "Casting from StringDType to a fixed-width dtype with an unspecified size \
                     is not currently supported, specify an explicit size for the output dtype \
                     instead.",
                ));
            }
            let target = Bound::from_borrowed_ptr(py, dst.cast());
            if !target.getattr("names")?.is_none() || !target.getattr("subdtype")?.is_none() {
                return Err(PyTypeError::new_err(
                    "Casting from StringDType to a structured dtype is not supported.",
                ));
            }
            *loop_descrs = incref(*given);
            *loop_descrs.add(1) = incref(dst);
        }
        Ok(NPY_UNSAFE_CASTING)
    })
}

fn default_descr_of(py: Python<'_>, dtype: *mut PyArray_DTypeMeta) -> PyResult<*mut PyArray_Descr> {
    // SAFETY: `dtype` is a live DType class; PyArray_GetDefaultDescr returns a new reference.
    let descr = unsafe { PyArray_GetDefaultDescr(dtype) };
    if descr.is_null() {
        return Err(PyErr::fetch(py));
    }
    Ok(descr)
}

// ---------------------------------------------------------------------------------------
// Loop plumbing

/// The loop's descriptors and its `n` (source, destination) element pointers.
struct Pairs {
    src_descr: *mut PyArray_Descr,
    dst_descr: *mut PyArray_Descr,
    src: *mut u8,
    dst: *mut u8,
    src_stride: isize,
    dst_stride: isize,
    n: isize,
}

impl Pairs {
    /// The pairs of a 1-in-1-out loop call.
    fn new(args: Args) -> Pairs {
        Pairs {
            src_descr: args.descrs[0],
            dst_descr: args.descrs[1],
            src: args.data[0],
            dst: args.data[1],
            src_stride: args.strides[0],
            dst_stride: args.strides[1],
            n: args.n,
        }
    }

    /// Calls `f(src, dst)` for each element pair.
    fn for_each(&self, mut f: impl FnMut(*mut u8, *mut u8) -> PyResult<()>) -> PyResult<()> {
        for i in 0..self.n {
            // Pointer arithmetic only; NumPy guarantees every pair lies in its buffer.
            let src = self.src.wrapping_offset(i * self.src_stride);
            let dst = self.dst.wrapping_offset(i * self.dst_stride);
            f(src, dst)?;
        }
        Ok(())
    }

    /// # Safety
    /// The source descriptor must be a StringDType descriptor.
    unsafe fn src_state(&self) -> &DescrState {
        // SAFETY: forwarded contract; the descriptor outlives the loop call.
        unsafe { descr::state(self.src_descr) }
    }

    /// # Safety
    /// The destination descriptor must be a StringDType descriptor.
    unsafe fn dst_state(&self) -> &DescrState {
        // SAFETY: as above.
        unsafe { descr::state(self.dst_descr) }
    }
}

/// Defines a strided-loop entry point that builds `Pairs` and runs `$body` in a guard.
macro_rules! strided_loop {
    ($name:ident, |$pairs:ident| $body:block) => {
        ufunc_loop!($name, 2, |args| {
            let $pairs = Pairs::new(args);
            $body
        });
    };
}

/// What a missing value becomes in a dtype without one: `str(na_object)`, or the string
/// itself for a string `na_object`.
fn na_text(state: &DescrState) -> &[u8] {
    match &state.na {
        NaKind::String(default) => default,
        _ => &state.na_name,
    }
}

// ---------------------------------------------------------------------------------------
// String to string

strided_loop!(string_to_string, |pairs| {
    // SAFETY: both descriptors of this cast are StringDType descriptors.
    let (src_state, dst_state) = unsafe { (pairs.src_state(), pairs.dst_state()) };
    let keep_na = dst_state.na != NaKind::Unset;
    let mut locks = ArenaLocks::new(&[&src_state.arena, &dst_state.arena], 1);
    let fresh = is_fresh_destination(locks.get(1), pairs.dst_stride);
    pairs.for_each(|src, dst| {
        // SAFETY: `src` and `dst` are elements of the loop's arrays.
        let view = unsafe { descr::read_view(src) };
        let copy = if view.is_na() && !keep_na {
            locks.get_mut(1).store(na_text(src_state)).py()?
        } else {
            locks.copy_string(0, view, 1)?
        };
        // SAFETY: as above.
        unsafe { write_element(locks.get_mut(1), dst, copy, fresh) };
        Ok(())
    })
});

// ---------------------------------------------------------------------------------------
// Fixed-width unicode ('U', UCS4) and bytes ('S')

fn is_swapped(descr: *const PyArray_Descr) -> bool {
    // SAFETY: a live descriptor.
    let order = unsafe { (*descr).byteorder } as u8;
    (order == b'>' && cfg!(target_endian = "little"))
        || (order == b'<' && cfg!(target_endian = "big"))
}

fn elsize(descr: *const PyArray_Descr) -> usize {
    // SAFETY: a live descriptor.
    unsafe { (*descr).elsize as usize }
}

/// Stores the strings of `bytes` (ending at `ends`) into the destination elements, only
/// after every one was converted: a failed cast leaves the destination as it was.
fn store_all(pairs: &Pairs, bytes: &[u8], ends: &[usize]) -> PyResult<()> {
    // SAFETY: the destination is a StringDType descriptor.
    let mut arena = unsafe { pairs.dst_state() }.arena.write();
    let mut start = 0;
    let mut i = 0;
    let fresh = is_fresh_destination(&arena, pairs.dst_stride);
    pairs.for_each(|_, dst| {
        let view = arena.store(&bytes[start..ends[i]]).py()?;
        start = ends[i];
        i += 1;
        // SAFETY: `dst` is an element of the destination array.
        unsafe { write_element(&mut arena, dst, view, fresh) };
        Ok(())
    })
}

/// Fixed-width strings are NUL padded: trailing NULs are not part of the string.
fn trim_nuls(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1)]
}

strided_loop!(unicode_to_string, |pairs| {
    let (chars, swapped) = (elsize(pairs.src_descr) / 4, is_swapped(pairs.src_descr));
    let (mut utf8, mut ends) = (Vec::new(), Vec::with_capacity(pairs.n.max(0) as usize));
    pairs.for_each(|src, _| {
        let start = utf8.len();
        for i in 0..chars {
            // SAFETY: a 'U' element holds `chars` UCS4 code units.
            let raw = unsafe { ptr::read_unaligned(src.add(4 * i).cast::<u32>()) };
            let code = if swapped { raw.swap_bytes() } else { raw };
            let c = char::from_u32(code)
                .ok_or_else(|| PyTypeError::new_err("Invalid unicode code point found"))?;
            let mut buf = [0; 4];
            utf8.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        let kept = trim_nuls(&utf8[start..]).len();
        utf8.truncate(start + kept);
        ends.push(utf8.len());
        Ok(())
    })?;
    store_all(&pairs, &utf8, &ends)
});

strided_loop!(string_to_unicode, |pairs| {
    let (chars, swapped) = (elsize(pairs.dst_descr) / 4, is_swapped(pairs.dst_descr));
    // SAFETY: the source is a StringDType descriptor.
    let state = unsafe { pairs.src_state() };
    let arena = state.arena.read();
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is an element of the source array.
        let view = unsafe { descr::read_view(src) };
        let bytes = if view.is_na() {
            na_text(state)
        } else {
            arena.get(&view).py()?
        };
        let text = std::str::from_utf8(bytes).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let codes = text.chars().map(|c| c as u32).chain(std::iter::repeat(0));
        for (i, code) in codes.take(chars).enumerate() {
            let code = if swapped { code.swap_bytes() } else { code };
            // SAFETY: a 'U' element has room for `chars` UCS4 code units.
            unsafe { ptr::write_unaligned(dst.add(4 * i).cast::<u32>(), code) };
        }
        Ok(())
    })
});

strided_loop!(bytes_to_string, |pairs| { fixed_bytes_to_string(&pairs) });

// `V` elements are bytes like `S` ones: UTF-8, trailing NULs trimmed, as NumPy's StringDType
// (which reports invalid UTF-8 as a MemoryError; here it is a UnicodeDecodeError).
strided_loop!(void_to_string, |pairs| { fixed_bytes_to_string(&pairs) });

/// Stores the UTF-8 text of NUL-padded fixed-width byte elements (`S`, `V`), after
/// validating all of them.
fn fixed_bytes_to_string(pairs: &Pairs) -> PyResult<()> {
    let width = elsize(pairs.src_descr);
    let (mut all, mut ends) = (Vec::new(), Vec::with_capacity(pairs.n.max(0) as usize));
    pairs.for_each(|src, _| {
        // SAFETY: an 'S' element holds `width` bytes.
        let raw = trim_nuls(unsafe { std::slice::from_raw_parts(src, width) });
        if std::str::from_utf8(raw).is_err() {
            return Err(utf8_error(raw));
        }
        all.extend_from_slice(raw);
        ends.push(all.len());
        Ok(())
    })?;
    store_all(pairs, &all, &ends)
}

/// The UnicodeDecodeError Python's own UTF-8 codec raises for `raw`.
fn utf8_error(raw: &[u8]) -> PyErr {
    crate::error::attach(|py| {
        // SAFETY: `raw` is a live byte slice; the codec returns a new reference or null
        // with the exception set.
        let decoded = unsafe {
            pyffi::PyUnicode_DecodeUTF8(raw.as_ptr().cast(), raw.len() as isize, c"strict".as_ptr())
        };
        // SAFETY: `decoded` is a new reference or null.
        match unsafe { Bound::from_owned_ptr_or_err(py, decoded) } {
            Err(err) => err,
            Ok(_) => PyUnicodeDecodeError::new_err("invalid UTF-8"),
        }
    })
}

/// The UnicodeEncodeError Python's ASCII codec raises for `text`, whose first non-ASCII
/// byte is at `at`. Built lazily: this runs under an arena lock, where no Python may run.
fn ascii_error(text: &[u8], at: usize) -> PyErr {
    let text = String::from_utf8_lossy(text).into_owned();
    let start = text.char_indices().take_while(|(i, _)| *i < at).count();
    PyUnicodeEncodeError::new_err(("ascii", text, start, start + 1, "ordinal not in range(128)"))
}

strided_loop!(string_to_bytes, |pairs| {
    string_to_fixed_bytes(&pairs, true)
});

strided_loop!(string_to_void, |pairs| {
    string_to_fixed_bytes(&pairs, false)
});

/// Copies each string's bytes into a fixed-width byte element (`S`, `V`), cut to its
/// width and NUL padded; for `S` (`ascii`) a non-ASCII string is an error.
fn string_to_fixed_bytes(pairs: &Pairs, ascii: bool) -> PyResult<()> {
    let width = elsize(pairs.dst_descr);
    // SAFETY: the source is a StringDType descriptor.
    let state = unsafe { pairs.src_state() };
    let arena = state.arena.read();
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is an element of the source array.
        let view = unsafe { descr::read_view(src) };
        let bytes = if view.is_na() {
            na_text(state)
        } else {
            arena.get(&view).py()?
        };
        if let Some(at) = bytes.iter().position(|&b| b >= 0x80).filter(|_| ascii) {
            return Err(ascii_error(bytes, at));
        }
        let n = bytes.len().min(width);
        // SAFETY: an 'S' element has room for `width` bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n);
            ptr::write_bytes(dst.add(n), 0, width - n);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Bool

strided_loop!(bool_to_string, |pairs| {
    // SAFETY: the destination is a StringDType descriptor.
    let mut arena = unsafe { pairs.dst_state() }.arena.write();
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is a bool element.
        let text: &[u8] = if unsafe { *src } != 0 {
            b"True"
        } else {
            b"False"
        };
        let view = View::try_inline(text).expect("short");
        // SAFETY: `dst` is an element of the destination array.
        unsafe { replace_element(&mut arena, dst, view) };
        Ok(())
    })
});

strided_loop!(string_to_bool, |pairs| {
    // SAFETY: the source is a StringDType descriptor.
    let state = unsafe { pairs.src_state() };
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is a string element and `dst` a bool element.
        unsafe { *dst = element_truth(&state.na, descr::read_view(src)) as u8 };
        Ok(())
    })
});

// ---------------------------------------------------------------------------------------
// Numbers, datetimes and timedeltas, through Python (these loops hold the GIL)

fn is_kind(descr: *const PyArray_Descr, kinds: &[u8]) -> bool {
    // SAFETY: a live descriptor.
    kinds.contains(&(unsafe { (*descr).kind } as u8))
}

strided_loop!(scalar_to_string, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    // SAFETY: the destination is a StringDType descriptor.
    let state = unsafe { pairs.dst_state() };
    let keep_na = state.na != NaKind::Unset;
    // SAFETY: a live descriptor.
    let src_kind = unsafe { (*pairs.src_descr).kind } as u8;
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is an aligned element of the source descriptor.
        let scalar = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                PyArray_Scalar(src.cast(), pairs.src_descr, ptr::null_mut()),
            )?
        };
        // As NumPy: NaT becomes a missing value whenever the target has one, a float NaN
        // (of a float64) only when its missing value is NaN-like (and NumPy is 2.3 or newer).
        let missing = match src_kind {
            b'M' | b'm' => keep_na && scalar.ne(&scalar)?,
            b'f' => {
                state.na == NaKind::NanLike
                    && elsize(pairs.src_descr) == 8
                    && rules().float_nan_is_missing
                    && scalar.ne(&scalar)?
            }
            _ => false,
        };
        let text = if missing {
            None
        } else if src_kind == b'm' && !scalar.ne(&scalar)? {
            // A timedelta is written as its integer count of units.
            Some(scalar.call_method1("astype", ("int64",))?.str()?)
        } else {
            Some(scalar.str()?)
        };
        let bytes = text.as_ref().map(|text| text.to_str()).transpose()?;
        let mut arena = state.arena.write();
        let view = match bytes {
            None => View::NA,
            Some(bytes) => arena.store(bytes.as_bytes()).py()?,
        };
        // SAFETY: `dst` is an element of the destination array.
        unsafe { replace_element(&mut arena, dst, view) };
        Ok(())
    })
});

strided_loop!(string_to_scalar, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let (src_descr, dst_descr) = (pairs.src_descr, pairs.dst_descr);
    // SAFETY: the source is a StringDType descriptor.
    let state = unsafe { pairs.src_state() };
    let builtins = py.import("builtins")?;
    // Long doubles, datetimes and timedeltas parse strings themselves (at full precision).
    let long = elsize(dst_descr) > if is_kind(dst_descr, b"c") { 16 } else { 8 };
    let convert = if is_kind(dst_descr, b"iu") {
        Some(builtins.getattr("int")?)
    } else if is_kind(dst_descr, b"f") && !long {
        Some(builtins.getattr("float")?)
    } else if is_kind(dst_descr, b"c") && !long {
        Some(builtins.getattr("complex")?)
    } else {
        None
    };
    pairs.for_each(|src, dst| {
        // SAFETY: `src` is an element of the source array.
        let view = unsafe { descr::read_view(src) };
        let value = if view.is_na() && !matches!(state.na, NaKind::String(_)) {
            missing_value(py, dst_descr)?
        } else {
            // SAFETY: as above.
            let text = unsafe { get_element(py, src_descr, src) }?.into_bound(py);
            match &convert {
                Some(convert) => convert.call1((text,))?,
                None => text,
            }
        };
        // SAFETY: `dst` is an element of the destination descriptor.
        if unsafe { PyArray_Pack(dst_descr, dst.cast(), value.as_ptr()) } < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(())
    })
});

// Object to string, converting every element before writing any (NumPy's own path calls
// `setitem` element by element and leaves the elements before a failing one written).
strided_loop!(object_to_string, |pairs| {
    // SAFETY: this loop is registered with REQUIRES_PYAPI, so NumPy holds the GIL.
    let py = unsafe { Python::assume_attached() };
    let mut texts = Vec::with_capacity(pairs.n.max(0) as usize);
    pairs.for_each(|src, _| {
        // SAFETY: an object element holds a (possibly null) object pointer.
        let raw = unsafe { ptr::read_unaligned(src.cast::<*mut pyffi::PyObject>()) };
        let obj = if raw.is_null() {
            py.None().into_bound(py)
        } else {
            // SAFETY: a non-null element is a live object the source array holds.
            unsafe { Bound::from_borrowed_ptr(py, raw) }
        };
        // SAFETY: the destination is a StringDType descriptor.
        texts.push(unsafe { convert_object(py, pairs.dst_descr, &obj) }?);
        Ok(())
    })?;
    let bytes: Vec<Option<&str>> = texts
        .iter()
        .map(|text| text.as_ref().map(|t| t.to_str()).transpose())
        .collect::<PyResult<_>>()?;
    // SAFETY: the destination is a StringDType descriptor.
    let mut arena = unsafe { pairs.dst_state() }.arena.write();
    let mut next = bytes.into_iter();
    pairs.for_each(|_, dst| {
        let view = match next.next().flatten() {
            Some(text) => arena.store(text.as_bytes()).py()?,
            None => View::NA,
        };
        // SAFETY: `dst` is an element of the destination array.
        unsafe { replace_element(&mut arena, dst, view) };
        Ok(())
    })
});

/// What a missing value becomes in a number or time array, as NumPy's StringDType does.
fn missing_value<'py>(
    py: Python<'py>,
    target: *const PyArray_Descr,
) -> PyResult<Bound<'py, PyAny>> {
    if is_kind(target, b"Mm") {
        return Ok(PyString::new(py, "NaT").into_any());
    }
    Err(PyValueError::new_err(
        "Arrays with missing data cannot be converted to a non-nullable type",
    ))
}
