//! Export: views and their arena as an Arrow `string_view` array, without copying strings.
//!
//! A view already has Arrow's layout, with the arena's slot and local chunk index as
//! `buffer_index`, so the views buffer is a copy of the elements with the slot masked off
//! and missing values turned into empty strings (marked in a validity bitmap), and each
//! shared arena chunk becomes one variadic data buffer as it is: the export holds an
//! `Arc` of the chunk, which pins it in the arena (its bytes are never rewritten) until
//! the consumer releases the array. Strings of chunks the arena does not share (too many
//! holes) and of other arenas are copied into extra buffers after the chunks.

use std::ffi::{c_void, CStr};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::Arc;

use super::error::ArrowError;
use super::ffi::{take_private, ArrowArray, ArrowSchema, ARROW_FLAG_NULLABLE};
use crate::arena::{note_unshared, Arena, ChunkBuf, ChunkShare};
use crate::view::{Location, View};

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
    _extra: Vec<AlignedBuffer>,
    /// The shared chunks, pinned in their arena while this lives.
    chunks: Vec<Arc<ChunkBuf>>,
}

impl Drop for ExportedArray {
    fn drop(&mut self) {
        #[cfg(test)]
        live::add(-1);
        if !self.chunks.is_empty() {
            // The last reference to a chunk frees it into the pool: a lock of the crate.
            let _session = crate::fork::Session::enter();
            self.chunks.clear();
            note_unshared();
        }
    }
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
pub fn export_array(views: &[View], arena: &Arena) -> Result<ArrowArray, ArrowError> {
    export_views(views.iter().copied(), arena)
}

/// Exports the elements that `views` yields (for example a strided array's), whose long
/// strings live in `arena` (or, for views that arrived from elsewhere, in any live
/// arena). Long strings in chunks that `arena` shares are not copied; those of chunks
/// it does not share (see [`Arena::share_chunks`]) and of other arenas are copied into
/// extra data buffers. Errors when an element names no live string.
pub fn export_views<I>(views: I, arena: &Arena) -> Result<ArrowArray, ArrowError>
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
    let mut unshared = vec![0u8; capacity.div_ceil(8)];
    let mut copied = Copied::default();
    let mut views_buf = AlignedBuffer::filled_slots(capacity, |slots| {
        let bitmaps = (validity.as_mut_bytes(), &mut unshared[..]);
        copied = copy_views(views, arena.slot(), &shared, slots, bitmaps);
        copied.length
    });
    let mut extra = Vec::new();
    if copied.any_unshared {
        extra = copy_unshared(&mut views_buf, &unshared, arena, &shared)?;
    }
    let validity = (copied.null_count > 0).then_some(validity);
    Ok(assemble(
        copied.length,
        copied.null_count,
        validity,
        views_buf,
        shared,
        extra,
    ))
}

/// What [`copy_views`] found.
#[derive(Default)]
struct Copied {
    length: usize,
    null_count: usize,
    /// Whether some long string does not lie within a shared chunk of the arena.
    any_unshared: bool,
}

