//! Byte-parallel arithmetic on the 16 byte lanes of a `u128` ("SIMD within a register"),
//! for strings of at most 16 bytes: one load, no branch per byte.

/// One in each byte lane.
pub const LANES: u128 = u128::MAX / 0xff;
/// The top bit of each byte lane.
pub const TOPS: u128 = LANES << 7;

/// The bytes of `data` (at most 16) as a little-endian integer, zero above them, read
/// with at most two overlapping loads.
#[inline]
pub fn load(data: &[u8]) -> u128 {
    let len = data.len();
    debug_assert!(len <= 16);
    if len >= 8 {
        let low = u64::from_le_bytes(data[..8].try_into().expect("8 bytes"));
        let high = u64::from_le_bytes(data[len - 8..].try_into().expect("8 bytes"));
        u128::from(low) | (u128::from(high) << ((len - 8) * 8))
    } else if len >= 4 {
        let low = u32::from_le_bytes(data[..4].try_into().expect("4 bytes"));
        let high = u32::from_le_bytes(data[len - 4..].try_into().expect("4 bytes"));
        u128::from(low) | (u128::from(high) << ((len - 4) * 8))
    } else if len > 0 {
        // Positions 0, len / 2 and len - 1 cover every byte of one to three.
        let byte = |i: usize| u128::from(data[i]) << (8 * i);
        byte(0) | byte(len / 2) | byte(len - 1)
    } else {
        0
    }
}

/// All bits of the first `n` lanes (none for 0, all for 16; `n <= 16`).
#[inline]
pub fn low_bytes(n: usize) -> u128 {
    debug_assert!(n <= 16);
    // A load from a table: a shift of a `u128` by a variable amount is two shifts and two
    // conditional moves, on the critical path of the loops that call this per element.
    LOW_BYTES[n.min(16)]
}

/// `LOW_BYTES[n]`: all bits of the first `n` lanes.
static LOW_BYTES: [u128; 17] = {
    let mut table = [0; 17];
    let mut n = 1;
    while n <= 16 {
        table[n] = table[n - 1] | 0xff << (8 * (n - 1));
        n += 1;
    }
    table
};

/// The top bits of the first `len` lanes (`len <= 16`).
#[inline]
pub fn used(len: usize) -> u128 {
    TOPS & low_bytes(len)
}

/// Top bit of each lane whose byte (below 0x80) is at least `c`: adding `0x80 - c` sets
/// it, and no lane carries into the next.
#[inline]
pub const fn at_least(x: u128, c: u8) -> u128 {
    x.wrapping_add(LANES * (0x80 - c as u128)) & TOPS
}

/// Top bit of each lane whose byte (below 0x80) is in `lo..=hi`.
#[inline]
pub const fn in_range(x: u128, lo: u8, hi: u8) -> u128 {
    at_least(x, lo) & !at_least(x, hi + 1)
}

/// Top bit of each lane of `x` that equals `byte` (exactly, whatever the other lanes).
#[inline]
pub fn equal_lanes(x: u128, byte: u8) -> u128 {
    let t = x ^ (LANES * u128::from(byte));
    !((t & !TOPS).wrapping_add(!TOPS) | t) & TOPS
}

/// Top bit of each lane holding a UTF-8 continuation byte (`0b10xx_xxxx`).
#[inline]
pub fn continuation_lanes(x: u128) -> u128 {
    x & !(x << 1) & TOPS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_match_bytes() {
        let text = "aé\0xa日a";
        let bytes = text.as_bytes();
        let x = load(bytes);
        let lanes = |bits: u128| -> Vec<usize> {
            (0..16)
                .filter(|i| bits & (0x80u128 << (8 * i)) != 0)
                .collect()
        };
        let want = |f: &dyn Fn(u8) -> bool| -> Vec<usize> {
            (0..bytes.len()).filter(|&i| f(bytes[i])).collect()
        };
        assert_eq!(
            lanes(equal_lanes(x, b'a') & used(bytes.len())),
            want(&|b| b == b'a')
        );
        assert_eq!(
            lanes(equal_lanes(x, 0) & used(bytes.len())),
            want(&|b| b == 0)
        );
        assert_eq!(lanes(continuation_lanes(x)), want(&|b| b & 0xc0 == 0x80));
        for len in 0..=16 {
            let data: Vec<u8> = (0..len as u8).map(|b| b + 1).collect();
            let x = load(&data);
            assert_eq!(x.to_le_bytes()[..len], data[..]);
            assert_eq!(x.checked_shr(8 * len as u32).unwrap_or(0), 0);
            let tops: Vec<usize> = (0..len).collect();
            assert_eq!(lanes(used(len)), tops);
            assert_eq!(used(len) & !TOPS, 0);
            let bytes = low_bytes(len).to_le_bytes();
            assert!(
                bytes[..len].iter().all(|&b| b == 0xff) && bytes[len..].iter().all(|&b| b == 0)
            );
        }
    }
}
