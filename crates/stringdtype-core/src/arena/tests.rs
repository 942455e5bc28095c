//! The arena's behaviour: storing, reading, releasing (proven or ignored), sharing,
//! packed imports and allocation failures.

use super::*;

/// The local chunk index of a long view of `arena`, by any of its id ranges.
fn local_in(arena: &Arena, view: &View) -> Option<u32> {
    arena.own_local(view.location()?.chunk)
}

fn long(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| seed.wrapping_add(i as u8)).collect()
}

/// A view of `len` bytes starting with `prefix` at `chunk`/`offset`, as raw bytes
/// could make it.
fn forged(len: usize, prefix: [u8; 4], chunk: u32, offset: u32) -> View {
    View::long(len, prefix, Location { chunk, offset }).unwrap()
}

#[test]
fn store_and_get_round_trip() {
    let mut arena = Arena::new();
    let mut views = Vec::new();
    for n in [0, 1, 12, 13, 100, 5000, 70_000, 2 * DEDICATED_THRESHOLD] {
        let data = long(n, n as u8);
        views.push((arena.store(&data).unwrap(), data));
    }
    for (view, data) in &views {
        assert_eq!(arena.get(view).unwrap(), &data[..]);
    }
    assert_eq!(arena.get(&View::NA).unwrap(), b"");
}

#[test]
fn inline_strings_allocate_nothing() {
    let mut arena = Arena::new();
    arena.store(b"twelve bytes").unwrap();
    assert_eq!(arena.memory_usage().capacity, 0);
    assert_eq!(arena.slot(), 0);
}

#[test]
fn overwriting_keeps_memory_bounded() {
    let mut arena = Arena::new();
    let data = long(100, 7);
    let mut view = arena.store(&data).unwrap();
    for _ in 0..1_000_000 {
        let new = arena.store(&data).unwrap();
        arena.release(view);
        view = new;
    }
    let usage = arena.memory_usage();
    assert!(usage.capacity <= MIN_CHUNK, "{usage:?}");
    assert_eq!(usage.string_bytes, 100);
    assert_eq!(arena.get(&view).unwrap(), &data[..]);
}

#[test]
fn released_blocks_are_reused_by_their_class() {
    let mut arena = Arena::new();
    let a = arena.store(&long(40, 1)).unwrap();
    arena.release(a);
    let b = arena.store(&long(47, 2)).unwrap();
    assert_eq!(a.location(), b.location());
    assert_eq!(arena.get(&b).unwrap(), &long(47, 2)[..]);
}

#[test]
fn chunks_grow_and_never_move() {
    let mut arena = Arena::new();
    let first = arena.store(&long(200, 3)).unwrap();
    let ptr = arena.get(&first).unwrap().as_ptr();
    let views: Vec<View> = (0..20_000)
        .map(|i| arena.store(&long(100, i as u8)).unwrap())
        .collect();
    assert_eq!(arena.get(&first).unwrap().as_ptr(), ptr);
    assert_eq!(arena.get(&first).unwrap(), &long(200, 3)[..]);
    for (i, v) in views.iter().enumerate() {
        assert_eq!(arena.get(v).unwrap(), &long(100, i as u8)[..]);
    }
    let usage = arena.memory_usage();
    // Exponential growth: few chunks for ~2 MB of strings.
    // (Doubling from the first string's block, 256 bytes, up to 4 MiB.)
    assert!(usage.chunks <= 14, "{usage:?}");
    assert!(usage.capacity < 2 * usage.used + MIN_CHUNK, "{usage:?}");
}

#[test]
fn dedicated_chunks_are_freed_on_release() {
    let mut arena = Arena::new();
    let big = arena.store(&long(DEDICATED_THRESHOLD + 1, 9)).unwrap();
    assert!(arena.memory_usage().capacity > DEDICATED_THRESHOLD);
    arena.release(big);
    assert_eq!(arena.memory_usage().capacity, 0);
    assert!(arena.get(&big).is_err(), "its chunk is gone");
    let again = arena.store(&long(DEDICATED_THRESHOLD + 5, 1)).unwrap();
    assert_eq!(
        again.location().unwrap().chunk,
        big.location().unwrap().chunk
    );
}

