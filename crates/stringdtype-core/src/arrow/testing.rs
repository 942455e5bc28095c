//! Test-only stand-ins for other Arrow libraries: schemas, arrays and streams built by
//! hand, with release callbacks that count how often they run.

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;

/// The buffers of a hand-built array; `None` is a null pointer.
pub(crate) type Buffers = Vec<Option<Vec<u8>>>;

/// `(length, offset, null_count)` of a hand-built array.
pub(crate) type Header = (i64, i64, i64);

/// Counts how often a foreign struct's release callback ran.
pub(crate) type Releases = Arc<AtomicUsize>;

pub(crate) fn releases() -> Releases {
    Arc::new(AtomicUsize::new(0))
}

pub(crate) fn count(releases: &Releases) -> usize {
    releases.load(Ordering::SeqCst)
}

/// A boxed struct known by raw pointer only (a `Box` would claim it uniquely while
/// the parent's pointer to it is in use), freed, and so released, on drop.
struct Child<T>(*mut T);

impl<T> Child<T> {
    fn new(child: Option<T>) -> Child<T> {
        Child(child.map_or(ptr::null_mut(), |c| Box::into_raw(Box::new(c))))
    }
}

impl<T> Drop for Child<T> {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by `Box::into_raw` in `new`, freed only here.
            drop(unsafe { Box::from_raw(self.0) });
        }
    }
}

struct ForeignSchema {
    _format: CString,
    dictionary: Child<ArrowSchema>,
    releases: Releases,
}

unsafe extern "C" fn release_foreign_schema(schema: *mut ArrowSchema) {
    // SAFETY: called on a live schema made by `foreign_schema` (or a moved copy).
    let schema = unsafe { &mut *schema };
    // SAFETY: made by `Box::into_raw` below and released only here.
    let private = unsafe { Box::from_raw(schema.private_data.cast::<ForeignSchema>()) };
    private.releases.fetch_add(1, Ordering::SeqCst);
    schema.release = None;
}

/// A schema as another library would make it; `dictionary` is the value schema.
pub(crate) fn foreign_schema(
    format: &str,
    dictionary: Option<ArrowSchema>,
    rel: &Releases,
) -> ArrowSchema {
    let format = CString::new(format).unwrap();
    let private = Box::new(ForeignSchema {
        _format: format,
        dictionary: Child::new(dictionary),
        releases: Arc::clone(rel),
    });
    ArrowSchema {
        format: private._format.as_ptr(),
        name: c"".as_ptr(),
        dictionary: private.dictionary.0,
        release: Some(release_foreign_schema),
        private_data: Box::into_raw(private).cast(),
        ..ArrowSchema::empty()
    }
}

struct ForeignArray {
    _buffers: Vec<Option<Vec<u8>>>,
    pointers: Vec<*const c_void>,
    dictionary: Child<ArrowArray>,
    releases: Releases,
}

unsafe extern "C" fn release_foreign_array(array: *mut ArrowArray) {
    // SAFETY: called on a live array made by `foreign_array` (or a moved copy).
    let array = unsafe { &mut *array };
    // SAFETY: made by `Box::into_raw` below and released only here; dropping it drops
    // (and so releases) the dictionary, as a parent's release must.
    let private = unsafe { Box::from_raw(array.private_data.cast::<ForeignArray>()) };
    private.releases.fetch_add(1, Ordering::SeqCst);
    array.release = None;
}

/// An array as another library would make it (buffers unaligned on purpose: `Vec<u8>`).
pub(crate) fn foreign_array(
    (length, offset, null_count): Header,
    buffers: Buffers,
    dictionary: Option<ArrowArray>,
    rel: &Releases,
) -> ArrowArray {
    let pointers = buffers
        .iter()
        .map(|b| b.as_ref().map_or(ptr::null(), |b| b.as_ptr().cast()))
        .collect();
    let mut private = Box::new(ForeignArray {
        _buffers: buffers,
        pointers,
        dictionary: Child::new(dictionary),
        releases: Arc::clone(rel),
    });
    ArrowArray {
        length,
        null_count,
        offset,
        n_buffers: private.pointers.len() as i64,
        buffers: private.pointers.as_mut_ptr(),
        dictionary: private.dictionary.0,
        release: Some(release_foreign_array),
        private_data: Box::into_raw(private).cast(),
        ..ArrowArray::empty()
    }
}

