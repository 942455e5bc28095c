//! Releasing every string of an arena at once, for the clear loop of an array that dies.
//!
//! NumPy clears every element of an array before freeing it, and the clear loop used to
//! release its strings one by one into free lists that the arena, dying right after,
//! never used (a third of the time of `a.copy()` in a loop). [`Arena::release_all`]
//! first checks, without changing anything, that the views to clear are exactly the
//! arena's live strings, each once; then it frees the chunks in bulk. Anything it cannot
//! prove (a view of another arena, a view that is not a live string, a string there
//! twice, a part of the strings only) leaves the arena alone and the caller releases
//! the views one by one as before.

use super::{Arena, Kind, FIRST_CHUNK};
use crate::view::View;

/// Long views [`Arena::release_all`] gathers before checking them (256 bytes on the stack).
const GATHER: usize = 16;

impl Arena {
    /// Releases the strings of `views` in bulk when they are exactly every live string
    /// of this arena, each once: frees every chunk and returns true. Returns false, and
    /// changes nothing, otherwise; the caller then releases each view with
    /// [`Arena::release`]. Inline strings and missing values need nothing.
    ///
    /// The proof: the long views of each chunk come in increasing order of offset (so
    /// none is there twice) and each names a live string there: in an ordinary chunk a
    /// live block starts at its offset, and there are as many views as live blocks (so
    /// every live block is some view's); a dedicated chunk's view is its one string; in
    /// a packed chunk the views lie end to end or apart inside the filled part, start
    /// with their prefix and add up to its live bytes. Arrays written by a loop or a
    /// copy hold their strings in that order; a permuted one (a sort in place,
    /// assignments through an index) does not, and takes the slow path. One bit test
    /// per string: the size check of [`Arena::release`] costs several times that, and
    /// a freed chunk needs no size.
    pub fn release_all(&mut self, views: impl Iterator<Item = View>) -> bool {
        if self.is_part() || !self.holds_exactly(views) {
            return false;
        }
        self.free_every_chunk();
        true
    }

    /// Whether `views` are exactly this arena's live strings, each once (see
    /// [`Arena::release_all`]).
    fn holds_exactly(&self, views: impl Iterator<Item = View>) -> bool {
        if self.usage.used == 0 && self.usage.string_bytes == 0 {
            // No string of its own: only another arena's view is to be released.
            return self.chunks.iter().all(|c| c.live_bytes() == 0) && {
                let mut views = views;
                views.all(|view| view.location().is_none())
            };
        }
        // Per chunk: where the next view may start, and the views (or bytes) seen.
        let mut seen: Vec<(usize, usize)> = Vec::new();
        if seen.try_reserve_exact(self.chunks.len()).is_err() {
            return false;
        }
        seen.resize(self.chunks.len(), (0, 0));
        // The long views are gathered GATHER at a time, without a branch: in a random
        // mix of inline, long and missing elements a branch on each view's kind was
        // mispredicted about once in three views, most of the time of the proof.
        let mut long = [View::EMPTY; GATHER];
        let mut gathered = 0;
        for view in views {
            long[gathered % GATHER] = view;
            gathered += view.is_long() as usize;
            if gathered == GATHER {
                if !long
                    .iter()
                    .all(|&view| self.is_next_string(view, &mut seen))
                {
                    return false;
                }
                gathered = 0;
            }
        }
        if !long[..gathered]
            .iter()
            .all(|&view| self.is_next_string(view, &mut seen))
        {
            return false;
        }
        self.chunks
            .iter()
            .zip(&seen)
            .all(|(chunk, &(_, count))| match &chunk.kind {
                Kind::Ordinary(blocks) => count == blocks.live_count(),
                Kind::Dedicated { .. } => count == 1,
                Kind::Packed { live, .. } => count == *live,
                Kind::Free => true,
            })
    }

