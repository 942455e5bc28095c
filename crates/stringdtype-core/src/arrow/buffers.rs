//! Checked, borrowed access to the buffers of an imported Arrow array.
//!
//! The C Data Interface gives buffers as bare pointers; their sizes follow from the type,
//! `length` and `offset` (and, for variable-size data, from values in other buffers). Every
//! slice made here has a size computed with checked arithmetic, so a malformed array is an
//! error before any byte is read.

use std::ffi::c_void;

use super::error::ArrowError;
use super::ffi::ArrowArray;

fn malformed(why: impl Into<String>) -> ArrowError {
    ArrowError::Malformed(why.into())
}

/// A live array with its `offset` and `length` checked, borrowed for its buffers' life.
pub(crate) struct RawArray<'a> {
    array: &'a ArrowArray,
    pointers: &'a [*const c_void],
    /// Elements from the start of the buffers to the array's first element.
    pub offset: usize,
    /// Number of elements.
    pub length: usize,
}

impl<'a> RawArray<'a> {
    /// Checks the array's header; `what` names it in errors ("array", "dictionary").
    pub fn new(array: &'a ArrowArray, what: &'static str) -> Result<RawArray<'a>, ArrowError> {
        if array.is_released() {
            return Err(ArrowError::Released(what));
        }
        let length = usize::try_from(array.length)
            .map_err(|_| malformed(format!("{what} length {} is negative", array.length)))?;
        let offset = usize::try_from(array.offset)
            .map_err(|_| malformed(format!("{what} offset {} is negative", array.offset)))?;
        // An import allocates 16 bytes per element, and every layout needs at least 4
        // bytes of offsets or 16 of views per slot: larger lengths are lies.
        if offset
            .checked_add(length)
            .is_none_or(|end| end > isize::MAX as usize / 16)
        {
            return Err(malformed(format!(
                "{what} offset {offset} + length {length} is too large"
            )));
        }
        let pointers = array.buffer_pointers();
        if pointers.len() as i64 != array.n_buffers {
            return Err(malformed(format!(
                "{what} has n_buffers {} but no buffer pointers",
                array.n_buffers
            )));
        }
        Ok(RawArray {
            array,
            pointers,
            offset,
            length,
        })
    }

    /// Number of buffers.
    pub fn n_buffers(&self) -> usize {
        self.pointers.len()
    }

    /// Offset and length of the slots the array covers: `offset + length`.
    pub fn end(&self) -> usize {
        self.offset + self.length
    }

    /// Buffer `index` as `len` bytes; a null pointer is allowed only when `len` is zero.
    pub fn buffer(&self, index: usize, len: usize) -> Result<&'a [u8], ArrowError> {
        let ptr = *self
            .pointers
            .get(index)
            .ok_or_else(|| malformed(format!("buffer {index} is missing")))?;
        if len == 0 {
            return Ok(&[]);
        }
        if ptr.is_null() {
            return Err(malformed(format!("buffer {index} is null")));
        }
        if len > isize::MAX as usize {
            return Err(malformed(format!(
                "buffer {index} of {len} bytes is too large"
            )));
        }
        // SAFETY: the producer guarantees (`ArrowArray::from_raw`) that each buffer is valid
        // for the bytes its layout implies, which is `len` by the caller's computation, for
        // as long as the array is not released: the slice borrows the array for `'a`.
        Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
    }

    /// Buffer `index` holding `count` values of `width` bytes each.
    pub fn buffer_of(
        &self,
        index: usize,
        count: usize,
        width: usize,
    ) -> Result<&'a [u8], ArrowError> {
        let len = count
            .checked_mul(width)
            .ok_or_else(|| malformed(format!("buffer {index} size overflows")))?;
        self.buffer(index, len)
    }

    /// The validity bitmap (buffer 0), or `None` when every element is valid.
    pub fn validity(&self) -> Result<Option<Validity<'a>>, ArrowError> {
        let has_bitmap = self.pointers.first().is_some_and(|p| !p.is_null());
        if !has_bitmap && self.array.null_count > 0 {
            return Err(malformed("null_count > 0 without a validity bitmap"));
        }
        // A null count of 0 lets the consumer ignore a bitmap; -1 means "unknown".
        if !has_bitmap || self.array.null_count == 0 || self.length == 0 {
            return Ok(None);
        }
        let bits = self.buffer(0, self.end().div_ceil(8))?;
        Ok(Some(Validity {
            bits,
            offset: self.offset,
        }))
    }
}

/// A validity bitmap (least significant bit first; set means valid).
#[derive(Clone, Copy)]
pub(crate) struct Validity<'a> {
    bits: &'a [u8],
    offset: usize,
}

