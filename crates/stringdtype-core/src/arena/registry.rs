//! The process-wide registry of arena slots: every arena that holds long strings has a
//! slot, and the `chunk` field of its views is `slot << LOCAL_BITS | local chunk index`.
//!
//! A view therefore names the arena its bytes live in, whatever descriptor it arrives
//! with. An arena reads and releases only views of its own slot; a view of another slot
//! (an element written through a second descriptor over the same memory, a copy NumPy
//! made into a temporary array, a needle of `np.searchsorted`) is read through the
//! registry, which maps each slot's chunks to weak references; its release is posted
//! to the owner's mailbox, and the owner checks and applies it. Slot 0 is never handed
//! out, so the chunk numbers of hand-made views (0, 1, 2, ...) belong to no arena.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::error::{Error, Result};
use crate::fork::Session;
use crate::view::View;

use super::chunk::ChunkBuf;

/// Bits of a view's `chunk` field that index a chunk within its arena.
pub const LOCAL_BITS: u32 = 12;
/// Most chunks one arena can hold at once.
pub const MAX_LOCAL_CHUNKS: usize = 1 << LOCAL_BITS;
/// Most arenas that can hold long strings at once.
pub const MAX_SLOTS: usize = (1 << (32 - LOCAL_BITS)) - 1;

/// The `chunk` field of a view of chunk `local` of the arena in `slot`.
#[inline]
pub fn chunk_id(slot: u32, local: u32) -> u32 {
    (slot << LOCAL_BITS) | local
}

/// The slot and the local chunk index named by a view's `chunk` field.
#[inline]
pub fn split_id(chunk: u32) -> (u32, u32) {
    (chunk >> LOCAL_BITS, chunk & (MAX_LOCAL_CHUNKS as u32 - 1))
}

/// Releases of an arena's strings that other arenas met (an element of a temporary
/// array that NumPy wrote through this arena's descriptor, cleared under its own): the
/// owner applies them, after its own checks, the next time it is written.
#[derive(Default)]
pub(super) struct Mailbox {
    pending: AtomicBool,
    views: Mutex<Vec<View>>,
}

impl Mailbox {
    /// Whether views were posted since the last [`Mailbox::take`].
    #[inline]
    pub(super) fn has_mail(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// The views posted since the last call (cheap when there are none).
    pub(super) fn take(&self) -> Vec<View> {
        if !self.has_mail() {
            return Vec::new();
        }
        let _session = Session::enter();
        let mut views = self.views.lock().unwrap_or_else(PoisonError::into_inner);
        self.pending.store(false, Ordering::Release);
        std::mem::take(&mut *views)
    }
}

#[derive(Default)]
struct Slot {
    /// The slot's chunks, by local index.
    chunks: Vec<Weak<ChunkBuf>>,
    mailbox: Weak<Mailbox>,
}

struct Registry {
    /// Slot 0 stays empty.
    slots: Vec<Slot>,
    /// Slots given back, oldest first.
    free: VecDeque<u32>,
}

/// Slots given back wait until this many others were given back after them: a view of
/// a dead arena (kept in memory its array does not own) then names no arena for a long
/// while, instead of the next arena that would have taken the slot.
const QUARANTINE: usize = 4096;

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    slots: Vec::new(),
    free: VecDeque::new(),
});

/// Runs `f` on the locked registry, inside a fork session.
fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let _session = Session::enter();
    let mut registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut registry)
}

/// A free slot for a new arena, whose mailbox it registers.
pub(super) fn claim_slot(mailbox: &Arc<Mailbox>) -> Result<u32> {
    with_registry(|registry| {
        if registry.slots.is_empty() {
            registry.slots.push(Slot::default());
        }
        let reuse = registry.free.len() > QUARANTINE || registry.slots.len() > MAX_SLOTS;
        let slot = match reuse.then(|| registry.free.pop_front()).flatten() {
            Some(slot) => slot,
            None => {
                let slot = registry.slots.len();
                if slot > MAX_SLOTS {
                    return Err(Error::ArenaFull(
                        "at most 1,048,575 arrays hold long strings at once",
                    ));
                }
                // `free_slot` must not allocate: keep room for every slot in the queue.
                let room = (slot + 1).saturating_sub(registry.free.len());
                let oom = |_| Error::OutOfMemory(0);
                registry.free.try_reserve(room).map_err(oom)?;
                registry.slots.try_reserve(1).map_err(oom)?;
                registry.slots.push(Slot::default());
                slot as u32
            }
        };
        registry.slots[slot as usize].mailbox = Arc::downgrade(mailbox);
        Ok(slot)
    })
}

