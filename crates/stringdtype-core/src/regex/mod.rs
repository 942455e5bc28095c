//! Python's `re` over UTF-8 strings, run by the `regex` crate's engine where its answer is
//! provably Python's.
//!
//! A Python pattern is parsed here with Python's grammar (`parse`, a port of
//! `re._parser`), translated into the engine's `Hir` with Python's meaning (`translate`:
//! Python's `\d \w \s` from the running Python's Unicode tables ([`UnicodeClasses`]),
//! its case-insensitive matching (`casefold`), its anchors), and compiled into a
//! [`Pattern`]. What the engine cannot
//! express with Python's meaning is reported, never approximated:
//!
//! - a whole pattern the translation cannot express gives
//!   [`PatternError::Unsupported`]: the caller runs Python's `re` on every element;
//! - one string on which the engine could differ from Python (a `\b` next to a character
//!   the two define differently as a word character, a `$` in a string with several
//!   newlines, `\B` on an empty string) gives [`NeedsPython`] from the operation: the
//!   caller runs Python's `re` on that element only.
//!
//! The operations ([`Pattern::search`], [`Pattern::count`], [`Pattern::split`],
//! [`Pattern::sub`], ...) take one string's bytes and answer as `re.search`, `re.findall`,
//! `re.split` and `re.sub` would, including Python's rule for empty matches (`iter`, `nonempty`).
//! Positions are byte offsets into the string.
//!
//! # For the caller
//!
//! 1. Once per process: a [`UnicodeClasses`] over the extension's [`UnicodeTables`]
//!    (classes are built on first use and shared by all patterns).
//! 2. Per pattern: `re.compile(pattern, flags)` in Python first, so invalid patterns raise
//!    Python's `re.error`; then [`Pattern::new`] with `compiled.pattern` and
//!    [`Flags::from_bits`]`(compiled.flags)`. [`PatternError::Unsupported`] means: use
//!    the compiled Python pattern for every element. [`PatternError::TooLarge`] is the
//!    engine's size limit, to report (or, equally correct, to run in Python).
//! 3. Per element: each operation returns `Ok` with Python's answer or
//!    `Err(`[`NeedsPython`]`)`: call the compiled Python pattern for that element.
//!    [`Pattern::engine_is_exact_for`] answers the same question up front.
//! 4. `sub`: [`Pattern::template`] parses `repl` once. [`TemplateError::Invalid`] is
//!    Python's `re.error(message, repl, position)`, [`TemplateError::UnknownGroupName`]
//!    its `IndexError`, [`TemplateError::Unsupported`] a form to leave to Python's
//!    `re.sub` (which raises or substitutes as its version does). A callable `repl` is
//!    Python's too.
//!
//! A [`Pattern`] is `Send + Sync`: run it on many strings with the GIL released.
//!
//! [`UnicodeTables`]: crate::kernels::UnicodeTables
//!
//! # Why this engine
//!
//! The engine is `regex-automata`'s meta regex, which is what `regex::Regex` wraps (and
//! what polars runs): linear time in the string for every pattern (`(a+)+$` on forty
//! `a`s and a `b` answers at once), pure Rust, no C library to build or ship. It is used
//! through `regex-automata` and `regex-syntax` rather than the `regex` facade because the
//! translation builds an `Hir` (no pattern text is ever re-parsed, so nothing Python
//! wrote can reach the engine's parser), one compiled regex serves `search`, `match`
//! (anchored searches) and iteration from a position with look-behind context, and the
//! search runs on `&[u8]` while keeping empty matches on code point boundaries. Chosen
//! against: `fancy-regex` (backtracking, exponential time on hostile patterns; its
//! look-arounds would not make `\w` or case folding Python's), `pcre2` and `onig` (C
//! libraries, backtracking, their own Unicode tables).

mod cache;
mod casefold;
mod classes;
mod expr;
mod first_bytes;
mod iter;
mod lexer;
mod nonempty;
mod parse;
mod pattern;
mod template;
mod translate;
mod tree;

