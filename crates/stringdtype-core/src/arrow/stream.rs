//! Import of an Arrow C stream (for example a chunked array), one array at a time.

use std::ffi::CStr;

use super::error::ArrowError;
use super::ffi::{ArrowArray, ArrowArrayStream, ArrowSchema};
use super::import::{import_typed, parse_schema, StringType};
use crate::arena::Arena;
use crate::view::View;

/// Reads the arrays of an owned `ArrowArrayStream` of strings into views.
///
/// The stream and its schema are released when the reader is dropped; each array is
/// released as soon as it has been imported.
pub struct ArrowStreamReader {
    stream: ArrowArrayStream,
    _schema: ArrowSchema,
    string_type: StringType,
    elements_read: usize,
}

impl ArrowStreamReader {
    /// Takes ownership of the stream at `ptr` (moving it, as the specification says)
    /// and reads its schema.
    ///
    /// # Safety
    /// As for [`ArrowArrayStream::from_raw`].
    pub unsafe fn from_raw(ptr: *mut ArrowArrayStream) -> Result<ArrowStreamReader, ArrowError> {
        // SAFETY: forwarded from the caller.
        ArrowStreamReader::new(unsafe { ArrowArrayStream::from_raw(ptr) })
    }

    /// Reads the schema of `stream` and checks that it is a string type this module reads.
    pub fn new(mut stream: ArrowArrayStream) -> Result<ArrowStreamReader, ArrowError> {
        if stream.is_released() {
            return Err(ArrowError::Released("stream"));
        }
        let get_schema = stream
            .get_schema
            .ok_or_else(|| ArrowError::Malformed("the stream has no get_schema".into()))?;
        let mut schema = ArrowSchema::empty();
        // SAFETY: the stream is live (checked above) and `schema` is a released struct the
        // callback may fill; on success, we own what it wrote.
        let code = unsafe { get_schema(&mut stream, &mut schema) };
        if code != 0 {
            return Err(stream_error(&mut stream, code));
        }
        let string_type = parse_schema(&schema)?;
        Ok(ArrowStreamReader {
            stream,
            _schema: schema,
            string_type,
            elements_read: 0,
        })
    }

    /// Imports the next array into `arena`, or returns `None` at the end of the stream.
    /// Element indices in errors count from the start of the stream.
    pub fn next_array(
        &mut self,
        arena: &mut Arena,
        allow_na: bool,
    ) -> Result<Option<Vec<View>>, ArrowError> {
        let get_next = self
            .stream
            .get_next
            .ok_or_else(|| ArrowError::Malformed("the stream has no get_next".into()))?;
        let mut array = ArrowArray::empty();
        // SAFETY: the stream is live for the reader's life (checked in `new`), and `array`
        // is a released struct the callback may fill; on success, we own what it wrote.
        let code = unsafe { get_next(&mut self.stream, &mut array) };
        if code != 0 {
            return Err(stream_error(&mut self.stream, code));
        }
        if array.is_released() {
            return Ok(None);
        }
        let base = self.elements_read;
        let views = import_typed(self.string_type, array, arena, allow_na)
            .map_err(|error| error.offset_index(base))?;
        self.elements_read += views.len();
        Ok(Some(views))
    }

    /// Imports every remaining array and concatenates them. On error, the strings already
    /// stored are released from the arena again.
    pub fn read_all(mut self, arena: &mut Arena, allow_na: bool) -> Result<Vec<View>, ArrowError> {
        let mut all = Vec::new();
        loop {
            match self.next_array(arena, allow_na) {
                Ok(Some(views)) => all.extend_from_slice(&views),
                Ok(None) => return Ok(all),
                Err(error) => {
                    for view in all {
                        arena.release(view);
                    }
                    return Err(error);
                }
            }
        }
    }
}

/// The error of a failed stream callback, with the stream's message when it has one.
fn stream_error(stream: &mut ArrowArrayStream, code: i32) -> ArrowError {
    let message = match stream.get_last_error {
        // SAFETY: the stream is live; the callback returns null or a NUL-terminated string
        // that stays valid until the next call on the stream, and we copy it at once.
        Some(get_last_error) => unsafe {
            let ptr = get_last_error(stream);
            (!ptr.is_null()).then(|| CStr::from_ptr(ptr).to_string_lossy().into_owned())
        },
        None => None,
    };
    ArrowError::Stream {
        code,
        message: message.unwrap_or_else(|| "no message".to_string()),
    }
}
