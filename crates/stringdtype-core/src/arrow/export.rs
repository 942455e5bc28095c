//! Export: views and their arena as an Arrow `string_view` array, without copying strings.
//!
//! A view already has Arrow's layout, with the arena's chunk index as `buffer_index`, so
//! the views buffer is a copy of the elements with missing values turned into empty
//! strings (and marked in a validity bitmap), and each arena chunk becomes one variadic
//! data buffer as it is: the export holds an `Arc` of every chunk, which pins it in the
//! arena (its bytes are never rewritten) until the consumer releases the array.

use std::ffi::{c_void, CStr};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::Arc;

use super::error::ArrowError;
use super::ffi::{take_private, ArrowArray, ArrowSchema, ARROW_FLAG_NULLABLE};
use crate::arena::{Arena, ChunkBuf};
use crate::view::View;

/// Arrow's format string of `string_view` (`utf8_view`).
const FORMAT_STRING_VIEW: &CStr = c"vu";

/// 64 plain bytes, aligned as Arrow recommends for buffers.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Block([u8; 64]);

/// A zero-initialised, 64-byte aligned buffer of `len` bytes.
struct AlignedBuffer {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedBuffer {
    fn zeroed(len: usize) -> AlignedBuffer {
        AlignedBuffer {
            blocks: vec![Block([0; 64]); len.div_ceil(64)],
            len,
        }
    }

    /// A buffer of `16 * n` bytes whose 16-byte slots `fill` writes in order: it gets
    /// the slots as uninitialised memory (so that no time goes into zeroing them first)
    /// and returns how many it wrote; the rest are zeroed.
    fn filled_slots(n: usize, fill: impl FnOnce(&mut [MaybeUninit<[u8; 16]>]) -> usize) -> Self {
        let len = n * 16;
        let count = len.div_ceil(64);
        let mut blocks: Vec<Block> = Vec::with_capacity(count);
        let spare = &mut blocks.spare_capacity_mut()[..count];
        // SAFETY: a `MaybeUninit<Block>` is 64 bytes aligned to 64, so the spare capacity
        // is `4 * count` uninitialised, suitably aligned 16-byte slots.
        let slots = unsafe {
            std::slice::from_raw_parts_mut(
                spare.as_mut_ptr().cast::<MaybeUninit<[u8; 16]>>(),
                4 * count,
            )
        };
        let written = fill(&mut slots[..n]).min(n);
        for slot in &mut slots[written..] {
            slot.write([0; 16]);
        }
        // SAFETY: every slot of the first `count` blocks was written above.
        unsafe { blocks.set_len(count) };
        AlignedBuffer { blocks, len }
    }

    fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: `Block` is 64 initialised bytes with no padding, so the vector holds
        // `64 * blocks.len() >= len` initialised bytes, borrowed mutably with `self`.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast(), self.len) }
    }

    fn as_bytes(&self) -> &[u8] {
        // SAFETY: as in `as_mut_bytes`, borrowed shared.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast(), self.len) }
    }

    /// The buffer's address; an aligned, never dereferenced one when it is empty.
    fn as_ptr(&self) -> *const c_void {
        self.blocks.as_ptr().cast()
    }
}

/// Everything an exported array's buffers point into; freed by its release callback.
struct ExportedArray {
    buffer_pointers: Vec<*const c_void>,
    _validity: Option<AlignedBuffer>,
    _views: AlignedBuffer,
    _sizes: AlignedBuffer,
    _chunks: Vec<Arc<ChunkBuf>>,
}

/// The schema of an exported array: a nullable `string_view` field named "".
pub fn export_schema() -> ArrowSchema {
    ArrowSchema {
        format: FORMAT_STRING_VIEW.as_ptr(),
        name: c"".as_ptr(),
        metadata: ptr::null(),
        flags: ARROW_FLAG_NULLABLE,
        n_children: 0,
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(release_schema),
        private_data: ptr::null_mut(),
    }
}

/// Exports the contiguous elements `views`, whose long strings live in `arena`.
pub fn export_array(views: &[View], arena: &mut Arena) -> Result<ArrowArray, ArrowError> {
    export_views(views.iter().copied(), arena)
}

/// Exports the elements that `views` yields (for example a strided array's), whose long
/// strings live in `arena`. Errors when an element does not point into the arena, as
/// the consumer would then read outside Arrow's buffers.
pub fn export_views<I>(views: I, arena: &mut Arena) -> Result<ArrowArray, ArrowError>
where
    I: IntoIterator<Item = View>,
    I::IntoIter: ExactSizeIterator,
{
    let views = views.into_iter();
    let capacity = views.len();
    capacity.checked_mul(16).ok_or_else(|| {
        ArrowError::Malformed(format!("{capacity} elements do not fit in memory"))
    })?;
    let shared = arena.share_chunks();
    let mut validity = AlignedBuffer::zeroed(capacity.div_ceil(8));
    let mut copied = Copied::default();
    let views_buf = AlignedBuffer::filled_slots(capacity, |slots| {
        copied = copy_views(views, &shared, slots, validity.as_mut_bytes());
        copied.length
    });
    if copied.any_outside {
        let index = first_outside(&views_buf, &validity, copied.length, &shared);
        return Err(ArrowError::CorruptView { index });
    }
    let validity = (copied.null_count > 0).then_some(validity);
    Ok(assemble(
        copied.length,
        copied.null_count,
        validity,
        views_buf,
        shared,
    ))
}

