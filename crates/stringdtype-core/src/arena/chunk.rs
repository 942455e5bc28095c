//! Chunk buffers: immovable byte allocations, allocated fallibly, and the process-wide
//! pool that keeps freed chunks of the standard sizes for the next arenas.

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};
use crate::fork::Session;

/// Smallest size of a first ordinary chunk (larger when the first string needs more):
/// an array of a few long strings then holds a few hundred bytes, not 8 KiB. Later
/// chunks double from there.
pub const FIRST_CHUNK: usize = 64;
/// Smallest chunk that goes back to the pool when freed: smaller ones are cheap to get
/// from the allocator, and pooling them would hold memory for every small array.
pub const MIN_CHUNK: usize = 8 * 1024;
/// Largest chunk made for ordinary strings.
pub const MAX_CHUNK: usize = 16 * 1024 * 1024;
/// Strings with a block larger than this get a chunk of their own.
/// Most bytes of freed chunks kept for reuse, process-wide.
pub const POOL_LIMIT: usize = 128 * 1024 * 1024;

/// What keeps the bytes of an adopted chunk ([`ChunkBuf::adopt`]) alive and unchanged:
/// dropped with the last reference to the chunk.
pub type Keeper = Arc<dyn Send + Sync>;

/// One immovable, initialised allocation (zeroed when new, or a reused chunk that still
/// holds the bytes of the arena that had it before), or bytes of someone else's that a
/// keeper holds (an imported Arrow buffer): those are only read.
pub struct ChunkBuf {
    ptr: NonNull<u8>,
    len: usize,
    /// `Some` for adopted bytes (boxed: a thin pointer keeps every chunk's `Arc` in the
    /// allocator's 48-byte class, which a small array's one chunk pays for).
    keeper: Option<Box<Keeper>>,
}

// SAFETY: a ChunkBuf is a plain owned byte buffer; the arena only writes bytes that no
// shared reference can observe (see `Arena::write_block`), and readers see plain bytes.
unsafe impl Send for ChunkBuf {}
// SAFETY: as above; concurrent readers only read.
unsafe impl Sync for ChunkBuf {}

/// Freed chunks of the standard sizes (powers of two from [`MIN_CHUNK`] to [`MAX_CHUNK`]),
/// kept for the next arenas: a new array's chunks then come already mapped, where fresh
/// memory would cost a page fault per 4 KiB (most of the time of operations that build
/// long strings). Bounded by [`POOL_LIMIT`].
struct ChunkPool {
    free: Vec<(usize, NonNull<u8>)>,
    bytes: usize,
}

// SAFETY: the pool owns the allocations it holds; they are plain bytes.
unsafe impl Send for ChunkPool {}

static POOL: Mutex<ChunkPool> = Mutex::new(ChunkPool {
    free: Vec::new(),
    bytes: 0,
});

/// Runs `f` on the locked pool, inside a fork session (see [`crate::fork`]).
fn with_pool<R>(f: impl FnOnce(&mut ChunkPool) -> R) -> R {
    let _session = Session::enter();
    let mut pool = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut pool)
}

/// Whether chunks of `len` bytes go back to the pool.
fn pooled_size(len: usize) -> bool {
    len.is_power_of_two() && (MIN_CHUNK..=MAX_CHUNK).contains(&len)
}

/// Bytes of freed chunks the pool holds now.
pub fn pooled_bytes() -> usize {
    with_pool(|pool| pool.bytes)
}

