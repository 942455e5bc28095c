//! The element of a StringDType array: a 16-byte Arrow `Utf8View` view.
//!
//! ```text
//!  len <= 12:   | len: u32 | data: 12 bytes, inline, zero padded         |
//!  len >  12:   | len: u32 | prefix: 4 bytes | chunk: u32 | offset: u32   |
//! ```
//!
//! All fields are little-endian. All-zero bytes are the empty string, so zero-filled
//! memory is a valid array of empty strings. Arrow keeps the length in a non-negative
//! `i32`; its top bit is free and marks a missing element (the dtype's `na_object`).

/// Longest string one element can hold, in bytes (Arrow's `i32` length).
pub const MAX_STRING_LEN: usize = i32::MAX as usize;

/// Longest string kept inside the view itself.
pub const MAX_INLINE_LEN: usize = 12;

const NA_BIT: u32 = 1 << 31;

/// One element: an Arrow string view, or a missing value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(8))]
pub struct View {
    /// The 16 bytes as two words, in memory order. Methods read them as little-endian
    /// integers: whole words keep views in registers, where byte fields would make the
    /// compiler assemble them on the stack and stall the loads that follow.
    raw: [u64; 2],
}

/// A string of this many bytes is longer than an element can hold ([`MAX_STRING_LEN`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLong(pub usize);

/// Where the bytes of a long string live in an [`crate::arena::Arena`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Location {
    pub chunk: u32,
    pub offset: u32,
}

impl View {
    /// The empty string (all zero bytes).
    pub const EMPTY: View = View { raw: [0; 2] };

    /// The missing value: length field with only the top bit set.
    pub const NA: View = View::from_words(NA_BIT as u64, 0);

    /// The view whose bytes `0..8` and `8..16` are the little-endian `low` and `high`.
    #[inline]
    pub const fn from_words(low: u64, high: u64) -> View {
        View {
            raw: [low.to_le(), high.to_le()],
        }
    }

    /// Bytes `0..8` (length and prefix) as a little-endian integer.
    #[inline]
    fn low(self) -> u64 {
        u64::from_le(self.raw[0])
    }

    /// Bytes `8..16` (inline data, or chunk and offset) as a little-endian integer.
    #[inline]
    fn high(self) -> u64 {
        u64::from_le(self.raw[1])
    }

    /// A view holding `data` inline, or `None` when it is longer than 12 bytes.
    #[inline]
    pub fn try_inline(data: &[u8]) -> Option<View> {
        if data.len() > MAX_INLINE_LEN {
            return None;
        }
        // Built in registers from at most two overlapping loads instead of a
        // variable-length copy, which would stall the 16-byte read that follows.
        let payload = crate::swar::load(data);
        Some(View::from_lanes(payload, data.len()))
    }

    /// The concatenation of two strings that fits inline, built from the two views
    /// alone; `None` when either is missing or long, or the result does not fit.
    #[inline]
    pub fn concat_inline(a: View, b: View) -> Option<View> {
        let (la, lb) = (a.low() as u32, b.low() as u32);
        // The missing bit makes a length field too large to pass this test.
        if la as usize + lb as usize > MAX_INLINE_LEN {
            return None;
        }
        let data = a.data_lanes() | (b.data_lanes() << (8 * la));
        Some(View::from_lanes(data, (la + lb) as usize))
    }

    /// `count` copies of a string that fit inline, built from its view alone; `None` when
    /// the string is missing or long, or the result does not fit.
    #[inline]
    pub fn repeat_inline(view: View, count: usize) -> Option<View> {
        if view.is_na() {
            return None;
        }
        if view.is_empty() {
            // Any number of copies of nothing, without counting them.
            return Some(View::EMPTY);
        }
        let total = view
            .len()
            .checked_mul(count)
            .filter(|&t| t <= MAX_INLINE_LEN)?;
        let len = view.len();
        let data = view.data_lanes();
        let repeated = (0..count).fold(0u128, |acc, k| acc | (data << (8 * len * k)));
        Some(View::from_lanes(repeated, total))
    }

