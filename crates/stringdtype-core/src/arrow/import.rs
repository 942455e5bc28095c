//! Import: Arrow `string`, `large_string` and `string_view` arrays, plain or dictionary
//! encoded, into views and an arena.
//!
//! Every element is read through checked buffers ([`super::buffers`]) and validated as
//! UTF-8 (whole data buffers at once where they are valid as a whole, then only the
//! strings' ends) before its long string is stored, end to end in packed chunks of the
//! caller's arena: their bytes are copied exactly once and every element owns its bytes
//! (a dictionary value used twice is stored twice). Plain arrays are read in one pass,
//! their long strings' total length taken from the offsets or views alone; on error the
//! strings already stored are released again. The imported structs are taken by value
//! and so released exactly once, whatever happens.

use std::ops::Range;
use std::sync::Arc;

use super::adopt::{adopt, unadopt_on_error};
use super::buffers::{is_valid, IntKind, RawArray};
use super::element::{prefetch, release_on_error, PREFETCH_AHEAD};
use super::error::ArrowError;
use super::ffi::{ArrowArray, ArrowSchema};
use super::import_views::fill_views;
use super::kept::Kept;
use super::parts::{count_parts, fill_in_parts, fit_regions, part_ranges, LongStore, PartStore};
use super::strings::{
    dictionary_entries, invalid_utf8, DictionaryKeys, OffsetStrings, Strings, ValueLayout,
};
use super::validate::is_char_boundary;
use crate::arena::Arena;
use crate::view::{Location, View, MAX_INLINE_LEN, MAX_STRING_LEN};

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
    let kept = Arc::new(Kept::new(array));
    let imported = import_typed_into(string_type, &kept, out, arena, allow_na);
    release_unless_adopted(kept);
    imported
}

/// Releases `kept` now unless a chunk adopted its buffers (then the last chunk to go
/// hands it to [`super::kept::release_kept`]).
fn release_unless_adopted(kept: Arc<Kept>) {
    if let Ok(kept) = Arc::try_unwrap(kept) {
        drop(kept.into_array());
    }
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
    let kept = Arc::new(Kept::new(array));
    let imported = import_typed_into(string_type, &kept, &mut out, arena, allow_na);
    release_unless_adopted(kept);
    imported.map(|()| out)
}

