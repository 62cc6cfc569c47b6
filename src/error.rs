//! One error type for the whole core; each variant maps 1:1 to a `BLOSC2_ERROR_*` code.

use std::fmt;

/// Errors of the core. `code()` gives the negative `BLOSC2_ERROR_*` value c-blosc2 returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// `BLOSC2_ERROR_FAILURE` (-1): a failure with no more specific code, where c-blosc2 returns
    /// -1 too: e.g. bytes given as a frame that lack the frame magic, or a chunk that
    /// decompresses to a size other than its header says.
    Failure,
    /// `BLOSC2_ERROR_STREAM` (-2): bad stream. Kept for the code table; the core does not return it.
    Stream,
    /// `BLOSC2_ERROR_DATA` (-3): compressed data or a frame is malformed: a length, offset or
    /// count read from the input does not agree with the rest.
    Data,
    /// `BLOSC2_ERROR_MEMORY_ALLOC` (-4): a size or position does not fit in memory (an in-memory
    /// frame grown or read past what `usize` addresses).
    MemoryAlloc,
    /// `BLOSC2_ERROR_READ_BUFFER` (-5): the input ends before the data its header announces.
    ReadBuffer,
    /// `BLOSC2_ERROR_WRITE_BUFFER` (-6): the destination buffer is too small for the result.
    WriteBuffer,
    /// `BLOSC2_ERROR_CODEC_SUPPORT` (-7): the codec is neither built in nor registered.
    CodecSupport,
    /// `BLOSC2_ERROR_CODEC_PARAM` (-8): a codec or codec-registration parameter is out of range.
    CodecParam,
    /// `BLOSC2_ERROR_CODEC_DICT` (-9): a dictionary could not be built, loaded or used.
    CodecDict,
    /// `BLOSC2_ERROR_VERSION_SUPPORT` (-10): the frame's format version is newer than this
    /// library reads.
    VersionSupport,
    /// `BLOSC2_ERROR_INVALID_HEADER` (-11): a chunk or frame header holds a value no valid
    /// header has (version, flags, sizes, block size).
    InvalidHeader,
    /// `BLOSC2_ERROR_INVALID_PARAM` (-12): an argument is out of range: a typesize, level, filter,
    /// index, shape or size the operation cannot take.
    InvalidParam,
    /// `BLOSC2_ERROR_FILE_READ` (-13): reading a file (or an I/O backend) failed.
    FileRead,
    /// `BLOSC2_ERROR_FILE_WRITE` (-14): writing a file (or an I/O backend) failed.
    FileWrite,
    /// `BLOSC2_ERROR_FILE_OPEN` (-15): a file or sparse-frame directory could not be opened.
    FileOpen,
    /// `BLOSC2_ERROR_NOT_FOUND` (-16): a named item (metalayer, vlmetalayer, path) does not exist.
    NotFound,
    /// `BLOSC2_ERROR_RUN_LENGTH` (-17): a run-length encoded block stream is malformed.
    RunLength,
    /// `BLOSC2_ERROR_FILTER_PIPELINE` (-18): a filter failed or is not allowed with these
    /// parameters.
    FilterPipeline,
    /// `BLOSC2_ERROR_CHUNK_INSERT` (-19): kept for the code table; the core does not return it.
    ChunkInsert,
    /// `BLOSC2_ERROR_CHUNK_APPEND` (-20): kept for the code table; the core does not return it.
    ChunkAppend,
    /// `BLOSC2_ERROR_CHUNK_UPDATE` (-21): kept for the code table; the core does not return it.
    ChunkUpdate,
    /// `BLOSC2_ERROR_2GB_LIMIT` (-22): kept for the code table; the core does not return it.
    TwoGbLimit,
    /// `BLOSC2_ERROR_SCHUNK_COPY` (-23): a super-chunk could not be copied to the requested
    /// storage.
    SchunkCopy,
    /// `BLOSC2_ERROR_FRAME_TYPE` (-24): the frame-type byte is neither contiguous nor sparse, or the
    /// frame is of the other kind than the operation (or the storage it was opened from) needs.
    FrameType,
    /// `BLOSC2_ERROR_FILE_TRUNCATE` (-25): truncating a frame file failed.
    FileTruncate,
    /// `BLOSC2_ERROR_THREAD_CREATE` (-26): a thread pool could not be created or a parallel job
    /// could not run.
    ThreadCreate,
    /// `BLOSC2_ERROR_POSTFILTER` (-27): the decompression postfilter callback reported failure.
    Postfilter,
    /// `BLOSC2_ERROR_FRAME_SPECIAL` (-28): special chunks can only fill a super-chunk that holds no data
    /// yet, and only with a chunk size of at least one item.
    FrameSpecial,
    /// `BLOSC2_ERROR_SCHUNK_SPECIAL` (-29): special chunks cannot be made with these
    /// super-chunk parameters (e.g. a length that is not a multiple of the chunk size).
    SchunkSpecial,
    /// `BLOSC2_ERROR_PLUGIN_IO` (-30): a user I/O backend failed (returned by the C layer).
    PluginIo,
    /// `BLOSC2_ERROR_FILE_REMOVE` (-31): a file or directory could not be removed.
    FileRemove,
    /// `BLOSC2_ERROR_NULL_POINTER` (-32): a required argument is missing (mostly a NULL pointer
    /// given to the C layer).
    NullPointer,
    /// `BLOSC2_ERROR_INVALID_INDEX` (-33): an index or axis is outside the array.
    InvalidIndex,
    /// `BLOSC2_ERROR_METALAYER_NOT_FOUND` (-34): the metalayer an array needs (`b2nd` or
    /// `caterva`) is missing.
    MetalayerNotFound,
    /// `BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED` (-35): a buffer exceeds the most a chunk holds
    /// (`i32::MAX` minus the header), or a destination cannot hold even a chunk header.
    MaxBufsizeExceeded,
    /// `BLOSC2_ERROR_TUNER` (-36): a tuner failed (returned by the C layer).
    Tuner,
    /// `BLOSC2_ERROR_LOCK` (-37): kept for the code table; the core does not return it.
    Lock,
}

