//! `store_with` and `store_mapped` against `store`: the same views (inline ones bit for
//! bit), the same errors before anything is written, in an arena and in a part.

use super::super::{Arena, DEDICATED_THRESHOLD, PART_SPAN};
use crate::error::Error;
use crate::view::{View, MAX_STRING_LEN};

fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| seed.wrapping_add(i as u8)).collect()
}

/// `data` upper-cased by flipping bit 5 of every byte: a map that touches each byte.
fn flip(src: &[u8], dst: &mut [u8]) {
    for (to, &from) in dst.iter_mut().zip(src) {
        *to = from ^ 0x20;
    }
}

#[test]
fn store_with_stores_what_fill_writes_as_store_would() {
    let (mut with, mut plain) = (Arena::new(), Arena::new());
    for n in [
        0,
        1,
        11,
        12,
        13,
        16,
        100,
        5000,
        70_000,
        2 * DEDICATED_THRESHOLD,
    ] {
        let data = bytes(n, n as u8);
        let view = with
            .store_with(n, |dst| dst.copy_from_slice(&data))
            .unwrap();
        let want = plain.store(&data).unwrap();
        assert_eq!(with.get(&view).unwrap(), &data[..], "{n} bytes");
        assert_eq!(
            (view.len(), view.is_inline()),
            (want.len(), want.is_inline())
        );
        if n <= 12 {
            // Inline views are the same 16 bytes, whichever way they were made.
            assert_eq!(view.as_u128(), want.as_u128(), "{n} bytes");
        } else {
            assert_eq!(view.prefix(), want.prefix());
            let (at, want_at) = (view.location().unwrap(), want.location().unwrap());
            assert_eq!(at.offset, want_at.offset, "the same block as store's");
        }
    }
    assert_eq!(with.memory_usage(), plain.memory_usage());
}

#[test]
fn store_with_gives_fill_exactly_len_bytes() {
    let mut arena = Arena::new();
    for n in [0, 12, 13, 40] {
        let mut seen = None;
        arena
            .store_with(n, |dst| {
                seen = Some(dst.len());
                dst.fill(b'q');
            })
            .unwrap();
        assert_eq!(seen, Some(n));
    }
}

#[test]
fn store_with_fails_as_store_does_before_filling() {
    let mut arena = Arena::new();
    for len in [MAX_STRING_LEN + 1, usize::MAX] {
        let got = arena.store_with(len, |_| panic!("fill runs after the checks"));
        assert_eq!(got.err(), Some(Error::StringTooLong(len)));
    }
    assert_eq!(arena.memory_usage(), Arena::new().memory_usage());

    // A part out of chunk ids (a span of one): `ArenaFull`, as `store` says.
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(1, 1).unwrap();
    let part = &mut parts[0];
    let full = loop {
        match part.arena().store_with(4000, |dst| dst.fill(b'z')) {
            Ok(_) => continue,
            Err(err) => break err,
        }
    };
    assert!(part.is_exhausted());
    assert!(matches!(full, Error::ArenaFull(_)));
    assert!(matches!(
        part.arena().store(&bytes(4000, 2)),
        Err(Error::ArenaFull(_))
    ));
    let refused = part
        .arena()
        .store_with(4000, |_| panic!("fill runs after the checks"));
    assert!(matches!(refused, Err(Error::ArenaFull(_))));
}

#[test]
fn store_mapped_maps_inline_and_long_strings() {
    let mut arena = Arena::new();
    for n in [0, 5, 12, 13, 64, 1000] {
        let data = bytes(n, b'a');
        let view = arena.store_mapped(&data, flip).unwrap();
        let want: Vec<u8> = data.iter().map(|b| b ^ 0x20).collect();
        assert_eq!(arena.get(&view).unwrap(), &want[..], "{n} bytes");
        if n <= 12 {
            assert_eq!(view.as_u128(), View::try_inline(&want).unwrap().as_u128());
        }
    }
}

#[test]
fn store_mapped_reads_a_stale_views_bytes_before_writing_over_them() {
    let mut arena = Arena::new();
    let data = bytes(40, b'A');
    let stale = arena.store(&data).unwrap();
    // Released as the last block carved, its bytes go back to the current chunk's tail,
    // where the next block of its size is carved.
    arena.release(stale);
    let other = Arena::new();
    let src = other.get(&stale).unwrap();
    let view = arena.store_mapped(src, flip).unwrap();
    assert_eq!(
        view.location(),
        stale.location(),
        "the block the stale view named"
    );
    let want: Vec<u8> = data.iter().map(|b| b ^ 0x20).collect();
    assert_eq!(arena.get(&view).unwrap(), &want[..]);
}

#[test]
fn parts_store_with_as_the_owner_would() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(2, PART_SPAN).unwrap();
    let mut views = Vec::new();
    for (k, part) in parts.iter_mut().enumerate() {
        for n in [3, 12, 13, 200, 70_000] {
            let data = bytes(n, k as u8);
            let view = part.arena().store_mapped(&data, flip).unwrap();
            views.push((view, data.iter().map(|b| b ^ 0x20).collect::<Vec<u8>>()));
        }
    }
    owner.absorb_parts(parts, 2);
    for (view, want) in &views {
        assert_eq!(owner.get(view).unwrap(), &want[..]);
    }
}
