//! Frame fingerprints (docs/FINGERPRINTS.md): CRC-32C values of a frame's parts that tell, on
//! demand or on every chunk read, whether its bytes are still those its writer wrote.
//!
//! - Each stored chunk: its length and CRC, in a table kept in the vlmetalayer [`TABLE_NAME`]
//!   (one entry per chunk position; special chunks, stored as offset values only, have none).
//! - The header (a cframe's with its stored-size and frame-length fields taken as zero: the
//!   crash-safe write order points headers at copies of the index while a change is written), the offsets
//!   index chunk and the trailer up to the fingerprint slot: one CRC each in the trailer's
//!   16-byte fingerprint slot (type 3, 128 bits), with a fourth CRC sealing the other three.
//! - A marker in two bytes of the header that c-blosc2 3.3.5 writes as zero (the high nibble of
//!   "other flags 2" and the reserved byte after it): c-blosc2 rewrites the whole header for any
//!   change but a vlmetalayer one, and the whole trailer (fingerprint type 0) for any change but
//!   a metalayer one, so a frame it changed lacks the marker or the type, and its fingerprint
//!   is taken as absent, never as damaged.

use super::crc32c::crc32c;
use super::header::{Meta, DIRECTORY_TYPE, POS_CBYTES, POS_FRAME_LEN, POS_OTHER_FLAGS2, POS_TYPE};
use crate::chunk::header::{
    ChunkHeader, DOBITSHUFFLE, DOSHUFFLE, EXTENDED_HEADER_LENGTH, MEMCPYED, VERSION_FORMAT,
};
use crate::{Error, Result};

/// Fingerprint type written in the trailer: 128 bits (four CRC-32C values).
pub const FP_TYPE: u8 = 3;
/// Name of the vlmetalayer holding the per-chunk table.
pub const TABLE_NAME: &str = "_rblosc2_fingerprints";
/// Bytes of the fingerprint slot, and of the trailer's end from the type byte on.
const SLOT_LEN: usize = 16;
const TAIL_LEN: usize = SLOT_LEN + 1;
/// The marker: these bits of header byte 85 (the high nibble; bit 0 is `use_dict`)...
const MARK85: u8 = 0xA0;
const MARK85_MASK: u8 = 0xF0;
/// ...and this value of header byte 86.
const MARK86: u8 = 0x5B;
/// First bytes of the table's payload, its version and the hash it uses (1: CRC-32C).
const TABLE_MAGIC: &[u8; 4] = b"B2FP";
const TABLE_VERSION: u8 = 1;
const HASH_CRC32C: u8 = 1;
/// Bytes of the payload before the entries: magic, version, hash, 2 reserved, nchunks.
const TABLE_HEAD: usize = 16;

/// What the table records of one chunk position: the stored chunk's length and CRC-32C (both
/// 0 for a special chunk, which has no stored bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// Bytes of the stored chunk.
    pub len: u32,
    /// CRC-32C of those bytes.
    pub crc: u32,
}

impl Entry {
    /// The entry of a stored chunk (`None`: a special chunk, stored as an offset value only).
    pub fn of(chunk: Option<&[u8]>) -> Entry {
        match chunk {
            Some(c) => Entry {
                len: c.len() as u32,
                crc: crc32c(c),
            },
            None => Entry::default(),
        }
    }

    /// Whether `stored` (the bytes of a regular chunk) are those this entry records.
    pub fn holds(&self, stored: &[u8]) -> bool {
        stored.len() as u64 == self.len as u64 && crc32c(stored) == self.crc
    }
}