#[test]
fn views_name_their_arena() {
    let mut a = Arena::new();
    let mut b = Arena::new();
    let va = a.store(&long(30, 1)).unwrap();
    let vb = b.store(&long(30, 2)).unwrap();
    assert_ne!(a.slot(), b.slot());
    assert_eq!(local_in(&a, &va), Some(0));
    assert_eq!(local_in(&b, &va), None);
    // Each reads the other's views through the registry.
    assert_eq!(a.get(&vb).unwrap(), &long(30, 2)[..]);
    assert_eq!(b.get(&va).unwrap(), &long(30, 1)[..]);
    // Neither releases the other's.
    let before = a.memory_usage();
    a.release(vb);
    assert_eq!(a.memory_usage(), before);
    assert_eq!(b.get(&vb).unwrap(), &long(30, 2)[..]);
    // A dead arena's views are errors, not reads of freed memory.
    let dead = {
        let mut c = Arena::new();
        c.store(&long(30, 3)).unwrap()
    };
    a.forget_foreign();
    assert_eq!(a.get(&dead), Err(Error::CorruptView(dead)));
}

#[test]
fn releases_of_another_arenas_views_reach_it() {
    let mut owner = Arena::new();
    let mut other = Arena::new();
    let view = owner.store(&long(30, 1)).unwrap();
    let keep = owner.store(&long(30, 2)).unwrap();
    other.release(view);
    assert_eq!(
        owner.memory_usage().string_bytes,
        60,
        "applied only when collected"
    );
    other.settle();
    owner.collect_mail();
    assert_eq!(owner.memory_usage().string_bytes, 30);
    // Applied like any release: once, and only for live strings.
    other.release(view);
    other.release(forged(30, *b"xxxx", view.location().unwrap().chunk, 8));
    other.settle();
    owner.collect_mail();
    assert_eq!(owner.memory_usage().string_bytes, 30);
    assert_eq!(owner.get(&keep).unwrap(), &long(30, 2)[..]);
}

#[test]
fn duplicate_copies_from_any_arena() {
    let mut a = Arena::new();
    let mut b = Arena::new();
    let vb = b.store(&long(300, 4)).unwrap();
    let copy = a.duplicate(vb).unwrap();
    assert!(local_in(&a, &copy).is_some());
    drop(b);
    a.forget_foreign();
    assert_eq!(a.get(&copy).unwrap(), &long(300, 4)[..]);
}

#[test]
fn forged_views_are_never_released() {
    let mut arena = Arena::new();
    let live: Vec<View> = (0..50)
        .map(|i| arena.store(&long(40 + i, i as u8)).unwrap())
        .collect();
    let big = arena.store(&long(2 * DEDICATED_THRESHOLD, 5)).unwrap();
    let before = arena.memory_usage();
    let slot = arena.slot();
    let chunk = live[0].location().unwrap().chunk;
    let big_chunk = big.location().unwrap().chunk;
    let prefix = live[3].prefix();
    let forgeries = [
        forged(40, prefix, chunk, 8),        // inside a block
        forged(40, prefix, chunk, 16),       // not a block start
        forged(200, prefix, chunk, 0),       // wrong class: spans blocks
        forged(13, prefix, chunk, 0),        // wrong class: too small
        forged(40, prefix, chunk, 1 << 20),  // past the carved bytes
        forged(1_100_000, prefix, chunk, 0), // dedicated size, ordinary chunk
        forged(2 * DEDICATED_THRESHOLD - 1, prefix, big_chunk, 0),
        forged(100, prefix, big_chunk, 16),
        forged(40, prefix, slot + 77, 0),        // no such chunk
        forged(40, prefix, 3, 0),                // hand-made: nobody's
        forged(40, prefix, 1 << 20, 0),          // another arena's range
        forged(40, prefix, slot + (1 << 12), 0), // past the arena's range
    ];
    for view in forgeries {
        arena.release(view);
        assert_eq!(arena.memory_usage(), before, "{view:?}");
    }
    // A real string released twice is released once.
    arena.release(live[7]);
    let after = arena.memory_usage();
    arena.release(live[7]);
    assert_eq!(arena.memory_usage(), after);
    // Nothing was corrupted: new strings never overlap live ones.
    let fresh: Vec<View> = (0..200)
        .map(|i| {
            arena
                .store(&long(40 + i % 60, (i as u8).wrapping_add(100)))
                .unwrap()
        })
        .collect();
    for (i, v) in live.iter().enumerate().filter(|&(i, _)| i != 7) {
        assert_eq!(arena.get(v).unwrap(), &long(40 + i, i as u8)[..]);
    }
    for (i, v) in fresh.iter().enumerate() {
        assert_eq!(
            arena.get(v).unwrap(),
            &long(40 + i % 60, (i as u8).wrapping_add(100))[..]
        );
    }
    assert_eq!(arena.get(&big).unwrap().len(), 2 * DEDICATED_THRESHOLD);
}

