//! Gathering: a new arena holding the strings of some elements of an array, picked by
//! index (pandas' `take`), in one pass. NumPy's own `take` calls the dtype's copy once
//! per element, each call locking both arenas; here the source is read under one lock.
//! When the picked long strings are most of the source's (a permutation, as sorting
//! takes), the new arena shares the source's chunks and each long string takes its
//! place there ([`Arena::share_from`]) without its bytes being copied; otherwise each
//! long string is stored in the new arena as it comes.

use super::Arena;
use crate::error::{Error, Result};
use crate::view::View;

/// The views of `views[i]` for each `i` of `indices` (a missing value for -1), with
/// their long strings (of `source`) in a new arena, shared with `source` where they can
/// be. `indices` must lie in `-1..views.len()`; any other index gives a missing value,
/// never a panic.
pub fn gather(views: &[View], source: &Arena, indices: &[i64]) -> Result<(Vec<View>, Arena)> {
    let mut out = Vec::new();
    out.try_reserve_exact(indices.len())
        .map_err(|_| Error::OutOfMemory(0))?;
    // The picked views first, in one pass of random reads: sharing counts them.
    out.extend(indices.iter().map(|&i| {
        usize::try_from(i)
            .ok()
            .and_then(|i| views.get(i).copied())
            .unwrap_or(View::NA)
    }));
    let mut arena = Arena::new();
    let own = |view: &View| view.is_inline_string() || view.is_na();
    if arena.share_from(source, out.iter().copied())? {
        let from = source.slot();
        let claimed = out
            .iter_mut()
            .filter(|view| !own(view))
            .try_for_each(|view| {
                // A block claimed before (an index repeated) gets a copy of its own.
                *view = match arena.claim_shared(*view, from) {
                    Some(claimed) => claimed,
                    None => arena.store(source.get_long(view)?)?,
                };
                Ok::<_, Error>(())
            });
        arena.finish_shared();
        claimed?;
        return Ok((out, arena));
    }
    for view in out.iter_mut().filter(|view| !own(view)) {
        *view = arena.store(source.get_long(view)?)?;
    }
    Ok((out, arena))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_every_kind() {
        let mut source = Arena::new();
        let values = [
            "",
            "abcdefghijkl",
            "abcdefghijklm",
            "a long string here, in the arena",
        ];
        let mut views: Vec<View> = values
            .iter()
            .map(|s| source.store(s.as_bytes()).unwrap())
            .collect();
        views.push(View::NA);
        let (got, arena) = gather(&views, &source, &[3, 3, 0, -1, 2, 4, 1, 2, 99]).unwrap();
        drop(source);
        let text = |v: &View| (!v.is_na()).then(|| arena.get(v).unwrap().to_vec());
        let got: Vec<Option<Vec<u8>>> = got.iter().map(text).collect();
        let want = [
            Some(3),
            Some(3),
            Some(0),
            None,
            Some(2),
            None,
            Some(1),
            Some(2),
            None,
        ];
        let want: Vec<Option<Vec<u8>>> = want
            .iter()
            .map(|k| k.map(|k| values[k].as_bytes().to_vec()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn empty() {
        let (views, _) = gather(&[], &Arena::new(), &[]).unwrap();
        assert!(views.is_empty());
    }

    /// A source of 2,000 long strings of 13-100 bytes and 500 inline ones, their views
    /// and bytes.
    fn source() -> (Arena, Vec<View>, Vec<Vec<u8>>) {
        let mut arena = Arena::new();
        let strings: Vec<Vec<u8>> = (0..2500usize)
            .map(|i| {
                let len = if i % 5 == 0 { i % 13 } else { 13 + i % 88 };
                (0..len).map(|k| (i * 7 + k) as u8).collect()
            })
            .collect();
        let views = strings.iter().map(|s| arena.store(s).unwrap()).collect();
        (arena, views, strings)
    }

    /// A permutation of `n` (a fixed shuffle).
    fn permutation(n: usize) -> Vec<i64> {
        let mut order: Vec<i64> = (0..n as i64).collect();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for i in (1..n).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        order
    }

    #[test]
    fn a_permutation_shares_the_chunks_and_outlives_its_source() {
        let (mut source, views, strings) = source();
        let order = permutation(views.len());
        let (got, mut arena) = gather(&views, &source, &order).unwrap();
        assert!(arena.chunks.iter().any(|chunk| chunk.is_shared()), "shared");
        // Writes to the source after the take never reach it.
        for view in &views {
            source.release(*view);
        }
        let others: Vec<View> = (0..2000)
            .map(|i| source.store(&[b'x'; 40][..13 + i % 27]).unwrap())
            .collect();
        for (view, &i) in got.iter().zip(&order) {
            assert_eq!(arena.get(view).unwrap(), &strings[i as usize][..]);
        }
        drop((source, others));
        for (view, &i) in got.iter().zip(&order) {
            assert_eq!(arena.get(view).unwrap(), &strings[i as usize][..]);
        }
        for view in got {
            arena.release(view);
        }
        assert_eq!(arena.usage.string_bytes, 0);
    }

    #[test]
    fn repeated_indices_get_copies_of_their_own() {
        let (source, views, strings) = source();
        // Four in five of a permutation, then its first tenth again and missing values:
        // enough of the source's bytes to share, and each repeat a block claimed before.
        let mut order = permutation(views.len());
        let n = order.len();
        for k in 0..n / 5 {
            order[n - 1 - k] = if k < n / 10 { order[k] } else { -1 };
        }
        let (got, mut arena) = gather(&views, &source, &order).unwrap();
        assert!(arena.chunks.iter().any(|chunk| chunk.is_shared()), "shared");
        drop(source);
        for (view, &i) in got.iter().zip(&order) {
            match i {
                -1 => assert!(view.is_na()),
                i => assert_eq!(arena.get(view).unwrap(), &strings[i as usize][..]),
            }
        }
        // Each view holds a block of its own: releasing them all frees every string.
        for view in got {
            arena.release(view);
        }
        assert_eq!(arena.usage.string_bytes, 0);
    }
}
