//! The parts of an arena that an array of a few strings never uses, in one box that the
//! arena makes the first time it needs one of them: every array has an arena, so its
//! fixed size is part of every small array's cost (docs/design.md, "Small arrays").

use std::sync::{Arc, Mutex, PoisonError};

use super::registry::Ranges;
use super::{note_unshared, Arena, BlockRef, ChunkBuf};
use crate::view::View;

/// The parts of an arena that an array of a few strings does not use: every array has
/// an arena, and these were 152 of its 264 bytes (a 16-byte `OnceLock` now). Free
/// lists are made by the first release that is not the last block carved.
#[derive(Default)]
pub(super) struct Rare {
    /// Free blocks by size class (only the classes up to the largest released).
    pub(super) free_blocks: Vec<Vec<BlockRef>>,
    /// Free blocks of shared chunks, by class, waiting for the share to end.
    pub(super) parked: Vec<(usize, BlockRef)>,
    /// The value of [`super::UNSHARED`] when `parked` was last looked at.
    pub(super) parked_seen: u64,
    /// Places of freed chunks, for the next chunk.
    pub(super) free_locals: Vec<u32>,
    /// Chunks of other arenas that reads resolved, kept alive while a borrow of their
    /// bytes may be (until the next exclusive access).
    pub(super) foreign: Mutex<Vec<(u32, Arc<ChunkBuf>)>>,
    /// Releases of other arenas' views, to post to their mailboxes ([`Arena::settle`]).
    pub(super) outbox: Vec<View>,
    /// The ranges of the arena that [`Arena::share_from`] shares chunks with.
    pub(super) shared_from: Ranges,
}

impl Rare {
    /// Whether no free block of `class`, and none parked, waits to be reused.
    #[inline(always)]
    pub(super) fn none_free(&self, class: usize) -> bool {
        self.parked.is_empty() && self.free_blocks.get(class).is_none_or(Vec::is_empty)
    }

    /// See [`Arena::forget_foreign`].
    pub(super) fn forget_foreign(&mut self) {
        let cache = self
            .foreign
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if !cache.is_empty() {
            cache.clear();
            note_unshared();
        }
    }
}

impl Arena {
    /// The arena's rarely used parts, allocated on first use.
    pub(super) fn rare_mut(&mut self) -> &mut Rare {
        if self.rare.get().is_none() {
            let _ = self.rare.set(Box::default());
        }
        self.rare.get_mut().expect("set just now")
    }

    /// Places of freed chunks (none for most arenas).
    pub(super) fn free_locals(&self) -> &[u32] {
        self.rare.get().map_or(&[], |rare| &rare.free_locals)
    }

    /// The place of a freed chunk, for a new one.
    pub(super) fn pop_free_local(&mut self) -> Option<u32> {
        self.rare.get_mut()?.free_locals.pop()
    }
}
