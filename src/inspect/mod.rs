//! What the `b2inspect` tool knows: recognising a Blosc2 file (contiguous frame, sparse frame
//! directory, single chunk), describing it, verifying every chunk, and rebuilding a contiguous
//! frame whose index or trailer is lost by walking its chunks from the header.

pub mod msgpack;

use std::path::Path;

use crate::b2nd::meta as ndmeta;
use crate::chunk::header::{ChunkHeader, Special};
use crate::chunk::params::{CParams, DParams};
use crate::frame::fingerprint::{Region, Report};
use crate::frame::header::{self as fheader, FrameHeader};
use crate::frame::offsets::offset_special;
use crate::frame::{Meta, SFRAME_INDEX};
use crate::schunk::{Schunk, Storage};
use crate::Error;

/// Why a file could not be inspected; each maps to its own exit status.
#[derive(Debug)]
pub enum Failure {
    /// The path does not exist or cannot be read.
    Missing(String),
    /// The file is readable but is neither a frame nor a chunk.
    NotBlosc(String),
    /// The file looks like Blosc2 data but its structure is broken.
    Damaged(String),
    /// The request itself cannot be carried out (an output that exists, output = input).
    Refused(String),
}

impl Failure {
    /// The tool's exit status for this failure: 3 missing, 4 not Blosc, 5 damaged, 2 refused.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Missing(_) => 3,
            Failure::NotBlosc(_) => 4,
            Failure::Damaged(_) => 5,
            Failure::Refused(_) => 2,
        }
    }

    /// The human-readable explanation, naming the path involved.
    pub fn message(&self) -> &str {
        match self {
            Failure::Missing(m)
            | Failure::NotBlosc(m)
            | Failure::Damaged(m)
            | Failure::Refused(m) => m,
        }
    }
}

/// An opened input.
pub enum Target {
    /// A contiguous frame file or sparse frame directory.
    Frame(Box<Schunk>),
    /// A file holding exactly one chunk.
    Chunk(Vec<u8>),
}

/// The 2-byte msgpack prefix and magic that start every frame header.
const FRAME_MAGIC: &[u8] = b"\x9e\xa8b2frame\0";

/// Whether `bytes` start like a frame header.
pub fn looks_like_frame(bytes: &[u8]) -> bool {
    bytes.starts_with(FRAME_MAGIC)
}

fn damaged(path: &Path, e: Error) -> Failure {
    Failure::Damaged(format!("{}: damaged Blosc2 frame: {e}", path.display()))
}

/// Opens `path` as a frame or a chunk, telling missing, foreign and damaged files apart.
pub fn open(path: &Path) -> Result<Target, Failure> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Failure::Missing(format!("{}: {e}", path.display())))?;
    if meta.is_dir() {
        let index = path.join(SFRAME_INDEX);
        if !index.is_file() {
            return Err(Failure::NotBlosc(format!(
                "{}: a directory without {SFRAME_INDEX}, not a sparse frame",
                path.display()
            )));
        }
        return Schunk::open(path)
            .map(|s| Target::Frame(Box::new(s)))
            .map_err(|e| damaged(path, e));
    }
    let bytes =
        std::fs::read(path).map_err(|e| Failure::Missing(format!("{}: {e}", path.display())))?;
    if looks_like_frame(&bytes) {
        return Schunk::open(path)
            .map(|s| Target::Frame(Box::new(s)))
            .map_err(|e| damaged(path, e));
    }
    let not_blosc = || {
        Failure::NotBlosc(format!(
            "{}: not a Blosc2 frame, sparse frame or chunk",
            path.display()
        ))
    };
    // A chunk has no magic: accept a plausible header whose length is the file's.
    let h = ChunkHeader::parse(&bytes).map_err(|_| not_blosc())?;
    if !(1..=crate::chunk::header::VERSION_FORMAT).contains(&h.version) || h.nbytes < 0 {
        return Err(not_blosc());
    }
    if h.cbytes as usize != bytes.len() {
        return Err(Failure::Damaged(format!(
            "{}: chunk header says {} compressed bytes, the file has {}",
            path.display(),
            h.cbytes,
            bytes.len()
        )));
    }
    Ok(Target::Chunk(bytes))
}

// ----- descriptions -------------------------------------------------------------------------

/// Name of a codec code (user codecs by number).
pub fn codec_name(code: u8) -> String {
    crate::codecs::names::name_of(code as i32)
        .map(str::to_string)
        .unwrap_or_else(|| format!("codec{code}"))
}

