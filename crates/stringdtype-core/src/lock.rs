//! The arena lock: an arena behind a reader-writer lock whose guards hold a fork
//! session (see [`crate::fork`]), so that loops reading one array run together and a
//! fork never copies a held lock.
//!
//! Code that holds Python's GIL for the whole life of a guard (item access, once per
//! element) locks without a session: a fork happens under the GIL, so such a guard is
//! never alive at a fork (see [`ArenaLock::write_holding_gil`]).
//!
//! Code that holds the GIL may also read or write an element, and reach the arena,
//! without any lock (the per-call path of the same-dtype cast, item access reading a
//! view; [`ArenaLock::read_unlocked`], [`ArenaLock::write_unlocked`]), which is safe
//! against everyone else who holds the GIL. Against code that runs without it, each lock
//! taken with a session first counts itself as a *holder* of the arena, and then waits
//! once for the GIL when such unlocked access may be under way ([`hold`]); unlocked
//! access goes ahead only while the arena counts no holder that conflicts with it
//! ([`ArenaLock::may_read_unlocked`], [`ArenaLock::may_write_unlocked`]). See
//! docs/design.md, "The per-call path".

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::arena::Arena;
use crate::fork::{in_session, Session};

/// One holder that reads, in [`ArenaLock`]'s access word (bits 0-30).
const READER: u64 = 1;
/// One holder that writes (bits 32-62).
const WRITER: u64 = 1 << 32;
/// The holders that read.
const READERS: u64 = (1 << 31) - 1;
/// The holders that write.
const WRITERS: u64 = READERS << 32;
/// A mark of the access word: some thread holding the GIL read elements without a lock
/// since a holder last waited for the GIL.
const READ_UNLOCKED: u64 = 1 << 31;
/// A mark of the access word: elements were written without a lock.
const WRITTEN_UNLOCKED: u64 = 1 << 63;

/// How a thread waits for Python's GIL and runs a closure holding it: registered once by
/// the extension module ([`set_gil_wait`]); the crate itself knows nothing of Python.
static GIL_WAIT: OnceLock<fn(&dyn Fn())> = OnceLock::new();

/// Registers how [`hold`] waits for the GIL: `wait` must take the GIL (or keep it,
/// if the thread holds it), run its argument, and let the GIL go again. The first
/// registration stays.
pub fn set_gil_wait(wait: fn(&dyn Fn())) {
    let _ = GIL_WAIT.set(wait);
}

/// An arena behind a reader-writer lock: loops that only read an array's strings run
/// together; a loop that writes has the arena to itself. Every guard holds a [`Session`].
#[derive(Default)]
pub struct ArenaLock {
    /// Guards `arena` as an `RwLock<Arena>` would; the arena sits beside it so that a
    /// caller holding the GIL may also reach it without locking
    /// ([`ArenaLock::read_unlocked`], [`ArenaLock::write_unlocked`]).
    lock: RwLock<()>,
    arena: UnsafeCell<Arena>,
    /// One word for the holders counted by [`hold`] ([`READERS`], [`WRITERS`]) and the
    /// marks of unlocked access ([`READ_UNLOCKED`], [`WRITTEN_UNLOCKED`]): every change
    /// of it is one read-modify-write, so a holder's count and an unlocked access's mark
    /// are ordered, and the later of the two sees the earlier.
    access: AtomicU64,
}

/// Shared access to a locked arena.
pub struct ReadGuard<'a> {
    /// The arena, shared while `_guard` is held.
    arena: &'a Arena,
    // Fields drop in order: the lock is released before the session ends, and the
    // session before the holder's count.
    _guard: RwLockReadGuard<'a, ()>,
    _session: Option<Session>,
    _hold: Option<Hold<'a>>,
}

/// Exclusive access to a locked arena.
pub struct WriteGuard<'a> {
    /// The arena, this guard's alone while `_guard` is held.
    arena: &'a mut Arena,
    _guard: RwLockWriteGuard<'a, ()>,
    _session: Option<Session>,
    _hold: Option<Hold<'a>>,
}

/// One count of a holder in an arena (see [`hold`]), given back when dropped.
pub struct Hold<'a> {
    lock: &'a ArenaLock,
    weight: u64,
}

