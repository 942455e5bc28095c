//! One exported array handed out any number of times.
//!
//! A consumer owns the `ArrowArray` it receives and releases it when it likes, but a
//! Python object that implements `__arrow_c_array__` may be asked for its data again and
//! again. [`SharedArray`] owns one array; every [`SharedArray::to_array`] makes a new
//! struct that points at the same buffers and holds a reference to the owner, so the
//! buffers live until the last of the owner and the handed-out structs is released.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;

use super::error::ArrowError;
use super::ffi::{take_private, ArrowArray};

/// The one array all handed-out structs point into; released when the last goes.
struct Owner(ArrowArray);

// SAFETY: after `SharedArray::new` the owned array is only read (its header and buffer
// pointers, which the C Data Interface makes immutable), and it is released exactly once,
// by `Drop`, when the last `Arc` goes, which needs no other reference to exist.
unsafe impl Sync for Owner {}

/// What one handed-out struct holds: its own copy of the buffer pointers and the owner.
struct Handle {
    buffer_pointers: Vec<*const c_void>,
    _owner: Arc<Owner>,
}

/// An array without children or dictionary (such as an exported `string_view` array)
/// that can be handed to any number of consumers without copying its buffers.
pub struct SharedArray {
    owner: Arc<Owner>,
}

impl SharedArray {
    /// Takes ownership of `array`, which must be live and have neither children nor a
    /// dictionary.
    pub fn new(array: ArrowArray) -> Result<SharedArray, ArrowError> {
        if array.is_released() {
            return Err(ArrowError::Released("array"));
        }
        if array.n_children != 0 || !array.dictionary.is_null() {
            return Err(ArrowError::Malformed(
                "only arrays without children or dictionary can be shared".into(),
            ));
        }
        Ok(SharedArray {
            owner: Arc::new(Owner(array)),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        usize::try_from(self.owner.0.length).unwrap_or(0)
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of nulls, or `None` when the producer did not count them.
    pub fn null_count(&self) -> Option<usize> {
        usize::try_from(self.owner.0.null_count).ok()
    }

    /// A new struct for one consumer: the same buffers, released on its own.
    pub fn to_array(&self) -> ArrowArray {
        let source = &self.owner.0;
        let mut handle = Box::new(Handle {
            buffer_pointers: source.buffer_pointers().to_vec(),
            _owner: Arc::clone(&self.owner),
        });
        ArrowArray {
            length: source.length,
            null_count: source.null_count,
            offset: source.offset,
            n_buffers: handle.buffer_pointers.len() as i64,
            n_children: 0,
            buffers: handle.buffer_pointers.as_mut_ptr(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: Some(release_handle),
            private_data: Box::into_raw(handle).cast(),
        }
    }
}

/// Release callback of handed-out structs: drops the handle (and so one reference to the
/// owner) exactly once.
unsafe extern "C" fn release_handle(array: *mut ArrowArray) {
    // SAFETY: the consumer passes the (possibly moved) struct made by `to_array`, whose
    // private data is a boxed `Handle`.
    if let Some(handle) = unsafe { take_private::<Handle>(array) } {
        // The last handle may release the owner, which runs its producer's callback; a
        // panic there must still not unwind into C.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(handle)));
    }
}

#[cfg(test)]
mod tests {
    use super::super::export::live;
    use super::super::{export_array, export_schema, import_array};
    use super::*;
    use crate::arena::Arena;
    use crate::view::View;

    fn exported(arena: &mut Arena) -> (ArrowArray, Vec<Option<Vec<u8>>>) {
        let expected = vec![
            Some(b"short".to_vec()),
            None,
            Some(b"a string longer than twelve bytes".to_vec()),
        ];
        let views: Vec<View> = expected
            .iter()
            .map(|v| v.as_ref().map_or(View::NA, |v| arena.store(v).unwrap()))
            .collect();
        (export_array(&views, arena).unwrap(), expected)
    }

    fn read(array: ArrowArray) -> Vec<Option<Vec<u8>>> {
        let mut arena = Arena::new();
        let views = import_array(export_schema(), array, &mut arena, true).unwrap();
        views
            .iter()
            .map(|v| (!v.is_na()).then(|| arena.get(v).unwrap().to_vec()))
            .collect()
    }

    #[test]
    fn every_consumer_sees_the_same_buffers() {
        let mut arena = Arena::new();
        let (array, expected) = exported(&mut arena);
        let views_buffer = array.buffer_pointers()[1];
        let shared = SharedArray::new(array).unwrap();
        assert_eq!((shared.len(), shared.null_count()), (3, Some(1)));
        let (first, second) = (shared.to_array(), shared.to_array());
        assert_eq!(first.buffer_pointers()[1], views_buffer);
        assert_eq!(second.buffer_pointers()[1], views_buffer);
        assert_eq!(read(first), expected);
        assert_eq!(read(second), expected);
    }

    #[test]
    fn buffers_live_until_the_owner_and_every_struct_are_released() {
        let live_before = live::count();
        let mut arena = Arena::new();
        let (array, expected) = exported(&mut arena);
        let chunk = Arc::clone(arena.share_chunks()[0].as_shared().unwrap().0);
        let shared = SharedArray::new(array).unwrap();
        let (first, second) = (shared.to_array(), shared.to_array());
        drop(shared);
        drop(arena);
        assert_eq!(live::count(), live_before + 1);
        drop(first);
        assert_eq!(read(second), expected);
        assert_eq!(live::count(), live_before);
        assert_eq!(Arc::strong_count(&chunk), 1, "only this test's reference");
    }

    #[test]
    fn releasing_twice_is_harmless() {
        let mut arena = Arena::new();
        let (array, _) = exported(&mut arena);
        let shared = SharedArray::new(array).unwrap();
        let mut array = shared.to_array();
        // SAFETY: the struct is ours and live; the second call must be a no-op.
        unsafe {
            release_handle(&mut array);
            release_handle(&mut array);
        }
        assert!(array.is_released());
    }

    #[test]
    fn released_arrays_cannot_be_shared() {
        let err = SharedArray::new(ArrowArray::empty()).err();
        assert_eq!(err, Some(ArrowError::Released("array")));
    }
}