/// What [`copy_views`] found.
#[derive(Default)]
struct Copied {
    length: usize,
    null_count: usize,
    /// Whether some long string does not lie within its shared chunk.
    any_outside: bool,
}

/// Copies views into `out` (missing values as zeros) and sets `validity` bits.
///
/// The loop has no data-dependent branch, so that arrays mixing inline, long and
/// missing elements copy at memory speed; a view that points outside the shared chunks
/// is only noted here and found by [`first_outside`].
fn copy_views(
    views: impl Iterator<Item = View>,
    shared: &[(Arc<ChunkBuf>, usize)],
    out: &mut [MaybeUninit<[u8; 16]>],
    validity: &mut [u8],
) -> Copied {
    // The bytes that may hold strings, per chunk; one more entry so that an index
    // clamped into range always finds one.
    let limits: Vec<u64> = shared
        .iter()
        .map(|(_, used)| *used as u64)
        .chain([0])
        .collect();
    let last = limits.len() - 1;
    let (mut length, mut null_count, mut outside, mut bits) = (0usize, 0usize, false, 0u8);
    for (index, (view, slot)) in views.zip(out.iter_mut()).enumerate() {
        let bytes = view.to_bytes();
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let na = word(0) >> 31 != 0;
        let len = u64::from(word(0) & 0x7fff_ffff);
        let long = !na & (len > crate::view::MAX_INLINE_LEN as u64);
        let chunk = (word(8) as usize).min(last);
        let fits = ((word(8) as usize) < last) & (u64::from(word(12)) + len <= limits[chunk]);
        outside |= long & !fits;
        let keep = u128::from(!na).wrapping_neg();
        slot.write((u128::from_le_bytes(bytes) & keep).to_le_bytes());
        null_count += usize::from(na);
        bits |= u8::from(!na) << (index % 8);
        if index % 8 == 7 {
            validity[index / 8] = bits;
            bits = 0;
        }
        length = index + 1;
    }
    if length % 8 != 0 {
        validity[length / 8] = bits;
    }
    Copied {
        length,
        null_count,
        any_outside: outside,
    }
}

/// The index of the first valid element of `views` whose bytes do not lie within the
/// shared part of its chunk (the slow path of [`copy_views`]).
#[cold]
fn first_outside(
    views: &AlignedBuffer,
    validity: &AlignedBuffer,
    length: usize,
    shared: &[(Arc<ChunkBuf>, usize)],
) -> usize {
    let (views, validity) = (views.as_bytes(), validity.as_bytes());
    (0..length)
        .find(|&i| {
            let view = View::from_bytes(views[16 * i..16 * i + 16].try_into().expect("16"));
            validity[i / 8] & (1 << (i % 8)) != 0 && !points_into(view, shared)
        })
        .expect("copy_views saw a view outside its chunk")
}

/// Whether a view's bytes lie within the shared part of its chunk.
fn points_into(view: View, shared: &[(Arc<ChunkBuf>, usize)]) -> bool {
    let Some(location) = view.location() else {
        return true;
    };
    let Some((_, used)) = shared.get(location.chunk as usize) else {
        return false;
    };
    (location.offset as usize)
        .checked_add(view.len())
        .is_some_and(|end| end <= *used)
}

fn assemble(
    length: usize,
    null_count: usize,
    validity: Option<AlignedBuffer>,
    views: AlignedBuffer,
    shared: Vec<(Arc<ChunkBuf>, usize)>,
) -> ArrowArray {
    let mut sizes = AlignedBuffer::zeroed(shared.len() * 8);
    for ((_, used), slot) in shared.iter().zip(sizes.as_mut_bytes().chunks_exact_mut(8)) {
        slot.copy_from_slice(&(*used as i64).to_le_bytes());
    }
    let mut buffer_pointers = Vec::with_capacity(shared.len() + 3);
    buffer_pointers.push(validity.as_ref().map_or(ptr::null(), AlignedBuffer::as_ptr));
    buffer_pointers.push(views.as_ptr());
    for (chunk, used) in &shared {
        buffer_pointers.push(if *used == 0 {
            // A released chunk's address is not aligned; an empty buffer needs none.
            NonNull::<Block>::dangling().as_ptr().cast_const().cast()
        } else {
            chunk.as_ptr().cast()
        });
    }
    buffer_pointers.push(sizes.as_ptr());
    let mut private = Box::new(ExportedArray {
        buffer_pointers,
        _validity: validity,
        _views: views,
        _sizes: sizes,
        _chunks: shared.into_iter().map(|(chunk, _)| chunk).collect(),
    });
    #[cfg(test)]
    live::add(1);
    ArrowArray {
        length: length as i64,
        null_count: null_count as i64,
        offset: 0,
        n_buffers: private.buffer_pointers.len() as i64,
        n_children: 0,
        buffers: private.buffer_pointers.as_mut_ptr(),
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: Box::into_raw(private).cast(),
    }
}

