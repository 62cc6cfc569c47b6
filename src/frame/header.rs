//! The msgpack header of a frame: fixed fields at fixed positions, then the metalayers.

use crate::{Error, Result};

/// Frame type (low nibble of the frame-type byte): a contiguous frame, one buffer or file.
pub const CONTIGUOUS_TYPE: u8 = 0;
/// Frame type: a sparse frame, a directory of chunk files plus an index frame.
pub const DIRECTORY_TYPE: u8 = 1;

/// Frame format version (low nibble of the general flags) written for frames whose chunks
/// all have one size and fixed-length blocks.
pub const VERSION_RC1: u8 = 2;
/// Frame format version written once chunks differ in size or have variable-length blocks.
pub const VERSION_VL_BLOCKS: u8 = 3;
/// Newest frame format version this crate reads; newer ones fail with
/// [`Error::VersionSupport`].
pub const VERSION_CURRENT: u8 = VERSION_VL_BLOCKS;

/// General-flags bit: chunk offsets are 64-bit (always set in frames c-blosc2 writes).
pub const OFFSETS_64BIT: u8 = 0x10;
/// General-flags bit: chunks do not all have the same size.
pub const VARIABLE_CHUNKS: u8 = 0x40;
/// General-flags bit: some chunks have variable-length blocks.
pub const VL_BLOCKS: u8 = 0x80;

/// Bit 0 of the second "other flags" byte: chunks were compressed with a dictionary.
pub const USE_DICT: u8 = 0x1;

/// Codec-flag value saying "the codec id is in the user-defined codec byte"; first codec id that
/// is not a built-in one.
pub use crate::codecs::{LAST_CODEC, UDCODEC_FORMAT};

// Positions of the fixed fields (each just after its msgpack marker).
pub(crate) const POS_HEADER_LEN: usize = 11;
pub(crate) const POS_FRAME_LEN: usize = 16;
pub(crate) const POS_FLAGS: usize = 25;
pub(crate) const POS_TYPE: usize = 26;
pub(crate) const POS_CODECS: usize = 27;
pub(crate) const POS_OTHER_FLAGS: usize = 28;
pub(crate) const POS_NBYTES: usize = 30;
pub(crate) const POS_CBYTES: usize = 39;
pub(crate) const POS_TYPESIZE: usize = 48;
pub(crate) const POS_BLOCKSIZE: usize = 53;
pub(crate) const POS_CHUNKSIZE: usize = 58;
pub(crate) const POS_NTHREADS_C: usize = 63;
pub(crate) const POS_NTHREADS_D: usize = 66;
pub(crate) const POS_HAS_VLMETA: usize = 68;
pub(crate) const POS_FILTER_PIPELINE: usize = 70;
pub(crate) const POS_UDCODEC: usize = 77;
pub(crate) const POS_CODEC_META: usize = 78;
pub(crate) const POS_OTHER_FLAGS2: usize = 85;
/// Length of the fixed part; the metalayers section starts here.
pub const HEADER_MINLEN: usize = 87;
const POS_IDX_SIZE: usize = HEADER_MINLEN + 2;
/// Room for filters in the header's filter pipeline (6 used).
const FILTER_PIPELINE_MAX: usize = 8;

/// Most metalayers a super-chunk holds (BLOSC2_MAX_METALAYERS).
pub const MAX_METALAYERS: usize = 16;
/// Longest metalayer name (BLOSC2_METALAYER_NAME_MAXLEN).
pub const METALAYER_NAME_MAXLEN: usize = 31;

/// A named metalayer (fixed-size in the header) or vlmetalayer (in the trailer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// The name (at most [`METALAYER_NAME_MAXLEN`] bytes in a frame header).
    pub name: String,
    /// The content: raw bytes for a metalayer (usually msgpack); for a vlmetalayer, a
    /// compressed chunk holding the bytes.
    pub content: Vec<u8>,
}

