//! Gathering: a new arena holding the strings of some elements of an array, picked by
//! index (pandas' `take`), in one pass. NumPy's own `take` calls the dtype's copy once
//! per element, each call locking both arenas; here the source is read under one lock
//! and each long string is stored in the new arena as it comes.

use super::Arena;
use crate::error::{Error, Result};
use crate::view::View;

/// The views of `views[i]` for each `i` of `indices` (a missing value for -1), with
/// their long strings (of `source`) stored in a new arena. `indices` must lie in
/// `-1..views.len()`; any other index gives a missing value, never a panic.
pub fn gather(views: &[View], source: &Arena, indices: &[i64]) -> Result<(Vec<View>, Arena)> {
    let mut out = Vec::new();
    out.try_reserve_exact(indices.len())
        .map_err(|_| Error::OutOfMemory(0))?;
    let mut arena = Arena::new();
    for &i in indices {
        let view = usize::try_from(i)
            .ok()
            .and_then(|i| views.get(i).copied())
            .unwrap_or(View::NA);
        out.push(match view.is_inline_string() || view.is_na() {
            true => view,
            false => arena.store(source.get_long(&view)?)?,
        });
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
}
