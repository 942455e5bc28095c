//! Locking the arenas of a loop's operands: once per call, in address order, each arena
//! once even when several operands share it (numpy-user-dtypes does the same). Inputs
//! are locked for reading, so loops that only read one array run together; an arena that
//! some output writes is locked for writing.
//!
//! Code that holds these locks never calls into Python (see `stringdtype_core::fork`):
//! errors are plain values, turned into exceptions after the locks are released.

use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use pyo3::ffi;
use pyo3::Python;

use stringdtype_core::lock::{hold, Hold};
use stringdtype_core::{Arena, ArenaLock, ReadGuard, WriteGuard};

/// One locked arena.
enum Guard<'a> {
    Read(ReadGuard<'a>),
    Write(WriteGuard<'a>),
}

impl Guard<'_> {
    /// The locked arena, as the pointer every later access goes through.
    fn arena_ptr(&mut self) -> *mut Arena {
        match self {
            Guard::Write(guard) => &mut **guard,
            // Never written through: `writable` is false for it.
            Guard::Read(guard) => &**guard as *const Arena as *mut Arena,
        }
    }
}

/// Whether the current thread state is per thread (CPython 3.12 on), set once when the
/// module is loaded; before 3.12 it is the GIL holder's, the same on every thread.
static THREAD_STATE_PER_THREAD: AtomicBool = AtomicBool::new(false);

/// Records what [`holds_gil`] needs to know of the running Python.
pub fn init_gil_check(py: Python<'_>) {
    THREAD_STATE_PER_THREAD.store(py.version_info() >= (3, 12), Relaxed);
}

/// Whether this thread holds the GIL, cheaply: it is asked once per call of the per-call
/// path. From 3.12 on the current thread state is this thread's, null when it does not
/// hold the GIL; before, it is the GIL holder's, which is this thread's own (its entry
/// in the GIL state API) only when this thread holds it. Neither is dereferenced.
/// `PyGILState_Check` answers too, at about twice the instructions, and answers yes on
/// every thread once a subinterpreter was created.
#[inline]
pub fn holds_gil() -> bool {
    // SAFETY: reads the thread state pointer, which needs no GIL.
    let current = unsafe { ffi::compat::PyThreadState_GetUnchecked() };
    if current.is_null() {
        return false;
    }
    // SAFETY: reads this thread's entry of the GIL state API, which needs no GIL.
    THREAD_STATE_PER_THREAD.load(Relaxed)
        || current == unsafe { ffi::PyGILState_GetThisThreadState() }
}

/// How a holder of an arena waits for the copies that run without its lock under the
/// GIL (`stringdtype_core::lock::hold`): runs `clear` holding the GIL. A thread that
/// holds it already waits for nothing (no such copy can run meanwhile); after the
/// interpreter is finalized (arrays freed at exit) no copy runs at all.
pub fn wait_for_gil(clear: &dyn Fn()) {
    // SAFETY: reads the interpreter's state, which needs no GIL.
    if holds_gil() || unsafe { ffi::Py_IsInitialized() } == 0 {
        clear();
    } else {
        crate::error::attach(|_| clear());
    }
}

/// Locks two distinct arenas in the order [`ArenaLocks::new`] uses (by address): `source`
/// for reading, `target` for writing. For a loop with one input and one output whose
/// calls are too short to pay for the general lock set (casts that NumPy calls once per
/// element). Inlined, so that its guards do not come back through memory.
#[inline(always)]
pub fn lock_pair<'a>(
    source: &'a ArenaLock,
    target: &'a ArenaLock,
) -> (ReadGuard<'a>, WriteGuard<'a>) {
    debug_assert!(!ptr::eq(source, target), "two distinct arenas");
    // Both counted before either is locked (see `holds`).
    let [from, to] = holds([Some((source, false)), Some((target, true))]);
    if ptr::from_ref(source) < ptr::from_ref(target) {
        let read = read(source, from);
        (read, write(target, to))
    } else {
        let write = write(target, to);
        (read(source, from), write)
    }
}

