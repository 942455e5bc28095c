//! Pure-Rust layers of stringdtype, with no Python in sight.
//!
//! - [`view`]: the 16-byte Arrow string view that is one array element;
//! - [`arena`]: the per-array store of long strings' bytes;
//! - [`kernels`]: string algorithms over bytes and views;
//! - [`regex`]: Python's `re` run by the `regex` crate's engine where it gives Python's
//!   answers;
//! - [`arrow`]: the Arrow C Data Interface for string arrays;
//! - [`sync`]: the arena lock, and locks that survive `fork()`.

pub mod arena;
pub mod arrow;
pub mod error;
pub mod kernels;
pub mod regex;
pub mod sync;
pub mod view;

pub use arena::{Arena, MemoryUsage, Packed};
pub use error::{Error, Result};
pub use sync::{ArenaLock, ReadGuard, WriteGuard};
pub use view::{Location, View, MAX_INLINE_LEN, MAX_STRING_LEN};
