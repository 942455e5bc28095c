//! Locking the arenas of a loop's operands: once per call, in address order, each arena
//! once even when several operands share it (numpy-user-dtypes does the same).

use std::sync::{Mutex, MutexGuard, PoisonError};

use stringdtype_core::{Arena, View};

use crate::error::CoreResultExt;
use pyo3::PyResult;

/// The locked arenas of up to six operands.
pub struct ArenaLocks<'a> {
    /// The guards, in lock order; `None` past the last.
    guards: [Option<MutexGuard<'a, Arena>>; 6],
    /// For each operand, the index of its guard.
    slot: [usize; 6],
    operands: usize,
}

/// The locked arenas of a loop's operands, for reading, while another one (the output's)
/// may be written: see [`ArenaLocks::split`].
pub struct Readers<'g, 'a> {
    left: &'g [Option<MutexGuard<'a, Arena>>],
    right: &'g [Option<MutexGuard<'a, Arena>>],
    /// The guard index held for writing (`usize::MAX` for none).
    split: usize,
    slot: [usize; 6],
}

impl Readers<'_, '_> {
    /// The arena of operand `i` (not the one held for writing).
    #[inline]
    pub fn get(&self, i: usize) -> &Arena {
        let at = self.slot[i];
        if at < self.split {
            self.left[at].as_deref().expect("locked")
        } else {
            self.right[at - self.split - 1].as_deref().expect("locked")
        }
    }
}

/// Locks a mutex even when a panic in an earlier loop poisoned it: the arena's own
/// invariants do not depend on the interrupted operation finishing.
pub fn lock(mutex: &Mutex<Arena>) -> MutexGuard<'_, Arena> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<'a> ArenaLocks<'a> {
    /// Locks the arenas of `operands` (at most six).
    pub fn new(operands: &[&'a Mutex<Arena>]) -> ArenaLocks<'a> {
        assert!(operands.len() <= 6, "at most six operands");
        let address = |i: usize| operands[i] as *const Mutex<Arena> as usize;
        let mut order = [0, 1, 2, 3, 4, 5];
        let order = &mut order[..operands.len()];
        order.sort_unstable_by_key(|&i| address(i));
        let mut guards: [Option<MutexGuard<'a, Arena>>; 6] = Default::default();
        let mut owners = [0usize; 6];
        let mut locked = 0;
        let mut slot = [0; 6];
        for &i in order.iter() {
            match owners[..locked].iter().position(|&p| p == address(i)) {
                Some(existing) => slot[i] = existing,
                None => {
                    slot[i] = locked;
                    owners[locked] = address(i);
                    guards[locked] = Some(lock(operands[i]));
                    locked += 1;
                }
            }
        }
        ArenaLocks {
            guards,
            slot,
            operands: operands.len(),
        }
    }

    /// The arena of operand `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &Arena {
        self.guards[self.slot[i]].as_deref().expect("locked")
    }

    /// The arena of operand `i`, for writing.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Arena {
        self.guards[self.slot[i]].as_deref_mut().expect("locked")
    }

    /// The arenas of every operand for reading, and the arena of operand `write` for
    /// writing, when no other operand shares it; else `None`.
    pub fn split(&mut self, write: usize) -> Option<(Readers<'_, 'a>, &mut Arena)> {
        let at = self.slot[write];
        let shared = (0..self.operands).any(|i| i != write && self.slot[i] == at);
        if shared {
            return None;
        }
        let (left, rest) = self.guards.split_at_mut(at);
        let (writer, right) = rest.split_first_mut().expect("the writer's guard");
        let readers = Readers {
            left,
            right,
            split: at,
            slot: self.slot,
        };
        Some((readers, writer.as_deref_mut().expect("locked")))
    }

    /// The arena of each of the `N` operands, when no two operands share one.
    pub fn all_distinct<const N: usize>(&mut self) -> Option<[&mut Arena; N]> {
        // Distinct operands were given guards 0..N in lock order; `slot` says whose is whose.
        let mut seen = [false; 6];
        for &at in &self.slot[..N] {
            if std::mem::replace(&mut seen[at], true) {
                return None;
            }
        }
        let mut by_guard: Vec<Option<&mut Arena>> =
            self.guards.iter_mut().map(|g| g.as_deref_mut()).collect();
        let slot = self.slot;
        Some(std::array::from_fn(|i| {
            by_guard[slot[i]].take().expect("locked once")
        }))
    }

    /// The arenas of every operand, for reading.
    pub fn readers(&self) -> Readers<'_, 'a> {
        Readers {
            left: &self.guards,
            right: &[],
            split: usize::MAX,
            slot: self.slot,
        }
    }

    /// Copies the string `view` of operand `from` into the arena of operand `to`.
    pub fn copy_string(&mut self, from: usize, view: View, to: usize) -> PyResult<View> {
        if view.is_na() || view.is_inline() {
            // Nothing lives in an arena: the view is its own copy.
            return Ok(view);
        }
        let (a, b) = (self.slot[from], self.slot[to]);
        if a == b {
            return self.get_mut(from).duplicate(view).py();
        }
        let (source, target) = if a < b {
            let (left, right) = self.guards.split_at_mut(b);
            (left[a].as_deref(), right[0].as_deref_mut())
        } else {
            let (left, right) = self.guards.split_at_mut(a);
            (right[0].as_deref(), left[b].as_deref_mut())
        };
        let (source, target) = (source.expect("locked"), target.expect("locked"));
        let bytes = source.get(&view).py()?;
        target.store(bytes).py()
    }
}