/// The holders' counts for locking `locks` (see `stringdtype_core::lock::hold`), or none
/// when this thread holds the GIL: nothing runs unlocked meanwhile and no fork happens,
/// so its locks take no count and no fork session.
#[inline(always)]
fn holds<'a, const N: usize>(locks: [Option<(&'a ArenaLock, bool)>; N]) -> [Option<Hold<'a>>; N] {
    if holds_gil() {
        locks.map(|_| None)
    } else {
        hold(locks)
    }
}

/// Locks `lock` for reading with its holder's count from [`holds`] (none: the GIL is
/// held).
#[inline(always)]
fn read<'a>(lock: &'a ArenaLock, hold: Option<Hold<'a>>) -> ReadGuard<'a> {
    match hold {
        Some(hold) => lock.read_held(hold),
        None => lock.read_holding_gil(),
    }
}

/// Locks `lock` for writing, as [`read`].
#[inline(always)]
fn write<'a>(lock: &'a ArenaLock, hold: Option<Hold<'a>>) -> WriteGuard<'a> {
    match hold {
        Some(hold) => lock.write_held(hold),
        None => lock.write_holding_gil(),
    }
}

/// The locked arenas of up to six operands.
///
/// Each arena is reached through a pointer taken from its guard once, when it is locked,
/// rather than through the guard on every access: the loops ask for an operand's arena
/// once per element, and every reference handed out derives from that one pointer, so
/// none invalidates another.
pub struct ArenaLocks<'a> {
    /// The guards, in lock order; `None` past the last. Only held, to be dropped with
    /// the locks: every access goes through `arenas`.
    _guards: [Option<Guard<'a>>; 6],
    /// The arena of each guard (null past the last).
    arenas: [*mut Arena; 6],
    /// Whether each guard is held for writing.
    writable: [bool; 6],
    /// For each operand, the index of its guard.
    slot: [usize; 6],
    operands: usize,
}

// SAFETY: through `&ArenaLocks` only shared references to the locked arenas are handed
// out (`get`), and an arena is read from several threads at once as under any read
// lock; the guards stay with the thread that took them.
unsafe impl Sync for ArenaLocks<'_> {}

/// The locked arenas of a loop's operands, for reading, while another one (the output's)
/// may be written: see [`ArenaLocks::split`].
pub struct Readers<'g, 'a> {
    arenas: [*mut Arena; 6],
    slot: [usize; 6],
    /// The guard index held for writing (`usize::MAX` for none).
    writer: usize,
    _locks: PhantomData<&'g ArenaLocks<'a>>,
}

// SAFETY: through `&Readers` only shared references to arenas locked for reading are
// handed out (`get` refuses the one held for writing), and an arena is read from
// several threads at once as under any read lock (a parallel loop's workers read the
// inputs while the calling thread, which holds the locks, waits for them).
unsafe impl Sync for Readers<'_, '_> {}

impl Readers<'_, '_> {
    /// The arena of operand `i` (not the one held for writing).
    #[inline]
    pub fn get(&self, i: usize) -> &Arena {
        let at = self.slot[i];
        assert!(at != self.writer, "the written arena is not a reader");
        // SAFETY: `arenas[at]` points at an arena locked by the `ArenaLocks` that this
        // borrows; the only `&mut` to an arena handed out alongside is the writer's.
        unsafe { &*self.arenas[at] }
    }
}

