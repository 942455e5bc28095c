//! Sorting strings by integer keys. A key holds 12 bytes of a string from some depth on,
//! big-endian and zero padded, in its top 96 bits; then 4 bits for how many bytes the
//! string has from that depth (0-12, or 13 for "more than 12"); then the string's
//! position in 28 bits. Sorting the keys as plain integers orders the strings by those
//! bytes, a string before the longer ones it is a prefix of, and equal strings by
//! position (a stable order). Keys that agree on everything but the position and say
//! "more than 12" are strings that agree on those 12 bytes and go on: they are sorted
//! again by their following 12 bytes. Byte order is code point order for UTF-8.

use crate::view::View;

/// How many bytes of a string one key holds.
pub const KEY_BYTES: usize = 12;

/// How many items can be sorted by keys: positions have 28 bits.
pub const MAX_ITEMS: usize = 1 << POSITION_BITS;

const POSITION_BITS: u32 = 28;

/// The length field that says the string goes on past the key's bytes.
const CONTINUES: u128 = KEY_BYTES as u128 + 1;

/// How many times the strings of a tie are keyed again before the rest of the tie is
/// sorted by comparing their remaining bytes. A tie first skips the bytes all of its
/// strings share, so each new key tells some of them apart; ties this deep are strings
/// that share ever longer prefixes in groups (paths of a deep tree), where comparisons
/// cost about what more passes over them would.
const MAX_LEVELS: usize = 10;

/// The key of the string `s` from byte `depth` on, without a position.
#[inline]
pub fn key_at(s: &[u8], depth: usize) -> u128 {
    let rest = s.get(depth..).unwrap_or(&[]);
    // Fixed-size loads where the bytes are there (a copy of a variable length is a call).
    let (data, field) = if let Some(bytes) = rest.first_chunk::<16>() {
        (u128::from_be_bytes(*bytes) >> 32 << 32, CONTINUES)
    } else if let Some(bytes) = rest.first_chunk::<KEY_BYTES>() {
        let mut padded = [0u8; 16];
        padded[..KEY_BYTES].copy_from_slice(bytes);
        let field = if rest.len() > KEY_BYTES {
            CONTINUES
        } else {
            KEY_BYTES as u128
        };
        (u128::from_be_bytes(padded), field)
    } else {
        let mut padded = [0u8; 16];
        for (slot, byte) in padded.iter_mut().zip(rest) {
            *slot = *byte;
        }
        (u128::from_be_bytes(padded), rest.len() as u128)
    };
    data | field << POSITION_BITS
}

/// A key (without a position) that sorts after the key of every string: twelve bytes
/// 0xFF, which valid UTF-8 never holds, and a length field above any string's. Missing
/// values that sort last (NaN-like ones) take it.
pub const AFTER_STRINGS: u128 = (u128::MAX >> 32 << 32) | (0xf << POSITION_BITS);

/// The key of an inline string (not a long or missing one) at depth 0, from its view
/// alone: [`key_at`] of its bytes.
#[inline]
pub fn inline_key(view: View) -> u128 {
    debug_assert!(view.is_inline_string());
    // Big-endian, the length field (bytes 0..4) is on top; the shift drops it.
    (view.as_u128().swap_bytes() << 32) | (view.len() as u128) << POSITION_BITS
}

/// The key `key` (without a position) with the position `position` (below [`MAX_ITEMS`]).
#[inline]
pub fn keyed(key: u128, position: usize) -> u128 {
    debug_assert!(
        position < MAX_ITEMS && key as u32 >> POSITION_BITS << POSITION_BITS == key as u32
    );
    key | position as u128
}

/// The position a key carries.
#[inline]
pub fn position(key: u128) -> usize {
    (key as u32 & (MAX_ITEMS as u32 - 1)) as usize
}

/// The key without its position: what orders strings (equal strings have equal ones).
#[inline]
pub fn without_position(key: u128) -> u128 {
    key >> POSITION_BITS
}

/// How [`finish_sorted`] sorts what it sorts: on one thread or several, and whether
/// equal strings must keep the order of their positions.
pub trait Sorter {
    /// Sorts `keys`: by [`without_position`], and by position among equal strings when
    /// the order is to be stable (then simply as integers).
    fn sort_keys(&self, keys: &mut [u128]);