    /// A view of a long string (`len > 12`) whose bytes start with `data[..4]` and live at
    /// `location`. Errors when `len` is over [`MAX_STRING_LEN`] (the crate's `Error`
    /// converts from [`TooLong`]).
    #[inline]
    pub fn long(len: usize, prefix: [u8; 4], location: Location) -> Result<View, TooLong> {
        debug_assert!(len > MAX_INLINE_LEN);
        if len > MAX_STRING_LEN {
            return Err(TooLong(len));
        }
        let low = len as u64 | (u64::from(u32::from_le_bytes(prefix)) << 32);
        let high = u64::from(location.chunk) | (u64::from(location.offset) << 32);
        Ok(View::from_words(low, high))
    }

    /// The same long string with its bytes in chunk `chunk` (at the same offset).
    #[inline]
    pub fn with_chunk(self, chunk: u32) -> View {
        debug_assert!(!self.is_inline());
        View::from_words(self.low(), (self.high() & !0xffff_ffff) | u64::from(chunk))
    }

    /// Reinterprets 16 raw bytes (for example an element of a NumPy array).
    #[inline]
    pub const fn from_bytes(bytes: [u8; 16]) -> View {
        let value = u128::from_le_bytes(bytes);
        View::from_words(value as u64, (value >> 64) as u64)
    }

    /// The view as it is stored.
    #[inline]
    pub const fn to_bytes(self) -> [u8; 16] {
        let value = u64::from_le(self.raw[0]) as u128 | ((u64::from_le(self.raw[1]) as u128) << 64);
        value.to_le_bytes()
    }

    /// The whole view as one integer, for comparisons that decide from the view alone.
    #[inline]
    pub fn as_u128(self) -> u128 {
        u128::from(self.low()) | (u128::from(self.high()) << 64)
    }

    /// The twelve bytes after the length field as the low lanes of one integer: an inline
    /// string's bytes, zero above them (a long string's prefix and location).
    #[inline]
    pub fn data_lanes(self) -> u128 {
        self.as_u128() >> 32
    }

    /// The inline view of the `len` bytes in the low lanes of `data`, whose other lanes
    /// must be zero (`len <= 12`).
    #[inline]
    pub(crate) fn from_lanes(data: u128, len: usize) -> View {
        debug_assert!(len <= MAX_INLINE_LEN && data & !crate::swar::low_bytes(len) == 0);
        View::from_u128((data << 32) | len as u128)
    }

    /// The view whose 16 bytes are `value`, little-endian (the inverse of `as_u128`).
    #[inline]
    pub(crate) fn from_u128(value: u128) -> View {
        View::from_words(value as u64, (value >> 64) as u64)
    }

    #[inline]
    fn len_field(self) -> u32 {
        self.low() as u32
    }

    /// Whether this element is the missing value.
    #[inline]
    pub fn is_na(self) -> bool {
        self.len_field() & NA_BIT != 0
    }

    /// Length of the string in bytes (0 for a missing value).
    #[inline]
    pub fn len(self) -> usize {
        if self.is_na() {
            0
        } else {
            self.len_field() as usize
        }
    }

    /// Whether the string is empty (a missing value is not a string, and counts as empty).
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether the bytes live inside the view (missing values count as inline).
    #[inline]
    pub fn is_inline(self) -> bool {
        self.len() <= MAX_INLINE_LEN
    }

    /// Whether this element is a long string, one that names a block of an arena: in one
    /// compare, so that a loop can count or gather the long views of a random mix
    /// without a branch to mispredict (`len_field` from 13 up to the missing value's).
    #[inline]
    pub fn is_long(self) -> bool {
        self.is_long_or_na(false)
    }

    /// Whether this element is a long string or, when `or_na`, a missing value, in one
    /// compare (`len_field` from 13 up to below the missing value's, or to the top): a
    /// copy gathers the elements it must store in an arena with it.
    #[inline]
    pub fn is_long_or_na(self, or_na: bool) -> bool {
        let first_long = MAX_INLINE_LEN as u32 + 1;
        let top = if or_na { u32::MAX } else { NA_BIT - 1 };
        self.len_field().wrapping_sub(first_long) <= top - first_long
    }

