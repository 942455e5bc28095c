//! Unicode character data for the kernels, and a safe UTF-8 decoder.
//!
//! Python's predicates and case mappings come from CPython's own Unicode database, which
//! differs from Rust's `char` methods in version and in definitions, so every kernel that
//! needs character properties outside ASCII is generic over [`UnicodeTables`]. Its methods
//! answer what CPython's `_PyUnicode_Is*` and `_PyUnicode_To*Full` functions answer; the
//! extension implements it with tables generated from the Python it is built for. The
//! unit tests here use `RustTables`, a pure-Rust approximation that exists only in tests.
//!
//! The decoder never panics and is sound on any bytes: kernels receive valid UTF-8 by
//! contract, but a broken caller gets U+FFFD, not undefined behaviour.

#[cfg(test)]
mod rust_tables;
#[cfg(test)]
pub(crate) use rust_tables::RustTables;

/// The result of a full case mapping: one to three code points (CPython's `Py_UCS4 res[3]`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CaseMapping {
    chars: [char; 3],
    len: u8,
}

impl CaseMapping {
    /// A mapping to one code point.
    #[inline]
    pub const fn one(c: char) -> CaseMapping {
        CaseMapping {
            chars: [c, '\0', '\0'],
            len: 1,
        }
    }

    /// A mapping to up to three code points; `None` when `chars` is empty or longer.
    pub fn from_chars(chars: &[char]) -> Option<CaseMapping> {
        if chars.is_empty() || chars.len() > 3 {
            return None;
        }
        let mut mapping = CaseMapping::one(chars[0]);
        mapping.chars[..chars.len()].copy_from_slice(chars);
        mapping.len = chars.len() as u8;
        Some(mapping)
    }

    /// The code points of the mapping.
    #[inline]
    pub fn as_slice(&self) -> &[char] {
        &self.chars[..self.len as usize]
    }

    /// Appends the mapping to `out` as UTF-8.
    #[inline]
    pub fn push_utf8(&self, out: &mut Vec<u8>) {
        for &c in self.as_slice() {
            push_char(out, c);
        }
    }
}

/// Character properties and full case mappings, one method per CPython function.
///
/// The kernels handle ASCII inline with Python's (fixed) ASCII semantics and call these
/// mostly for non-ASCII code points, but implementations must answer for every code point
/// (the final sigma rule asks `is_cased` and `is_case_ignorable` about ASCII neighbours).
pub trait UnicodeTables: Sync {
    /// `_PyUnicode_IsAlpha`: general category Lu, Ll, Lt, Lm or Lo.
    fn is_alpha(&self, c: char) -> bool;
    /// `_PyUnicode_IsDecimalDigit`: has a decimal value (category Nd).
    fn is_decimal(&self, c: char) -> bool;
    /// `_PyUnicode_IsDigit`: has a digit value (Nd plus digits such as '²').
    fn is_digit(&self, c: char) -> bool;
    /// `_PyUnicode_IsNumeric`: has any numeric value (includes CJK numerals).
    fn is_numeric(&self, c: char) -> bool;
    /// `_PyUnicode_IsWhitespace`: what `str.isspace` and `str.strip()` use.
    fn is_space(&self, c: char) -> bool;
    /// `_PyUnicode_IsLowercase`: the Lowercase property.
    fn is_lower(&self, c: char) -> bool;
    /// `_PyUnicode_IsUppercase`: the Uppercase property.
    fn is_upper(&self, c: char) -> bool;
    /// `_PyUnicode_IsTitlecase`: general category Lt.
    fn is_title(&self, c: char) -> bool;
    /// `_PyUnicode_IsCased`: the Cased property.
    fn is_cased(&self, c: char) -> bool;
    /// `_PyUnicode_IsCaseIgnorable`: the Case_Ignorable property.
    fn is_case_ignorable(&self, c: char) -> bool;
    /// `_PyUnicode_ToLowerFull` (without final sigma, which the kernels handle).
    fn to_lower(&self, c: char) -> CaseMapping;
    /// `_PyUnicode_ToUpperFull`.
    fn to_upper(&self, c: char) -> CaseMapping;
    /// `_PyUnicode_ToTitleFull`.
    fn to_title(&self, c: char) -> CaseMapping;
    /// `_PyUnicode_ToFoldedFull`.
    fn to_fold(&self, c: char) -> CaseMapping;
}

/// The replacement for bytes that are not UTF-8 (never seen with valid input).
const REPLACEMENT: char = char::REPLACEMENT_CHARACTER;

