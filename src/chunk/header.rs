//! The Blosc chunk header: 16 bytes (c-blosc 1.x) or 32 bytes (extended, c-blosc2).
//! Layout: README_CHUNK_FORMAT.rst in c-blosc2; all integers little endian.

use crate::{Error, Result};

/// Bytes of the c-blosc 1.x header (`BLOSC_MIN_HEADER_LENGTH`).
pub const MIN_HEADER_LENGTH: usize = 16;
/// Bytes of the c-blosc2 extended header (`BLOSC_EXTENDED_HEADER_LENGTH`), which every chunk
/// this crate writes has.
pub const EXTENDED_HEADER_LENGTH: usize = 32;
/// Largest typesize the header's typesize byte holds; a larger one is compressed as bytes
/// (typesize 1).
pub const MAX_TYPESIZE: usize = 255;
/// Slots in the filter pipeline (`BLOSC2_MAX_FILTERS`).
pub const MAX_FILTERS: usize = 6;
/// Most a chunk is larger than its data (`BLOSC2_MAX_OVERHEAD`): a destination of
/// `src.len() + MAX_OVERHEAD` bytes always holds the compressed chunk.
pub const MAX_OVERHEAD: usize = EXTENDED_HEADER_LENGTH;
/// Most data bytes one chunk holds (`BLOSC2_MAX_BUFFERSIZE`): `i32::MAX` minus the overhead.
pub const MAX_BUFFERSIZE: i64 = i32::MAX as i64 - MAX_OVERHEAD as i64;
/// Largest block size a header may declare (`BLOSC2_MAXBLOCKSIZE`), in bytes.
pub const MAXBLOCKSIZE: i32 = 536_866_816;
/// Buffers shorter than this many bytes are stored uncompressed (`BLOSC_MIN_BUFFERSIZE`).
pub const MIN_BUFFERSIZE: i32 = 32;

/// Chunk format version written today.
pub const VERSION_FORMAT: u8 = 6;
/// The version written for regular chunks.
pub const VERSION_FORMAT_STABLE: u8 = 5;
/// The version that introduced variable-length blocks.
pub const VERSION_FORMAT_VL_BLOCKS: u8 = 6;
/// The alpha-series version, whose 6th filter slot was not initialised.
pub const VERSION_FORMAT_ALPHA: u8 = 3;

// Bits of `flags` (byte 2).
/// `flags` bit: byte shuffle was applied (c-blosc 1.x); with [`DOBITSHUFFLE`] also set it marks
/// the extended header instead.
pub const DOSHUFFLE: u8 = 0x1;
/// `flags` bit: the data follows the header uncompressed.
pub const MEMCPYED: u8 = 0x2;
/// `flags` bit: bit shuffle was applied (c-blosc 1.x); see [`DOSHUFFLE`].
pub const DOBITSHUFFLE: u8 = 0x4;
/// `flags` bit: the delta filter was applied (c-blosc 1.x headers).
pub const DODELTA: u8 = 0x8;
/// `flags` bit: each block is one stream, not split into one stream per byte of the typesize.
pub const DONT_SPLIT: u8 = 0x10;

// Bits of `blosc2_flags` (byte 31).
/// `blosc2_flags` bit: the codec used a dictionary stored in the chunk.
pub const USEDICT: u8 = 0x1;
/// `blosc2_flags` bit: the data was written on a big-endian machine (never set by this crate).
pub const BIGENDIAN: u8 = 0x2;
/// `blosc2_flags` bit: a lazy chunk: header and block offsets only, its blocks still in the
/// frame on disk.
pub const LAZY_CHUNK: u8 = 0x8;
/// `blosc2_flags` bit: the blocks hold codec instrumentation records instead of data.
pub const INSTR_CODEC: u8 = 0x80;
// Bits of `blosc2_flags2` (byte 30).
/// `blosc2_flags2` bit: blocks of variable length (see [`super::vlblocks`]); the header's
/// blocksize field then counts blocks.
pub const VL_BLOCKS: u8 = 0x1;

/// Special-value kinds stored in bits 4..6 of `blosc2_flags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// A regular chunk: its blocks hold the data.
    None = 0,
    /// All bytes are zero; the chunk is the header alone.
    Zero = 1,
    /// All items are NaN (typesize 4 or 8); the chunk is the header alone.
    Nan = 2,
    /// Every item equals the one value (`typesize` bytes) that follows the header.
    Value = 3,
    /// The contents are unspecified: decompressing leaves the destination's bytes as they
    /// were, as c-blosc2 does; the chunk is the header alone.
    Uninit = 4,
}