/// Release callback of [`export_schema`]: its strings are static, so nothing is freed.
unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: the consumer passes the (possibly moved) schema we made, or null.
    if let Some(schema) = unsafe { schema.as_mut() } {
        schema.release = None;
    }
}

/// Release callback of exported arrays: frees the private data exactly once.
unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: the consumer passes the (possibly moved) array made by `assemble`, whose
    // private data is a boxed `ExportedArray`.
    if let Some(private) = unsafe { take_private::<ExportedArray>(array) } {
        // Dropping frees memory and Arcs; a panic must still not unwind into C.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(private)));
    }
}

#[cfg(test)]
impl Drop for ExportedArray {
    fn drop(&mut self) {
        live::add(-1);
    }
}

/// Test-only count of this thread's exported arrays that are not released yet.
#[cfg(test)]
pub(crate) mod live {
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
    }

    pub(crate) fn add(delta: isize) {
        LIVE.with(|live| live.set(live.get() + delta));
    }

    pub(crate) fn count() -> isize {
        LIVE.with(Cell::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(array: &ArrowArray, i: usize) -> *const c_void {
        array.buffer_pointers()[i]
    }

    #[test]
    fn buffers_follow_the_string_view_layout() {
        let mut arena = Arena::new();
        let long = arena.store(b"a string longer than twelve").unwrap();
        let views = [View::try_inline(b"short").unwrap(), View::NA, long];
        let array = export_array(&views, &mut arena).unwrap();
        assert_eq!((array.length, array.null_count, array.offset), (3, 1, 0));
        assert_eq!(array.n_buffers, 4);
        for (i, align) in [(0, 64), (1, 64), (2, 16), (3, 64)] {
            assert_eq!(buffer(&array, i) as usize % align, 0, "buffer {i}");
        }
        // SAFETY: the validity buffer holds one byte, the views buffer 48, sizes 8.
        let (bits, views_out, size) = unsafe {
            (
                *buffer(&array, 0).cast::<u8>(),
                std::slice::from_raw_parts(buffer(&array, 1).cast::<u8>(), 48),
                *buffer(&array, 3).cast::<i64>(),
            )
        };
        assert_eq!(bits, 0b101);
        assert_eq!(&views_out[..16], &views[0].to_bytes());
        assert_eq!(&views_out[16..32], &[0; 16]);
        assert_eq!(&views_out[32..], &long.to_bytes());
        assert_eq!(size, 32);
    }

    #[test]
    fn no_nulls_means_no_validity_buffer() {
        let mut arena = Arena::new();
        let array = export_array(&[View::EMPTY; 3], &mut arena).unwrap();
        assert!(buffer(&array, 0).is_null());
        assert_eq!(array.null_count, 0);
        assert_eq!(array.n_buffers, 3);
    }

    #[test]
    fn views_outside_the_arena_are_refused() {
        let mut arena = Arena::new();
        let foreign = Arena::new().store(&[b'x'; 40]).unwrap();
        let err = export_array(&[View::EMPTY, foreign], &mut arena).unwrap_err();
        assert_eq!(err, ArrowError::CorruptView { index: 1 });
    }

    #[test]
    fn views_past_the_shared_bytes_are_refused() {
        let mut arena = Arena::new();
        let good = arena.store(&[b'g'; 20]).unwrap();
        let location = good.location().unwrap();
        let used = arena.share_chunks()[0].1 as u32;
        let moved = |chunk, offset, len| {
            View::long(len, *b"gggg", crate::view::Location { chunk, offset }).unwrap()
        };
        let cases = [
            moved(1, 0, 20),
            moved(u32::MAX, 0, 20),
            moved(0, used - 19, 20),
            moved(0, u32::MAX, 20),
            moved(0, 0, used as usize + 1),
        ];
        for bad in cases {
            // A bad view after inline, missing and good ones, past the first validity byte.
            let mut views = vec![View::try_inline(b"x").unwrap(), View::NA, good];
            views.extend([good; 7]);
            views.push(bad);
            let err = export_array(&views, &mut arena).unwrap_err();
            assert_eq!(err, ArrowError::CorruptView { index: 10 }, "{bad:?}");
        }
        assert_eq!(location.chunk, 0);
    }

    #[test]
    fn release_frees_once_and_unpins_chunks() {
        let before = live::count();
        let mut arena = Arena::new();
        let view = arena.store(&[b'y'; 100]).unwrap();
        let mut array = export_array(&[view], &mut arena).unwrap();
        assert_eq!(live::count(), before + 1);
        let chunk = Arc::clone(&arena.share_chunks()[0].0);
        assert_eq!(Arc::strong_count(&chunk), 3);
        // SAFETY: the array is ours and live; a second call must be a no-op.
        unsafe {
            release_array(&mut array);
            release_array(&mut array);
        }
        assert!(array.is_released());
        assert_eq!(Arc::strong_count(&chunk), 2);
        assert_eq!(live::count(), before);
    }
}
