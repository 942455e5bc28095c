//! Import: Arrow `string`, `large_string` and `string_view` arrays, plain or dictionary
//! encoded, into views and an arena.
//!
//! Every element is read through checked buffers ([`super::buffers`]) and validated as
//! UTF-8 (whole data buffers at once where they are valid as a whole, then only the
//! strings' ends), and only then are the long strings stored, end to end in packed
//! chunks of the caller's arena: their bytes are copied exactly once and every element
//! owns its bytes (a dictionary value used twice is stored twice). The imported structs
//! are taken by value and so released exactly once, whatever happens.

use super::buffers::{is_valid, IntBuffer, IntKind, RawArray, Validity};
use super::error::ArrowError;
use super::ffi::{ArrowArray, ArrowSchema};
use crate::arena::Arena;
use crate::view::{Location, View, MAX_INLINE_LEN, MAX_STRING_LEN};

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
    fn from_format(format: &[u8]) -> Option<ValueLayout> {
        match format {
            b"u" => Some(ValueLayout::Utf8),
            b"U" => Some(ValueLayout::LargeUtf8),
            b"vu" => Some(ValueLayout::Utf8View),
            _ => None,
        }
    }
}

/// The string types this module imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StringType {
    Plain(ValueLayout),
    Dictionary { keys: IntKind, values: ValueLayout },
}

/// Reads the type of `schema`, or says why it is not a string type this module imports.
pub(crate) fn parse_schema(schema: &ArrowSchema) -> Result<StringType, ArrowError> {
    let format = schema.format().ok_or(ArrowError::Released("schema"))?;
    let unsupported =
        |format: &[u8]| ArrowError::UnsupportedFormat(String::from_utf8_lossy(format).into_owned());
    let format = format.to_bytes();
    let Some(dictionary) = schema.dictionary() else {
        return ValueLayout::from_format(format)
            .map(StringType::Plain)
            .ok_or_else(|| unsupported(format));
    };
    let keys = IntKind::from_format(format).ok_or_else(|| unsupported(format))?;
    let values_format = dictionary
        .format()
        .ok_or(ArrowError::Released("dictionary schema"))?;
    let values_format = values_format.to_bytes();
    if dictionary.dictionary().is_some() {
        return Err(unsupported(values_format));
    }
    let values =
        ValueLayout::from_format(values_format).ok_or_else(|| unsupported(values_format))?;
    Ok(StringType::Dictionary { keys, values })
}

/// Checks that `schema` is a type [`import_array`] reads, before anything is allocated
/// for its array.
pub fn check_schema(schema: &ArrowSchema) -> Result<(), ArrowError> {
    parse_schema(schema).map(|_| ())
}

/// Imports `array` of type `schema` into `arena`: one view per element, a null becoming
/// [`View::NA`] when `allow_na`, else an error. Releases both structs before returning.
pub fn import_array(
    schema: ArrowSchema,
    array: ArrowArray,
    arena: &mut Arena,
    allow_na: bool,
) -> Result<Vec<View>, ArrowError> {
    let string_type = parse_schema(&schema)?;
    import_typed(string_type, array, arena, allow_na)
}

/// Like [`import_array`], writing the views into `out`, which must hold exactly
/// `array.len()` elements. On error, the strings already stored are released from the
/// arena again and `out` holds views that must not be read.
pub fn import_array_into(
    schema: ArrowSchema,
    array: ArrowArray,
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
) -> Result<(), ArrowError> {
    let string_type = parse_schema(&schema)?;
    import_typed_into(string_type, &array, out, arena, allow_na)
}

/// Imports an array whose type is already known (the arrays of a stream).
pub(crate) fn import_typed(
    string_type: StringType,
    array: ArrowArray,
    arena: &mut Arena,
    allow_na: bool,
) -> Result<Vec<View>, ArrowError> {
    let length = RawArray::new(&array, "array")?.length;
    let mut out = vec![View::EMPTY; length];
    import_typed_into(string_type, &array, &mut out, arena, allow_na)?;
    Ok(out)
}

