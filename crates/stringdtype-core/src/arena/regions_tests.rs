//! Regions: packed chunks filled by writers on threads of their own while the arena is
//! only read, counted when finished, let go of when dropped.

use super::*;

#[test]
fn regions_filled_on_threads_count_once_finished() {
    let mut arena = Arena::new();
    let before = arena.store(b"a string stored before the regions").unwrap();
    let parts: Vec<Vec<Vec<u8>>> = (0..4)
        .map(|k| {
            (0..50)
                .map(|i| format!("part {k}, string {i:04}, long").into_bytes())
                .collect()
        })
        .collect();
    let sizes: Vec<usize> = parts.iter().map(|p| p.iter().map(Vec::len).sum()).collect();
    let tokens: Vec<RegionToken> = sizes
        .iter()
        .map(|&n| arena.new_region(n).unwrap())
        .collect();
    let used = arena.memory_usage().used;
    let (views, tokens): (Vec<Vec<View>>, Vec<RegionToken>) = std::thread::scope(|scope| {
        let arena = &arena;
        let handles: Vec<_> = (tokens.into_iter().zip(&parts))
            .map(|(token, strings)| {
                scope.spawn(move || {
                    let mut writer = token.writer(arena);
                    // Reads of the arena go on beside the writers.
                    assert_eq!(writer.arena().get(&before).unwrap().len(), 34);
                    let views = strings.iter().map(|s| writer.store(s).unwrap()).collect();
                    (views, writer.done())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).unzip()
    });
    // Nothing counts until the regions are finished.
    assert_eq!(arena.memory_usage().used, used);
    tokens.into_iter().for_each(|t| arena.finish_region(t));
    let usage = arena.memory_usage();
    assert_eq!(usage.used, used + sizes.iter().sum::<usize>());
    assert_eq!(usage.chunks, 5);
    for (views, strings) in views.iter().zip(&parts) {
        for (view, string) in views.iter().zip(strings) {
            assert_eq!(arena.get(view).unwrap(), &string[..]);
        }
    }
    // Finished regions' strings are released as a packed chunk's are.
    let string_bytes = usage.string_bytes;
    arena.release(views[2][7]);
    assert_eq!(
        arena.memory_usage().string_bytes,
        string_bytes - parts[2][7].len()
    );
}

#[test]
fn a_region_takes_what_it_was_made_for_and_no_more() {
    let mut arena = Arena::new();
    let token = arena.new_region(30).unwrap();
    let mut writer = token.writer(&arena);
    let first = writer.store(b"fifteen bytes!!").unwrap();
    // Inline strings take no room.
    assert_eq!(
        writer.store(b"short").unwrap().inline_bytes(),
        Some(&b"short"[..])
    );
    let error = writer.store(b"sixteen bytes!!!").unwrap_err();
    assert!(
        error.to_string().contains("more bytes than the region"),
        "{error}"
    );
    let second = writer.store(b"fifteen more!!!").unwrap();
    let token = writer.done();
    arena.finish_region(token);
    assert_eq!(arena.get(&first).unwrap(), b"fifteen bytes!!");
    assert_eq!(arena.get(&second).unwrap(), b"fifteen more!!!");
    assert_eq!(arena.memory_usage().used, 30);
}

#[test]
fn a_dropped_region_leaves_the_arena_as_before() {
    let mut arena = Arena::new();
    let kept = arena.store(b"a string that stays where it is").unwrap();
    let before = arena.memory_usage();
    let token = arena.new_region(1000).unwrap();
    let mut writer = token.writer(&arena);
    writer.store(b"a string of a failed import").unwrap();
    let token = writer.done();
    arena.drop_region(token);
    let after = arena.memory_usage();
    assert_eq!(
        (after.capacity, after.used, after.string_bytes, after.chunks),
        (
            before.capacity,
            before.used,
            before.string_bytes,
            before.chunks
        )
    );
    assert_eq!(
        arena.get(&kept).unwrap(),
        b"a string that stays where it is"
    );
}

#[test]
fn regions_are_one_byte_to_one_chunk() {
    let mut arena = Arena::new();
    assert!(arena.new_region(0).is_err());
    assert!(arena.new_region(MAX_CHUNK + 1).is_err());
    assert!(arena.new_region(MAX_CHUNK).is_ok());
}