/// Name of a filter id.
pub fn filter_name(id: u8) -> String {
    crate::filters::names::name_of(id)
        .map(str::to_string)
        .unwrap_or_else(|| format!("filter{id}"))
}

/// The filters of a pipeline that do something, by name.
pub fn filter_names(filters: &[u8]) -> Vec<String> {
    filters
        .iter()
        .filter(|&&f| f != 0)
        .map(|&f| filter_name(f))
        .collect()
}

/// The short name `b2inspect` prints for a special-chunk kind (`""` for a regular chunk).
pub fn special_name(s: Special) -> &'static str {
    match s {
        Special::None => "",
        Special::Zero => "zeros",
        Special::Nan => "nans",
        Special::Value => "value",
        Special::Uninit => "uninit",
    }
}

/// One row of `b2inspect chunks`.
#[derive(Debug, Clone)]
pub struct ChunkRow {
    /// Position of the chunk in the super-chunk (0 for a lone chunk file).
    pub index: i64,
    /// Offset in the frame's chunk area (sparse frames: chunk file id); `None` for a special
    /// chunk kept only in the index.
    pub offset: Option<i64>,
    /// Bytes of the chunk as stored, header included.
    pub cbytes: i32,
    /// Bytes of data it decompresses to.
    pub nbytes: i32,
    /// Codec name (`blosclz`, `zstd`, ...; `codecN` for an id c-blosc2 does not name).
    pub codec: String,
    /// Names of the filters in pipeline order, empty slots left out.
    pub filters: Vec<String>,
    /// Block size in bytes as the header gives it (for VL-block chunks: the number of blocks).
    pub blocksize: i32,
    /// [`special_name`] of the chunk's kind, or `"invalid"` for an unknown special kind.
    pub special: &'static str,
    /// The chunk's format version (header byte 0).
    pub version: u8,
}

fn row_from_header(index: i64, offset: Option<i64>, h: &ChunkHeader) -> ChunkRow {
    ChunkRow {
        index,
        offset,
        cbytes: h.cbytes,
        nbytes: h.nbytes,
        codec: codec_name(h.compcode()),
        filters: filter_names(&h.filters),
        blocksize: h.blocksize,
        special: h.special().map(special_name).unwrap_or("invalid"),
        version: h.version,
    }
}

/// The chunk table; a chunk whose header cannot be read gives its error instead of a row.
pub fn chunk_rows(target: &Target) -> Vec<Result<ChunkRow, (i64, Error)>> {
    match target {
        Target::Chunk(bytes) => vec![ChunkHeader::parse(bytes)
            .map(|h| row_from_header(0, Some(0), &h))
            .map_err(|e| (0, e))],
        Target::Frame(sc) => {
            let Some(frame) = sc.frame() else {
                return Vec::new();
            };
            let offsets = frame.offsets();
            (0..frame.nchunks())
                .map(|n| {
                    let off = offsets[n as usize];
                    let offset = if off < 0 && !frame.is_sparse() {
                        None
                    } else {
                        Some(off)
                    };
                    if off < 0 {
                        if let Some(Ok(kind)) = offset_special(off) {
                            let h = sc.get_chunk(n).and_then(|c| ChunkHeader::parse(&c));
                            let mut row = h
                                .map(|h| row_from_header(n, None, &h))
                                .map_err(|e| (n, e))?;
                            row.special = special_name(kind);
                            return Ok(row);
                        }
                    }
                    frame
                        .chunk_header(n)
                        .map(|h| row_from_header(n, offset, &h))
                        .map_err(|e| (n, e))
                })
                .collect()
        }
    }
}

/// A metalayer: its name and its content rendered as JSON.
#[derive(Debug, Clone)]
pub struct MetaView {
    /// The (vl)metalayer's name.
    pub name: String,
    /// Its content decoded from msgpack into JSON text (undecodable bytes are shown as a
    /// string that says so).
    pub json: String,
}

/// What `b2nd` or `caterva` metalayers say about an array.
#[derive(Debug, Clone)]
pub struct ArrayView {
    /// Which metalayer described the array: `"b2nd"` or `"caterva"`.
    pub layer: String,
    /// Its decoded content: shape, chunk and block shapes, dtype.
    pub meta: ndmeta::Meta,
}