/// How a change of the chunks changes the table (positions are after the change).
#[derive(Debug, Clone, Copy)]
pub(crate) enum FpChange<'a> {
    /// No chunk changes (metalayers, vlmetalayers, parameters).
    Same,
    /// A chunk inserted (appended) at this position: its stored bytes, `None` if special.
    Insert(usize, Option<&'a [u8]>),
    /// The chunk at this position replaced.
    Replace(usize, Option<&'a [u8]>),
    /// The chunks from this position on replaced, in one commit (`None`: a special chunk).
    ReplaceRun(usize, &'a [Option<&'a [u8]>]),
    /// The chunk at this position removed.
    Remove(usize),
    /// New chunk `i` is old chunk `order[i]`.
    Permute(&'a [usize]),
    /// Everything is computed again from the stored chunks the new offsets point to (chunks
    /// already written: a copy, a special fill, fingerprints turned on).
    Rebuild,
}

impl FpChange<'_> {
    /// The position of the one new chunk this change inserts or replaces, if its stored bytes
    /// are `chunk` (the very slice, not equal bytes elsewhere): the caller that writes them can
    /// compute their CRC as it copies them ([`FpChange::apply_deferred`]).
    pub(crate) fn position_of(&self, chunk: &[u8]) -> Option<usize> {
        match *self {
            FpChange::Insert(i, Some(c)) | FpChange::Replace(i, Some(c))
                if std::ptr::eq(c, chunk) =>
            {
                Some(i)
            }
            _ => None,
        }
    }

    /// Applies the change to `table`. With `deferred`, the new chunk of an insert or replace
    /// gets its length and a CRC of 0, to be set once its bytes are written
    /// ([`set_entry_crc`]).
    pub(crate) fn apply(&self, table: &mut Vec<Entry>, deferred: bool) -> Result<()> {
        let entry = |c: Option<&[u8]>| match c {
            Some(c) if deferred => Entry {
                len: c.len() as u32,
                crc: 0,
            },
            c => Entry::of(c),
        };
        match *self {
            FpChange::Same | FpChange::Rebuild => {}
            FpChange::Insert(i, c) if i <= table.len() => table.insert(i, entry(c)),
            FpChange::Replace(i, c) if i < table.len() => table[i] = entry(c),
            FpChange::ReplaceRun(first, run) if first + run.len() <= table.len() => {
                for (k, &c) in run.iter().enumerate() {
                    table[first + k] = Entry::of(c);
                }
            }
            FpChange::Remove(i) if i < table.len() => {
                table.remove(i);
            }
            FpChange::Permute(order) if order.len() == table.len() => {
                let old = std::mem::take(table);
                for &o in order {
                    table.push(*old.get(o).ok_or(Error::Data)?);
                }
            }
            _ => return Err(Error::Data),
        }
        Ok(())
    }
}

/// The state of a frame's header marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    /// Both marker bytes are zero (as c-blosc2 writes them).
    Absent,
    /// Both hold the marker.
    Present,
    /// Anything else: a damaged header.
    Broken,
}

fn marker(header: &[u8]) -> Marker {
    match (
        header[POS_OTHER_FLAGS2] & MARK85_MASK,
        header[POS_OTHER_FLAGS2 + 1],
    ) {
        (0, 0) => Marker::Absent,
        (MARK85, MARK86) => Marker::Present,
        _ => Marker::Broken,
    }
}

/// Writes the marker into an encoded header.
pub(crate) fn set_marker(header: &mut [u8]) {
    header[POS_OTHER_FLAGS2] = (header[POS_OTHER_FLAGS2] & !MARK85_MASK) | MARK85;
    header[POS_OTHER_FLAGS2 + 1] = MARK86;
}

/// The CRC of a header; a contiguous frame's with its stored-size and frame-length fields
/// taken as zero (the kill-safe write order writes interim headers that differ there). An
/// sframe's index frame is written whole, so all of its header counts (its `cbytes` locates
/// nothing: only the CRC guards it).
fn header_crc(header: &[u8]) -> u32 {
    if header[POS_TYPE] & 0x0f == DIRECTORY_TYPE {
        return crc32c(header);
    }
    let mut h = header.to_vec();
    h[POS_FRAME_LEN..POS_FRAME_LEN + 8].fill(0);
    h[POS_CBYTES..POS_CBYTES + 8].fill(0);
    crc32c(&h)
}