/// The fixed fields of a frame header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader {
    /// Bytes of the header, metalayers included (the chunks start here).
    pub header_len: i32,
    /// Bytes of the whole frame: header, chunks, offsets index and trailer.
    pub frame_len: i64,
    /// Frame format version (see [`VERSION_CURRENT`]).
    pub version: u8,
    /// Whether this is a sparse frame (a directory; see [`DIRECTORY_TYPE`]).
    pub sparse: bool,
    /// Whether chunks may differ in size ([`VARIABLE_CHUNKS`]).
    pub variable_chunks: bool,
    /// Whether chunks with variable-length blocks may occur ([`VL_BLOCKS`]).
    pub vl_blocks: bool,
    /// Bytes of data in all chunks, uncompressed.
    pub nbytes: i64,
    /// Bytes of all chunks as stored (compressed, headers included).
    pub cbytes: i64,
    /// Item size in bytes.
    pub typesize: i32,
    /// Block size in bytes recorded for the super-chunk (see
    /// [`Schunk::blocksize`](crate::schunk::Schunk::blocksize)).
    pub blocksize: i32,
    /// Bytes of data per chunk: every chunk has this size but the last, which may be smaller.
    /// -1 before the first chunk, 0 once chunks differ in size.
    pub chunksize: i32,
    /// Threads for compression stored with the frame.
    pub nthreads_c: i16,
    /// Threads for decompression stored with the frame.
    pub nthreads_d: i16,
    /// Whether the trailer holds vlmetalayers.
    pub has_vlmeta: bool,
    /// Codec id of the super-chunk's compression parameters.
    pub compcode: u8,
    /// Compression level, 0..=9.
    pub clevel: u8,
    /// BLOSC_*_SPLIT (1..=4).
    pub splitmode: u8,
    /// The codec's meta byte.
    pub compcode_meta: u8,
    /// The filter pipeline of the compression parameters (filter ids, slot order).
    pub filters: [u8; 6],
    /// One meta byte per filter slot.
    pub filters_meta: [u8; 6],
    /// Whether chunks are compressed with a dictionary.
    pub use_dict: bool,
}

impl Default for FrameHeader {
    fn default() -> Self {
        FrameHeader {
            header_len: 0,
            frame_len: 0,
            version: VERSION_RC1,
            sparse: false,
            variable_chunks: false,
            vl_blocks: false,
            nbytes: 0,
            cbytes: 0,
            typesize: 8,
            blocksize: 0,
            chunksize: -1,
            nthreads_c: 1,
            nthreads_d: 1,
            has_vlmeta: false,
            compcode: 0,
            clevel: 5,
            splitmode: 4,
            compcode_meta: 0,
            filters: [0, 0, 0, 0, 0, 1],
            filters_meta: [0; 6],
            use_dict: false,
        }
    }
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}

fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}

fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