/// Copies views into `out` (missing values as zeros, the arena's chunk ids as buffer
/// indices) and sets the bits of the two bitmaps: `validity`, and `unshared` for the
/// long strings that do not lie within a shared chunk.
///
/// The loop has no data-dependent branch, so that arrays mixing inline, long and
/// missing elements copy at memory speed; a view that does not lie within a shared
/// chunk is left as it is and only noted here, for [`copy_unshared`].
fn copy_views(
    mut views: impl Iterator<Item = View>,
    slot: u32,
    shared: &[ChunkShare],
    out: &mut [MaybeUninit<[u8; 16]>],
    (validity, unshared): (&mut [u8], &mut [u8]),
) -> Copied {
    // The bytes that may be read, per local chunk (0 where nothing is shared); one more
    // entry so that an index clamped into range always finds one.
    let limits: Vec<u64> = shared
        .iter()
        .map(|share| match share {
            ChunkShare::Shared { len, .. } => *len as u64,
            ChunkShare::Copy | ChunkShare::Empty => 0,
        })
        .chain([0])
        .collect();
    let last = limits.len() - 1;
    // A view's chunk field minus `base` is its local chunk index when it is of the current
    // id range (aligned: `base | local`), more than `last` otherwise: one compare.
    let base = slot;
    let (mut length, mut null_count, mut any) = (0, 0, false);
    // Eight views per bitmap byte: the bit positions are constants of the unrolled loop.
    for (byte, slots) in out.chunks_mut(8).enumerate() {
        let (mut bits, mut copy, mut count) = (0u8, 0u8, 0);
        // `slots` first: the zip stops at the end of the chunk without taking a view.
        for (j, (slot_out, view)) in slots.iter_mut().zip(views.by_ref()).enumerate() {
            let bytes = view.to_bytes();
            let word = |at: usize| {
                u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
            };
            let na = word(0) >> 31 != 0;
            let len = u64::from(word(0) & 0x7fff_ffff);
            let long = !na & (len > crate::view::MAX_INLINE_LEN as u64);
            let local = word(8).wrapping_sub(base) as usize;
            let fits = (local < last) & (u64::from(word(12)) + len <= limits[local.min(last)]);
            copy |= u8::from(long & !fits) << j;
            // Long views that fit get their local chunk index as buffer index.
            let remap = u128::from(long & fits).wrapping_neg() & (u128::from(base) << 64);
            let keep = u128::from(!na).wrapping_neg();
            slot_out.write(((u128::from_le_bytes(bytes) ^ remap) & keep).to_le_bytes());
            bits |= u8::from(!na) << j;
            count = j + 1;
        }
        (validity[byte], unshared[byte]) = (bits, copy);
        any |= copy != 0;
        null_count += count - bits.count_ones() as usize;
        length += count;
        if count < slots.len() {
            break;
        }
    }
    Copied {
        length,
        null_count,
        any_unshared: any,
    }
}

/// Largest extra data buffer: view offsets are 32-bit.
const MAX_EXTRA: usize = 1 << 31;

/// The export's slow path: copies the strings of the long views [`copy_views`] left (of
/// chunks not shared, of other arenas) into extra buffers after the chunks; a view of a
/// shared chunk by an earlier id range of the arena only gets the chunk's index.
#[cold]
fn copy_unshared(
    views: &mut AlignedBuffer,
    unshared: &[u8],
    arena: &Arena,
    shared: &[ChunkShare],
) -> Result<Vec<AlignedBuffer>, ArrowError> {
    let mut extra: Vec<Vec<u8>> = Vec::new();
    for i in set_bits(unshared) {
        let raw: [u8; 16] = views.as_bytes()[16 * i..16 * i + 16]
            .try_into()
            .expect("16");
        let view = View::from_bytes(raw);
        if let Some(local) = shared_local(&view, arena, shared) {
            let moved = view.with_chunk(local);
            views.as_mut_bytes()[16 * i..16 * i + 16].copy_from_slice(&moved.to_bytes());
            continue;
        }
        let bytes = arena
            .get(&view)
            .map_err(|_| ArrowError::CorruptView { index: i })?;
        if extra
            .last()
            .is_none_or(|b| b.len() + bytes.len() > MAX_EXTRA)
        {
            extra.push(Vec::new());
        }
        let buffer = extra.last_mut().expect("pushed");
        buffer
            .try_reserve(bytes.len())
            .map_err(|_| ArrowError::Malformed("out of memory copying strings".into()))?;
        let offset = buffer.len() as u32;
        buffer.extend_from_slice(bytes);
        let index = (shared.len() + extra.len() - 1) as u32;
        let moved = View::long(
            view.len(),
            view.prefix(),
            Location {
                chunk: index,
                offset,
            },
        )
        .expect("length of a live view");
        views.as_mut_bytes()[16 * i..16 * i + 16].copy_from_slice(&moved.to_bytes());
    }
    Ok(extra
        .into_iter()
        .map(|bytes| {
            let mut buffer = AlignedBuffer::zeroed(bytes.len());
            buffer.as_mut_bytes().copy_from_slice(&bytes);
            buffer
        })
        .collect())
}