fn rd(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The seal: the CRC of the slot's first three values and the type byte.
fn seal_of(slot: &[u8], fpt: u8) -> u32 {
    let mut s = [0u8; 13];
    s[..12].copy_from_slice(&slot[..12]);
    s[12] = fpt;
    crc32c(&s)
}

/// Fills the fingerprint slot of `trailer` (an encoded trailer) for a frame whose header is
/// `header` and offsets index `off_chunk`.
pub(crate) fn seal(header: &[u8], off_chunk: &[u8], trailer: &mut [u8]) {
    let n = trailer.len();
    let covered = crc32c(&trailer[..n - TAIL_LEN]);
    trailer[n - TAIL_LEN] = FP_TYPE;
    let slot = &mut trailer[n - SLOT_LEN..];
    slot[0..4].copy_from_slice(&header_crc(header).to_le_bytes());
    slot[4..8].copy_from_slice(&crc32c(off_chunk).to_le_bytes());
    slot[8..12].copy_from_slice(&covered.to_le_bytes());
    let s = seal_of(slot, FP_TYPE);
    slot[12..16].copy_from_slice(&s.to_le_bytes());
}

/// Points the fingerprint slot of a sealed `trailer` at another offsets index (the crash-safe
/// update writes interim indexes with the final trailer); a trailer without a fingerprint is
/// left alone.
pub(crate) fn reseal_index(trailer: &mut [u8], off_chunk: &[u8]) {
    let n = trailer.len();
    if n < TAIL_LEN || trailer[n - TAIL_LEN] != FP_TYPE {
        return;
    }
    let slot = &mut trailer[n - SLOT_LEN..];
    slot[4..8].copy_from_slice(&crc32c(off_chunk).to_le_bytes());
    let s = seal_of(slot, FP_TYPE);
    slot[12..16].copy_from_slice(&s.to_le_bytes());
}

/// Sets the CRC of entry `i` of `table` to `crc`, there and in `trailer`, the trailer encoded
/// with it ([`table_meta`] as its last vlmetalayer, not sealed yet): the table's entries end
/// its contents, which end right before the trailer's length (`0xce` and 4 bytes), the
/// fingerprint type marker (`0xd8`), the type byte and the slot.
pub(crate) fn set_entry_crc(table: &mut [Entry], trailer: &mut [u8], i: usize, crc: u32) {
    table[i].crc = crc;
    let entries_end = trailer.len() - TAIL_LEN - 6;
    let at = entries_end - 8 * (table.len() - i) + 4;
    trailer[at..at + 4].copy_from_slice(&crc.to_le_bytes());
}

/// The vlmetalayer holding `table`: a memcpyed Blosc chunk (vlmetalayer contents are chunks)
/// whose data is a msgpack bin32 (python-blosc2 unpacks vlmetalayers as msgpack) of the
/// payload: "B2FP", version, hash id, 2 reserved bytes, nchunks (u64), then per chunk its
/// length and CRC (u32 each), all little-endian.
pub(crate) fn table_meta(table: &[Entry]) -> Result<Meta> {
    let payload = TABLE_HEAD + 8 * table.len();
    let data = 5 + payload;
    let nbytes = i32::try_from(data).map_err(|_| Error::Data)?;
    let cbytes = nbytes
        .checked_add(EXTENDED_HEADER_LENGTH as i32)
        .ok_or(Error::Data)?;
    let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
    ChunkHeader {
        version: VERSION_FORMAT,
        versionlz: 1,
        flags: DOSHUFFLE | DOBITSHUFFLE | MEMCPYED,
        typesize: 1,
        nbytes,
        blocksize: nbytes,
        cbytes,
        filters: [0; 6],
        udcompcode: 0,
        compcode_meta: 0,
        filters_meta: [0; 6],
        blosc2_flags2: 0,
        blosc2_flags: 0,
        extended: true,
    }
    .write(&mut c);
    c.reserve(data);
    c.push(0xc6);
    c.extend_from_slice(&(payload as u32).to_be_bytes());
    c.extend_from_slice(TABLE_MAGIC);
    c.extend_from_slice(&[TABLE_VERSION, HASH_CRC32C, 0, 0]);
    c.extend_from_slice(&(table.len() as u64).to_le_bytes());
    for e in table {
        c.extend_from_slice(&e.len.to_le_bytes());
        c.extend_from_slice(&e.crc.to_le_bytes());
    }
    Ok(Meta {
        name: TABLE_NAME.to_string(),
        content: c,
    })
}

/// The table in the content of a [`TABLE_NAME`] vlmetalayer, if it is one for `nchunks` chunks.
fn parse_table(content: &[u8], nchunks: usize) -> Option<Vec<Entry>> {
    let h = ChunkHeader::parse(content).ok()?;
    if !h.memcpyed() || h.cbytes as usize != content.len() {
        return None;
    }
    let data = content.get(EXTENDED_HEADER_LENGTH..)?;
    if data.len() != h.nbytes as usize || data.first() != Some(&0xc6) {
        return None;
    }
    let payload = &data[5..];
    if rd_be(data, 1) as usize != payload.len()
        || payload.get(..4)? != TABLE_MAGIC
        || payload[4] != TABLE_VERSION
        || payload[5] != HASH_CRC32C
    {
        return None;
    }
    let n = u64::from_le_bytes(payload[8..16].try_into().ok()?);
    if n != nchunks as u64 || payload.len() != TABLE_HEAD + 8 * nchunks {
        return None;
    }
    Some(
        payload[TABLE_HEAD..]
            .as_chunks::<8>()
            .0
            .iter()
            .map(|e| Entry {
                len: rd(e, 0),
                crc: rd(e, 4),
            })
            .collect(),
    )
}

fn rd_be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Takes the fingerprint table's vlmetalayer out of `vlmetas` (the super-chunk never shows it).
pub(crate) fn take_table_meta(vlmetas: &mut Vec<Meta>) -> Option<Meta> {
    let i = vlmetas.iter().position(|m| m.name == TABLE_NAME)?;
    Some(vlmetas.remove(i))
}

/// A part of a frame that a fingerprint covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// The header (fixed fields, metalayers, the marker).
    Header,
    /// The offsets index chunk.
    OffsetsIndex,
    /// The trailer before the fingerprint slot (vlmetalayers, the per-chunk table).
    Trailer,
    /// The fingerprint type byte or slot.
    Slot,
    /// The per-chunk table does not describe the frame's chunks.
    Table,
    /// The stored chunk at this position.
    Chunk(i64),
    /// The frame's parts do not fit together (lengths and positions), or it does not open.
    Layout,
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Region::Header => write!(f, "header (fixed fields or metalayers)"),
            Region::OffsetsIndex => write!(f, "offsets index"),
            Region::Trailer => write!(f, "trailer (vlmetalayers or chunk fingerprint table)"),
            Region::Slot => write!(f, "trailer fingerprint slot"),
            Region::Table => write!(f, "chunk fingerprint table"),
            Region::Chunk(n) => write!(f, "chunk {n}"),
            Region::Layout => write!(f, "frame layout (lengths and positions)"),
        }
    }
}

