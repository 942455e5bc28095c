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
//! Every arena that holds long strings owns ranges of chunk ids in a process-wide registry
//! ([`registry`]); its views name it: a view's `chunk` is a range's base plus a local
//! chunk index (a [`PartArena`] writes some for it on another thread). So an arena
//! - reads its own views directly and any other arena's views through the registry
//!   ([`Arena::get`] works whatever descriptor a view arrives with);
//! - releases only views it can prove are its own live strings: of its ranges, and a live
//!   block of the right size ([`blocks`]), the whole of a dedicated chunk, or inside the
//!   filled part of a packed chunk (whose releases only count: packed chunks are freed
//!   with the arena). A view made up from raw bytes is never trusted.
//!
//! A chunk that has been shared ([`Arena::share_chunks`]) is pinned while any share lives:
//! nothing in it is rewritten. Its free blocks wait until the share ends. Chunks with many
//! holes are not shared at all: the exporter copies the strings it needs from them, so
//! that repeated exports cannot pin ever more free space.
//!
//! Every allocation is fallible: running out of memory is an [`Error::OutOfMemory`].

mod allocate;
mod blocks;
mod chunk;
pub mod factorize;
pub mod gather;
mod packed;
mod parts;
mod rare;
mod regions;
pub mod registry;
mod release_all;
mod share;
mod store_with;

use std::sync::{atomic::AtomicU64, atomic::Ordering, Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::view::{Location, View, MAX_INLINE_LEN};
use blocks::{size_class, Blocks};
pub use chunk::{pooled_bytes, ChunkBuf, FIRST_CHUNK, MAX_CHUNK, MIN_CHUNK, POOL_LIMIT};
pub use packed::Packed;
pub use parts::{PartArena, PART_SPAN};
pub use regions::{RegionToken, RegionWriter};
use registry::Ranges;
pub use share::ChunkShare;

pub const DEDICATED_THRESHOLD: usize = 1024 * 1024;

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

/// How a chunk is used. A plain tag byte (`repr(u8)`) makes telling the kinds apart one
/// compare on the release path, where the niche in `Blocks` took a handful.
#[repr(u8)]
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

    /// Bytes the chunk's live strings hold: their size-class blocks in an ordinary chunk,
    /// the one string of a dedicated chunk, the unreleased strings of a packed one.
    fn live_bytes(&self) -> usize {
        match &self.kind {
            Kind::Free => 0,
            Kind::Ordinary(blocks) => blocks.live_bytes(),
            Kind::Dedicated { len } => *len,
            Kind::Packed { live, .. } => *live,
        }
    }
}

/// A block by its local chunk index and offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockRef {
    local: u32,
    offset: u32,
}

/// The bytes of the long strings of one array.
pub struct Arena {
    /// The base and size of the current id range (both 0 until the first chunk): a view
    /// of this arena written now has `chunk == base + local` with `local < span`.
    base: u32,
    span: u32,
    /// Every id range the arena holds, the current one and the smaller ones before it.
    ranges: Ranges,
    chunks: Vec<Chunk>,
    /// The ordinary chunk that new blocks are carved from.
    current: Option<u32>,
    /// Size the next ordinary chunk will have at least.
    next_chunk: usize,
    usage: MemoryUsage,
    /// The registry's count of posted releases when this arena last took its own.
    mail_seen: u64,
    /// The base and size of the current range of the arena that [`Arena::share_from`]
    /// shares chunks with.
    shared_current: (u32, u32),
    /// What most arenas never need, allocated the first time one does (see [`Rare`]).
    rare: OnceLock<Box<Rare>>,
}