/// Everything `b2inspect info` shows.
#[derive(Debug, Clone)]
pub struct Info {
    /// `"contiguous frame"`, `"sparse frame"` or `"chunk"`.
    pub kind: &'static str,
    /// The frame's header fields (frames only).
    pub frame: Option<FrameHeader>,
    /// The chunk's header (lone chunks only; `None` when it cannot be parsed).
    pub chunk: Option<ChunkHeader>,
    /// Number of chunks (1 for a lone chunk).
    pub nchunks: i64,
    /// How many of them are special chunks (zeros, NaNs, a repeated value, uninitialised).
    pub nspecial: i64,
    /// Bytes of data, uncompressed.
    pub nbytes: i64,
    /// Bytes as stored (a frame's chunks; a lone chunk's file size).
    pub cbytes: i64,
    /// The fixed metalayers of the frame header, in order.
    pub metas: Vec<MetaView>,
    /// The variable-length metalayers of the trailer, decompressed.
    pub vlmetas: Vec<MetaView>,
    /// The array a `b2nd` (or older `caterva`) metalayer describes, if any.
    pub array: Option<ArrayView>,
}

fn view(m: &Meta) -> MetaView {
    MetaView {
        name: m.name.clone(),
        json: msgpack::to_json(&m.content),
    }
}

/// Describes an opened input for `b2inspect info`. Never fails: what cannot be read is left
/// out (use [`verify`] to find out why).
pub fn info(target: &Target) -> Info {
    match target {
        Target::Chunk(bytes) => {
            let h = ChunkHeader::parse(bytes).ok();
            Info {
                kind: "chunk",
                frame: None,
                nchunks: 1,
                nspecial: h.map_or(0, |h| (h.special_raw() != 0) as i64),
                nbytes: h.map_or(0, |h| h.nbytes as i64),
                cbytes: bytes.len() as i64,
                chunk: h,
                metas: Vec::new(),
                vlmetas: Vec::new(),
                array: None,
            }
        }
        Target::Frame(sc) => {
            let frame = sc.frame();
            let nspecial = frame.map_or(0, |f| {
                let sparse = f.is_sparse();
                (0..f.nchunks())
                    .filter(|&n| {
                        if !sparse && f.offsets()[n as usize] < 0 {
                            return true;
                        }
                        f.chunk_header(n).is_ok_and(|h| h.special_raw() != 0)
                    })
                    .count() as i64
            });
            let metas: Vec<MetaView> = sc.metalayers().iter().map(view).collect();
            let vlmetas = sc
                .vlmetalayers()
                .iter()
                .map(|m| MetaView {
                    name: m.name.clone(),
                    json: match sc.vlmeta_get(&m.name) {
                        Ok(v) => msgpack::to_json(&v),
                        Err(e) => {
                            let mut s = String::new();
                            msgpack::json_string(&mut s, &format!("<unreadable: {e}>"));
                            s
                        }
                    },
                })
                .collect();
            let array = ["b2nd", "caterva"].iter().find_map(|layer| {
                let content = sc.meta_get(layer).ok()?;
                let (meta, _) = ndmeta::deserialize(content).ok()?;
                Some(ArrayView {
                    layer: layer.to_string(),
                    meta,
                })
            });
            Info {
                kind: if frame.is_some_and(|f| f.is_sparse()) {
                    "sparse frame"
                } else {
                    "contiguous frame"
                },
                frame: frame.map(|f| f.header().clone()),
                chunk: None,
                nchunks: sc.nchunks(),
                nspecial,
                nbytes: sc.nbytes(),
                cbytes: sc.cbytes(),
                metas,
                vlmetas,
                array,
            }
        }
    }
}

// ----- verification -------------------------------------------------------------------------

/// A problem `verify` found: where, and what.
#[derive(Debug, Clone)]
pub struct Problem {
    /// Where: `"chunk"` for a lone chunk, `"chunk N (offset O)"` or `"chunk N (file
    /// XXXXXXXX.chunk)"` in a frame, `"frame header"` for totals that do not add up.
    pub location: String,
    /// What is wrong there.
    pub message: String,
}

fn problem(location: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        location: location.into(),
        message: message.into(),
    }
}

