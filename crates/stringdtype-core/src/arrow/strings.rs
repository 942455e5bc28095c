//! The source side of an import: the strings of an Arrow array in each layout
//! (`string`, `large_string`, `string_view`, and dictionaries of them), read through
//! checked buffers and validated as UTF-8 as they are read.

use super::buffers::{is_valid, IntBuffer, IntKind, RawArray, Validity};
use super::error::ArrowError;
use super::validate::{buffer_is_utf8, buffers_are_utf8, is_char_boundary};
use crate::view::{MAX_INLINE_LEN, MAX_STRING_LEN};

/// How the string values of an array are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueLayout {
    /// `string` ("u"): `i32` offsets into one data buffer.
    Utf8,
    /// `large_string` ("U"): `i64` offsets into one data buffer.
    LargeUtf8,
    /// `string_view` ("vu"): 16-byte views into variadic data buffers.
    Utf8View,
}

impl ValueLayout {
    pub(super) fn from_format(format: &[u8]) -> Option<ValueLayout> {
        match format {
            b"u" => Some(ValueLayout::Utf8),
            b"U" => Some(ValueLayout::LargeUtf8),
            b"vu" => Some(ValueLayout::Utf8View),
            _ => None,
        }
    }
}

/// The elements of one array that is not dictionary encoded, checked as they are read.
pub(super) enum Strings<'a> {
    Offsets(OffsetStrings<'a>),
    Views(ViewStrings<'a>),
}

impl<'a> Strings<'a> {
    pub(super) fn new(raw: &RawArray<'a>, layout: ValueLayout) -> Result<Strings<'a>, ArrowError> {
        Ok(match layout {
            ValueLayout::Utf8 => Strings::Offsets(OffsetStrings::new(raw, IntKind::I32)?),
            ValueLayout::LargeUtf8 => Strings::Offsets(OffsetStrings::new(raw, IntKind::I64)?),
            ValueLayout::Utf8View => Strings::Views(ViewStrings::new(raw)?),
        })
    }

    /// The bytes of element `index`, or `None` when it is null.
    #[inline(always)]
    pub(super) fn get(&self, index: usize) -> Result<Option<&'a [u8]>, ArrowError> {
        match self {
            Strings::Offsets(strings) => strings.get(index),
            Strings::Views(strings) => strings.get(index),
        }
    }
}

/// `string` and `large_string`: buffers [validity, offsets, data].
pub(super) struct OffsetStrings<'a> {
    pub(super) validity: Option<Validity<'a>>,
    pub(super) offsets: IntBuffer<'a>,
    pub(super) first: usize,
    /// The data buffer up to the last element's end.
    pub(super) data: &'a [u8],
    /// `Some(start)` when `data[start..]` is valid UTF-8 as a whole, so that an element
    /// inside it only needs its ends checked for character boundaries.
    pub(super) valid_from: Option<usize>,
}

