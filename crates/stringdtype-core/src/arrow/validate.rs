//! Whole-buffer UTF-8 validation of imported data buffers, which the glue layer may run on
//! its thread pool ([`set_buffer_validator`]): on a large import of long strings the
//! validation is the one pass over every byte, and one thread does not reach the
//! memory's bandwidth.

use std::sync::OnceLock;

/// Buffers of at least this many bytes in all go to the validator that was set.
pub const SPLIT_FROM: usize = 1 << 20;

/// Sets `valid[i]` to whether `buffers[i]` is UTF-8, for every `i`.
pub type Validator = fn(buffers: &[&[u8]], valid: &mut [bool]);

static VALIDATOR: OnceLock<Validator> = OnceLock::new();

/// Sets the function that validates buffers of [`SPLIT_FROM`] bytes or more in all (once;
/// later calls are ignored). It must answer exactly what [`is_utf8`] answers.
pub fn set_buffer_validator(validate: Validator) {
    let _ = VALIDATOR.set(validate);
}

/// Whether each of `buffers` is UTF-8 as a whole.
pub(super) fn buffers_are_utf8(buffers: &[&[u8]]) -> Vec<bool> {
    let mut valid = vec![false; buffers.len()];
    let total = buffers
        .iter()
        .map(|data| data.len())
        .fold(0, usize::saturating_add);
    match VALIDATOR.get() {
        Some(validate) if total >= SPLIT_FROM => validate(buffers, &mut valid),
        _ => {
            for (data, valid) in buffers.iter().zip(&mut valid) {
                *valid = is_utf8(data);
            }
        }
    }
    valid
}

/// Whether `data` is UTF-8 as a whole.
pub(super) fn buffer_is_utf8(data: &[u8]) -> bool {
    buffers_are_utf8(&[data])[0]
}

/// Whether a character may start at `at` (or `at` is the end) in UTF-8 bytes.
#[inline]
pub(super) fn is_char_boundary(data: &[u8], at: usize) -> bool {
    // Continuation bytes are 0b10xx_xxxx, that is -64..-1 as i8.
    data.get(at).is_none_or(|&b| (b as i8) >= -0x40)
}

/// Whether `data` is UTF-8, on the calling thread.
pub fn is_utf8(data: &[u8]) -> bool {
    simdutf8::basic::from_utf8(data).is_ok()
}

/// `data` cut into about `parts` pieces, each cut just before a byte that is not a UTF-8
/// continuation byte: the whole is UTF-8 exactly when every piece is (in UTF-8 such a
/// byte starts a character, so the pieces of a valid buffer are valid; valid pieces make
/// a valid whole). A cut with no such byte in the next three is left out.
pub fn utf8_pieces(data: &[u8], parts: usize) -> Vec<&[u8]> {
    let size = data.len().div_ceil(parts.max(1)).max(1);
    let mut pieces = Vec::with_capacity(parts);
    let mut start = 0;
    let mut at = size;
    while at < data.len() {
        let cut = (at..(at + 4).min(data.len())).find(|&i| is_char_boundary(data, i));
        if let Some(cut) = cut {
            pieces.push(&data[start..cut]);
            start = cut;
        }
        at += size;
    }
    pieces.push(&data[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_utf8_exactly_when_the_whole_is() {
        let text = "aé€😀".repeat(50);
        let mut cases: Vec<Vec<u8>> = vec![text.as_bytes().to_vec(), Vec::new(), b"x".to_vec()];
        for at in [0, 1, 2, 3, 7, 100, 301] {
            let mut bad = text.as_bytes().to_vec();
            bad[at] = 0xff;
            cases.push(bad);
            let mut cut = text.as_bytes().to_vec();
            cut.truncate(at + 2);
            cases.push(cut);
        }
        cases.push(vec![0x80; 40]);
        for data in &cases {
            for parts in [1, 2, 3, 5, 16, 1000] {
                let pieces = utf8_pieces(data, parts);
                assert_eq!(pieces.concat(), *data);
                assert_eq!(
                    pieces.iter().all(|p| is_utf8(p)),
                    is_utf8(data),
                    "{data:?} in {parts}"
                );
            }
        }
    }
}
