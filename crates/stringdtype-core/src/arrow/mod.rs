//! The Arrow C Data Interface: string-view arrays out of and into views and an arena.
//!
//! - [`export_array`] / [`export_views`] and [`export_schema`]: elements as an Arrow
//!   `string_view` array whose data buffers are the arena's chunks, shared, not copied;
//! - [`import_array`] / [`import_array_into`]: Arrow `string`, `large_string`,
//!   `string_view` and dictionaries of them, stored into an arena;
//! - [`ArrowStreamReader`]: the arrays of a C stream (a chunked array), one at a time;
//! - [`SharedArray`]: one exported array handed to any number of consumers.
//!
//! The `#[repr(C)]` structs live in [`ffi`]; a glue layer wraps them in PyCapsules.
//! Arrow buffers are native-endian and views little-endian, so this module assumes a
//! little-endian target, as NumPy's and Arrow's wheels do in practice.

mod adopt;
mod buffers;
mod element;
mod error;
mod export;
pub mod ffi;
mod import;
mod import_views;
mod kept;
mod parts;
mod shared;
mod stream;
mod strings;
mod validate;

pub use error::ArrowError;
pub use export::{export_array, export_schema, export_views};
pub use ffi::{ArrowArray, ArrowArrayStream, ArrowSchema};
pub use import::{check_schema, import_array, import_array_into};
pub use kept::{kept_waiting, release_kept};
pub use parts::{set_part_runner, Runner, Split};
pub use shared::SharedArray;
pub use stream::ArrowStreamReader;
pub use validate::{is_utf8, set_buffer_validator, utf8_pieces, Validator, SPLIT_FROM};

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_malformed;
