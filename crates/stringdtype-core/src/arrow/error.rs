//! What can go wrong when string arrays cross the Arrow C Data Interface.

use crate::error::Error;

/// An export or import that failed; element indices count from the array's first
/// logical element (after its `offset`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrowError {
    /// A struct that was already released (or never filled in) was handed over.
    Released(&'static str),
    /// A type this module does not read (the Arrow format string).
    UnsupportedFormat(String),
    /// The structs break the C Data Interface (bad length, missing buffer, ...).
    Malformed(String),
    /// Element `index` is not valid UTF-8; `bytes` are its bytes up to the end of the
    /// first invalid sequence (enough to say where and what it is).
    InvalidUtf8 { index: usize, bytes: Vec<u8> },
    /// Element `index` is null, and the destination has no missing value.
    UnexpectedNull { index: usize },
    /// Element `index` is a dictionary key outside the dictionary.
    BadDictionaryKey { index: usize, key: i128, len: usize },
    /// Element `index` is a string view that points outside its data buffers.
    BadView { index: usize },
    /// Element `index` could not be stored (for example it is too long).
    Element { index: usize, error: Error },
    /// Element `index` of an exported array does not point into its arena.
    CorruptView { index: usize },
    /// A stream callback returned an error code.
    Stream { code: i32, message: String },
}

impl ArrowError {
    /// The same error with element indices moved by `base` (for the chunks of a stream).
    pub fn offset_index(self, base: usize) -> ArrowError {
        use ArrowError::*;
        match self {
            InvalidUtf8 { index, bytes } => InvalidUtf8 {
                index: index + base,
                bytes,
            },
            UnexpectedNull { index } => UnexpectedNull {
                index: index + base,
            },
            BadDictionaryKey { index, key, len } => BadDictionaryKey {
                index: index + base,
                key,
                len,
            },
            BadView { index } => BadView {
                index: index + base,
            },
            Element { index, error } => Element {
                index: index + base,
                error,
            },
            CorruptView { index } => CorruptView {
                index: index + base,
            },
            other => other,
        }
    }
}

impl std::fmt::Display for ArrowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrowError::Released(what) => write!(f, "the Arrow {what} was already released"),
            ArrowError::UnsupportedFormat(format) => write!(
                f,
                "unsupported Arrow type {format:?}: expected string (\"u\"), large_string \
                 (\"U\"), string_view (\"vu\") or a dictionary of one of them"
            ),
            ArrowError::Malformed(why) => write!(f, "malformed Arrow array: {why}"),
            ArrowError::InvalidUtf8 { index, .. } => {
                write!(f, "element {index} of the Arrow array is not valid UTF-8")
            }
            ArrowError::UnexpectedNull { index } => write!(
                f,
                "element {index} of the Arrow array is null, but the dtype has no na_object"
            ),
            ArrowError::BadDictionaryKey { index, key, len } => write!(
                f,
                "element {index} of the Arrow array has dictionary key {key}, outside a \
                 dictionary of {len} values"
            ),
            ArrowError::BadView { index } => write!(
                f,
                "element {index} of the Arrow string_view array points outside its data buffers"
            ),
            ArrowError::Element { index, error } => write!(f, "element {index}: {error}"),
            ArrowError::CorruptView { index } => {
                write!(f, "element {index} does not point into the array's arena")
            }
            ArrowError::Stream { code, message } => {
                write!(f, "the Arrow stream failed with error {code}: {message}")
            }
        }
    }
}

impl std::error::Error for ArrowError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ArrowError::Element { error, .. } => Some(error),
            _ => None,
        }
    }
}
