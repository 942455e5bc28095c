//! What the element loops of [`super::import`] and [`super::import_views`] share.

use super::error::ArrowError;
use crate::arena::{prefetch_line, Arena};
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
    if let Some(byte) = usize::try_from(at).ok().and_then(|at| data.get(at)) {
        prefetch_line(byte);
    }
}