fn import_typed_into(
    string_type: StringType,
    array: &ArrowArray,
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
) -> Result<(), ArrowError> {
    let raw = RawArray::new(array, "array")?;
    if raw.length != out.len() {
        return Err(ArrowError::Malformed(format!(
            "the array has {} elements, but the destination {}",
            raw.length,
            out.len()
        )));
    }
    if raw.length == 0 {
        return Ok(());
    }
    match string_type {
        // One `fill` per layout, so that each element's read is inlined into its loop.
        StringType::Plain(layout) => match Strings::new(&raw, layout)? {
            Strings::Offsets(strings) => fill_offsets(out, arena, allow_na, &strings),
            Strings::Views(strings) => fill_views(out, arena, allow_na, &strings),
        },
        StringType::Dictionary { keys, values } => {
            let dictionary = array
                .dictionary()
                .ok_or_else(|| ArrowError::Malformed("the dictionary array is missing".into()))?;
            let entries = dictionary_entries(&RawArray::new(dictionary, "dictionary")?, values)?;
            let keys = DictionaryKeys::new(&raw, keys)?;
            fill(out, arena, allow_na, |i| keys.get(i, &entries))
        }
    }
}

/// Stores element `i` of `get` into `out[i]`, for every `i`: first reads and checks
/// every element (so that a bad one costs no copy), then reads the long strings again
/// and copies them end to end into packed chunks of the arena. On error, the arena is
/// as it was.
fn fill<'a>(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    get: impl Fn(usize) -> Result<Option<&'a [u8]>, ArrowError>,
) -> Result<(), ArrowError> {
    let mut long_bytes = 0usize;
    for (index, slot) in out.iter_mut().enumerate() {
        *slot = match get(index)? {
            Some(bytes) if bytes.len() <= MAX_INLINE_LEN => inline_view(bytes),
            Some(bytes) => {
                long_bytes += bytes.len();
                pending(index, bytes.len())?
            }
            None if allow_na => View::NA,
            None => return Err(ArrowError::UnexpectedNull { index }),
        };
    }
    store_pending(out, arena, long_bytes, get)
}

/// [`fill`] for `string_view` arrays: an inline element is checked and copied as the
/// 16 bytes it is, without looking at it as a string.
fn fill_views(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &ViewStrings<'_>,
) -> Result<(), ArrowError> {
    let mut long_bytes = 0usize;
    let views = strings.views.chunks_exact(16);
    for (index, (slot, view)) in out.iter_mut().zip(views).enumerate() {
        if !is_valid(strings.validity, index) {
            if !allow_na {
                return Err(ArrowError::UnexpectedNull { index });
            }
            *slot = View::NA;
            continue;
        }
        let view = u128::from_le_bytes(view.try_into().expect("16 bytes"));
        let len = view as u32 as usize;
        if len <= MAX_INLINE_LEN {
            // Bytes past the string must be zero in a view of ours; Arrow does not say.
            let kept = if len == MAX_INLINE_LEN {
                view
            } else {
                view & ((1u128 << (32 + 8 * len)) - 1)
            };
            let ascii = (kept >> 32) & 0x8080_8080_8080_8080_8080_8080 == 0;
            if !ascii {
                strings.get(index)?; // the full check, for its error
            }
            *slot = View::from_bytes(kept.to_le_bytes());
        } else {
            let bytes = strings
                .get(index)?
                .ok_or(ArrowError::UnexpectedNull { index })?;
            long_bytes += bytes.len();
            *slot = pending(index, bytes.len())?;
        }
    }
    store_pending(out, arena, long_bytes, |i| strings.get(i))
}

/// [`fill`] for `string` and `large_string` arrays, reading the offsets as the integers
/// they are; the checks are [`OffsetStrings::get`]'s.
fn fill_offsets(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &OffsetStrings<'_>,
) -> Result<(), ArrowError> {
    let (bytes, kind) = strings.offsets.raw();
    let long_bytes = match kind {
        IntKind::I32 => first_pass::<4>(out, allow_na, strings, bytes, |b| {
            i32::from_ne_bytes(b.try_into().expect("4 bytes")).into()
        })?,
        _ => first_pass::<8>(out, allow_na, strings, bytes, |b| {
            i64::from_ne_bytes(b.try_into().expect("8 bytes"))
        })?,
    };
    store_pending(out, arena, long_bytes, |i| strings.get(i))
}

