//! IGNORECASE as Python's sre does it, turned into plain character classes.
//!
//! sre does not case-fold. For a `str` pattern (Unicode) it compares lower cases: a cased
//! literal `c` matches a character `ch` when `lower(ch) == lower(c)` or `lower(ch)` is one
//! of `_EXTRA_CASES[lower(c)]` (so `(?i)i` matches 'ı' and `(?i)k` matches the Kelvin
//! sign); a set with a cased member matches `ch` when `lower(ch)` is in the set built from
//! the lower cases of its members (`re._compiler._optimize_charset`), quirks included:
//! members above U+FFFF are compared unlowered, and a range reaching above U+FFFF also
//! matches through `upper(lower(ch))`. The engine's `(?i)` uses Unicode simple case
//! folding instead, which differs (it does not match 'ı' with 'i', and it matches 'ß' with
//! 'ẞ' both ways where Python only matches `(?i)ẞ` against 'ß'), so the translation
//! never uses it: [`Folder`] computes, for every cased literal and set, the class of all
//! code points sre would accept, from the [`CaseTables`] of the running Python.
//!
//! With ASCII, sre lowers ASCII letters only and has no extra cases.

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

use super::classes::{complement, push_range, single, CaseTables, UnicodeClasses};
use super::tree::{Category, Set, SetItem};
use super::PatternError;

/// sre's charset map covers the BMP; a lowered member beyond it is kept apart.
const BMP_MAX: u32 = 0xFFFF;

/// Case-insensitive classes in sre's Unicode or ASCII mode.
pub(crate) struct Folder<'a, 't> {
    classes: &'a UnicodeClasses<'t>,
    ascii: bool,
}

impl<'a, 't> Folder<'a, 't> {
    pub(crate) fn new(classes: &'a UnicodeClasses<'t>, ascii: bool) -> Folder<'a, 't> {
        Folder { classes, ascii }
    }

