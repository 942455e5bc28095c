//! Python's `re` over UTF-8 strings, run by the `regex` crate's engine where its answer is
//! provably Python's.
//!
//! [`parse`] reads a pattern with Python's grammar.

pub mod parse;


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
