//! Hash factorization of an array's strings: each string's code (its place among the
//! distinct strings in order of first appearance) and the distinct strings themselves,
//! stored in an arena of their own. pandas' `factorize`, `unique` and `value_counts`
//! start from it.
//!
//! An inline string is its whole 16-byte view (length and zero-padded bytes), so it is
//! hashed and compared as one `u128` without reading an arena; a long string by its
//! bytes. The two kinds never equal each other (a string of up to 12 bytes is always
//! inline), so they live in two maps.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use super::Arena;
use crate::error::{Error, Result};
use crate::view::View;

/// The result of [`factorize`].
pub struct Factorized {
    /// The code of each string, -1 for a missing value.
    pub codes: Vec<i64>,
    /// The distinct strings in order of first appearance; long ones live in `arena`.
    pub uniques: Vec<View>,
    pub arena: Arena,
}

/// Factorizes the strings of `views`, whose long strings live in `source`. Missing
/// values get the code -1 when `na_sentinel`, else they are one more distinct value, in
/// its place of first appearance (a missing view in `uniques`), as pandas'
/// `factorize(use_na_sentinel=False)` orders them.
pub fn factorize(
    views: impl ExactSizeIterator<Item = View>,
    source: &Arena,
    na_sentinel: bool,
) -> Result<Factorized> {
    let oom = |_| Error::OutOfMemory(0);
    let mut codes = Vec::new();
    codes.try_reserve_exact(views.len()).map_err(oom)?;
    let mut inline: HashMap<u128, i64, RandomState> = HashMap::default();
    let mut long: HashMap<&[u8], i64, RandomState> = HashMap::default();
    let mut uniques: Vec<View> = Vec::new();
    let mut arena = Arena::new();
    let mut na_code = None;
    for view in views {
        if view.is_na() {
            let code = match na_code {
                Some(code) => code,
                None if na_sentinel => -1,
                None => {
                    uniques.try_reserve(1).map_err(oom)?;
                    uniques.push(View::NA);
                    *na_code.insert(uniques.len() as i64 - 1)
                }
            };
            codes.push(code);
            continue;
        }
        let next = uniques.len() as i64;
        let (code, bytes) = if view.is_inline() {
            grow(&mut inline)?;
            (*inline.entry(view.as_u128()).or_insert(next), None)
        } else {
            grow(&mut long)?;
            let bytes = source.get_long(&view)?;
            (*long.entry(bytes).or_insert(next), Some(bytes))
        };
        if code == next {
            uniques.try_reserve(1).map_err(oom)?;
            uniques.push(match bytes {
                None => view,
                Some(bytes) => arena.store(bytes)?,
            });
        }
        codes.push(code);
    }
    Ok(Factorized {
        codes,
        uniques,
        arena,
    })
}

/// Room for one more entry in `map`, allocated fallibly (doubling, as the map would).
#[inline]
fn grow<K: std::hash::Hash + Eq>(map: &mut HashMap<K, i64, RandomState>) -> Result<()> {
    if map.len() == map.capacity() {
        map.try_reserve(map.len().max(64))
            .map_err(|_| Error::OutOfMemory(0))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: &[Option<&str>]) -> (Vec<View>, Arena) {
        let mut arena = Arena::new();
        let views = values
            .iter()
            .map(|v| match v {
                Some(s) => arena.store(s.as_bytes()).unwrap(),
                None => View::NA,
            })
            .collect();
        (views, arena)
    }

    #[test]
    fn codes_in_order_of_first_appearance() {
        let long = "a string of more than twelve bytes";
        let values = [
            Some("b"),
            Some(long),
            None,
            Some(""),
            Some("b"),
            Some(long),
            Some("abcdefghijkl"),
            Some("abcdefghijklm"),
            Some(""),
            None,
            Some("abcdefghijklm"),
        ];
        let (views, source) = strings(&values);
        let result = factorize(views.iter().copied(), &source, true).unwrap();
        assert_eq!(result.codes, [0, 1, -1, 2, 0, 1, 3, 4, 2, -1, 4]);
        let got: Vec<&[u8]> = result
            .uniques
            .iter()
            .map(|v| result.arena.get(v).unwrap())
            .collect();
        let want = ["b", long, "", "abcdefghijkl", "abcdefghijklm"];
        assert_eq!(got, want.map(str::as_bytes));
    }

    #[test]
    fn missing_values_as_one_more_value_in_place() {
        let long = "a string of more than twelve bytes";
        let values = [Some("b"), None, Some(long), Some("b"), None, Some("c")];
        let (views, source) = strings(&values);
        let result = factorize(views.iter().copied(), &source, false).unwrap();
        assert_eq!(result.codes, [0, 1, 2, 0, 1, 3]);
        assert!(result.uniques[1].is_na());
        let got: Vec<Option<&[u8]>> = result
            .uniques
            .iter()
            .map(|v| (!v.is_na()).then(|| result.arena.get(v).unwrap()))
            .collect();
        assert_eq!(
            got,
            [Some(&b"b"[..]), None, Some(long.as_bytes()), Some(b"c")]
        );
        let none = factorize([View::NA, View::NA].into_iter(), &source, false).unwrap();
        assert_eq!(none.codes, [0, 0]);
        assert_eq!(none.uniques.len(), 1);
    }

    #[test]
    fn many_distinct_strings() {
        let owned: Vec<String> = (0..5000)
            .map(|i| format!("{}-{i}", "x".repeat(i % 20)))
            .collect();
        let values: Vec<Option<&str>> = owned
            .iter()
            .chain(&owned)
            .map(|s| Some(s.as_str()))
            .collect();
        let (views, source) = strings(&values);
        let result = factorize(views.iter().copied(), &source, true).unwrap();
        let want: Vec<i64> = (0..5000).chain(0..5000).collect();
        assert_eq!(result.codes, want);
        assert_eq!(result.uniques.len(), 5000);
        for (view, s) in result.uniques.iter().zip(&owned) {
            assert_eq!(result.arena.get(view).unwrap(), s.as_bytes());
        }
    }

    #[test]
    fn empty_input() {
        let result = factorize(std::iter::empty(), &Arena::new(), true).unwrap();
        assert!(result.codes.is_empty() && result.uniques.is_empty());
    }
}
