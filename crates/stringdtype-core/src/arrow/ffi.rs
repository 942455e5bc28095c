//! The `#[repr(C)]` structs of the Arrow C Data and C Stream Interfaces, as owned values.
//!
//! An owned struct whose `release` is set is released when it is dropped, exactly once.
//! Taking a struct from a raw pointer ([`ArrowSchema::from_raw`] and friends) moves it, as
//! the specification describes: the struct is copied out and the source marked released.
//! The fields stay private so that safe code can only hold structs that this module made
//! or that an `unsafe` caller vouched for.
//!
//! See <https://arrow.apache.org/docs/format/CDataInterface.html> and
//! <https://arrow.apache.org/docs/format/CStreamInterface.html>.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

/// `ArrowSchema.flags`: the field may hold nulls.
pub const ARROW_FLAG_NULLABLE: i64 = 2;

/// The C Data Interface `struct ArrowSchema`: the type of an array.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    pub(crate) format: *const c_char,
    pub(crate) name: *const c_char,
    pub(crate) metadata: *const c_char,
    pub(crate) flags: i64,
    pub(crate) n_children: i64,
    pub(crate) children: *mut *mut ArrowSchema,
    pub(crate) dictionary: *mut ArrowSchema,
    pub(crate) release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    pub(crate) private_data: *mut c_void,
}

/// The C Data Interface `struct ArrowArray`: the buffers of an array.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    pub(crate) length: i64,
    pub(crate) null_count: i64,
    pub(crate) offset: i64,
    pub(crate) n_buffers: i64,
    pub(crate) n_children: i64,
    pub(crate) buffers: *mut *const c_void,
    pub(crate) children: *mut *mut ArrowArray,
    pub(crate) dictionary: *mut ArrowArray,
    pub(crate) release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    pub(crate) private_data: *mut c_void,
}

/// The C Stream Interface `struct ArrowArrayStream`: a sequence of arrays of one type.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArrayStream {
    pub(crate) get_schema:
        Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    pub(crate) get_next:
        Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    pub(crate) get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    pub(crate) release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    pub(crate) private_data: *mut c_void,
}

// SAFETY: the interface lets a consumer use and release a struct from any one thread at a
// time (the stream interface asks only that calls be serialized); nothing here is
// thread-bound, and `&self` methods only read. The structs are not `Sync`: a producer's
// callbacks need not tolerate concurrent calls.
unsafe impl Send for ArrowSchema {}
// SAFETY: as above.
unsafe impl Send for ArrowArray {}
// SAFETY: as above.
unsafe impl Send for ArrowArrayStream {}

/// Moves the struct out of `ptr` and marks the source released, so that whoever owned
/// the source (for example a PyCapsule destructor) leaves it alone.
///
/// # Safety
/// `ptr` is valid for reads and writes of one `T` whose `release` field is at `release`.
unsafe fn take<T>(ptr: *mut T, mark_released: impl FnOnce(&mut T)) -> T {
    // SAFETY: the caller guarantees `ptr` is valid for a read of one `T`.
    let taken = unsafe { ptr::read(ptr) };
    // SAFETY: as above, valid for writes; the bitwise copy now owns the resources.
    mark_released(unsafe { &mut *ptr });
    taken
}

