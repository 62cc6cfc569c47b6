//! Frames we write are byte-identical to the ones c-blosc2 3.3.5 writes for the same sequence
//! of operations (`tests/frames_ref/gen.c write` produced `tests/data/frames/ref/`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use blosc2::chunk::header::{Special, EXTENDED_HEADER_LENGTH};
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};
use blosc2::Error;

const CHUNK_ITEMS: usize = 10000;

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/frames/ref")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("rblosc2-fw-{}-{name}", std::process::id()));
    let _ = blosc2::urlpath::remove_urlpath(&p);
    p
}

/// The test data of gen.c: item i of chunk `seed`.
fn fill(items: usize, seed: i32) -> Vec<u8> {
    (0..items as i32)
        .flat_map(|i| (seed * 1000 + i * (seed + 1) + (i % 7) * 3).to_le_bytes())
        .collect()
}

fn storage(urlpath: Option<&Path>, contiguous: bool, typesize: i32) -> Storage {
    Storage {
        contiguous,
        urlpath: urlpath.map(Path::to_path_buf),
        cparams: CParams {
            typesize,
            compcode: blosc2::codecs::LZ4,
            clevel: 5,
            ..CParams::default()
        },
        ..Storage::default()
    }
}

fn append_data(sc: &mut Schunk, nchunks: usize, last_items: usize) {
    for c in 0..nchunks {
        let items = if c == nchunks - 1 && last_items > 0 {
            last_items
        } else {
            CHUNK_ITEMS
        };
        sc.append_buffer(&fill(items, c as i32)).unwrap();
    }
}

fn special(kind: Special, value: Option<&[u8]>) -> Vec<u8> {
    let params = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH + 8];
    let n = blosc2::chunk::special::make(&params, kind, (CHUNK_ITEMS * 4) as i32, value, &mut buf)
        .unwrap();
    buf.truncate(n);
    buf
}

const META1: [u8; 4] = [0x93, 1, 2, 3];
const VL: &str = "a variable-length metalayer: {\"k\": [1, 2, 3]}";

