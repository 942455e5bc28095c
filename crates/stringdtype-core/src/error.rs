//! The error type of the pure layers.

use crate::view::View;

/// Everything that can go wrong in the view, arena and kernel layers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A string longer than one element can hold (2^31 - 1 bytes).
    StringTooLong(usize),
    /// A view that does not point into the arena it was read with.
    CorruptView(View),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::StringTooLong(len) => write!(
                f,
                "string of {len} bytes is longer than the maximum of {} bytes",
                crate::view::MAX_STRING_LEN
            ),
            Error::CorruptView(view) => {
                write!(
                    f,
                    "corrupt string element {view:?}: it points outside its arena"
                )
            }
        }
    }
}

impl std::error::Error for Error {}

/// Result of the pure layers.
pub type Result<T, E = Error> = std::result::Result<T, E>;