/// Mask of the special kind once `blosc2_flags` is shifted right by 4.
pub const SPECIAL_MASK: u8 = 7;

/// The filter ids the chunk header's flags stand for (defined with the other filter ids).
pub use crate::filters::names::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE, TRUNC_PREC};

/// A parsed chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Chunk format version (byte 0); see [`VERSION_FORMAT`].
    pub version: u8,
    /// Version of the codec's format (byte 1).
    pub versionlz: u8,
    /// Flag bits (byte 2): [`DOSHUFFLE`], [`MEMCPYED`], ..., the codec format in bits 5..7.
    pub flags: u8,
    /// Size in bytes of one item (byte 3).
    pub typesize: u8,
    /// Bytes of data the chunk decompresses to.
    pub nbytes: i32,
    /// Bytes of data per block (the last block may be shorter); for VL-block chunks, the
    /// number of blocks. `parse` caps it at `nbytes`, as c-blosc2 reads it.
    pub blocksize: i32,
    /// Bytes of the whole chunk, header included.
    pub cbytes: i32,
    /// The filter pipeline, applied in slot order when compressing (extended header; a 1.x
    /// header's flag bits are translated into it).
    pub filters: [u8; MAX_FILTERS],
    /// The codec id when the codec-format bits say user codec; the exact codec id in any
    /// extended header.
    pub udcompcode: u8,
    /// The codec's meta byte.
    pub compcode_meta: u8,
    /// One meta byte per filter slot (e.g. the bits kept by [`TRUNC_PREC`]).
    pub filters_meta: [u8; MAX_FILTERS],
    /// Second flags byte (byte 30): [`VL_BLOCKS`].
    pub blosc2_flags2: u8,
    /// c-blosc2 flags byte (byte 31): [`USEDICT`], [`LAZY_CHUNK`], ..., the [`Special`] kind in
    /// bits 4..6.
    pub blosc2_flags: u8,
    /// Whether the 32-byte extended header is present (flags has both shuffle bits set).
    pub extended: bool,
}

