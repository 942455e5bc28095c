//! From Python's parse tree to the engine's `Hir`, with Python's meaning.
//!
//! [`translate`] turns a [`Parsed`] pattern into an [`Expr`]: every character test becomes
//! an explicit class of code points (Python's `.`, `\d \s \w`, IGNORECASE), every anchor
//! the engine look-around with Python's meaning (`^ $` with MULTILINE see only '\n', `\Z`
//! is the end of the string), and capture groups keep Python's numbers. It records in
//! [`Needs`] what makes the engine's answer depend on the string (`\b`, `\B`, `$`).
//! [`lower`] then builds the `Hir`, choosing what Python's `$` becomes for one string.
//!
//! Repeats whose body can match the empty string need care: sre ends such a loop *after*
//! an empty iteration, which then sets its groups (`re.match('(a|)*', 'aa').span(1) ==
//! (2, 2)`) and can even stop early (`re.match('(?:x|y??)*', 'xyx')` matches only 'x');
//! the engine never lets an iteration match empty. [`without_empty_iterations`] rewrites
//! the repeats where this makes no difference and refuses the others. With a body that
//! always consumes, both engines agree.

use regex_syntax::hir::{self, Class, ClassUnicode, ClassUnicodeRange, Hir, Look};

use super::casefold::Folder;
use super::classes::{complement, push_range, single, UnicodeClasses};
use super::expr::Expr;
use super::tree::{At, Category, Node, Parsed, Seq, Set, SetItem};
use super::{Flags, PatternError};

/// What makes the engine's answer depend on the string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// `\b` or `\B` in Unicode mode: exact only where Python's and the engine's word
    /// characters agree.
    pub unicode_boundary: bool,
    /// `\B` in either mode: Python never matches it in an empty string.
    pub non_boundary: bool,
    /// `$` without MULTILINE.
    pub dollar: bool,
}

/// A translated pattern.
#[derive(Clone, Debug)]
pub struct Translation {
    pub expr: Expr,
    pub needs: Needs,
}

/// Translates a parsed pattern with the classes of `classes`.
pub fn translate(
    parsed: &Parsed,
    classes: &UnicodeClasses<'_>,
) -> Result<Translation, PatternError> {
    let mut translator = Translator {
        classes,
        needs: Needs::default(),
    };
    let expr = translator.seq(&parsed.body, parsed.flags.bits())?;
    Ok(Translation {
        expr,
        needs: translator.needs,
    })
}

const TYPE_FLAGS: u32 = Flags::ASCII.bits() | Flags::LOCALE.bits() | Flags::UNICODE.bits();

/// The flags inside a group with scoped flags (`re._compiler._combine_flags`).
fn combine_flags(flags: u32, add: u32, del: u32) -> u32 {
    let base = if add & TYPE_FLAGS != 0 {
        flags & !TYPE_FLAGS
    } else {
        flags
    };
    (base | add) & !del
}

fn has(flags: u32, flag: Flags) -> bool {
    flags & flag.bits() != 0
}

struct Translator<'a, 't> {
    classes: &'a UnicodeClasses<'t>,
    needs: Needs,
}

