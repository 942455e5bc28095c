//! The per-array arena that holds the bytes of long strings (more than 12 bytes).
//!
//! Bytes live in chunks that grow exponentially (each new chunk at least double the last,
//! up to [`MAX_CHUNK`]) and never move, so a view's `(chunk, offset)` stays valid for the
//! arena's life and a chunk can be handed out whole (for example as an Arrow buffer).
//! Strings take blocks of a size class; a released block goes to its class's free list and
//! is reused by the next string of that class, so overwriting the same elements keeps
//! memory bounded. Strings larger than [`DEDICATED_THRESHOLD`] get a chunk of their own,
//! freed as soon as the string is released.
//!
//! A chunk that has been shared ([`Arena::share_chunks`]) is pinned while any share lives:
//! nothing that was in it when it was shared is ever rewritten.
//!
//! Bulk imports may store strings end to end in *packed* chunks ([`Arena::packed`]): no
//! blocks and no size classes, one copy per string. A string released from a packed chunk
//! leaves a hole that is never reused, and the chunk is freed with its last string.

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::view::{Location, View, MAX_INLINE_LEN};

/// Size of the first chunk.
pub const MIN_CHUNK: usize = 8 * 1024;
/// Largest chunk made for ordinary strings.
pub const MAX_CHUNK: usize = 16 * 1024 * 1024;
/// Strings with a block larger than this get a chunk of their own.
pub const DEDICATED_THRESHOLD: usize = 1024 * 1024;

/// Number of size classes: 16 classes of 16-byte steps up to 256 bytes, then four classes
/// per power of two up to 2^31.
const CLASS_COUNT: usize = 16 + 4 * 23;

/// The size class of a block for a string of `len` (> 12) bytes: (class index, block size).
fn size_class(len: usize) -> (usize, usize) {
    debug_assert!(len > MAX_INLINE_LEN);
    if len <= 256 {
        let block = len.div_ceil(16) * 16;
        return (block / 16 - 1, block);
    }
    // 2^k < len <= 2^(k+1); four blocks per such range, so at most 25% is wasted.
    let k = (usize::BITS - 1 - (len - 1).leading_zeros()) as usize;
    let step = 1usize << (k - 2);
    let block = len.div_ceil(step) * step;
    let j = (block - (1 << k)) / step; // 1..=4
    (16 + (k - 8) * 4 + (j - 1), block)
}

/// One immovable, initialised allocation (zeroed when new, or a reused chunk that still
/// holds the bytes of the arena that had it before).
pub struct ChunkBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a ChunkBuf is a plain owned byte buffer; the arena only writes bytes that no
// shared reference can observe (see `Arena::write_block`), and readers see plain bytes.
unsafe impl Send for ChunkBuf {}
// SAFETY: as above; concurrent readers only read.
unsafe impl Sync for ChunkBuf {}

/// Most bytes of freed chunks kept for reuse, process-wide.
pub const POOL_LIMIT: usize = 128 * 1024 * 1024;

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

static POOL: std::sync::Mutex<ChunkPool> = std::sync::Mutex::new(ChunkPool {
    free: Vec::new(),
    bytes: 0,
});

fn pool() -> std::sync::MutexGuard<'static, ChunkPool> {
    POOL.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether chunks of `len` bytes go back to the pool.
fn pooled_size(len: usize) -> bool {
    len.is_power_of_two() && (MIN_CHUNK..=MAX_CHUNK).contains(&len)
}

/// Bytes of freed chunks the pool holds now.
pub fn pooled_bytes() -> usize {
    pool().bytes
}

impl ChunkBuf {
    fn new(len: usize) -> ChunkBuf {
        if len == 0 {
            return ChunkBuf {
                ptr: NonNull::dangling(),
                len: 0,
            };
        }
        if pooled_size(len) {
            let mut pool = pool();
            if let Some(at) = pool.free.iter().rposition(|&(size, _)| size == len) {
                let (_, ptr) = pool.free.swap_remove(at);
                pool.bytes -= len;
                return ChunkBuf { ptr, len };
            }
        }
        let layout = Layout::from_size_align(len, 16).expect("chunk size fits a layout");
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        ChunkBuf { ptr, len }
    }