#[test]
fn shared_chunks_are_never_rewritten() {
    let mut arena = Arena::new();
    let keep = arena.store(&long(50, 9)).unwrap();
    let a = arena.store(&long(50, 1)).unwrap();
    let shared = arena.share_chunks();
    let ChunkShare::Shared { chunk, len } = &shared[0] else {
        panic!("a chunk without holes is shared");
    };
    let before = chunk.slice(0, *len).unwrap().to_vec();
    arena.release(a);
    let b = arena.store(&long(50, 2)).unwrap();
    assert_ne!(a.location(), b.location());
    // Later strings (the fast path, with the hole parked) never take it either.
    for i in 0..100 {
        let later = arena.store(&long(50 + i % 14, i as u8)).unwrap();
        assert_ne!(a.location(), later.location());
    }
    assert_eq!(chunk.slice(0, *len).unwrap(), &before[..]);
    drop(shared);
    note_unshared();
    // Once the share is gone, the parked hole is reused again.
    let c = arena.store(&long(50, 3)).unwrap();
    assert_eq!(a.location(), c.location());
    assert_eq!(arena.get(&keep).unwrap(), &long(50, 9)[..]);
}

#[test]
fn the_shared_length_of_the_current_chunk_is_what_was_carved() {
    let mut arena = Arena::new();
    let small = arena.store(&long(40, 1)).unwrap();
    let _big = arena.store(&long(2 * DEDICATED_THRESHOLD, 2)).unwrap();
    let shared = arena.share_chunks();
    let local = local_in(&arena, &small).unwrap() as usize;
    let ChunkShare::Shared { chunk, len } = &shared[local] else {
        panic!("shared");
    };
    assert_eq!(*len, 48);
    let before = chunk.slice(0, chunk.len()).unwrap()[..*len].to_vec();
    for i in 0..100 {
        arena.store(&long(20, i)).unwrap();
    }
    assert_eq!(chunk.slice(0, *len).unwrap(), &before[..]);
}

#[test]
fn chunks_with_many_holes_are_copied_not_pinned() {
    let mut arena = Arena::new();
    let views: Vec<View> = (0..100)
        .map(|i| arena.store(&long(40, i)).unwrap())
        .collect();
    for v in &views[..60] {
        arena.release(*v);
    }
    let shared = arena.share_chunks();
    assert!(matches!(shared[0], ChunkShare::Copy));
    // Nothing is pinned: the holes are reused at once.
    let again = arena.store(&long(40, 7)).unwrap();
    assert_eq!(again.location(), views[59].location());
}