impl FrameHeader {
    /// Parses the fixed part (the first `HEADER_MINLEN` bytes), with c-blosc2's checks.
    pub fn parse(b: &[u8]) -> Result<FrameHeader> {
        if b.len() < HEADER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        let flags = b[POS_FLAGS];
        let version = flags & 0x0f;
        if version > VERSION_CURRENT {
            return Err(Error::VersionSupport);
        }
        let frame_type = b[POS_TYPE] & 0x0f;
        if frame_type != CONTIGUOUS_TYPE && frame_type != DIRECTORY_TYPE {
            return Err(Error::FrameType);
        }
        let header_len = be_i32(b, POS_HEADER_LEN);
        let frame_len = be_i64(b, POS_FRAME_LEN);
        if header_len < HEADER_MINLEN as i32 || header_len as i64 > frame_len {
            return Err(Error::InvalidHeader);
        }
        let typesize = be_i32(b, POS_TYPESIZE);
        if typesize <= 0 {
            return Err(Error::InvalidHeader);
        }
        let codecs = b[POS_CODECS];
        let mut compcode = codecs & 0x0f;
        if compcode == UDCODEC_FORMAT {
            compcode = b[POS_UDCODEC];
        }
        let nfilters = b[POS_FILTER_PIPELINE] as usize;
        if nfilters > 6 {
            return Err(Error::InvalidHeader);
        }
        let mut filters = [0u8; 6];
        let mut filters_meta = [0u8; 6];
        let fstart = POS_FILTER_PIPELINE + 1;
        filters[..nfilters].copy_from_slice(&b[fstart..fstart + nfilters]);
        let mstart = fstart + FILTER_PIPELINE_MAX;
        filters_meta[..nfilters].copy_from_slice(&b[mstart..mstart + nfilters]);
        Ok(FrameHeader {
            header_len,
            frame_len,
            version,
            sparse: frame_type == DIRECTORY_TYPE,
            variable_chunks: flags & VARIABLE_CHUNKS != 0,
            vl_blocks: flags & VL_BLOCKS != 0,
            nbytes: be_i64(b, POS_NBYTES),
            cbytes: be_i64(b, POS_CBYTES),
            typesize,
            blocksize: be_i32(b, POS_BLOCKSIZE),
            chunksize: be_i32(b, POS_CHUNKSIZE),
            nthreads_c: be_i16(b, POS_NTHREADS_C),
            nthreads_d: be_i16(b, POS_NTHREADS_D),
            has_vlmeta: b[POS_HAS_VLMETA] == 0xc3,
            compcode,
            clevel: codecs >> 4,
            splitmode: (b[POS_OTHER_FLAGS] & 0x03) + 1,
            compcode_meta: b[POS_CODEC_META],
            filters,
            filters_meta,
            use_dict: b[POS_OTHER_FLAGS2] & USE_DICT != 0,
        })
    }

    /// The number of chunks the sizes imply when the chunk size is fixed (`None` when it is
    /// variable and the offsets chunk must tell). Errors as c-blosc2 for inconsistent sizes.
    pub fn nchunks_from_sizes(&self) -> Result<Option<i64>> {
        if self.nbytes <= 0 {
            return Ok(Some(0));
        }
        match self.chunksize {
            0 => Ok(None),
            cs if cs > 0 => {
                let cs = cs as i64;
                let n = self.nbytes / cs + i64::from(self.nbytes % cs > 0);
                if self.cbytes < 0 {
                    return Err(Error::InvalidHeader);
                }
                Ok(Some(n))
            }
            _ => Err(Error::InvalidHeader),
        }
    }

