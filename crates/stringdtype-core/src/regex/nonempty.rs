//! The first non-empty match at a position, as Python's iteration asks for it.
//!
//! After an empty match at `p`, sre searches again from `p` but rejects an empty match at
//! `p` itself (`must_advance`): it backtracks into the next alternative, so it finds the
//! first *non-empty* path in the pattern's priority order. `re.findall(r'\b|a', 'a')` is
//! `['', 'a', '']`, and `re.sub('a*?', '-', 'baac')` is `'-b-----c-'`. The engine only
//! reports the first path, so [`plan`] rewrites the pattern into one whose paths are
//! exactly the original's non-empty paths, in the same order.
//!
//! The rewrite splits every expression into the ordered runs of its paths: [`Seg::Empty`]
//! (zero-width paths, such as `\b` or a skipped `x?`) and [`Seg::NonEmpty`]. For `A B` the
//! non-empty paths of `A` continue with all of `B`, an empty path of `A` only with the
//! non-empty paths of `B`; a greedy `x*` is `x+` then empty, a lazy one empty then `x+?`
//! (repeats whose body can match empty are refused by the translation). When no
//! non-empty path comes after an empty one (`x*`, `\d+|`), a rejected empty match means
//! there is no non-empty match at that position, and no second pattern is needed.

use super::expr::Expr;
use super::PatternError;

/// How to find the next match after an empty one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NonEmpty {
    /// The pattern never matches empty.
    Never,
    /// No non-empty match can start where an empty one did: search from the next
    /// character.
    NextCharacter,
    /// Try this expression, anchored, at the same position first.
    Retry(Expr),
}

/// A run of paths of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Empty(Expr),
    NonEmpty(Expr),
}

impl Seg {
    fn map(self, f: impl FnOnce(Expr) -> Expr) -> Seg {
        match self {
            Seg::Empty(e) => Seg::Empty(f(e)),
            Seg::NonEmpty(e) => Seg::NonEmpty(f(e)),
        }
    }
}

/// Runs beyond which the rewrite gives up (it grows with the product of the zero-width
/// alternatives of a concatenation).
const MAX_SEGMENTS: usize = 256;

/// How the iteration finds a match after an empty one, for `expr`.
pub fn plan(expr: &Expr) -> Result<NonEmpty, PatternError> {
    if !expr.nullable() {
        return Ok(NonEmpty::Never);
    }
    let segs = segments(expr)?;
    let first_empty = segs.iter().position(|s| matches!(s, Seg::Empty(_)));
    let retry_needed = first_empty
        .is_some_and(|first| segs[first..].iter().any(|s| matches!(s, Seg::NonEmpty(_))));
    if !retry_needed {
        return Ok(NonEmpty::NextCharacter);
    }
    let retry: Vec<Expr> = segs
        .into_iter()
        .filter_map(|seg| match seg {
            Seg::NonEmpty(e) => Some(e),
            Seg::Empty(_) => None,
        })
        .collect();
    let retry = match retry.len() {
        1 => retry.into_iter().next().unwrap_or(Expr::Empty),
        _ => Expr::Alt(retry),
    };
    if retry.size() > 8 * expr.size() + 1000 {
        return Err(too_big());
    }
    Ok(NonEmpty::Retry(retry))
}

/// The non-empty paths of `expr` as one expression, when they all come before its empty
/// paths (`None` otherwise); an expression with no non-empty path gives an empty class.
pub fn non_empty_first(expr: &Expr) -> Result<Option<Expr>, PatternError> {
    let segs = segments(expr)?;
    let first_empty = segs
        .iter()
        .position(|s| matches!(s, Seg::Empty(_)))
        .unwrap_or(segs.len());
    if segs[first_empty..]
        .iter()
        .any(|s| matches!(s, Seg::NonEmpty(_)))
    {
        return Ok(None);
    }
    let mut non_empty: Vec<Expr> = segs
        .into_iter()
        .filter_map(|seg| match seg {
            Seg::NonEmpty(e) => Some(e),
            Seg::Empty(_) => None,
        })
        .collect();
    Ok(Some(match non_empty.len() {
        0 => Expr::Class(regex_syntax::hir::ClassUnicode::empty()),
        1 => non_empty.pop().unwrap_or(Expr::Empty),
        _ => Expr::Alt(non_empty),
    }))
}

fn too_big() -> PatternError {
    PatternError::unsupported("a pattern that matches empty strings in too many ways")
}

