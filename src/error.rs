//! One error type for the whole core; each variant maps 1:1 to a `BLOSC2_ERROR_*` code.
//!
//! The codes, their C names and their messages are one table (the `errors!` invocation below):
//! the enum, [`Error::ALL`], [`Error::COUNT`] and the lookups are generated from it.

use std::fmt;

/// Defines [`Error`] from rows `Variant = code, "C name", "message";` (each with its doc).
macro_rules! errors {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal, $cname:literal, $msg:literal;)*) => {
        /// Errors of the core. `code()` gives the negative `BLOSC2_ERROR_*` value c-blosc2 returns.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(i32)]
        pub enum Error {
            $(
                #[doc = concat!("`", $cname, "` (", stringify!($code), "):")]
                $(#[doc = $doc])*
                $variant = $code,
            )*
        }

        impl Error {
            /// Every error, in code order (-1, -2, ...).
            pub const ALL: &'static [Error] = &[$(Error::$variant),*];

            /// The name of the error's `BLOSC2_ERROR_*` enumerator in blosc2.h.
            pub fn c_name(self) -> &'static str {
                match self {
                    $(Error::$variant => $cname,)*
                }
            }

            /// The message c-blosc2's `blosc2_error_string` gives for this error.
            pub fn message(self) -> &'static str {
                match self {
                    $(Error::$variant => $msg,)*
                }
            }
        }
    };
}

errors! {
    /// a failure with no more specific code, where c-blosc2 returns -1 too: e.g. bytes given as a
    /// frame that lack the frame magic, or a chunk that decompresses to a size other than its
    /// header says.
    Failure = -1, "BLOSC2_ERROR_FAILURE", "Generic failure";
    /// bad stream. Kept for the code table; the core does not return it.
    Stream = -2, "BLOSC2_ERROR_STREAM", "Bad stream";
    /// compressed data or a frame is malformed: a length, offset or count read from the input does
    /// not agree with the rest.
    Data = -3, "BLOSC2_ERROR_DATA", "Invalid data";
    /// a size or position does not fit in memory (an in-memory frame grown or read past what
    /// `usize` addresses).
    MemoryAlloc = -4, "BLOSC2_ERROR_MEMORY_ALLOC", "Memory alloc/realloc failure";
    /// the input ends before the data its header announces.
    ReadBuffer = -5, "BLOSC2_ERROR_READ_BUFFER", "Not enough space to read";
    /// the destination buffer is too small for the result.
    WriteBuffer = -6, "BLOSC2_ERROR_WRITE_BUFFER", "Not enough space to write";
    /// the codec is neither built in nor registered.
    CodecSupport = -7, "BLOSC2_ERROR_CODEC_SUPPORT", "Codec not supported";
    /// a codec or codec-registration parameter is out of range.
    CodecParam = -8, "BLOSC2_ERROR_CODEC_PARAM", "Invalid parameter supplied to codec";
    /// a dictionary could not be built, loaded or used.
    CodecDict = -9, "BLOSC2_ERROR_CODEC_DICT", "Codec dictionary error";
    /// the frame's format version is newer than this library reads.
    VersionSupport = -10, "BLOSC2_ERROR_VERSION_SUPPORT", "Version not supported";
    /// a chunk or frame header holds a value no valid header has (version, flags, sizes, block
    /// size).
    InvalidHeader = -11, "BLOSC2_ERROR_INVALID_HEADER", "Invalid value in header";
    /// an argument is out of range: a typesize, level, filter, index, shape or size the operation
    /// cannot take.
    InvalidParam = -12, "BLOSC2_ERROR_INVALID_PARAM", "Invalid parameter supplied to function";
    /// reading a file (or an I/O backend) failed.
    FileRead = -13, "BLOSC2_ERROR_FILE_READ", "File read failure";
    /// writing a file (or an I/O backend) failed.
    FileWrite = -14, "BLOSC2_ERROR_FILE_WRITE", "File write failure";
    /// a file or sparse-frame directory could not be opened.
    FileOpen = -15, "BLOSC2_ERROR_FILE_OPEN", "File open failure";
    /// a named item (metalayer, vlmetalayer, path) does not exist.
    NotFound = -16, "BLOSC2_ERROR_NOT_FOUND", "Not found";
    /// a run-length encoded block stream is malformed.
    RunLength = -17, "BLOSC2_ERROR_RUN_LENGTH", "Bad run length encoding";
    /// a filter failed or is not allowed with these parameters.
    FilterPipeline = -18, "BLOSC2_ERROR_FILTER_PIPELINE", "Filter pipeline error";
    /// kept for the code table; the core does not return it.
    ChunkInsert = -19, "BLOSC2_ERROR_CHUNK_INSERT", "Chunk insert failure";
    /// kept for the code table; the core does not return it.
    ChunkAppend = -20, "BLOSC2_ERROR_CHUNK_APPEND", "Chunk append failure";
    /// kept for the code table; the core does not return it.
    ChunkUpdate = -21, "BLOSC2_ERROR_CHUNK_UPDATE", "Chunk update failure";
    /// kept for the code table; the core does not return it.
    TwoGbLimit = -22, "BLOSC2_ERROR_2GB_LIMIT", "Sizes larger than 2gb not supported";
    /// a super-chunk could not be copied to the requested storage.
    SchunkCopy = -23, "BLOSC2_ERROR_SCHUNK_COPY", "Super-chunk copy failure";
    /// the frame-type byte is neither contiguous nor sparse, or the frame is of the other kind than
    /// the operation (or the storage it was opened from) needs.
    FrameType = -24, "BLOSC2_ERROR_FRAME_TYPE", "Wrong type for frame";
    /// truncating a frame file failed.
    FileTruncate = -25, "BLOSC2_ERROR_FILE_TRUNCATE", "File truncate failure";
    /// a thread pool could not be created or a parallel job could not run.
    ThreadCreate = -26, "BLOSC2_ERROR_THREAD_CREATE", "Thread or thread context creation failure";
    /// the decompression postfilter callback reported failure.
    Postfilter = -27, "BLOSC2_ERROR_POSTFILTER", "Postfilter failure";
    /// special chunks can only fill a super-chunk that holds no data yet, and only with a chunk
    /// size of at least one item.
    FrameSpecial = -28, "BLOSC2_ERROR_FRAME_SPECIAL", "Special frame failure";
    /// special chunks cannot be made with these super-chunk parameters (e.g. a length that is not a
    /// multiple of the chunk size).
    SchunkSpecial = -29, "BLOSC2_ERROR_SCHUNK_SPECIAL", "Special super-chunk failure";
    /// a user I/O backend failed (returned by the C layer).
    PluginIo = -30, "BLOSC2_ERROR_PLUGIN_IO", "IO plugin error";
    /// a file or directory could not be removed.
    FileRemove = -31, "BLOSC2_ERROR_FILE_REMOVE", "Remove file failure";
    /// a required argument is missing (mostly a NULL pointer given to the C layer).
    NullPointer = -32, "BLOSC2_ERROR_NULL_POINTER", "Pointer is null";
    /// an index or axis is outside the array.
    InvalidIndex = -33, "BLOSC2_ERROR_INVALID_INDEX", "Invalid index";
    /// the metalayer an array needs (`b2nd` or `caterva`) is missing.
    MetalayerNotFound = -34, "BLOSC2_ERROR_METALAYER_NOT_FOUND", "Metalayer has not been found";
    /// a buffer exceeds the most a chunk holds (`i32::MAX` minus the header), or a destination
    /// cannot hold even a chunk header.
    MaxBufsizeExceeded = -35, "BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED", "Maximum buffersize exceeded";
    /// a tuner failed (returned by the C layer).
    Tuner = -36, "BLOSC2_ERROR_TUNER", "Tuner failure";
    /// kept for the code table; the core does not return it.
    Lock = -37, "BLOSC2_ERROR_LOCK", "Frame lock failure";
}

