//! The per-array arena that holds the bytes of long strings (more than 12 bytes).
//!
//! Bytes live in chunks that grow exponentially (each new chunk at least double the last,
//! up to [`MAX_CHUNK`]) and never move, so a view's location stays valid for the arena's
//! life and a chunk can be handed out whole (for example as an Arrow buffer). Strings take
//! blocks of a size class; a released block goes to its class's free list and is reused
//! by the next string of that class, so overwriting the same elements keeps memory
//! bounded. Strings larger than [`DEDICATED_THRESHOLD`] get a chunk of their own, freed as
//! soon as the string is released. Bulk imports store strings end to end in *packed*
//! chunks ([`Arena::packed`]).
//!
//! Every arena that holds long strings has a slot in a process-wide registry (see
//! [`registry`]), and its views name it: a view's `chunk` field is the slot and a local
//! chunk index. So an arena
//! - reads its own views directly and any other arena's views through the registry
//!   ([`Arena::get`] works whatever descriptor a view arrives with);
//! - releases only views it can prove are its own live strings: of its slot, and a live
//!   block of the right size ([`blocks`]), the whole of a dedicated chunk, or inside the
//!   filled part of a packed chunk (whose releases only count: packed chunks are freed
//!   with the arena). A view made up from raw bytes is never trusted.
//!
//! A chunk that has been shared ([`Arena::share_chunks`]) is pinned while any share lives:
//! nothing in it is rewritten. Its free blocks wait until the share ends. Chunks with many
//! holes are not shared at all: the exporter copies the strings it needs from them, so
//! that repeated exports cannot pin ever more free space.
//!
//! Every allocation is fallible: running out of memory is an [`Error::OutOfMemory`],
//! never an abort.

mod blocks;
mod chunk;
pub mod registry;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};
use crate::view::{Location, View, MAX_INLINE_LEN};
use blocks::{size_class, Blocks, CLASS_COUNT};
pub use chunk::{pooled_bytes, ChunkBuf, POOL_LIMIT};
use registry::{chunk_id, split_id, Mailbox, MAX_LOCAL_CHUNKS};

/// Size of the first chunk.
pub const MIN_CHUNK: usize = 8 * 1024;
/// Largest chunk made for ordinary strings.
pub const MAX_CHUNK: usize = 16 * 1024 * 1024;
/// Strings with a block larger than this get a chunk of their own.
pub const DEDICATED_THRESHOLD: usize = 1024 * 1024;
/// Most chunks of other arenas one arena keeps resolved at once (see [`Arena::get`]).
const FOREIGN_LIMIT: usize = 1024;

/// Counts the ends of shares of chunks (exports released, resolved foreign chunks let
/// go): an arena with blocks waiting on shared chunks looks at them again only when it
/// changed.
static UNSHARED: AtomicU64 = AtomicU64::new(0);

/// Notes that some share of chunks ended (see [`UNSHARED`]).
pub(crate) fn note_unshared() {
    UNSHARED.fetch_add(1, Ordering::Relaxed);
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
    /// Number of chunks.
    pub chunks: usize,
}

impl MemoryUsage {
    /// Allocated bytes that hold no live string: holes, padding and unused tails.
    pub fn unused(&self) -> usize {
        self.capacity.saturating_sub(self.string_bytes)
    }
}

/// How a chunk is used.
enum Kind {
    /// A freed chunk's place, for the next chunk.
    Free,
    /// Blocks of size classes.
    Ordinary(Blocks),
    /// One string of `len` bytes at offset 0.
    Dedicated { len: usize },
    /// Strings end to end up to `fill`; `live` of their bytes are not released.
    Packed { fill: usize, live: usize },
}

struct Chunk {
    buf: Arc<ChunkBuf>,
    kind: Kind,
}

impl Chunk {
    fn free() -> Chunk {
        Chunk {
            buf: Arc::new(ChunkBuf::empty()),
            kind: Kind::Free,
        }
    }