    /// Encodes the header followed by the metalayers section, as c-blosc2 lays it out.
    pub fn encode(&self, metas: &[Meta]) -> Result<Vec<u8>> {
        if metas.len() > MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        let mut h = Vec::with_capacity(HEADER_MINLEN + 64);
        h.push(0x90 + 14);
        h.push(0xa0 + 8);
        h.extend_from_slice(b"b2frame\0");
        h.push(0xd2);
        h.extend_from_slice(&[0; 4]); // header length, known at the end
        h.push(0xcf);
        h.extend_from_slice(&self.frame_len.to_be_bytes());
        h.push(0xa0 + 4);
        let variable = self.chunksize == 0;
        let version = if variable || self.vl_blocks {
            VERSION_VL_BLOCKS
        } else {
            VERSION_RC1
        };
        let mut flags = version | OFFSETS_64BIT;
        if variable {
            flags |= VARIABLE_CHUNKS;
        }
        if self.vl_blocks {
            flags |= VL_BLOCKS;
        }
        h.push(flags);
        h.push(if self.sparse {
            DIRECTORY_TYPE
        } else {
            CONTIGUOUS_TYPE
        });
        let codec = if self.compcode >= LAST_CODEC {
            UDCODEC_FORMAT
        } else {
            self.compcode
        };
        h.push(codec.wrapping_add(self.clevel << 4));
        h.push(self.splitmode.wrapping_sub(1));
        h.push(0xd3);
        h.extend_from_slice(&self.nbytes.to_be_bytes());
        h.push(0xd3);
        h.extend_from_slice(&self.cbytes.to_be_bytes());
        for v in [self.typesize, self.blocksize, self.chunksize] {
            h.push(0xd2);
            h.extend_from_slice(&v.to_be_bytes());
        }
        for v in [self.nthreads_c, self.nthreads_d] {
            h.push(0xd1);
            h.extend_from_slice(&v.to_be_bytes());
        }
        h.push(if self.has_vlmeta { 0xc3 } else { 0xc2 });
        h.push(0xd8);
        h.push(6); // number of filters
        let mut pipeline = [0u8; 16];
        pipeline[..6].copy_from_slice(&self.filters);
        pipeline[6] = self.compcode;
        pipeline[7] = self.compcode_meta;
        pipeline[8..14].copy_from_slice(&self.filters_meta);
        pipeline[14] = if self.use_dict { USE_DICT } else { 0 };
        h.extend_from_slice(&pipeline);
        debug_assert_eq!(h.len(), HEADER_MINLEN);
        encode_meta_section(&mut h, metas.iter(), HEADER_MINLEN)?;
        let len = i32::try_from(h.len()).map_err(|_| Error::Data)?;
        h[POS_HEADER_LEN..POS_HEADER_LEN + 4].copy_from_slice(&len.to_be_bytes());
        Ok(h)
    }
}

/// Appends a metalayers section (`[idx_size, {name: offset}, [bin32...]]`) to `buf`. Offsets
/// are from the start of `buf`; the index size counts from `section_start`.
pub(crate) fn encode_meta_section<'m>(
    buf: &mut Vec<u8>,
    metas: impl ExactSizeIterator<Item = &'m Meta> + Clone,
    section_start: usize,
) -> Result<()> {
    let n = u16::try_from(metas.len()).map_err(|_| Error::InvalidParam)?;
    buf.push(0x90 + 3);
    let idx_size_at = buf.len() + 1;
    buf.extend_from_slice(&[0xcd, 0, 0]);
    buf.push(0xde);
    buf.extend_from_slice(&n.to_be_bytes());
    let mut offset_slots = Vec::with_capacity(metas.len());
    for m in metas.clone() {
        let name = m.name.as_bytes();
        if name.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::InvalidParam);
        }
        buf.push(0xa0 + name.len() as u8);
        buf.extend_from_slice(name);
        buf.push(0xd2);
        offset_slots.push(buf.len());
        buf.extend_from_slice(&[0; 4]);
    }
    let idx_size = u16::try_from(buf.len() - section_start).map_err(|_| Error::Data)?;
    buf[idx_size_at..idx_size_at + 2].copy_from_slice(&idx_size.to_be_bytes());
    buf.push(0xdc);
    buf.extend_from_slice(&n.to_be_bytes());
    for (m, slot) in metas.zip(offset_slots) {
        let at = i32::try_from(buf.len()).map_err(|_| Error::Data)?;
        buf[slot..slot + 4].copy_from_slice(&at.to_be_bytes());
        let len = i32::try_from(m.content.len()).map_err(|_| Error::InvalidParam)?;
        buf.push(0xc6);
        buf.extend_from_slice(&len.to_be_bytes());
        buf.extend_from_slice(&m.content);
    }
    Ok(())
}

