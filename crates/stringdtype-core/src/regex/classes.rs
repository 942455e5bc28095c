//! Python's character classes as sets of code points, built once from the running
//! Python's Unicode tables.
//!
//! In a `str` pattern Python's `\d` is `str.isdecimal`, `\s` is `str.isspace` and `\w` is
//! `str.isalnum() or c == '_'` (`isalpha or isdecimal or isdigit or isnumeric`), answered
//! by the interpreter's Unicode database. The engine's own `\d \s \w` follow UTS #18 and
//! its Unicode version (its `\w` has combining marks and connector punctuation but no
//! '²'), so the translation never uses them: [`UnicodeClasses`] builds Python's classes
//! by asking [`UnicodeTables`] about every code point, once per tables instance, and
//! keeps the case tables that IGNORECASE needs ([`CaseTables`]).
//!
//! The engine's word boundary `\b` cannot be given another definition of a word
//! character; [`UnicodeClasses::word_disagreement`] holds the code points on which the two
//! definitions differ, so that a string without them can use the engine's `\b`.

use std::sync::{Arc, OnceLock};

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

use crate::kernels::unicode::{CaseMapping, CharIndices};
use crate::kernels::UnicodeTables;

/// The largest code point.
pub(crate) const MAX_CODE_POINT: u32 = 0x10FFFF;

/// Python's classes and case tables for one [`UnicodeTables`], each built on first use.
///
/// Building one enumerates all 1,114,112 code points (a few milliseconds); keep one value
/// per process (the extension's tables are a `static`) and share it between patterns.
pub struct UnicodeClasses<'t> {
    tables: &'t dyn UnicodeTables,
    digit: OnceLock<ClassUnicode>,
    space: OnceLock<ClassUnicode>,
    word: OnceLock<ClassUnicode>,
    word_disagreement: OnceLock<Arc<ClassUnicode>>,
    case: OnceLock<CaseTables>,
}

impl std::fmt::Debug for UnicodeClasses<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnicodeClasses").finish_non_exhaustive()
    }
}

impl<'t> UnicodeClasses<'t> {
    /// The classes of `tables`, none built yet.
    pub fn new(tables: &'t dyn UnicodeTables) -> UnicodeClasses<'t> {
        UnicodeClasses {
            tables,
            digit: OnceLock::new(),
            space: OnceLock::new(),
            word: OnceLock::new(),
            word_disagreement: OnceLock::new(),
            case: OnceLock::new(),
        }
    }

    /// Python's `\d` (Unicode): `_PyUnicode_IsDecimalDigit`.
    pub fn digit(&self) -> &ClassUnicode {
        self.digit
            .get_or_init(|| class_where(|c| self.tables.is_decimal(c)))
    }

    /// Python's `\s` (Unicode): `_PyUnicode_IsWhitespace`, which sre's `Py_UNICODE_ISSPACE`
    /// answers for every code point (ASCII included: '\x1c' to '\x1f' are spaces).
    pub fn space(&self) -> &ClassUnicode {
        self.space
            .get_or_init(|| class_where(|c| self.tables.is_space(c)))
    }

    /// Python's `\w` (Unicode): `Py_UNICODE_ISALNUM` or '_'.
    pub fn word(&self) -> &ClassUnicode {
        self.word.get_or_init(|| class_where(|c| self.is_word(c)))
    }

    fn is_word(&self, c: char) -> bool {
        let t = self.tables;
        c == '_' || t.is_alpha(c) || t.is_decimal(c) || t.is_digit(c) || t.is_numeric(c)
    }

    /// The code points that are word characters for Python and not for the engine's
    /// Unicode `\b`, or the other way round. Never ASCII.
    pub fn word_disagreement(&self) -> &Arc<ClassUnicode> {
        self.word_disagreement.get_or_init(|| {
            let engine = |c| regex_syntax::try_is_word_character(c).unwrap_or(false);
            Arc::new(class_where(|c| self.is_word(c) != engine(c)))
        })
    }

    /// The case tables for IGNORECASE.
    pub fn case(&self) -> &CaseTables {
        self.case.get_or_init(|| CaseTables::new(self.tables))
    }
}

/// What sre's IGNORECASE needs, for every code point: its lower and upper case (sre's
/// `sre_lower_unicode` and `sre_upper_unicode` are CPython's `_PyUnicode_ToLowercase` and
/// `_PyUnicode_ToUppercase`, which give the first code point of the full mapping), and
/// Python's `re._casefix._EXTRA_CASES`.
#[derive(Clone, Debug)]
pub struct CaseTables {
    /// `(c, lower(c))` for every `c` that lower-cases to another code point, by `c`.
    lower: Vec<(char, char)>,
    /// The first members of `lower`.
    lower_moved: ClassUnicode,
    /// `(c, upper(c))` for every `c` that upper-cases to another code point, by `c`.
    upper: Vec<(char, char)>,
    /// The first members of `upper`.
    upper_moved: ClassUnicode,
    /// sre's `unicode_iscased`: `lower(c) != c or upper(c) != c`.
    cased: ClassUnicode,
    /// Lower-case code points with the other lower-case code points that share their
    /// full upper case (`'s'` with `'ſ'`), by key.
    fixes: Vec<(char, Vec<char>)>,
}

impl CaseTables {
    fn new(tables: &dyn UnicodeTables) -> CaseTables {
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        // Code points that upper-case to more than themselves, grouped by that mapping.
        let mut by_upper: Vec<(CaseMapping, char)> = Vec::new();
        for c in all_chars() {
            let l = tables.to_lower(c).as_slice()[0];
            if l != c {
                lower.push((c, l));
            }
            let full = tables.to_upper(c);
            let u = full.as_slice()[0];
            if u != c {
                upper.push((c, u));
            }
            if full.as_slice() != [c] {
                by_upper.push((full, c));
            }
        }
        let moved = |pairs: &[(char, char)]| {
            ClassUnicode::new(pairs.iter().map(|&(c, _)| ClassUnicodeRange::new(c, c)))
        };
        let lower_moved = moved(&lower);
        let upper_moved = moved(&upper);
        let mut cased = lower_moved.clone();
        cased.union(&upper_moved);
        let lower_of = |c: char| lookup(&lower, c).unwrap_or(c);
        let fixes = extra_cases(tables, by_upper, lower_of);
        CaseTables {
            lower,
            lower_moved,
            upper,
            upper_moved,
            cased,
            fixes,
        }
    }