impl Drop for Hold<'_> {
    #[inline]
    fn drop(&mut self) {
        // Release: unlocked access that sees the count go down sees every write made
        // under the lock.
        self.lock.access.fetch_sub(self.weight, Ordering::Release);
    }
}

/// Counts the caller as a holder of each arena of `locks` (with `true` for one it
/// will write), then, if any of them was accessed without a lock in a way that
/// conflicts since its holders last waited, waits once for the GIL: unlocked access
/// runs whole under the GIL, so once the GIL is had none is under way, and none
/// starts while the count stands. Called before any lock or fork session is taken
/// (the GIL's holder may be waiting for either); a caller already inside a session
/// does not wait (debug builds assert that it never happens).
pub fn hold<'a, const N: usize>(
    locks: [Option<(&'a ArenaLock, bool)>; N],
) -> [Option<Hold<'a>>; N] {
    let mut conflicts = false;
    let holds = locks.map(|lock| {
        let (lock, writes) = lock?;
        let (weight, conflicting) = if writes {
            (WRITER, READ_UNLOCKED | WRITTEN_UNLOCKED)
        } else {
            (READER, WRITTEN_UNLOCKED)
        };
        // Acquire: what unlocked access wrote before its mark is seen.
        conflicts |= lock.access.fetch_add(weight, Ordering::Acquire) & conflicting != 0;
        Some(Hold { lock, weight })
    });
    if conflicts {
        wait_for_gil(&|| {
            for hold in holds.iter().flatten() {
                let marks = READ_UNLOCKED | WRITTEN_UNLOCKED;
                hold.lock.access.fetch_and(!marks, Ordering::Relaxed);
            }
        });
    }
    holds
}

/// Runs `clear` holding the GIL, through the registered wait.
#[cold]
#[inline(never)]
fn wait_for_gil(clear: &dyn Fn()) {
    debug_assert!(!in_session(), "waiting for the GIL inside a fork session");
    if let Some(wait) = GIL_WAIT.get().filter(|_| !in_session()) {
        wait(clear);
    }
}

// SAFETY: the arena is reached through the lock's guards, shared by readers and
// exclusive to a writer as in an `RwLock<Arena>`, or through `read_unlocked` and
// `write_unlocked`, whose callers keep the same rule through the GIL and the access
// word. An `Arena` may be sent to and shared between threads.
unsafe impl Sync for ArenaLock {}
const _: () = {
    const fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<Arena>();
};

impl ArenaLock {
    /// A lock around an empty arena.
    pub const fn new() -> ArenaLock {
        ArenaLock {
            lock: RwLock::new(()),
            arena: UnsafeCell::new(Arena::new()),
            access: AtomicU64::new(0),
        }
    }

    /// Locks for reading, counted as a holder (see [`hold`]). A panic in an
    /// earlier holder does not poison the arena: its invariants do not depend on an
    /// interrupted operation finishing.
    #[inline]
    pub fn read(&self) -> ReadGuard<'_> {
        let [hold] = hold([Some((self, false))]);
        self.read_in(Some(Session::enter()), hold)
    }

    /// Locks for writing, counted as a holder (see [`ArenaLock::read`] on poisoning),
    /// and applies releases that other arenas posted for this one.
    #[inline]
    pub fn write(&self) -> WriteGuard<'_> {
        let [hold] = hold([Some((self, true))]);
        self.write_in(Some(Session::enter()), hold)
    }

    /// [`ArenaLock::read`] for a caller that counted itself with [`hold`] (with
    /// the other arenas it locks).
    #[inline]
    pub fn read_held<'a>(&'a self, hold: Hold<'a>) -> ReadGuard<'a> {
        debug_assert!(std::ptr::eq(hold.lock, self));
        self.read_in(Some(Session::enter()), Some(hold))
    }

    /// [`ArenaLock::write`] for a caller that counted itself with [`hold`]. Always
    /// inlined: the per-element copy that NumPy's indexing calls (`a[mask]`) took it out
    /// of line as the crate grew (`take_mask` 1.03x-1.05x the instructions).
    #[inline(always)]
    pub fn write_held<'a>(&'a self, hold: Hold<'a>) -> WriteGuard<'a> {
        debug_assert!(std::ptr::eq(hold.lock, self) && hold.weight == WRITER);
        self.write_in(Some(Session::enter()), Some(hold))
    }

    /// Whether a caller that holds Python's GIL, and keeps it until it is done, may read
    /// elements of this arena's arrays without the lock: no holder counted for writing.
    /// Marks the arena as read without a lock, so that a writer about to lock it waits
    /// for the GIL first (see [`hold`]).
    #[inline]
    pub fn may_read_unlocked(&self) -> bool {
        self.marked(READ_UNLOCKED) & WRITERS == 0
    }

    /// Whether a caller that holds the GIL may write elements of this arena's arrays
    /// without the lock (elements that name no block of it): no holder at all. Marks
    /// the arena as written without a lock, as [`ArenaLock::may_read_unlocked`] does.
    #[inline]
    pub fn may_write_unlocked(&self) -> bool {
        self.marked(WRITTEN_UNLOCKED) & (READERS | WRITERS) == 0
    }

    /// The arena without its lock, for reading, by a caller that holds Python's GIL
    /// for as long as it uses the reference and saw [`ArenaLock::may_read_unlocked`]
    /// answer `true` while holding it. No writer is then counted, and none can lock
    /// before the caller lets the GIL go (a holder counted after the mark waits for
    /// the GIL); a thread that holds the GIL and locks without counting never keeps a
    /// guard past letting it go; readers that are counted only share the arena. So the
    /// arena is shared, as under a read guard.
    ///
    /// # Safety
    /// As above, and the caller's thread holds no [`WriteGuard`] of this arena (code
    /// holding a guard never calls back into Python, where such a caller runs).
    #[inline(always)]
    pub unsafe fn read_unlocked(&self) -> &Arena {
        // SAFETY: no `&mut` exists (above).
        unsafe { &*self.arena.get() }
    }

    /// The arena without its lock, for writing, by a caller that holds Python's GIL
    /// for as long as it uses the reference and saw [`ArenaLock::may_write_unlocked`]
    /// answer `true` while holding it: no holder at all is counted, and none can lock
    /// before the caller lets the GIL go (see [`ArenaLock::read_unlocked`]), so the
    /// arena is the caller's alone, as under a write guard. Releases that other arenas
    /// posted for this one are not applied (the next write guard applies them), and
    /// the caller must not leave anything for a guard's settling (reads of other
    /// arenas' chunks, releases of their views).
    ///
    /// # Safety
    /// As above, and the caller's thread holds no guard of this arena and no other
    /// reference from this function or [`ArenaLock::read_unlocked`].
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn write_unlocked(&self) -> &mut Arena {
        // SAFETY: no other reference exists (above).
        unsafe { &mut *self.arena.get() }
    }

    /// The access word, with `mark` set in it. A mark is set by a read-modify-write, the
    /// first time only: a holder counted later finds it, one counted earlier is in the
    /// value returned. Once it is set, a plain load does: a holder counted after the load
    /// finds the mark (until a holder clears it, which happens under the GIL, so never
    /// while this caller works).
    #[inline]
    fn marked(&self, mark: u64) -> u64 {
        let access = self.access.load(Ordering::Acquire);
        if access & mark != 0 {
            access
        } else {
            self.access.fetch_or(mark, Ordering::Acquire)
        }
    }

    /// [`ArenaLock::read`] for a caller that holds Python's GIL from before this call
    /// until the guard is dropped (see [`ArenaLock::write_holding_gil`]).
    #[inline]
    pub fn read_holding_gil(&self) -> ReadGuard<'_> {
        self.read_in(None, None)
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
        self.write_in(None, None)
    }

    #[inline]
    fn read_in<'a>(&'a self, session: Option<Session>, hold: Option<Hold<'a>>) -> ReadGuard<'a> {
        let guard = self.lock.read().unwrap_or_else(PoisonError::into_inner);
        ReadGuard {
            // SAFETY: the read lock is held for the guard's life: no `&mut` exists.
            arena: unsafe { &*self.arena.get() },
            _guard: guard,
            _session: session,
            _hold: hold,
        }
    }

    #[inline]
    fn write_in<'a>(&'a self, session: Option<Session>, hold: Option<Hold<'a>>) -> WriteGuard<'a> {
        let guard = self.lock.write().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the write lock is held for the guard's life: no other reference exists.
        let arena = unsafe { &mut *self.arena.get() };
        arena.collect_mail();
        // Built only now, in the caller's place: a guard built first and then moved
        // (after `collect_mail` took its address) is copied in pieces whose sizes do
        // not match (the session flag is one byte, read back as part of a word), which
        // stalls the copy on every element of an item-by-item loop.
        WriteGuard {
            arena,
            _guard: guard,
            _session: session,
            _hold: hold,
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
        self.arena
    }
}