/// The runs of paths of `expr`, in priority order.
fn segments(expr: &Expr) -> Result<Vec<Seg>, PatternError> {
    let segs = match expr {
        Expr::Empty | Expr::Look(_) | Expr::Dollar => vec![Seg::Empty(expr.clone())],
        Expr::Class(_) => vec![Seg::NonEmpty(expr.clone())],
        Expr::Alt(items) => {
            let mut segs = Vec::new();
            for item in items {
                segs.extend(segments(item)?);
            }
            segs
        }
        Expr::Concat(items) => match items.split_first() {
            None => vec![Seg::Empty(Expr::Empty)],
            Some((head, [])) => segments(head)?,
            Some((head, tail)) => {
                let rest = Expr::Concat(tail.to_vec());
                let mut rest_segs = None;
                let mut segs = Vec::new();
                for seg in segments(head)? {
                    match seg {
                        Seg::NonEmpty(a) => segs.push(Seg::NonEmpty(concat(a, rest.clone()))),
                        Seg::Empty(a) => {
                            if rest_segs.is_none() {
                                rest_segs = Some(segments(&rest)?);
                            }
                            for b in rest_segs.iter().flatten() {
                                segs.push(b.clone().map(|b| concat(a.clone(), b)));
                            }
                        }
                    }
                    if segs.len() > MAX_SEGMENTS {
                        return Err(too_big());
                    }
                }
                segs
            }
        },
        Expr::Repeat { max: Some(0), .. } => vec![Seg::Empty(expr.clone())],
        Expr::Repeat {
            min,
            max,
            greedy,
            sub,
        } if !sub.nullable() => {
            if *min > 0 {
                vec![Seg::NonEmpty(expr.clone())]
            } else {
                let once = Seg::NonEmpty(Expr::Repeat {
                    min: 1,
                    max: *max,
                    greedy: *greedy,
                    sub: sub.clone(),
                });
                let skip = Seg::Empty(Expr::Empty);
                if *greedy {
                    vec![once, skip]
                } else {
                    vec![skip, once]
                }
            }
        }
        Expr::Repeat {
            min,
            max: Some(1),
            greedy,
            sub,
        } => {
            let mut segs = segments(sub)?;
            if *min == 0 {
                if *greedy {
                    segs.push(Seg::Empty(Expr::Empty));
                } else {
                    segs.insert(0, Seg::Empty(Expr::Empty));
                }
            }
            segs
        }
        Expr::Repeat {
            min,
            max: Some(max),
            sub,
            ..
        } if min == max && *min <= 16 => {
            segments(&Expr::Concat(vec![(**sub).clone(); *min as usize]))?
        }
        Expr::Repeat { .. } => return Err(too_big()),
        Expr::Capture { index, sub } => segments(sub)?
            .into_iter()
            .map(|seg| {
                seg.map(|e| Expr::Capture {
                    index: *index,
                    sub: Box::new(e),
                })
            })
            .collect(),
    };
    if segs.len() > MAX_SEGMENTS {
        return Err(too_big());
    }
    Ok(segs)
}

fn concat(a: Expr, b: Expr) -> Expr {
    let mut items = match a {
        Expr::Concat(items) => items,
        Expr::Empty => Vec::new(),
        a => vec![a],
    };
    match b {
        Expr::Concat(more) => items.extend(more),
        Expr::Empty => {}
        b => items.push(b),
    }
    match items.len() {
        0 => Expr::Empty,
        1 => items.pop().unwrap_or(Expr::Empty),
        _ => Expr::Concat(items),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::classes::tests::shared;
    use crate::regex::parse::parse;
    use crate::regex::translate::{lower, translate, Numbering};
    use crate::regex::Flags;
    use regex_syntax::hir::Look;

    fn planned(pattern: &str) -> NonEmpty {
        let parsed = parse(pattern, Flags::empty()).unwrap();
        plan(&translate(&parsed, shared()).unwrap().expr).unwrap()
    }

    fn retry(pattern: &str) -> String {
        match planned(pattern) {
            NonEmpty::Retry(e) => {
                lower(&e, Look::End, &mut Numbering::Renumbered { python: vec![] }).to_string()
            }
            other => panic!("{pattern}: {other:?}"),
        }
    }

    #[test]
    fn plans() {
        assert_eq!(planned("a+"), NonEmpty::Never);
        assert_eq!(planned("a*"), NonEmpty::NextCharacter);
        assert_eq!(planned(r"\d+|"), NonEmpty::NextCharacter);
        assert_eq!(planned(r"x?\b"), NonEmpty::NextCharacter);
        assert_eq!(planned("^"), NonEmpty::NextCharacter);
        assert_eq!(retry(r"\b|a"), "a");
        assert_eq!(retry("a*?"), "a+?");
        assert_eq!(retry("a??b?"), "(?:b|(?:ab?))");
        assert_eq!(retry("a*?b*"), "(?:b+|(?:a+?b*))");
        assert_eq!(retry("x{0,3}?"), "x{1,3}?");
    }

    #[test]
    fn groups_follow_their_paths() {
        // The second group comes first in the rewrite: it is renumbered.
        let parsed = parse(r"(?:\b|(a))(b)?", Flags::empty()).unwrap();
        let NonEmpty::Retry(e) = plan(&translate(&parsed, shared()).unwrap().expr).unwrap() else {
            panic!()
        };
        let mut numbering = Numbering::Renumbered { python: vec![] };
        let hir = lower(&e, Look::End, &mut numbering).to_string();
        assert_eq!(hir, r"(?:(?:\b(b))|(?:(a)(b)?))");
        let Numbering::Renumbered { python } = numbering else {
            panic!()
        };
        assert_eq!(python, [2, 1]);
    }
}