    fn case(&self) -> &'a CaseTables {
        self.classes.case()
    }

    /// sre's `lower` for the mode.
    fn lower(&self, c: u32) -> u32 {
        if self.ascii {
            u8::try_from(c).map_or(c, |b| u32::from(b.to_ascii_lowercase()))
        } else {
            self.case().lower(c)
        }
    }

    /// sre's `iscased` for the mode.
    fn is_cased(&self, c: u32) -> bool {
        if self.ascii {
            u8::try_from(c).is_ok_and(|b| b.is_ascii_alphabetic())
        } else {
            self.case().is_cased(c)
        }
    }

    fn any_cased(&self, lo: u32, hi: u32) -> bool {
        if self.ascii {
            let mut range = ClassUnicode::empty();
            push_range(&mut range, lo, hi);
            range.intersect(&ascii_letters());
            !range.ranges().is_empty()
        } else {
            self.case().any_cased(lo, hi)
        }
    }

    fn fixes(&self, lo: u32) -> &'a [char] {
        if self.ascii {
            &[]
        } else {
            self.case().fixes(lo)
        }
    }

    /// The code points whose lower case is in `set`.
    fn preimage(&self, set: &ClassUnicode) -> ClassUnicode {
        if !self.ascii {
            return self.case().lower_preimage(set);
        }
        let mut result = set.clone();
        let upper = ClassUnicode::new([ClassUnicodeRange::new('A', 'Z')]);
        result.difference(&upper);
        for c in 'A'..='Z' {
            if super::classes::contains(set, c.to_ascii_lowercase()) {
                result.push(ClassUnicodeRange::new(c, c));
            }
        }
        result
    }

    /// `{lower(c) for c in lo..=hi}`.
    fn lower_image(&self, lo: u32, hi: u32) -> ClassUnicode {
        if !self.ascii {
            return self.case().lower_image(lo, hi);
        }
        let mut image = ClassUnicode::empty();
        push_range(&mut image, lo, hi);
        let mut upper = image.clone();
        upper.intersect(&ClassUnicode::new([ClassUnicodeRange::new('A', 'Z')]));
        for range in upper.ranges() {
            let (a, b) = (
                range.start().to_ascii_lowercase(),
                range.end().to_ascii_lowercase(),
            );
            image.push(ClassUnicodeRange::new(a, b));
        }
        image
    }

    /// The code points a literal `c` matches (sre's `LITERAL` with IGNORECASE).
    pub(crate) fn literal(&self, c: u32) -> ClassUnicode {
        if !self.is_cased(c) {
            return single(c);
        }
        let lo = self.lower(c);
        let mut targets = single(lo);
        for &k in self.fixes(lo) {
            targets.push(ClassUnicodeRange::new(k, k));
        }
        self.preimage(&targets)
    }

    /// The code points a set matches (sre's `IN` with IGNORECASE); `category` gives the
    /// class of `\d` and friends in the set's mode.
    pub(crate) fn set(
        &self,
        set: &Set,
        category: impl Fn(Category) -> ClassUnicode,
    ) -> Result<ClassUnicode, PatternError> {
        // `exact` is the set as written, used when no member is cased; `lowered` holds the
        // values `lower(ch)` may take for `ch` to match.
        let mut exact = ClassUnicode::empty();
        let mut lowered = ClassUnicode::empty();
        let mut has_cased = false;
        for item in &set.items {
            match *item {
                SetItem::Literal(v) => {
                    exact.union(&single(v));
                    has_cased |= self.lowered_literal(v, &mut lowered);
                }
                SetItem::Range(a, b) => {
                    push_range(&mut exact, a, b);
                    has_cased |= self.lowered_range(a, b, &mut lowered)?;
                }
                SetItem::Category(c) => {
                    let class = category(c);
                    exact.union(&class);
                    lowered.union(&class);
                }
            }
        }
        let matched = if has_cased {
            self.preimage(&lowered)
        } else {
            exact
        };
        Ok(if set.negate {
            complement(&matched)
        } else {
            matched
        })
    }

    /// Adds what a literal member `v` contributes to `lowered`; whether it makes the set
    /// cased.
    fn lowered_literal(&self, v: u32, lowered: &mut ClassUnicode) -> bool {
        let lo = self.lower(v);
        if lo > BMP_MAX {
            // sre keeps the member itself, unlowered, and calls the set cased.
            lowered.union(&single(v));
            return true;
        }
        lowered.union(&single(lo));
        for &k in self.fixes(lo) {
            if u32::from(k) > BMP_MAX {
                lowered.union(&single(v));
                return true;
            }
            lowered.push(ClassUnicodeRange::new(k, k));
        }
        self.is_cased(v)
    }

    /// Adds what a range member contributes to `lowered`; whether it makes the set cased.
    fn lowered_range(
        &self,
        a: u32,
        b: u32,
        lowered: &mut ClassUnicode,
    ) -> Result<bool, PatternError> {
        // sre lowers the range's code points in order into a BMP map and, at the first
        // one whose lower case lies beyond it, keeps what it has and adds the whole range
        // as RANGE_UNI_IGNORE: lower(ch) in a..=b or upper(lower(ch)) in a..=b.
        let stop = self.first_lowered_beyond_bmp(a, b);
        if stop != Some(a) {
            let image = self.lower_image(a, stop.map_or(b, |s| s - 1));
            let mut extra = ClassUnicode::empty();
            // ASCII mode has no extra cases (and needs no Unicode case tables here).
            let fixes = match self.ascii {
                true => None,
                false => Some(self.case().fixes_in(&image)),
            };
            for fixes in fixes.into_iter().flatten() {
                if fixes.iter().any(|&k| u32::from(k) > BMP_MAX) {
                    return Err(PatternError::unsupported(
                        "an IGNORECASE range whose extra cases lie beyond U+FFFF",
                    ));
                }
                extra.union(&ClassUnicode::new(
                    fixes.iter().map(|&k| ClassUnicodeRange::new(k, k)),
                ));
            }
            lowered.union(&image);
            lowered.union(&extra);
        }
        if stop.is_none() {
            return Ok(self.any_cased(a, b));
        }
        let mut range = ClassUnicode::empty();
        push_range(&mut range, a, b);
        lowered.union(&self.case().upper_preimage(&range));
        lowered.union(&range);
        Ok(true)
    }

    /// The first code point of `a..=b` whose lower case is beyond U+FFFF.
    fn first_lowered_beyond_bmp(&self, a: u32, b: u32) -> Option<u32> {
        // BMP code points that lower beyond the BMP (none in Unicode 15), then the first
        // code point beyond the BMP that does not lower into it.
        let in_bmp = match self.ascii {
            true => None,
            false => self
                .case()
                .first_lowering_beyond(a, b.min(BMP_MAX), BMP_MAX),
        };
        in_bmp.or_else(|| (a.max(BMP_MAX + 1)..=b).find(|&c| self.lower(c) > BMP_MAX))
    }
}