#[test]
fn cframe_file_with_metalayers_is_byte_identical() {
    let path = scratch("cframe_meta.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), true, 4)).unwrap();
    sc.meta_add("m1", &META1).unwrap();
    let meta2: Vec<u8> = (0..40).collect();
    sc.meta_add("second", &meta2).unwrap();
    append_data(&mut sc, 3, 1234);
    sc.vlmeta_add("vl1", VL.as_bytes(), None).unwrap();
    sc.vlmeta_add("empty", b"", None).unwrap();
    drop(sc);
    let ours = std::fs::read(&path).unwrap();
    assert_eq!(
        ours,
        std::fs::read(reference("cframe_meta.b2frame")).unwrap()
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn memory_frame_with_special_chunks_is_byte_identical() {
    let mut sc = Schunk::new(storage(None, true, 4)).unwrap();
    append_data(&mut sc, 1, 0);
    sc.append_chunk(&special(Special::Zero, None)).unwrap();
    sc.append_chunk(&special(Special::Nan, None)).unwrap();
    sc.append_chunk(&special(Special::Uninit, None)).unwrap();
    sc.append_chunk(&special(Special::Value, Some(&0x01020304i32.to_le_bytes())))
        .unwrap();
    sc.append_buffer(&fill(CHUNK_ITEMS, 9)).unwrap();
    let ours = sc.to_buffer().unwrap();
    assert_eq!(
        &*ours,
        &std::fs::read(reference("memory_special.b2frame")).unwrap()[..]
    );
    // A plain list of chunks serialises to the same frame.
    let mut list = Schunk::new(storage(None, false, 4)).unwrap();
    for n in 0..sc.nchunks() {
        list.append_chunk(&sc.get_chunk(n).unwrap()).unwrap();
    }
    assert_eq!(list.to_buffer().unwrap(), ours);
}

#[test]
fn empty_frame_is_byte_identical() {
    let mut sc = Schunk::new(storage(None, true, 8)).unwrap();
    sc.meta_add("empty", &META1).unwrap();
    assert_eq!(
        &*sc.to_buffer().unwrap(),
        &std::fs::read(reference("empty.b2frame")).unwrap()[..]
    );
}

/// Asserts that the directories hold the same files with the same bytes.
fn assert_same_dir(ours: &Path, theirs: &Path) {
    let list = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    let names = list(theirs);
    assert_eq!(list(ours), names);
    for name in names {
        assert_eq!(
            std::fs::read(ours.join(&name)).unwrap(),
            std::fs::read(theirs.join(&name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn edited_sframe_is_byte_identical() {
    let path = scratch("sframe_edited.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), false, 4)).unwrap();
    append_data(&mut sc, 4, 0);
    let compress = |seed| {
        let mut list = Schunk::new(storage(None, false, 4)).unwrap();
        list.append_buffer(&fill(CHUNK_ITEMS, seed)).unwrap();
        list.get_chunk(0).unwrap().into_owned()
    };
    sc.insert_chunk(1, &compress(42)).unwrap();
    let c77 = compress(77);
    sc.update_chunk(3, &c77).unwrap();
    sc.update_chunk(0, &special(Special::Zero, None)).unwrap();
    sc.delete_chunk(1).unwrap();
    sc.update_chunk(0, &c77).unwrap();
    assert_eq!(sc.cbytes(), 12652);
    drop(sc);
    assert_same_dir(&path, &reference("sframe_edited.b2frame"));
    blosc2::urlpath::remove_urlpath(&path).unwrap();
}

#[test]
fn sframe_directory_is_byte_identical() {
    let path = scratch("sframe.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), false, 4)).unwrap();
    sc.meta_add("m1", &META1).unwrap();
    append_data(&mut sc, 3, 500);
    sc.vlmeta_add("vl1", VL.as_bytes(), None).unwrap();
    drop(sc);
    assert_same_dir(&path, &reference("sframe.b2frame"));
    blosc2::urlpath::remove_urlpath(&path).unwrap();
}

#[test]
fn edited_cframe_is_byte_identical() {
    let path = scratch("edited.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), true, 4)).unwrap();
    append_data(&mut sc, 4, 0);
    let compress = |sc: &Schunk, seed| {
        let mut list = Schunk::new(storage(None, false, 4)).unwrap();
        let _ = sc;
        list.append_buffer(&fill(CHUNK_ITEMS, seed)).unwrap();
        list.get_chunk(0).unwrap().into_owned()
    };
    let c42 = compress(&sc, 42);
    sc.insert_chunk(1, &c42).unwrap();
    let c77 = compress(&sc, 77);
    sc.update_chunk(3, &c77).unwrap();
    sc.delete_chunk(0).unwrap();
    drop(sc);
    let ours = std::fs::read(&path).unwrap();
    let theirs = std::fs::read(reference("edited.b2frame")).unwrap();
    assert_eq!(ours.len(), theirs.len());
    assert_eq!(ours, theirs);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn fill_special_frame_is_byte_identical() {
    let mut sc = Schunk::new(storage(None, true, 4)).unwrap();
    assert_eq!(
        sc.fill_special(25000, Special::Zero, (CHUNK_ITEMS * 4) as i32),
        Ok(3)
    );
    assert_eq!(
        &*sc.to_buffer().unwrap(),
        &std::fs::read(reference("fill_special.b2frame")).unwrap()[..]
    );
    assert_eq!(
        sc.fill_special(10, Special::Zero, 40),
        Err(Error::FrameSpecial)
    );
}

#[test]
fn frames_round_trip_through_file_buffer_and_offset() {
    let mut sc = Schunk::new(storage(None, false, 4)).unwrap();
    append_data(&mut sc, 3, 77);
    sc.meta_add("m", &META1).unwrap();
    sc.vlmeta_add("v", b"hello", None).unwrap();
    let buf = sc.to_buffer().unwrap().into_owned();
    let back = Schunk::from_buffer(Arc::new(buf.clone()), false).unwrap();
    assert_eq!(back.meta_get("m").unwrap(), &META1);
    assert_eq!(back.vlmeta_get("v").unwrap(), b"hello");
    let file = scratch("roundtrip.b2frame");
    assert_eq!(back.to_file(&file).unwrap(), buf.len() as i64);
    std::fs::write(&file, b"some leading bytes").unwrap();
    let at = back.append_file(&file).unwrap();
    assert_eq!(at, 18);
    let reopened = Schunk::open_offset(&file, at).unwrap();
    for n in 0..3 {
        assert_eq!(
            reopened.decompress_chunk_vec(n).unwrap(),
            sc.decompress_chunk_vec(n).unwrap()
        );
    }
    assert!(Schunk::open(&file).is_err());
    std::fs::remove_file(&file).unwrap();

    // As c-blosc2 ("ab"): appending to a missing file creates it, the frame at offset 0; a second
    // append lands after the first; a missing directory is a FileOpen error.
    assert_eq!(back.append_file(&file).unwrap(), 0);
    assert_eq!(back.append_file(&file).unwrap(), buf.len() as i64);
    let second = Schunk::open_offset(&file, buf.len() as i64).unwrap();
    assert_eq!(
        second.decompress_chunk_vec(2).unwrap(),
        sc.decompress_chunk_vec(2).unwrap()
    );
    assert_eq!(Schunk::open(&file).unwrap().nchunks(), 3);
    let no_dir = scratch("missing-dir").join("x.b2frame");
    assert_eq!(back.append_file(&no_dir), Err(Error::FileOpen));
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn updates_that_grow_shrink_and_turn_special_are_byte_identical() {
    let path = scratch("edited2.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), true, 4)).unwrap();
    append_data(&mut sc, 4, 0);
    let compress = |src: &[u8]| {
        let mut list = Schunk::new(storage(None, false, 4)).unwrap();
        list.append_buffer(src).unwrap();
        list.get_chunk(0).unwrap().into_owned()
    };
    let mut x: u32 = 12345;
    let noisy: Vec<u8> = (0..CHUNK_ITEMS)
        .flat_map(|_| {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            ((x >> 8) as i32).to_le_bytes()
        })
        .collect();
    sc.update_chunk(1, &compress(&noisy)).unwrap();
    sc.update_chunk(2, &compress(&5i32.to_le_bytes().repeat(CHUNK_ITEMS)))
        .unwrap();
    sc.update_chunk(0, &special(Special::Zero, None)).unwrap();
    sc.update_chunk(0, &compress(&fill(CHUNK_ITEMS, 33)))
        .unwrap();
    sc.delete_chunk(3).unwrap();
    assert_eq!(sc.cbytes(), 36591);
    drop(sc);
    let ours = std::fs::read(&path).unwrap();
    let theirs = std::fs::read(reference("edited2.b2frame")).unwrap();
    assert_eq!(ours.len(), theirs.len());
    assert_eq!(ours, theirs);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn slices_and_copies_across_storages() {
    let dir = scratch("copies");
    std::fs::create_dir_all(&dir).unwrap();
    let mut sc = Schunk::new(storage(None, true, 4)).unwrap();
    sc.meta_add("m", b"meta").unwrap();
    append_data(&mut sc, 3, 2500);
    // Metalayers go in the header: none can be added once chunks follow it.
    assert_eq!(sc.meta_add("late", b"x"), Err(Error::InvalidParam));
    assert_eq!(sc.vlmeta_add("v", b"vl content", None), Ok(0));
    let total: Vec<u8> = (0..3)
        .flat_map(|c| fill(if c == 2 { 2500 } else { CHUNK_ITEMS }, c))
        .collect();
    // set_slice_buffer across a chunk boundary, then get_slice_buffer sees it.
    let patch: Vec<u8> = (0..400u32).flat_map(|i| (i * 7).to_le_bytes()).collect();
    sc.set_slice_buffer(9900, 10300, &patch).unwrap();
    let mut expect = total.clone();
    expect[9900 * 4..10300 * 4].copy_from_slice(&patch);
    let mut got = vec![0u8; expect.len()];
    sc.get_slice_buffer(0, (expect.len() / 4) as i64, &mut got)
        .unwrap();
    assert_eq!(got, expect);
    assert_eq!(
        sc.get_slice_buffer(0, (expect.len() / 4 + 1) as i64, &mut got),
        Err(Error::InvalidParam)
    );
    // Copies into every storage, with the same or other parameters, hold the same data.
    let targets = [
        (None, false),
        (None, true),
        (Some(dir.join("c.b2frame")), true),
        (Some(dir.join("s.b2frame")), false),
    ];
    for (urlpath, contiguous) in targets {
        for clevel in [5, 9] {
            let _ = urlpath.as_ref().map(|p| blosc2::urlpath::remove_urlpath(p));
            let mut st = storage(urlpath.as_deref(), contiguous, 4);
            st.cparams.clevel = clevel;
            st.cparams.compcode = if clevel == 9 {
                blosc2::codecs::ZSTD
            } else {
                blosc2::codecs::LZ4
            };
            let copy = sc.copy(st).unwrap();
            assert_eq!(copy.meta_get("m").unwrap(), b"meta");
            assert_eq!(copy.vlmeta_get("v").unwrap(), b"vl content");
            let mut got = vec![0u8; expect.len()];
            copy.get_slice_buffer(0, (expect.len() / 4) as i64, &mut got)
                .unwrap();
            assert_eq!(got, expect, "{urlpath:?} {contiguous} {clevel}");
            assert_eq!(copy.cparams().clevel, clevel);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An update in a frame file moves the chunks after the updated one in groups, through staging
/// areas past the frame's end (docs/CRASH-SAFETY.md): whether the chunk grows or shrinks, the
/// groups overlap their old places or not, are held in memory or larger than 1 MiB, the file
/// ends with the bytes the same updates leave in a frame in memory (written in c-blosc2's
/// order), and reads back.
#[test]
fn file_updates_in_groups_leave_the_bytes_of_memory_frames() {
    const ITEMS: usize = 300_000;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut random = || -> Vec<u8> {
        (0..ITEMS)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ((x >> 32) as u32).to_le_bytes()
            })
            .collect()
    };
    let zeros = {
        let params = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH];
        let n = blosc2::chunk::special::make(
            &params,
            Special::Zero,
            (ITEMS * 4) as i32,
            None,
            &mut buf,
        )
        .unwrap();
        buf.truncate(n);
        buf
    };
    let compress = |src: &[u8]| {
        let mut list = Schunk::new(storage(None, false, 4)).unwrap();
        list.append_buffer(src).unwrap();
        list.get_chunk(0).unwrap().into_owned()
    };
    let path = scratch("grouped-update.b2frame");
    let mut file = Schunk::new(storage(Some(&path), true, 4)).unwrap();
    let mut memory = Schunk::new(storage(None, true, 4)).unwrap();
    // Compressible chunks of a few KB, and incompressible ones of 1.2 MB (a group each).
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    for i in 0..12 {
        chunks.push(if i % 3 == 1 {
            compress(&random())
        } else {
            compress(&fill(ITEMS, i))
        });
    }
    for c in &chunks {
        file.append_chunk(c).unwrap();
        memory.append_chunk(c).unwrap();
    }
    let big = compress(&random());
    let other_big = compress(&random());
    let updates: Vec<(i64, Vec<u8>)> = vec![
        // A few bytes more or less: every group overlaps its old place.
        (0, compress(&fill(ITEMS, 40))),
        (2, compress(&fill(ITEMS, 7))),
        // 1.2 MB more, then less: the three small chunks after chunk 9 move past their old place.
        (9, big.clone()),
        (9, zeros.clone()),
        (9, compress(&fill(ITEMS, 9))),
        // A big chunk replaced by one of the same size (nothing moves), then by a small one.
        (4, other_big),
        (1, compress(&fill(ITEMS, 55))),
        (1, big),
        // The last chunk: nothing after it.
        (11, zeros),
    ];
    for (n, chunk) in &updates {
        file.update_chunk(*n, chunk).unwrap();
        memory.update_chunk(*n, chunk).unwrap();
        chunks[*n as usize] = chunk.clone();
        let on_disk = std::fs::read(&path).unwrap();
        let in_memory = memory.to_buffer().unwrap();
        assert_eq!(on_disk.len(), in_memory.len(), "after updating chunk {n}");
        assert!(on_disk[..] == in_memory[..], "after updating chunk {n}");
    }
    drop(file);
    let back = Schunk::open(&path).unwrap();
    let mut out = vec![0u8; ITEMS * 4];
    let mut want = vec![0u8; ITEMS * 4];
    for (n, chunk) in chunks.iter().enumerate() {
        let n = n as i64;
        assert!(back.get_chunk(n).unwrap()[..] == chunk[..], "chunk {n}");
        back.decompress_chunk(n, &mut out, None).unwrap();
        memory.decompress_chunk(n, &mut want, None).unwrap();
        assert!(out == want, "chunk {n}");
    }
    std::fs::remove_file(&path).unwrap();
}