impl ArrowSchema {
    /// A released schema, for a producer to fill (for example `get_schema` of a stream).
    pub const fn empty() -> ArrowSchema {
        ArrowSchema {
            format: ptr::null(),
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Takes ownership of the schema at `ptr` (moving it, as the specification says).
    ///
    /// # Safety
    /// `ptr` points to an `ArrowSchema` that is either released or valid as the C Data
    /// Interface defines it: its strings are NUL-terminated and its child and dictionary
    /// pointers valid, for as long as it is not released.
    pub unsafe fn from_raw(ptr: *mut ArrowSchema) -> ArrowSchema {
        // SAFETY: forwarded from the caller.
        unsafe { take(ptr, |s| s.release = None) }
    }

    /// Whether the schema has been released (or was never filled in).
    pub fn is_released(&self) -> bool {
        self.release.is_none()
    }

    /// The format string, or `None` when it is missing or released.
    pub(crate) fn format(&self) -> Option<&CStr> {
        if self.is_released() || self.format.is_null() {
            return None;
        }
        // SAFETY: a live schema has a NUL-terminated format string (constructor contract).
        Some(unsafe { CStr::from_ptr(self.format) })
    }

    /// The dictionary's value schema, if this schema is dictionary encoded.
    pub(crate) fn dictionary(&self) -> Option<&ArrowSchema> {
        if self.is_released() || self.dictionary.is_null() {
            return None;
        }
        // SAFETY: a live schema's dictionary pointer is valid while the schema is.
        Some(unsafe { &*self.dictionary })
    }
}

impl ArrowArray {
    /// A released array, for a producer to fill (for example `get_next` of a stream).
    pub const fn empty() -> ArrowArray {
        ArrowArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: ptr::null_mut(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Takes ownership of the array at `ptr` (moving it, as the specification says).
    ///
    /// # Safety
    /// `ptr` points to an `ArrowArray` that is either released or valid as the C Data
    /// Interface defines it: each buffer pointer is valid for reads of the size its layout
    /// implies from `length` and `offset`, and stays so until the array is released.
    pub unsafe fn from_raw(ptr: *mut ArrowArray) -> ArrowArray {
        // SAFETY: forwarded from the caller.
        unsafe { take(ptr, |a| a.release = None) }
    }

    /// Whether the array has been released (or was never filled in).
    pub fn is_released(&self) -> bool {
        self.release.is_none()
    }

    /// Number of elements.
    pub fn len(&self) -> i64 {
        self.length
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The dictionary of a dictionary-encoded array.
    pub(crate) fn dictionary(&self) -> Option<&ArrowArray> {
        if self.is_released() || self.dictionary.is_null() {
            return None;
        }
        // SAFETY: a live array's dictionary pointer is valid while the array is.
        Some(unsafe { &*self.dictionary })
    }

    /// The buffer pointers (empty when there are none or the array is released).
    pub(crate) fn buffer_pointers(&self) -> &[*const c_void] {
        let n = usize::try_from(self.n_buffers).unwrap_or(0);
        if self.is_released() || self.buffers.is_null() || n == 0 {
            return &[];
        }
        // SAFETY: a live array's `buffers` points to `n_buffers` pointers.
        unsafe { std::slice::from_raw_parts(self.buffers, n) }
    }
}

impl ArrowArrayStream {
    /// A released stream.
    pub const fn empty() -> ArrowArrayStream {
        ArrowArrayStream {
            get_schema: None,
            get_next: None,
            get_last_error: None,
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Takes ownership of the stream at `ptr` (moving it, as the specification says).
    ///
    /// # Safety
    /// `ptr` points to an `ArrowArrayStream` that is either released or valid as the C
    /// Stream Interface defines it, and whose arrays and schema satisfy the contracts of
    /// [`ArrowArray::from_raw`] and [`ArrowSchema::from_raw`].
    pub unsafe fn from_raw(ptr: *mut ArrowArrayStream) -> ArrowArrayStream {
        // SAFETY: forwarded from the caller.
        unsafe { take(ptr, |s| s.release = None) }
    }

    /// Whether the stream has been released.
    pub fn is_released(&self) -> bool {
        self.release.is_none()
    }
}

impl Drop for ArrowSchema {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: a live schema is released once through its own callback; the
            // callback sets `release` to null, and we never call it again.
            unsafe { release(self) };
            self.release = None;
        }
    }
}

impl Drop for ArrowArray {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: as for `ArrowSchema`: released once, through its own callback.
            unsafe { release(self) };
            self.release = None;
        }
    }
}

impl Drop for ArrowArrayStream {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: as for `ArrowSchema`: released once, through its own callback.
            unsafe { release(self) };
            self.release = None;
        }
    }
}

/// The release protocol shared by the arrays this crate hands out: marks `array` released
/// (once) and returns its private data, boxed by the producer as a `T`; `None` when it
/// was already released (or null).
///
/// # Safety
/// `array` is null or an `ArrowArray` this crate produced with `private_data` made by
/// `Box::<T>::into_raw` (possibly moved by the consumer).
pub(crate) unsafe fn take_private<T>(array: *mut ArrowArray) -> Option<Box<T>> {
    // SAFETY: forwarded contract.
    let array = unsafe { array.as_mut() }?;
    array.release?;
    array.release = None;
    array.buffers = std::ptr::null_mut();
    let private = std::mem::replace(&mut array.private_data, std::ptr::null_mut());
    // SAFETY: `release` was set until just now, so this is the one time the private data
    // is turned back into its box.
    (!private.is_null()).then(|| unsafe { Box::from_raw(private.cast::<T>()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_c_headers() {
        let word = std::mem::size_of::<usize>();
        assert_eq!(std::mem::size_of::<ArrowSchema>(), 3 * word + 16 + 4 * word);
        assert_eq!(std::mem::size_of::<ArrowArray>(), 40 + 5 * word);
        assert_eq!(std::mem::size_of::<ArrowArrayStream>(), 5 * word);
    }

    #[test]
    fn structs_move_between_threads() {
        fn assert_send<T: Send>() {}
        assert_send::<ArrowSchema>();
        assert_send::<ArrowArray>();
        assert_send::<ArrowArrayStream>();
    }

    #[test]
    fn empty_structs_are_released_and_drop_quietly() {
        assert!(ArrowSchema::empty().is_released());
        assert!(ArrowArray::empty().is_released());
        assert!(ArrowArrayStream::empty().is_released());
        assert!(ArrowSchema::empty().format().is_none());
        assert!(ArrowArray::empty().buffer_pointers().is_empty());
    }
}
