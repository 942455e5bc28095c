//! Imported Arrow arrays whose data buffers an arena adopted instead of copying
//! ([`crate::arena::Arena::adopt`]): each is kept, unreleased, for as long as a chunk over
//! its buffers lives, and released afterwards.
//!
//! The last chunk may be let go of anywhere: inside an arena's lock (an array's clear
//! loop freeing its chunks), on a thread without the GIL (an export's consumer releasing
//! it). A producer's release may take the GIL (pyarrow's buffers over Python objects do),
//! and a thread holding the GIL may be waiting for that arena's lock: releasing there
//! could deadlock. So a kept array whose last chunk goes is only queued, and
//! [`release_kept`] releases the queue where no lock of the package is held and the GIL
//! is (the descriptor's dealloc, `from_arrow`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::ffi::ArrowArray;
use crate::fork::Session;

/// An imported array, kept unreleased while the chunks over its buffers live (the
/// [`crate::arena::Keeper`] of each).
pub(crate) struct Kept(Option<ArrowArray>);

// SAFETY: `ArrowArray` is `Send`; it is not `Sync` because a producer's struct may not be
// read from two threads at once. A `Kept` is read (through `Kept::array`) only by the
// import that made it, on its thread, before any chunk over its buffers is visible to
// another thread; afterwards nothing reads it, it is only dropped.
unsafe impl Sync for Kept {}

/// Kept arrays whose last chunk went, waiting for [`release_kept`].
static QUEUE: Mutex<Vec<ArrowArray>> = Mutex::new(Vec::new());
/// The length of [`QUEUE`], read without its lock.
static QUEUED: AtomicUsize = AtomicUsize::new(0);

impl Kept {
    pub(crate) fn new(array: ArrowArray) -> Kept {
        Kept(Some(array))
    }

    /// The array, until it is dropped.
    pub(crate) fn array(&self) -> &ArrowArray {
        self.0
            .as_ref()
            .expect("a kept array is there until it is dropped")
    }

    /// The array itself, released by the caller as it drops it (no chunk holds it).
    pub(crate) fn into_array(mut self) -> ArrowArray {
        self.0
            .take()
            .expect("a kept array is there until it is dropped")
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        let Some(array) = self.0.take() else {
            return;
        };
        if cfg!(test) {
            // The crate's tests count releases per thread: release on the dropping one.
            return drop(array);
        }
        let queued = {
            let _session = Session::enter();
            let mut queue = QUEUE.lock().unwrap_or_else(PoisonError::into_inner);
            let room = queue.try_reserve(1).is_ok();
            if room {
                queue.push(array);
                QUEUED.store(queue.len(), Ordering::Release);
                None
            } else {
                Some(array)
            }
        };
        // Out of memory for the queue: releasing now risks what the queue avoids, but
        // keeping the buffers forever is a certain leak.
        drop(queued);
    }
}

/// Releases every kept array whose last chunk was let go of. Call it holding the GIL and
/// no lock of the package: a producer's release callback may take the GIL.
pub fn release_kept() {
    if QUEUED.load(Ordering::Acquire) == 0 {
        return;
    }
    let arrays = {
        let _session = Session::enter();
        let mut queue = QUEUE.lock().unwrap_or_else(PoisonError::into_inner);
        QUEUED.store(0, Ordering::Release);
        std::mem::take(&mut *queue)
    };
    // Released outside the lock and the session: the callbacks are the producer's code.
    drop(arrays);
}

/// How many kept arrays wait for [`release_kept`] (for tests).
pub fn kept_waiting() -> usize {
    QUEUED.load(Ordering::Acquire)
}
