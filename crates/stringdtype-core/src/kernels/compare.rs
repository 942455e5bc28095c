//! Comparisons: the total order of strings, decided from the 16-byte views when possible.
//!
//! UTF-8 byte order is code point order, so strings compare as byte strings. Two views
//! usually differ in their first four bytes, which every view carries (zero padded) right
//! after the length: read big-endian, that prefix orders like the bytes themselves, and a
//! zero pad orders a shorter string first, as it should. When both strings are inline the
//! whole 12 data bytes decide the same way. Only long strings with equal prefixes need
//! their bytes, which the caller fetches lazily (from an arena or a scalar operand).

use std::cmp::Ordering;

use crate::view::View;

/// One of the six comparison ufuncs, so that one loop serves all six.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

impl Comparison {
    /// The name of the comparison (NumPy's ufunc, Python's `operator` function).
    pub const fn name(self) -> &'static str {
        match self {
            Comparison::Equal => "equal",
            Comparison::NotEqual => "not_equal",
            Comparison::Less => "less",
            Comparison::LessEqual => "less_equal",
            Comparison::Greater => "greater",
            Comparison::GreaterEqual => "greater_equal",
        }
    }

    /// Whether `a op b` holds when `a.cmp(b)` is `ordering`.
    #[inline]
    pub fn holds(self, ordering: Ordering) -> bool {
        match self {
            Comparison::Equal => ordering.is_eq(),
            Comparison::NotEqual => ordering.is_ne(),
            Comparison::Less => ordering.is_lt(),
            Comparison::LessEqual => ordering.is_le(),
            Comparison::Greater => ordering.is_gt(),
            Comparison::GreaterEqual => ordering.is_ge(),
        }
    }

    /// Whether the answer only depends on equality, so [`eq_views`] can decide it.
    #[inline]
    pub fn is_equality(self) -> bool {
        matches!(self, Comparison::Equal | Comparison::NotEqual)
    }

    /// `a op b` for two views, with the fastest test that answers it.
    #[inline]
    pub fn apply<'a, E>(
        self,
        a: &'a View,
        b: &'a View,
        a_bytes: impl FnOnce() -> Result<&'a [u8], E>,
        b_bytes: impl FnOnce() -> Result<&'a [u8], E>,
    ) -> Result<bool, E> {
        match self {
            Comparison::Equal => eq_views(a, b, a_bytes, b_bytes),
            Comparison::NotEqual => eq_views(a, b, a_bytes, b_bytes).map(|eq| !eq),
            _ => compare_views(a, b, a_bytes, b_bytes).map(|ord| self.holds(ord)),
        }
    }
}

/// The order of two UTF-8 strings (byte order, which is code point order).
#[inline]
pub fn compare_bytes(a: &[u8], b: &[u8]) -> Ordering {
    a.cmp(b)
}

/// The order of the strings of two views (neither missing: the caller places missing
/// values). `a_bytes` and `b_bytes` return a string's whole bytes; they are called only
/// when the views cannot decide, which needs two long strings or one long string sharing
/// its prefix with the other.
#[inline]
pub fn compare_views<'a, E>(
    a: &'a View,
    b: &'a View,
    a_bytes: impl FnOnce() -> Result<&'a [u8], E>,
    b_bytes: impl FnOnce() -> Result<&'a [u8], E>,
) -> Result<Ordering, E> {
    debug_assert!(!a.is_na() && !b.is_na());
    let prefix_a = u32::from_be_bytes(a.prefix());
    let prefix_b = u32::from_be_bytes(b.prefix());
    if prefix_a != prefix_b {
        return Ok(prefix_a.cmp(&prefix_b));
    }
    if a.is_inline() && b.is_inline() {
        return Ok(inline_data(a)
            .cmp(&inline_data(b))
            .then(a.len().cmp(&b.len())));
    }
    compare_long(a_bytes, b_bytes)
}

/// The 12 inline data bytes as one big-endian integer (zero padding orders short first).
#[inline]
fn inline_data(view: &View) -> u128 {
    // Big-endian puts the length (bytes 0..4) on top; shifting drops it.
    u128::from_be_bytes(view.to_bytes()) << 32
}

#[cold]
fn compare_long<'a, E>(
    a_bytes: impl FnOnce() -> Result<&'a [u8], E>,
    b_bytes: impl FnOnce() -> Result<&'a [u8], E>,
) -> Result<Ordering, E> {
    // The four-byte prefix is equal; skipping it is not worth a branch.
    Ok(compare_bytes(a_bytes()?, b_bytes()?))
}

