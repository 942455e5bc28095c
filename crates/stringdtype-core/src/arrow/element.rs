//! What the element loops of [`super::import`] and [`super::import_views`] share.

use super::error::ArrowError;
use crate::arena::Arena;
use crate::view::View;

/// Releases the `index` elements of `out` written before an error at `index`, and
/// returns the error.
pub(super) fn release_on_error(
    out: &[View],
    arena: &mut Arena,
    filled: Result<(), (usize, ArrowError)>,
) -> Result<(), ArrowError> {
    filled.map_err(|(index, error)| {
        for &view in &out[..index] {
            arena.release(view);
        }
        error
    })
}

/// How many strings ahead the element loops prefetch the strings of an adopted buffer
/// (each at least 13 bytes, mostly far longer: about one cache line each).
pub(super) const PREFETCH_AHEAD: usize = 8;

/// Asks for the cache line of `data[at]` (nothing when `at` is outside `data`).
#[inline(always)]
pub(super) fn prefetch(data: &[u8], at: i64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = usize::try_from(at).ok().and_then(|at| data.get(at)) {
        // SAFETY: a prefetch reads nothing the program sees and never faults; the
        // address is inside `data` anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (byte as *const u8).cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, at);
}
