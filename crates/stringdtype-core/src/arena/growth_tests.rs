//! Arenas across their id ranges: small arenas by the million, an arena that outgrows
//! one range after another, and the guarantees of views naming their arena on the way.

use super::registry::span;
use super::*;

fn string(i: usize) -> Vec<u8> {
    format!("string number {i:08} of the arena").into_bytes()
}

fn forged(len: usize, prefix: [u8; 4], chunk: u32, offset: u32) -> View {
    View::long(len, prefix, Location { chunk, offset }).unwrap()
}

/// An arena grown one string at a time until it holds a range of `level`, with the
/// views of its strings.
fn grown_to(level: usize) -> (Arena, Vec<View>) {
    let mut arena = Arena::new();
    let mut views = Vec::new();
    while arena.ranges.current() != Some(level) {
        views.push(arena.store(&string(views.len())).unwrap());
    }
    (arena, views)
}

#[test]
fn the_first_chunk_fits_the_first_string() {
    let mut arena = Arena::new();
    arena.store(&string(0)).unwrap();
    assert_eq!(arena.memory_usage().capacity, FIRST_CHUNK);
    let mut large = Arena::new();
    large.store(&[7; 3000]).unwrap();
    assert_eq!(large.memory_usage().capacity, 4096, "the block, rounded up");
    assert_eq!(large.ranges.current(), Some(0), "one id for one chunk");
}

#[test]
fn a_small_arena_allocates_only_what_it_holds() {
    // Every array's descriptor holds an arena: its size is part of every array's cost.
    assert!(size_of::<Arena>() <= 128, "{}", size_of::<Arena>());
    let mut arena = Arena::new();
    let view = arena.store(&string(0)).unwrap();
    assert_eq!(arena.chunks.capacity(), 1, "a list of one chunk, not four");
    assert!(arena.rare.get().is_none(), "no free lists, outbox or cache");
    // The last block carved goes back to the chunk's tail: still no free list.
    arena.release(view);
    assert!(arena.rare.get().is_none());
    assert_eq!(arena.memory_usage().used, 0);
}

#[test]
fn the_rare_parts_are_made_when_first_needed() {
    let mut arena = Arena::new();
    let first = arena.store(&string(0)).unwrap();
    let second = arena.store(&string(1)).unwrap();
    // A release before the last block carved needs a free list...
    arena.release(first);
    assert!(arena.rare.get().is_some());
    // ...which the next string of the class takes its block from.
    let third = arena.store(&string(2)).unwrap();
    let place = |view: View| {
        let location = view.location().unwrap();
        (arena.own_local(location.chunk), location.offset)
    };
    assert_eq!(place(third), place(first));
    // A read of another arena's view keeps its chunk in the reader's rare parts until
    // the reader settles.
    let mut reader = Arena::new();
    assert_eq!(reader.get(&second).unwrap(), &string(1)[..]);
    assert!(reader.rare.get().is_some());
    reader.settle();
    assert_eq!(arena.get(&second).unwrap(), &string(1)[..]);
    assert_eq!(arena.get(&third).unwrap(), &string(2)[..]);
}

#[test]
fn an_array_built_element_by_element_ends_with_few_chunks() {
    let mut arena = Arena::new();
    let views: Vec<View> = (0..300_000)
        .map(|i| arena.store(&string(i)).unwrap())
        .collect();
    let usage = arena.memory_usage();
    // 64 bytes doubling to 16 MiB (19 chunks), then 16 MiB chunks.
    assert!(usage.chunks <= 20, "{usage:?}");
    assert!(usage.capacity < 2 * usage.used + FIRST_CHUNK, "{usage:?}");
    assert_eq!(arena.ranges.current(), Some(2));
    for (i, view) in views.iter().enumerate().step_by(997) {
        assert_eq!(arena.get(view).unwrap(), &string(i)[..]);
    }
}