/// Decompresses every chunk and checks lengths against the frame header; `progress` is called
/// with (chunks done, total) after each chunk.
pub fn verify(target: &Target, progress: &mut dyn FnMut(i64, i64)) -> Vec<Problem> {
    let mut problems = Vec::new();
    match target {
        Target::Chunk(bytes) => {
            let nbytes = ChunkHeader::parse(bytes).map_or(0, |h| h.nbytes.max(0) as usize);
            let mut dst = vec![0u8; nbytes];
            match crate::chunk::decompress::decompress(
                &DParams::default(),
                None,
                bytes,
                &mut dst,
                None,
            ) {
                Ok(n) if n == nbytes => {}
                Ok(n) => problems.push(problem(
                    "chunk",
                    format!("decompressed {n} bytes, header says {nbytes}"),
                )),
                Err(e) => problems.push(problem("chunk", format!("does not decompress: {e}"))),
            }
            progress(1, 1);
        }
        Target::Frame(sc) => {
            // The fingerprint first: it names damage that decompression cannot see.
            if let Some(Ok(r)) = fingerprint(target) {
                for region in &r.damaged {
                    let (loc, what) = match region {
                        Region::Chunk(n) => (
                            format!("chunk {n}"),
                            "stored bytes differ from the frame's fingerprint (CRC-32C)",
                        ),
                        Region::Layout => (
                            "frame".to_string(),
                            "header, index and trailer no longer fit together",
                        ),
                        r => (
                            r.to_string(),
                            "differs from the frame's fingerprint (CRC-32C)",
                        ),
                    };
                    problems.push(problem(loc, what));
                }
            }
            let total = sc.nchunks();
            let chunksize = sc.chunksize();
            let variable = sc.frame().is_some_and(|f| f.header().variable_chunks) || chunksize <= 0;
            let mut nbytes_sum: i64 = 0;
            for n in 0..total {
                let loc = match sc.frame() {
                    Some(f) if f.is_sparse() => {
                        format!(
                            "chunk {n} (file {:08X}.chunk)",
                            f.offsets()[n as usize] as u32
                        )
                    }
                    Some(f) => format!("chunk {n} (offset {})", f.offsets()[n as usize]),
                    None => format!("chunk {n}"),
                };
                match sc.decompress_chunk_vec(n) {
                    Ok(data) => {
                        nbytes_sum += data.len() as i64;
                        let last = n + 1 == total;
                        if !variable
                            && (data.len() as i64 > chunksize as i64
                                || (!last && data.len() as i64 != chunksize as i64))
                        {
                            problems.push(problem(
                                loc,
                                format!(
                                    "holds {} bytes, the frame's chunk size is {chunksize}",
                                    data.len()
                                ),
                            ));
                        }
                    }
                    Err(e) => problems.push(problem(loc, format!("does not decompress: {e}"))),
                }
                progress(n + 1, total);
            }
            if problems.is_empty() && nbytes_sum != sc.nbytes() {
                problems.push(problem(
                    "frame header",
                    format!(
                        "says {} uncompressed bytes, the chunks hold {nbytes_sum}",
                        sc.nbytes()
                    ),
                ));
            }
        }
    }
    problems
}

/// The fingerprint verification of a frame (docs/FINGERPRINTS.md): None for a lone chunk.
pub fn fingerprint(target: &Target) -> Option<crate::Result<Report>> {
    match target {
        Target::Frame(sc) => sc.verify().transpose(),
        Target::Chunk(_) => None,
    }
}

// ----- recovery -----------------------------------------------------------------------------

/// What `recover` did.
#[derive(Debug, Clone)]
pub struct Recovery {
    /// Chunks written to the new frame.
    pub saved: i64,
    /// Chunks the damaged frame's header says it holds (when it says).
    pub expected: Option<i64>,
    /// Whether the index was readable (chunks taken through it) or the chunks were walked.
    pub walked: bool,
    /// Metalayers carried over.
    pub metas: usize,
    /// Vlmetalayers carried over (only with a readable trailer).
    pub vlmetas: usize,
}

/// Whether `chunk` decodes completely.
fn decodes(chunk: &[u8]) -> bool {
    let Ok(h) = ChunkHeader::parse(chunk) else {
        return false;
    };
    if h.nbytes < 0 || h.cbytes as usize != chunk.len() {
        return false;
    }
    let mut dst = vec![0u8; h.nbytes as usize];
    crate::chunk::decompress::decompress(&DParams::default(), None, chunk, &mut dst, None)
        .is_ok_and(|n| n == h.nbytes as usize)
}

