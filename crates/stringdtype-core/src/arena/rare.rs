//! The parts of an arena that an array of a few strings never uses, in one box that the
//! arena makes the first time it needs one of them: every array has an arena, so its
//! fixed size is part of every small array's cost (docs/design.md, "Small arrays").
//! Here too: what uses those parts, the reads of other arenas' views and the releases
//! posted between arenas.

use std::sync::PoisonError;

use super::registry;
use super::{note_unshared, Arena, Rare};
use crate::error::{Error, Result};
use crate::view::{Location, View};

/// Most chunks of other arenas one arena keeps resolved at once (see [`Arena::get`]).
const FOREIGN_LIMIT: usize = 1024;

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

    #[cold]
    pub(super) fn get_foreign<'a>(&'a self, view: &View, location: Location) -> Result<&'a [u8]> {
        let corrupt = || Error::CorruptView(*view);
        let rare = self.rare.get_or_init(Box::default);
        let mut cache = rare.foreign.lock().unwrap_or_else(PoisonError::into_inner);
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
    #[inline]
    pub fn settle(&mut self) {
        if let Some(rare) = self.rare.get_mut() {
            rare.forget_foreign();
            if !rare.outbox.is_empty() {
                registry::forward(&mut rare.outbox);
            }
        }
    }

    /// Applies the releases that other arenas posted for this one (each checked like
    /// any release).
    #[inline]
    pub fn collect_mail(&mut self) {
        if self.span != 0 && registry::posts() != self.mail_seen {
            self.apply_mail();
        }
    }

    #[cold]
    fn apply_mail(&mut self) {
        self.mail_seen = registry::posts();
        for view in registry::take_mail(&self.ranges) {
            self.release(view);
        }
    }

    /// Lets go of the chunks of other arenas that reads resolved.
    #[inline]
    pub fn forget_foreign(&mut self) {
        if let Some(rare) = self.rare.get_mut() {
            rare.forget_foreign();
        }
    }
}
