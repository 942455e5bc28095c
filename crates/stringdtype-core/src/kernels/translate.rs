//! `translate`: `s.translate(table)` with a table of `str.maketrans`'s kind, prepared
//! once per call ([`TranslateTable`]) and applied to each string into the caller's buffer.
//!
//! The table keeps ASCII keys in a flat array and the others in a sorted list, and marks
//! every byte that may start a mapped character (an ASCII key, or the lead byte of another
//! key's UTF-8 form): runs of other bytes are copied whole, and a string without such a
//! byte is its own result.

use super::unicode::decode_at;
use super::ArgumentError;
use crate::view::View;

/// What a character becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mapping {
    /// Itself: the character is not in the table.
    Keep,
    /// Nothing (`None` in Python's table).
    Delete,
    /// The bytes `start..end` of the table's replacement text.
    Replace { start: u32, end: u32 },
    /// An error, raised when a string holds the character (as `str.translate` raises
    /// only for a value it looks up).
    Invalid(ArgumentError),
}

/// What a table entry's value is, for [`TranslateTable::insert`].
#[derive(Clone, Copy, Debug)]
pub enum Replacement<'a> {
    /// Delete the character.
    Delete,
    /// Replace it with this text (any length, `""` included).
    Text(&'a str),
    /// A value `str.translate` refuses when it meets the character.
    Invalid(ArgumentError),
}

/// A translation table: each character's [`Mapping`], with the replacement texts in one
/// buffer.
#[derive(Clone, Debug)]
pub struct TranslateTable {
    ascii: [Mapping; 128],
    /// The non-ASCII keys, sorted by code point.
    others: Vec<(char, Mapping)>,
    /// Whether a byte may start a character in the table.
    starts: [bool; 256],
    text: Vec<u8>,
}

impl Default for TranslateTable {
    fn default() -> TranslateTable {
        TranslateTable {
            ascii: [Mapping::Keep; 128],
            others: Vec::new(),
            starts: [false; 256],
            text: Vec::new(),
        }
    }
}

impl TranslateTable {
    /// An empty table (every character kept).
    pub fn new() -> TranslateTable {
        TranslateTable::default()
    }

    /// Maps `from` to `to`, replacing an earlier mapping of `from`.
    pub fn insert(&mut self, from: char, to: Replacement<'_>) {
        let mapping = match to {
            Replacement::Delete => Mapping::Delete,
            Replacement::Invalid(error) => Mapping::Invalid(error),
            Replacement::Text(text) => {
                let start = self.text.len() as u32;
                self.text.extend_from_slice(text.as_bytes());
                Mapping::Replace {
                    start,
                    end: self.text.len() as u32,
                }
            }
        };
        let mut utf8 = [0; 4];
        self.starts[from.encode_utf8(&mut utf8).as_bytes()[0] as usize] = true;
        if from.is_ascii() {
            self.ascii[from as usize] = mapping;
            return;
        }
        match self.others.binary_search_by_key(&from, |&(key, _)| key) {
            Ok(at) => self.others[at].1 = mapping,
            Err(at) => self.others.insert(at, (from, mapping)),
        }
    }

    #[inline]
    fn get(&self, c: char) -> Mapping {
        if c.is_ascii() {
            return self.ascii[c as usize];
        }
        match self.others.binary_search_by_key(&c, |&(key, _)| key) {
            Ok(at) => self.others[at].1,
            Err(_) => Mapping::Keep,
        }
    }

    /// The position of the first byte at or after `from` that may start a mapped
    /// character.
    #[inline]
    fn next_start(&self, s: &[u8], from: usize) -> Option<usize> {
        let at = s[from..].iter().position(|&b| self.starts[b as usize])?;
        Some(from + at)
    }
}

/// `view` itself when it is an inline string that `table` leaves as it is (no byte of it
/// may start a mapped character), else `None`: the loop's shortcut, without an arena.
#[inline]
pub fn inline_unchanged(view: View, table: &TranslateTable) -> Option<View> {
    if !view.is_inline_string() {
        return None;
    }
    let bytes = view.inline_bytes()?;
    table.next_start(bytes, 0).is_none().then_some(view)
}