    /// Number of bytes in the chunk.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the chunk holds no bytes (a released dedicated chunk).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Address of the first byte; stays the same for the chunk's life.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    fn slice(&self, start: usize, len: usize) -> Option<&[u8]> {
        let end = start.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: `start..end` lies inside the allocation, which is initialised (zeroed at
        // creation, then only written) and lives as long as `self`.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(start), len) })
    }
}

impl Drop for ChunkBuf {
    fn drop(&mut self) {
        if self.len == 0 {
            return;
        }
        if pooled_size(self.len) {
            let mut pool = pool();
            if pool.bytes + self.len <= POOL_LIMIT {
                pool.bytes += self.len;
                pool.free.push((self.len, self.ptr));
                return;
            }
        }
        let layout = Layout::from_size_align(self.len, 16).expect("layout was valid");
        // SAFETY: allocated in `new` with this layout, and not in the pool.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) };
    }
}

/// What an arena holds, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Bytes allocated for chunks.
    pub capacity: usize,
    /// Bytes in blocks that hold a live string (block sizes, including class padding).
    pub used: usize,
    /// Bytes of live strings themselves.
    pub string_bytes: usize,
    /// Number of chunks (including released dedicated ones, which hold no bytes).
    pub chunks: usize,
}

impl MemoryUsage {
    /// Allocated bytes that hold no live string: holes, padding and unused tails.
    pub fn unused(&self) -> usize {
        self.capacity - self.string_bytes
    }
}

/// The bytes of the long strings of one array.
pub struct Arena {
    chunks: Vec<Arc<ChunkBuf>>,
    /// Chunk that takes new blocks, and how many of its bytes are handed out.
    current: Option<u32>,
    tail: usize,
    /// Size the next ordinary chunk will have at least.
    next_chunk: usize,
    free_blocks: Vec<Vec<Location>>,
    free_chunk_slots: Vec<u32>,
    /// Live string bytes of each packed chunk, by chunk index; 0 for any other chunk
    /// (a packed chunk is freed when its count drops to 0).
    packed_live: Vec<usize>,
    usage: MemoryUsage,
}

impl Default for Arena {
    fn default() -> Self {
        Arena::new()
    }
}

impl Arena {
    /// An empty arena; it allocates nothing until the first long string.
    pub const fn new() -> Arena {
        Arena {
            chunks: Vec::new(),
            current: None,
            tail: 0,
            next_chunk: MIN_CHUNK,
            free_blocks: Vec::new(),
            free_chunk_slots: Vec::new(),
            packed_live: Vec::new(),
            usage: MemoryUsage {
                capacity: 0,
                used: 0,
                string_bytes: 0,
                chunks: 0,
            },
        }
    }

    /// Stores `data` and returns its view: inline when it fits, else in a block of its own.
    #[inline]
    pub fn store(&mut self, data: &[u8]) -> Result<View> {
        if let Some(view) = View::try_inline(data) {
            return Ok(view);
        }
        self.store_long(data)
    }

    #[cold]
    fn store_long(&mut self, data: &[u8]) -> Result<View> {
        if data.len() > crate::view::MAX_STRING_LEN {
            return Err(Error::StringTooLong(data.len()));
        }
        let location = self.allocate(data.len());
        self.write_block(location, data);
        let prefix = [data[0], data[1], data[2], data[3]];
        View::long(data.len(), prefix, location)
    }