    /// Whether the long `view` names a live string of this arena at or after where the
    /// previous view of its chunk ended (`seen`, per chunk: that end, and the views or
    /// bytes seen so far, which this counts).
    #[inline(always)]
    fn is_next_string(&self, view: View, seen: &mut [(usize, usize)]) -> bool {
        let Some(location) = view.location() else {
            return false;
        };
        let Some(local) = self.own_local(location.chunk) else {
            return false;
        };
        let (Some(chunk), Some((next, count))) = (
            self.chunks.get(local as usize),
            seen.get_mut(local as usize),
        ) else {
            return false;
        };
        let (len, offset) = (view.len(), location.offset as usize);
        let valid = match &chunk.kind {
            Kind::Ordinary(blocks) => blocks.is_live_start(offset),
            Kind::Dedicated { len: held } => offset == 0 && len == *held,
            Kind::Packed { fill, .. } => {
                let inside = offset.checked_add(len).is_some_and(|end| end <= *fill);
                inside && chunk.buf.slice(offset, 4) == Some(&view.prefix()[..])
            }
            Kind::Free => false,
        };
        if !valid || offset < *next {
            return false;
        }
        // Ordinary and dedicated chunks count views, packed ones bytes.
        (*next, *count) = match chunk.kind {
            Kind::Packed { .. } => (offset + len, *count + len),
            _ => (offset + 1, *count + 1),
        };
        true
    }