impl Deref for WriteGuard<'_> {
    type Target = Arena;
    fn deref(&self) -> &Arena {
        self.arena
    }
}

impl DerefMut for WriteGuard<'_> {
    fn deref_mut(&mut self) -> &mut Arena {
        self.arena
    }
}

impl Drop for WriteGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        // The only moment no borrow of the arena can be alive and the caller is done:
        // let go of chunks of other arenas that reads resolved, pass on releases.
        self.arena.settle();
    }
}

impl Drop for ArenaLock {
    fn drop(&mut self) {
        // Dropping the arena gives its chunks back to the pool and its slot to the
        // registry, both locks of the crate.
        let _session = Session::enter();
        let arena = std::mem::take(self.arena.get_mut());
        drop(arena);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arena_without_the_lock_is_the_one_the_guards_hand_out() {
        let lock = ArenaLock::new();
        // SAFETY: no guard is alive while the references are used.
        let (read, write) = unsafe {
            (
                std::ptr::from_ref(lock.read_unlocked()),
                std::ptr::from_mut(lock.write_unlocked()),
            )
        };
        assert!(std::ptr::eq(&*lock.read(), read) && std::ptr::eq(&*lock.write(), write));
        // SAFETY: as above.
        let view = unsafe { lock.write_unlocked() }.store(b"a string past twelve bytes");
        let view = view.expect("stored");
        assert_eq!(
            lock.read().get(&view).expect("read"),
            b"a string past twelve bytes"
        );
    }

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

    #[test]
    fn unlocked_access_waits_for_no_holder_it_conflicts_with() {
        let lock = ArenaLock::new();
        assert!(lock.may_read_unlocked() && lock.may_write_unlocked());
        let reading = lock.read();
        assert!(
            lock.may_read_unlocked(),
            "readers do not conflict with a reader"
        );
        assert!(!lock.may_write_unlocked());
        drop(reading);
        let writing = lock.write();
        assert!(!lock.may_read_unlocked() && !lock.may_write_unlocked());
        drop(writing);
        assert!(lock.may_read_unlocked() && lock.may_write_unlocked());
        // Counted without a lock: held until the holds are dropped.
        let other = ArenaLock::new();
        let holds = hold([Some((&lock, false)), None, Some((&other, true))]);
        assert!(holds[1].is_none() && holds[2].as_ref().is_some_and(|h| h.weight == WRITER));
        assert!(!lock.may_write_unlocked() && !other.may_read_unlocked());
        drop(holds);
        assert!(lock.may_write_unlocked() && other.may_read_unlocked());
    }

    thread_local! {
        /// The waits of this thread (tests run on threads of their own).
        static WAITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn a_holder_waits_once_after_conflicting_unlocked_access() {
        set_gil_wait(|clear| {
            WAITS.with(|waits| waits.set(waits.get() + 1));
            clear();
        });
        let lock = ArenaLock::new();
        let waits = || WAITS.with(std::cell::Cell::get);
        let before = waits();
        drop(lock.write());
        assert_eq!(waits(), before, "no unlocked access: no wait");
        assert!(lock.may_read_unlocked());
        drop(lock.read());
        assert_eq!(waits(), before, "a reader does not wait for unlocked reads");
        drop(lock.write());
        assert_eq!(waits(), before + 1, "a writer waits for them");
        drop(lock.write());
        assert_eq!(waits(), before + 1, "once: the wait cleared the mark");
        assert!(lock.may_write_unlocked());
        drop(lock.read());
        assert_eq!(waits(), before + 2, "a reader waits for unlocked writes");
    }
}