    /// Stores a copy of a string of this arena and returns the copy's view: the copy owns
    /// its own block, so either can be released without touching the other.
    pub fn duplicate(&mut self, view: View) -> Result<View> {
        if view.is_inline() {
            return Ok(view);
        }
        let source = self.get_long(&view)?.as_ptr();
        let location = self.allocate(view.len());
        let chunk = &self.chunks[location.chunk as usize];
        // SAFETY: `source` points at `view.len()` live bytes of a chunk; chunks never move
        // and `allocate` neither frees nor rewrites live blocks, so the pointer is still
        // valid. The destination is a fresh block, inside its chunk and disjoint from the
        // source block, that nothing else can observe (as in `write_block`).
        unsafe {
            std::ptr::copy_nonoverlapping(
                source,
                chunk.ptr.as_ptr().add(location.offset as usize),
                view.len(),
            );
        }
        View::long(view.len(), view.prefix(), location)
    }

    /// Stores the concatenation of `parts` without building it first.
    pub fn store_parts(&mut self, parts: &[&[u8]]) -> Result<View> {
        let len = parts
            .iter()
            .map(|p| p.len())
            .try_fold(0usize, |a, b| a.checked_add(b));
        let len = len.ok_or(Error::StringTooLong(usize::MAX))?;
        if len <= MAX_INLINE_LEN {
            let mut buf = [0u8; MAX_INLINE_LEN];
            let mut at = 0;
            for part in parts {
                buf[at..at + part.len()].copy_from_slice(part);
                at += part.len();
            }
            return Ok(View::try_inline(&buf[..len]).expect("fits inline"));
        }
        if len > crate::view::MAX_STRING_LEN {
            return Err(Error::StringTooLong(len));
        }
        let location = self.allocate(len);
        let mut at = location.offset as usize;
        let mut prefix = [0u8; 4];
        let mut filled = 0;
        for part in parts {
            self.write_block(
                Location {
                    chunk: location.chunk,
                    offset: at as u32,
                },
                part,
            );
            at += part.len();
            for &b in part.iter().take(4 - filled) {
                prefix[filled] = b;
                filled += 1;
            }
        }
        View::long(len, prefix, location)
    }

    /// Gives a long string's block back to the arena. Inline strings and missing values
    /// need nothing; a view that does not point into this arena is ignored.
    #[inline]
    pub fn release(&mut self, view: View) {
        if let Some(location) = view.location() {
            self.release_long(view, location);
        }
    }

    #[inline(never)]
    fn release_long(&mut self, view: View, location: Location) {
        let len = view.len();
        if self.bytes_at(location, len).is_none() {
            return;
        }
        if let Some(live) = self.packed_live.get_mut(location.chunk as usize) {
            if *live > 0 {
                *live -= len;
                let emptied = *live == 0;
                self.usage.used -= len;
                self.usage.string_bytes -= len;
                if emptied {
                    self.free_chunk(location.chunk);
                }
                return;
            }
        }
        let (class, block) = size_class(len);
        self.usage.used -= if block > DEDICATED_THRESHOLD {
            len
        } else {
            block
        };
        self.usage.string_bytes -= len;
        if block > DEDICATED_THRESHOLD {
            self.free_chunk(location.chunk);
            return;
        }
        if self.free_blocks.is_empty() {
            self.free_blocks.resize_with(CLASS_COUNT, Vec::new);
        }
        // Blocks of a shared chunk wait here; `pop_free_block` skips them while shared.
        self.free_blocks[class].push(location);
    }

    /// The bytes of a string stored in this arena (empty for a missing value).
    /// Returns an error when a long view does not point into this arena.
    #[inline]
    pub fn get<'a>(&'a self, view: &'a View) -> Result<&'a [u8]> {
        match view.inline_bytes() {
            Some(bytes) => Ok(bytes),
            None => self.get_long(view),
        }
    }

