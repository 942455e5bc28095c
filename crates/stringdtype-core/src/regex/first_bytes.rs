//! [`FirstBytes`]: the bytes a match of a pattern can start with, so that a string
//! holding none of them is known to have no match without running the engine.
//!
//! Most strings of a column often hold no match (`(\d+)` over names), and on short
//! strings the engine's fixed cost per search (its cache pool, start state, capture
//! slots) is most of the work. The set is computed once from the translated `Hir`, which
//! has Python's meaning (classes, case folding), with every look-around taken as
//! matching: a look only removes matches, so the set holds for Python's answer too,
//! including on the strings the engine leaves to Python. Patterns that can match the
//! empty string get no set: an empty match can be anywhere.

use regex_syntax::hir::{Class, Hir, HirKind};

/// The bytes that can start a non-empty match, as a table indexed by byte.
#[derive(Clone)]
pub(crate) struct FirstBytes {
    table: [bool; 256],
}

impl std::fmt::Debug for FirstBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes: Vec<u8> = (0..=255u8).filter(|&b| self.table[b as usize]).collect();
        f.debug_tuple("FirstBytes").field(&bytes).finish()
    }
}

impl FirstBytes {
    /// The set of `hir`, or `None` when it would not filter anything: the pattern can
    /// match the empty string, or a match can start with any byte a string holds.
    pub(crate) fn of(hir: &Hir) -> Option<FirstBytes> {
        let mut set = FirstBytes {
            table: [false; 256],
        };
        if set.add(hir) {
            return None;
        }
        // Every byte a UTF-8 string can start a character with: no filter at all.
        let all_leads = (0x00..0x80).chain(0xC2..0xF5);
        if all_leads.into_iter().all(|b| set.table[b]) {
            return None;
        }
        Some(set)
    }

    /// Adds the bytes a match of `hir` can start with; returns whether `hir` can match
    /// the empty string (then what follows it can start the match too).
    fn add(&mut self, hir: &Hir) -> bool {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(literal) => match literal.0.first() {
                Some(&b) => {
                    self.table[b as usize] = true;
                    false
                }
                None => true,
            },
            HirKind::Class(Class::Unicode(class)) => {
                for range in class.iter() {
                    let (start, end) = (lead_byte(range.start()), lead_byte(range.end()));
                    self.table[start as usize..=end as usize].fill(true);
                }
                false
            }
            HirKind::Class(Class::Bytes(class)) => {
                for range in class.iter() {
                    self.table[range.start() as usize..=range.end() as usize].fill(true);
                }
                false
            }
            HirKind::Repetition(repetition) => self.add(&repetition.sub) || repetition.min == 0,
            HirKind::Capture(capture) => self.add(&capture.sub),
            HirKind::Concat(items) => items.iter().all(|item| self.add(item)),
            // Every branch adds its bytes (no short-circuit).
            HirKind::Alternation(items) => items.iter().fold(false, |empty, item| {
                let item_empty = self.add(item);
                empty || item_empty
            }),
        }
    }

    /// Whether a match can start with `byte`.
    #[inline]
    pub(crate) fn contains(&self, byte: u8) -> bool {
        self.table[byte as usize]
    }

    /// The offset of the first byte of `haystack` that can start a match.
    #[inline]
    pub(crate) fn find(&self, haystack: &[u8]) -> Option<usize> {
        haystack.iter().position(|&b| self.table[b as usize])
    }
}

/// The first byte of `c` in UTF-8. It grows with the code point, so the characters of a
/// range start with the bytes between those of its ends (a superset: some of those bytes
/// start no character of the range, which only makes the filter weaker).
fn lead_byte(c: char) -> u8 {
    let mut buf = [0; 4];
    c.encode_utf8(&mut buf);
    buf[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_syntax::ParserBuilder;

    fn set(pattern: &str) -> Option<Vec<u8>> {
        let hir = ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(pattern)
            .unwrap();
        FirstBytes::of(&hir).map(|s| (0..=255u8).filter(|&b| s.table[b as usize]).collect())
    }

    #[test]
    fn sets_of_patterns() {
        let digits: Vec<u8> = (b'0'..=b'9').collect();
        let cases: &[(&str, Option<Vec<u8>>)] = &[
            ("[0-9]+", Some(digits.clone())),
            ("([0-9]+)", Some(digits.clone())),
            ("a|b", Some(b"ab".to_vec())),
            ("a?b", Some(b"ab".to_vec())),
            ("(?:)c", Some(b"c".to_vec())),
            (r"\bx", Some(b"x".to_vec())),
            ("^x$", Some(b"x".to_vec())),
            ("é", Some(vec![0xC3])),
            ("[é-ő]", Some(vec![0xC3, 0xC4, 0xC5])),
            ("(?-u:[\\x80-\\x81])", Some(vec![0x80, 0x81])),
            // Can match the empty string: no set.
            ("[0-9]*", None),
            ("^", None),
            ("a|", None),
            ("", None),
            // Any character: nothing to filter.
            ("(?s).", None),
            ("[^a]|a", None),
        ];
        for (pattern, expected) in cases {
            assert_eq!(&set(pattern), expected, "{pattern}");
        }
    }

    #[test]
    fn finds_the_first_candidate() {
        let hir = ParserBuilder::new().build().parse("[0-9]").unwrap();
        let set = FirstBytes::of(&hir).unwrap();
        let cases: &[(&[u8], Option<usize>)] = &[
            (b"", None),
            (b"abc", None),
            (b"ab1c2", Some(2)),
            (b"7", Some(0)),
            (b"a\0b9", Some(3)),
        ];
        for &(haystack, expected) in cases {
            assert_eq!(set.find(haystack), expected, "{haystack:?}");
        }
    }

    #[test]
    fn holds_the_bytes_of_the_set() {
        let hir = ParserBuilder::new().build().parse("[0-9]|é").unwrap();
        let set = FirstBytes::of(&hir).unwrap();
        assert!(set.contains(b'0') && set.contains(b'9') && set.contains(0xC3));
        assert!(!set.contains(b'a') && !set.contains(0) && !set.contains(0xA9));
    }

    #[test]
    fn lead_bytes_grow_with_code_points() {
        let samples = [
            '\0', 'a', '\u{7f}', '\u{80}', 'é', '\u{7ff}', '\u{800}', '€',
        ];
        let more = ['\u{ffff}', '\u{10000}', '\u{10ffff}'];
        let leads: Vec<u8> = samples.iter().chain(&more).map(|&c| lead_byte(c)).collect();
        assert!(leads.windows(2).all(|w| w[0] <= w[1]), "{leads:?}");
    }
}