    /// Whether this element is a string held inline (not a long string, not missing), in
    /// one compare: the missing value's length field is above any inline length.
    #[inline]
    pub fn is_inline_string(self) -> bool {
        self.len_field() <= MAX_INLINE_LEN as u32
    }

    /// The inline bytes, or `None` for a long string.
    #[inline]
    pub fn inline_bytes(&self) -> Option<&[u8]> {
        let len = self.len();
        // SAFETY: a view is 16 initialised bytes in memory order, and `4 + len <= 16`.
        (len <= MAX_INLINE_LEN).then(|| unsafe {
            std::slice::from_raw_parts((self as *const View).cast::<u8>().add(4), len)
        })
    }

    /// The data bytes of an inline, all-ASCII string as byte lanes (zero past the
    /// string), or `None` for a missing or long string or one with a non-ASCII byte.
    #[inline]
    pub fn inline_ascii_lanes(self) -> Option<u128> {
        if !self.is_inline_string() {
            return None;
        }
        // The padding lanes of an inline view are zero, so any top bit is a non-ASCII byte.
        let data = self.data_lanes();
        (data & crate::swar::TOPS == 0).then_some(data)
    }

    /// The first four bytes of the string, zero padded.
    #[inline]
    pub fn prefix(self) -> [u8; 4] {
        ((self.low() >> 32) as u32).to_le_bytes()
    }

    /// Length and prefix as one integer: the first eight bytes of the view.
    #[inline]
    pub fn len_and_prefix(self) -> u64 {
        self.low()
    }

