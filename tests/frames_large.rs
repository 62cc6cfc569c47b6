//! 64-bit sizes and offsets: a super-chunk of more than 4 GiB (special chunks, so nothing big is
//! allocated or written) and a frame stored past the 4 GiB mark of a file (a hole before it).

use std::io::{Seek, SeekFrom, Write};

use blosc2::chunk::header::Special;
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};

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
