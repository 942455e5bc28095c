//! Unicode character data for the kernels, and a safe UTF-8 decoder.
//!
//! Python's predicates and case mappings come from CPython's own Unicode database, which
//! differs from Rust's `char` methods in version and in definitions, so every kernel that
//! needs character properties outside ASCII is generic over [`UnicodeTables`]. Its methods
//! map one to one onto CPython's `_PyUnicode_Is*` and `_PyUnicode_To*Full` functions; the
//! Python glue implements it with those. [`RustTables`] is a pure-Rust implementation for
//! tests and non-Python users: exact in ASCII, approximate elsewhere (see its docs).
//!
//! The decoder never panics and is sound on any bytes: kernels receive valid UTF-8 by
//! contract, but a broken caller gets U+FFFD, not undefined behaviour.

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

/// [`UnicodeTables`] from Rust's `char` methods and a few small tables from Unicode 14.0
/// (the version of Python 3.11).
///
/// Exact: `is_decimal`, `is_digit`, `is_space`, `is_title` (tables taken from Python 3.11).
/// Exact up to Rust's newer Unicode version: `is_lower`, `is_upper`, `is_cased`, `to_lower`,
/// `to_upper`. Approximate: `is_alpha` (Rust's Alphabetic property also holds for some
/// marks and letter numbers), `is_numeric` (misses CJK numerals such as '一'),
/// `is_case_ignorable` (ASCII, Latin-1 and combining marks only), `to_title` (upper case
/// with the rest lowered, plus the Lt letters) and `to_fold` (lower of upper, which
/// agrees with full case folding except for a few scripts such as Cherokee).
#[derive(Clone, Copy, Debug, Default)]
pub struct RustTables;

/// First code point ('0') of each run of ten decimal digits (category Nd), Unicode 14.0.
const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// Ranges of code points that are digits but not decimals (such as '²'), Unicode 14.0.
const NON_DECIMAL_DIGITS: [(u32, u32); 20] = [
    (0xB2, 0xB3),
    (0xB9, 0xB9),
    (0x1369, 0x1371),
    (0x19DA, 0x19DA),
    (0x2070, 0x2070),
    (0x2074, 0x2079),
    (0x2080, 0x2089),
    (0x2460, 0x2468),
    (0x2474, 0x247C),
    (0x2488, 0x2490),
    (0x24EA, 0x24EA),
    (0x24F5, 0x24FD),
    (0x24FF, 0x24FF),
    (0x2776, 0x277E),
    (0x2780, 0x2788),
    (0x278A, 0x2792),
    (0x10A40, 0x10A43),
    (0x10E60, 0x10E68),
    (0x11052, 0x1105A),
    (0x1F100, 0x1F10A),
];

/// The titlecase letters (category Lt), Unicode 14.0.
const TITLECASE: [u32; 31] = [
    0x1C5, 0x1C8, 0x1CB, 0x1F2, 0x1F88, 0x1F89, 0x1F8A, 0x1F8B, 0x1F8C, 0x1F8D, 0x1F8E, 0x1F8F,
    0x1F98, 0x1F99, 0x1F9A, 0x1F9B, 0x1F9C, 0x1F9D, 0x1F9E, 0x1F9F, 0x1FA8, 0x1FA9, 0x1FAA, 0x1FAB,
    0x1FAC, 0x1FAD, 0x1FAE, 0x1FAF, 0x1FBC, 0x1FCC, 0x1FFC,
];

/// Whether `c` is whitespace for Python: Unicode White_Space plus U+001C..U+001F.
#[inline]
pub fn is_python_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

fn mapping_from_iter(chars: impl Iterator<Item = char>) -> CaseMapping {
    let mut buf = ['\0'; 3];
    let mut len = 0;
    for c in chars.take(3) {
        buf[len] = c;
        len += 1;
    }
    CaseMapping::from_chars(&buf[..len]).expect("a case mapping has one to three chars")
}

