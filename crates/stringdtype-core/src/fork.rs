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

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;
use std::time::Duration;

/// The gate: the number of sessions in flight (threads inside at least one), and
/// [`FORKING`] while a fork is under way. One word, so that entering and leaving cost
/// one atomic operation each: sessions are entered for every lock, often once per
/// element.
static GATE: AtomicUsize = AtomicUsize::new(0);
/// The gate bit of a fork under way.
const FORKING: usize = 1 << (usize::BITS - 1);

thread_local! {
    /// How many sessions this thread is inside (it holds a share of the gate while
    /// this is not 0).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// Whether this thread set [`FORKING`] in `before_fork` (not when it forked from
    /// inside a session), so clears it after the fork.
    static HOLDS_FORK: Cell<bool> = const { Cell::new(false) };
}

/// Waits a little while the gate is in the state `busy` says: spins briefly, then yields,
/// then sleeps. Forks and sessions both end on their own, quickly.
fn wait_while(busy: impl Fn(usize) -> bool) {
    let mut rounds = 0u32;
    while busy(GATE.load(Ordering::Acquire)) {
        rounds = rounds.saturating_add(1);
        if rounds < 64 {
            std::hint::spin_loop();
        } else if rounds < 128 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

/// Takes a share of the gate, waiting while a fork is under way.
fn share_gate() {
    loop {
        if GATE.fetch_add(1, Ordering::Acquire) & FORKING == 0 {
            return;
        }
        GATE.fetch_sub(1, Ordering::Release);
        wait_while(|gate| gate & FORKING != 0);
    }
}

/// Gives a share of the gate back.
fn unshare_gate() {
    GATE.fetch_sub(1, Ordering::Release);
}

/// A stretch of code that may take the crate's locks (see the module docs). Not `Send`:
/// it must end on the thread that began it.
pub struct Session {
    _thread_bound: PhantomData<*const ()>,
}

impl Session {
    /// Enters a session, waiting while a fork is under way.
    #[inline]
    pub fn enter() -> Session {
        // A thread that is being torn down may have lost its thread-locals; it can still
        // drop the last reference to a chunk, and must not panic doing so. It then takes
        // no share of the gate (as if nested), the safe side: it does not wait for a fork.
        let _ = DEPTH.try_with(|depth| {
            let d = depth.get();
            if d == 0 {
                share_gate();
            }
            depth.set(d + 1);
        });
        Session {
            _thread_bound: PhantomData,
        }
    }
}

impl Drop for Session {
    #[inline]
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|depth| {
            let d = depth.get();
            depth.set(d.saturating_sub(1));
            if d == 1 {
                unshare_gate();
            }
        });
    }
}

/// A session of a worker thread that runs part of the work of another thread which is
/// inside a session and waits for the worker (a parallel loop): the waiting thread's
/// share of the gate already keeps forks out, so the worker takes none. Entering a
/// session of its own could deadlock: a fork under way stops new sessions and waits for
/// the waiting thread's, which waits for the worker. Not `Send`, like [`Session`].
pub struct LentSession {
    _thread_bound: PhantomData<*const ()>,
}

impl LentSession {
    /// Enters a lent session. The caller guarantees that the thread the work is done for
    /// is inside a session until this one is dropped.
    #[inline]
    pub fn enter() -> LentSession {
        let _ = DEPTH.try_with(|depth| depth.set(depth.get() + 1));
        LentSession {
            _thread_bound: PhantomData,
        }
    }
}

impl Drop for LentSession {
    #[inline]
    fn drop(&mut self) {
        let _ = DEPTH.try_with(|depth| depth.set(depth.get().saturating_sub(1)));
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
    // One fork at a time: wait for another thread's fork to finish.
    while GATE.fetch_or(FORKING, Ordering::Acquire) & FORKING != 0 {
        wait_while(|gate| gate & FORKING != 0);
    }
    wait_while(|gate| gate & !FORKING != 0);
    let _ = HOLDS_FORK.try_with(|holds| holds.set(true));
}

/// `pthread_atfork` parent and child handler: lets sessions start again.
extern "C" fn after_fork() {
    if HOLDS_FORK.try_with(|holds| holds.replace(false)) == Ok(true) {
        GATE.fetch_and(!FORKING, Ordering::Release);
    }
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
            // touch this module's gate and thread-locals.
            unsafe { pthread_atfork(Some(before_fork), Some(after_fork), Some(after_fork)) };
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate's count of sessions in flight.
    fn in_flight() -> usize {
        GATE.load(Ordering::Acquire) & !FORKING
    }

    #[test]
    fn sessions_nest_and_share_the_gate_once() {
        // Other tests of the crate run sessions on their own threads: look at this
        // thread's depth, and at the gate only through what this thread adds.
        {
            let _a = Session::enter();
            let _b = Session::enter();
            assert_eq!(DEPTH.with(Cell::get), 2);
            assert!(in_session());
            assert!(in_flight() >= 1, "a session holds a share of the gate");
        }
        assert_eq!(DEPTH.with(Cell::get), 0);
        assert!(!in_session());
    }

    #[test]
    fn sessions_inside_a_lent_one_are_nested() {
        {
            let _lent = LentSession::enter();
            assert!(in_session());
            let _inner = Session::enter();
            assert_eq!(DEPTH.with(Cell::get), 2);
        }
        assert_eq!(DEPTH.with(Cell::get), 0);
        assert!(!in_session());
    }

    #[test]
    fn a_fork_waits_for_sessions_and_holds_new_ones_back() {
        use std::sync::mpsc;
        let (entered, wait_entered) = mpsc::channel();
        let (leave, wait_leave) = mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            let _session = Session::enter();
            entered.send(()).unwrap();
            wait_leave.recv().unwrap();
        });
        wait_entered.recv().unwrap();
        let (forked, wait_forked) = mpsc::channel();
        let forker = std::thread::spawn(move || {
            before_fork();
            forked.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
            after_fork();
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            wait_forked.try_recv().is_err(),
            "the fork waits for the session"
        );
        leave.send(()).unwrap();
        holder.join().unwrap();
        wait_forked.recv().unwrap();
        // The fork holds the gate: a new session waits until it is done.
        let started = std::time::Instant::now();
        drop(Session::enter());
        assert!(started.elapsed() >= Duration::from_millis(100));
        forker.join().unwrap();
        assert_eq!(GATE.load(Ordering::Acquire) & FORKING, 0);
    }
}