fn rd_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl ChunkHeader {
    /// Parses and validates a header the way c-blosc2 3.3.5 does (same error codes).
    /// Inlined: returned through memory, the header is written a byte at a time and read back
    /// 16 bytes at a time, a store-forwarding stall that cost small getitems a third of their
    /// time.
    #[inline(always)]
    pub fn parse(src: &[u8]) -> Result<ChunkHeader> {
        Self::parse_with(src, true)
    }

    /// Parses the first 16 bytes only, as c-blosc2's queries of a buffer whose length they are
    /// not told (`blosc2_cbuffer_sizes`, `blosc1_cbuffer_metainfo`, ...) do: the extended part
    /// is neither read nor checked, even when the flags announce it, so `filters` come from the
    /// flags and the nbytes sign is not checked either.
    pub fn parse_min(src: &[u8]) -> Result<ChunkHeader> {
        Self::parse_with(src.get(..MIN_HEADER_LENGTH).unwrap_or(src), false)
    }

    /// [`ChunkHeader::parse`], reading the extended part (when the flags announce it) only if
    /// `read_extended`.
    #[inline(always)]
    fn parse_with(src: &[u8], read_extended: bool) -> Result<ChunkHeader> {
        if src.len() < MIN_HEADER_LENGTH {
            return Err(Error::ReadBuffer);
        }
        let mut h = ChunkHeader {
            version: src[0],
            versionlz: src[1],
            flags: src[2],
            typesize: src[3],
            nbytes: rd_i32(src, 4),
            blocksize: rd_i32(src, 8),
            cbytes: rd_i32(src, 12),
            filters: [0; MAX_FILTERS],
            udcompcode: 0,
            compcode_meta: 0,
            filters_meta: [0; MAX_FILTERS],
            blosc2_flags2: 0,
            blosc2_flags: 0,
            extended: false,
        };
        // c-blosc2 3.3.5 refuses a later version only for its unknown flags2 bits (below).
        if h.cbytes < MIN_HEADER_LENGTH as i32 {
            return Err(Error::InvalidHeader);
        }
        if h.typesize == 0 {
            return Err(Error::InvalidHeader);
        }
        h.extended = read_extended && h.flags & DOSHUFFLE != 0 && h.flags & DOBITSHUFFLE != 0;
        if h.extended {
            if h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                return Err(Error::InvalidHeader);
            }
            if src.len() < EXTENDED_HEADER_LENGTH {
                return Err(Error::ReadBuffer);
            }
            h.filters.copy_from_slice(&src[16..22]);
            h.udcompcode = src[22];
            h.compcode_meta = src[23];
            h.filters_meta.copy_from_slice(&src[24..30]);
            h.blosc2_flags2 = src[30];
            h.blosc2_flags = src[31];
            // A chunk from a later format that uses flags2 bits this one does not know.
            if h.version > VERSION_FORMAT && h.blosc2_flags2 & !VL_BLOCKS != 0 {
                return Err(Error::VersionSupport);
            }
            if h.version == VERSION_FORMAT_ALPHA {
                h.filters[5] = 0;
                h.filters_meta[5] = 0;
            }
        } else {
            h.filters = filters_from_flags(h.flags);
        }
        let vl = h.is_vl_blocks();
        if read_extended && h.nbytes < 0 {
            return Err(Error::InvalidHeader);
        }
        if vl {
            // In VL-block chunks the blocksize field holds the number of blocks.
            if h.blocksize <= 0 {
                return Err(Error::InvalidHeader);
            }
            // VL blocks are compressed: c-blosc2 refuses the flag on a memcpyed or special
            // chunk.
            if h.flags & MEMCPYED != 0 || h.special_raw() != 0 {
                return Err(Error::InvalidHeader);
            }
        } else {
            if h.blocksize <= 0 || h.blocksize > MAXBLOCKSIZE {
                return Err(Error::InvalidHeader);
            }
            // c-blosc2 3.3.5 reads a blocksize above nbytes as nbytes (one block): memcpyed and
            // special chunks then decode, regular ones fail on their streams.
            if h.nbytes > 0 && h.blocksize > h.nbytes {
                h.blocksize = h.nbytes;
            }
        }
        let special = h.special_raw();
        // c-blosc2 itself writes zero chunks whose nbytes is not a multiple of the typesize (an
        // all-zero buffer compressed whole); NaN and uninitialised ones must be whole items. A
        // repeated value is the bytes after the header (what c-blosc2 repeats, whatever the
        // typesize says): there must be some, and they must tile nbytes.
        if h.extended {
            if special == Special::Value as u8 {
                let value_len = h.cbytes - EXTENDED_HEADER_LENGTH as i32;
                if value_len <= 0 || h.nbytes % value_len != 0 {
                    return Err(Error::InvalidHeader);
                }
            } else if (special == Special::Nan as u8 || special == Special::Uninit as u8)
                && h.nbytes % h.typesize as i32 != 0
            {
                return Err(Error::InvalidHeader);
            }
        }
        Ok(h)
    }

    /// The bytes that items `start..start + nitems` (of the chunk's typesize) occupy in `src`
    /// when it is a plain memcpyed chunk (not special, lazy nor VL-block) whose header passes
    /// every check of [`ChunkHeader::parse`] and the range every check of a getitem; None
    /// otherwise, including for every input the general path refuses (so a caller falling back
    /// to it keeps its results and error codes). A small getitem on such a chunk is this and a
    /// copy.
    #[inline(always)]
    pub fn memcpyed_items(src: &[u8], start: i64, nitems: i64) -> Option<&[u8]> {
        let head = src.get(..MIN_HEADER_LENGTH)?;
        let flags = head[2];
        if flags & MEMCPYED == 0 {
            return None;
        }
        let typesize = head[3] as i64;
        let (nbytes, blocksize, cbytes) = (rd_i32(head, 4), rd_i32(head, 8), rd_i32(head, 12));
        let hl = if flags & DOSHUFFLE != 0 && flags & DOBITSHUFFLE != 0 {
            let ext = src.get(..EXTENDED_HEADER_LENGTH)?;
            let (flags2, blosc2_flags) = (ext[30], ext[31]);
            if (blosc2_flags >> 4) & SPECIAL_MASK != 0
                || blosc2_flags & LAZY_CHUNK != 0
                || flags2 & VL_BLOCKS != 0
                || (head[0] > VERSION_FORMAT && flags2 != 0)
            {
                return None;
            }
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        };
        // cbytes == nbytes + hl with nbytes >= 0 also gives parse's minimum cbytes.
        if typesize == 0
            || nbytes < 0
            || blocksize <= 0
            || blocksize > MAXBLOCKSIZE
            || cbytes as i64 != nbytes as i64 + hl as i64
            || cbytes as usize > src.len()
            || start < 0
            || nitems <= 0
        {
            return None;
        }
        let (from, len) = (start * typesize, nitems * typesize);
        if from + len > nbytes as i64 {
            return None;
        }
        src.get(hl + from as usize..hl + (from + len) as usize)
    }

    /// Header length in bytes (16 or 32).
    pub fn header_len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        }
    }

    /// Raw special-value id (0 when none or not an extended header).
    pub fn special_raw(&self) -> u8 {
        if self.extended {
            (self.blosc2_flags >> 4) & SPECIAL_MASK
        } else {
            0
        }
    }

    /// The special-value kind, if known.
    pub fn special(&self) -> Result<Special> {
        Ok(match self.special_raw() {
            0 => Special::None,
            1 => Special::Zero,
            2 => Special::Nan,
            3 => Special::Value,
            4 => Special::Uninit,
            _ => return Err(Error::Data),
        })
    }

    /// Whether the data is stored uncompressed after the header.
    pub fn memcpyed(&self) -> bool {
        self.flags & MEMCPYED != 0
    }

    /// Whether each block is a single stream (not one stream per byte of the typesize).
    pub fn dont_split(&self) -> bool {
        self.flags & DONT_SPLIT != 0
    }

    /// The codec library's format code (bits 5..7 of `flags`): one of the `*_FORMAT` constants
    /// of [`crate::codecs`].
    pub fn compformat(&self) -> u8 {
        self.flags >> 5
    }

    /// The codec id (built-in, or from the user-codec slot).
    pub fn compcode(&self) -> u8 {
        let f = self.compformat();
        if f == crate::codecs::UDCODEC_FORMAT {
            return self.udcompcode;
        }
        if self.extended {
            // The extended header records the exact codec (e.g. LZ4HC vs LZ4).
            return self.udcompcode;
        }
        match f {
            0 => crate::codecs::BLOSCLZ,
            1 => crate::codecs::LZ4,
            3 => crate::codecs::ZLIB,
            4 => crate::codecs::ZSTD,
            other => other,
        }
    }

    /// Whether the codec used a dictionary stored in the chunk.
    pub fn use_dict(&self) -> bool {
        self.extended && self.blosc2_flags & USEDICT != 0
    }

    /// Whether this is a lazy chunk (header and block offsets only; see [`LAZY_CHUNK`]).
    pub fn is_lazy(&self) -> bool {
        self.extended && self.blosc2_flags & LAZY_CHUNK != 0 && self.special_raw() == 0
    }

    /// Whether the blocks have variable lengths (see [`VL_BLOCKS`]).
    pub fn is_vl_blocks(&self) -> bool {
        self.extended && self.blosc2_flags2 & VL_BLOCKS != 0
    }

    /// Number of blocks and the size of the last one (0 when all blocks are full).
    pub fn nblocks_leftover(&self) -> (usize, usize) {
        if self.is_vl_blocks() {
            return (self.blocksize as usize, 0);
        }
        let nbytes = self.nbytes as usize;
        let bs = self.blocksize as usize;
        let leftover = nbytes % bs;
        (nbytes / bs + usize::from(leftover > 0), leftover)
    }

    /// Writes the header (16 or 32 bytes) into `dst`.
    ///
    /// # Panics
    /// When `dst` is shorter than [`header_len`](Self::header_len).
    pub fn write(&self, dst: &mut [u8]) {
        dst[0] = self.version;
        dst[1] = self.versionlz;
        dst[2] = self.flags;
        dst[3] = self.typesize;
        dst[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        dst[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        dst[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        if self.extended {
            dst[16..22].copy_from_slice(&self.filters);
            dst[22] = self.udcompcode;
            dst[23] = self.compcode_meta;
            dst[24..30].copy_from_slice(&self.filters_meta);
            dst[30] = self.blosc2_flags2;
            dst[31] = self.blosc2_flags;
        }
    }
}

/// The filter pipeline implied by the flags of a 16-byte (c-blosc 1.x) header.
pub fn filters_from_flags(flags: u8) -> [u8; MAX_FILTERS] {
    let mut f = [0u8; MAX_FILTERS];
    if flags & DOSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = SHUFFLE;
    }
    if flags & DOBITSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = BITSHUFFLE;
    }
    if flags & DODELTA != 0 {
        f[MAX_FILTERS - 2] = DELTA;
    }
    f
}