impl<'a> ArenaLocks<'a> {
    /// Locks the arenas of `operands` (at most six): those before `first_output` for
    /// reading, the others for writing.
    pub fn new(operands: &[&'a ArenaLock], first_output: usize) -> ArenaLocks<'a> {
        assert!(operands.len() <= 6, "at most six operands");
        let address = |i: usize| operands[i] as *const ArenaLock as usize;
        let mut order = [0, 1, 2, 3, 4, 5];
        let order = &mut order[..operands.len()];
        order.sort_unstable_by_key(|&i| address(i));
        // Each run of operands with the same arena takes one guard: first all are
        // counted as holders, then locked in order.
        let mut runs: [Option<(&'a ArenaLock, bool)>; 6] = [None; 6];
        let mut slot = [0; 6];
        let mut locked = 0;
        let mut start = 0;
        while start < order.len() {
            let end = start
                + order[start..]
                    .iter()
                    .take_while(|&&i| address(i) == address(order[start]))
                    .count();
            let written = order[start..end].iter().any(|&i| i >= first_output);
            runs[locked] = Some((operands[order[start]], written));
            for &i in &order[start..end] {
                slot[i] = locked;
            }
            locked += 1;
            start = end;
        }
        let mut holds = holds(runs);
        let mut guards: [Option<Guard<'a>>; 6] = std::array::from_fn(|at| {
            let (lock, writes) = runs[at]?;
            let hold = holds[at].take();
            Some(if writes {
                Guard::Write(write(lock, hold))
            } else {
                Guard::Read(read(lock, hold))
            })
        });
        let mut arenas = [std::ptr::null_mut(); 6];
        let mut writable = [false; 6];
        for (at, guard) in guards.iter_mut().enumerate() {
            if let Some(guard) = guard {
                arenas[at] = guard.arena_ptr();
                writable[at] = matches!(guard, Guard::Write(_));
            }
        }
        ArenaLocks {
            _guards: guards,
            arenas,
            writable,
            slot,
            operands: operands.len(),
        }
    }

    /// Locks the arenas of `operands` for reading only.
    pub fn reading(operands: &[&'a ArenaLock]) -> ArenaLocks<'a> {
        ArenaLocks::new(operands, operands.len())
    }

    /// The arena of operand `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &Arena {
        // SAFETY: the pointer of a guard that `self` holds (a slot is only ever a locked
        // guard's); `&self` keeps `get_mut` from handing out a `&mut` meanwhile.
        unsafe { &*self.arenas[self.slot[i]] }
    }

    /// The arena of operand `i`, an output, for writing.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Arena {
        let at = self.slot[i];
        assert!(self.writable[at], "only outputs' arenas are written");
        // SAFETY: as in `get`, of a guard held for writing; `&mut self` makes this
        // reference the only one.
        unsafe { &mut *self.arenas[at] }
    }

    /// The arenas of every operand for reading, and the arena of operand `write` for
    /// writing, when no other operand shares it; else `None`.
    #[inline]
    pub fn split(&mut self, write: usize) -> Option<(Readers<'_, 'a>, &mut Arena)> {
        let at = self.slot[write];
        let shared = (0..self.operands).any(|i| i != write && self.slot[i] == at);
        if shared {
            return None;
        }
        let readers = Readers {
            arenas: self.arenas,
            slot: self.slot,
            writer: at,
            _locks: PhantomData,
        };
        Some((readers, self.get_mut(write)))
    }

    /// The arenas of the `NIN` inputs for reading and of the `NOUT` outputs after them
    /// for writing, when no two outputs share an arena and no output shares an input's.
    pub fn distinct_outputs<const NIN: usize, const NOUT: usize>(
        &mut self,
    ) -> Option<([&Arena; NIN], [&mut Arena; NOUT])> {
        let outputs = &self.slot[NIN..NIN + NOUT];
        let clash = outputs
            .iter()
            .enumerate()
            .any(|(k, at)| self.slot[..NIN + k].contains(at));
        if clash {
            return None;
        }
        let (arenas, slot) = (self.arenas, self.slot);
        assert!(
            outputs.iter().all(|&at| self.writable[at]),
            "outputs are written"
        );
        // SAFETY: pointers of guards that `self` holds, borrowed mutably for the result's
        // lifetime; each output's guard is distinct from every other operand's (checked
        // above), so each `&mut` is the only reference to its arena.
        let readers = std::array::from_fn(|k| unsafe { &*arenas[slot[k]] });
        // SAFETY: as above.
        let writers = std::array::from_fn(|k| unsafe { &mut *arenas[slot[NIN + k]] });
        Some((readers, writers))
    }

    /// The arenas of every operand, for reading.
    pub fn readers(&self) -> Readers<'_, 'a> {
        Readers {
            arenas: self.arenas,
            slot: self.slot,
            writer: usize::MAX,
            _locks: PhantomData,
        }
    }
}