    /// `sre_lower_unicode(c)`; code points outside `char` (surrogates) map to themselves.
    pub fn lower(&self, c: u32) -> u32 {
        char::from_u32(c)
            .and_then(|c| lookup(&self.lower, c))
            .map_or(c, u32::from)
    }

    /// `sre_upper_unicode(c)`.
    pub fn upper(&self, c: u32) -> u32 {
        char::from_u32(c)
            .and_then(|c| lookup(&self.upper, c))
            .map_or(c, u32::from)
    }

    /// sre's `unicode_iscased(c)`.
    pub fn is_cased(&self, c: u32) -> bool {
        char::from_u32(c).is_some_and(|c| contains(&self.cased, c))
    }

    /// Whether some code point of `lo..=hi` is cased.
    pub fn any_cased(&self, lo: u32, hi: u32) -> bool {
        let mut range = ClassUnicode::empty();
        push_range(&mut range, lo, hi);
        range.intersect(&self.cased);
        !range.ranges().is_empty()
    }

    /// `_EXTRA_CASES[lo]`: empty when `lo` has no entry.
    pub fn fixes(&self, lo: u32) -> &[char] {
        match self
            .fixes
            .binary_search_by_key(&lo, |(key, _)| u32::from(*key))
        {
            Ok(i) => &self.fixes[i].1,
            Err(_) => &[],
        }
    }

    /// The code points `c` with `lower(c)` in `set`.
    pub fn lower_preimage(&self, set: &ClassUnicode) -> ClassUnicode {
        preimage(set, &self.lower, &self.lower_moved)
    }

    /// The code points `c` with `upper(c)` in `set`.
    pub fn upper_preimage(&self, set: &ClassUnicode) -> ClassUnicode {
        preimage(set, &self.upper, &self.upper_moved)
    }

    /// `{lower(c) for c in lo..=hi}`.
    pub fn lower_image(&self, lo: u32, hi: u32) -> ClassUnicode {
        let mut image = ClassUnicode::empty();
        push_range(&mut image, lo, hi);
        image.difference(&self.lower_moved);
        let start = self.lower.partition_point(|&(c, _)| u32::from(c) < lo);
        let moved = self.lower[start..]
            .iter()
            .take_while(|&&(c, _)| u32::from(c) <= hi);
        image.union(&ClassUnicode::new(
            moved.map(|&(_, l)| ClassUnicodeRange::new(l, l)),
        ));
        image
    }