    /// Whether someone besides the arena holds the chunk (an export, another arena's
    /// resolved read): then nothing in it may be rewritten.
    fn is_shared(&self) -> bool {
        Arc::strong_count(&self.buf) > 1
    }
}

/// A block by its local chunk index and offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockRef {
    local: u32,
    offset: u32,
}

/// How [`Arena::share_chunks`] shares one chunk.
pub enum ChunkShare {
    /// The chunk as it is: its first `len` bytes may hold strings and are pinned.
    Shared { chunk: Arc<ChunkBuf>, len: usize },
    /// A chunk with many holes: a consumer copies the strings it needs.
    Copy,
    /// A freed chunk's place: no string lives there.
    Empty,
}

impl ChunkShare {
    /// The chunk and its pinned length, when it is shared as it is.
    pub fn as_shared(&self) -> Option<(&Arc<ChunkBuf>, usize)> {
        match self {
            ChunkShare::Shared { chunk, len } => Some((chunk, *len)),
            _ => None,
        }
    }
}

/// The bytes of the long strings of one array.
pub struct Arena {
    /// The registry slot, 0 until the first chunk.
    slot: u32,
    chunks: Vec<Chunk>,
    /// The ordinary chunk that new blocks are carved from.
    current: Option<u32>,
    /// Size the next ordinary chunk will have at least.
    next_chunk: usize,
    free_blocks: Vec<Vec<BlockRef>>,
    /// Free blocks of shared chunks, by class, waiting for the share to end.
    parked: Vec<(usize, BlockRef)>,
    /// The value of [`UNSHARED`] when `parked` was last looked at.
    parked_seen: u64,
    free_locals: Vec<u32>,
    usage: MemoryUsage,
    /// Chunks of other arenas that reads resolved, kept alive while a borrow of their
    /// bytes may be (until the next exclusive access).
    foreign: Mutex<Vec<(u32, Arc<ChunkBuf>)>>,
    /// Releases of other arenas' views, to post to their mailboxes ([`Arena::settle`]).
    outbox: Vec<View>,
    /// Where other arenas post releases of this one's views (made with the slot).
    mailbox: Option<Arc<Mailbox>>,
}

impl Default for Arena {
    fn default() -> Self {
        Arena::new()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if !self.outbox.is_empty() {
            registry::forward(&mut self.outbox);
        }
        if self.slot != 0 {
            registry::free_slot(self.slot);
        }
    }
}