pub(crate) fn bitmap(valid: &[bool]) -> Vec<u8> {
    let mut bits = vec![0u8; valid.len().div_ceil(8)];
    for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v) {
        bits[i / 8] |= 1 << (i % 8);
    }
    bits
}

/// Buffers of a `string` (`wide == false`) or `large_string` array; `None` is null.
pub(crate) fn offset_buffers(values: &[Option<&[u8]>], wide: bool) -> Buffers {
    let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
    let (mut offsets, mut data) = (Vec::new(), Vec::new());
    let mut push = |at: usize| match wide {
        true => offsets.extend_from_slice(&(at as i64).to_ne_bytes()),
        false => offsets.extend_from_slice(&(at as i32).to_ne_bytes()),
    };
    push(0);
    for value in values {
        data.extend_from_slice(value.unwrap_or(b"garbage"));
        push(data.len());
    }
    vec![Some(bitmap(&valid)), Some(offsets), Some(data)]
}

/// Hands `schema` and `array` over as a PyCapsule would: by pointer, then moved.
pub(crate) fn through_pointers(
    schema: ArrowSchema,
    array: ArrowArray,
) -> (ArrowSchema, ArrowArray) {
    let (schema, array) = (
        Box::into_raw(Box::new(schema)),
        Box::into_raw(Box::new(array)),
    );
    // SAFETY: both pointers come from `Box::into_raw` of live structs; the boxes, now
    // released, are freed right after.
    unsafe {
        let taken = (ArrowSchema::from_raw(schema), ArrowArray::from_raw(array));
        assert!((*schema).is_released() && (*array).is_released());
        drop((Box::from_raw(schema), Box::from_raw(array)));
        taken
    }
}

/// A stream over a list of arrays, failing with `error` once they are used up.
struct ForeignStream {
    arrays: Vec<ArrowArray>,
    error: Option<CString>,
    releases: Releases,
}

unsafe extern "C" fn stream_schema(_: *mut ArrowArrayStream, out: *mut ArrowSchema) -> c_int {
    // SAFETY: `out` is a released schema owned by the caller.
    unsafe { out.write(export_schema()) };
    0
}

unsafe extern "C" fn stream_next(stream: *mut ArrowArrayStream, out: *mut ArrowArray) -> c_int {
    // SAFETY: the stream is one of ours, live; `out` is a released array of the caller.
    let private = unsafe { &mut *(*stream).private_data.cast::<ForeignStream>() };
    if private.arrays.is_empty() && private.error.is_some() {
        return 5;
    }
    let next = if private.arrays.is_empty() {
        ArrowArray::empty()
    } else {
        private.arrays.remove(0)
    };
    // SAFETY: as above; the array moves to the caller.
    unsafe { out.write(next) };
    0
}

unsafe extern "C" fn stream_error(stream: *mut ArrowArrayStream) -> *const c_char {
    // SAFETY: the stream is one of ours, live.
    let private = unsafe { &*(*stream).private_data.cast::<ForeignStream>() };
    private.error.as_ref().map_or(ptr::null(), |e| e.as_ptr())
}

unsafe extern "C" fn stream_release(stream: *mut ArrowArrayStream) {
    // SAFETY: the stream is one of ours, live; its private data is freed only here.
    let stream = unsafe { &mut *stream };
    let private = unsafe { Box::from_raw(stream.private_data.cast::<ForeignStream>()) };
    private.releases.fetch_add(1, Ordering::SeqCst);
    stream.release = None;
}

pub(crate) fn foreign_stream(
    arrays: Vec<ArrowArray>,
    error: Option<&str>,
    rel: &Releases,
) -> *mut ArrowArrayStream {
    let private = Box::new(ForeignStream {
        arrays,
        error: error.map(|e| CString::new(e).unwrap()),
        releases: Arc::clone(rel),
    });
    Box::into_raw(Box::new(ArrowArrayStream {
        get_schema: Some(stream_schema),
        get_next: Some(stream_next),
        get_last_error: Some(stream_error),
        release: Some(stream_release),
        private_data: Box::into_raw(private).cast(),
    }))
}

/// The strings of `views` (whose long strings live in `arena`), `None` where missing.
pub fn strings(views: &[crate::view::View], arena: &crate::arena::Arena) -> Vec<Option<Vec<u8>>> {
    views
        .iter()
        .map(|v| (!v.is_na()).then(|| arena.get(v).unwrap().to_vec()))
        .collect()
}
