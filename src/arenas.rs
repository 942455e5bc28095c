//! Locking the arenas of a loop's operands: once per call, in address order, each arena
//! once even when several operands share it (numpy-user-dtypes does the same). Inputs
//! are locked for reading, so loops that only read one array run together; an arena that
//! some output writes is locked for writing.
//!
//! Code that holds these locks never calls into Python (see `stringdtype_core::sync`):
//! errors are plain values, turned into exceptions after the locks are released.

use std::ops::Deref;

use stringdtype_core::{Arena, ArenaLock, ReadGuard, WriteGuard};

/// One locked arena.
enum Guard<'a> {
    Read(ReadGuard<'a>),
    Write(WriteGuard<'a>),
}

impl Deref for Guard<'_> {
    type Target = Arena;
    fn deref(&self) -> &Arena {
        match self {
            Guard::Read(guard) => guard,
            Guard::Write(guard) => guard,
        }
    }
}

impl Guard<'_> {
    fn as_mut(&mut self) -> &mut Arena {
        match self {
            Guard::Write(guard) => guard,
            Guard::Read(_) => unreachable!("only outputs' arenas are written"),
        }
    }
}

/// The locked arenas of up to six operands.
pub struct ArenaLocks<'a> {
    /// The guards, in lock order; `None` past the last.
    guards: [Option<Guard<'a>>; 6],
    /// For each operand, the index of its guard.
    slot: [usize; 6],
    operands: usize,
}

/// The locked arenas of a loop's operands, for reading, while another one (the output's)
/// may be written: see [`ArenaLocks::split`].
pub struct Readers<'g, 'a> {
    left: &'g [Option<Guard<'a>>],
    right: &'g [Option<Guard<'a>>],
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

impl<'a> ArenaLocks<'a> {
    /// Locks the arenas of `operands` (at most six): those before `first_output` for
    /// reading, the others for writing.
    pub fn new(operands: &[&'a ArenaLock], first_output: usize) -> ArenaLocks<'a> {
        assert!(operands.len() <= 6, "at most six operands");
        let address = |i: usize| operands[i] as *const ArenaLock as usize;
        let mut order = [0, 1, 2, 3, 4, 5];
        let order = &mut order[..operands.len()];
        order.sort_unstable_by_key(|&i| address(i));
        let mut guards: [Option<Guard<'a>>; 6] = Default::default();
        let mut slot = [0; 6];
        let mut locked = 0;
        let mut start = 0;
        // Each run of operands with the same arena takes one guard.
        while start < order.len() {
            let end = start
                + order[start..]
                    .iter()
                    .take_while(|&&i| address(i) == address(order[start]))
                    .count();
            let lock = operands[order[start]];
            let written = order[start..end].iter().any(|&i| i >= first_output);
            guards[locked] = Some(if written {
                Guard::Write(lock.write())
            } else {
                Guard::Read(lock.read())
            });
            for &i in &order[start..end] {
                slot[i] = locked;
            }
            locked += 1;
            start = end;
        }
        ArenaLocks {
            guards,
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
        self.guards[self.slot[i]].as_deref().expect("locked")
    }

    /// The arena of operand `i`, an output, for writing.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Arena {
        self.guards[self.slot[i]].as_mut().expect("locked").as_mut()
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
        Some((readers, writer.as_mut().expect("locked").as_mut()))
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
        let slot = self.slot;
        let mut by_guard: Vec<Option<&mut Guard<'a>>> =
            self.guards.iter_mut().map(Option::as_mut).collect();
        let writers = std::array::from_fn(|k| {
            by_guard[slot[NIN + k]]
                .take()
                .expect("an output's own guard")
                .as_mut()
        });
        let by_guard: Vec<Option<&Guard<'a>>> =
            by_guard.into_iter().map(|g| g.map(|g| &*g)).collect();
        let readers = std::array::from_fn(|k| &**by_guard[slot[k]].expect("an input's guard"));
        Some((readers, writers))
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
}
