//! Pure-Rust layers of stringdtype, with no Python in sight. Bottom-up (each module
//! uses only those above it in this list):
//!
//! - [`swar`]: byte-parallel arithmetic on the 16 byte lanes of a `u128`;
//! - [`view`]: the 16-byte Arrow string view that is one array element;
//! - [`error`]: the error type of the crate;
//! - [`fork`]: sessions, so that every lock of the crate survives `fork()`;
//! - [`arena`]: the per-array store of long strings' bytes, and the registry of arenas;
//! - [`lock`]: the arena lock;
//! - [`kernels`]: string algorithms over bytes and views;
//! - [`regex`]: Python's `re` run by the `regex-automata` engine where it gives Python's
//!   answers;
//! - [`arrow`]: the Arrow C Data Interface for string arrays.

pub mod arena;
pub mod arrow;
pub mod error;
pub mod fork;
pub mod kernels;
pub mod lock;
pub mod regex;
pub mod swar;
pub mod view;

pub use arena::{Arena, MemoryUsage, Packed};
pub use error::{Error, Result};
pub use lock::{ArenaLock, ReadGuard, WriteGuard};
pub use view::{Location, View, MAX_INLINE_LEN, MAX_STRING_LEN};