/// Why a frame has no fingerprint to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absent {
    /// Written without one (c-blosc2 or rblosc2 with fingerprints off).
    Never,
    /// Its header was rewritten by a writer that keeps no fingerprints (c-blosc2 changed a
    /// metalayer, or any chunk).
    HeaderRewritten,
    /// Its trailer was rewritten by such a writer (c-blosc2 changed a vlmetalayer).
    TrailerRewritten,
    /// The trailer holds a fingerprint of another kind (not this library's marker).
    OtherKind,
}

impl std::fmt::Display for Absent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Absent::Never => "written without fingerprints",
            Absent::HeaderRewritten => {
                "header rewritten by a writer that keeps no fingerprints (e.g. c-blosc2)"
            }
            Absent::TrailerRewritten => {
                "trailer rewritten by a writer that keeps no fingerprints (e.g. c-blosc2)"
            }
            Absent::OtherKind => "a fingerprint of another kind",
        })
    }
}

/// What the header, offsets index and trailer of a frame say about its fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// No fingerprint to check.
    Absent(Absent),
    /// A fingerprint that holds for header, index and trailer: the per-chunk table.
    Valid(Vec<Entry>),
    /// A fingerprint that does not hold: the first region found damaged.
    Damaged(Region),
}

/// Evaluates the fingerprint of a frame from its `header`, offsets index chunk `off_chunk`
/// (empty without chunks), `trailer` and the table's vlmetalayer `table` (taken out of the
/// vlmetalayers), for `nchunks` chunks.
pub(crate) fn evaluate(
    header: &[u8],
    off_chunk: &[u8],
    trailer: &[u8],
    table: Option<&Meta>,
    nchunks: usize,
) -> State {
    if header.len() <= POS_OTHER_FLAGS2 + 1 || trailer.len() < TAIL_LEN {
        return State::Damaged(Region::Layout);
    }
    let n = trailer.len();
    let fpt = trailer[n - TAIL_LEN];
    let slot = &trailer[n - SLOT_LEN..];
    let slot_sealed = |t: u8| rd(slot, 12) == seal_of(slot, t);
    match (marker(header), fpt) {
        (Marker::Broken, _) => return State::Damaged(Region::Header),
        (Marker::Absent, 0) => return State::Absent(Absent::Never),
        (Marker::Absent, FP_TYPE) => return State::Absent(Absent::HeaderRewritten),
        (Marker::Absent, _) => return State::Absent(Absent::OtherKind),
        // c-blosc2 writes the slot of a type-0 trailer as zeros.
        (Marker::Present, 0) if slot.iter().all(|&b| b == 0) => {
            return State::Absent(Absent::TrailerRewritten)
        }
        (Marker::Present, FP_TYPE) => {}
        (Marker::Present, _) => return State::Damaged(Region::Slot),
    }
    if !slot_sealed(FP_TYPE) {
        return State::Damaged(Region::Slot);
    }
    if rd(slot, 0) != header_crc(header) {
        return State::Damaged(Region::Header);
    }
    if rd(slot, 4) != crc32c(off_chunk) {
        return State::Damaged(Region::OffsetsIndex);
    }
    if rd(slot, 8) != crc32c(&trailer[..n - TAIL_LEN]) {
        return State::Damaged(Region::Trailer);
    }
    match table.and_then(|m| parse_table(&m.content, nchunks)) {
        Some(t) => State::Valid(t),
        None => State::Damaged(Region::Table),
    }
}

