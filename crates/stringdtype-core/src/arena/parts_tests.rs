//! Parts of an arena: reserved spans of ids, stores on other threads, absorption (the
//! views parts wrote become the owner's, readable, releasable and published), parts
//! dropped unabsorbed, and a part that runs out of ids.

use super::*;
use crate::arena::registry::span;
use crate::arena::{DEDICATED_THRESHOLD, MIN_CHUNK};
use crate::view::View;

fn string(part: usize, i: usize) -> Vec<u8> {
    let len = 13 + (i * 7 + part) % 90;
    (0..len)
        .map(|j| b'a' + ((i + j + part) % 26) as u8)
        .collect()
}

/// Stores `count` strings of part `k` (some inline) and returns them with their views.
fn fill(arena: &mut Arena, k: usize, count: usize) -> Vec<(View, Vec<u8>)> {
    (0..count)
        .map(|i| {
            let data = if i % 5 == 0 {
                b"short".to_vec()
            } else {
                string(k, i)
            };
            (arena.store(&data).unwrap(), data)
        })
        .collect()
}

fn local_of(arena: &Arena, view: &View) -> Option<u32> {
    arena.own_local(view.location()?.chunk)
}

#[test]
fn views_written_by_parts_on_threads_are_the_owners_after_absorbing() {
    let mut owner = Arena::new();
    let before = owner.store(&string(99, 1)).unwrap();
    let mut parts = owner.reserve_parts(4, PART_SPAN).unwrap();
    let written: Vec<Vec<(View, Vec<u8>)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = parts
            .iter_mut()
            .enumerate()
            .map(|(k, part)| scope.spawn(move || fill(part.arena(), k, 20_000)))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let bytes: usize = written
        .iter()
        .flatten()
        .map(|(v, d)| d.len() * (!v.is_inline()) as usize)
        .sum();
    owner.absorb_parts(parts, 4);
    assert_eq!(owner.get(&before).unwrap(), &string(99, 1)[..]);
    let mut spans = Vec::new();
    for (k, views) in written.iter().enumerate() {
        for (view, data) in views {
            assert_eq!(owner.get(view).unwrap(), &data[..]);
            if let Some(local) = local_of(&owner, view) {
                spans.push((local / PART_SPAN, k));
            }
        }
    }
    // Each part's chunks lie in a span of its own, in order, after the owner's.
    spans.sort_unstable();
    spans.dedup();
    let parts_of_span: Vec<usize> = spans.iter().map(|&(_, k)| k).collect();
    assert_eq!(parts_of_span, vec![0, 1, 2, 3], "{spans:?}");
    assert!(
        spans[0].0 >= 1,
        "the owner's own chunk keeps its local index"
    );
    assert_eq!(
        owner.memory_usage().string_bytes,
        bytes + string(99, 1).len()
    );
}

#[test]
fn absorbed_chunks_are_published_for_other_arenas() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(2, PART_SPAN).unwrap();
    let views = fill(parts[1].arena(), 1, 1000);
    owner.absorb_parts(parts, 2);
    let reader = Arena::new();
    for (view, data) in &views {
        assert_eq!(
            reader.get(view).unwrap(),
            &data[..],
            "read through the registry"
        );
    }
}

#[test]
fn the_owner_releases_and_reuses_what_parts_stored() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(3, PART_SPAN).unwrap();
    let views: Vec<_> = parts
        .iter_mut()
        .enumerate()
        .flat_map(|(k, part)| fill(part.arena(), k, 3000))
        .collect();
    owner.absorb_parts(parts, 3);
    let capacity = owner.memory_usage().capacity;
    for (view, _) in &views {
        owner.release(*view);
    }
    assert_eq!(
        owner.memory_usage().string_bytes,
        0,
        "every release was proven"
    );
    // The freed blocks are reused: storing the same again takes no more memory.
    let again = fill(&mut owner, 0, 3000);
    assert_eq!(owner.memory_usage().capacity, capacity);
    for (view, data) in &again {
        assert_eq!(owner.get(view).unwrap(), &data[..]);
    }
}

