//! The process-wide registry of chunk ids: every arena that holds long strings owns a
//! *range* of ids, and the `chunk` field of its views is the range's base plus a local
//! chunk index.
//!
//! A view therefore names the arena its bytes live in, whatever descriptor it arrives
//! with. An arena reads and releases directly only views of its own ranges; a view of
//! another range (an element written through a second descriptor over the same memory, a
//! copy NumPy made into a temporary array, a needle of `np.searchsorted`) is read through
//! the registry, which maps each range's chunks to weak references; its release is
//! posted to the owner, which checks and applies it.
//!
//! Ranges come in [`LEVELS`] sizes, 1, 16, 4096 and 2^20 ids, each aligned to its size
//! (so a view's id is `base | local`). A new arena takes a range of one id, enough for
//! its first chunk; when it needs more chunks it takes a range of the next size and
//! publishes all its chunks there too, keeping the smaller ranges for the views that
//! already name them. So an arena holds at most twice as many ids as it has chunks,
//! plus 16, and the 2^32 ids outlast any memory: the number of arenas is not limited.
//!
//! The id space is cut into pages of 2^20 ids, each carved into ranges of one size.
//! Page 0 is never handed out, so the chunk numbers of hand-made views (0, 1, 2, ...)
//! belong to no arena.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::error::{Error, Result};
use crate::fork::Session;
use crate::view::View;

use super::chunk::ChunkBuf;

/// Number of range sizes.
pub const LEVELS: usize = 4;
/// log2 of the number of ids in a range of each level.
const LEVEL_BITS: [u32; LEVELS] = [0, 4, 12, 20];
/// Each page of the id space holds ranges of one level.
const PAGE_BITS: u32 = 20;
const PAGES: usize = 1 << (32 - PAGE_BITS);
/// Most chunks one arena can hold at once (a range of the last level).
pub const MAX_LOCAL_CHUNKS: usize = 1 << LEVEL_BITS[LEVELS - 1];

/// The number of ids in a range of `level`.
#[inline]
pub const fn span(level: usize) -> u32 {
    1 << LEVEL_BITS[level]
}

/// An arena of this many bytes of chunks takes a range of 4096 ids, whatever its
/// number of chunks: the views written before (in smaller ranges, read through a cold
/// path) are then at most this many bytes of strings. A million such arenas hold 64 GiB,
/// and use a quarter of the ids.
pub const LARGE_ARENA: usize = 64 * 1024;

/// The level of the range for an arena of `chunks` chunks of `bytes` bytes in all: the
/// smallest that holds the chunks, and at least the third for [`LARGE_ARENA`] bytes.
pub fn level_for(chunks: usize, bytes: usize) -> Option<usize> {
    let level = (0..LEVELS).find(|&level| span(level) as usize >= chunks)?;
    Some(if bytes >= LARGE_ARENA {
        level.max(2)
    } else {
        level
    })
}

/// The ranges an arena holds: the base of its range of each level, 0 for none. Levels
/// are taken in increasing order, and the highest one held is the current range: it
/// covers every local chunk index of the arena.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ranges {
    pub bases: [u32; LEVELS],
}

impl Ranges {
    /// The local chunk index `chunk` names in one of these ranges.
    #[inline]
    pub fn local_of(&self, chunk: u32) -> Option<u32> {
        (0..LEVELS).rev().find_map(|level| {
            let base = self.bases[level];
            let local = chunk.wrapping_sub(base);
            (base != 0 && local < span(level)).then_some(local)
        })
    }

    /// The highest level held, if any.
    pub fn current(&self) -> Option<usize> {
        (0..LEVELS).rev().find(|&level| self.bases[level] != 0)
    }
}

/// The chunks of one range, by local index (the first one apart: a range of one id,
/// the common case, then needs no allocation). Every arena that holds a long string has
/// one, so the others sit behind a box (24 bytes an entry, not 40).
#[derive(Default)]
struct Entry {
    first: Weak<ChunkBuf>,
    #[allow(clippy::box_collection)] // one word where a `Vec` takes three
    more: Option<Box<Vec<Weak<ChunkBuf>>>>,
    live: bool,
}

impl Entry {
    fn chunk(&self, local: u32) -> Option<&Weak<ChunkBuf>> {
        match local {
            0 => Some(&self.first),
            _ => self.more.as_ref()?.get(local as usize - 1),
        }
    }

    fn clear(&mut self, local: u32) {
        match local {
            0 => self.first = Weak::new(),
            _ => {
                let more = self
                    .more
                    .as_mut()
                    .and_then(|more| more.get_mut(local as usize - 1));
                if let Some(chunk) = more {
                    *chunk = Weak::new();
                }
            }
        }
    }

    fn set(&mut self, local: u32, chunk: Weak<ChunkBuf>) -> Result<()> {
        if local == 0 {
            self.first = chunk;
            return Ok(());
        }
        let at = local as usize - 1;
        let more = self.reserve_more(at + 1)?;
        if more.len() <= at {
            more.resize_with(at + 1, Weak::new);
        }
        more[at] = chunk;
        Ok(())
    }