/// The first pass of [`fill_offsets`] with `W`-byte offsets; returns the long bytes.
#[inline(always)]
fn first_pass<const W: usize>(
    out: &mut [View],
    allow_na: bool,
    strings: &OffsetStrings<'_>,
    offsets: &[u8],
    read: impl Fn(&[u8]) -> i64,
) -> Result<usize, ArrowError> {
    let data = strings.data;
    let offsets = &offsets[strings.first * W..(strings.first + out.len() + 1) * W];
    let mut start = read(&offsets[..W]);
    let mut long_bytes = 0usize;
    let ends = offsets[W..].chunks_exact(W);
    for (index, (slot, end)) in out.iter_mut().zip(ends).enumerate() {
        let end = read(end);
        let (from, to) = (start, end);
        start = end;
        if !is_valid(strings.validity, index) {
            if !allow_na {
                return Err(ArrowError::UnexpectedNull { index });
            }
            *slot = View::NA;
            continue;
        }
        if from < 0 || to < from || to as u64 > data.len() as u64 {
            return Err(ArrowError::Malformed(format!(
                "offsets {from}..{to} of element {index} are outside the {} data bytes",
                data.len()
            )));
        }
        let (from, to) = (from as usize, to as usize);
        let valid = match strings.valid_from {
            _ if from == to => true,
            Some(valid_from) if from >= valid_from => {
                is_char_boundary(data, from) && is_char_boundary(data, to)
            }
            _ => simdutf8::basic::from_utf8(&data[from..to]).is_ok(),
        };
        if !valid {
            return Err(invalid_utf8(index, &data[from..to]));
        }
        let len = to - from;
        *slot = if len <= MAX_INLINE_LEN {
            inline_view(&data[from..to])
        } else {
            long_bytes += len;
            pending(index, len)?
        };
    }
    Ok(long_bytes)
}

/// A long string of `len` bytes waiting in `fill` until it is stored: a view with its
/// length and no location.
#[inline(always)]
fn pending(index: usize, len: usize) -> Result<View, ArrowError> {
    View::long(len, [0; 4], PENDING).map_err(|error| ArrowError::Element { index, error })
}

/// The second pass of [`fill`]: stores every pending element, `long_bytes` in all.
fn store_pending<'a>(
    out: &mut [View],
    arena: &mut Arena,
    long_bytes: usize,
    get: impl Fn(usize) -> Result<Option<&'a [u8]>, ArrowError>,
) -> Result<(), ArrowError> {
    if long_bytes == 0 {
        return Ok(());
    }
    let mut packed = arena.packed(long_bytes);
    for index in 0..out.len() {
        if out[index].location() != Some(PENDING) {
            continue;
        }
        // The second read of an element gives what the first did.
        let stored = get(index).and_then(|bytes| {
            let bytes = bytes.ok_or(ArrowError::UnexpectedNull { index })?;
            (packed.store(bytes)).map_err(|error| ArrowError::Element { index, error })
        });
        match stored {
            Ok(view) => out[index] = view,
            Err(error) => {
                for &view in &out[..index] {
                    arena.release(view);
                }
                return Err(error);
            }
        }
    }
    Ok(())
}

/// The view of a string of at most 12 bytes, built in registers: `View::try_inline`'s
/// variable-length copy is a library call, which would dominate an import of short
/// strings.
#[inline(always)]
fn inline_view(bytes: &[u8]) -> View {
    debug_assert!(bytes.len() <= MAX_INLINE_LEN);
    let mut data = 0u128;
    let mut at = 0;
    if bytes.len() >= 8 {
        data = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")).into();
        at = 8;
    }
    if bytes.len() - at >= 4 {
        let word = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        data |= u128::from(word) << (8 * at);
        at += 4;
    }
    for (i, &byte) in bytes.iter().enumerate().skip(at) {
        data |= u128::from(byte) << (8 * i);
    }
    View::from_bytes(((data << 32) | bytes.len() as u128).to_le_bytes())
}

/// Where a long string waits in [`fill`] until it is stored.
const PENDING: Location = Location {
    chunk: u32::MAX,
    offset: u32::MAX,
};