#[test]
fn parts_not_kept_free_their_chunks_and_name_nothing() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(3, PART_SPAN).unwrap();
    let kept = fill(parts[0].arena(), 0, 2000);
    let dropped = fill(parts[2].arena(), 2, 2000);
    let kept_capacity = parts[0].arena().memory_usage().capacity;
    owner.absorb_parts(parts, 1);
    assert_eq!(owner.memory_usage().capacity, kept_capacity);
    for (view, data) in &kept {
        assert_eq!(owner.get(view).unwrap(), &data[..]);
    }
    for (view, _) in dropped.iter().filter(|(v, _)| !v.is_inline()) {
        assert!(
            owner.get(view).is_err(),
            "a dropped part's view names no chunk"
        );
    }
    // The owner goes on past the parts' spans.
    let after = fill(&mut owner, 5, 5000);
    for (view, data) in &after {
        assert_eq!(owner.get(view).unwrap(), &data[..]);
    }
}

#[test]
fn an_owner_with_strings_in_small_ranges_keeps_reading_them() {
    let mut owner = Arena::new();
    let early = fill(&mut owner, 7, 200);
    let mut parts = owner.reserve_parts(2, PART_SPAN).unwrap();
    let late = fill(parts[0].arena(), 0, 200);
    owner.absorb_parts(parts, 2);
    for (view, data) in early.iter().chain(&late) {
        assert_eq!(owner.get(view).unwrap(), &data[..]);
    }
}

#[test]
fn a_part_out_of_ids_says_so() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(1, PART_SPAN).unwrap();
    let big = vec![b'x'; DEDICATED_THRESHOLD + 1];
    let part = &mut parts[0];
    let mut views = Vec::new();
    for _ in 0..PART_SPAN {
        views.push(part.arena().store(&big).unwrap());
    }
    assert!(part.is_exhausted());
    assert!(matches!(part.arena().store(&big), Err(Error::ArenaFull(_))));
    // Released, a dedicated chunk's id is the part's again.
    part.arena().release(views.pop().unwrap());
    assert!(!part.is_exhausted());
    views.push(part.arena().store(&big).unwrap());
    owner.absorb_parts(parts, 1);
    assert_eq!(owner.get(&views[63]).unwrap().len(), big.len());
}

#[test]
#[should_panic(expected = "in order")]
fn absorbing_after_the_owner_wrote_a_chunk_panics() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(1, PART_SPAN).unwrap();
    fill(parts[0].arena(), 0, 10);
    // A chunk too large for the owner's current one: it takes the part's local index.
    owner.store(&vec![b'y'; MIN_CHUNK]).unwrap();
    owner.absorb_parts(parts, 1);
}

#[test]
fn a_part_of_one_id_is_exhausted_by_its_second_chunk() {
    let mut owner = Arena::new();
    let mut parts = owner.reserve_parts(2, 1).unwrap();
    let mut views = Vec::new();
    let mut k = 0;
    while !parts[1].is_exhausted() {
        views.push(parts[1].arena().store(&string(1, k)).unwrap());
        k += 1;
    }
    let full = loop {
        match parts[1].arena().store(&string(1, k)) {
            Ok(view) => views.push(view),
            Err(err) => break err,
        }
        k += 1;
    };
    assert!(matches!(full, Error::ArenaFull(_)));
    owner.absorb_parts(parts, 2);
    for (i, view) in views.iter().enumerate() {
        assert_eq!(owner.get(view).unwrap(), &string(1, i)[..]);
    }
}

#[test]
fn too_many_parts_are_refused() {
    let mut owner = Arena::new();
    let n = span(registry::LEVELS - 1) as usize / PART_SPAN as usize + 1;
    assert!(owner.reserve_parts(n, PART_SPAN).is_err());
    assert!(owner.reserve_parts(8, PART_SPAN).is_ok());
}