#[test]
fn packed_strings_sit_end_to_end() {
    let mut arena = Arena::new();
    let ordinary = arena.store(&long(40, 9)).unwrap();
    let strings: Vec<Vec<u8>> = (0..20).map(|i| long(13 + i, i as u8)).collect();
    let total = strings.iter().map(Vec::len).sum();
    let mut packed = arena.packed(total);
    let mut views: Vec<View> = strings.iter().map(|s| packed.store(s).unwrap()).collect();
    views.push(packed.store(b"inline").unwrap());
    assert!(views[20].is_inline());
    let chunk = views[0].location().unwrap().chunk;
    let mut offset = 0;
    for (view, string) in views.iter().zip(&strings) {
        assert_eq!(view.location(), Some(Location { chunk, offset }));
        assert_eq!(arena.get(view).unwrap(), &string[..]);
        offset += string.len() as u32;
    }
    let usage = arena.memory_usage();
    assert_eq!(usage.string_bytes, total + 40);
    assert_eq!(usage.capacity, FIRST_CHUNK + total);
    // Releases count, and leave the bytes of the others alone; a forged release
    // inside the chunk changes nothing.
    arena.release(forged(20, *b"zzzz", chunk, 3));
    assert_eq!(arena.memory_usage().string_bytes, total + 40);
    arena.release(views[3]);
    assert_eq!(arena.memory_usage().string_bytes, total + 40 - 16);
    for (view, string) in views.iter().zip(&strings) {
        assert_eq!(arena.get(view).unwrap(), &string[..]);
    }
    assert_eq!(arena.get(&ordinary).unwrap(), &long(40, 9)[..]);
}

#[test]
fn packed_chunks_split_and_grow_past_the_hint() {
    let mut arena = Arena::new();
    let big = vec![1u8; MAX_CHUNK / 2 + 1];
    let mut packed = arena.packed(3 * big.len());
    let views: Vec<View> = (0..4).map(|_| packed.store(&big).unwrap()).collect();
    let chunks: Vec<u32> = views.iter().map(|v| local_in(&arena, v).unwrap()).collect();
    assert_eq!(
        chunks,
        [0, 1, 2, 3],
        "each chunk holds one: two would pass MAX_CHUNK"
    );
    for view in &views {
        assert_eq!(arena.get(view).unwrap(), &big[..]);
    }
}

#[test]
fn store_parts_concatenates() {
    let mut arena = Arena::new();
    let v = arena.store_parts(&[b"ab", b"", b"cdefghijklmnop"]).unwrap();
    assert_eq!(arena.get(&v).unwrap(), b"abcdefghijklmnop");
    assert_eq!(v.prefix(), *b"abcd");
    let v = arena.store_parts(&[b"a", b"b"]).unwrap();
    assert_eq!(arena.get(&v).unwrap(), b"ab");
}

#[test]
fn duplicate_owns_its_block() {
    let mut arena = Arena::new();
    let a = arena.store(&long(30, 4)).unwrap();
    let b = arena.duplicate(a).unwrap();
    assert_ne!(a.location(), b.location());
    arena.release(a);
    let c = arena.store(&long(30, 9)).unwrap();
    assert_eq!(arena.get(&b).unwrap(), &long(30, 4)[..]);
    assert_eq!(arena.get(&c).unwrap(), &long(30, 9)[..]);
    let inline = arena.store(b"short").unwrap();
    assert_eq!(arena.duplicate(inline).unwrap(), inline);
}

#[test]
fn running_out_of_memory_is_an_error() {
    // Chunks are allocated fallibly: a size no allocator can give is an error.
    assert_eq!(
        ChunkBuf::new(isize::MAX as usize).err(),
        Some(Error::OutOfMemory(isize::MAX as usize))
    );
}

#[test]
fn store_repeat_matches_repeated_bytes() {
    let mut arena = Arena::new();
    let strings = [
        &b""[..],
        b"a",
        b"abc",
        b"abcdefghijklm",
        b"0123456789abcdef",
        b"0123456789abcdefg",
        "é😀".as_bytes(),
    ];
    for s in strings {
        for count in [0, 1, 2, 3, 4, 5, 7, 13, 21, 64, 65, 100] {
            let v = arena.store_repeat(s, count).unwrap();
            let want = s.repeat(count);
            assert_eq!(arena.get(&v).unwrap(), &want[..], "{s:?} * {count}");
            assert_eq!(v.len(), want.len());
            if want.len() > 12 {
                assert_eq!(v.prefix(), want[..4]);
            }
        }
    }
    assert_eq!(
        arena.store_repeat(b"ab", usize::MAX).err(),
        Some(Error::StringTooLong(usize::MAX))
    );
    assert!(matches!(
        arena.store_repeat(b"ab", crate::view::MAX_STRING_LEN),
        Err(Error::StringTooLong(_))
    ));
}

