//! The tree of a parsed Python pattern: the items of `re._parser`'s `SubPattern`, with
//! Python's numbering of groups and the flags in effect.

use super::{Flags, PatternError};

/// The result of parsing.
pub(crate) type Result<T> = std::result::Result<T, PatternError>;

pub(crate) fn unsupported<T>(reason: impl Into<String>) -> Result<T> {
    Err(PatternError::unsupported(reason))
}

pub(crate) fn invalid<T>(what: &str) -> Result<T> {
    unsupported(format!("not a valid Python pattern ({what})"))
}

/// A sequence of items matched one after the other (Python's `SubPattern`).
pub type Seq = Vec<Node>;

/// One item of a pattern, as Python's parser builds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A code point (`LITERAL`); it may be a surrogate, which no UTF-8 string holds.
    Literal(u32),
    /// Any code point but this one (`NOT_LITERAL`, from `[^x]`).
    NotLiteral(u32),
    /// `.` (`ANY`).
    Any,
    /// A character set (`IN`), also `\d` and friends outside brackets.
    Set(Set),
    /// A zero-width assertion (`AT`).
    At(At),
    /// A greedy or lazy repeat (`MAX_REPEAT`, `MIN_REPEAT`).
    Repeat(Box<Repeat>),
    /// A group (`SUBPATTERN`): capturing, or carrying scoped flags, or both.
    Group(Box<Group>),
    /// Alternatives (`BRANCH`), tried in order.
    Branch(Vec<Seq>),
}

/// A character set: `negate` is Python's leading `NEGATE` item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Set {
    /// Whether the set is `[^...]`.
    pub negate: bool,
    /// The members, in pattern order without repeats.
    pub items: Vec<SetItem>,
}

/// A member of a character set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetItem {
    /// One code point.
    Literal(u32),
    /// An inclusive range of code points.
    Range(u32, u32),
    /// `\d \D \s \S \w \W`.
    Category(Category),
}

/// The classes of `\d \D \s \S \w \W`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

/// The zero-width assertions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// `\A`.
    BeginningString,
    /// `^`.
    Beginning,
    /// `$`.
    End,
    /// `\Z`.
    EndString,
    /// `\b`.
    Boundary,
    /// `\B`.
    NonBoundary,
}

/// A repeat of `body` from `min` to `max` (`None`: no maximum) times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    pub min: u32,
    pub max: Option<u32>,
    pub greedy: bool,
    pub body: Seq,
}

/// A group: `index` is the capture group number (`None`: not capturing); `add` and `del`
/// are the bits of scoped flags, `(?i-s:...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub index: Option<u32>,
    pub add: u32,
    pub del: u32,
    pub body: Seq,
}

/// A parsed pattern.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The items.
    pub body: Seq,
    /// The flags for the whole pattern: the caller's, inline global flags such as a
    /// leading `(?i)`, and `UNICODE` unless `ASCII` (Python's `fix_flags`).
    pub flags: Flags,
    /// The number of capture groups.
    pub groups: u32,
    /// Group names with their numbers, in pattern order.
    pub names: Vec<(String, u32)>,
}
