//! Locking the arenas of a loop's operands: once per call, in address order, each arena
//! once even when several operands share it (numpy-user-dtypes does the same).

use std::sync::{Mutex, MutexGuard, PoisonError};

use stringdtype_core::{Arena, View};

use crate::error::CoreResultExt;
use pyo3::PyResult;

/// The locked arenas of up to six operands.
pub struct ArenaLocks<'a> {
    guards: Vec<MutexGuard<'a, Arena>>,
    /// For each operand, the index of its guard.
    slot: [usize; 6],
    operands: usize,
}

/// The locked arenas of a loop's operands, for reading, while another one (the output's)
/// may be written: see [`ArenaLocks::split`].
pub struct Readers<'g, 'a> {
    left: &'g [MutexGuard<'a, Arena>],
    right: &'g [MutexGuard<'a, Arena>],
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
            &self.left[at]
        } else {
            &self.right[at - self.split - 1]
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
        let mut order: Vec<usize> = (0..operands.len()).collect();
        order.sort_by_key(|&i| operands[i] as *const Mutex<Arena> as usize);
        let mut guards: Vec<MutexGuard<'a, Arena>> = Vec::with_capacity(operands.len());
        let mut owners: Vec<*const Mutex<Arena>> = Vec::with_capacity(operands.len());
        let mut slot = [0; 6];
        for i in order {
            let ptr = operands[i] as *const Mutex<Arena>;
            match owners.iter().position(|&p| p == ptr) {
                Some(existing) => slot[i] = existing,
                None => {
                    slot[i] = guards.len();
                    owners.push(ptr);
                    guards.push(lock(operands[i]));
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
        &self.guards[self.slot[i]]
    }

    /// The arena of operand `i`, for writing.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Arena {
        &mut self.guards[self.slot[i]]
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
        Some((readers, &mut **writer))
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
        if view.is_na() {
            return Ok(View::NA);
        }
        let (a, b) = (self.slot[from], self.slot[to]);
        if a == b {
            return self.guards[a].duplicate(view).py();
        }
        let (source, target) = if a < b {
            let (left, right) = self.guards.split_at_mut(b);
            (&left[a], &mut right[0])
        } else {
            let (left, right) = self.guards.split_at_mut(a);
            (&right[0], &mut left[b])
        };
        let bytes = source.get(&view).py()?;
        target.store(bytes).py()
    }
}
