//! The process-wide registry of arena slots: every arena that holds long strings has a
//! slot, and the `chunk` field of its views is `slot << LOCAL_BITS | local chunk index`.
//!
//! A view therefore names the arena its bytes live in, whatever descriptor it arrives
//! with. An arena reads and releases only views of its own slot; a view of another slot
//! (an element written through a second descriptor over the same memory, a copy NumPy
//! made into a temporary array, a needle of `np.searchsorted`) is read through the
//! registry, which maps each slot's chunks to weak references, and is never released
//! by an arena that does not own it. Slot 0 is never handed out, so the chunk numbers
//! of hand-made views (0, 1, 2, ...) belong to no arena.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::error::{Error, Result};
use crate::sync::Session;

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

struct Registry {
    /// The chunks of each slot, by local index; slot 0 stays empty.
    slots: Vec<Vec<Weak<ChunkBuf>>>,
    /// Slots given back, for reuse.
    free: Vec<u32>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    slots: Vec::new(),
    free: Vec::new(),
});

/// Runs `f` on the locked registry, inside a fork session.
fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let _session = Session::enter();
    let mut registry = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut registry)
}

/// A free slot for a new arena.
pub(super) fn claim_slot() -> Result<u32> {
    with_registry(|registry| {
        if let Some(slot) = registry.free.pop() {
            return Ok(slot);
        }
        if registry.slots.is_empty() {
            registry.slots.push(Vec::new());
        }
        let slot = registry.slots.len();
        if slot > MAX_SLOTS {
            return Err(Error::ArenaFull);
        }
        // `free_slot` must not allocate: keep room for every slot in the free list.
        let room = (slot + 1).saturating_sub(registry.free.len());
        registry
            .free
            .try_reserve(room)
            .map_err(|_| Error::OutOfMemory(0))?;
        registry
            .slots
            .try_reserve(1)
            .map_err(|_| Error::OutOfMemory(0))?;
        registry.slots.push(Vec::new());
        Ok(slot as u32)
    })
}

/// Gives `slot` back: its chunks can no longer be reached through the registry.
pub(super) fn free_slot(slot: u32) {
    with_registry(|registry| {
        registry.slots[slot as usize].clear();
        // Room was reserved when the slot was claimed.
        registry.free.push(slot);
    })
}

/// Makes chunk `local` of `slot` reachable by other arenas.
pub(super) fn publish(slot: u32, local: u32, chunk: &Arc<ChunkBuf>) -> Result<()> {
    with_registry(|registry| {
        let chunks = &mut registry.slots[slot as usize];
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
        if let Some(entry) = registry.slots[slot as usize].get_mut(local as usize) {
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
            .get(local as usize)?
            .upgrade()
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
        let slot = claim_slot().unwrap();
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
}
