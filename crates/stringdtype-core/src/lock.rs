//! The arena lock: an arena behind a reader-writer lock whose guards hold a fork
//! session (see [`crate::fork`]), so that loops reading one array run together and a
//! fork never copies a held lock.
//!
//! Code that holds Python's GIL for the whole life of a guard (item access, once per
//! element) locks without a session: a fork happens under the GIL, so such a guard is
//! never alive at a fork (see [`ArenaLock::write_holding_gil`]).

use std::ops::{Deref, DerefMut};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::arena::Arena;
use crate::fork::Session;

/// An arena behind a reader-writer lock: loops that only read an array's strings run
/// together; a loop that writes has the arena to itself. Every guard holds a [`Session`].
#[derive(Default)]
pub struct ArenaLock {
    lock: RwLock<Arena>,
}

/// Shared access to a locked arena.
pub struct ReadGuard<'a> {
    // Fields drop in order: the lock is released before the session ends.
    guard: RwLockReadGuard<'a, Arena>,
    _session: Option<Session>,
}

/// Exclusive access to a locked arena.
pub struct WriteGuard<'a> {
    guard: RwLockWriteGuard<'a, Arena>,
    _session: Option<Session>,
}

impl ArenaLock {
    /// A lock around an empty arena.
    pub const fn new() -> ArenaLock {
        ArenaLock {
            lock: RwLock::new(Arena::new()),
        }
    }

    /// Locks for reading. A panic in an earlier holder does not poison the arena: its
    /// invariants do not depend on an interrupted operation finishing.
    #[inline]
    pub fn read(&self) -> ReadGuard<'_> {
        self.read_in(Some(Session::enter()))
    }

    /// Locks for writing (see [`ArenaLock::read`] on poisoning), and applies releases
    /// that other arenas posted for this one.
    #[inline]
    pub fn write(&self) -> WriteGuard<'_> {
        self.write_in(Some(Session::enter()))
    }

    /// [`ArenaLock::read`] for a caller that holds Python's GIL from before this call
    /// until the guard is dropped (see [`ArenaLock::write_holding_gil`]).
    #[inline]
    pub fn read_holding_gil(&self) -> ReadGuard<'_> {
        self.read_in(None)
    }

    /// [`ArenaLock::write`] for a caller that holds Python's GIL from before this call
    /// until the guard is dropped, and saves the fork session the guard would hold.
    ///
    /// CPython forks only from a thread that holds the GIL (`os.fork`, `multiprocessing`,
    /// and `PyOS_BeforeFork` for extensions all require it; a child forked without it
    /// cannot run Python). While this guard lives its thread holds the GIL, so no fork
    /// can happen, and none ever copies this lock held. A caller that could let the GIL
    /// go while the guard lives (a loop that detaches) must use [`ArenaLock::write`].
    #[inline]
    pub fn write_holding_gil(&self) -> WriteGuard<'_> {
        self.write_in(None)
    }

    #[inline]
    fn read_in(&self, session: Option<Session>) -> ReadGuard<'_> {
        ReadGuard {
            guard: self.lock.read().unwrap_or_else(PoisonError::into_inner),
            _session: session,
        }
    }

    #[inline]
    fn write_in(&self, session: Option<Session>) -> WriteGuard<'_> {
        let mut guard = self.lock.write().unwrap_or_else(PoisonError::into_inner);
        guard.collect_mail();
        // Built only now, in the caller's place: a guard built first and then moved
        // (after `collect_mail` took its address) is copied in pieces whose sizes do
        // not match (the session flag is one byte, read back as part of a word), which
        // stalls the copy on every element of an item-by-item loop.
        WriteGuard {
            guard,
            _session: session,
        }
    }

    /// Replaces the arena by `arena` and drops the old one (after unlocking).
    pub fn replace(&self, arena: Arena) {
        let previous = std::mem::replace(&mut *self.write(), arena);
        let _session = Session::enter();
        drop(previous);
    }
}

impl Deref for ReadGuard<'_> {
    type Target = Arena;
    fn deref(&self) -> &Arena {
        &self.guard
    }
}

impl Deref for WriteGuard<'_> {
    type Target = Arena;
    fn deref(&self) -> &Arena {
        &self.guard
    }
}

impl DerefMut for WriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut Arena {
        &mut self.guard
    }
}

impl Drop for WriteGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // The only moment no borrow of the arena can be alive and the caller is done:
        // let go of chunks of other arenas that reads resolved, pass on releases.
        self.guard.settle();
    }
}

impl Drop for ArenaLock {
    fn drop(&mut self) {
        // Dropping the arena gives its chunks back to the pool and its slot to the
        // registry, both locks of the crate.
        let _session = Session::enter();
        let arena = std::mem::take(self.lock.get_mut().unwrap_or_else(PoisonError::into_inner));
        drop(arena);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_share_an_arena_and_a_writer_excludes_them() {
        let lock = ArenaLock::new();
        let r1 = lock.read();
        let r2 = lock.read();
        assert!(lock.lock.try_write().is_err());
        drop((r1, r2));
        let mut w = lock.write();
        w.store(b"a string of more than twelve bytes").unwrap();
        assert!(lock.lock.try_read().is_err());
    }
}