    /// Frees every chunk (no live string is left in any) and forgets the free blocks,
    /// which were in them. The next chunk is sized as a new arena's first: an arena
    /// that outlives its arrays (the one of a structured dtype's field, which every
    /// array of that dtype shares) would otherwise double its chunk size each time it
    /// is emptied.
    fn free_every_chunk(&mut self) {
        self.next_chunk = FIRST_CHUNK;
        for local in 0..self.chunks.len() {
            if !matches!(self.chunks[local].kind, Kind::Free) {
                self.free_chunk(local as u32);
            }
        }
        if let Some(rare) = self.rare.get_mut() {
            rare.free_blocks.clear();
            rare.parked.clear();
        }
        self.usage.used = 0;
        self.usage.string_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(i: usize) -> Vec<u8> {
        format!("a long string number {i:04} {}", "x".repeat(i % 40)).into_bytes()
    }

    fn filled(n: usize) -> (Arena, Vec<View>) {
        let mut arena = Arena::new();
        let views = (0..n)
            .map(|i| match i % 3 {
                0 => arena.store(b"short").unwrap(),
                _ => arena.store(&long(i)).unwrap(),
            })
            .collect();
        (arena, views)
    }

    #[test]
    fn every_string_once_frees_every_chunk() {
        let (mut arena, mut views) = filled(3000);
        views.push(View::NA);
        assert!(arena.memory_usage().chunks > 1);
        assert!(arena.release_all(views.iter().copied()));
        let usage = arena.memory_usage();
        assert_eq!((usage.capacity, usage.used, usage.string_bytes), (0, 0, 0));
        assert_eq!(usage.chunks, 0);
        // The arena stays usable, and a stale view reads no string of a freed chunk.
        let view = arena.store(&long(7)).unwrap();
        assert_eq!(arena.get(&view).unwrap(), &long(7)[..]);
        assert_eq!(arena.memory_usage().string_bytes, long(7).len());
        // A new first chunk, not the double of the last one freed.
        assert_eq!(arena.memory_usage().capacity, FIRST_CHUNK);
    }

    #[test]
    fn an_arena_of_inline_strings_only_needs_nothing() {
        let mut arena = Arena::new();
        let views = [arena.store(b"abc").unwrap(), View::NA, View::EMPTY];
        assert!(arena.release_all(views.into_iter()));
        assert_eq!(arena.memory_usage(), Arena::new().memory_usage());
    }

    #[test]
    fn anything_but_exactly_every_string_changes_nothing() {
        let (mut arena, views) = filled(600);
        let before = arena.memory_usage();
        let last_long = views.len() - 1;
        let mut twice = views.clone();
        twice[last_long] = twice[last_long - 1];
        let mut swapped = views.clone();
        swapped.swap(1, 2);
        let mut shifted = views.clone();
        let mut location = shifted[1].location().unwrap();
        location.offset += 16;
        shifted[1] = View::long(shifted[1].len(), shifted[1].prefix(), location).unwrap();
        let other = filled(3).1[1];
        let cases: [(&str, Vec<View>); 6] = [
            ("all but one", views[..last_long].to_vec()),
            ("one twice", twice),
            ("out of order", swapped),
            ("a block that is no string", shifted),
            ("another arena's view", [&views[..], &[other]].concat()),
            ("all twice", [&views[..], &views[..]].concat()),
        ];
        for (name, case) in cases {
            assert!(!arena.release_all(case.into_iter()), "{name}");
            assert_eq!(arena.memory_usage(), before, "{name}");
        }
        for view in &views[..last_long] {
            arena.release(*view);
        }
        assert!(arena.release_all([views[last_long]].into_iter()));
        assert_eq!(arena.memory_usage().chunks, 0);
    }

    #[test]
    fn after_releases_and_reuse_the_live_ones_are_enough() {
        let (mut arena, mut views) = filled(900);
        for view in views.iter_mut().skip(1).step_by(5) {
            arena.release(*view);
            *view = View::EMPTY;
        }
        // Free blocks are reused: the new strings land in holes, not in order.
        views.push(arena.store(&long(1)).unwrap());
        views.push(arena.store(&long(2)).unwrap());
        let in_order = {
            let mut live: Vec<View> = views.iter().copied().filter(|v| !v.is_inline()).collect();
            live.sort_by_key(|v| {
                let at = v.location().unwrap();
                (arena.own_local(at.chunk).unwrap(), at.offset)
            });
            live
        };
        assert!(
            !arena.release_all(views.iter().copied()),
            "holes refilled out of order"
        );
        assert!(arena.release_all(in_order.into_iter()));
        assert_eq!(arena.memory_usage().capacity, 0);
        // Nothing of the old free lists survives: new strings go to new chunks.
        let view = arena.store(&long(3)).unwrap();
        assert_eq!(arena.get(&view).unwrap(), &long(3)[..]);
    }

    #[test]
    fn packed_strings_and_a_view_there_twice() {
        let mut arena = Arena::new();
        let strings: Vec<Vec<u8>> = (0..50).map(long).collect();
        let total = strings.iter().map(Vec::len).sum();
        let mut packed = arena.packed(total);
        let views: Vec<View> = strings.iter().map(|s| packed.store(s).unwrap()).collect();
        let mut twice = views.clone();
        twice.push(views[3]);
        assert!(!arena.release_all(twice.iter().copied()));
        assert!(!arena.release_all([views[3], views[3]].into_iter()));
        let mut forged = views.clone();
        forged[3] = View::long(views[3].len(), *b"zzzz", views[3].location().unwrap()).unwrap();
        assert!(
            !arena.release_all(forged.into_iter()),
            "a packed view's prefix is checked"
        );
        assert!(arena.release_all(views.into_iter()));
        assert_eq!(arena.memory_usage().capacity, 0);
    }

    #[test]
    fn shared_chunks_after_a_copy_stay_with_the_source() {
        let (mut source, views) = filled(3000);
        let mut copy = Arena::new();
        assert!(copy.share_from(&source, views.iter().copied()).unwrap());
        let copied: Vec<View> = views
            .iter()
            .map(|&view| match copy.claim_shared(view, source.slot()) {
                Some(view) => view,
                None => copy.duplicate(view).unwrap(),
            })
            .collect();
        copy.finish_shared();
        assert!(copy.release_all(copied.iter().copied()));
        assert_eq!(copy.memory_usage().capacity, 0);
        // The copy's ids are withdrawn: a stale view of it names no live chunk.
        assert!(source.get(&copied[1]).is_err());
        // The source still reads every string, and can release them all in turn.
        for (view, i) in views.iter().zip(0..) {
            if i % 3 != 0 {
                assert_eq!(source.get(view).unwrap(), &long(i)[..]);
            }
        }
        assert!(source.release_all(views.into_iter()));
    }

    #[test]
    fn a_part_of_a_copy_or_the_source_changes_nothing() {
        let (mut source, views) = filled(3000);
        let mut copy = Arena::new();
        assert!(copy.share_from(&source, views.iter().copied()).unwrap());
        let copied: Vec<View> = views
            .iter()
            .map(|&view| copy.claim_shared(view, source.slot()).unwrap_or(view))
            .collect();
        copy.finish_shared();
        let before = copy.memory_usage();
        // The source's views name the source's range, not the copy's.
        assert!(!copy.release_all(views.iter().copied()));
        assert!(!copy.release_all(copied[..2000].iter().copied()));
        assert_eq!(copy.memory_usage(), before);
        assert!(source.release_all(views.into_iter()));
    }
}