impl Arena {
    /// An empty arena; it allocates nothing until the first long string.
    pub const fn new() -> Arena {
        Arena {
            slot: 0,
            chunks: Vec::new(),
            current: None,
            next_chunk: MIN_CHUNK,
            free_blocks: Vec::new(),
            parked: Vec::new(),
            parked_seen: 0,
            free_locals: Vec::new(),
            usage: MemoryUsage {
                capacity: 0,
                used: 0,
                string_bytes: 0,
                chunks: 0,
            },
            foreign: Mutex::new(Vec::new()),
            outbox: Vec::new(),
            mailbox: None,
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
        let location = self.allocate(data.len())?;
        self.write_block(location, data.as_ptr(), data.len());
        let prefix = [data[0], data[1], data[2], data[3]];
        View::long(data.len(), prefix, self.location(location))
    }

    /// Stores a copy of `view`'s string (of this arena or any other) and returns the
    /// copy's view: the copy owns its own block, so either can be released without
    /// touching the other.
    pub fn duplicate(&mut self, view: View) -> Result<View> {
        if view.is_inline() {
            return Ok(view);
        }
        let source = self.get_long(&view)?;
        let (source, len) = (source.as_ptr(), source.len());
        let location = self.allocate(len)?;
        // `source` stays valid: it is in a chunk of this arena, which `allocate` does not
        // free, or in a chunk of the foreign cache, which only `&mut` access outside
        // this function clears.
        self.write_block(location, source, len);
        View::long(len, view.prefix(), self.location(location))
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
        let location = self.allocate(len)?;
        let mut at = location.offset as usize;
        let mut prefix = [0u8; 4];
        let mut filled = 0;
        for part in parts {
            let block = BlockRef {
                local: location.local,
                offset: at as u32,
            };
            self.write_block(block, part.as_ptr(), part.len());
            at += part.len();
            for &b in part.iter().take(4 - filled) {
                prefix[filled] = b;
                filled += 1;
            }
        }
        View::long(len, prefix, self.location(location))
    }

    /// Gives a long string's block back to the arena. Inline strings and missing values
    /// need nothing; a view of another arena is passed on to it ([`Arena::settle`]); a
    /// view that this arena cannot prove is one of its live strings is ignored (see the
    /// module docs).
    #[inline]
    pub fn release(&mut self, view: View) {
        if let Some(location) = view.location() {
            self.release_long(view, location);
        }
    }

    #[inline(never)]
    fn release_long(&mut self, view: View, location: Location) {
        let (slot, local) = split_id(location.chunk);
        if slot != self.slot {
            if slot != 0 && self.outbox.try_reserve(1).is_ok() {
                self.outbox.push(view);
            }
            return;
        }
        let Some(chunk) = self.chunks.get_mut(local as usize) else {
            return;
        };
        let (len, offset) = (view.len(), location.offset as usize);
        if let Kind::Dedicated { len: held } = chunk.kind {
            if offset == 0 && len == held {
                self.usage.used = self.usage.used.saturating_sub(len);
                self.usage.string_bytes = self.usage.string_bytes.saturating_sub(len);
                self.free_chunk(local);
            }
            return;
        }
        let usage = &mut self.usage;
        match &mut chunk.kind {
            Kind::Free | Kind::Dedicated { .. } => {}
            Kind::Packed { fill, live } => {
                let inside = offset.checked_add(len).is_some_and(|end| end <= *fill);
                let same = inside && chunk.buf.slice(offset, 4) == Some(&view.prefix()[..]);
                if same {
                    *live = live.saturating_sub(len);
                    usage.used = usage.used.saturating_sub(len);
                    usage.string_bytes = usage.string_bytes.saturating_sub(len);
                }
            }
            Kind::Ordinary(blocks) => {
                let (class, block) = size_class(len);
                if block > DEDICATED_THRESHOLD || !blocks.is_live_block(offset, block) {
                    return;
                }
                blocks.kill(offset, block);
                usage.used = usage.used.saturating_sub(block);
                usage.string_bytes = usage.string_bytes.saturating_sub(len);
                if self.free_blocks.is_empty() {
                    self.free_blocks.resize_with(CLASS_COUNT, Vec::new);
                }
                let offset = offset as u32;
                self.free_blocks[class].push(BlockRef { local, offset });
            }
        }
    }

    /// The bytes of a string (empty for a missing value): of this arena, or of any other
    /// live arena (found through the registry and kept alive until the next `&mut`
    /// access). Returns an error when a long view names no live string's bytes.
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
        let (slot, local) = split_id(location.chunk);
        // An arena without a slot (0) has no chunks, so slot 0 finds nothing here.
        if slot != self.slot {
            return self.get_foreign(view, location);
        }
        self.chunks
            .get(local as usize)
            .and_then(|chunk| chunk.buf.slice(location.offset as usize, view.len()))
            .ok_or(Error::CorruptView(*view))
    }