fn import_typed_into(
    string_type: StringType,
    kept: &Arc<Kept>,
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
) -> Result<(), ArrowError> {
    let array = kept.array();
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
            Strings::Offsets(strings) => fill_offsets(out, arena, allow_na, &strings, kept),
            Strings::Views(strings) => fill_views(out, arena, allow_na, &strings, kept),
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

/// Stores element `i` of `get` (a dictionary array) into `out[i]`, for every `i`: first
/// reads and checks every element, which also sums the long strings' lengths, then reads
/// the long strings again and copies them end to end into packed chunks of the arena.
/// On error, the arena is as it was.
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

/// [`fill`] for `string` and `large_string` arrays, in one pass: the offsets alone give
/// the long strings' total length, so each long string is stored as soon as it is
/// checked (the checks are [`OffsetStrings::get`]'s). On error, the strings stored so
/// far are released again.
fn fill_offsets(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &OffsetStrings<'_>,
    kept: &Arc<Kept>,
) -> Result<(), ArrowError> {
    let (bytes, kind) = strings.offsets.raw();
    // The chunk that `fill_offsets_of` adopted, if any, to let go of after an error.
    let mut adopted = None;
    let kept = (kept, &mut adopted);
    let filled = match kind {
        IntKind::I32 => fill_offsets_of::<4>(out, arena, allow_na, strings, bytes, kept, |b| {
            i32::from_ne_bytes(b.try_into().expect("4 bytes")).into()
        }),
        _ => fill_offsets_of::<8>(out, arena, allow_na, strings, bytes, kept, |b| {
            i64::from_ne_bytes(b.try_into().expect("8 bytes"))
        }),
    };
    let released = release_on_error(out, arena, filled);
    unadopt_on_error(arena, &[adopted], released)
}

/// [`fill_offsets`] with `W`-byte offsets; an error comes with the number of elements
/// written before it (0 after a parallel fill, which leaves nothing to release).
#[inline(always)]
fn fill_offsets_of<const W: usize>(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &OffsetStrings<'_>,
    offsets: &[u8],
    (kept, adopted_out): (&Arc<Kept>, &mut Option<u32>),
    read: impl Fn(&[u8]) -> i64 + Sync,
) -> Result<(), (usize, ArrowError)> {
    let data = strings.data;
    let offsets = &offsets[strings.first * W..(strings.first + out.len() + 1) * W];
    // The long strings' bytes, which size the packed chunks (by part when the loop is cut
    // into parts for the thread pool). Only a hint: offsets out of order are caught below.
    let ranges = part_ranges(out.len());
    let by_part =
        (ranges.as_ref()).map(|ranges| long_bytes_by_part::<W>(offsets, strings, ranges, &read));
    let long_bytes = match &by_part {
        Some(by_part) => by_part.iter().fold(0usize, |sum, &b| sum.saturating_add(b)),
        None => long_bytes_of::<W>(offsets, strings, &read),
    };
    // The data buffer up to the last string is adopted whole (bytes before the first
    // string included: they stay alive with it), or the long strings are copied.
    let extra = offsets.len() + strings.validity.map_or(0, |_| out.len().div_ceil(8));
    let adopted = adopt(arena, kept, data, long_bytes, extra);
    *adopted_out = adopted;
    if let (Some(ranges), Some(by_part)) = (ranges, by_part) {
        // Nothing is copied from an adopted buffer: its parts need no regions.
        let copied = if adopted.is_some() {
            vec![0; by_part.len()]
        } else {
            by_part
        };
        if fit_regions(&copied) {
            let parts = (&ranges[..], &copied[..]);
            return fill_offsets_in_parts::<W>(
                out, arena, allow_na, strings, offsets, adopted, parts, &read,
            )
            .map_err(|error| (0, error));
        }
    }
    let long_bytes = long_bytes.min(data.len());
    offsets_on_one_thread::<W>(
        out,
        arena,
        allow_na,
        strings,
        offsets,
        (adopted, long_bytes),
        read,
    )
}

/// [`fill_offsets_of`]'s element loop on the calling thread, `long_bytes` to copy unless
/// a chunk was `adopted` (a function of its own, so that the parallel branch beside it
/// does not change how the loop compiles).
#[inline(never)]
fn offsets_on_one_thread<const W: usize>(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &OffsetStrings<'_>,
    offsets: &[u8],
    (adopted, long_bytes): (Option<u32>, usize),
    read: impl Fn(&[u8]) -> i64,
) -> Result<(), (usize, ArrowError)> {
    let packed = arena.packed(if adopted.is_some() { 0 } else { long_bytes });
    // Two loops: one that reads the strings in place, and the copying one as it was.
    match adopted {
        Some(local) => {
            offsets_loop::<W, true, _>(out, packed, allow_na, strings, offsets, local, read)
        }
        None => offsets_loop::<W, false, _>(out, packed, allow_na, strings, offsets, 0, read),
    }
}

/// [`fill_offsets_of`]'s element loop cut into `ranges` for the thread pool, each part
/// copying `copied[k]` bytes (a function of its own, which keeps the loop on one thread
/// as it was: the closure's captures made its operands live in memory).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn fill_offsets_in_parts<const W: usize>(
    out: &mut [View],
    arena: &mut Arena,
    allow_na: bool,
    strings: &OffsetStrings<'_>,
    offsets: &[u8],
    adopted: Option<u32>,
    (ranges, copied): (&[Range<usize>], &[usize]),
    read: &(impl Fn(&[u8]) -> i64 + Sync),
) -> Result<(), ArrowError> {
    let fill = |out: &mut [View], first: usize, store: &mut PartStore<'_>| {
        let offsets = &offsets[first * W..(first + out.len() + 1) * W];
        let part = strings.from(first);
        match adopted {
            Some(local) => {
                offsets_loop::<W, true, _>(out, store, allow_na, &part, offsets, local, read)
            }
            None => offsets_loop::<W, false, _>(out, store, allow_na, &part, offsets, 0, read),
        }
    };
    fill_in_parts(out, arena, ranges, copied, &fill)
}

/// [`long_bytes_of`] for each part (`ranges`) of the elements whose `offsets` are given,
/// counted on the pool (a function of its own, as [`fill_offsets_in_parts`]).
#[inline(never)]
fn long_bytes_by_part<const W: usize>(
    offsets: &[u8],
    strings: &OffsetStrings<'_>,
    ranges: &[Range<usize>],
    read: &(impl Fn(&[u8]) -> i64 + Sync),
) -> Vec<usize> {
    count_parts(ranges.len(), &|k| {
        let range = &ranges[k];
        let offsets = &offsets[range.start * W..(range.end + 1) * W];
        long_bytes_of::<W>(offsets, &strings.from(range.start), read)
    })
}

/// The bytes of the long strings of the elements whose `offsets` are given (one more
/// than elements). Only a hint: offsets out of order are caught by the element loop.
/// Each length from two offsets read apart (no value carried from one element to the
/// next) and without branches, so that the loop runs on vectors where there is no
/// validity bitmap.
#[inline(always)]
fn long_bytes_of<const W: usize>(
    offsets: &[u8],
    strings: &OffsetStrings<'_>,
    read: impl Fn(&[u8]) -> i64,
) -> usize {
    let starts = offsets[..offsets.len() - W].chunks_exact(W).map(&read);
    let ends = offsets[W..].chunks_exact(W).map(&read);
    let long = |(start, end): (i64, i64)| {
        let len = end.wrapping_sub(start) as u64;
        let long = (len > MAX_INLINE_LEN as u64) & (len <= MAX_STRING_LEN as u64);
        len as usize & usize::from(long).wrapping_neg()
    };
    match strings.validity {
        None => starts.zip(ends).map(long).fold(0, usize::wrapping_add),
        // The bitmap only where the length is long: most strings are short in many
        // arrays, and a bit's read costs more than the length's test.
        Some(validity) => (starts.zip(ends).enumerate())
            .map(|(index, (start, end))| {
                let len = end.wrapping_sub(start) as u64;
                let long = len > MAX_INLINE_LEN as u64
                    && len <= MAX_STRING_LEN as u64
                    && validity.is_valid(index);
                if long {
                    len as usize
                } else {
                    0
                }
            })
            .fold(0, usize::wrapping_add),
    }
}