/// The compression parameters a frame header records.
fn cparams_of(h: &FrameHeader) -> CParams {
    CParams {
        compcode: h.compcode,
        compcode_meta: h.compcode_meta,
        clevel: h.clevel,
        use_dict: h.use_dict,
        typesize: h.typesize,
        blocksize: h.blocksize,
        splitmode: h.splitmode as i32,
        filters: h.filters,
        filters_meta: h.filters_meta,
        ..CParams::default()
    }
}

/// Rebuilds a readable contiguous frame at `out` from the contiguous frame `damaged`, which is
/// only read. With a readable index every chunk that decodes is kept; otherwise the chunks are
/// walked from the end of the header, each checked by decoding it, up to the first that does
/// not (a cut or overwritten tail).
pub fn recover(damaged: &Path, out: &Path) -> Result<Recovery, Failure> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(damaged, out) {
        return Err(Failure::Refused("the output must not be the input".into()));
    }
    let bytes = std::fs::read(damaged)
        .map_err(|e| Failure::Missing(format!("{}: {e}", damaged.display())))?;
    if out.exists() {
        return Err(Failure::Refused(format!(
            "{}: already exists; recover writes a new file",
            out.display()
        )));
    }
    if !looks_like_frame(&bytes) {
        return Err(Failure::NotBlosc(format!(
            "{}: does not start with a contiguous frame header",
            damaged.display()
        )));
    }
    let h = FrameHeader::parse(&bytes).map_err(|e| damaged_header(damaged, e))?;
    if h.sparse {
        return Err(Failure::NotBlosc(format!(
            "{}: a sparse frame's index; recover works on contiguous frames",
            damaged.display()
        )));
    }
    let header_len = h.header_len as usize;
    let header_bytes = bytes
        .get(..header_len)
        .ok_or_else(|| damaged_header(damaged, Error::ReadBuffer))?;
    // Metalayers sit in the header, written before any chunk: keep them if they parse.
    let metas = fheader::parse_metalayers(header_bytes).unwrap_or_default();
    let expected = h.nchunks_from_sizes().ok().flatten();

    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut vlmetas: Vec<(String, Vec<u8>)> = Vec::new();
    let walked;
    match Schunk::open(damaged) {
        Ok(sc) => {
            walked = false;
            for n in 0..sc.nchunks() {
                match sc.get_chunk(n) {
                    Ok(c) if sc.decompress_chunk_vec(n).is_ok() => chunks.push(c.into_owned()),
                    _ => break,
                }
            }
            for name in sc.vlmeta_names() {
                if let Ok(v) = sc.vlmeta_get(name) {
                    vlmetas.push((name.to_string(), v));
                }
            }
        }
        Err(_) => {
            walked = true;
            // The header's cbytes bounds the chunk area (the offsets index follows it); a cut
            // file bounds it too.
            let area_end = (header_len as i64)
                .saturating_add(h.cbytes.max(0))
                .min(bytes.len() as i64) as usize;
            let mut pos = header_len;
            while pos < area_end && expected.is_none_or(|e| (chunks.len() as i64) < e) {
                let Ok(ch) = ChunkHeader::parse(&bytes[pos..area_end]) else {
                    break;
                };
                let Some(end) = pos
                    .checked_add(ch.cbytes as usize)
                    .filter(|&e| e <= area_end)
                else {
                    break;
                };
                let chunk = &bytes[pos..end];
                if !decodes(chunk) {
                    break;
                }
                if !h.variable_chunks && h.chunksize > 0 && ch.nbytes > h.chunksize {
                    break;
                }
                chunks.push(chunk.to_vec());
                pos = end;
            }
        }
    }

    let storage = Storage {
        contiguous: true,
        urlpath: Some(out.to_path_buf()),
        cparams: cparams_of(&h),
        ..Storage::default()
    };
    let write_err = |e: Error| Failure::Damaged(format!("{}: cannot write: {e}", out.display()));
    let mut sc = Schunk::new(storage).map_err(write_err)?;
    for m in &metas {
        sc.meta_add(&m.name, &m.content).map_err(write_err)?;
    }
    for (name, v) in &vlmetas {
        sc.vlmeta_add(name, v, None).map_err(write_err)?;
    }
    for c in &chunks {
        sc.append_chunk(c).map_err(write_err)?;
    }
    Ok(Recovery {
        saved: chunks.len() as i64,
        expected,
        walked,
        metas: metas.len(),
        vlmetas: vlmetas.len(),
    })
}

fn damaged_header(path: &Path, e: Error) -> Failure {
    Failure::Damaged(format!("{}: frame header unreadable: {e}", path.display()))
}
