//! String kernels: the algorithms behind `np.strings`, as safe functions over bytes.
//!
//! Every kernel takes UTF-8 `&[u8]` (callers guarantee validity; invalid bytes never cause
//! undefined behaviour, only meaningless results) and follows Python 3.11's `str` method of
//! the same name. Results are sub-slices of the input where possible (strip, partition,
//! step-1 slices), plain values, or bytes appended to a caller's `Vec<u8>` (never cleared).
//! Positions and lengths are in code points, as in Python; all kernels check once whether
//! a string (or the part they touch) is ASCII and then work on bytes.
//!
//! [`ucs4`] converts the casts' fixed-width `U` elements (UCS4 code units) to UTF-8 and
//! back, and checks both sides.
//!
//! Kernels that need Unicode character data outside ASCII are generic over
//! [`UnicodeTables`], implemented by the extension with tables generated from the Python
//! it is built for.

pub mod case;
pub mod compare;
pub mod join_chars;
pub mod length;
pub mod pad;
pub mod partition;
pub mod predicates;
pub mod replace;
pub mod search;
pub mod slice;
pub mod slice_replace;
pub mod sort_keys;
pub mod split;
pub mod strip;
pub mod translate;
pub mod ucs4;
pub mod unicode;

pub use case::{
    capitalize, capitalize_ascii, casefold, inline_ascii_case, lower, lower_ascii, swapcase,
    swapcase_ascii, title, title_ascii, upper, upper_ascii, AsciiCase,
};
pub use compare::{compare_bytes, compare_views, eq_views, Comparison};
pub use join_chars::{join_chars, join_chars_len};
pub use length::{inline_str_len, short_str_len, str_len};
pub use memchr::memmem::Finder;
pub use pad::{expanded_len, expandtabs, fill_char, justify, pad_margin, zfill_margin, Justify};
pub use partition::{partition, rpartition, Parts};
pub use predicates::{
    from_view, isalnum, isalpha, isdecimal, isdigit, islower, isnumeric, isspace, istitle, isupper,
    Predicate,
};
pub use replace::{replace, replace_size, replace_with};
pub use search::{
    count, endswith, find, inline_endswith, rfind, startswith, ByteMatches, Needle, Suffix,
};
pub use slice::{inline_ascii_slice, slice, slice_contiguous};
pub use slice_replace::{inline_ascii_slice_replace, slice_replace};
pub use split::{split, Separator, SplitAt};
pub use strip::{inline_ascii_strip_whitespace, strip_chars, strip_whitespace, CharSet, Side};
pub use translate::{inline_unchanged, translate, Replacement, TranslateTable};
pub use ucs4::{inline_ascii_to_ucs4, ucs4_to_utf8, utf8_to_ucs4};
pub use unicode::{CaseMapping, UnicodeTables};

/// A bad argument to a kernel, which Python reports as `ValueError` (a fill character,
/// as NumPy does, and a `translate` value of the wrong type, as Python does, as
/// `TypeError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentError {
    /// `partition` and `rpartition` with an empty separator.
    EmptySeparator,
    /// A slice with step 0.
    ZeroStep,
    /// A fill character of `center`, `ljust` or `rjust` that is empty or not UTF-8.
    FillCharacter,
    /// A `translate` table that maps a character to an integer outside
    /// `range(0x110000)`.
    MappingRange,
    /// A `translate` table that maps a character to something other than an integer,
    /// `None` or a `str`.
    MappingType,
    /// A `translate` table that maps a character to a surrogate, which UTF-8 cannot hold.
    MappingSurrogate,
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Python's own messages, and NumPy's for the fill character.
        f.write_str(match self {
            ArgumentError::EmptySeparator => "empty separator",
            ArgumentError::ZeroStep => "slice step cannot be zero",
            ArgumentError::FillCharacter => "The fill character must be exactly one character long",
            ArgumentError::MappingRange => "character mapping must be in range(0x110000)",
            ArgumentError::MappingType => "character mapping must return integer, None or str",
            ArgumentError::MappingSurrogate => {
                "character mapping gives a surrogate, which a UTF-8 string cannot hold"
            }
        })
    }
}

impl std::error::Error for ArgumentError {}