    /// The chunks after the first, with room for `len` of them.
    fn reserve_more(&mut self, len: usize) -> Result<&mut Vec<Weak<ChunkBuf>>> {
        // A fixed 24 bytes, as infallible as the `Arc` of every chunk.
        let more = self.more.get_or_insert_with(Box::default);
        more.try_reserve(len.saturating_sub(more.len()))
            .map_err(|_| Error::OutOfMemory(0))?;
        Ok(more)
    }
}

struct Page {
    level: u8,
    entries: Vec<Entry>,
}

#[derive(Default)]
struct Level {
    /// The page being carved into ranges of this level (0: none yet).
    page: u32,
    /// Ranges of this level carved so far (the most that can be free at once).
    carved: usize,
    /// Ranges given back, oldest first.
    free: VecDeque<u32>,
}

struct Registry {
    /// Page 0 stays empty.
    pages: Vec<Page>,
    levels: [Level; LEVELS],
    /// Releases posted to arenas by other arenas, by the base of the range they name.
    mail: Option<HashMap<u32, Vec<View>>>,
}

/// Ranges given back wait until this many others of their level were given back after
/// them: a view of a dead arena (kept in memory its array does not own) then names no
/// arena for a long while, instead of the next arena that would have taken the range.
const QUARANTINE: usize = 4096;

/// The quarantine of a level: [`QUARANTINE`] ranges, or 16 pages' worth of the largest
/// ones, so that ranges waiting never hold more than a few pages of the id space.
fn quarantine(level: usize) -> usize {
    QUARANTINE.min(16 << (PAGE_BITS - LEVEL_BITS[level]))
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    pages: Vec::new(),
    levels: [const {
        Level {
            page: 0,
            carved: 0,
            free: VecDeque::new(),
        }
    }; LEVELS],
    mail: None,
});

/// Counts the posts of releases (see [`has_mail`]).
static POSTED: AtomicU64 = AtomicU64::new(0);

/// Runs `f` on the locked registry, inside a fork session.
fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let _session = Session::enter();
    let mut registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut registry)
}

/// The page, entry index and local chunk index of `chunk`.
fn locate(registry: &Registry, chunk: u32) -> Option<(usize, usize, u32)> {
    let page = (chunk >> PAGE_BITS) as usize;
    let level = registry.pages.get(page)?.level as usize;
    let within = chunk & ((1 << PAGE_BITS) - 1);
    let entry = (within >> LEVEL_BITS[level]) as usize;
    Some((page, entry, within & (span(level) - 1)))
}

fn entry_mut(registry: &mut Registry, base: u32) -> Option<&mut Entry> {
    let (page, entry, _) = locate(registry, base)?;
    registry.pages[page].entries.get_mut(entry)
}

impl Registry {
    /// A range of `level` that no live arena holds.
    fn claim(&mut self, level: usize) -> Result<u32> {
        let oom = |_| Error::OutOfMemory(0);
        if self.pages.is_empty() {
            self.pages.try_reserve(PAGES).map_err(oom)?;
            self.pages.push(Page {
                level: 0,
                entries: Vec::new(),
            });
        }
        let state = &mut self.levels[level];
        if state.free.len() > quarantine(level) {
            return Ok(state.free.pop_front().expect("not empty"));
        }
        let per_page = 1usize << (PAGE_BITS - LEVEL_BITS[level]);
        let carved = self.pages[state.page as usize].entries.len();
        if state.page == 0 || carved == per_page {
            if self.pages.len() == PAGES {
                // Every page is in use: take the oldest free range, quarantined or not.
                return state.free.pop_front().ok_or(Error::ArenaFull(
                    "every chunk id is in use (arrays hold 2^32 chunks)",
                ));
            }
            state.page = self.pages.len() as u32;
            self.pages.push(Page {
                level: level as u8,
                entries: Vec::new(),
            });
        }
        let page = &mut self.pages[state.page as usize];
        // `release` must not allocate: keep room in the queue for every range carved.
        let room = (state.carved + 1).saturating_sub(state.free.len());
        state.free.try_reserve(room).map_err(oom)?;
        page.entries.try_reserve(1).map_err(oom)?;
        page.entries.push(Entry::default());
        state.carved += 1;
        let index = (page.entries.len() - 1) as u32;
        Ok((state.page << PAGE_BITS) | (index << LEVEL_BITS[level]))
    }
}

/// Takes a range of `level` for an arena, marks it live and publishes `chunks` there
/// (by local index; empty places are freed chunks). Returns the range's base.
pub(super) fn claim<'a>(
    level: usize,
    chunks: impl Iterator<Item = &'a Arc<ChunkBuf>>,
) -> Result<u32> {
    with_registry(|registry| {
        let base = registry.claim(level)?;
        let entry = entry_mut(registry, base).expect("a claimed range");
        entry.live = true;
        for (local, chunk) in chunks.enumerate() {
            if !chunk.is_empty() {
                if let Err(err) = entry.set(local as u32, Arc::downgrade(chunk)) {
                    release_range(registry, base);
                    return Err(err);
                }
            }
        }
        Ok(base)
    })
}

