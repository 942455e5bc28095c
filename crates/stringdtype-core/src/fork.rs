//! Locks that survive `fork()`: sessions and the gate that forks wait for.
//!
//! A lock that some thread holds when another thread forks stays locked in the child for
//! ever: the thread that would release it does not exist there. Every lock of this crate
//! (the arenas', the chunk pool's, the chunk registry's) is therefore taken inside a
//! [`Session`], and a session holds a shared *gate*. Before a fork, the forking thread
//! takes the gate exclusively ([`install_fork_handlers`] registers that with
//! `pthread_atfork`): it waits until every session in flight has ended, and no new one
//! starts until the fork is done. At the moment of the fork no lock of the crate is held
//! by anyone, so parent and child both find them all free, with consistent data behind
//! them. The wait is short because of a rule the crate keeps everywhere: code inside a
//! session never waits for Python's GIL (which the forking thread holds), only for other
//! sessions, which end on their own.
//!
//! Sessions nest: a thread that is already inside one does not touch the gate again, so
//! an arena lock taken while another is held cannot wait behind a pending fork.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::{Once, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Shared by every session, taken exclusively around `fork()`.
static GATE: RwLock<()> = RwLock::new(());

thread_local! {
    /// How many sessions this thread is inside.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// This thread's share of the gate while `DEPTH > 0`.
    static SHARE: RefCell<Option<RwLockReadGuard<'static, ()>>> = const { RefCell::new(None) };
    /// The forking thread's exclusive hold of the gate, from `prepare` to `parent`/`child`.
    static FORKING: RefCell<Option<RwLockWriteGuard<'static, ()>>> = const { RefCell::new(None) };
}

/// A stretch of code that may take the crate's locks (see the module docs). Not `Send`:
/// it must end on the thread that began it.
pub struct Session {
    _thread_bound: PhantomData<*const ()>,
}

impl Session {
    /// Enters a session, waiting while a fork is under way.
    pub fn enter() -> Session {
        // A thread that is being torn down may have lost its thread-locals; it can still
        // drop the last reference to a chunk, and must not panic doing so.
        let depth = DEPTH.try_with(Cell::get).unwrap_or(1);
        if depth == 0 {
            let share = GATE.read().unwrap_or_else(PoisonError::into_inner);
            let _ = SHARE.try_with(|slot| *slot.borrow_mut() = Some(share));
        }
        let _ = DEPTH.try_with(|d| d.set(depth + 1));
        Session {
            _thread_bound: PhantomData,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let depth = DEPTH.try_with(Cell::get).unwrap_or(1);
        let _ = DEPTH.try_with(|d| d.set(depth.saturating_sub(1)));
        if depth == 1 {
            let _ = SHARE.try_with(|slot| slot.borrow_mut().take());
        }
    }
}

/// Whether this thread is inside a session, so may hold a lock of the crate (code that
/// is must not wait for Python's GIL).
pub fn in_session() -> bool {
    DEPTH.try_with(Cell::get).unwrap_or(0) > 0
}

/// `pthread_atfork` prepare handler: waits for every session to end and holds the gate.
extern "C" fn before_fork() {
    // A fork from inside a session (only possible from foreign C code) cannot wait for
    // itself; the thread that holds the locks is the one that lives on in the child.
    if DEPTH.try_with(Cell::get).unwrap_or(1) != 0 {
        return;
    }
    let gate = GATE.write().unwrap_or_else(PoisonError::into_inner);
    let _ = FORKING.try_with(|slot| *slot.borrow_mut() = Some(gate));
}

/// `pthread_atfork` parent and child handler: lets sessions start again.
extern "C" fn after_fork() {
    let _ = FORKING.try_with(|slot| slot.borrow_mut().take());
}

/// Registers the fork handlers (once per process; later calls do nothing).
pub fn install_fork_handlers() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        #[cfg(unix)]
        {
            extern "C" {
                fn pthread_atfork(
                    prepare: Option<extern "C" fn()>,
                    parent: Option<extern "C" fn()>,
                    child: Option<extern "C" fn()>,
                ) -> std::ffi::c_int;
            }
            // SAFETY: the handlers are plain functions that live for the process and only
            // touch this module's lock and thread-locals.
            unsafe { pthread_atfork(Some(before_fork), Some(after_fork), Some(after_fork)) };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_nest_and_release_the_gate() {
        {
            let _a = Session::enter();
            let _b = Session::enter();
            assert_eq!(DEPTH.with(Cell::get), 2);
            assert!(SHARE.with_borrow(Option::is_some));
            assert!(GATE.try_write().is_err(), "a session holds the gate");
        }
        assert_eq!(DEPTH.with(Cell::get), 0);
        assert!(SHARE.with_borrow(Option::is_none));
    }

    #[test]
    fn fork_handlers_wait_for_sessions_and_release() {
        before_fork();
        assert!(GATE.try_read().is_err(), "the gate is held across the fork");
        after_fork();
        assert!(GATE.try_read().is_ok());
    }
}
