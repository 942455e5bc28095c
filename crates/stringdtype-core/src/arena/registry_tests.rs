//! The registry's id ranges: their layout, what they resolve, quarantine and mail.

use super::*;

fn chunk(len: usize) -> Arc<ChunkBuf> {
    Arc::new(ChunkBuf::new(len).unwrap())
}

fn ranges_of(level: usize, base: u32) -> Ranges {
    let mut ranges = Ranges::default();
    ranges.bases[level] = base;
    ranges
}

#[test]
fn ranges_are_aligned_to_their_size_and_never_in_page_zero() {
    for level in 0..LEVELS {
        let base = claim(level, std::iter::empty()).unwrap();
        assert!(base >= 1 << PAGE_BITS, "page 0 is nobody's: {base:#x}");
        assert_eq!(base % span(level), 0, "level {level}: {base:#x}");
        let ranges = ranges_of(level, base);
        assert_eq!(ranges.local_of(base), Some(0));
        assert_eq!(
            ranges.local_of(base | (span(level) - 1)),
            Some(span(level) - 1)
        );
        assert_eq!(ranges.local_of(base + span(level)), None);
        assert_eq!(ranges.local_of(base.wrapping_sub(1)), None);
        release(&ranges);
    }
}

#[test]
fn levels_hold_enough_chunks() {
    assert_eq!(level_for(1, 64), Some(0));
    assert_eq!(level_for(2, 192), Some(1));
    assert_eq!(level_for(16, 4 << 20), Some(2), "a large arena");
    assert_eq!(level_for(16, LARGE_ARENA - 1), Some(1));
    assert_eq!(level_for(1, LARGE_ARENA), Some(2));
    assert_eq!(level_for(17, 17 * 64), Some(2));
    assert_eq!(level_for(MAX_LOCAL_CHUNKS, 0), Some(LEVELS - 1));
    assert_eq!(level_for(MAX_LOCAL_CHUNKS + 1, 0), None);
}

#[test]
fn an_arena_with_several_ranges_maps_each_to_its_locals() {
    let mut ranges = Ranges::default();
    for level in 0..3 {
        ranges.bases[level] = claim(level, std::iter::empty()).unwrap();
    }
    assert_eq!(ranges.current(), Some(2));
    assert_eq!(ranges.local_of(ranges.bases[0]), Some(0));
    assert_eq!(ranges.local_of(ranges.bases[1] + 5), Some(5));
    assert_eq!(ranges.local_of(ranges.bases[2] + 4000), Some(4000));
    assert_eq!(
        ranges.local_of(3),
        None,
        "hand-made chunk numbers are nobody's"
    );
    release(&ranges);
}

#[test]
fn ranges_resolve_their_live_chunks_only() {
    let (first, second) = (chunk(64), chunk(128));
    let base = claim(
        1,
        [&first, &Arc::new(ChunkBuf::empty()), &second].into_iter(),
    )
    .unwrap();
    let found = resolve(base).expect("published");
    assert!(Arc::ptr_eq(&found, &first));
    assert!(resolve(base + 1).is_none(), "an empty place");
    assert!(Arc::ptr_eq(&resolve(base + 2).unwrap(), &second));
    assert!(resolve(base + 3).is_none());
    for hand_made in [0, 1, 2, 4095, u32::MAX] {
        assert!(resolve(hand_made).is_none(), "{hand_made}");
    }
    let ranges = ranges_of(1, base);
    withdraw(&ranges, 2);
    assert!(resolve(base + 2).is_none());
    publish(base, 2, &second).unwrap();
    assert!(resolve(base + 2).is_some());
    release(&ranges);
    assert!(resolve(base).is_none());
    assert!(resolve(base + 2).is_none());
}

#[test]
fn a_released_range_is_reused_only_after_the_quarantine() {
    // Ranges of the largest size: no other test takes them, so the order is this one's.
    let level = LEVELS - 1;
    let wait = quarantine(level);
    let first = claim(level, std::iter::empty()).unwrap();
    release(&ranges_of(level, first));
    let mut seen = Vec::new();
    for _ in 0..wait {
        let base = claim(level, std::iter::empty()).unwrap();
        assert_ne!(base, first, "reused while quarantined");
        seen.push(base);
    }
    for &base in &seen {
        release(&ranges_of(level, base));
    }
    let mut reused = false;
    for _ in 0..4 * wait {
        let base = claim(level, std::iter::empty()).unwrap();
        release(&ranges_of(level, base));
        if base == first {
            reused = true;
            break;
        }
    }
    assert!(reused, "a freed range is reused after the quarantine");
}

#[test]
fn releases_are_posted_to_the_owner_of_any_of_its_ranges() {
    let small = claim(0, std::iter::empty()).unwrap();
    let large = claim(1, std::iter::empty()).unwrap();
    let mut ranges = Ranges::default();
    ranges.bases[0] = small;
    ranges.bases[1] = large;
    let at = |chunk| crate::view::Location { chunk, offset: 16 };
    let old = View::long(20, *b"abcd", at(small)).unwrap();
    let new = View::long(20, *b"abcd", at(large + 3)).unwrap();
    let nobodys = View::long(20, *b"abcd", at(5)).unwrap();
    let before = posts();
    let mut outbox = vec![old, nobodys, View::NA, new];
    forward(&mut outbox);
    assert!(outbox.is_empty());
    assert!(posts() > before);
    let mut mail = take_mail(&ranges);
    mail.sort_by_key(|view| view.location().unwrap().chunk);
    let mut want = vec![old, new];
    want.sort_by_key(|view| view.location().unwrap().chunk);
    assert_eq!(mail, want);
    assert_eq!(take_mail(&ranges), vec![]);
    release(&ranges);
    // Mail for a range given back is dropped.
    let mut outbox = vec![old];
    forward(&mut outbox);
    assert_eq!(take_mail(&ranges), vec![]);
}