/// An arena with long strings of every kind of chunk (blocks, a packed import, one of a
/// chunk of its own) and an inline one; their views and bytes.
fn arena_to_copy() -> (Arena, Vec<(View, Vec<u8>)>) {
    let mut arena = Arena::new();
    let mut strings: Vec<Vec<u8>> = (0..300).map(|i| long(13 + i % 90, i as u8)).collect();
    strings.push(long(5, 1));
    strings.push(long(2 * DEDICATED_THRESHOLD, 3));
    let mut views: Vec<View> = strings.iter().map(|s| arena.store(s).unwrap()).collect();
    let imported: Vec<Vec<u8>> = (0..50).map(|i| long(20 + i, 100 + i as u8)).collect();
    let mut packed = arena.packed(imported.iter().map(Vec::len).sum());
    views.extend(imported.iter().map(|s| packed.store(s).unwrap()));
    strings.extend(imported);
    (arena, views.into_iter().zip(strings).collect())
}

/// The copy of `views` that `target` makes by sharing `source`'s chunks, as a cast
/// loop makes it: claimed when it can be, else stored.
fn copy_shared(source: &Arena, target: &mut Arena, views: &[View]) -> Vec<View> {
    assert!(target.share_from(source, views.iter().copied()).unwrap());
    let copies = views
        .iter()
        .map(|&view| match target.claim_shared(view, source.slot()) {
            Some(copy) => copy,
            None => target.store(source.get(&view).unwrap()).unwrap(),
        })
        .collect();
    target.finish_shared();
    copies
}

#[test]
fn a_copy_shares_the_chunks_and_writes_never_cross() {
    let (mut source, strings) = arena_to_copy();
    let views: Vec<View> = strings.iter().map(|(view, _)| *view).collect();
    let mut copy = Arena::new();
    let copies = copy_shared(&source, &mut copy, &views);
    let mut shared = 0;
    for ((view, data), copied) in strings.iter().zip(&copies) {
        assert_eq!(copy.get(copied).unwrap(), &data[..]);
        if let Some(location) = copied.location() {
            // (In a range of the copy's: it may have taken a larger one since.)
            let local = local_in(&copy, copied).expect("the copy's own");
            let chunk = &source.chunks[local_in(&source, view).unwrap() as usize];
            // Single-string chunks are copied, whatever they hold.
            let dedicated = matches!(chunk.kind, Kind::Dedicated { .. });
            let full = !dedicated && chunk.live_bytes() * 4 >= chunk.buf.len() * 3;
            let at = view.location().unwrap();
            let in_place = at.offset == location.offset && local_in(&source, view) == Some(local);
            assert_eq!(in_place, full, "shared in place when the chunk is full");
            shared += usize::from(in_place);
        }
    }
    assert!(shared >= 100, "{shared}");
    let (a, b) = (source.memory_usage(), copy.memory_usage());
    assert_eq!(a.string_bytes, b.string_bytes);
    // Overwrite every string of the source: the copy keeps its strings.
    for view in &views {
        source.release(*view);
    }
    let news: Vec<(View, Vec<u8>)> = (0..400)
        .map(|i| long(13 + i % 90, 7))
        .map(|data| (source.store(&data).unwrap(), data))
        .collect();
    for (copied, (_, data)) in copies.iter().zip(&strings) {
        assert_eq!(copy.get(copied).unwrap(), &data[..]);
    }
    // And the other way round.
    for copied in &copies {
        copy.release(*copied);
    }
    for i in 0..400 {
        copy.store(&long(13 + i % 90, 9)).unwrap();
    }
    for (view, data) in &news {
        assert_eq!(source.get(view).unwrap(), &data[..]);
    }
    drop(source);
    // With the source gone, the copy reuses its freed blocks again.
    // (The copy may have taken a larger id range since: compare local chunks.)
    let again = copy.store(&long(20, 5)).unwrap();
    let block = |v: &View| (local_in(&copy, v), v.location().map(|at| at.offset));
    assert!(copies.iter().any(|c| block(c) == block(&again)));
}

