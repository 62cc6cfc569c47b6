//! 64-bit sizes and offsets: a super-chunk of more than 4 GiB (special chunks, so nothing big is
//! allocated or written) and a frame stored past the 4 GiB mark of a file (a hole before it).

use std::io::{Seek, SeekFrom, Write};

use blosc2::chunk::header::Special;
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};

mod common;

const GIB: i64 = 1 << 30;

fn storage(contiguous: bool) -> Storage {
    Storage {
        contiguous,
        cparams: CParams {
            typesize: 8,
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn super_chunk_over_4_gib_round_trips() {
    let mut sc = Schunk::new(storage(true)).unwrap();
    let chunk_items = 8 << 20; // 64 MiB chunks
    let nitems = (5 * GIB) / 8 + 12345; // 5 GiB and a short last chunk
    sc.fill_special(nitems, Special::Zero, chunk_items * 8)
        .unwrap();
    assert_eq!(sc.nbytes(), nitems * 8);
    assert!(sc.nbytes() > 4 * GIB);
    let nchunks = sc.nchunks();
    assert_eq!(
        nchunks,
        (nitems + chunk_items as i64 - 1) / chunk_items as i64
    );

    let frame = sc.to_buffer().unwrap().into_owned();
    assert!(
        frame.len() < 4096,
        "special chunks take no space: {}",
        frame.len()
    );
    let back = Schunk::from_vec(frame).unwrap();
    assert_eq!(back.nbytes(), nitems * 8);
    assert_eq!(back.nchunks(), nchunks);
    // The last (short) chunk and a slice straddling the 4 GiB mark read as zeros.
    let last = back.decompress_chunk_vec(nchunks - 1).unwrap();
    assert_eq!(last.len() as i64, (nitems % chunk_items as i64) * 8);
    assert!(last.iter().all(|&b| b == 0));
    let mid = 4 * GIB / 8;
    let mut buf = vec![0xAAu8; 64 * 8];
    back.get_slice_buffer(mid - 32, mid + 32, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0));
}

#[test]
fn frame_past_4_gib_in_a_file_opens_at_its_offset() {
    let dir = std::env::temp_dir().join(format!("rblosc2-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.bin");
    let at = 5 * GIB as u64 + 7;
    {
        let mut f = std::fs::File::create(&path).unwrap();
        f.seek(SeekFrom::Start(at - 1)).unwrap();
        f.write_all(b"x").unwrap(); // a hole up to here: no disk space used
    }
    let data: Vec<u8> = (0..100_000u64)
        .flat_map(|i| (i * 3).to_le_bytes())
        .collect();
    let mut sc = Schunk::new(storage(true)).unwrap();
    for part in data.chunks(80_000) {
        sc.append_buffer(part).unwrap();
    }
    let offset = sc.append_file(&path).unwrap();
    assert_eq!(offset as u64, at);
    let back = Schunk::open_offset(&path, offset).unwrap();
    assert_eq!(back.nchunks(), sc.nchunks());
    let mut out = Vec::new();
    for i in 0..back.nchunks() {
        out.extend(back.decompress_chunk_vec(i).unwrap());
    }
    assert_eq!(out, data);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A contiguous frame whose index holds offsets of real (not special) chunks past the 4 GiB
/// mark: the frame's data area starts with a 4 GiB hole (dead space, as updates in place can
/// leave), so the file is sparse and takes a few KiB of disk. Read by us and by the reference
/// (`tests/frames_ref/gen.c dump`, compared as in frames_by_reference.rs); skipped with a message
/// when the filesystem cannot hold a sparse file or the reference is unavailable.
#[test]
fn frame_index_with_chunk_offsets_past_4_gib() {
    use blosc2::chunk::Compressor;
    // Where the contiguous-frame header keeps the frame length and the compressed size (the
    // values after their msgpack markers, big-endian; see the cframe format).
    const POS_FRAME_LEN: usize = 16;
    const POS_CBYTES: usize = 39;

    let dir = std::env::temp_dir().join(format!("rblosc2-large-index-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("far.b2frame");

    // A small frame: three real chunks and a zeros chunk.
    let data: Vec<u8> = (0..30_000u64)
        .flat_map(|i| (i * 7 + i % 13).to_le_bytes())
        .collect();
    let mut sc = Schunk::new(storage(true)).unwrap();
    for part in data.chunks(80_000) {
        sc.append_buffer(part).unwrap();
    }
    sc.append_buffer(&[0u8; 80_000]).unwrap();
    let frame = sc.to_buffer().unwrap().into_owned();
    let f = sc.frame().unwrap();
    let header_len = f.header().header_len as usize;
    let cbytes = f.header().cbytes as usize;
    let old_offsets = f.offsets().to_vec();
    let index_at = header_len + cbytes;
    let index_len =
        u32::from_le_bytes(frame[index_at + 12..index_at + 16].try_into().unwrap()) as usize;
    let trailer = &frame[index_at + index_len..];

    // The same frame with GAP bytes of dead space before its chunks.
    let gap = 4 * GIB + 4096;
    let new_offsets: Vec<i64> = old_offsets
        .iter()
        .map(|&o| if o >= 0 { o + gap } else { o })
        .collect();
    assert!(new_offsets.iter().filter(|&&o| o > u32::MAX as i64).count() >= 3);
    // The index is a chunk of the 64-bit offsets; any valid chunk does for readers.
    let raw: Vec<u8> = new_offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let mut index = vec![0u8; raw.len() + 64];
    let n = Compressor::new(CParams {
        typesize: 8,
        ..Default::default()
    })
    .unwrap()
    .compress(&raw, &mut index)
    .unwrap();
    index.truncate(n);
    let new_cbytes = gap + cbytes as i64;
    let new_len = (header_len + index.len() + trailer.len()) as i64 + new_cbytes;
    let mut header = frame[..header_len].to_vec();
    header[POS_CBYTES..POS_CBYTES + 8].copy_from_slice(&new_cbytes.to_be_bytes());
    header[POS_FRAME_LEN..POS_FRAME_LEN + 8].copy_from_slice(&new_len.to_be_bytes());
    let written = (|| -> std::io::Result<()> {
        let mut out = std::fs::File::create(&path)?;
        out.write_all(&header)?;
        out.seek(SeekFrom::Start(header_len as u64 + gap as u64))?;
        out.write_all(&frame[header_len..index_at])?;
        out.write_all(&index)?;
        out.write_all(trailer)?;
        Ok(())
    })();
    let sparse = written.is_ok() && {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(&path).unwrap();
        meta.len() == new_len as u64 && meta.blocks() * 512 < (64 << 20)
    };
    if !sparse {
        eprintln!("SKIPPED: the temporary filesystem cannot hold a sparse 4 GiB file");
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }

    let back = Schunk::open(&path).unwrap();
    assert_eq!(back.nchunks(), sc.nchunks());
    assert_eq!(back.frame().unwrap().offsets(), &new_offsets[..]);
    let mut out = Vec::new();
    for i in 0..back.nchunks() {
        out.extend(back.decompress_chunk_vec(i).unwrap());
    }
    assert_eq!(&out[..data.len()], &data[..]);
    assert!(out[data.len()..].iter().all(|&b| b == 0));
    let ours = common::describe(&back);

    if let Some(gen) = common::dumper(&dir) {
        let dumped = std::process::Command::new(&gen)
            .arg("dump")
            .arg(&path)
            .output()
            .unwrap();
        assert!(dumped.status.success());
        let theirs: Vec<String> = String::from_utf8(dumped.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_once(' ').unwrap().1.trim_end().to_string())
            .collect();
        assert_eq!(ours, theirs);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