impl UnicodeTables for RustTables {
    fn is_alpha(&self, c: char) -> bool {
        c.is_alphabetic() && !c.is_numeric()
    }
    fn is_decimal(&self, c: char) -> bool {
        let cp = c as u32;
        let i = DECIMAL_ZEROS.partition_point(|&zero| zero <= cp);
        i > 0 && cp - DECIMAL_ZEROS[i - 1] < 10
    }
    fn is_digit(&self, c: char) -> bool {
        let cp = c as u32;
        self.is_decimal(c)
            || NON_DECIMAL_DIGITS
                .iter()
                .any(|&(a, b)| (a..=b).contains(&cp))
    }
    fn is_numeric(&self, c: char) -> bool {
        c.is_numeric()
    }
    fn is_space(&self, c: char) -> bool {
        is_python_space(c)
    }
    fn is_lower(&self, c: char) -> bool {
        c.is_lowercase()
    }
    fn is_upper(&self, c: char) -> bool {
        c.is_uppercase()
    }
    fn is_title(&self, c: char) -> bool {
        TITLECASE.binary_search(&(c as u32)).is_ok()
    }
    fn is_cased(&self, c: char) -> bool {
        c.is_lowercase() || c.is_uppercase() || self.is_title(c)
    }
    fn is_case_ignorable(&self, c: char) -> bool {
        matches!(
            c,
            '\'' | '.'
                | ':'
                | '^'
                | '`'
                | '\u{a8}'
                | '\u{ad}'
                | '\u{af}'
                | '\u{b4}'
                | '\u{b7}'
                | '\u{b8}'
                | '\u{2b0}'..='\u{36f}'
                | '\u{2018}'
                | '\u{2019}'
                | '\u{2024}'
                | '\u{2027}'
                | '\u{200b}'..='\u{200f}'
        )
    }
    fn to_lower(&self, c: char) -> CaseMapping {
        mapping_from_iter(c.to_lowercase())
    }
    fn to_upper(&self, c: char) -> CaseMapping {
        mapping_from_iter(c.to_uppercase())
    }
    fn to_title(&self, c: char) -> CaseMapping {
        if self.is_title(c) {
            return CaseMapping::one(c);
        }
        // The Lt letters are the title case of their lower and upper forms (ǆ, Ǆ -> ǅ).
        let lower = c.to_lowercase();
        if lower.len() == 1 {
            let lower = self.to_lower(c).as_slice()[0];
            let title = TITLECASE
                .iter()
                .filter_map(|&t| char::from_u32(t))
                .find(|&t| t.to_lowercase().eq(std::iter::once(lower)) && t != lower);
            if let Some(title) = title {
                return CaseMapping::one(title);
            }
        }
        let mut upper = c.to_uppercase();
        let first = upper.next().unwrap_or(c);
        mapping_from_iter(std::iter::once(first).chain(upper.flat_map(char::to_lowercase)))
    }
    fn to_fold(&self, c: char) -> CaseMapping {
        mapping_from_iter(c.to_uppercase().flat_map(char::to_lowercase))
    }
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

    #[test]
    fn rust_tables_agree_with_python_on_samples() {
        let t = RustTables;
        // (char, isalpha, isdecimal, isdigit, isnumeric, isspace, islower, isupper, istitle)
        // checked with Python 3.11.
        let table = [
            ('a', true, false, false, false, false, true, false, false),
            ('É', true, false, false, false, false, false, true, false),
            ('ß', true, false, false, false, false, true, false, false),
            ('ǅ', true, false, false, false, false, false, false, true),
            ('٣', false, true, true, true, false, false, false, false),
            ('²', false, false, true, true, false, false, false, false),
            ('½', false, false, false, true, false, false, false, false),
            (
                '\u{3000}', false, false, false, false, true, false, false, false,
            ),
            (
                '\u{1f}', false, false, false, false, true, false, false, false,
            ),
            ('中', true, false, false, false, false, false, false, false),
            ('😀', false, false, false, false, false, false, false, false),
        ];
        for (c, alpha, decimal, digit, numeric, space, lower, upper, title) in table {
            let got = (
                t.is_alpha(c),
                t.is_decimal(c),
                t.is_digit(c),
                t.is_numeric(c),
                t.is_space(c),
                t.is_lower(c),
                t.is_upper(c),
                t.is_title(c),
            );
            let want = (alpha, decimal, digit, numeric, space, lower, upper, title);
            assert_eq!(got, want, "{c:?}");
        }
    }

    #[test]
    fn rust_tables_case_mappings() {
        let t = RustTables;
        let s = |m: CaseMapping| m.as_slice().iter().collect::<String>();
        // (char, lower, upper, title, fold), checked with Python 3.11.
        let table = [
            ('ß', "ß", "SS", "Ss", "ss"),
            ('İ', "i̇", "İ", "İ", "i̇"),
            ('ǆ', "ǆ", "Ǆ", "ǅ", "ǆ"),
            ('Ǆ', "ǆ", "Ǆ", "ǅ", "ǆ"),
            ('ﬁ', "ﬁ", "FI", "Fi", "fi"),
            ('Σ', "σ", "Σ", "Σ", "σ"),
            ('ς', "ς", "Σ", "Σ", "σ"),
            ('ᾳ', "ᾳ", "ΑΙ", "ᾼ", "αι"),
        ];
        for (c, lower, upper, title, fold) in table {
            let got = (
                s(t.to_lower(c)),
                s(t.to_upper(c)),
                s(t.to_title(c)),
                s(t.to_fold(c)),
            );
            assert_eq!(got, (lower.into(), upper.into(), title.into(), fold.into()));
        }
    }

    #[test]
    fn rust_mappings_fit_three_chars() {
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            assert!(c.to_uppercase().flat_map(char::to_lowercase).count() <= 3);
            assert!(c.to_uppercase().count() <= 3 && c.to_lowercase().count() <= 3);
        }
    }
}