/// Gives `slot` back: its chunks can no longer be reached through the registry.
pub(super) fn free_slot(slot: u32) {
    with_registry(|registry| {
        registry.slots[slot as usize] = Slot::default();
        // Room was reserved when the slot was claimed.
        registry.free.push_back(slot);
    })
}

/// Makes chunk `local` of `slot` reachable by other arenas.
pub(super) fn publish(slot: u32, local: u32, chunk: &Arc<ChunkBuf>) -> Result<()> {
    with_registry(|registry| {
        let chunks = &mut registry.slots[slot as usize].chunks;
        let local = local as usize;
        if chunks.len() <= local {
            chunks
                .try_reserve(local + 1 - chunks.len())
                .map_err(|_| Error::OutOfMemory(0))?;
            chunks.resize_with(local + 1, Weak::new);
        }
        chunks[local] = Arc::downgrade(chunk);
        Ok(())
    })
}

/// Makes chunk `local` of `slot` unreachable (it was freed).
pub(super) fn withdraw(slot: u32, local: u32) {
    with_registry(|registry| {
        if let Some(entry) = registry.slots[slot as usize].chunks.get_mut(local as usize) {
            *entry = Weak::new();
        }
    })
}

/// The chunk a view's `chunk` field names, if its arena and the chunk are alive.
pub(super) fn resolve(chunk: u32) -> Option<Arc<ChunkBuf>> {
    let (slot, local) = split_id(chunk);
    with_registry(|registry| {
        registry
            .slots
            .get(slot as usize)?
            .chunks
            .get(local as usize)?
            .upgrade()
    })
}

/// Posts each view's release to the mailbox of the arena its `chunk` field names (views
/// of no live arena are dropped).
pub(super) fn forward(views: &mut Vec<View>) {
    with_registry(|registry| {
        for view in views.drain(..) {
            let Some(location) = view.location() else {
                continue;
            };
            let slot = split_id(location.chunk).0 as usize;
            let Some(mailbox) = registry.slots.get(slot).and_then(|s| s.mailbox.upgrade()) else {
                continue;
            };
            let mut posted = mailbox.views.lock().unwrap_or_else(PoisonError::into_inner);
            if posted.try_reserve(1).is_ok() {
                posted.push(view);
                mailbox.pending.store(true, Ordering::Release);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for (slot, local) in [(1, 0), (7, 4095), (MAX_SLOTS as u32, 3)] {
            assert_eq!(split_id(chunk_id(slot, local)), (slot, local));
        }
    }

    #[test]
    fn slots_resolve_their_live_chunks_only() {
        let mailbox = Arc::new(Mailbox::default());
        let slot = claim_slot(&mailbox).unwrap();
        assert_ne!(slot, 0);
        let chunk = Arc::new(ChunkBuf::new(64).unwrap());
        publish(slot, 3, &chunk).unwrap();
        let found = resolve(chunk_id(slot, 3)).expect("published");
        assert!(Arc::ptr_eq(&found, &chunk));
        assert!(resolve(chunk_id(slot, 2)).is_none());
        assert!(resolve(chunk_id(0, 3)).is_none(), "slot 0 is nobody's");
        withdraw(slot, 3);
        assert!(resolve(chunk_id(slot, 3)).is_none());
        publish(slot, 3, &chunk).unwrap();
        free_slot(slot);
        assert!(resolve(chunk_id(slot, 3)).is_none());
    }

    #[test]
    fn releases_are_posted_to_the_owner() {
        let mailbox = Arc::new(Mailbox::default());
        let slot = claim_slot(&mailbox).unwrap();
        let location = crate::view::Location {
            chunk: chunk_id(slot, 0),
            offset: 16,
        };
        let view = View::long(20, *b"abcd", location).unwrap();
        let nobodys = View::long(
            20,
            *b"abcd",
            crate::view::Location {
                chunk: 5,
                offset: 0,
            },
        );
        let mut outbox = vec![view, nobodys.unwrap(), View::NA];
        forward(&mut outbox);
        assert!(outbox.is_empty());
        assert_eq!(mailbox.take(), vec![view]);
        assert_eq!(mailbox.take(), vec![]);
        free_slot(slot);
    }
}