    #[cold]
    fn get_foreign<'a>(&'a self, view: &View, location: Location) -> Result<&'a [u8]> {
        let corrupt = || Error::CorruptView(*view);
        let mut cache = self.foreign.lock().unwrap_or_else(PoisonError::into_inner);
        let at = match cache.iter().position(|(id, _)| *id == location.chunk) {
            Some(at) => at,
            None => {
                if cache.len() >= FOREIGN_LIMIT {
                    return Err(corrupt());
                }
                let chunk = registry::resolve(location.chunk).ok_or_else(corrupt)?;
                cache.try_reserve(1).map_err(|_| Error::OutOfMemory(0))?;
                cache.push((location.chunk, chunk));
                cache.len() - 1
            }
        };
        let bytes = cache[at]
            .1
            .slice(location.offset as usize, view.len())
            .filter(|bytes| bytes[..4] == view.prefix())
            .ok_or_else(corrupt)?;
        // SAFETY: the bytes are in a chunk that the cache entry keeps alive; entries are
        // removed only through `&mut self` (`forget_foreign`), which cannot happen while
        // the returned borrow of `self` lives, and chunks never move.
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) })
    }

    /// Ends a stretch of exclusive access: lets go of the chunks of other arenas that
    /// reads resolved, and posts the releases of other arenas' views to them.
    pub fn settle(&mut self) {
        self.forget_foreign();
        if !self.outbox.is_empty() {
            registry::forward(&mut self.outbox);
        }
    }

    /// Applies the releases that other arenas posted for this one (each checked like
    /// any release).
    pub fn collect_mail(&mut self) {
        let Some(mailbox) = &self.mailbox else {
            return;
        };
        for view in mailbox.take() {
            self.release(view);
        }
    }

    /// Lets go of the chunks of other arenas that reads resolved.
    pub fn forget_foreign(&mut self) {
        let cache = self
            .foreign
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if !cache.is_empty() {
            cache.clear();
            note_unshared();
        }
    }

    /// Makes sure that at least `bytes` more string bytes fit without a further chunk
    /// (a hint from a loop that knows how much it will write).
    pub fn reserve(&mut self, bytes: usize) {
        let room = self.current.map_or(0, |c| {
            let chunk = &self.chunks[c as usize];
            match &chunk.kind {
                Kind::Ordinary(blocks) => chunk.buf.len() - blocks.carved(),
                _ => 0,
            }
        });
        if room < bytes {
            self.next_chunk = self.next_chunk.max(bytes.min(MAX_CHUNK));
        }
    }

    /// The memory this arena holds.
    pub fn memory_usage(&self) -> MemoryUsage {
        MemoryUsage {
            chunks: self.chunks.len() - self.free_locals.len(),
            ..self.usage
        }
    }

    /// This arena's registry slot (0 while it holds no chunk).
    pub fn slot(&self) -> u32 {
        self.slot
    }

    /// Shares the chunks, by local index, for example with an Arrow consumer. A shared
    /// chunk's first `len` bytes hold every string it has now and are never rewritten
    /// while the share lives; a chunk with more than a quarter of holes is not shared
    /// (the consumer copies what it needs), so that repeated exports cannot pin free
    /// space for ever.
    pub fn share_chunks(&self) -> Vec<ChunkShare> {
        let share = |buf: &Arc<ChunkBuf>, len: usize, live: usize| {
            if (len - live.min(len)) * 4 > len {
                ChunkShare::Copy
            } else {
                ChunkShare::Shared {
                    chunk: Arc::clone(buf),
                    len,
                }
            }
        };
        self.chunks
            .iter()
            .map(|chunk| match &chunk.kind {
                Kind::Free => ChunkShare::Empty,
                Kind::Ordinary(blocks) => share(&chunk.buf, blocks.carved(), blocks.live_bytes()),
                Kind::Dedicated { len } => share(&chunk.buf, *len, *len),
                Kind::Packed { fill, live } => share(&chunk.buf, *fill, *live),
            })
            .collect()
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

    /// The view location of a block.
    fn location(&self, block: BlockRef) -> Location {
        Location {
            chunk: chunk_id(self.slot, block.local),
            offset: block.offset,
        }
    }

    fn allocate(&mut self, len: usize) -> Result<BlockRef> {
        let (class, block) = size_class(len);
        if block > DEDICATED_THRESHOLD {
            let local = self.push_chunk(len, Kind::Dedicated { len })?;
            self.usage.used += len;
            self.usage.string_bytes += len;
            return Ok(BlockRef { local, offset: 0 });
        }
        let at = match self.pop_free_block(class) {
            Some(at) => {
                let Kind::Ordinary(blocks) = &mut self.chunks[at.local as usize].kind else {
                    unreachable!("free blocks are in ordinary chunks");
                };
                blocks.revive(at.offset as usize, block);
                at
            }
            None => self.carve(block)?,
        };
        self.usage.used += block;
        self.usage.string_bytes += len;
        Ok(at)
    }

    /// A new block of `block` bytes from the current chunk, or from a new one.
    fn carve(&mut self, block: usize) -> Result<BlockRef> {
        if let Some(local) = self.current {
            let chunk = &mut self.chunks[local as usize];
            if let Kind::Ordinary(blocks) = &mut chunk.kind {
                if chunk.buf.len() - blocks.carved() >= block {
                    let offset = blocks.carve(block) as u32;
                    return Ok(BlockRef { local, offset });
                }
            }
        }
        let size = self.next_chunk.max(block);
        let local = self.push_chunk(size, Kind::Ordinary(Blocks::new(size)?))?;
        self.next_chunk = (size * 2).min(MAX_CHUNK);
        self.current = Some(local);
        let Kind::Ordinary(blocks) = &mut self.chunks[local as usize].kind else {
            unreachable!("just made");
        };
        let offset = blocks.carve(block) as u32;
        Ok(BlockRef { local, offset })
    }

    /// The newest free block of `class` in a chunk that is not shared; blocks of shared
    /// chunks are parked until their share ends.
    fn pop_free_block(&mut self, class: usize) -> Option<BlockRef> {
        loop {
            let list = self.free_blocks.get_mut(class)?;
            while let Some(at) = list.pop() {
                if !self.chunks[at.local as usize].is_shared() {
                    return Some(at);
                }
                self.parked.push((class, at));
            }
            let unshared = UNSHARED.load(Ordering::Relaxed);
            if self.parked.is_empty() || unshared == self.parked_seen {
                return None;
            }
            self.parked_seen = unshared;
            let mut parked = std::mem::take(&mut self.parked);
            parked.retain(|&(class, at)| {
                let waiting = self.chunks[at.local as usize].is_shared();
                if !waiting {
                    self.free_blocks[class].push(at);
                }
                waiting
            });
            self.parked = parked;
        }
    }

    /// Adds a chunk of `size` bytes used as `kind`; returns its local index.
    fn push_chunk(&mut self, size: usize, kind: Kind) -> Result<u32> {
        if self.slot == 0 {
            let mailbox = Arc::new(Mailbox::default());
            self.slot = registry::claim_slot(&mailbox)?;
            self.mailbox = Some(mailbox);
        }
        let buf = Arc::new(ChunkBuf::new(size)?);
        let local = match self.free_locals.pop() {
            Some(local) => local,
            None => {
                if self.chunks.len() >= MAX_LOCAL_CHUNKS {
                    return Err(Error::ArenaFull);
                }
                self.chunks
                    .try_reserve(1)
                    .map_err(|_| Error::OutOfMemory(0))?;
                self.chunks.push(Chunk::free());
                (self.chunks.len() - 1) as u32
            }
        };
        if let Err(err) = registry::publish(self.slot, local, &buf) {
            self.free_locals.push(local);
            return Err(err);
        }
        self.chunks[local as usize] = Chunk { buf, kind };
        self.usage.capacity += size;
        Ok(local)
    }

    /// Frees a chunk that holds no live string and makes its place reusable.
    fn free_chunk(&mut self, local: u32) {
        registry::withdraw(self.slot, local);
        // A share keeps its own reference, so dropping ours is safe either way.
        let chunk = std::mem::replace(&mut self.chunks[local as usize], Chunk::free());
        self.usage.capacity -= chunk.buf.len();
        if self.current == Some(local) {
            self.current = None;
        }
        self.free_locals.push(local);
    }

    /// Copies `len` bytes from `source` into `block`, which `allocate` has just handed out.
    fn write_block(&mut self, block: BlockRef, source: *const u8, len: usize) {
        // SAFETY: `source` points at `len` readable bytes (the callers' slices, or a
        // string of a live chunk in `duplicate`).
        let data = unsafe { std::slice::from_raw_parts(source, len) };
        // SAFETY: the block was just allocated, so no view of a live string and no
        // share covers it: blocks of shared chunks are reused only after the share
        // ends (`pop_free_block`), and carving happens past the shared length.
        unsafe {
            self.chunks[block.local as usize]
                .buf
                .write(block.offset as usize, data)
        };
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
        let local = match self.chunk {
            Some(local) if self.end - self.at >= len => local,
            _ => self.next_chunk(len)?,
        };
        let block = BlockRef {
            local,
            offset: self.at as u32,
        };
        self.arena.write_block(block, data.as_ptr(), len);
        self.at += len;
        self.remaining = self.remaining.saturating_sub(len);
        if let Kind::Packed { fill, live } = &mut self.arena.chunks[local as usize].kind {
            *fill = self.at;
            *live += len;
        }
        self.arena.usage.used += len;
        self.arena.usage.string_bytes += len;
        let location = self.arena.location(block);
        View::long(len, [data[0], data[1], data[2], data[3]], location)
    }

    #[cold]
    fn next_chunk(&mut self, len: usize) -> Result<u32> {
        let size = self.remaining.min(MAX_CHUNK).max(len);
        let local = self
            .arena
            .push_chunk(size, Kind::Packed { fill: 0, live: 0 })?;
        // The previous chunk's unused tail (if any) stays unused.
        (self.chunk, self.at, self.end) = (Some(local), 0, size);
        Ok(local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| seed.wrapping_add(i as u8)).collect()
    }

    /// A view of `len` bytes starting with `prefix` at `chunk`/`offset`, as raw bytes
    /// could make it.
    fn forged(len: usize, prefix: [u8; 4], chunk: u32, offset: u32) -> View {
        View::long(len, prefix, Location { chunk, offset }).unwrap()
    }

    #[test]
    fn store_and_get_round_trip() {
        let mut arena = Arena::new();
        let mut views = Vec::new();
        for n in [0, 1, 12, 13, 100, 5000, 70_000, 2 * DEDICATED_THRESHOLD] {
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
        assert_eq!(arena.slot(), 0);
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
        assert!(arena.get(&big).is_err(), "its chunk is gone");
        let again = arena.store(&long(DEDICATED_THRESHOLD + 5, 1)).unwrap();
        assert_eq!(
            again.location().unwrap().chunk,
            big.location().unwrap().chunk
        );
    }

    #[test]
    fn views_name_their_arena() {
        let mut a = Arena::new();
        let mut b = Arena::new();
        let va = a.store(&long(30, 1)).unwrap();
        let vb = b.store(&long(30, 2)).unwrap();
        assert_ne!(a.slot(), b.slot());
        assert_eq!(split_id(va.location().unwrap().chunk).0, a.slot());
        // Each reads the other's views through the registry.
        assert_eq!(a.get(&vb).unwrap(), &long(30, 2)[..]);
        assert_eq!(b.get(&va).unwrap(), &long(30, 1)[..]);
        // Neither releases the other's.
        let before = a.memory_usage();
        a.release(vb);
        assert_eq!(a.memory_usage(), before);
        assert_eq!(b.get(&vb).unwrap(), &long(30, 2)[..]);
        // A dead arena's views are errors, not reads of freed memory.
        let dead = {
            let mut c = Arena::new();
            c.store(&long(30, 3)).unwrap()
        };
        a.forget_foreign();
        assert_eq!(a.get(&dead), Err(Error::CorruptView(dead)));
    }

    #[test]
    fn releases_of_another_arenas_views_reach_it() {
        let mut owner = Arena::new();
        let mut other = Arena::new();
        let view = owner.store(&long(30, 1)).unwrap();
        let keep = owner.store(&long(30, 2)).unwrap();
        other.release(view);
        assert_eq!(
            owner.memory_usage().string_bytes,
            60,
            "applied only when collected"
        );
        other.settle();
        owner.collect_mail();
        assert_eq!(owner.memory_usage().string_bytes, 30);
        // Applied like any release: once, and only for live strings.
        other.release(view);
        other.release(forged(30, *b"xxxx", view.location().unwrap().chunk, 8));
        other.settle();
        owner.collect_mail();
        assert_eq!(owner.memory_usage().string_bytes, 30);
        assert_eq!(owner.get(&keep).unwrap(), &long(30, 2)[..]);
    }

    #[test]
    fn duplicate_copies_from_any_arena() {
        let mut a = Arena::new();
        let mut b = Arena::new();
        let vb = b.store(&long(300, 4)).unwrap();
        let copy = a.duplicate(vb).unwrap();
        assert_eq!(split_id(copy.location().unwrap().chunk).0, a.slot());
        drop(b);
        a.forget_foreign();
        assert_eq!(a.get(&copy).unwrap(), &long(300, 4)[..]);
    }

    #[test]
    fn forged_views_are_never_released() {
        let mut arena = Arena::new();
        let live: Vec<View> = (0..50)
            .map(|i| arena.store(&long(40 + i, i as u8)).unwrap())
            .collect();
        let big = arena.store(&long(2 * DEDICATED_THRESHOLD, 5)).unwrap();
        let before = arena.memory_usage();
        let slot = arena.slot();
        let chunk = live[0].location().unwrap().chunk;
        let big_chunk = big.location().unwrap().chunk;
        let prefix = live[3].prefix();
        let forgeries = [
            forged(40, prefix, chunk, 8),        // inside a block
            forged(40, prefix, chunk, 16),       // not a block start
            forged(200, prefix, chunk, 0),       // wrong class: spans blocks
            forged(13, prefix, chunk, 0),        // wrong class: too small
            forged(40, prefix, chunk, 1 << 20),  // past the carved bytes
            forged(1_100_000, prefix, chunk, 0), // dedicated size, ordinary chunk
            forged(2 * DEDICATED_THRESHOLD - 1, prefix, big_chunk, 0),
            forged(100, prefix, big_chunk, 16),
            forged(40, prefix, chunk_id(slot, 77), 0), // no such chunk
            forged(40, prefix, 3, 0),                  // slot 0: nobody's
            forged(40, prefix, chunk_id(slot + 1, 0), 0), // another slot
        ];
        for view in forgeries {
            arena.release(view);
            assert_eq!(arena.memory_usage(), before, "{view:?}");
        }
        // A real string released twice is released once.
        arena.release(live[7]);
        let after = arena.memory_usage();
        arena.release(live[7]);
        assert_eq!(arena.memory_usage(), after);
        // Nothing was corrupted: new strings never overlap live ones.
        let fresh: Vec<View> = (0..200)
            .map(|i| {
                arena
                    .store(&long(40 + i % 60, (i as u8).wrapping_add(100)))
                    .unwrap()
            })
            .collect();
        for (i, v) in live.iter().enumerate().filter(|&(i, _)| i != 7) {
            assert_eq!(arena.get(v).unwrap(), &long(40 + i, i as u8)[..]);
        }
        for (i, v) in fresh.iter().enumerate() {
            assert_eq!(
                arena.get(v).unwrap(),
                &long(40 + i % 60, (i as u8).wrapping_add(100))[..]
            );
        }
        assert_eq!(arena.get(&big).unwrap().len(), 2 * DEDICATED_THRESHOLD);
    }

    #[test]
    fn shared_chunks_are_never_rewritten() {
        let mut arena = Arena::new();
        let keep = arena.store(&long(50, 9)).unwrap();
        let a = arena.store(&long(50, 1)).unwrap();
        let shared = arena.share_chunks();
        let ChunkShare::Shared { chunk, len } = &shared[0] else {
            panic!("a chunk without holes is shared");
        };
        let before = chunk.slice(0, *len).unwrap().to_vec();
        arena.release(a);
        let b = arena.store(&long(50, 2)).unwrap();
        assert_ne!(a.location(), b.location());
        assert_eq!(chunk.slice(0, *len).unwrap(), &before[..]);
        drop(shared);
        note_unshared();
        // Once the share is gone, the parked hole is reused again.
        let c = arena.store(&long(50, 3)).unwrap();
        assert_eq!(a.location(), c.location());
        assert_eq!(arena.get(&keep).unwrap(), &long(50, 9)[..]);
    }

    #[test]
    fn the_shared_length_of_the_current_chunk_is_what_was_carved() {
        let mut arena = Arena::new();
        let small = arena.store(&long(40, 1)).unwrap();
        let _big = arena.store(&long(2 * DEDICATED_THRESHOLD, 2)).unwrap();
        let shared = arena.share_chunks();
        let local = split_id(small.location().unwrap().chunk).1 as usize;
        let ChunkShare::Shared { chunk, len } = &shared[local] else {
            panic!("shared");
        };
        assert_eq!(*len, 48);
        let before = chunk.slice(0, chunk.len()).unwrap()[..*len].to_vec();
        for i in 0..100 {
            arena.store(&long(20, i)).unwrap();
        }
        assert_eq!(chunk.slice(0, *len).unwrap(), &before[..]);
    }

    #[test]
    fn chunks_with_many_holes_are_copied_not_pinned() {
        let mut arena = Arena::new();
        let views: Vec<View> = (0..100)
            .map(|i| arena.store(&long(40, i)).unwrap())
            .collect();
        for v in &views[..60] {
            arena.release(*v);
        }
        let shared = arena.share_chunks();
        assert!(matches!(shared[0], ChunkShare::Copy));
        // Nothing is pinned: the holes are reused at once.
        let again = arena.store(&long(40, 7)).unwrap();
        assert_eq!(again.location(), views[59].location());
    }

    #[test]
    fn packed_strings_sit_end_to_end() {
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
        // Releases count, and leave the bytes of the others alone; a forged release
        // inside the chunk changes nothing.
        arena.release(forged(20, *b"zzzz", chunk, 3));
        assert_eq!(arena.memory_usage().string_bytes, total + 40);
        arena.release(views[3]);
        assert_eq!(arena.memory_usage().string_bytes, total + 40 - 16);
        for (view, string) in views.iter().zip(&strings) {
            assert_eq!(arena.get(view).unwrap(), &string[..]);
        }
        assert_eq!(arena.get(&ordinary).unwrap(), &long(40, 9)[..]);
    }

    #[test]
    fn packed_chunks_split_and_grow_past_the_hint() {
        let mut arena = Arena::new();
        let big = vec![1u8; MAX_CHUNK / 2 + 1];
        let mut packed = arena.packed(3 * big.len());
        let views: Vec<View> = (0..4).map(|_| packed.store(&big).unwrap()).collect();
        let chunks: Vec<u32> = views
            .iter()
            .map(|v| split_id(v.location().unwrap().chunk).1)
            .collect();
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
    fn store_parts_concatenates() {
        let mut arena = Arena::new();
        let v = arena.store_parts(&[b"ab", b"", b"cdefghijklmnop"]).unwrap();
        assert_eq!(arena.get(&v).unwrap(), b"abcdefghijklmnop");
        assert_eq!(v.prefix(), *b"abcd");
        let v = arena.store_parts(&[b"a", b"b"]).unwrap();
        assert_eq!(arena.get(&v).unwrap(), b"ab");
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
    fn running_out_of_memory_is_an_error() {
        // Chunks are allocated fallibly: a size no allocator can give is an error.
        assert_eq!(
            ChunkBuf::new(isize::MAX as usize).err(),
            Some(Error::OutOfMemory(isize::MAX as usize))
        );
    }
}