/// Result with the crate's error type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// How many error codes there are: they run from -1 to `-COUNT`.
    pub const COUNT: usize = Error::ALL.len();

    /// The `BLOSC2_ERROR_*` value (-1 ..= `-COUNT`).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The error for a `BLOSC2_ERROR_*` value, if it is one.
    pub fn from_code(code: i32) -> Option<Error> {
        let index = usize::try_from(-i64::from(code) - 1).ok()?;
        Error::ALL.get(index).copied()
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
        assert_eq!(Error::COUNT, 37);
        assert_eq!(Error::Failure.code(), -1);
        assert_eq!(Error::InvalidParam.code(), -12);
        assert_eq!(Error::NullPointer.code(), -32);
        assert_eq!(Error::Lock.code(), -37);
        // The table is in code order without gaps, which from_code relies on.
        for (i, e) in Error::ALL.iter().enumerate() {
            assert_eq!(e.code(), -(i as i32) - 1, "{e:?}");
            assert_eq!(Error::from_code(e.code()), Some(*e));
        }
        for c in [0, 1, -38, i32::MIN, i32::MAX] {
            assert_eq!(Error::from_code(c), None);
        }
        assert_eq!(Error::Lock.c_name(), "BLOSC2_ERROR_LOCK");
        assert_eq!(Error::Lock.message(), "Frame lock failure");
        assert_eq!(Error::TwoGbLimit.c_name(), "BLOSC2_ERROR_2GB_LIMIT");
    }
}