/// What verifying a whole frame found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// No fingerprint to check (then `damaged` is empty), or why not.
    pub absent: Option<Absent>,
    /// The damaged regions found, in frame order (header, index, trailer, chunks).
    pub damaged: Vec<Region>,
    /// Stored chunks whose bytes were checked.
    pub chunks_checked: i64,
    /// Bytes of those chunks.
    pub chunk_bytes: u64,
    /// Bytes of a contiguous frame's data section that no offset points to (left by deleted
    /// or replaced chunks, as c-blosc2 leaves them): no data, so not covered.
    pub unreferenced: u64,
}

impl Report {
    /// Whether the frame holds a fingerprint and every part it covers matches it.
    pub fn intact(&self) -> bool {
        self.absent.is_none() && self.damaged.is_empty()
    }

    /// How many of the damaged regions are chunks.
    pub fn chunks_damaged(&self) -> usize {
        self.damaged
            .iter()
            .filter(|r| matches!(r, Region::Chunk(_)))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trip() {
        let t = vec![
            Entry { len: 40, crc: 7 },
            Entry::default(),
            Entry::of(Some(b"abc")),
        ];
        let m = table_meta(&t).unwrap();
        assert_eq!(m.name, TABLE_NAME);
        assert_eq!(parse_table(&m.content, 3), Some(t.clone()));
        assert_eq!(parse_table(&m.content, 2), None);
        // A memcpyed chunk whose data is msgpack bin32 of the payload.
        let h = ChunkHeader::parse(&m.content).unwrap();
        assert!(h.memcpyed());
        assert_eq!(h.cbytes as usize, m.content.len());
        assert_eq!(m.content[32], 0xc6);
    }

    #[test]
    fn a_deferred_crc_set_in_the_encoded_trailer_is_the_one_encoded() {
        let user = [Meta {
            name: "user".into(),
            content: vec![1, 2, 3],
        }];
        let chunk = b"the new chunk".as_slice();
        let other = b"the new chunk".to_vec();
        for at in 0..3 {
            let mut table = vec![Entry::of(Some(b"a")), Entry::of(Some(b"bc"))];
            let change = FpChange::Insert(at, Some(chunk));
            assert_eq!(change.position_of(chunk), Some(at));
            assert_eq!(change.position_of(&other), None, "equal bytes elsewhere");
            let mut want = table.clone();
            change.apply(&mut want, false).unwrap();
            change.apply(&mut table, true).unwrap();
            assert_eq!(table[at], Entry { len: 13, crc: 0 });
            let meta = table_meta(&table).unwrap();
            let mut trailer = super::super::trailer::encode(&user, Some(&meta)).unwrap();
            set_entry_crc(&mut table, &mut trailer, at, crc32c(chunk));
            assert_eq!(table, want);
            let encoded = table_meta(&want).unwrap();
            assert_eq!(
                trailer,
                super::super::trailer::encode(&user, Some(&encoded)).unwrap()
            );
        }
        assert_eq!(FpChange::Replace(1, None).position_of(chunk), None);
        assert_eq!(
            FpChange::Replace(1, Some(chunk)).position_of(chunk),
            Some(1)
        );
    }

    #[test]
    fn changes_apply_by_position() {
        let e = |c: u32| Entry { len: 1, crc: c };
        let mut t = vec![e(0), e(1), e(2)];
        FpChange::Remove(1).apply(&mut t, false).unwrap();
        assert_eq!(t, vec![e(0), e(2)]);
        FpChange::Permute(&[1, 0]).apply(&mut t, false).unwrap();
        assert_eq!(t, vec![e(2), e(0)]);
        FpChange::Insert(2, None).apply(&mut t, false).unwrap();
        assert_eq!(t, vec![e(2), e(0), Entry::default()]);
        FpChange::Replace(0, Some(b"x"))
            .apply(&mut t, false)
            .unwrap();
        assert_eq!(t[0], Entry::of(Some(b"x")));
        let run: [Option<&[u8]>; 2] = [Some(b"yz"), None];
        FpChange::ReplaceRun(0, &run).apply(&mut t, false).unwrap();
        assert_eq!(t[0], Entry::of(Some(b"yz")));
        assert_eq!(t[1], Entry::of(None));
        assert!(FpChange::ReplaceRun(t.len() - 1, &run)
            .apply(&mut t, false)
            .is_err());
        assert!(FpChange::Remove(3).apply(&mut t, false).is_err());
        assert!(FpChange::Permute(&[0]).apply(&mut t, false).is_err());
    }
}