#[test]
fn views_of_every_range_are_read_and_released_by_their_arena_only() {
    let (mut arena, views) = grown_to(2);
    let ranges = arena.ranges;
    assert!(ranges.bases.iter().take(3).all(|&base| base != 0));
    // Views of each range: the first string names the range of one id.
    let named = |level: usize| {
        views
            .iter()
            .filter(|view| {
                let chunk = view.location().unwrap().chunk;
                chunk.wrapping_sub(ranges.bases[level]) < span(level)
            })
            .count()
    };
    assert!((0..3).all(|level| named(level) > 0));
    let other = Arena::new();
    for (i, view) in views.iter().enumerate() {
        assert_eq!(arena.get(view).unwrap(), &string(i)[..]);
        assert_eq!(
            other.get(view).unwrap(),
            &string(i)[..],
            "through the registry"
        );
    }
    // Forged views in and between the ranges are ignored (a view of the right class at
    // a live block's start would be a proven release: these start inside blocks, or
    // name no chunk).
    let before = arena.memory_usage();
    let prefix = views[0].prefix();
    for chunk in [
        ranges.bases[0] + 1,
        ranges.bases[1] + span(1),
        ranges.bases[1] + 9,
        ranges.bases[2] + 4000,
        0,
        1,
        2,
    ] {
        arena.release(forged(40, prefix, chunk, 8));
        arena.release(forged(40, prefix, chunk, 0).with_chunk(chunk | 0xf000_0000));
        assert_eq!(arena.memory_usage(), before, "{chunk:#x}");
    }
    // Every real view is released once, whichever range names it.
    let total = before.string_bytes;
    for view in &views {
        arena.release(*view);
        arena.release(*view);
    }
    let stored: usize = views.iter().map(|view| view.len()).sum();
    assert_eq!(stored, total);
    assert_eq!(arena.memory_usage().string_bytes, 0);
}

#[test]
fn views_of_an_earlier_range_name_the_same_chunk_in_an_export() {
    let (arena, views) = grown_to(2);
    let array = crate::arrow::export_array(&views, &arena).unwrap();
    // Every chunk is shared, nothing copied: the chunks' buffers and the sizes only.
    let chunks = arena.share_chunks().len() as i64;
    assert_eq!(array.n_buffers, 2 + chunks + 1);
}

#[test]
fn releases_posted_to_an_earlier_range_reach_the_arena() {
    let (mut owner, views) = grown_to(1);
    let first = views[0];
    assert_eq!(first.location().unwrap().chunk, owner.ranges.bases[0]);
    let mut other = Arena::new();
    other.release(first);
    other.settle();
    let before = owner.memory_usage().string_bytes;
    owner.collect_mail();
    assert_eq!(owner.memory_usage().string_bytes, before - first.len());
}

#[test]
fn a_dead_arenas_ids_name_no_arena_for_a_while() {
    let mut dead = Arena::new();
    let view = dead.store(&string(1)).unwrap();
    drop(dead);
    let reader = Arena::new();
    assert!(reader.get(&view).is_err());
    let mut arenas: Vec<Arena> = (0..1000).map(|_| Arena::new()).collect();
    for arena in &mut arenas {
        arena.store(&string(2)).unwrap();
        assert_ne!(arena.slot(), view.location().unwrap().chunk);
    }
    assert!(reader.get(&view).is_err());
}

#[test]
fn more_arenas_than_the_old_slots_hold_long_strings_at_once() {
    // The old layout had room for 2^20 - 1 such arenas.
    let count = (1 << 20) + 1000;
    let arenas: Vec<(Arena, View)> = (0..count)
        .map(|i| {
            let mut arena = Arena::new();
            let view = arena.store(&string(i)).unwrap();
            (arena, view)
        })
        .collect();
    let reader = Arena::new();
    for (i, (arena, view)) in arenas.iter().enumerate().step_by(4999) {
        assert_eq!(arena.get(view).unwrap(), &string(i)[..]);
        assert_eq!(reader.get(view).unwrap(), &string(i)[..]);
    }
    let mut slots: Vec<u32> = arenas.iter().map(|(arena, _)| arena.slot()).collect();
    slots.sort_unstable();
    slots.dedup();
    assert_eq!(slots.len(), count, "every arena its own id");
}