/// `s.translate(table)`: `s` itself when no character of `s` is in the table, else the
/// translation, appended to `out`. A character mapped to an invalid value is that value's
/// error, as in Python.
pub fn translate<'r>(
    s: &'r [u8],
    table: &TranslateTable,
    out: &'r mut Vec<u8>,
) -> Result<&'r [u8], ArgumentError> {
    let Some(mut at) = table.next_start(s, 0) else {
        return Ok(s);
    };
    let begin = out.len();
    // `s[copied..at]` is still to be copied unchanged.
    let mut copied = 0;
    loop {
        let (c, width) = decode_at(s, at);
        let mapping = table.get(c);
        if mapping != Mapping::Keep {
            out.extend_from_slice(&s[copied..at]);
            match mapping {
                Mapping::Replace { start, end } => {
                    out.extend_from_slice(&table.text[start as usize..end as usize]);
                }
                Mapping::Invalid(error) => return Err(error),
                Mapping::Delete | Mapping::Keep => {}
            }
            copied = at + width;
        }
        match table.next_start(s, at + width) {
            Some(next) => at = next,
            None => break,
        }
    }
    if copied == 0 {
        // Only lead bytes shared with mapped characters: nothing changed.
        return Ok(s);
    }
    out.extend_from_slice(&s[copied..]);
    Ok(&out[begin..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Python's `str.translate`, one character at a time.
    fn reference(s: &str, table: &HashMap<char, Option<&str>>) -> String {
        s.chars()
            .map(|c| match table.get(&c) {
                None => c.to_string(),
                Some(None) => String::new(),
                Some(Some(text)) => text.to_string(),
            })
            .collect()
    }

    fn build(entries: &HashMap<char, Option<&str>>) -> TranslateTable {
        let mut table = TranslateTable::new();
        for (&from, &to) in entries {
            let to = to.map_or(Replacement::Delete, Replacement::Text);
            table.insert(from, to);
        }
        table
    }

    fn run(s: &str, table: &TranslateTable) -> Result<String, ArgumentError> {
        let mut out = b"kept".to_vec();
        let result = translate(s.as_bytes(), table, &mut out)?.to_vec();
        assert!(
            out.starts_with(b"kept"),
            "earlier bytes of the buffer are kept"
        );
        Ok(String::from_utf8(result).expect("UTF-8"))
    }

    #[test]
    fn matches_reference_on_fixed_cases() {
        let entries: HashMap<char, Option<&str>> = [
            ('a', Some("A")),
            ('b', None),
            ('c', Some("")),
            ('d', Some("ddd")),
            ('\0', Some("<NUL>")),
            ('é', Some("e")),
            ('ß', Some("ss")),
            ('€', None),
            ('😀', Some(":)")),
            ('x', Some("é€😀")),
        ]
        .into_iter()
        .collect();
        let table = build(&entries);
        #[rustfmt::skip]
        let cases = [
            "", "a", "b", "zzz", "abcd", "exactly12byt", "exactly13byte", "\0a\0",
            "café", "straße €5", "😀😀😀", "x", "ÿé", "中文 a€b", "ab".repeat(100).as_str(),
            "é", "ê", "€x", "\u{10FFFF}",
        ]
        .map(str::to_string);
        for s in cases {
            assert_eq!(run(&s, &table).unwrap(), reference(&s, &entries), "{s:?}");
        }
    }

    #[test]
    fn unchanged_strings_are_their_own_result() {
        let table = build(&[('é', Some("e")), ('a', None)].into_iter().collect());
        for s in ["", "xyz", "ê or è", "long string without the two letters"] {
            let mut out = Vec::new();
            let result = translate(s.as_bytes(), &table, &mut out).unwrap();
            assert_eq!(result.as_ptr(), s.as_ptr(), "{s:?}");
            assert!(out.is_empty());
        }
    }

    #[test]
    fn inline_unchanged_reads_only_inline_strings() {
        let table = build(&[('é', Some("e")), ('a', None)].into_iter().collect());
        // "ê" is unchanged but shares its lead byte with "é": the shortcut leaves it to
        // the kernel.
        let cases = [
            ("", true),
            ("xyz", true),
            ("\0", true),
            ("exctly12byt!", true),
            ("exactly12byt", false),
            ("ê", false),
            ("a", false),
            ("bé", false),
        ];
        for (text, unchanged) in cases {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            let want = unchanged.then_some(view);
            assert_eq!(inline_unchanged(view, &table), want, "{text:?}");
        }
        assert_eq!(inline_unchanged(View::NA, &table), None);
        let location = crate::view::Location {
            chunk: 1,
            offset: 0,
        };
        let long = View::long(13, *b"bbbb", location).unwrap();
        assert_eq!(inline_unchanged(long, &table), None);
    }

    #[test]
    fn later_insert_replaces_earlier() {
        let mut table = TranslateTable::new();
        table.insert('a', Replacement::Text("1"));
        table.insert('a', Replacement::Text("2"));
        table.insert('é', Replacement::Delete);
        table.insert('é', Replacement::Text("3"));
        assert_eq!(run("aé", &table).unwrap(), "23");
    }

    #[test]
    fn invalid_values_fail_only_when_met() {
        let mut table = TranslateTable::new();
        table.insert('a', Replacement::Invalid(ArgumentError::MappingRange));
        table.insert('é', Replacement::Invalid(ArgumentError::MappingType));
        assert_eq!(run("bcd", &table).unwrap(), "bcd");
        assert_eq!(run("bad", &table), Err(ArgumentError::MappingRange));
        assert_eq!(run("xé", &table), Err(ArgumentError::MappingType));
    }

    /// A small deterministic generator (xorshift), so the test needs no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, below: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % below as u64) as usize
        }
    }

    #[test]
    fn matches_reference_on_random_strings() {
        let alphabet = [
            'a', 'b', 'z', ' ', '\0', 'é', 'ê', 'ß', '€', '中', '😀', '\u{7f}',
        ];
        let texts = ["", "X", "yy", "é", "😀€", "long replacement text"];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200 {
            let mut entries = HashMap::new();
            for _ in 0..rng.next(6) {
                let from = alphabet[rng.next(alphabet.len())];
                let to = [None, Some(texts[rng.next(texts.len())])][rng.next(2)];
                entries.insert(from, to);
            }
            let table = build(&entries);
            for _ in 0..20 {
                let len = rng.next(40);
                let s: String = (0..len)
                    .map(|_| alphabet[rng.next(alphabet.len())])
                    .collect();
                assert_eq!(run(&s, &table).unwrap(), reference(&s, &entries), "{s:?}");
            }
        }
    }
}
