//! Adopted chunks: bytes of someone else's read in place, never written, let go of (the
//! keeper dropped) with the arena or its last share.

use super::*;

/// Counts how many keepers of adopted bytes were dropped.
struct DropFlag(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// An adopted buffer of three long strings and its keeper's drop count.
fn adopted_arena(data: &'static [u8]) -> (Arena, u32, Arc<std::sync::atomic::AtomicUsize>) {
    let dropped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let keeper: chunk::Keeper = Arc::new(DropFlag(Arc::clone(&dropped)));
    // SAFETY: static bytes live and never change.
    let buf = unsafe { ChunkBuf::adopt(data, keeper) };
    let mut arena = Arena::new();
    let local = arena.adopt(buf, 60).unwrap();
    (arena, local, dropped)
}

#[test]
fn adopted_bytes_are_read_in_place_and_let_go_of_with_the_arena() {
    static DATA: &[u8] = b"xxxxthe first long string,24second long one 19.a third one: 17!!";
    let (mut arena, local, dropped) = adopted_arena(DATA);
    let spans = [(4, 24), (28, 19), (47, 17)];
    let views: Vec<View> = spans
        .iter()
        .map(|&(at, len)| arena.adopted_view(local, at, &DATA[at..at + len]).unwrap())
        .collect();
    for (view, &(at, len)) in views.iter().zip(&spans) {
        let got = arena.get(view).unwrap();
        assert_eq!(got, &DATA[at..at + len]);
        assert_eq!(
            got.as_ptr(),
            DATA[at..].as_ptr(),
            "read in place, not copied"
        );
    }
    let usage = arena.memory_usage();
    assert_eq!(
        (usage.capacity, usage.used, usage.string_bytes),
        (DATA.len(), 60, 60)
    );
    // A view of bytes that are not the chunk's, or of an inline length, is refused.
    assert!(arena.adopted_view(local, 4, &DATA[5..29]).is_none());
    assert!(arena.adopted_view(local, 52, &DATA[52..64]).is_none());
    assert!(arena
        .adopted_view(local, 50, b"not in the chunk at all")
        .is_none());
    // New strings go to chunks of the arena's own; the adopted bytes never change.
    let stored = arena.store(b"a string of the arena's own").unwrap();
    arena.release(views[1]);
    assert_eq!(arena.memory_usage().string_bytes, 60 - 19 + 27);
    assert_eq!(arena.get(&views[0]).unwrap(), &DATA[4..28]);
    assert_eq!(arena.get(&stored).unwrap(), b"a string of the arena's own");
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
    drop(arena);
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}

#[test]
fn adopted_chunks_go_at_once_with_release_all_and_live_on_in_shares() {
    static DATA: &[u8] = b"xxxxthe first long string,24second long one 19.a third one: 17!!";
    let spans = [(4, 24), (28, 19), (47, 17)];
    let (mut arena, local, dropped) = adopted_arena(DATA);
    let views: Vec<View> = spans
        .iter()
        .map(|&(at, len)| arena.adopted_view(local, at, &DATA[at..at + len]).unwrap())
        .collect();
    let share = arena.share_chunks();
    assert!(arena.release_all(views.iter().copied()));
    assert_eq!(arena.memory_usage(), MemoryUsage::default());
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        0,
        "the share holds the chunk"
    );
    drop(share);
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
    drop(arena);
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
}