    #[inline]
    fn get_long<'a>(&'a self, view: &View) -> Result<&'a [u8]> {
        let location = view.location().expect("long view");
        self.bytes_at(location, view.len())
            .ok_or(Error::CorruptView(*view))
    }

    fn bytes_at(&self, location: Location, len: usize) -> Option<&[u8]> {
        self.chunks
            .get(location.chunk as usize)?
            .slice(location.offset as usize, len)
    }

    /// Makes sure that at least `bytes` more string bytes fit without a further chunk
    /// (a hint from a loop that knows how much it will write).
    pub fn reserve(&mut self, bytes: usize) {
        let room = self
            .current
            .map_or(0, |c| self.chunks[c as usize].len() - self.tail);
        if room < bytes {
            self.next_chunk = self.next_chunk.max(bytes.min(MAX_CHUNK));
        }
    }

    /// The memory this arena holds.
    pub fn memory_usage(&self) -> MemoryUsage {
        MemoryUsage {
            chunks: self.chunks.len(),
            ..self.usage
        }
    }

    /// Shares every chunk, for example with an Arrow consumer: returns each chunk and the
    /// number of its bytes that may hold strings now. While a share lives, those bytes are
    /// never rewritten: released blocks in the chunk are not reused.
    pub fn share_chunks(&mut self) -> Vec<(Arc<ChunkBuf>, usize)> {
        let last = self.chunks.len().wrapping_sub(1);
        self.chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let used = if Some(i as u32) == self.current && i == last {
                    self.tail
                } else {
                    chunk.len()
                };
                (Arc::clone(chunk), used)
            })
            .collect()
    }

    fn allocate(&mut self, len: usize) -> Location {
        let (class, block) = size_class(len);
        self.usage.string_bytes += len;
        if block > DEDICATED_THRESHOLD {
            self.usage.used += len;
            return self.allocate_dedicated(len);
        }
        self.usage.used += block;
        if let Some(location) = self.pop_free_block(class) {
            return location;
        }
        if let Some(current) = self.current {
            if self.chunks[current as usize].len() - self.tail >= block {
                let location = Location {
                    chunk: current,
                    offset: self.tail as u32,
                };
                self.tail += block;
                return location;
            }
        }
        let size = self.next_chunk.max(block);
        self.next_chunk = (size * 2).min(MAX_CHUNK);
        let chunk = self.push_chunk(size);
        self.current = Some(chunk);
        self.tail = block;
        Location { chunk, offset: 0 }
    }

    fn pop_free_block(&mut self, class: usize) -> Option<Location> {
        let list = self.free_blocks.get_mut(class)?;
        // A block in a shared chunk must stay as it is: take the newest unshared one.
        let chunks = &self.chunks;
        let found = list
            .iter()
            .rposition(|l| Arc::strong_count(&chunks[l.chunk as usize]) == 1)?;
        Some(list.swap_remove(found))
    }

    fn allocate_dedicated(&mut self, len: usize) -> Location {
        let chunk = self.push_chunk(len);
        Location { chunk, offset: 0 }
    }

    fn push_chunk(&mut self, size: usize) -> u32 {
        self.usage.capacity += size;
        let buf = Arc::new(ChunkBuf::new(size));
        if let Some(slot) = self.free_chunk_slots.pop() {
            self.chunks[slot as usize] = buf;
            return slot;
        }
        let index = u32::try_from(self.chunks.len()).expect("fewer than 2^32 chunks");
        self.chunks.push(buf);
        index
    }

    /// Frees a chunk that holds no live string and makes its slot reusable.
    fn free_chunk(&mut self, chunk: u32) {
        // A share keeps its own reference, so dropping ours is safe either way.
        let buf = std::mem::replace(&mut self.chunks[chunk as usize], Arc::new(ChunkBuf::new(0)));
        self.usage.capacity -= buf.len();
        self.free_chunk_slots.push(chunk);
    }

    /// A writer that stores strings end to end in packed chunks of their own, for a
    /// bulk import: `long_bytes` is the total length of the long strings to come (a
    /// hint; more still fit). Packed chunks are at most [`MAX_CHUNK`] bytes, or one
    /// string.
    pub fn packed(&mut self, long_bytes: usize) -> Packed<'_> {
        Packed {
            arena: self,
            chunk: None,
            at: 0,
            end: 0,
            remaining: long_bytes,
        }
    }

    /// Copies `data` to `location`, which `allocate` has just handed out.
    fn write_block(&mut self, location: Location, data: &[u8]) {
        let chunk = &self.chunks[location.chunk as usize];
        let start = location.offset as usize;
        assert!(start + data.len() <= chunk.len(), "block inside its chunk");
        // SAFETY: the range is inside the allocation (asserted). It belongs to a block that
        // was just allocated, so no view of a live string and no share covers it: blocks in
        // shared chunks are reused only past the shared length (`share_chunks`), and
        // `pop_free_block` skips shared chunks. Writing through the raw pointer creates no
        // `&mut` that could alias readers of other bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), chunk.ptr.as_ptr().add(start), data.len());
        }
    }
}