impl<'a> OffsetStrings<'a> {
    /// The strings from element `first` on (a part of an import's loop, whose element
    /// indices then count from there).
    pub(super) fn from(&self, first: usize) -> OffsetStrings<'a> {
        OffsetStrings {
            validity: self.validity.map(|validity| validity.from(first)),
            offsets: self.offsets,
            first: self.first + first,
            data: self.data,
            valid_from: self.valid_from,
        }
    }

    pub(super) fn new(raw: &RawArray<'a>, kind: IntKind) -> Result<OffsetStrings<'a>, ArrowError> {
        if raw.n_buffers() != 3 {
            return Err(ArrowError::Malformed(format!(
                "a string array has 3 buffers, not {}",
                raw.n_buffers()
            )));
        }
        let validity = raw.validity()?;
        let offsets = IntBuffer::new(raw, 1, raw.end() + 1, kind)?;
        let (start, end) = (offsets.get(raw.offset), offsets.get(raw.end()));
        if start < 0 || end < start || end > isize::MAX as i128 {
            return Err(ArrowError::Malformed(format!(
                "the offsets run from {start} to {end}"
            )));
        }
        let data = raw.buffer(2, end as usize)?;
        let start = start as usize;
        let valid_from = buffer_is_utf8(&data[start..]).then_some(start);
        Ok(OffsetStrings {
            validity,
            offsets,
            first: raw.offset,
            data,
            valid_from,
        })
    }

    #[inline(always)]
    pub(super) fn get(&self, index: usize) -> Result<Option<&'a [u8]>, ArrowError> {
        if !is_valid(self.validity, index) {
            return Ok(None);
        }
        let start = self.offsets.get(self.first + index);
        let end = self.offsets.get(self.first + index + 1);
        if start < 0 || end < start || end > self.data.len() as i128 {
            return Err(ArrowError::Malformed(format!(
                "offsets {start}..{end} of element {index} are outside the {} data bytes",
                self.data.len()
            )));
        }
        let (start, end) = (start as usize, end as usize);
        let bytes = &self.data[start..end];
        let valid = match self.valid_from {
            _ if start == end => true,
            Some(from) if start >= from => {
                is_char_boundary(self.data, start) && is_char_boundary(self.data, end)
            }
            _ => simdutf8::basic::from_utf8(bytes).is_ok(),
        };
        if !valid {
            return Err(invalid_utf8(index, bytes));
        }
        Ok(Some(bytes))
    }
}

/// `string_view`: buffers [validity, views, data..., variadic sizes].
pub(super) struct ViewStrings<'a> {
    pub(super) validity: Option<Validity<'a>>,
    /// The views of the array's elements (from its offset on), 16 bytes each.
    pub(super) views: &'a [u8],
    pub(super) data: Vec<&'a [u8]>,
    /// Whether each data buffer is valid UTF-8 as a whole, so that a string inside it
    /// only needs its ends checked for character boundaries.
    pub(super) valid: Vec<bool>,
}

impl<'a> ViewStrings<'a> {
    /// The strings from element `first` on (a part of an import's loop, whose element
    /// indices then count from there).
    pub(super) fn from(&self, first: usize) -> ViewStrings<'a> {
        ViewStrings {
            validity: self.validity.map(|validity| validity.from(first)),
            views: &self.views[first * 16..],
            data: self.data.clone(),
            valid: self.valid.clone(),
        }
    }

    pub(super) fn new(raw: &RawArray<'a>) -> Result<ViewStrings<'a>, ArrowError> {
        let n_buffers = raw.n_buffers();
        if n_buffers < 3 {
            return Err(ArrowError::Malformed(format!(
                "a string_view array has at least 3 buffers, not {n_buffers}"
            )));
        }
        let n_data = n_buffers - 3;
        let sizes = IntBuffer::new(raw, n_buffers - 1, n_data, IntKind::I64)?;
        let data = (0..n_data)
            .map(|i| {
                let size = usize::try_from(sizes.get(i)).map_err(|_| {
                    ArrowError::Malformed(format!("data buffer {i} has size {}", sizes.get(i)))
                })?;
                raw.buffer(2 + i, size)
            })
            .collect::<Result<_, _>>()?;
        let views = &raw.buffer_of(1, raw.end(), 16)?[raw.offset * 16..];
        let data: Vec<&'a [u8]> = data;
        let valid = buffers_are_utf8(&data);
        Ok(ViewStrings {
            validity: raw.validity()?,
            views,
            data,
            valid,
        })
    }

    #[inline(always)]
    pub(super) fn get(&self, index: usize) -> Result<Option<&'a [u8]>, ArrowError> {
        if !is_valid(self.validity, index) {
            return Ok(None);
        }
        let view: &'a [u8; 16] = self.views[index * 16..index * 16 + 16]
            .try_into()
            .expect("16 bytes");
        let word = |at: usize| u32::from_ne_bytes(view[at..at + 4].try_into().expect("4 bytes"));
        let len = word(0) as usize;
        if len > MAX_STRING_LEN {
            // Arrow's length is a non-negative i32.
            return Err(ArrowError::BadView { index });
        }
        let (bytes, valid) = if len <= MAX_INLINE_LEN {
            let bytes = &view[4..4 + len];
            (
                bytes,
                bytes.is_ascii() || std::str::from_utf8(bytes).is_ok(),
            )
        } else {
            let (buffer, offset) = (word(8) as usize, word(12) as usize);
            let bytes = self
                .data
                .get(buffer)
                .and_then(|data| data.get(offset..offset.checked_add(len)?))
                .ok_or(ArrowError::BadView { index })?;
            let valid = if self.valid[buffer] {
                let data = self.data[buffer];
                is_char_boundary(data, offset) && is_char_boundary(data, offset + len)
            } else {
                simdutf8::basic::from_utf8(bytes).is_ok()
            };
            (bytes, valid)
        };
        if !valid {
            return Err(invalid_utf8(index, bytes));
        }
        Ok(Some(bytes))
    }
}