/// The elements of one array that is not dictionary encoded, checked as they are read.
enum Strings<'a> {
    Offsets(OffsetStrings<'a>),
    Views(ViewStrings<'a>),
}

impl<'a> Strings<'a> {
    fn new(raw: &RawArray<'a>, layout: ValueLayout) -> Result<Strings<'a>, ArrowError> {
        Ok(match layout {
            ValueLayout::Utf8 => Strings::Offsets(OffsetStrings::new(raw, IntKind::I32)?),
            ValueLayout::LargeUtf8 => Strings::Offsets(OffsetStrings::new(raw, IntKind::I64)?),
            ValueLayout::Utf8View => Strings::Views(ViewStrings::new(raw)?),
        })
    }

    /// The bytes of element `index`, or `None` when it is null.
    #[inline(always)]
    fn get(&self, index: usize) -> Result<Option<&'a [u8]>, ArrowError> {
        match self {
            Strings::Offsets(strings) => strings.get(index),
            Strings::Views(strings) => strings.get(index),
        }
    }
}

/// `string` and `large_string`: buffers [validity, offsets, data].
struct OffsetStrings<'a> {
    validity: Option<Validity<'a>>,
    offsets: IntBuffer<'a>,
    first: usize,
    /// The data buffer up to the last element's end.
    data: &'a [u8],
    /// `Some(start)` when `data[start..]` is valid UTF-8 as a whole, so that an element
    /// inside it only needs its ends checked for character boundaries.
    valid_from: Option<usize>,
}

impl<'a> OffsetStrings<'a> {
    fn new(raw: &RawArray<'a>, kind: IntKind) -> Result<OffsetStrings<'a>, ArrowError> {
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
        let valid_from = simdutf8::basic::from_utf8(&data[start..])
            .is_ok()
            .then_some(start);
        Ok(OffsetStrings {
            validity,
            offsets,
            first: raw.offset,
            data,
            valid_from,
        })
    }

    #[inline(always)]
    fn get(&self, index: usize) -> Result<Option<&'a [u8]>, ArrowError> {
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

/// Whether a character may start at `at` (or `at` is the end) in UTF-8 bytes.
#[inline]
fn is_char_boundary(data: &[u8], at: usize) -> bool {
    // Continuation bytes are 0b10xx_xxxx, that is -64..-1 as i8.
    data.get(at).is_none_or(|&b| (b as i8) >= -0x40)
}

/// `string_view`: buffers [validity, views, data..., variadic sizes].
struct ViewStrings<'a> {
    validity: Option<Validity<'a>>,
    /// The views of the array's elements (from its offset on), 16 bytes each.
    views: &'a [u8],
    data: Vec<&'a [u8]>,
    /// Whether each data buffer is valid UTF-8 as a whole, so that a string inside it
    /// only needs its ends checked for character boundaries.
    valid: Vec<bool>,
}

impl<'a> ViewStrings<'a> {
    fn new(raw: &RawArray<'a>) -> Result<ViewStrings<'a>, ArrowError> {
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
        let valid = data
            .iter()
            .map(|d| simdutf8::basic::from_utf8(d).is_ok())
            .collect();
        Ok(ViewStrings {
            validity: raw.validity()?,
            views,
            data,
            valid,
        })
    }

    #[inline(always)]
    fn get(&self, index: usize) -> Result<Option<&'a [u8]>, ArrowError> {
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
fn invalid_utf8(index: usize, bytes: &[u8]) -> ArrowError {
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
enum Entry<'a> {
    Null,
    Valid(&'a [u8]),
    /// Not UTF-8 (the bytes as in [`ArrowError::InvalidUtf8`]): an error only for the
    /// elements that use it.
    Invalid(Vec<u8>),
}

fn dictionary_entries<'a>(
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
struct DictionaryKeys<'a> {
    validity: Option<Validity<'a>>,
    keys: IntBuffer<'a>,
    first: usize,
}

impl<'a> DictionaryKeys<'a> {
    fn new(raw: &RawArray<'a>, kind: IntKind) -> Result<DictionaryKeys<'a>, ArrowError> {
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
    fn get(&self, index: usize, entries: &[Entry<'a>]) -> Result<Option<&'a [u8]>, ArrowError> {
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