/// Result with the crate's error type.
pub type Result<T> = std::result::Result<T, Error>;

const ALL: [Error; 37] = [
    Error::Failure,
    Error::Stream,
    Error::Data,
    Error::MemoryAlloc,
    Error::ReadBuffer,
    Error::WriteBuffer,
    Error::CodecSupport,
    Error::CodecParam,
    Error::CodecDict,
    Error::VersionSupport,
    Error::InvalidHeader,
    Error::InvalidParam,
    Error::FileRead,
    Error::FileWrite,
    Error::FileOpen,
    Error::NotFound,
    Error::RunLength,
    Error::FilterPipeline,
    Error::ChunkInsert,
    Error::ChunkAppend,
    Error::ChunkUpdate,
    Error::TwoGbLimit,
    Error::SchunkCopy,
    Error::FrameType,
    Error::FileTruncate,
    Error::ThreadCreate,
    Error::Postfilter,
    Error::FrameSpecial,
    Error::SchunkSpecial,
    Error::PluginIo,
    Error::FileRemove,
    Error::NullPointer,
    Error::InvalidIndex,
    Error::MetalayerNotFound,
    Error::MaxBufsizeExceeded,
    Error::Tuner,
    Error::Lock,
];

impl Error {
    /// The `BLOSC2_ERROR_*` value (-1 ..= -37).
    pub fn code(self) -> i32 {
        -(ALL.iter().position(|e| *e == self).unwrap_or(0) as i32 + 1)
    }

    /// The error for a `BLOSC2_ERROR_*` value, if it is one.
    pub fn from_code(code: i32) -> Option<Error> {
        if (-37..=-1).contains(&code) {
            Some(ALL[(-code - 1) as usize])
        } else {
            None
        }
    }

    /// The message c-blosc2's `blosc2_error_string` gives for this error.
    pub fn message(self) -> &'static str {
        match self {
            Error::Failure => "Generic failure",
            Error::Stream => "Bad stream",
            Error::Data => "Invalid data",
            Error::MemoryAlloc => "Memory alloc/realloc failure",
            Error::ReadBuffer => "Not enough space to read",
            Error::WriteBuffer => "Not enough space to write",
            Error::CodecSupport => "Codec not supported",
            Error::CodecParam => "Invalid parameter supplied to codec",
            Error::CodecDict => "Codec dictionary error",
            Error::VersionSupport => "Version not supported",
            Error::InvalidHeader => "Invalid value in header",
            Error::InvalidParam => "Invalid parameter supplied to function",
            Error::FileRead => "File read failure",
            Error::FileWrite => "File write failure",
            Error::FileOpen => "File open failure",
            Error::NotFound => "Not found",
            Error::RunLength => "Bad run length encoding",
            Error::FilterPipeline => "Filter pipeline error",
            Error::ChunkInsert => "Chunk insert failure",
            Error::ChunkAppend => "Chunk append failure",
            Error::ChunkUpdate => "Chunk update failure",
            Error::TwoGbLimit => "Sizes larger than 2gb not supported",
            Error::SchunkCopy => "Super-chunk copy failure",
            Error::FrameType => "Wrong type for frame",
            Error::FileTruncate => "File truncate failure",
            Error::ThreadCreate => "Thread or thread context creation failure",
            Error::Postfilter => "Postfilter failure",
            Error::FrameSpecial => "Special frame failure",
            Error::SchunkSpecial => "Special super-chunk failure",
            Error::PluginIo => "IO plugin error",
            Error::FileRemove => "Remove file failure",
            Error::NullPointer => "Pointer is null",
            Error::InvalidIndex => "Invalid index",
            Error::MetalayerNotFound => "Metalayer has not been found",
            Error::MaxBufsizeExceeded => "Maximum buffersize exceeded",
            Error::Tuner => "Tuner failure",
            Error::Lock => "Frame lock failure",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        assert_eq!(Error::Failure.code(), -1);
        assert_eq!(Error::InvalidParam.code(), -12);
        assert_eq!(Error::NullPointer.code(), -32);
        assert_eq!(Error::Lock.code(), -37);
        for c in -37..=-1 {
            assert_eq!(Error::from_code(c).unwrap().code(), c);
        }
        assert_eq!(Error::from_code(0), None);
        assert_eq!(Error::from_code(-38), None);
    }
}
