//! The per-call path of the StringDType to StringDType cast. NumPy calls this cast once
//! per element for `take`, fancy indexing and masked copies and assignments (its copy of
//! a dtype with references goes through the cast, one element at a time), so the cost of
//! one call is what those operations pay per element.
//!
//! A short call copies without the arenas' locks: an inline string (or a missing value
//! the destination keeps) over an element that holds no long string is the 16 bytes of
//! the view and nothing else; a long string (or a missing value whose text the
//! destination stores) is read from the source's arena and stored in the destination's,
//! and an old long string of the destination's arena released there, both arenas
//! reached without their locks. It takes no lock and no fork session; on x86-64 a
//! locked instruction per element also stalled the loads of the next, random, element,
//! and the locks and their bookkeeping were most of what `take` cost. From the first
//! element whose old destination is a long string of another arena (its release is
//! posted to that arena, which a write guard does), or when both operands share one
//! arena, the rest of the call goes to the locked loop
//! ([`super::strings::string_to_string_locked`]). The copy runs only on a thread that
//! holds the GIL, and only while neither arena counts a holder that could be writing the
//! source or touching the destination (a loop running without the GIL): such a holder
//! waits for the GIL before it locks, so it never overlaps a copy. See docs/design.md
//! ("The per-call path") for why this keeps the arena's guarantees.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use stringdtype_core::View;

use crate::arenas::holds_gil;
use crate::descr::StringDescr;
use crate::element::{read_view, write_view};
use crate::error::loop_guard;
use crate::ffi::{npy_intp, PyArrayMethod_Context};
use crate::missing;

use super::strings::{store_copy, string_to_string_locked};

/// Longest call copied without the locks. Longer calls (`copy`, `astype`, contiguous
/// runs) are worth the locks once, and the locked loop writes a fresh destination
/// without reading it (reading a page that was never written would fault it in twice)
/// and shares or gathers what it copies.
const SHORT_CALL: npy_intp = 16;

/// The cast's strided loop (NumPy's `PyArrayMethod_StridedLoop`): short calls try the
/// copy without the locks, longer ones take the locked loop.
///
/// # Safety
/// Called by NumPy with the arguments of a strided loop of this cast: two operands, both
/// StringDType, `dimensions[0]` elements at each.
pub(super) unsafe extern "C" fn string_to_string(
    context: *mut PyArrayMethod_Context,
    data: *const *mut c_char,
    dimensions: *const npy_intp,
    strides: *const npy_intp,
    auxdata: *mut c_void,
) -> c_int {
    // SAFETY (all): forwarded from NumPy.
    if (1..=SHORT_CALL).contains(unsafe { &*dimensions }) {
        unsafe { copy_unlocked_first(context, data, dimensions, strides, auxdata) }
    } else {
        unsafe { string_to_string_locked(context, data, dimensions, strides, auxdata) }
    }
}

/// Copies the elements that can be copied without the locks, up to the first one that
/// cannot, and leaves the rest to the locked loop.
///
/// # Safety
/// As for [`string_to_string`].
#[inline(never)]
unsafe fn copy_unlocked_first(
    context: *mut PyArrayMethod_Context,
    data: *const *mut c_char,
    dimensions: *const npy_intp,
    strides: *const npy_intp,
    auxdata: *mut c_void,
) -> c_int {
    // SAFETY: NumPy passes two pointers, two strides and the count.
    let (n, src, dst, src_stride, dst_stride) = unsafe {
        let (src, dst) = ((*data).cast::<u8>(), (*data.add(1)).cast::<u8>());
        (*dimensions, src, dst, *strides, *strides.add(1))
    };
    // SAFETY: NumPy keeps the descriptors alive for the call.
    if !unsafe { may_copy_unlocked(context) } {
        // SAFETY: forwarded from NumPy.
        return unsafe { string_to_string_locked(context, data, dimensions, strides, auxdata) };
    }
    let mut done: npy_intp = 0;
    while done < n {
        let from = src.wrapping_offset(done * src_stride);
        let to = dst.wrapping_offset(done * dst_stride);
        // Read once: what is decided about the view is what is written.
        // SAFETY: `from` and `to` are elements `done < n` of the loop's operands.
        let (view, old) = unsafe { (read_view(from), read_view(to)) };
        // SAFETY: as above; NumPy keeps the descriptors alive for the call.
        let own_copy = view.is_inline_string() || (view.is_na() && unsafe { keeps_na(context) });
        let copy = if own_copy && old.location().is_none() {
            view
        } else {
            // SAFETY: `may_copy_unlocked` answered for this call, which holds the GIL.
            match unsafe { store_unlocked(context, view, own_copy, old) } {
                Stored::Copy(copy) => copy,
                Stored::NeedsLock => break,
                Stored::Failed => return -1,
            }
        };
        // SAFETY: as above.
        unsafe { write_view(to, copy) };
        done += 1;
    }
    if done == n {
        return 0;
    }
    if done == 0 {
        // SAFETY: forwarded from NumPy.
        return unsafe { string_to_string_locked(context, data, dimensions, strides, auxdata) };
    }
    // The rest, from the first element that needs the locks.
    let rest = [
        src.wrapping_offset(done * src_stride).cast::<c_char>(),
        dst.wrapping_offset(done * dst_stride).cast::<c_char>(),
    ];
    let count = n - done;
    // SAFETY: the remaining `count` elements of NumPy's arguments, with its strides.
    unsafe { string_to_string_locked(context, rest.as_ptr(), &count, strides, auxdata) }
}