/// The parts of an arena that an array of a few strings does not use: every array has
/// an arena, and these were 152 of its 264 bytes (a 16-byte `OnceLock` now). Free
/// lists are made by the first release that is not the last block carved.
#[derive(Default)]
struct Rare {
    /// Free blocks by size class (only the classes up to the largest released).
    free_blocks: Vec<Vec<BlockRef>>,
    /// Free blocks of shared chunks, by class, waiting for the share to end.
    parked: Vec<(usize, BlockRef)>,
    /// The value of [`UNSHARED`] when `parked` was last looked at.
    parked_seen: u64,
    /// Places of freed chunks, for the next chunk.
    free_locals: Vec<u32>,
    /// Chunks of other arenas that reads resolved, kept alive while a borrow of their
    /// bytes may be (until the next exclusive access).
    foreign: Mutex<Vec<(u32, Arc<ChunkBuf>)>>,
    /// Releases of other arenas' views, to post to their mailboxes ([`Arena::settle`]).
    outbox: Vec<View>,
    /// The ranges of the arena that [`Arena::share_from`] shares chunks with.
    shared_from: Ranges,
}

impl Default for Arena {
    fn default() -> Self {
        Arena::new()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(rare) = self.rare.get_mut() {
            if !rare.outbox.is_empty() {
                registry::forward(&mut rare.outbox);
            }
        }
        if self.ranges.current().is_some() {
            registry::release(&self.ranges);
        }
        let shared = self.chunks.iter().any(Chunk::is_shared);
        self.chunks.clear();
        if shared {
            // Another arena that shares a chunk with this one may hold it alone now.
            note_unshared();
        }
    }
}

impl Arena {
    /// An empty arena; it allocates nothing until the first long string.
    pub const fn new() -> Arena {
        Arena {
            base: 0,
            span: 0,
            ranges: Ranges {
                bases: [0; registry::LEVELS],
            },
            chunks: Vec::new(),
            current: None,
            next_chunk: FIRST_CHUNK,
            usage: MemoryUsage {
                capacity: 0,
                used: 0,
                string_bytes: 0,
                chunks: 0,
            },
            mail_seen: 0,
            shared_current: (0, 0),
            rare: OnceLock::new(),
        }
    }

    /// Stores `data` and returns its view: inline when it fits, else in a block of its own.
    //
    // The functions that return a new view are inlined into their callers: a
    // `Result<View>` returned through memory is written as two words and read back as one
    // 16-byte load, which cannot be forwarded from those stores and stalls (18 % of
    // `strip` of the medium set, at the one instruction after the call).
    #[inline(always)]
    pub fn store(&mut self, data: &[u8]) -> Result<View> {
        if let Some(view) = View::try_inline(data) {
            return Ok(view);
        }
        self.store_long(data)
    }

    #[inline(always)]
    fn store_long(&mut self, data: &[u8]) -> Result<View> {
        let location = self.allocate_checked(data.len())?;
        self.write_block(location, data.as_ptr(), data.len());
        let prefix = [data[0], data[1], data[2], data[3]];
        Ok(View::long(data.len(), prefix, self.location(location))?)
    }