/// The positions of the bits set in `bits`, found word by word (not bit by bit).
fn set_bits(bits: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bits.chunks(8).enumerate().flat_map(|(at, bytes)| {
        let mut word = bytes.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b));
        std::iter::from_fn(move || {
            let bit = word.trailing_zeros() as usize;
            word &= word.wrapping_sub(1);
            (bit < 64).then_some(at * 64 + bit)
        })
    })
}

/// The index of the shared chunk of `arena` that holds `view`'s string, if any.
fn shared_local(view: &View, arena: &Arena, shared: &[ChunkShare]) -> Option<u32> {
    let at = view.location()?;
    let local = arena.own_local(at.chunk)?;
    let len = shared.get(local as usize)?.as_shared()?.1;
    (at.offset as usize + view.len() <= len).then_some(local)
}

fn assemble(
    length: usize,
    null_count: usize,
    validity: Option<AlignedBuffer>,
    views: AlignedBuffer,
    shared: Vec<ChunkShare>,
    extra: Vec<AlignedBuffer>,
) -> ArrowArray {
    let data_buffers = shared.len() + extra.len();
    let mut sizes = AlignedBuffer::zeroed(data_buffers * 8);
    let mut buffer_pointers = Vec::with_capacity(data_buffers + 3);
    buffer_pointers.push(validity.as_ref().map_or(ptr::null(), AlignedBuffer::as_ptr));
    buffer_pointers.push(views.as_ptr());
    // An empty buffer's address need not be valid, but must be aligned.
    let empty = NonNull::<Block>::dangling().as_ptr().cast_const().cast();
    let mut chunks = Vec::new();
    let mut lengths = Vec::with_capacity(data_buffers);
    for share in shared {
        match share {
            ChunkShare::Shared { chunk, len } if len > 0 => {
                buffer_pointers.push(chunk.as_ptr().cast());
                lengths.push(len);
                chunks.push(chunk);
            }
            _ => {
                buffer_pointers.push(empty);
                lengths.push(0);
            }
        }
    }
    for buffer in &extra {
        buffer_pointers.push(if buffer.len == 0 {
            empty
        } else {
            buffer.as_ptr()
        });
        lengths.push(buffer.len);
    }
    for (len, slot) in lengths.iter().zip(sizes.as_mut_bytes().chunks_exact_mut(8)) {
        slot.copy_from_slice(&(*len as i64).to_le_bytes());
    }
    buffer_pointers.push(sizes.as_ptr());
    let mut private = Box::new(ExportedArray {
        buffer_pointers,
        _validity: validity,
        _views: views,
        _sizes: sizes,
        _extra: extra,
        chunks,
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
    use crate::arena::MIN_CHUNK;

    fn buffer(array: &ArrowArray, i: usize) -> *const c_void {
        array.buffer_pointers()[i]
    }

    #[test]
    fn buffers_follow_the_string_view_layout() {
        let mut arena = Arena::new();
        let long = arena.store(b"a string longer than twelve").unwrap();
        let views = [View::try_inline(b"short").unwrap(), View::NA, long];
        let array = export_array(&views, &arena).unwrap();
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
        // The exported view names the chunk by its index among the data buffers.
        let at = long.location().unwrap();
        let local = Location {
            chunk: at.chunk - arena.slot(),
            offset: at.offset,
        };
        let exported = View::long(long.len(), long.prefix(), local).unwrap();
        assert_eq!(&views_out[32..], &exported.to_bytes());
        assert_eq!(size, 32);
    }

    #[test]
    fn no_nulls_means_no_validity_buffer() {
        let arena = Arena::new();
        let array = export_array(&[View::EMPTY; 3], &arena).unwrap();
        assert!(buffer(&array, 0).is_null());
        assert_eq!(array.null_count, 0);
        assert_eq!(array.n_buffers, 3);
    }

    #[test]
    fn views_of_dead_arenas_are_refused() {
        let arena = Arena::new();
        let foreign = Arena::new().store(&[b'x'; 40]).unwrap();
        let err = export_array(&[View::EMPTY, foreign], &arena).unwrap_err();
        assert_eq!(err, ArrowError::CorruptView { index: 1 });
    }

    /// The strings of the exported array's data buffers, element by element.
    fn exported_strings(array: &ArrowArray) -> Vec<Vec<u8>> {
        let n = array.length as usize;
        // SAFETY: an exported array's views buffer holds `n` views, and its data buffers
        // hold the bytes they name.
        let views = unsafe { std::slice::from_raw_parts(buffer(array, 1).cast::<View>(), n) };
        views
            .iter()
            .map(|v| match v.inline_bytes() {
                Some(bytes) => bytes.to_vec(),
                None => {
                    let at = v.location().unwrap();
                    let data = buffer(array, 2 + at.chunk as usize).cast::<u8>();
                    // SAFETY: as above.
                    unsafe { std::slice::from_raw_parts(data.add(at.offset as usize), v.len()) }
                        .to_vec()
                }
            })
            .collect()
    }

    #[test]
    fn strings_of_other_arenas_and_of_holey_chunks_are_copied() {
        let mut other = Arena::new();
        let theirs = other.store(&[b'o'; 30]).unwrap();
        let mut arena = Arena::new();
        arena.reserve(MIN_CHUNK);
        let mine: Vec<View> = (0..8)
            .map(|i| arena.store(&[b'a' + i; 20]).unwrap())
            .collect();
        for v in &mine[..6] {
            arena.release(*v);
        }
        let views = [mine[6], theirs, mine[7], View::try_inline(b"x").unwrap()];
        let array = export_array(&views, &arena).unwrap();
        // One (empty) buffer for the holey chunk, one extra buffer with the copies.
        assert_eq!(array.n_buffers, 2 + 2 + 1);
        let want: Vec<Vec<u8>> = vec![
            vec![b'g'; 20],
            vec![b'o'; 30],
            vec![b'h'; 20],
            b"x".to_vec(),
        ];
        assert_eq!(exported_strings(&array), want);
    }

    #[test]
    fn views_outside_every_chunk_are_refused() {
        let mut arena = Arena::new();
        let good = arena.store(&[b'g'; 20]).unwrap();
        let chunk = good.location().unwrap().chunk;
        let size = MIN_CHUNK as u32;
        let moved = |chunk, offset, len| {
            View::long(len, *b"gggg", crate::view::Location { chunk, offset }).unwrap()
        };
        let cases = [
            moved(chunk + 1, 0, 20),
            moved(u32::MAX, 0, 20),
            moved(1, 0, 20),
            moved(chunk, size - 19, 20),
            moved(chunk, u32::MAX, 20),
            moved(chunk, 0, size as usize + 1),
        ];
        for bad in cases {
            // A bad view after inline, missing and good ones, past the first validity byte.
            let mut views = vec![View::try_inline(b"x").unwrap(), View::NA, good];
            views.extend([good; 7]);
            views.push(bad);
            let err = export_array(&views, &arena).unwrap_err();
            assert_eq!(err, ArrowError::CorruptView { index: 10 }, "{bad:?}");
        }
    }

    #[test]
    fn bytes_past_the_shared_length_are_copied_not_shared() {
        let mut arena = Arena::new();
        arena.reserve(MIN_CHUNK);
        let good = arena.store(&[b'g'; 20]).unwrap();
        let at = good.location().unwrap();
        // Raw bytes may name the unused tail of the chunk: its bytes are copied, so the
        // consumer never sees the tail that later strings are written to.
        let tail = View::long(
            20,
            [0; 4],
            Location {
                chunk: at.chunk,
                offset: 64,
            },
        )
        .unwrap();
        let array = export_array(&[good, tail], &arena).unwrap();
        assert_eq!(array.n_buffers, 2 + 2 + 1);
        let tail_bytes = arena.get(&tail).unwrap().to_vec();
        assert_eq!(exported_strings(&array), vec![vec![b'g'; 20], tail_bytes]);
    }

    #[test]
    fn release_frees_once_and_unpins_chunks() {
        let before = live::count();
        let mut arena = Arena::new();
        let view = arena.store(&[b'y'; 100]).unwrap();
        let mut array = export_array(&[view], &arena).unwrap();
        assert_eq!(live::count(), before + 1);
        let chunk = Arc::clone(arena.share_chunks()[0].as_shared().unwrap().0);
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