/// Whether `byte` continues a multi-byte UTF-8 sequence.
#[inline]
pub const fn is_continuation(byte: u8) -> bool {
    (byte as i8) < -0x40
}

/// Decodes the code point starting at byte `i` of `s` (`i < s.len()`): returns it and its
/// length in bytes.
#[inline]
pub fn decode_at(s: &[u8], i: usize) -> (char, usize) {
    let lead = s[i];
    if lead < 0x80 {
        return (lead as char, 1);
    }
    decode_multibyte(s, i)
}

#[cold]
fn invalid() -> (char, usize) {
    (REPLACEMENT, 1)
}

fn decode_multibyte(s: &[u8], i: usize) -> (char, usize) {
    let lead = s[i];
    let (width, init) = match lead {
        0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
        0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
        0xF0..=0xF7 => (4, u32::from(lead & 0x07)),
        _ => return invalid(),
    };
    let Some(tail) = s.get(i + 1..i + width) else {
        return invalid();
    };
    let mut cp = init;
    for &byte in tail {
        if !is_continuation(byte) {
            return invalid();
        }
        cp = (cp << 6) | u32::from(byte & 0x3F);
    }
    match char::from_u32(cp) {
        Some(c) => (c, width),
        None => invalid(),
    }
}

/// Decodes the code point that ends at byte `end` of `s` (`0 < end <= s.len()`): returns
/// it and its length in bytes.
#[inline]
pub fn decode_before(s: &[u8], end: usize) -> (char, usize) {
    let last = s[end - 1];
    if last < 0x80 {
        return (last as char, 1);
    }
    let mut start = end - 1;
    while start > 0 && end - start < 4 && is_continuation(s[start]) {
        start -= 1;
    }
    match decode_at(s, start) {
        (c, width) if start + width == end => (c, width),
        _ => invalid(),
    }
}

/// Appends `c` to `out` as UTF-8.
#[inline]
pub fn push_char(out: &mut Vec<u8>, c: char) {
    if c.is_ascii() {
        out.push(c as u8);
    } else {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
}

/// The code points of `s` with their byte offsets, forwards and backwards.
#[derive(Clone, Debug)]
pub struct CharIndices<'a> {
    bytes: &'a [u8],
    front: usize,
    back: usize,
}

impl<'a> CharIndices<'a> {
    /// All code points of `s`.
    #[inline]
    pub fn new(s: &'a [u8]) -> CharIndices<'a> {
        CharIndices {
            bytes: s,
            front: 0,
            back: s.len(),
        }
    }
}

impl Iterator for CharIndices<'_> {
    type Item = (usize, char);

    #[inline]
    fn next(&mut self) -> Option<(usize, char)> {
        if self.front >= self.back {
            return None;
        }
        let start = self.front;
        let (c, width) = decode_at(self.bytes, start);
        self.front += width;
        Some((start, c))
    }
}

impl DoubleEndedIterator for CharIndices<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<(usize, char)> {
        if self.back <= self.front {
            return None;
        }
        let (c, width) = decode_before(&self.bytes[self.front..], self.back - self.front);
        self.back -= width;
        Some((self.back, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_round_trips_every_scalar_value() {
        let mut buf = Vec::new();
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            buf.clear();
            push_char(&mut buf, c);
            assert_eq!(decode_at(&buf, 0), (c, buf.len()));
            assert_eq!(decode_before(&buf, buf.len()), (c, buf.len()));
        }
    }

    #[test]
    fn decoder_survives_invalid_bytes() {
        let cases: [&[u8]; 5] = [b"\xff", b"\xc3", b"\xe2\x82", b"\x80\x80", b"\xed\xa0\x80"];
        for bytes in cases {
            let forward: Vec<char> = CharIndices::new(bytes).map(|(_, c)| c).collect();
            let backward: Vec<char> = CharIndices::new(bytes).rev().map(|(_, c)| c).collect();
            assert!(forward.iter().all(|&c| c == REPLACEMENT), "{bytes:?}");
            assert!(backward.iter().all(|&c| c == REPLACEMENT), "{bytes:?}");
        }
    }

    #[test]
    fn char_indices_both_ways() {
        let s = "aé€😀".as_bytes();
        let forward: Vec<(usize, char)> = CharIndices::new(s).collect();
        assert_eq!(forward, [(0, 'a'), (1, 'é'), (3, '€'), (6, '😀')]);
        let mut backward: Vec<(usize, char)> = CharIndices::new(s).rev().collect();
        backward.reverse();
        assert_eq!(forward, backward);
    }
}