impl Translator<'_, '_> {
    fn seq(&mut self, seq: &Seq, flags: u32) -> Result<Expr, PatternError> {
        let mut items = seq
            .iter()
            .map(|node| self.node(node, flags))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match items.len() {
            0 => Expr::Empty,
            1 => items.pop().unwrap_or(Expr::Empty),
            _ => Expr::Concat(items),
        })
    }

    fn node(&mut self, node: &Node, flags: u32) -> Result<Expr, PatternError> {
        let unicode = has(flags, Flags::UNICODE);
        let folder = has(flags, Flags::IGNORECASE).then(|| Folder::new(self.classes, !unicode));
        Ok(match node {
            Node::Literal(c) => Expr::Class(match &folder {
                Some(folder) => folder.literal(*c),
                None => single(*c),
            }),
            Node::NotLiteral(c) => Expr::Class(complement(&match &folder {
                Some(folder) => folder.literal(*c),
                None => single(*c),
            })),
            Node::Any if has(flags, Flags::DOTALL) => {
                Expr::Class(complement(&ClassUnicode::empty()))
            }
            Node::Any => Expr::Class(complement(&single('\n' as u32))),
            Node::Set(set) => {
                let category = |c| self.category(c, unicode);
                Expr::Class(match &folder {
                    Some(folder) => folder.set(set, category)?,
                    None => exact_set(set, category),
                })
            }
            Node::At(at) => self.at(*at, flags),
            Node::Repeat(repeat) => {
                let sub = self.seq(&repeat.body, flags)?;
                let optional = repeat.max.is_none_or(|max| max > repeat.min.max(1));
                if optional && sub.nullable() {
                    return without_empty_iterations(repeat.min, repeat.max, repeat.greedy, sub);
                }
                Expr::Repeat {
                    min: repeat.min,
                    max: repeat.max,
                    greedy: repeat.greedy,
                    sub: Box::new(sub),
                }
            }
            Node::Group(group) => {
                let sub = self.seq(&group.body, combine_flags(flags, group.add, group.del))?;
                match group.index {
                    Some(index) => Expr::Capture {
                        index,
                        sub: Box::new(sub),
                    },
                    None => sub,
                }
            }
            Node::Branch(branches) => Expr::Alt(
                branches
                    .iter()
                    .map(|branch| self.seq(branch, flags))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn at(&mut self, at: At, flags: u32) -> Expr {
        let multiline = has(flags, Flags::MULTILINE);
        let unicode = has(flags, Flags::UNICODE);
        if matches!(at, At::Boundary | At::NonBoundary) {
            self.needs.unicode_boundary |= unicode;
        }
        Expr::Look(match at {
            At::BeginningString => Look::Start,
            At::Beginning if multiline => Look::StartLF,
            At::Beginning => Look::Start,
            At::End if multiline => Look::EndLF,
            At::End => {
                self.needs.dollar = true;
                return Expr::Dollar;
            }
            At::EndString => Look::End,
            At::Boundary if unicode => Look::WordUnicode,
            At::Boundary => Look::WordAscii,
            At::NonBoundary => {
                self.needs.non_boundary = true;
                if unicode {
                    Look::WordUnicodeNegate
                } else {
                    Look::WordAsciiNegate
                }
            }
        })
    }

    /// Python's `\d \D \s \S \w \W`.
    fn category(&self, category: Category, unicode: bool) -> ClassUnicode {
        let ascii = |ranges: &[(char, char)]| {
            ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)))
        };
        let digit = || match unicode {
            true => self.classes.digit().clone(),
            false => ascii(&[('0', '9')]),
        };
        // sre's ASCII `\s` is `Py_ISSPACE`: no '\x1c'..'\x1f', unlike `str.isspace`.
        let space = || match unicode {
            true => self.classes.space().clone(),
            false => ascii(&[('\t', '\r'), (' ', ' ')]),
        };
        let word = || match unicode {
            true => self.classes.word().clone(),
            false => ascii(&[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')]),
        };
        match category {
            Category::Digit => digit(),
            Category::NotDigit => complement(&digit()),
            Category::Space => space(),
            Category::NotSpace => complement(&space()),
            Category::Word => word(),
            Category::NotWord => complement(&word()),
        }
    }
}

/// A repeat with optional iterations of a body that can match empty, as sre runs it.
///
/// sre ends the loop after an optional iteration that matched empty; the engine never
/// lets an iteration match empty. When the body has no groups and tries all its
/// non-empty paths before any empty one (`a*`, `a?b?`, `(?:ab|)`), both amount to
/// "stop iterating" at the same point, so the repeat is the forced iterations (an exact
/// count, which both engines run without the empty check) followed by optional
/// iterations of the body's non-empty paths only. Otherwise the empty iteration is
/// visible: it sets groups (`re.match('(a|)*', 'aa').span(1) == (2, 2)`) or ends the match
/// early (`re.match('(?:x|y??)*', 'xyx')` matches only 'x'); such repeats are refused.
fn without_empty_iterations(
    min: u32,
    max: Option<u32>,
    greedy: bool,
    sub: Expr,
) -> Result<Expr, PatternError> {
    if sub.has_capture() {
        return Err(PatternError::unsupported(
            "a repeated group that can match the empty string and captures (Python sets its \
             groups in a last, empty iteration)",
        ));
    }
    let Some(non_empty) = super::nonempty::non_empty_first(&sub)? else {
        return Err(PatternError::unsupported(
            "a repeated group whose empty match comes before a non-empty one (Python ends the \
             loop there)",
        ));
    };
    let optional = Expr::Repeat {
        min: 0,
        max: max.map(|max| max - min),
        greedy,
        sub: Box::new(non_empty),
    };
    Ok(match min {
        0 => optional,
        _ => Expr::Concat(vec![
            Expr::Repeat {
                min,
                max: Some(min),
                greedy,
                sub: Box::new(sub),
            },
            optional,
        ]),
    })
}

/// A set without IGNORECASE.
fn exact_set(set: &Set, category: impl Fn(Category) -> ClassUnicode) -> ClassUnicode {
    let mut class = ClassUnicode::empty();
    for item in &set.items {
        match *item {
            SetItem::Literal(c) => push_range(&mut class, c, c),
            SetItem::Range(a, b) => push_range(&mut class, a, b),
            SetItem::Category(c) => class.union(&category(c)),
        }
    }
    if set.negate {
        complement(&class)
    } else {
        class
    }
}

/// How capture groups are numbered in the `Hir`.
pub enum Numbering<'a> {
    /// Python's numbers, with the names (`(name, number)`).
    Python(&'a [(String, u32)]),
    /// Numbers in order of first appearance, for an `Expr` whose groups are not in
    /// Python's order: `python[k - 1]` is the Python number of group `k`.
    Renumbered { python: Vec<u32> },
}

/// Builds the `Hir` of `expr`, with `dollar` for Python's `$`.
pub fn lower(expr: &Expr, dollar: Look, numbering: &mut Numbering<'_>) -> Hir {
    match expr {
        Expr::Empty => Hir::empty(),
        Expr::Class(class) => match class.ranges() {
            [range] if range.start() == range.end() => {
                let mut buf = [0; 4];
                Hir::literal(range.start().encode_utf8(&mut buf).as_bytes())
            }
            _ => Hir::class(Class::Unicode(class.clone())),
        },
        Expr::Look(look) => Hir::look(*look),
        Expr::Dollar => Hir::look(dollar),
        Expr::Concat(items) => {
            Hir::concat(items.iter().map(|e| lower(e, dollar, numbering)).collect())
        }
        Expr::Alt(items) => {
            Hir::alternation(items.iter().map(|e| lower(e, dollar, numbering)).collect())
        }
        Expr::Repeat {
            max: Some(0), sub, ..
        } => {
            if !sub.has_capture() {
                return Hir::empty();
            }
            // `(a){0}`: the group exists (numbers after it stay Python's) but never matches.
            let never = Hir::concat(vec![Hir::fail(), lower(sub, dollar, numbering)]);
            Hir::alternation(vec![Hir::empty(), never])
        }
        Expr::Repeat {
            min,
            max,
            greedy,
            sub,
        } => Hir::repetition(hir::Repetition {
            min: *min,
            max: *max,
            greedy: *greedy,
            sub: Box::new(lower(sub, dollar, numbering)),
        }),
        Expr::Capture { index, sub } => {
            let (index, name) = match numbering {
                Numbering::Python(names) => {
                    let name = names
                        .iter()
                        .find(|(_, i)| i == index)
                        .map(|(n, _)| n.as_str().into());
                    (*index, name)
                }
                Numbering::Renumbered { python } => {
                    let position = python.iter().position(|p| p == index).unwrap_or_else(|| {
                        python.push(*index);
                        python.len() - 1
                    });
                    (position as u32 + 1, None)
                }
            };
            Hir::capture(hir::Capture {
                index,
                name,
                sub: Box::new(lower(sub, dollar, numbering)),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::classes::tests::shared;
    use crate::regex::parse::parse;

    fn translated(pattern: &str, flags: Flags) -> Result<Translation, PatternError> {
        translate(&parse(pattern, flags)?, shared())
    }

    fn hir(pattern: &str) -> String {
        let t = translated(pattern, Flags::empty()).unwrap();
        lower(&t.expr, Look::End, &mut Numbering::Python(&[])).to_string()
    }

    #[test]
    fn literals_and_anchors() {
        assert_eq!(hir("abc"), "(?:abc)");
        assert_eq!(hir(r"a\.b"), r"(?:a\.b)");
        assert_eq!(hir(r"\Aa\Z"), r"(?:\Aa\z)");
        assert_eq!(hir("(?m)^a$"), "(?:(?m:^)a(?m:$))");
        assert_eq!(hir("a|b|c"), "[a-c]");
        assert_eq!(hir("(?s)."), "[\0-\u{10ffff}]");
    }

    #[test]
    fn needs() {
        let needs = |p: &str, f| translated(p, f).unwrap().needs;
        assert_eq!(
            needs(r"\bx", Flags::empty()),
            Needs {
                unicode_boundary: true,
                ..Needs::default()
            }
        );
        assert_eq!(needs(r"\bx", Flags::ASCII), Needs::default());
        assert_eq!(
            needs(r"(?a:\B)", Flags::empty()),
            Needs {
                non_boundary: true,
                ..Needs::default()
            }
        );
        assert_eq!(
            needs("x$", Flags::empty()),
            Needs {
                dollar: true,
                ..Needs::default()
            }
        );
        assert_eq!(needs("x$", Flags::MULTILINE), Needs::default());
    }

    #[test]
    fn loops_that_can_match_empty() {
        for pattern in [
            "(a|)*",
            "(x?)+",
            "(?:x|y??)*",
            "(a|){2,}",
            "(?:|a)+",
            r"(?:\b|a){0,3}",
        ] {
            assert!(translated(pattern, Flags::empty()).is_err(), "{pattern}");
        }
        for pattern in [
            "(a|)?",
            "(?:a+)*",
            "(?:a|b)*?",
            "(?:a?b)+",
            "(a|){2}",
            "(?:a|)*",
        ] {
            assert!(translated(pattern, Flags::empty()).is_ok(), "{pattern}");
        }
        // Forced iterations stay, optional ones take the non-empty paths only.
        assert_eq!(hir("(?:a*)*"), "a+*");
        assert_eq!(hir("(?:a?b?){2,}?"), "(?:(?:a?b?){2}(?:(?:ab?)|b)*?)");
        assert_eq!(hir("(?:^)*"), "[a&&b]*");
    }

    #[test]
    fn scoped_flags() {
        // (?i:k) outside ASCII includes the Kelvin sign; (?a) inside turns it off.
        assert_eq!(hir("(?i:k)"), "[Kk\u{212A}]");
        assert_eq!(hir("(?i:(?a:k))"), "[Kk]");
        assert_eq!(hir("(?i)a(?-i:b)"), "(?:[Aa]b)");
    }
}