#[cfg(test)]
mod tests_parse;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_prefilter;

pub use classes::{CaseTables, UnicodeClasses};
pub use iter::{CapturesIter, Matches, SubError};
pub use pattern::{Captures, Pattern};
pub use template::{Template, TemplateError};

/// Python's `re` flags, with Python's bit values (`re.IGNORECASE.value == 2`, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u32);

impl Flags {
    /// `re.TEMPLATE` (`re.T`): never supported.
    pub const TEMPLATE: Flags = Flags(1);
    /// `re.IGNORECASE` (`re.I`).
    pub const IGNORECASE: Flags = Flags(2);
    /// `re.LOCALE` (`re.L`): bytes patterns only, never supported.
    pub const LOCALE: Flags = Flags(4);
    /// `re.MULTILINE` (`re.M`).
    pub const MULTILINE: Flags = Flags(8);
    /// `re.DOTALL` (`re.S`).
    pub const DOTALL: Flags = Flags(16);
    /// `re.UNICODE` (`re.U`): the default for `str` patterns.
    pub const UNICODE: Flags = Flags(32);
    /// `re.VERBOSE` (`re.X`).
    pub const VERBOSE: Flags = Flags(64);
    /// `re.DEBUG`: prints when Python compiles, changes nothing here.
    pub const DEBUG: Flags = Flags(128);
    /// `re.ASCII` (`re.A`).
    pub const ASCII: Flags = Flags(256);

    /// No flag.
    pub const fn empty() -> Flags {
        Flags(0)
    }

    /// The flags of a Python integer such as `re.compile(p).flags`; `None` when it holds a
    /// bit Python does not define.
    pub const fn from_bits(bits: u32) -> Option<Flags> {
        if bits & !0x1FF == 0 {
            Some(Flags(bits))
        } else {
            None
        }
    }

    /// The bits, as Python's `int(flags)`.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;

    fn bitor(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// Why a pattern gets no [`Pattern`]: the caller runs Python's `re` instead, or reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern (or a flag) means something the engine cannot express with Python's
    /// semantics, or is not valid Python syntax (which `re.compile` reports first): run
    /// Python's `re` on every element.
    Unsupported {
        /// What is not supported, for messages and tests.
        reason: String,
    },
    /// The compiled pattern would exceed the engine's size limit (such as `\w{10000}`).
    TooLarge {
        /// The limit in bytes that was exceeded.
        limit: usize,
    },
}

impl PatternError {
    pub(crate) fn unsupported(reason: impl Into<String>) -> PatternError {
        PatternError::Unsupported {
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatternError::Unsupported { reason } => {
                write!(f, "pattern not supported by the regex engine: {reason}")
            }
            PatternError::TooLarge { limit } => write!(
                f,
                "regular expression too large: it compiles to more than {limit} bytes"
            ),
        }
    }
}

impl std::error::Error for PatternError {}

/// The engine cannot give Python's answer for this string: run Python's `re` on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NeedsPython {
    /// The pattern has `\b` or `\B` and the string a character that Python and the engine
    /// disagree about being a word character (such as a combining accent or '²').
    WordBoundary,
    /// The pattern has `$` (without MULTILINE) and the string ends with a newline and has
    /// another one before it.
    FinalNewline,
    /// The pattern has `\B`, which never matches an empty string in Python.
    EmptyString,
    /// A variant of the pattern for this string did not compile (size limit).
    Compile,
}

impl std::fmt::Display for NeedsPython {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NeedsPython::WordBoundary => {
                "a word boundary next to a character Python classifies differently"
            }
            NeedsPython::FinalNewline => "'$' in a string with several newlines",
            NeedsPython::EmptyString => "'\\B' on an empty string",
            NeedsPython::Compile => "a variant of the pattern exceeds the size limit",
        })
    }
}

impl std::error::Error for NeedsPython {}