/// Whether two views hold equal strings (neither missing). Length and prefix decide most
/// pairs, the whole view decides inline strings, and only long strings with equal length
/// and prefix call `a_bytes` and `b_bytes`.
#[inline]
pub fn eq_views<'a, E>(
    a: &'a View,
    b: &'a View,
    a_bytes: impl FnOnce() -> Result<&'a [u8], E>,
    b_bytes: impl FnOnce() -> Result<&'a [u8], E>,
) -> Result<bool, E> {
    debug_assert!(!a.is_na() && !b.is_na());
    if a.len_and_prefix() != b.len_and_prefix() {
        return Ok(false);
    }
    if a.is_inline() {
        // Inline views are zero padded, so equal strings have equal views.
        return Ok(a.as_u128() == b.as_u128());
    }
    eq_long(a_bytes, b_bytes)
}

#[cold]
fn eq_long<'a, E>(
    a_bytes: impl FnOnce() -> Result<&'a [u8], E>,
    b_bytes: impl FnOnce() -> Result<&'a [u8], E>,
) -> Result<bool, E> {
    let (a, b) = (a_bytes()?, b_bytes()?);
    Ok(a.get(4..) == b.get(4..))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Location;
    use std::convert::Infallible;

    /// A view of `s` whose long bytes the test passes alongside.
    fn view_of(s: &[u8]) -> View {
        View::try_inline(s).unwrap_or_else(|| {
            let prefix = s[..4].try_into().unwrap();
            let at = Location {
                chunk: 0,
                offset: 0,
            };
            View::long(s.len(), prefix, at).unwrap()
        })
    }

    const SAMPLES: &[&str] = &[
        "",
        "\0",
        "\0\0",
        "a",
        "a\0",
        "ab",
        "abc",
        "abcd",
        "abcd\0",
        "abcde",
        "abcdefghijkl",
        "abcdefghijkl\0",
        "abcdefghijklm",
        "abcdefghijkm",
        "abcdefghijklmn",
        "abcdz",
        "abce",
        "b",
        "é",
        "éa",
        "😀",
        "😀😀😀😀",
        "😀😀😀😀x",
        "\u{ffff}",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx1",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx2",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ];

    #[test]
    fn views_order_like_bytes() {
        for a in SAMPLES {
            for b in SAMPLES {
                let (va, vb) = (view_of(a.as_bytes()), view_of(b.as_bytes()));
                let bytes_a = || Ok::<_, Infallible>(a.as_bytes());
                let bytes_b = || Ok::<_, Infallible>(b.as_bytes());
                let want = a.as_bytes().cmp(b.as_bytes());
                assert_eq!(
                    compare_views(&va, &vb, bytes_a, bytes_b),
                    Ok(want),
                    "{a:?} {b:?}"
                );
                assert_eq!(eq_views(&va, &vb, bytes_a, bytes_b), Ok(a == b));
                assert_eq!(a.cmp(b), want, "byte order is code point order");
                for op in [
                    Comparison::Less,
                    Comparison::Equal,
                    Comparison::GreaterEqual,
                ] {
                    assert_eq!(op.apply(&va, &vb, bytes_a, bytes_b), Ok(op.holds(want)));
                }
            }
        }
    }

    #[test]
    fn short_views_never_fetch_bytes() {
        let (a, b) = (view_of(b"abc"), view_of(b"abcdefghijklmnop"));
        let never = || -> Result<&[u8], &str> { Err("fetched") };
        assert_eq!(compare_views(&a, &b, never, never), Ok(Ordering::Less));
        assert_eq!(eq_views(&a, &b, never, never), Ok(false));
        let c = view_of(b"zzzzzzzzzzzzzzzzzz");
        assert_eq!(compare_views(&b, &c, never, never), Ok(Ordering::Less));
    }

    #[test]
    fn comparison_table() {
        use Ordering::*;
        let table = [
            (Comparison::Equal, [false, true, false]),
            (Comparison::NotEqual, [true, false, true]),
            (Comparison::Less, [true, false, false]),
            (Comparison::LessEqual, [true, true, false]),
            (Comparison::Greater, [false, false, true]),
            (Comparison::GreaterEqual, [false, true, true]),
        ];
        for (op, want) in table {
            assert_eq!([op.holds(Less), op.holds(Equal), op.holds(Greater)], want);
        }
    }
}