/// The element loop of [`fill_offsets_of`] over the elements from `first` on (`out`,
/// and their `offsets`, one more than elements): when `ADOPT`, long strings get views
/// into the adopted chunk `local`, else `packed` stores them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn offsets_loop<const W: usize, const ADOPT: bool, S: LongStore>(
    out: &mut [View],
    mut packed: S,
    allow_na: bool,
    strings: &OffsetStrings<'_>,
    offsets: &[u8],
    local: u32,
    read: impl Fn(&[u8]) -> i64,
) -> Result<(), (usize, ArrowError)> {
    let data = strings.data;
    let ends = || offsets[W..].chunks_exact(W).map(&read);
    // Strings of 128 bytes on average: the hardware prefetcher, which follows the
    // reads of nearby lines, does not see the next one coming (shorter ones it does,
    // and a prefetch per element only costs there).
    let span = read(&offsets[offsets.len() - W..]).wrapping_sub(read(&offsets[..W]));
    let far_apart = ADOPT && span as u64 / out.len().max(1) as u64 >= 128;
    let mut start = read(&offsets[..W]);
    for (index, (slot, end)) in out.iter_mut().zip(ends()).enumerate() {
        let (from, to) = (start, end);
        start = end;
        if far_apart {
            // Each long string's first bytes (its prefix, a boundary) are a cache miss in
            // a buffer larger than the cache: ask for them a few strings ahead.
            let ahead = (index + PREFETCH_AHEAD) * W;
            if let Some(at) = offsets.get(ahead..ahead + W) {
                prefetch(data, read(at));
            }
        }
        if !is_valid(strings.validity, index) {
            if !allow_na {
                return Err((index, ArrowError::UnexpectedNull { index }));
            }
            *slot = View::NA;
            continue;
        }
        if from < 0 || to < from || to as u64 > data.len() as u64 {
            let error = ArrowError::Malformed(format!(
                "offsets {from}..{to} of element {index} are outside the {} data bytes",
                data.len()
            ));
            return Err((index, error));
        }
        let (from, to) = (from as usize, to as usize);
        // Branch-free where the data decide (empty or not, boundaries): short strings
        // of random lengths would mispredict every branch.
        let valid = match strings.valid_from {
            Some(valid_from) if from >= valid_from => {
                is_char_boundary(data, from) & is_char_boundary(data, to) | (from == to)
            }
            _ => from == to || simdutf8::basic::from_utf8(&data[from..to]).is_ok(),
        };
        if !valid {
            return Err((index, invalid_utf8(index, &data[from..to])));
        }
        let len = to - from;
        *slot = if len <= MAX_INLINE_LEN {
            View::from_u128(inline_bits(data, from, len))
        } else if ADOPT {
            let view = packed.arena().adopted_view(local, from, &data[from..to]);
            view.ok_or((index, ArrowError::BadView { index }))?
        } else {
            let stored = packed.store(&data[from..to]);
            stored.map_err(|error| (index, ArrowError::Element { index, error }))?
        };
    }
    Ok(())
}

/// A long string of `len` bytes waiting in `fill` until it is stored: a view with its
/// length and no location.
#[inline(always)]
fn pending(index: usize, len: usize) -> Result<View, ArrowError> {
    View::long(len, [0; 4], PENDING).map_err(|error| ArrowError::Element {
        index,
        error: error.into(),
    })
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
    let mut store = || {
        for (index, slot) in out.iter_mut().enumerate() {
            if slot.location() != Some(PENDING) {
                continue;
            }
            // The second read of an element gives what the first did.
            let stored = get(index).and_then(|bytes| {
                let bytes = bytes.ok_or(ArrowError::UnexpectedNull { index })?;
                (packed.store(bytes)).map_err(|error| ArrowError::Element { index, error })
            });
            *slot = stored.map_err(|error| (index, error))?;
        }
        Ok(())
    };
    let stored = store();
    release_on_error(out, arena, stored)
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

/// The view bits of `data[from..from + len]`, a string of at most 12 bytes: one
/// 16-byte load and a mask where 16 bytes are left in `data`, [`inline_view`] at its
/// end.
#[inline(always)]
fn inline_bits(data: &[u8], from: usize, len: usize) -> u128 {
    debug_assert!(len <= MAX_INLINE_LEN);
    match data.get(from..from + 16) {
        Some(word) => {
            let word = u128::from_le_bytes(word.try_into().expect("16 bytes"));
            let string = word & ((1u128 << (8 * len)) - 1);
            (string << 32) | len as u128
        }
        None => inline_view(&data[from..from + len]).as_u128(),
    }
}