impl<'a> Validity<'a> {
    /// The bitmap of the elements from `first` on.
    pub fn from(self, first: usize) -> Validity<'a> {
        Validity {
            bits: self.bits,
            offset: self.offset + first,
        }
    }

    /// Whether element `index` (counted from the array's offset) is valid.
    #[inline]
    pub fn is_valid(&self, index: usize) -> bool {
        let bit = self.offset + index;
        self.bits[bit / 8] & (1 << (bit % 8)) != 0
    }
}

/// Whether element `index` is valid under an optional bitmap.
#[inline]
pub(crate) fn is_valid(validity: Option<Validity<'_>>, index: usize) -> bool {
    validity.is_none_or(|v| v.is_valid(index))
}

/// An integer type of Arrow offsets or dictionary keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntKind {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

impl IntKind {
    /// The integer type of an Arrow format string ("c", "C", "s", ... "L").
    pub fn from_format(format: &[u8]) -> Option<IntKind> {
        Some(match format {
            b"c" => IntKind::I8,
            b"C" => IntKind::U8,
            b"s" => IntKind::I16,
            b"S" => IntKind::U16,
            b"i" => IntKind::I32,
            b"I" => IntKind::U32,
            b"l" => IntKind::I64,
            b"L" => IntKind::U64,
            _ => return None,
        })
    }

    /// Bytes per value.
    pub fn width(self) -> usize {
        match self {
            IntKind::I8 | IntKind::U8 => 1,
            IntKind::I16 | IntKind::U16 => 2,
            IntKind::I32 | IntKind::U32 => 4,
            IntKind::I64 | IntKind::U64 => 8,
        }
    }
}

/// A buffer of integers of one kind, in native byte order as the interface specifies.
#[derive(Clone, Copy)]
pub(crate) struct IntBuffer<'a> {
    bytes: &'a [u8],
    kind: IntKind,
}

impl<'a> IntBuffer<'a> {
    /// Buffer `index` of `raw` with `count` integers of `kind`.
    pub fn new(
        raw: &RawArray<'a>,
        index: usize,
        count: usize,
        kind: IntKind,
    ) -> Result<IntBuffer<'a>, ArrowError> {
        let bytes = raw.buffer_of(index, count, kind.width())?;
        Ok(IntBuffer { bytes, kind })
    }

    /// Value `index` (counted from the buffer's start); panics when out of range.
    /// The raw bytes and the integer type, for loops that read the integers themselves.
    pub fn raw(&self) -> (&'a [u8], IntKind) {
        (self.bytes, self.kind)
    }

    #[inline(always)]
    pub fn get(&self, index: usize) -> i128 {
        let w = self.kind.width();
        let b = &self.bytes[index * w..index * w + w];
        match self.kind {
            IntKind::I8 => i8::from_ne_bytes([b[0]]).into(),
            IntKind::U8 => b[0].into(),
            IntKind::I16 => i16::from_ne_bytes([b[0], b[1]]).into(),
            IntKind::U16 => u16::from_ne_bytes([b[0], b[1]]).into(),
            IntKind::I32 => i32::from_ne_bytes(b.try_into().expect("4 bytes")).into(),
            IntKind::U32 => u32::from_ne_bytes(b.try_into().expect("4 bytes")).into(),
            IntKind::I64 => i64::from_ne_bytes(b.try_into().expect("8 bytes")).into(),
            IntKind::U64 => u64::from_ne_bytes(b.try_into().expect("8 bytes")).into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_buffers_read_every_kind() {
        let bytes: Vec<u8> = (0..16u8).map(|b| b.wrapping_mul(37)).collect();
        for format in [b"c", b"C", b"s", b"S", b"i", b"I", b"l", b"L"] {
            let kind = IntKind::from_format(format).unwrap();
            let buffer = IntBuffer {
                bytes: &bytes,
                kind,
            };
            let w = kind.width();
            let mut raw = [0u8; 16];
            raw[..w].copy_from_slice(&bytes[w..2 * w]);
            let unsigned = u128::from_ne_bytes(raw) as i128;
            let signed = unsigned - if raw[w - 1] >= 0x80 { 1 << (8 * w) } else { 0 };
            let is_signed = format[0].is_ascii_lowercase();
            assert_eq!(buffer.get(1), if is_signed { signed } else { unsigned });
        }
        assert_eq!(IntKind::from_format(b"u"), None);
    }

    #[test]
    fn validity_counts_from_the_offset() {
        let validity = Validity {
            bits: &[0b1000_0001, 0b0000_0001],
            offset: 7,
        };
        assert!(validity.is_valid(0));
        assert!(validity.is_valid(1));
        assert!(!validity.is_valid(2));
        assert!(!validity.is_valid(8));
        assert!(is_valid(None, 123));
    }
}