    /// Sorts `items` by their byte strings, stably.
    fn sort_rest(&self, items: &mut [(&[u8], u128)]);
}

/// A [`Sorter`] on the calling thread.
pub struct OneThread {
    /// Whether equal strings keep the order of their positions.
    pub stable: bool,
}

impl Sorter for OneThread {
    fn sort_keys(&self, keys: &mut [u128]) {
        if self.stable {
            keys.sort_unstable();
        } else {
            keys.sort_unstable_by_key(|key| without_position(*key));
        }
    }

    fn sort_rest(&self, items: &mut [(&[u8], u128)]) {
        items.sort_by(|a, b| a.0.cmp(b.0));
    }
}

/// Finishes the order of `keys`, already sorted by `sorter`, each made by [`key_at`] (or
/// [`inline_key`]) at depth 0 and [`keyed`] with its position: every run of strings that
/// agree on their first 12 bytes and go on is sorted by what follows, reading each
/// string through `string(position)`. After it the positions are in the order of their
/// strings (equal strings by position if `sorter` is stable). The first error of
/// `string` is returned at once, leaving `keys` a permutation of itself.
pub fn finish_sorted<'a, E>(
    keys: &mut [u128],
    string: &impl Fn(usize) -> Result<&'a [u8], E>,
    sorter: &impl Sorter,
) -> Result<(), E> {
    sort_ties(keys, KEY_BYTES, MAX_LEVELS, string, sorter)
}

/// Sorts every run of `keys` (sorted as integers) whose strings agree on their first
/// `depth` bytes and go on.
fn sort_ties<'a, E>(
    keys: &mut [u128],
    depth: usize,
    levels: usize,
    string: &impl Fn(usize) -> Result<&'a [u8], E>,
    sorter: &impl Sorter,
) -> Result<(), E> {
    let mut start = 0;
    while start < keys.len() {
        let top = without_position(keys[start]);
        let end = start
            + 1
            + keys[start + 1..]
                .iter()
                .take_while(|k| without_position(**k) == top)
                .count();
        if end - start > 1 && top & 0xf == CONTINUES {
            sort_tie(&mut keys[start..end], depth, levels, string, sorter)?;
        }
        start = end;
    }
    Ok(())
}

/// Sorts `run`, whose strings agree on bytes `0..depth` and go on past them, keying
/// them again at most `levels` times.
#[cold]
fn sort_tie<'a, E>(
    run: &mut [u128],
    depth: usize,
    levels: usize,
    string: &impl Fn(usize) -> Result<&'a [u8], E>,
    sorter: &impl Sorter,
) -> Result<(), E> {
    let depth = common_prefix(run, depth, string)?;
    if levels == 0 {
        return compare_rest(run, depth, string, sorter);
    }
    let mut same = true;
    let first = key_at(string(position(run[0]))?, depth);
    for key in run.iter_mut() {
        let next = key_at(string(position(*key))?, depth);
        same &= next == first;
        *key = keyed(next, position(*key));
    }
    // Past the shared prefix the keys differ, but for equal strings.
    if !same {
        sorter.sort_keys(run);
    }
    sort_ties(run, depth + KEY_BYTES, levels - 1, string, sorter)
}

/// How many leading bytes all strings of `run` share, knowing that they share `depth`
/// and are all longer.
fn common_prefix<'a, E>(
    run: &[u128],
    depth: usize,
    string: &impl Fn(usize) -> Result<&'a [u8], E>,
) -> Result<usize, E> {
    let first = string(position(run[0]))?;
    let mut shared = first.len();
    for key in &run[1..] {
        let other = string(position(*key))?;
        let end = shared.min(other.len());
        shared = depth + mismatch(&first[depth..end], &other[depth..end]);
        if shared == depth {
            break;
        }
    }
    Ok(shared)
}