impl ChunkBuf {
    /// A chunk of `len` bytes; `Error::OutOfMemory` when the allocator has none.
    pub(super) fn new(len: usize) -> Result<ChunkBuf> {
        if len == 0 {
            return Ok(ChunkBuf::empty());
        }
        let reused = pooled_size(len).then(|| {
            with_pool(|pool| {
                let at = pool.free.iter().rposition(|&(size, _)| size == len)?;
                pool.bytes -= len;
                Some(pool.free.swap_remove(at).1)
            })
        });
        if let Some(ptr) = reused.flatten() {
            return Ok(ChunkBuf {
                ptr,
                len,
                keeper: None,
            });
        }
        let layout = Layout::from_size_align(len, 16).map_err(|_| Error::OutOfMemory(len))?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::OutOfMemory(len))?;
        advise_huge_pages(ptr.as_ptr(), len);
        Ok(ChunkBuf {
            ptr,
            len,
            keeper: None,
        })
    }

    /// A chunk over `bytes`, which `keeper` keeps alive: the arena reads them and never
    /// writes them; they are let go of (the keeper dropped) with the last reference to
    /// the chunk, nothing is freed or pooled.
    ///
    /// # Safety
    /// `bytes` must stay valid, and unchanged, for as long as `keeper` lives (the Arrow C
    /// data interface's promise for an imported array's buffers until its release).
    pub unsafe fn adopt(bytes: &[u8], keeper: Keeper) -> ChunkBuf {
        ChunkBuf {
            ptr: NonNull::from(bytes).cast(),
            len: bytes.len(),
            keeper: Some(Box::new(keeper)),
        }
    }

    /// Whether the bytes are adopted ([`ChunkBuf::adopt`]): never written.
    pub fn is_adopted(&self) -> bool {
        self.keeper.is_some()
    }

    /// A chunk of no bytes (the place of a freed one); allocates nothing.
    pub(super) const fn empty() -> ChunkBuf {
        ChunkBuf {
            ptr: NonNull::dangling(),
            len: 0,
            keeper: None,
        }
    }

    /// Number of bytes in the chunk.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the chunk holds no bytes (a freed chunk).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Address of the first byte; stays the same for the chunk's life.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Bytes `start..start + len`, or `None` when they are not all inside the chunk.
    pub(crate) fn slice(&self, start: usize, len: usize) -> Option<&[u8]> {
        let end = start.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: `start..end` lies inside the allocation, which is initialised (zeroed at
        // creation, then only written) and lives as long as `self`.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(start), len) })
    }

    /// Bytes `start..start + len` to write (inside the chunk: checked).
    ///
    /// # Safety
    /// As for [`ChunkBuf::write`]: no other reference to these bytes may be alive while
    /// the returned one is, and no other thread may read them.
    #[allow(clippy::mut_from_ref)] // the bytes are behind a pointer, not in `self`
    pub(super) unsafe fn slice_mut(&self, start: usize, len: usize) -> &mut [u8] {
        // Adopted bytes are never written (packed chunks are filled once, fresh).
        debug_assert!(self.keeper.is_none(), "no write to adopted bytes");
        let end = start.checked_add(len);
        assert!(
            end.is_some_and(|end| end <= self.len),
            "write inside the chunk"
        );
        // SAFETY: the range is inside the allocation (asserted), initialised, and
        // unobserved while the slice lives (the caller's contract).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(start), len) }
    }

    /// Copies `data` to `start` (inside the chunk: checked).
    ///
    /// # Safety
    /// No reference to the bytes `start..start + data.len()` may be alive, and no other
    /// thread may read them: they must belong to a block that is being handed out.
    pub(super) unsafe fn write(&self, start: usize, data: &[u8]) {
        // Adopted bytes are never written (packed chunks are filled once, fresh).
        debug_assert!(self.keeper.is_none(), "no write to adopted bytes");
        let end = start.checked_add(data.len());
        assert!(
            end.is_some_and(|end| end <= self.len),
            "write inside the chunk"
        );
        // SAFETY: the range is inside the allocation (asserted) and unobserved (the
        // caller's contract). `copy` allows `data` to overlap the destination (a stale
        // view duplicated into the block it pointed at).
        unsafe { std::ptr::copy(data.as_ptr(), self.ptr.as_ptr().add(start), data.len()) };
    }
}

impl Drop for ChunkBuf {
    fn drop(&mut self) {
        if self.len == 0 || self.keeper.is_some() {
            // Adopted bytes are the keeper's: dropping it (with `self`) lets go of them.
            return;
        }
        let (len, ptr) = (self.len, self.ptr);
        let pooled = pooled_size(len)
            && with_pool(|pool| {
                let keep = pool.bytes + len <= POOL_LIMIT && pool.free.try_reserve(1).is_ok();
                if keep {
                    pool.bytes += len;
                    pool.free.push((len, ptr));
                }
                keep
            });
        if pooled {
            return;
        }
        let layout = Layout::from_size_align(self.len, 16).expect("layout was valid");
        // SAFETY: allocated in `new` with this layout, and not in the pool.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) };
    }
}

/// Size from which a new chunk asks for transparent huge pages.
const HUGE_PAGES_FROM: usize = 4 * 1024 * 1024;

/// Asks the kernel to back the 2 MiB-aligned interior of a new chunk of at least
/// [`HUGE_PAGES_FROM`] bytes with huge pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const HUGE: usize = 2 * 1024 * 1024;
    const MADV_HUGEPAGE: i32 = 14;
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    if len < HUGE_PAGES_FROM {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside the allocation just made; the advice changes no
        // byte, only how the kernel backs the pages (a failure is harmless).
        unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _len: usize) {}
