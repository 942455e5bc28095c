//! The error type of the pure layers.

use crate::view::{TooLong, View};

/// Everything that can go wrong in the view, arena and kernel layers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A string longer than one element can hold (2^31 - 1 bytes).
    StringTooLong(usize),
    /// A view that names no live string's bytes.
    CorruptView(View),
    /// The allocator could not give this many bytes.
    OutOfMemory(usize),
    /// An arena already holds the most chunks it can, or the process the most arenas
    /// (the limit that was reached).
    ArenaFull(&'static str),
    /// A UCS4 code unit that is no Unicode scalar value (a surrogate or over U+10FFFF).
    InvalidCodePoint(u32),
    /// Bytes that are not UTF-8 where a string's text is decoded (the cast to `U`).
    InvalidUtf8(std::str::Utf8Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::StringTooLong(len) => write!(
                f,
                "string of {len} bytes is longer than the maximum of {} bytes",
                crate::view::MAX_STRING_LEN
            ),
            Error::CorruptView(view) => write!(
                f,
                "corrupt string element {view:?}: it points at no live string of any array"
            ),
            Error::OutOfMemory(0) => write!(f, "out of memory"),
            Error::OutOfMemory(bytes) => write!(f, "cannot allocate {bytes} bytes"),
            Error::ArenaFull(limit) => write!(f, "too many string chunks: {limit}"),
            // NumPy's message, which names no code point.
            Error::InvalidCodePoint(_) => write!(f, "Invalid unicode code point found"),
            Error::InvalidUtf8(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<TooLong> for Error {
    fn from(TooLong(len): TooLong) -> Error {
        Error::StringTooLong(len)
    }
}

/// Result of the pure layers.
pub type Result<T, E = Error> = std::result::Result<T, E>;