/// The length of the common prefix of `a` and `b` (of equal lengths), eight bytes at a
/// time.
fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let words = a.chunks_exact(8).zip(b.chunks_exact(8));
    for (k, (x, y)) in words.enumerate() {
        let diff =
            u64::from_le_bytes(x.try_into().unwrap()) ^ u64::from_le_bytes(y.try_into().unwrap());
        if diff != 0 {
            return 8 * k + (diff.trailing_zeros() / 8) as usize;
        }
    }
    let done = a.len() / 8 * 8;
    done + a[done..]
        .iter()
        .zip(&b[done..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Sorts `run`, whose strings agree on bytes `0..depth` (and are at least that long),
/// by comparing their bytes from `depth` on, stably.
fn compare_rest<'a, E>(
    run: &mut [u128],
    depth: usize,
    string: &impl Fn(usize) -> Result<&'a [u8], E>,
    sorter: &impl Sorter,
) -> Result<(), E> {
    let mut strings = Vec::with_capacity(run.len());
    for key in run.iter() {
        strings.push((&string(position(*key))?[depth..], *key));
    }
    sorter.sort_rest(&mut strings);
    for (slot, (_, key)) in run.iter_mut().zip(strings) {
        *slot = key;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// The positions of `strings` in sorted order by keys, as the callers use them.
    fn key_order(strings: &[Vec<u8>], stable: bool) -> Vec<usize> {
        let mut keys: Vec<u128> = strings
            .iter()
            .enumerate()
            .map(|(i, s)| keyed(key_at(s, 0), i))
            .collect();
        let sorter = OneThread { stable };
        sorter.sort_keys(&mut keys);
        finish_sorted(
            &mut keys,
            &|i| Ok::<_, Infallible>(&strings[i][..]),
            &sorter,
        )
        .unwrap();
        keys.into_iter().map(position).collect()
    }

    /// Both orders against a sort by comparison: the stable one position for position,
    /// the unstable one string for string.
    fn check(strings: &[Vec<u8>]) {
        assert_eq!(key_order(strings, true), reference(strings), "{strings:?}");
        let unstable: Vec<&Vec<u8>> = key_order(strings, false)
            .into_iter()
            .map(|i| &strings[i])
            .collect();
        let sorted: Vec<&Vec<u8>> = reference(strings)
            .into_iter()
            .map(|i| &strings[i])
            .collect();
        assert_eq!(unstable, sorted);
    }

    /// The positions in a stable sort by comparison.
    fn reference(strings: &[Vec<u8>]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..strings.len()).collect();
        order.sort_by(|&a, &b| strings[a].cmp(&strings[b]));
        order
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Strings over a few bytes (NUL and non-ASCII included), with shared prefixes of 0-150
    /// bytes and lengths around the key's multiples, so that ties go to every depth.
    fn random_strings(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
        let prefixes: Vec<Vec<u8>> = [0usize, 4, 11, 12, 13, 24, 25, 119, 120, 121, 150]
            .iter()
            .map(|&len| (0..len).map(|i| b'a' + (i % 7) as u8).collect())
            .collect();
        let alphabet = [0u8, 1, b'a', b'b', 0x7f, 0xc3, 0xa9, 0xff];
        (0..n)
            .map(|_| {
                let mut s = prefixes[rng.below(prefixes.len())].clone();
                for _ in 0..rng.below(15) {
                    s.push(alphabet[rng.below(alphabet.len())]);
                }
                s
            })
            .collect()
    }

    #[test]
    fn keys_order_as_comparison_does_at_every_depth() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for n in [0, 1, 2, 3, 10, 100, 2_000] {
            for _ in 0..20 {
                let strings = random_strings(&mut rng, n);
                check(&strings);
            }
        }
    }

    /// Prefixes nested like the paths of a deep tree: every level of keys tells only a
    /// few strings apart, so ties go past the last level to the comparisons.
    #[test]
    fn a_deep_tree_of_prefixes_goes_to_the_comparisons_and_keeps_the_order() {
        let mut rng = Rng(41);
        let mut strings = Vec::new();
        for level in 0..2 * MAX_LEVELS {
            for _ in 0..4 {
                let mut s = vec![b'a'; KEY_BYTES * level + rng.below(3)];
                for _ in 0..rng.below(20) {
                    s.push([0u8, b'a', b'b', 0xc3][rng.below(4)]);
                }
                strings.push(s);
            }
        }
        strings.extend(strings.clone());
        for _ in 0..5 {
            let mut shuffled = strings.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i + 1));
            }
            check(&shuffled);
        }
    }

    #[test]
    fn trailing_nuls_sort_after_the_shorter_string() {
        let strings: Vec<Vec<u8>> = [
            &b"ab\0"[..],
            b"ab",
            b"",
            b"\0",
            b"ab\0\0\0\0\0\0\0\0\0\0\0\0",
            b"ab\0\0\0\0\0\0\0\0\0\0",
            b"ab",
            b"ab\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0x",
        ]
        .iter()
        .map(|s| s.to_vec())
        .collect();
        check(&strings);
    }

    #[test]
    fn equal_strings_keep_their_positions() {
        let long = vec![b'z'; 300];
        let strings: Vec<Vec<u8>> = (0..50)
            .map(|i| {
                if i % 3 == 0 {
                    long.clone()
                } else {
                    b"same".to_vec()
                }
            })
            .collect();
        check(&strings);
    }

    #[test]
    fn the_first_error_is_returned_and_keys_stay_a_permutation() {
        let strings: Vec<Vec<u8>> = (0..40).map(|i| vec![b'q'; 20 + i % 2]).collect();
        let mut keys: Vec<u128> = strings
            .iter()
            .enumerate()
            .map(|(i, s)| keyed(key_at(s, 0), i))
            .collect();
        keys.sort_unstable();
        let string = |i: usize| {
            if i == 7 {
                Err("broken")
            } else {
                Ok(&strings[i][..])
            }
        };
        let failed = finish_sorted(&mut keys, &string, &OneThread { stable: true });
        assert_eq!(failed, Err("broken"));
        let mut positions: Vec<usize> = keys.into_iter().map(position).collect();
        positions.sort_unstable();
        assert_eq!(positions, (0..40).collect::<Vec<_>>());
    }

    #[test]
    fn an_inline_views_key_is_its_bytes_key() {
        let mut rng = Rng(7);
        for len in 0..=12 {
            for _ in 0..50 {
                let s: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                let view = View::try_inline(&s).unwrap();
                assert_eq!(inline_key(view), key_at(&s, 0), "{s:?}");
            }
        }
    }

    #[test]
    fn mismatch_finds_the_first_differing_byte_at_every_position() {
        for len in 0..40 {
            let a: Vec<u8> = (0..len as u8).collect();
            assert_eq!(mismatch(&a, &a), len);
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert_eq!(mismatch(&a, &b), at, "{len} {at}");
            }
        }
    }

    #[test]
    fn after_strings_sorts_after_every_string_and_is_never_a_tie_to_resolve() {
        for s in [&b""[..], b"\xf4\x8f\xbf\xbf", &[0xf4; 40], &[0xfe; 13]] {
            assert!(key_at(s, 0) | (MAX_ITEMS as u128 - 1) < AFTER_STRINGS);
        }
        assert_ne!(without_position(AFTER_STRINGS) & 0xf, CONTINUES);
        assert_eq!(position(keyed(AFTER_STRINGS, 5)), 5);
    }

    #[test]
    fn key_at_pads_with_zeros_and_says_how_much_is_left() {
        let field = |n: u128| n << POSITION_BITS;
        assert_eq!(key_at(b"", 0), 0);
        assert_eq!(key_at(b"a", 0), u128::from(b'a') << 120 | field(1));
        assert_eq!(key_at(b"a\0", 0), u128::from(b'a') << 120 | field(2));
        let s = b"abcdefghijklmnop";
        assert_eq!(
            key_at(s, 0),
            u128::from_be_bytes(*b"abcdefghijkl\0\0\0\0") | field(13)
        );
        assert_eq!(
            key_at(&s[..12], 0),
            u128::from_be_bytes(*b"abcdefghijkl\0\0\0\0") | field(12)
        );
        assert_eq!(
            key_at(s, 12),
            u128::from_be_bytes(*b"mnop\0\0\0\0\0\0\0\0\0\0\0\0") | field(4)
        );
        assert_eq!(key_at(s, 16), 0);
        assert_eq!(key_at(s, 40), 0);
        assert_eq!(
            position(keyed(key_at(&[0xff; 20], 0), MAX_ITEMS - 1)),
            MAX_ITEMS - 1
        );
    }
}