    /// The first code point of `lo..=hi` whose lower case is above `limit`.
    pub fn first_lowering_beyond(&self, lo: u32, hi: u32, limit: u32) -> Option<u32> {
        let start = self.lower.partition_point(|&(c, _)| u32::from(c) < lo);
        self.lower[start..]
            .iter()
            .take_while(|&&(c, _)| u32::from(c) <= hi)
            .find(|&&(_, l)| u32::from(l) > limit)
            .map(|&(c, _)| u32::from(c))
    }

    /// The keys of `_EXTRA_CASES` that lie in `set`, with their entries.
    pub fn fixes_in<'a>(&'a self, set: &'a ClassUnicode) -> impl Iterator<Item = &'a [char]> + 'a {
        self.fixes
            .iter()
            .filter(move |(key, _)| contains(set, *key))
            .map(|(_, others)| others.as_slice())
    }
}

/// `re._casefix._EXTRA_CASES` from the tables: Python's generator groups all code points by
/// their full upper case and, for each group with more than one distinct lower case
/// (`lower(c)`), maps each of them to the others. A group with two members holds at least
/// one code point whose upper case is not itself, so `by_upper` (those code points with
/// their upper case) plus each single-character key that is its own upper case is enough.
fn extra_cases(
    tables: &dyn UnicodeTables,
    mut by_upper: Vec<(CaseMapping, char)>,
    lower_of: impl Fn(char) -> char,
) -> Vec<(char, Vec<char>)> {
    let key = |m: &CaseMapping| {
        m.as_slice()
            .iter()
            .map(|&c| u32::from(c))
            .collect::<Vec<_>>()
    };
    by_upper.sort_by_key(|(m, c)| (key(m), *c));
    let mut fixes: Vec<(char, Vec<char>)> = Vec::new();
    let mut start = 0;
    while start < by_upper.len() {
        let group_key = key(&by_upper[start].0);
        let end = start
            + by_upper[start..]
                .iter()
                .take_while(|(m, _)| key(m) == group_key)
                .count();
        let mut lowers: Vec<char> = by_upper[start..end]
            .iter()
            .map(|&(_, c)| lower_of(c))
            .collect();
        if let [single] = by_upper[start].0.as_slice() {
            if tables.to_upper(*single).as_slice() == [*single] {
                lowers.push(lower_of(*single));
            }
        }
        lowers.sort_unstable();
        lowers.dedup();
        if lowers.len() > 1 {
            for &lo in &lowers {
                let others = lowers.iter().copied().filter(|&o| o != lo).collect();
                fixes.push((lo, others));
            }
        }
        start = end;
    }
    fixes.sort_by_key(|(lo, _)| *lo);
    // Two groups cannot share a lower case in practice; merge if they ever do.
    fixes.dedup_by(|later, earlier| {
        if later.0 != earlier.0 {
            return false;
        }
        for c in later.1.drain(..) {
            if !earlier.1.contains(&c) {
                earlier.1.push(c);
            }
        }
        true
    });
    fixes
}

/// `(set - moved) | {c in moved : map(c) in set}`.
fn preimage(set: &ClassUnicode, map: &[(char, char)], moved: &ClassUnicode) -> ClassUnicode {
    let mut result = set.clone();
    result.difference(moved);
    let hits = map.iter().filter(|&&(_, m)| contains(set, m));
    result.union(&ClassUnicode::new(
        hits.map(|&(c, _)| ClassUnicodeRange::new(c, c)),
    ));
    result
}

/// The value of `c` in a sorted `(key, value)` table.
fn lookup(table: &[(char, char)], c: char) -> Option<char> {
    table
        .binary_search_by_key(&c, |&(key, _)| key)
        .ok()
        .map(|i| table[i].1)
}

/// Whether `class` holds `c`.
pub(crate) fn contains(class: &ClassUnicode, c: char) -> bool {
    let ranges = class.ranges();
    let i = ranges.partition_point(|r| r.end() < c);
    ranges.get(i).is_some_and(|r| r.start() <= c)
}

/// Whether `class` holds a code point of the UTF-8 string `s` (invalid bytes read as
/// U+FFFD).
pub(crate) fn contains_any(class: &ClassUnicode, s: &[u8]) -> bool {
    CharIndices::new(s).any(|(_, c)| !c.is_ascii() && contains(class, c))
}

/// Every `char` (Unicode scalar value) in order.
fn all_chars() -> impl Iterator<Item = char> {
    '\0'..=char::MAX
}

