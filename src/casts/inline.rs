//! The per-call path of the StringDType to StringDType cast. NumPy calls this cast once
//! per element for `take`, fancy indexing and masked copies and assignments (its copy of
//! a dtype with references goes through the cast, one element at a time), so the cost of
//! one call is what those operations pay per element.
//!
//! A short call first copies what needs no arena: a source element that is an inline
//! string (or a missing value the destination keeps) over a destination element that
//! holds no long string. Such a copy is the 16 bytes of the view and nothing else: the
//! source's bytes are in the view itself, no arena holds anything of either element, and
//! nothing is released. It takes no lock, no fork session and no `catch_unwind` (nothing
//! in it can panic or fail); on x86-64 a locked instruction per element also stalled the
//! loads of the next, random, element, which is most of what `take` cost. Everything
//! else, from the first element that needs an arena on, goes to the locked loop
//! ([`super::strings::string_to_string_locked`]). The copy runs only on a thread that
//! holds the GIL, and only while neither arena counts a holder that could be writing the
//! source or touching the destination (a loop running without the GIL): such a holder
//! waits for the GIL before it locks, so it never overlaps a copy. See docs/design.md
//! ("The per-call path") for why this keeps the arena's guarantees.

use std::ffi::{c_char, c_int, c_void};

use crate::arenas::holds_gil;
use crate::descr::StringDescr;
use crate::element::{read_view, write_view};
use crate::ffi::{npy_intp, PyArrayMethod_Context};
use crate::missing;

use super::strings::string_to_string_locked;

/// Longest call that tries the copy without an arena first. Longer calls (`copy`,
/// `astype`, contiguous runs) are worth the locks once, and the locked loop writes a
/// fresh destination without reading it (reading a page that was never written
/// would fault it in twice).
const SHORT_CALL: npy_intp = 16;

/// The cast's strided loop (NumPy's `PyArrayMethod_StridedLoop`). Decides from the first
/// source element alone whether to try the copy without an arena, so that a call that
/// cannot use it (a long first string) costs a handful of instructions more than the
/// locked loop, and no stack frame.
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
    // SAFETY: NumPy passes two pointers, two strides and the count; the first source
    // element is read only when there is one.
    let candidate = unsafe {
        let n = *dimensions;
        (1..=SHORT_CALL).contains(&n) && {
            let view = read_view((*data).cast::<u8>());
            view.is_inline_string() || view.is_na()
        }
    };
    // SAFETY (both): forwarded from NumPy.
    if candidate {
        unsafe { copy_inline_first(context, data, dimensions, strides, auxdata) }
    } else {
        unsafe { string_to_string_locked(context, data, dimensions, strides, auxdata) }
    }
}

/// Copies the elements that need no arena, up to the first one that does, and leaves the
/// rest to the locked loop.
///
/// # Safety
/// As for [`string_to_string`].
#[inline(never)]
unsafe fn copy_inline_first(
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
        let view = unsafe { read_view(from) };
        // SAFETY: as above; NumPy keeps the descriptors alive for the call.
        let own_copy = view.is_inline_string() || (view.is_na() && unsafe { keeps_na(context) });
        // SAFETY: as above.
        if !own_copy || unsafe { read_view(to) }.location().is_some() {
            break;
        }
        // SAFETY: as above.
        unsafe { write_view(to, view) };
        done += 1;
    }
    if done == n {
        return 0;
    }
    if done == 0 {
        // SAFETY: forwarded from NumPy.
        return unsafe { string_to_string_locked(context, data, dimensions, strides, auxdata) };
    }
    // The rest, from the first element that needs an arena.
    let rest = [
        src.wrapping_offset(done * src_stride).cast::<c_char>(),
        dst.wrapping_offset(done * dst_stride).cast::<c_char>(),
    ];
    let count = n - done;
    // SAFETY: the remaining `count` elements of NumPy's arguments, with its strides.
    unsafe { string_to_string_locked(context, rest.as_ptr(), &count, strides, auxdata) }
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
    let (src, dst) = unsafe {
        let descriptors = (*context).descriptors;
        (
            StringDescr::from_raw(*descriptors),
            StringDescr::from_raw(*descriptors.add(1)),
        )
    };
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