/// The error for element `index`, whose `bytes` are not UTF-8 (the slow path that finds
/// where).
#[cold]
pub(super) fn invalid_utf8(index: usize, bytes: &[u8]) -> ArrowError {
    let end = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(error) => {
            let start = error.valid_up_to();
            start + error.error_len().unwrap_or(bytes.len() - start)
        }
    };
    ArrowError::InvalidUtf8 {
        index,
        bytes: bytes[..end].to_vec(),
    }
}

/// A dictionary value, validated once however often it is used.
pub(super) enum Entry<'a> {
    Null,
    Valid(&'a [u8]),
    /// Not UTF-8 (the bytes as in [`ArrowError::InvalidUtf8`]): an error only for the
    /// elements that use it.
    Invalid(Vec<u8>),
}

pub(super) fn dictionary_entries<'a>(
    raw: &RawArray<'a>,
    layout: ValueLayout,
) -> Result<Vec<Entry<'a>>, ArrowError> {
    if raw.length == 0 {
        return Ok(Vec::new());
    }
    let strings = Strings::new(raw, layout)?;
    (0..raw.length)
        .map(|i| match strings.get(i) {
            Ok(None) => Ok(Entry::Null),
            Ok(Some(bytes)) => Ok(Entry::Valid(bytes)),
            Err(ArrowError::InvalidUtf8 { bytes, .. }) => Ok(Entry::Invalid(bytes)),
            Err(ArrowError::BadView { index }) => Err(ArrowError::Malformed(format!(
                "dictionary value {index} points outside its data buffers"
            ))),
            Err(error) => Err(error),
        })
        .collect()
}

/// The keys of a dictionary-encoded array: buffers [validity, keys].
pub(super) struct DictionaryKeys<'a> {
    validity: Option<Validity<'a>>,
    keys: IntBuffer<'a>,
    first: usize,
}

impl<'a> DictionaryKeys<'a> {
    pub(super) fn new(raw: &RawArray<'a>, kind: IntKind) -> Result<DictionaryKeys<'a>, ArrowError> {
        if raw.n_buffers() != 2 {
            return Err(ArrowError::Malformed(format!(
                "a dictionary-encoded array has 2 buffers, not {}",
                raw.n_buffers()
            )));
        }
        Ok(DictionaryKeys {
            validity: raw.validity()?,
            keys: IntBuffer::new(raw, 1, raw.end(), kind)?,
            first: raw.offset,
        })
    }

    #[inline]
    pub(super) fn get(
        &self,
        index: usize,
        entries: &[Entry<'a>],
    ) -> Result<Option<&'a [u8]>, ArrowError> {
        if !is_valid(self.validity, index) {
            return Ok(None);
        }
        let key = self.keys.get(self.first + index);
        let entry = usize::try_from(key).ok().and_then(|k| entries.get(k));
        match entry {
            Some(Entry::Null) => Ok(None),
            Some(Entry::Valid(bytes)) => Ok(Some(bytes)),
            Some(Entry::Invalid(bytes)) => Err(ArrowError::InvalidUtf8 {
                index,
                bytes: bytes.clone(),
            }),
            None => Err(ArrowError::BadDictionaryKey {
                index,
                key,
                len: entries.len(),
            }),
        }
    }
}