    /// Stores a copy of `view`'s string (of this arena or any other) and returns the
    /// copy's view: the copy owns its own block, so either can be released without
    /// touching the other.
    #[inline(always)]
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
        Ok(View::long(len, view.prefix(), self.location(location))?)
    }

    /// Stores the concatenation of `parts` without building it first.
    #[inline(always)]
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
        for part in parts {
            let block = BlockRef {
                local: location.local,
                offset: at as u32,
            };
            self.write_block(block, part.as_ptr(), part.len());
            at += part.len();
        }
        Ok(View::long(
            len,
            self.written_prefix(location),
            self.location(location),
        )?)
    }

    /// Stores `s` repeated `count` times without building it first: one copy of `s`,
    /// then the copied part doubled inside the block.
    #[inline(always)]
    pub fn store_repeat(&mut self, s: &[u8], count: usize) -> Result<View> {
        let len = s.len().saturating_mul(count);
        if len <= MAX_INLINE_LEN {
            let mut buf = [0u8; MAX_INLINE_LEN];
            for at in (0..len).step_by(s.len().max(1)) {
                buf[at..at + s.len()].copy_from_slice(s);
            }
            return Ok(View::try_inline(&buf[..len]).expect("fits inline"));
        }
        if len > crate::view::MAX_STRING_LEN {
            return Err(Error::StringTooLong(len));
        }
        let location = self.allocate(len)?;
        let (start, buf) = (
            location.offset as usize,
            &self.chunks[location.local as usize].buf,
        );
        // SAFETY (both writes): the block was just allocated (see `write_block`); the
        // second copies from the block's filled front to the part after it, which the
        // borrowed bytes do not cover.
        unsafe { buf.write(start, s) };
        let mut filled = s.len();
        while filled < len {
            let more = filled.min(len - filled);
            let front = buf.slice(start, more).expect("the block's filled front");
            unsafe { buf.write(start + filled, front) };
            filled += more;
        }
        Ok(View::long(
            len,
            self.written_prefix(location),
            self.location(location),
        )?)
    }

    /// The first four bytes of a long string just written to `block`, read back as one
    /// word: gathering them byte by byte from the parts into an array stalled on store
    /// forwarding (16 % of `+`).
    fn written_prefix(&self, block: BlockRef) -> [u8; 4] {
        let written = self.chunks[block.local as usize]
            .buf
            .slice(block.offset as usize, 4)
            .expect("the block holds the string just written");
        [written[0], written[1], written[2], written[3]]
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
        let Some(local) = self.own_local(location.chunk) else {
            let outbox = &mut self.rare_mut().outbox;
            if outbox.try_reserve(1).is_ok() {
                outbox.push(view);
            }
            return;
        };
        let Some(chunk) = self.chunks.get_mut(local as usize) else {
            return;
        };
        let (len, offset) = (view.len(), location.offset as usize);
        let current = self.current == Some(local);
        let usage = &mut self.usage;
        match &mut chunk.kind {
            Kind::Ordinary(blocks) => {
                let (class, block) = size_class(len);
                if block > DEDICATED_THRESHOLD || !blocks.is_live_block(offset, block) {
                    return;
                }
                usage.used = usage.used.saturating_sub(block);
                usage.string_bytes = usage.string_bytes.saturating_sub(len);
                // The last block carved in the current chunk goes back to its tail
                // (when no share pins that tail): an array that dies releases its
                // strings one by one, and a small one then needs no free list.
                if offset + block == blocks.carved()
                    && current
                    && Arc::strong_count(&chunk.buf) == 1
                {
                    blocks.uncarve(offset, block);
                    return;
                }
                blocks.kill(offset, block);
                // Only the classes up to this one: a small array, whose strings NumPy
                // releases one by one as it dies, then makes no list of every class.
                let free_blocks = &mut self.rare_mut().free_blocks;
                if free_blocks.len() <= class {
                    free_blocks.resize_with(class + 1, Vec::new);
                }
                let offset = offset as u32;
                free_blocks[class].push(BlockRef { local, offset });
            }
            Kind::Dedicated { len: held } => {
                if offset == 0 && len == *held {
                    usage.used = usage.used.saturating_sub(len);
                    usage.string_bytes = usage.string_bytes.saturating_sub(len);
                    self.free_chunk(local);
                }
            }
            Kind::Packed { fill, live } => {
                let inside = offset.checked_add(len).is_some_and(|end| end <= *fill);
                let same = inside && chunk.buf.slice(offset, 4) == Some(&view.prefix()[..]);
                if same {
                    *live = live.saturating_sub(len);
                    usage.used = usage.used.saturating_sub(len);
                    usage.string_bytes = usage.string_bytes.saturating_sub(len);
                }
            }
            Kind::Free => {}
        }
    }

    /// Asks the processor for the first cache line of `view`'s long string, when it is
    /// this arena's, for a loop that reads it a few strings later: the strings of a
    /// long-string array, read in view order, are scattered over the chunks, and each
    /// read otherwise waits for memory. Nothing for any other view.
    #[inline(always)]
    pub fn prefetch(&self, view: &View) {
        // Only the first byte is looked up (`get_own` checks the whole string's bounds
        // and makes an error to drop: 1.009x the long set's `argsort` instructions).
        if let Some(location) = view.location() {
            let local = location.chunk.wrapping_sub(self.base);
            let chunk = self.chunks.get(local as usize);
            if let Some(first) = chunk.and_then(|c| c.buf.slice(location.offset as usize, 1)) {
                prefetch_line(&first[0]);
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
        // An arena without ids (span 0) has no chunks, so every view goes further.
        let local = location.chunk.wrapping_sub(self.base);
        if local >= self.span {
            return self.get_other(view, location);
        }
        self.get_own(view, location, local)
    }

    #[inline(always)]
    fn get_own<'a>(&'a self, view: &View, location: Location, local: u32) -> Result<&'a [u8]> {
        self.chunks
            .get(local as usize)
            .and_then(|chunk| chunk.buf.slice(location.offset as usize, view.len()))
            .ok_or(Error::CorruptView(*view))
    }

    /// The bytes of a view of an earlier (smaller) range of this arena, or of another
    /// arena.
    #[cold]
    fn get_other<'a>(&'a self, view: &View, location: Location) -> Result<&'a [u8]> {
        match self.ranges.local_of(location.chunk) {
            Some(local) => self.get_own(view, location, local),
            None => self.get_foreign(view, location),
        }
    }

    /// Whether [`Arena::release`] of `view` is this arena's to apply: an inline string
    /// or a missing value (nothing to release), or a long view naming one of this
    /// arena's chunks (proven and applied at once). Any other is passed on to its owner
    /// when a write guard settles.
    #[inline]
    pub fn releases_here(&self, view: View) -> bool {
        view.location()
            .is_none_or(|location| self.own_local(location.chunk).is_some())
    }

    /// The local chunk index of a chunk id of one of this arena's ranges.
    #[inline]
    pub(crate) fn own_local(&self, chunk: u32) -> Option<u32> {
        let local = chunk.wrapping_sub(self.base);
        if local < self.span {
            return Some(local);
        }
        self.ranges.local_of(chunk)
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
            chunks: self.chunks.len() - self.free_locals().len(),
            ..self.usage
        }
    }

    /// Bytes of this arena's chunks that something else holds too (a copy that shares
    /// them, an Arrow export, the owner of an adopted buffer): part of
    /// [`MemoryUsage::capacity`], counted by each holder.
    pub fn shared_capacity(&self) -> usize {
        let shared = self.chunks.iter().filter(|chunk| chunk.is_shared());
        shared.map(|chunk| chunk.buf.len()).sum()
    }

    /// The base of this arena's current id range (0 while it holds no chunk): the
    /// `chunk` field of a view it writes is this plus the local chunk index (the index
    /// of the chunk in [`Arena::share_chunks`]). Views written before the arena's last
    /// chunk beyond its previous range name a smaller range of it.
    pub fn slot(&self) -> u32 {
        self.base
    }

    /// The view location of a block.
    #[inline(always)]
    fn location(&self, block: BlockRef) -> Location {
        Location {
            chunk: self.base | block.local,
            offset: block.offset,
        }
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

#[cfg(test)]
mod adopt_tests;
#[cfg(test)]
mod growth_tests;
#[cfg(test)]
mod regions_tests;
#[cfg(test)]
mod tests;

/// Asks the processor for the cache line holding `byte`, for a read a few steps later
/// (the arena's long strings, the strings of an adopted Arrow buffer).
#[inline(always)]
pub(crate) fn prefetch_line(byte: &u8) {
    // SAFETY: a prefetch reads nothing the program sees and never faults; the address is
    // that of a live byte anyway.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (byte as *const u8).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}