/// Empties the range at `base` and queues it for reuse.
fn release_range(registry: &mut Registry, base: u32) {
    let level = match locate(registry, base) {
        Some((page, _, _)) => registry.pages[page].level as usize,
        None => return,
    };
    if let Some(entry) = entry_mut(registry, base) {
        *entry = Entry::default();
    }
    if let Some(mail) = &mut registry.mail {
        mail.remove(&base);
    }
    // Room was reserved when the range was claimed.
    registry.levels[level].free.push_back(base);
}

/// Gives an arena's ranges back: their chunks can no longer be reached.
pub(super) fn release(ranges: &Ranges) {
    with_registry(|registry| {
        for &base in ranges.bases.iter().filter(|&&base| base != 0) {
            release_range(registry, base);
        }
    })
}

/// Makes chunk `local` of the range at `base` reachable by other arenas.
pub(super) fn publish(base: u32, local: u32, chunk: &Arc<ChunkBuf>) -> Result<()> {
    with_registry(|registry| match entry_mut(registry, base) {
        Some(entry) => entry.set(local, Arc::downgrade(chunk)),
        None => Ok(()),
    })
}

/// Makes chunks `local` of the range at `base` reachable by other arenas, under one
/// lock. Never allocates for locals below what [`make_room`] made room for.
pub(super) fn publish_all<'a>(base: u32, chunks: impl Iterator<Item = (u32, &'a Arc<ChunkBuf>)>) {
    with_registry(|registry| {
        if let Some(entry) = entry_mut(registry, base) {
            for (local, chunk) in chunks {
                // A chunk that cannot be published is still read by its own arena.
                let _ = entry.set(local, Arc::downgrade(chunk));
            }
        }
    })
}

/// Makes room in the range at `base` for chunks of local indices below `locals`, so
/// that publishing them later cannot fail.
pub(super) fn make_room(base: u32, locals: u32) -> Result<()> {
    with_registry(|registry| match entry_mut(registry, base) {
        Some(entry) if locals > 1 => entry.reserve_more(locals as usize - 1).map(|_| ()),
        _ => Ok(()),
    })
}

/// Makes chunk `local` unreachable in each of `ranges` (it was freed).
pub(super) fn withdraw(ranges: &Ranges, local: u32) {
    with_registry(|registry| {
        for (level, &base) in ranges.bases.iter().enumerate() {
            // A range too small for `local` never held it.
            if base == 0 || local >= span(level) {
                continue;
            }
            if let Some(entry) = entry_mut(registry, base) {
                entry.clear(local);
            }
        }
    })
}

/// The chunk a view's `chunk` field names, if its arena and the chunk are alive.
pub(super) fn resolve(chunk: u32) -> Option<Arc<ChunkBuf>> {
    with_registry(|registry| {
        let (page, entry, local) = locate(registry, chunk)?;
        registry.pages[page]
            .entries
            .get(entry)?
            .chunk(local)?
            .upgrade()
    })
}

/// Posts each view's release to the arena whose range its `chunk` field names (views of
/// no live arena are dropped).
pub(super) fn forward(views: &mut Vec<View>) {
    with_registry(|registry| {
        let mut posted = false;
        for view in views.drain(..) {
            let Some(location) = view.location() else {
                continue;
            };
            let Some((page, entry, local)) = locate(registry, location.chunk) else {
                continue;
            };
            let live = registry.pages[page]
                .entries
                .get(entry)
                .is_some_and(|e| e.live);
            if !live {
                continue;
            }
            let base = location.chunk - local;
            let mail = registry.mail.get_or_insert_with(HashMap::new);
            if mail.try_reserve(1).is_err() {
                continue;
            }
            let list = mail.entry(base).or_default();
            if list.try_reserve(1).is_ok() {
                list.push(view);
                posted = true;
            }
        }
        if posted {
            POSTED.fetch_add(1, Ordering::Release);
        }
    })
}

/// The number of posts so far: an arena that saw this number when it last took its
/// mail has none waiting (see [`take_mail`]).
#[inline]
pub(super) fn posts() -> u64 {
    POSTED.load(Ordering::Acquire)
}

/// The releases posted to `ranges`.
pub(super) fn take_mail(ranges: &Ranges) -> Vec<View> {
    with_registry(|registry| {
        let Some(mail) = &mut registry.mail else {
            return Vec::new();
        };
        let mut views = Vec::new();
        for base in ranges.bases.iter().filter(|&&base| base != 0) {
            if let Some(list) = mail.remove(base) {
                if views.is_empty() {
                    views = list;
                } else {
                    views.extend(list);
                }
            }
        }
        views
    })
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