/// What [`store_unlocked`] made of a source element.
enum Stored {
    /// The copy's view, its string stored in the destination's arena.
    Copy(View),
    /// Source and destination share an arena, or the old destination element is a
    /// view of another arena (its release is posted when a write guard settles): the
    /// locked loop copies it.
    NeedsLock,
    /// The copy failed (a corrupt view, no memory); the Python error is set.
    Failed,
}

/// Copies a source element into an element whose old string needs releasing, or that
/// needs the destination's arena (a long string, or a missing value whose text the
/// destination stores), without the locks: `view` is the source element, `own_copy`
/// whether it is its own copy, `old` the destination's element. Kept out of the loop,
/// whose inline copies it would make dearer.
///
/// # Safety
/// `context` is the cast's context, whose two descriptors are live StringDType ones;
/// the calling thread holds the GIL and [`may_copy_unlocked`] answered `true` for them
/// while it did.
#[inline(never)]
unsafe fn store_unlocked(
    context: *mut PyArrayMethod_Context,
    view: View,
    own_copy: bool,
    old: View,
) -> Stored {
    // SAFETY: forwarded contract.
    let (src, dst) = unsafe { descriptors(context) };
    let (source, target) = (src.arena(), dst.arena());
    if ptr::eq(source, target) {
        return Stored::NeedsLock;
    }
    // SAFETY: the GIL is held for the whole call and `may_copy_unlocked` answered `true`
    // while it was: no holder writes the source, none touches the destination, and this
    // thread holds no guard of either (a guard's holder never calls back into NumPy).
    // Two distinct arenas, so the references do not alias.
    let (read, write) = unsafe { (source.read_unlocked(), target.write_unlocked()) };
    // Nothing may be left for a write guard's settling: an old string of another arena
    // would be, so it takes the locked loop. Reads of other arenas' chunks through the
    // source are kept by the source, as under a read guard.
    if !write.releases_here(old) {
        return Stored::NeedsLock;
    }
    let mut copy = view;
    let status = loop_guard(|| {
        if !own_copy {
            copy = store_copy(view, src.state(), read, write)?;
        }
        // The old string goes once its replacement is stored: a failed store keeps it.
        write.release(old);
        Ok(())
    });
    if status == 0 {
        Stored::Copy(copy)
    } else {
        Stored::Failed
    }
}

/// The cast's two descriptors.
///
/// # Safety
/// `context` is the cast's context, whose two descriptors are live StringDType ones.
#[inline(always)]
unsafe fn descriptors<'a>(
    context: *mut PyArrayMethod_Context,
) -> (StringDescr<'a>, StringDescr<'a>) {
    // SAFETY: forwarded contract.
    unsafe {
        let descriptors = (*context).descriptors;
        (
            StringDescr::from_raw(*descriptors),
            StringDescr::from_raw(*descriptors.add(1)),
        )
    }
}

/// Whether this call may copy without the arenas' locks: its thread holds the GIL (and
/// keeps it for the whole call: nothing here lets it go), the source's arena counts no
/// holder that writes and the destination's none at all (see
/// `stringdtype_core::lock::hold`).
///
/// # Safety
/// `context` is the cast's context, whose two descriptors are live StringDType ones.
#[inline(always)]
unsafe fn may_copy_unlocked(context: *mut PyArrayMethod_Context) -> bool {
    if !holds_gil() {
        return false;
    }
    // SAFETY: forwarded contract.
    let (src, dst) = unsafe { descriptors(context) };
    src.arena().may_read_unlocked() && dst.arena().may_write_unlocked()
}

/// Whether the cast's destination keeps missing values (a missing source is then its own
/// copy; else it becomes the text of the source's missing value, stored in an arena).
///
/// # Safety
/// `context` is the cast's context, whose second descriptor is a live StringDType one.
#[inline(never)]
unsafe fn keeps_na(context: *mut PyArrayMethod_Context) -> bool {
    // SAFETY: forwarded contract.
    let descr = unsafe { StringDescr::from_raw(*(*context).descriptors.add(1)) };
    missing::has_na(descr.na())
}