/// The class of the code points that satisfy `accept`.
pub(crate) fn class_where(accept: impl Fn(char) -> bool) -> ClassUnicode {
    let mut ranges = Vec::new();
    let mut run: Option<(char, char)> = None;
    for c in all_chars() {
        if accept(c) {
            run = Some(run.map_or((c, c), |(start, _)| (start, c)));
        } else if let Some((start, end)) = run.take() {
            ranges.push(ClassUnicodeRange::new(start, end));
        }
    }
    if let Some((start, end)) = run {
        ranges.push(ClassUnicodeRange::new(start, end));
    }
    ClassUnicode::new(ranges)
}

/// Adds the code points `lo..=hi` to `class`, without surrogates or values beyond
/// U+10FFFF (which no UTF-8 string holds).
pub(crate) fn push_range(class: &mut ClassUnicode, lo: u32, hi: u32) {
    let lo = if (0xD800..=0xDFFF).contains(&lo) {
        0xE000
    } else {
        lo
    };
    let hi = match hi.min(MAX_CODE_POINT) {
        0xD800..=0xDFFF => 0xD7FF,
        hi => hi,
    };
    if let (Some(a), Some(b)) = (char::from_u32(lo), char::from_u32(hi)) {
        if a <= b {
            class.push(ClassUnicodeRange::new(a, b));
        }
    }
}

/// The class of one code point (empty for a surrogate).
pub(crate) fn single(c: u32) -> ClassUnicode {
    let mut class = ClassUnicode::empty();
    push_range(&mut class, c, c);
    class
}

/// Every code point but those of `class`.
pub(crate) fn complement(class: &ClassUnicode) -> ClassUnicode {
    let mut negated = class.clone();
    negated.negate();
    negated
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kernels::unicode::RustTables;

    /// One set of classes for all tests of the module (each build enumerates every code
    /// point).
    pub(crate) fn shared() -> &'static UnicodeClasses<'static> {
        static TABLES: RustTables = RustTables;
        static CLASSES: OnceLock<UnicodeClasses<'static>> = OnceLock::new();
        CLASSES.get_or_init(|| UnicodeClasses::new(&TABLES))
    }

    fn has(class: &ClassUnicode, c: char) -> bool {
        contains(class, c)
    }

    #[test]
    fn python_classes() {
        let classes = shared();
        // Python: '٣'.isdecimal(), not '²'.isdecimal(); '²'.isdigit() makes it \w.
        assert!(has(classes.digit(), '٣') && !has(classes.digit(), '²'));
        assert!(has(classes.word(), '²') && has(classes.word(), '_') && has(classes.word(), 'é'));
        // Combining marks are not \w in Python.
        assert!(!has(classes.word(), '\u{301}'));
        // re.match(r'\s', '\x1c') matches; '\u200b' is not a space.
        assert!(has(classes.space(), '\x1c') && has(classes.space(), '\u{3000}'));
        assert!(!has(classes.space(), '\u{200b}'));
    }

    #[test]
    fn word_disagreement() {
        let disagree = shared().word_disagreement();
        assert!(has(disagree, '\u{301}') && has(disagree, '²') && has(disagree, '‿'));
        assert!(!has(disagree, 'é') && !has(disagree, '中'));
        assert!((0..128u8).all(|b| !has(disagree, b as char)));
        assert!(contains_any(disagree, "é\u{301}".as_bytes()));
        assert!(!contains_any(disagree, "café".as_bytes()));
        assert!(contains_any(disagree, b"\xff\xfe x\xcc\x81"));
        assert!(!contains_any(disagree, b"\xff\xfe x"));
    }

    #[test]
    fn case_tables() {
        let case = shared().case();
        // _sre.unicode_tolower / iscased.
        assert_eq!(case.lower('K' as u32), 'k' as u32);
        assert_eq!(case.lower(0x212A), 'k' as u32);
        assert_eq!(case.lower(0x130), 'i' as u32);
        assert_eq!(case.upper('ß' as u32), 'S' as u32);
        assert!(case.is_cased('ß' as u32) && !case.is_cased('1' as u32));
        // re._casefix._EXTRA_CASES.
        assert_eq!(case.fixes('i' as u32), ['ı']);
        assert_eq!(case.fixes('s' as u32), ['ſ']);
        assert_eq!(case.fixes(0x3B9), ['\u{345}', '\u{1FBE}']);
        assert_eq!(case.fixes('k' as u32), [] as [char; 0]);
        assert_eq!(case.fixes.len(), 50);
    }

    #[test]
    fn ranges_skip_surrogates() {
        let mut class = ClassUnicode::empty();
        push_range(&mut class, 0xD000, 0xE005);
        assert_eq!(class.ranges().len(), 1);
        assert!(single(0xD800).ranges().is_empty());
        assert!(has(&complement(&single('a' as u32)), 'b'));
    }
}