fn ascii_letters() -> ClassUnicode {
    ClassUnicode::new([
        ClassUnicodeRange::new('A', 'Z'),
        ClassUnicodeRange::new('a', 'z'),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::classes::contains;
    use crate::regex::classes::tests::shared;

    fn chars(class: &ClassUnicode) -> String {
        class.iter().flat_map(|r| r.start()..=r.end()).collect()
    }

    fn unicode() -> Folder<'static, 'static> {
        Folder::new(shared(), false)
    }

    #[test]
    fn literals_follow_sre() {
        let f = unicode();
        // Python: [c for c in map(chr, range(0x110000)) if re.fullmatch('(?i)k', c)]
        assert_eq!(chars(&f.literal('k' as u32)), "Kk\u{212A}");
        assert_eq!(chars(&f.literal('i' as u32)), "Iiİı");
        assert_eq!(chars(&f.literal('ı' as u32)), "Iiİı");
        assert_eq!(chars(&f.literal('s' as u32)), "Ssſ");
        // 'ß' is cased for sre (its upper case starts with 'S'); only 'ẞ' lowers to it.
        assert_eq!(chars(&f.literal('ß' as u32)), "ßẞ");
        assert_eq!(chars(&f.literal('ẞ' as u32)), "ßẞ");
        assert_eq!(chars(&f.literal('1' as u32)), "1");
        assert_eq!(chars(&f.literal(0x10400)), "\u{10400}\u{10428}");
        let ascii = Folder::new(shared(), true);
        assert_eq!(chars(&ascii.literal('k' as u32)), "Kk");
        assert_eq!(chars(&ascii.literal(0x212A)), "\u{212A}");
    }

    fn set(items: Vec<SetItem>) -> Set {
        Set {
            negate: false,
            items,
        }
    }

    fn no_category(_: Category) -> ClassUnicode {
        ClassUnicode::empty()
    }

    #[test]
    fn sets_follow_sre() {
        let f = unicode();
        let lit = |c: char| SetItem::Literal(c as u32);
        // re.fullmatch('(?i)[a-c]', c)
        let class = f
            .set(
                &set(vec![SetItem::Range('a' as u32, 'c' as u32)]),
                no_category,
            )
            .unwrap();
        assert_eq!(chars(&class), "ABCabc");
        // A set without cased members is exact: '(?i)[1-3]'.
        let class = f
            .set(
                &set(vec![SetItem::Range('1' as u32, '3' as u32)]),
                no_category,
            )
            .unwrap();
        assert_eq!(chars(&class), "123");
        // re.fullmatch('(?i)[𐐀x]', '𐐀') is None: the member above U+FFFF is not lowered.
        let class = f
            .set(&set(vec![lit('\u{10400}'), lit('x')]), no_category)
            .unwrap();
        assert_eq!(chars(&class), "Xx");
        // re.fullmatch('(?i)[𐐨-𐐩]', '𐐀') matches through the upper case.
        let class = f
            .set(&set(vec![SetItem::Range(0x10428, 0x10429)]), no_category)
            .unwrap();
        assert_eq!(chars(&class), "\u{10400}\u{10401}\u{10428}\u{10429}");
        let negated = Set {
            negate: true,
            items: vec![lit('k'), lit('1')],
        };
        let class = f.set(&negated, no_category).unwrap();
        assert!(!contains(&class, '\u{212A}') && !contains(&class, 'K') && contains(&class, 'x'));
    }
}