/// The header flag bits implied by a filter pipeline.
pub fn flags_from_filters(filters: &[u8; MAX_FILTERS]) -> u8 {
    let mut flags = 0;
    for &f in filters {
        match f {
            SHUFFLE => flags |= DOSHUFFLE,
            BITSHUFFLE => flags |= DOBITSHUFFLE,
            DELTA => flags |= DODELTA,
            _ => {}
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An extended header of a 4000-byte memcpyed chunk with the given version and flags2.
    fn extended(version: u8, flags2: u8) -> [u8; 32] {
        let h = ChunkHeader {
            version,
            versionlz: 1,
            flags: DOSHUFFLE | DOBITSHUFFLE | MEMCPYED,
            typesize: 4,
            nbytes: 4000,
            blocksize: 4000,
            cbytes: 4032,
            filters: [0; MAX_FILTERS],
            udcompcode: 0,
            compcode_meta: 0,
            filters_meta: [0; MAX_FILTERS],
            blosc2_flags2: flags2,
            blosc2_flags: 0,
            extended: true,
        };
        let mut b = [0u8; 32];
        h.write(&mut b);
        b
    }

    #[test]
    fn later_versions_refused_only_for_unknown_flags2_bits() {
        assert!(ChunkHeader::parse(&extended(VERSION_FORMAT + 1, 0)).is_ok());
        assert!(ChunkHeader::parse(&extended(VERSION_FORMAT, 0x2)).is_ok());
        for version in [VERSION_FORMAT + 1, 255] {
            for flags2 in [0x2, 0x80, 0xfe] {
                let b = extended(version, flags2);
                assert_eq!(ChunkHeader::parse(&b), Err(Error::VersionSupport));
                assert_eq!(ChunkHeader::memcpyed_items(&b, 0, 1), None);
                // The 16-byte queries never see flags2.
                assert_eq!(ChunkHeader::parse_min(&b).unwrap().nbytes, 4000);
            }
        }
        // VL blocks on a memcpyed chunk.
        assert_eq!(
            ChunkHeader::parse(&extended(VERSION_FORMAT, VL_BLOCKS)),
            Err(Error::InvalidHeader)
        );
    }

    #[test]
    fn parse_min_reads_sixteen_bytes() {
        let mut b = extended(VERSION_FORMAT_STABLE, 0);
        b[12..16].copy_from_slice(&16i32.to_le_bytes()); // cbytes 16: too short when extended
        b[4..8].copy_from_slice(&(-1i32).to_le_bytes()); // nbytes -1, checked only when extended
        assert_eq!(ChunkHeader::parse(&b), Err(Error::InvalidHeader));
        let h = ChunkHeader::parse_min(&b[..16]).unwrap();
        assert_eq!((h.nbytes, h.cbytes, h.extended), (-1, 16, false));
        assert_eq!(h.filters, filters_from_flags(b[2]));
        b[3] = 0; // typesize 0 stays an error
        assert_eq!(ChunkHeader::parse_min(&b[..16]), Err(Error::InvalidHeader));
    }

    #[test]
    fn parse_write_round_trip() {
        let h = ChunkHeader {
            version: 5,
            versionlz: 1,
            flags: 0x25,
            typesize: 8,
            nbytes: 100000,
            blocksize: 100000,
            cbytes: 32,
            filters: [0, 0, 0, 0, 0, 1],
            udcompcode: 1,
            compcode_meta: 0,
            filters_meta: [0; 6],
            blosc2_flags2: 0,
            blosc2_flags: 0x10,
            extended: true,
        };
        let mut b = [0u8; 32];
        h.write(&mut b);
        assert_eq!(
            &b[..16],
            &[5, 1, 0x25, 8, 0xa0, 0x86, 1, 0, 0xa0, 0x86, 1, 0, 0x20, 0, 0, 0]
        );
        let p = ChunkHeader::parse(&b).unwrap();
        assert_eq!(p, h);
        assert_eq!(p.special().unwrap(), Special::Zero);
        assert_eq!(p.compcode(), 1);
    }

    #[test]
    fn rejects_bad_headers() {
        assert_eq!(ChunkHeader::parse(&[0u8; 10]), Err(Error::ReadBuffer));
        let mut b = [0u8; 32];
        b[0] = 2;
        b[12] = 8; // cbytes too small
        assert_eq!(ChunkHeader::parse(&b), Err(Error::InvalidHeader));
    }

    /// As c-blosc2 3.3.5 reads them (checked against its blosc2_cbuffer_sizes).
    #[test]
    fn blocksize_above_nbytes_reads_as_nbytes_but_not_above_the_maximum() {
        let mut b = [0u8; 32];
        b[..4].copy_from_slice(&[5, 1, 0x7, 4]); // memcpyed
        b[4..8].copy_from_slice(&9000i32.to_le_bytes());
        b[8..12].copy_from_slice(&9008i32.to_le_bytes());
        b[12..16].copy_from_slice(&9032i32.to_le_bytes());
        assert_eq!(ChunkHeader::parse(&b).unwrap().blocksize, 9000);
        b[8..12].copy_from_slice(&(MAXBLOCKSIZE + 1).to_le_bytes());
        assert_eq!(ChunkHeader::parse(&b), Err(Error::InvalidHeader));
    }
}