/// Stores strings into packed chunks: see [`Arena::packed`].
pub struct Packed<'a> {
    arena: &'a mut Arena,
    /// The packed chunk being filled, its next free byte and its size.
    chunk: Option<u32>,
    at: usize,
    end: usize,
    /// Bytes the caller announced and that were not stored yet.
    remaining: usize,
}

impl Packed<'_> {
    /// Stores `data` as [`Arena::store`] does, but a long string goes right after the
    /// previous one, in a packed chunk.
    #[inline]
    pub fn store(&mut self, data: &[u8]) -> Result<View> {
        if let Some(view) = View::try_inline(data) {
            return Ok(view);
        }
        let len = data.len();
        if len > crate::view::MAX_STRING_LEN {
            return Err(Error::StringTooLong(len));
        }
        let chunk = match self.chunk {
            Some(chunk) if self.end - self.at >= len => chunk,
            _ => self.next_chunk(len),
        };
        let location = Location {
            chunk,
            offset: self.at as u32,
        };
        self.arena.write_block(location, data);
        self.at += len;
        self.remaining = self.remaining.saturating_sub(len);
        self.arena.packed_live[chunk as usize] += len;
        self.arena.usage.used += len;
        self.arena.usage.string_bytes += len;
        View::long(len, [data[0], data[1], data[2], data[3]], location)
    }

    #[cold]
    fn next_chunk(&mut self, len: usize) -> u32 {
        let size = self.remaining.min(MAX_CHUNK).max(len);
        let chunk = self.arena.push_chunk(size);
        let live = &mut self.arena.packed_live;
        if live.len() <= chunk as usize {
            live.resize(chunk as usize + 1, 0);
        }
        // The previous chunk's unused tail (if any) stays a hole.
        (self.chunk, self.at, self.end) = (Some(chunk), 0, size);
        chunk
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| seed.wrapping_add(i as u8)).collect()
    }

    #[test]
    fn size_classes_cover_every_length_with_bounded_waste() {
        let mut last_class = 0;
        for len in 13..5000 {
            let (class, block) = size_class(len);
            assert!(block >= len);
            assert!(block - len < 16 || (block - len) * 4 <= block, "len {len}");
            assert!(class >= last_class && class < CLASS_COUNT);
            last_class = class;
        }
        let (class, block) = size_class(i32::MAX as usize);
        assert!(class < CLASS_COUNT && block >= i32::MAX as usize);
    }

    #[test]
    fn store_and_get_round_trip() {
        let mut arena = Arena::new();
        let mut views = Vec::new();
        for n in [0, 1, 12, 13, 100, 5000, 70_000] {
            let data = long(n, n as u8);
            views.push((arena.store(&data).unwrap(), data));
        }
        for (view, data) in &views {
            assert_eq!(arena.get(view).unwrap(), &data[..]);
        }
        assert_eq!(arena.get(&View::NA).unwrap(), b"");
    }

    #[test]
    fn inline_strings_allocate_nothing() {
        let mut arena = Arena::new();
        arena.store(b"twelve bytes").unwrap();
        assert_eq!(arena.memory_usage().capacity, 0);
    }

    #[test]
    fn overwriting_keeps_memory_bounded() {
        let mut arena = Arena::new();
        let data = long(100, 7);
        let mut view = arena.store(&data).unwrap();
        for _ in 0..1_000_000 {
            let new = arena.store(&data).unwrap();
            arena.release(view);
            view = new;
        }
        let usage = arena.memory_usage();
        assert!(usage.capacity <= MIN_CHUNK, "{usage:?}");
        assert_eq!(usage.string_bytes, 100);
        assert_eq!(arena.get(&view).unwrap(), &data[..]);
    }

    #[test]
    fn released_blocks_are_reused_by_their_class() {
        let mut arena = Arena::new();
        let a = arena.store(&long(40, 1)).unwrap();
        arena.release(a);
        let b = arena.store(&long(47, 2)).unwrap();
        assert_eq!(a.location(), b.location());
        assert_eq!(arena.get(&b).unwrap(), &long(47, 2)[..]);
    }

    #[test]
    fn chunks_grow_and_never_move() {
        let mut arena = Arena::new();
        let first = arena.store(&long(200, 3)).unwrap();
        let ptr = arena.get(&first).unwrap().as_ptr();
        let views: Vec<View> = (0..20_000)
            .map(|i| arena.store(&long(100, i as u8)).unwrap())
            .collect();
        assert_eq!(arena.get(&first).unwrap().as_ptr(), ptr);
        assert_eq!(arena.get(&first).unwrap(), &long(200, 3)[..]);
        for (i, v) in views.iter().enumerate() {
            assert_eq!(arena.get(v).unwrap(), &long(100, i as u8)[..]);
        }
        let usage = arena.memory_usage();
        // Exponential growth: few chunks for ~2 MB of strings.
        assert!(usage.chunks < 12, "{usage:?}");
        assert!(usage.capacity < 2 * usage.used + MIN_CHUNK, "{usage:?}");
    }

    #[test]
    fn dedicated_chunks_are_freed_on_release() {
        let mut arena = Arena::new();
        let big = arena.store(&long(DEDICATED_THRESHOLD + 1, 9)).unwrap();
        assert!(arena.memory_usage().capacity > DEDICATED_THRESHOLD);
        arena.release(big);
        assert_eq!(arena.memory_usage().capacity, 0);
        let again = arena.store(&long(DEDICATED_THRESHOLD + 5, 1)).unwrap();
        assert_eq!(
            again.location().unwrap().chunk,
            big.location().unwrap().chunk
        );
    }

    #[test]
    fn shared_chunks_are_never_rewritten() {
        let mut arena = Arena::new();
        let a = arena.store(&long(50, 1)).unwrap();
        let shared = arena.share_chunks();
        let (chunk, used) = &shared[0];
        let before = chunk.slice(0, *used).unwrap().to_vec();
        arena.release(a);
        let b = arena.store(&long(50, 2)).unwrap();
        assert_ne!(a.location(), b.location());
        assert_eq!(chunk.slice(0, *used).unwrap(), &before[..]);
        drop(shared);
        // Once the share is gone, new holes are reused again.
        arena.release(b);
        let c = arena.store(&long(50, 3)).unwrap();
        assert_eq!(b.location(), c.location());
    }

    #[test]
    fn packed_strings_sit_end_to_end_and_free_their_chunk_last() {
        let mut arena = Arena::new();
        let ordinary = arena.store(&long(40, 9)).unwrap();
        let strings: Vec<Vec<u8>> = (0..20).map(|i| long(13 + i, i as u8)).collect();
        let total = strings.iter().map(Vec::len).sum();
        let mut packed = arena.packed(total);
        let mut views: Vec<View> = strings.iter().map(|s| packed.store(s).unwrap()).collect();
        views.push(packed.store(b"inline").unwrap());
        assert!(views[20].is_inline());
        let chunk = views[0].location().unwrap().chunk;
        let mut offset = 0;
        for (view, string) in views.iter().zip(&strings) {
            assert_eq!(view.location(), Some(Location { chunk, offset }));
            assert_eq!(arena.get(view).unwrap(), &string[..]);
            offset += string.len() as u32;
        }
        let usage = arena.memory_usage();
        assert_eq!(usage.string_bytes, total + 40);
        assert_eq!(usage.capacity, MIN_CHUNK + total);
        // Holes in a packed chunk are never reused; its last string frees it.
        arena.release(views[3]);
        let again = arena.store(&long(16, 3)).unwrap();
        assert_ne!(again.location().unwrap().chunk, chunk);
        for &view in views.iter().filter(|v| **v != views[3]) {
            arena.release(view);
        }
        let usage = arena.memory_usage();
        assert_eq!(usage.capacity, MIN_CHUNK);
        assert_eq!(usage.string_bytes, 40 + 16);
        assert_eq!(arena.get(&ordinary).unwrap(), &long(40, 9)[..]);
        // The freed slot takes an ordinary chunk later; releasing in it is ordinary again.
        let big = arena.store(&vec![7; 2 * DEDICATED_THRESHOLD]).unwrap();
        assert_eq!(big.location().unwrap().chunk, chunk);
        arena.release(big);
        assert_eq!(arena.memory_usage().capacity, MIN_CHUNK);
    }

    #[test]
    fn packed_chunks_split_and_grow_past_the_hint() {
        let mut arena = Arena::new();
        let big = vec![1u8; MAX_CHUNK / 2 + 1];
        let mut packed = arena.packed(3 * big.len());
        let views: Vec<View> = (0..4).map(|_| packed.store(&big).unwrap()).collect();
        let chunks: Vec<u32> = views.iter().map(|v| v.location().unwrap().chunk).collect();
        assert_eq!(
            chunks,
            [0, 1, 2, 3],
            "each chunk holds one: two would pass MAX_CHUNK"
        );
        for view in &views {
            assert_eq!(arena.get(view).unwrap(), &big[..]);
        }
    }

    #[test]
    fn foreign_views_are_errors_not_crashes() {
        let mut arena = Arena::new();
        let bogus = View::long(
            100,
            *b"abcd",
            Location {
                chunk: 5,
                offset: 0,
            },
        )
        .unwrap();
        assert!(matches!(arena.get(&bogus), Err(Error::CorruptView(_))));
        arena.release(bogus);
        assert_eq!(arena.memory_usage(), MemoryUsage::default());
    }

    #[test]
    fn duplicate_owns_its_block() {
        let mut arena = Arena::new();
        let a = arena.store(&long(30, 4)).unwrap();
        let b = arena.duplicate(a).unwrap();
        assert_ne!(a.location(), b.location());
        arena.release(a);
        let c = arena.store(&long(30, 9)).unwrap();
        assert_eq!(arena.get(&b).unwrap(), &long(30, 4)[..]);
        assert_eq!(arena.get(&c).unwrap(), &long(30, 9)[..]);
        let inline = arena.store(b"short").unwrap();
        assert_eq!(arena.duplicate(inline).unwrap(), inline);
    }

    #[test]
    fn store_parts_concatenates() {
        let mut arena = Arena::new();
        let v = arena.store_parts(&[b"ab", b"", b"cdefghijklmnop"]).unwrap();
        assert_eq!(arena.get(&v).unwrap(), b"abcdefghijklmnop");
        assert_eq!(v.prefix(), *b"abcd");
        let v = arena.store_parts(&[b"a", b"b"]).unwrap();
        assert_eq!(arena.get(&v).unwrap(), b"ab");
    }
}