#[test]
fn a_shared_copy_claims_each_block_once() {
    let (source, strings) = arena_to_copy();
    let mut views: Vec<View> = strings.iter().map(|(view, _)| *view).collect();
    // The same block twice (in place of a longer string, so that the bytes add up).
    views[11] = views[10];
    let mut copy = Arena::new();
    let copies = copy_shared(&source, &mut copy, &views);
    assert_ne!(copies[10].location(), copies[11].location());
    assert_eq!(copy.get(&copies[11]).unwrap(), &strings[10].1[..]);
    copy.release(copies[10]);
    assert_eq!(copy.get(&copies[11]).unwrap(), &strings[10].1[..]);
}

#[test]
fn a_shared_copy_needs_most_of_the_strings_and_an_empty_arena() {
    let (source, strings) = arena_to_copy();
    let views: Vec<View> = strings.iter().map(|(view, _)| *view).collect();
    let half = &views[..views.len() / 2];
    let mut copy = Arena::new();
    assert!(!copy.share_from(&source, half.iter().copied()).unwrap());
    let twice = views
        .iter()
        .chain(&views)
        .copied()
        .collect::<Vec<_>>()
        .into_iter();
    assert!(!copy.share_from(&source, twice).unwrap(), "more than all");
    // Mostly inline strings: copying the few bytes is cheaper than sharing.
    let inline = std::iter::repeat_n(View::EMPTY, source.memory_usage().string_bytes);
    let mostly_inline: Vec<View> = views.iter().copied().chain(inline).collect();
    assert!(!copy.share_from(&source, mostly_inline.into_iter()).unwrap());
    assert_eq!(copy.slot(), 0, "nothing changed");
    copy.store(&long(40, 1)).unwrap();
    assert!(!copy.share_from(&source, views.iter().copied()).unwrap());
    assert!(!Arena::new()
        .share_from(&Arena::new(), [].into_iter())
        .unwrap());
    // No chunk full enough to share (a tenth of the first one).
    let mut sparse = Arena::new();
    sparse.reserve(MIN_CHUNK);
    let few: Vec<View> = (0..20)
        .map(|i| sparse.store(&long(30, i)).unwrap())
        .collect();
    let mut copy = Arena::new();
    assert!(!copy.share_from(&sparse, few.iter().copied()).unwrap());
    assert_eq!(copy.slot(), 0, "nothing changed");
    assert!(Arena::new()
        .share_from(&source, views.iter().copied())
        .unwrap());
}

#[test]
fn a_shared_copy_lets_go_of_chunks_it_does_not_use() {
    let mut source = Arena::new();
    // Blocks of 32 bytes fill the first chunks (FIRST_CHUNK up to MIN_CHUNK) exactly.
    let small: Vec<View> = (0..(MIN_CHUNK - FIRST_CHUNK) / 32)
        .map(|i| source.store(&long(20, i as u8)).unwrap())
        .collect();
    let big: Vec<View> = (0..2000)
        .map(|i| source.store(&long(100, i as u8)).unwrap())
        .collect();
    let mut copy = Arena::new();
    copy_shared(&source, &mut copy, &big);
    let (a, b) = (source.memory_usage(), copy.memory_usage());
    let first = (MIN_CHUNK / FIRST_CHUNK).trailing_zeros() as usize;
    assert_eq!(
        b.chunks,
        a.chunks - first,
        "the first chunks hold only the small strings"
    );
    assert_eq!(b.capacity, a.capacity - (MIN_CHUNK - FIRST_CHUNK));
    assert_eq!(b.string_bytes, 200_000);
    assert_eq!(source.get(&small[0]).unwrap(), &long(20, 0)[..]);
}

#[test]
fn prefetch_takes_any_view() {
    let mut arena = Arena::new();
    let own = arena.store(&long(40, 1)).unwrap();
    let other = Arena::new().store(&long(40, 2)).unwrap();
    let location = own.location().unwrap();
    let past_the_end = forged(40, [0; 4], location.chunk, u32::MAX - 8);
    let no_chunk = forged(40, [0; 4], location.chunk + 1000, 0);
    let bits = View::from_bytes([0xff; 16]);
    for view in [
        own,
        other,
        past_the_end,
        no_chunk,
        bits,
        View::NA,
        View::EMPTY,
    ] {
        arena.prefetch(&view);
    }
    assert_eq!(arena.get(&own).unwrap(), &long(40, 1)[..]);
}
