//! The msgpack trailer of a frame: version, vlmetalayers, trailer length, fingerprint slot.

use super::header::{encode_meta_section, parse_meta_section, Meta};
use crate::{Error, Result};

/// Trailer format version written.
pub const TRAILER_VERSION: u8 = 1;
/// Shortest trailer (no vlmetalayers is 35; this is the part read to find the length).
pub const TRAILER_MINLEN: usize = 25;
/// Where the trailer length sits, counted back from the end of the frame.
pub const TRAILER_LEN_OFFSET: usize = 22;
/// Most vlmetalayers a frame trailer can hold (c-blosc2 refuses to write more than 16).
pub const MAX_VLMETALAYERS_WRITE: usize = 16;
/// Most vlmetalayers accepted when reading (BLOSC2_MAX_VLMETALAYERS).
pub const MAX_VLMETALAYERS: usize = 8 * 1024;

/// Encodes a trailer holding `vlmetas` (whose contents are already compressed chunks), then
/// `extra` (the fingerprint table), with no fingerprint in its slot.
pub fn encode(vlmetas: &[Meta], extra: Option<&Meta>) -> Result<Vec<u8>> {
    if vlmetas.len() + usize::from(extra.is_some()) > MAX_VLMETALAYERS_WRITE {
        return Err(Error::Failure);
    }
    let mut t = vec![0x90 + 4, TRAILER_VERSION];
    let all: Vec<&Meta> = vlmetas.iter().chain(extra).collect();
    encode_meta_section(&mut t, all.iter().copied(), 3)?;
    let len = u32::try_from(t.len() + 23).map_err(|_| Error::Data)?;
    t.push(0xce);
    t.extend_from_slice(&len.to_be_bytes());
    t.push(0xd8);
    t.push(0); // no fingerprint
    t.extend_from_slice(&[0; 16]);
    Ok(t)
}

/// The trailer length stored in the last `TRAILER_MINLEN` bytes of a frame of `frame_len`
/// bytes, checked the way c-blosc2 checks it when opening a frame.
pub fn trailer_len_from_tail(tail: &[u8], frame_len: i64) -> Result<u32> {
    if tail.len() != TRAILER_MINLEN {
        return Err(Error::ReadBuffer);
    }
    let at = TRAILER_MINLEN - TRAILER_LEN_OFFSET;
    if tail[at - 1] != 0xce {
        return Err(Error::InvalidHeader);
    }
    let len = u32::from_be_bytes([tail[at], tail[at + 1], tail[at + 2], tail[at + 3]]);
    let min_header = super::header::HEADER_MINLEN as i64;
    if (len as usize) < TRAILER_MINLEN
        || len > i32::MAX as u32
        || len as i64 > frame_len
        || len as i64 > frame_len - min_header
    {
        return Err(Error::InvalidHeader);
    }
    Ok(len)
}

/// Parses the vlmetalayers of a trailer (`trailer.len()` == trailer length).
pub fn parse_vlmetalayers(trailer: &[u8]) -> Result<Vec<Meta>> {
    if trailer.len() < 7 {
        return Err(Error::ReadBuffer);
    }
    parse_meta_section(trailer, 6, MAX_VLMETALAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_trailer_matches_reference() {
        let t = encode(&[], None).unwrap();
        let mut expected = vec![
            0x94, 0x01, 0x93, 0xcd, 0x00, 0x06, 0xde, 0x00, 0x00, 0xdc, 0x00, 0x00, 0xce, 0x00,
            0x00, 0x00, 0x23, 0xd8, 0x00,
        ];
        expected.extend_from_slice(&[0; 16]);
        assert_eq!(t, expected);
        assert_eq!(parse_vlmetalayers(&t).unwrap(), vec![]);
        let tail = &t[t.len() - TRAILER_MINLEN..];
        assert_eq!(trailer_len_from_tail(tail, 200), Ok(35));
        assert_eq!(
            trailer_len_from_tail(tail, 100),
            Err(Error::InvalidHeader),
            "trailer must leave room for a header"
        );
    }

    #[test]
    fn vlmeta_round_trip_and_truncation() {
        let metas = vec![
            Meta {
                name: "vl1".into(),
                content: vec![5; 40],
            },
            Meta {
                name: "e".into(),
                content: vec![],
            },
        ];
        let t = encode(&metas, None).unwrap();
        assert_eq!(parse_vlmetalayers(&t).unwrap(), metas);
        for cut in 0..t.len() - 23 {
            assert!(parse_vlmetalayers(&t[..cut]).is_err());
        }
    }
}
