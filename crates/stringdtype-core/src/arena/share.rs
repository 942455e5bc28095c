//! Sharing chunks (with an Arrow consumer): what is shared and pinned, and when the free
//! blocks of a shared chunk may be reused again.

use std::sync::Arc;

use super::{Arena, ChunkBuf, Kind};

/// How [`Arena::share_chunks`] shares one chunk.
pub enum ChunkShare {
    /// The chunk as it is: its first `len` bytes may hold strings and are pinned.
    Shared { chunk: Arc<ChunkBuf>, len: usize },
    /// A chunk with many holes: a consumer copies the strings it needs.
    Copy,
    /// A freed chunk's place: no string lives there.
    Empty,
}

impl ChunkShare {
    /// The chunk and its pinned length, when it is shared as it is.
    pub fn as_shared(&self) -> Option<(&Arc<ChunkBuf>, usize)> {
        match self {
            ChunkShare::Shared { chunk, len } => Some((chunk, *len)),
            _ => None,
        }
    }
}

impl Arena {
    /// Shares the chunks, by local index, for example with an Arrow consumer. A shared
    /// chunk's first `len` bytes hold every string it has now and are never rewritten
    /// while the share lives; a chunk with more than a quarter of holes is not shared
    /// (the consumer copies what it needs), so that repeated exports cannot pin free
    /// space for ever.
    pub fn share_chunks(&self) -> Vec<ChunkShare> {
        let share = |buf: &Arc<ChunkBuf>, len: usize, live: usize| {
            if (len - live.min(len)) * 4 > len {
                ChunkShare::Copy
            } else {
                ChunkShare::Shared {
                    chunk: Arc::clone(buf),
                    len,
                }
            }
        };
        self.chunks
            .iter()
            .map(|chunk| match &chunk.kind {
                Kind::Free => ChunkShare::Empty,
                Kind::Ordinary(blocks) => share(&chunk.buf, blocks.carved(), blocks.live_bytes()),
                Kind::Dedicated { len } => share(&chunk.buf, *len, *len),
                Kind::Packed { fill, live } => share(&chunk.buf, *fill, *live),
            })
            .collect()
    }
}
