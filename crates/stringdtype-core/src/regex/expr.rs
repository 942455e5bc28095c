//! A pattern in the engine's terms: what the translation builds and the engine's tree
//! is made from.

use regex_syntax::hir::{ClassUnicode, Look};

/// A pattern in the engine's terms, before the choice of `$`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// Matches the empty string.
    Empty,
    /// One code point of the class (an empty class never matches).
    Class(ClassUnicode),
    /// A look-around with the same meaning in Python and the engine.
    Look(Look),
    /// Python's `$` without MULTILINE: at the end, or before a final '\n'.
    Dollar,
    /// One after the other.
    Concat(Vec<Expr>),
    /// Alternatives, tried in order.
    Alt(Vec<Expr>),
    /// `sub` from `min` to `max` (`None`: no maximum) times.
    Repeat {
        min: u32,
        max: Option<u32>,
        greedy: bool,
        sub: Box<Expr>,
    },
    /// Capture group `index` (Python's number).
    Capture { index: u32, sub: Box<Expr> },
}

impl Expr {
    /// Whether the expression can match the empty string (at some position).
    pub fn nullable(&self) -> bool {
        match self {
            Expr::Empty | Expr::Look(_) | Expr::Dollar => true,
            Expr::Class(_) => false,
            Expr::Concat(items) => items.iter().all(Expr::nullable),
            Expr::Alt(items) => items.iter().any(Expr::nullable),
            Expr::Repeat { min, sub, .. } => *min == 0 || sub.nullable(),
            Expr::Capture { sub, .. } => sub.nullable(),
        }
    }

    /// The number of nodes, a measure of the compiled size.
    pub fn size(&self) -> usize {
        1 + match self {
            Expr::Concat(items) | Expr::Alt(items) => items.iter().map(Expr::size).sum(),
            Expr::Repeat { sub, .. } | Expr::Capture { sub, .. } => sub.size(),
            _ => 0,
        }
    }

    pub fn has_capture(&self) -> bool {
        match self {
            Expr::Capture { .. } => true,
            Expr::Concat(items) | Expr::Alt(items) => items.iter().any(Expr::has_capture),
            Expr::Repeat { sub, .. } => sub.has_capture(),
            _ => false,
        }
    }
}