/// Parses a metalayers section whose `0xde` map marker is at `map_at` in `buf` (offsets in it
/// are relative to the start of `buf`). `max` bounds the number of entries.
pub(crate) fn parse_meta_section(buf: &[u8], map_at: usize, max: usize) -> Result<Vec<Meta>> {
    let need = |end: usize| {
        if end > buf.len() {
            Err(Error::ReadBuffer)
        } else {
            Ok(())
        }
    };
    need(map_at + 3)?;
    if buf[map_at] != 0xde {
        return Err(Error::Data);
    }
    let n = be_u16(buf, map_at + 1) as usize;
    if n > max {
        return Err(Error::Data);
    }
    let mut p = map_at + 3;
    let mut metas = Vec::with_capacity(n);
    for _ in 0..n {
        need(p + 1)?;
        if buf[p] & 0xe0 != 0xa0 {
            return Err(Error::Data);
        }
        let nlen = (buf[p] & 0x1f) as usize;
        p += 1;
        need(p + nlen)?;
        let name = String::from_utf8_lossy(&buf[p..p + nlen]).into_owned();
        p += nlen;
        need(p + 5)?;
        if buf[p] != 0xd2 {
            return Err(Error::Data);
        }
        let offset = be_i32(buf, p + 1);
        p += 5;
        if offset < 0 || offset as usize >= buf.len() {
            return Err(Error::Data);
        }
        let at = offset as usize;
        need(at + 5)?;
        if buf[at] != 0xc6 {
            return Err(Error::Data);
        }
        let len = be_i32(buf, at + 1);
        if len < 0 {
            return Err(Error::Data);
        }
        let end = (at + 5)
            .checked_add(len as usize)
            .ok_or(Error::ReadBuffer)?;
        need(end)?;
        metas.push(Meta {
            name,
            content: buf[at + 5..end].to_vec(),
        });
    }
    Ok(metas)
}

/// Parses the metalayers of a whole header (`header.len()` == header length).
pub fn parse_metalayers(header: &[u8]) -> Result<Vec<Meta>> {
    if header.len() < POS_IDX_SIZE + 2 {
        return Err(Error::ReadBuffer);
    }
    parse_meta_section(header, POS_IDX_SIZE + 2, MAX_METALAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_with_metalayers() {
        let h = FrameHeader {
            frame_len: 1234,
            nbytes: 40000,
            cbytes: 2000,
            typesize: 4,
            chunksize: 40000,
            compcode: 1,
            ..Default::default()
        };
        let metas = vec![
            Meta {
                name: "m1".into(),
                content: vec![0x93, 1, 2, 3],
            },
            Meta {
                name: "second".into(),
                content: (0..40).collect(),
            },
        ];
        let bytes = h.encode(&metas).unwrap();
        let parsed = FrameHeader::parse(&bytes).unwrap();
        assert_eq!(parsed.header_len as usize, bytes.len());
        assert_eq!(parsed.nbytes, 40000);
        assert_eq!(parsed.compcode, 1);
        assert_eq!(parsed.chunksize, 40000);
        assert_eq!(parsed.splitmode, 4);
        assert_eq!(parse_metalayers(&bytes).unwrap(), metas);
        // Bytes written by c-blosc2 3.3.5 for this header start like this.
        assert_eq!(
            &bytes[..0x20],
            &[
                0x9e, 0xa8, b'b', b'2', b'f', b'r', b'a', b'm', b'e', 0, 0xd2, 0, 0, 0, 0xab, 0xcf,
                0, 0, 0, 0, 0, 0, 0x04, 0xd2, 0xa4, 0x12, 0, 0x51, 0x03, 0xd3, 0, 0
            ]
        );
    }

    #[test]
    fn malformed_metalayers_are_errors() {
        let h = FrameHeader::default();
        let metas = vec![Meta {
            name: "abc".into(),
            content: vec![1, 2, 3],
        }];
        let bytes = h.encode(&metas).unwrap();
        for cut in HEADER_MINLEN..bytes.len() {
            assert!(parse_metalayers(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = bytes.clone();
        bad[POS_IDX_SIZE + 3] = 0xff; // 0xff.. entries
        assert_eq!(parse_metalayers(&bad), Err(Error::Data));
        assert_eq!(FrameHeader::parse(&bytes[..10]), Err(Error::ReadBuffer));
    }
}