    /// Where a long string's bytes live; `None` for inline strings and missing values.
    #[inline]
    pub fn location(self) -> Option<Location> {
        if self.is_inline() {
            return None;
        }
        Some(Location {
            chunk: self.high() as u32,
            offset: (self.high() >> 32) as u32,
        })
    }
}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_na() {
            return f.write_str("View(NA)");
        }
        match self.inline_bytes() {
            Some(data) => write!(f, "View({:?})", String::from_utf8_lossy(data)),
            None => write!(f, "View(len={}, {:?})", self.len(), self.location()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_long_is_a_string_with_a_location() {
        let location = Location {
            chunk: 7,
            offset: 40,
        };
        let mut views = vec![View::EMPTY, View::NA];
        views.extend([0, 1, 12].map(|n| View::try_inline(&b"x".repeat(n)).unwrap()));
        for len in [13, 16, 4096, crate::view::MAX_STRING_LEN] {
            views.push(View::long(len, *b"abcd", location).unwrap());
        }
        for view in views {
            assert_eq!(view.is_long(), view.location().is_some(), "{view:?}");
            assert_eq!(view.is_long_or_na(false), view.is_long(), "{view:?}");
            assert_eq!(
                view.is_long_or_na(true),
                view.is_long() || view.is_na(),
                "{view:?}"
            );
        }
    }

    #[test]
    fn inline_concatenation_matches_bytes() {
        let texts = ["", "a", "abcd", "abcdefgh", "exactly12byt", "é", "\0"];
        for x in texts {
            for y in texts {
                let (a, b) = (
                    View::try_inline(x.as_bytes()),
                    View::try_inline(y.as_bytes()),
                );
                let joined = format!("{x}{y}");
                assert_eq!(
                    View::concat_inline(a.expect("inline"), b.expect("inline")),
                    View::try_inline(joined.as_bytes()),
                    "{x:?} + {y:?}"
                );
            }
        }
        assert_eq!(View::concat_inline(View::NA, View::EMPTY), None);
        assert_eq!(View::concat_inline(View::EMPTY, View::NA), None);
    }

    #[test]
    fn inline_repetition_matches_bytes() {
        for text in ["", "a", "ab", "abcd", "é", "exactly12byt"] {
            let view = View::try_inline(text.as_bytes()).expect("inline");
            for count in 0..14 {
                let joined = text.repeat(count);
                let want = View::try_inline(joined.as_bytes());
                assert_eq!(View::repeat_inline(view, count), want, "{text:?} * {count}");
            }
        }
        for count in 0..3 {
            assert_eq!(View::repeat_inline(View::NA, count), None);
        }
        // Counting the copies of nothing would take years.
        assert_eq!(
            View::repeat_inline(View::EMPTY, usize::MAX),
            Some(View::EMPTY)
        );
    }

    #[test]
    fn inline_views_hold_exactly_their_bytes() {
        for len in 0..=MAX_INLINE_LEN {
            let data: Vec<u8> = (1..=len as u8).map(|b| b.wrapping_mul(37) | 1).collect();
            let view = View::try_inline(&data).expect("fits");
            assert_eq!(view.inline_bytes(), Some(&data[..]));
            assert_eq!(view.len(), len);
            // Unused payload bytes are zero.
            let used = 32 + 8 * len as u32;
            assert_eq!(
                view.as_u128().checked_shr(used).unwrap_or(0),
                0,
                "len {len}"
            );
        }
        assert!(View::try_inline(&[0; 13]).is_none());
    }

    #[test]
    fn inline_strings_are_told_from_long_strings_and_missing_values() {
        for len in 0..=MAX_INLINE_LEN {
            assert!(View::try_inline(&vec![b'x'; len])
                .unwrap()
                .is_inline_string());
        }
        let location = Location {
            chunk: 1,
            offset: 0,
        };
        for len in [13, 16, 1000, MAX_STRING_LEN] {
            assert!(!View::long(len, *b"abcd", location)
                .unwrap()
                .is_inline_string());
        }
        assert!(!View::NA.is_inline_string());
    }

    #[test]
    fn zeroed_memory_is_the_empty_string() {
        let view = View::from_bytes([0; 16]);
        assert_eq!(view, View::EMPTY);
        assert!(!view.is_na());
        assert_eq!(view.len(), 0);
        assert_eq!(view.inline_bytes(), Some(&b""[..]));
    }

    #[test]
    fn inline_round_trip_up_to_twelve_bytes() {
        for len in 0..=MAX_INLINE_LEN {
            let data: Vec<u8> = (0..len as u8).map(|b| b + 1).collect();
            let view = View::try_inline(&data).unwrap();
            assert_eq!(view.len(), len);
            assert_eq!(view.inline_bytes(), Some(&data[..]));
            assert!(view.location().is_none());
            // Padding stays zero so that equal strings have equal views.
            assert!(view.to_bytes()[4 + len..].iter().all(|&b| b == 0));
        }
        assert!(View::try_inline(&[b'x'; 13]).is_none());
    }

    #[test]
    fn long_view_fields() {
        let loc = Location {
            chunk: 3,
            offset: 0xDEAD,
        };
        let view = View::long(13, *b"abcd", loc).unwrap();
        assert_eq!(view.len(), 13);
        assert_eq!(view.prefix(), *b"abcd");
        assert_eq!(view.location(), Some(loc));
        assert!(view.inline_bytes().is_none());
        assert_eq!(&view.to_bytes()[..4], &13u32.to_le_bytes());
    }

    #[test]
    fn na_is_distinct_from_every_string() {
        assert!(View::NA.is_na());
        assert_eq!(View::NA.len(), 0);
        assert_ne!(View::NA, View::EMPTY);
        assert!(!View::try_inline(b"").unwrap().is_na());
        let long = View::long(
            MAX_STRING_LEN,
            *b"abcd",
            Location {
                chunk: 0,
                offset: 0,
            },
        );
        assert!(!long.unwrap().is_na());
    }

    #[test]
    fn over_long_strings_are_errors() {
        let loc = Location {
            chunk: 0,
            offset: 0,
        };
        assert!(matches!(
            View::long(MAX_STRING_LEN + 1, *b"abcd", loc),
            Err(TooLong(_))
        ));
    }

    #[test]
    fn layout_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<View>(), 16);
        assert_eq!(std::mem::align_of::<View>(), 8);
    }
}
