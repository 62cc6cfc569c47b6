//! Frame fingerprints (docs/FINGERPRINTS.md): kept current by every change, off by default,
//! and every flipped bit or byte of a fingerprinted frame found by `verify` (which names the
//! damaged region or chunk) and refused by verified reads.

use std::path::{Path, PathBuf};

use blosc2::chunk::header::Special;
use blosc2::chunk::CParams;
use blosc2::frame::fingerprint::{Absent, Region, Report};
use blosc2::schunk::{FingerprintMode, Schunk, Storage};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("rblosc2-fp-{}-{name}", std::process::id()));
    let _ = blosc2::urlpath::remove_urlpath(&p);
    p
}

fn storage(urlpath: Option<&Path>, contiguous: bool) -> Storage {
    Storage {
        contiguous,
        urlpath: urlpath.map(Path::to_path_buf),
        cparams: CParams {
            typesize: 4,
            compcode: blosc2::codecs::LZ4,
            clevel: 5,
            ..CParams::default()
        },
        ..Storage::default()
    }
}

/// `items` int32 values of chunk `seed`, compressible but not trivially.
fn data(items: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..items as u32)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (i / 3 + seed * 7 + (x & 0x3)).to_le_bytes()
        })
        .collect()
}

/// Every chunk decompresses to what was stored.
fn check_data(sc: &Schunk, expect: &[Vec<u8>]) {
    assert_eq!(sc.nchunks() as usize, expect.len());
    for (n, want) in expect.iter().enumerate() {
        let mut out = vec![0u8; want.len()];
        sc.decompress_chunk(n as i64, &mut out, None).unwrap();
        assert_eq!(&out, want, "chunk {n}");
    }
}

fn intact(sc: &Schunk) -> Report {
    let r = sc.verify().unwrap().expect("a frame");
    assert!(r.intact(), "{r:?}");
    r
}

/// A fingerprinted super-chunk with a metalayer, chunks and vlmetalayers, changed by every
/// kind of operation; returns the data its chunks hold.
fn build(sc: &mut Schunk, nchunks: usize, items: usize) -> Vec<Vec<u8>> {
    sc.set_fingerprint_mode(FingerprintMode::On).unwrap();
    sc.meta_add("meta1", b"\x93\x01\x02\x03").unwrap();
    intact(sc);
    let mut expect = Vec::new();
    for c in 0..nchunks {
        let d = data(items, c as u32);
        sc.append_buffer(&d).unwrap();
        expect.push(d);
        intact(sc);
    }
    sc.vlmeta_add("vl1", b"some user vlmetadata", None).unwrap();
    sc.vlmeta_add("vl2", &[7u8; 300], None).unwrap();
    intact(sc);
    expect
}

#[test]
fn every_operation_keeps_the_fingerprint() {
    let file = scratch("ops.b2frame");
    let dir = scratch("ops.b2sframe");
    for (label, st) in [
        ("memory", storage(None, true)),
        ("cframe file", storage(Some(&file), true)),
        ("sframe", storage(Some(&dir), false)),
    ] {
        let mut sc = Schunk::new(st).unwrap();
        let mut expect = build(&mut sc, 6, 5000);
        // Update: bigger, smaller, special, regular again.
        let big = data(5000, 99)
            .iter()
            .map(|b| b.wrapping_mul(31))
            .collect::<Vec<_>>();
        for (n, d) in [(1usize, big), (3, vec![0u8; 20000]), (4, data(5000, 77))] {
            let chunk = compress(&sc, &d);
            sc.update_chunk(n as i64, &chunk).unwrap();
            expect[n] = d;
            intact(&sc);
        }
        let zeros = special_chunk(Special::Zero, 20000);
        sc.update_chunk(2, &zeros).unwrap();
        expect[2] = vec![0u8; 20000];
        intact(&sc);
        sc.update_chunk(2, &compress(&sc, &data(5000, 5))).unwrap();
        expect[2] = data(5000, 5);
        intact(&sc);
        // Neighbouring chunks rewritten by one call (one kill-safe pass in a frame file).
        let run: Vec<Vec<u8>> = (0..3).map(|k| data(5000, 40 + k)).collect();
        let chunks: Vec<Vec<u8>> = run.iter().map(|d| compress(&sc, d)).collect();
        let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
        sc.update_chunks(1, &refs).unwrap();
        for (k, d) in run.into_iter().enumerate() {
            expect[1 + k] = d;
        }
        check_data(&sc, &expect);
        intact(&sc);
        // Insert, delete, reorder.
        sc.insert_chunk(1, &compress(&sc, &data(5000, 55))).unwrap();
        expect.insert(1, data(5000, 55));
        intact(&sc);
        sc.insert_chunk(0, &zeros).unwrap();
        expect.insert(0, vec![0u8; 20000]);
        intact(&sc);
        sc.delete_chunk(3).unwrap();
        expect.remove(3);
        intact(&sc);
        let n = expect.len() as i64;
        let order: Vec<i64> = (0..n).rev().collect();
        sc.reorder_offsets(&order).unwrap();
        expect.reverse();
        intact(&sc);
        // Metalayer and vlmetalayer changes.
        sc.meta_update("meta1", b"\x93\x04\x05\x06").unwrap();
        sc.vlmeta_update("vl1", &[1u8; 2000], None).unwrap();
        sc.vlmeta_delete("vl2").unwrap();
        intact(&sc);
        check_data(&sc, &expect);
        assert_eq!(
            sc.vlmeta_names(),
            vec!["vl1"],
            "{label}: the table stays hidden"
        );
        // Reopened, it still holds, and keeps it through more changes.
        let mut again = match label {
            "memory" => Schunk::from_vec(sc.to_buffer().unwrap().into_owned()).unwrap(),
            "cframe file" => Schunk::open(&file).unwrap(),
            _ => Schunk::open(&dir).unwrap(),
        };
        assert!(again.fingerprinted(), "{label}");
        assert_eq!(again.fingerprint_mode(), FingerprintMode::On);
        again.append_buffer(&data(5000, 1234)).unwrap();
        expect.push(data(5000, 1234));
        let r = intact(&again);
        let stored = again
            .frame()
            .unwrap()
            .offsets()
            .iter()
            .filter(|&&o| o >= 0)
            .count();
        assert!(
            stored < expect.len(),
            "{label}: special chunks are not checked"
        );
        assert_eq!(r.chunks_checked, stored as i64, "{label}");
        check_data(&again, &expect);
        // Turned off: written as c-blosc2 writes, and verify says there is none.
        again.set_fingerprint_mode(FingerprintMode::Off).unwrap();
        let r = again.verify().unwrap().unwrap();
        assert_eq!(r.absent, Some(Absent::Never), "{label}");
        assert_eq!(again.vlmeta_names(), vec!["vl1"]);
        // And on again: every stored chunk is read once.
        again.set_fingerprint_mode(FingerprintMode::On).unwrap();
        intact(&again);
        drop(again);
        drop(sc);
        let _ = blosc2::urlpath::remove_urlpath(&file);
        let _ = blosc2::urlpath::remove_urlpath(&dir);
    }
}

fn compress(sc: &Schunk, d: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; d.len() + 64];
    let n = sc.compressor().compress(d, &mut out).unwrap();
    out.truncate(n);
    out
}

fn special_chunk(kind: Special, nbytes: i32) -> Vec<u8> {
    let params = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut c = vec![0u8; 32];
    blosc2::chunk::special::make(&params, kind, nbytes, None, &mut c).unwrap();
    c
}

#[test]
fn off_by_default_and_byte_identical() {
    let mut plain = Schunk::new(storage(None, true)).unwrap();
    let mut fp = Schunk::new(storage(None, true)).unwrap();
    fp.set_fingerprint_mode(FingerprintMode::On).unwrap();
    fp.set_fingerprint_mode(FingerprintMode::Off).unwrap();
    for sc in [&mut plain, &mut fp] {
        assert_eq!(sc.fingerprint_mode(), FingerprintMode::Off);
        sc.append_buffer(&data(1000, 1)).unwrap();
        sc.vlmeta_add("v", b"x", None).unwrap();
    }
    assert_eq!(plain.to_buffer().unwrap(), fp.to_buffer().unwrap());
    assert_eq!(plain.verify().unwrap().unwrap().absent, Some(Absent::Never));
}

/// The regions of a contiguous frame: (header end, data end, index end, frame end).
fn regions(frame: &[u8]) -> (usize, usize, usize) {
    let hl = u32::from_be_bytes(frame[11..15].try_into().unwrap()) as usize;
    let cbytes = i64::from_be_bytes(frame[39..47].try_into().unwrap()) as usize;
    let idx_cbytes = i32::from_le_bytes(
        frame[hl + cbytes + 12..hl + cbytes + 16]
            .try_into()
            .unwrap(),
    );
    (hl, hl + cbytes, hl + cbytes + idx_cbytes as usize)
}

/// The chunk whose stored bytes hold position `pos` of a contiguous frame, if any.
fn chunk_at(sc: &Schunk, pos: usize) -> Option<i64> {
    let f = sc.frame().unwrap();
    let hl = f.header().header_len as usize;
    f.offsets().iter().enumerate().find_map(|(n, &o)| {
        if o < 0 {
            return None;
        }
        let start = hl + o as usize;
        let len = f.chunk_header(n as i64).ok()?.cbytes as usize;
        (start..start + len).contains(&pos).then_some(n as i64)
    })
}

/// What a damaged copy must show: verify finds damage (or the frame does not open at all),
/// and with verified reads every chunk whose bytes were hit (`hit`) is refused.
fn check_damaged(opened: blosc2::Result<Schunk>, hit: Option<i64>, what: &str) -> Option<Region> {
    let mut sc = match opened {
        Err(_) => return Some(Region::Layout),
        Ok(sc) => sc,
    };
    let r = sc.verify().unwrap().unwrap();
    assert!(
        r.absent.is_none() && !r.damaged.is_empty(),
        "{what}: not detected: {r:?}"
    );
    if let Some(n) = hit {
        assert!(
            r.damaged.contains(&Region::Chunk(n)),
            "{what}: chunk {n} not named: {r:?}"
        );
    }
    sc.set_fingerprint_mode(FingerprintMode::Verify).unwrap();
    if let Some(n) = hit {
        let mut out = vec![0u8; 1 << 20];
        assert!(
            sc.decompress_chunk(n, &mut out, None).is_err(),
            "{what}: damaged chunk {n} read"
        );
        assert!(sc.get_chunk(n).is_err(), "{what}: damaged chunk {n} got");
        assert!(sc.get_lazychunk(n).is_err(), "{what}: lazy {n}");
    }
    r.damaged.first().copied()
}

#[test]
fn every_bit_of_a_small_cframe_in_memory() {
    let mut sc = Schunk::new(storage(None, true)).unwrap();
    let expect = build(&mut sc, 3, 300);
    let frame = sc.to_buffer().unwrap().into_owned();
    let (hl, data_end, idx_end) = regions(&frame);
    let mut by_region = std::collections::BTreeMap::new();
    for bit in 0..frame.len() * 8 {
        let pos = bit / 8;
        let mut copy = frame.clone();
        copy[pos] ^= 1 << (bit % 8);
        let hit = if (hl..data_end).contains(&pos) {
            chunk_at(&sc, pos)
        } else {
            None
        };
        let first = check_damaged(Schunk::from_vec(copy), hit, &format!("bit {bit}"));
        *by_region
            .entry(format!(
                "{:?}",
                first.map(|r| match r {
                    Region::Chunk(_) => Region::Chunk(0),
                    r => r,
                })
            ))
            .or_insert(0) += 1;
    }
    eprintln!(
        "{} bits of a {}-byte frame (header {hl}, data {}, index {}, trailer {}): {by_region:?}",
        frame.len() * 8,
        frame.len(),
        data_end - hl,
        idx_end - data_end,
        frame.len() - idx_end
    );
    // The original still reads.
    check_data(&Schunk::from_vec(frame).unwrap(), &expect);
}

/// Flips position `pos` of the file at `path` with `mask`, runs `f`, restores it.
fn with_flipped<R>(path: &Path, pos: u64, mask: u8, f: impl FnOnce() -> R) -> R {
    use std::os::unix::fs::FileExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut b = [0u8];
    file.read_exact_at(&mut b, pos).unwrap();
    file.write_all_at(&[b[0] ^ mask], pos).unwrap();
    let r = f();
    file.write_all_at(&b, pos).unwrap();
    r
}

/// A tiny deterministic generator for sampled positions and bits.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn every_byte_of_a_small_cframe_file() {
    let path = scratch("small.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), true)).unwrap();
    let expect = build(&mut sc, 3, 400);
    drop(sc);
    let sc = Schunk::open(&path).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    let hl = sc.frame().unwrap().header().header_len as usize;
    let data_end = hl + sc.frame().unwrap().header().cbytes as usize;
    for pos in 0..len {
        let hit = (hl..data_end)
            .contains(&(pos as usize))
            .then(|| chunk_at(&sc, pos as usize))
            .flatten();
        with_flipped(&path, pos, 0xff, || {
            check_damaged(Schunk::open(&path), hit, &format!("byte {pos}"));
        });
    }
    check_data(&Schunk::open(&path).unwrap(), &expect);
    intact(&Schunk::open(&path).unwrap());
    let _ = std::fs::remove_file(&path);
}

#[test]
fn ten_thousand_positions_of_a_large_cframe_file() {
    let path = scratch("large.b2frame");
    let mut sc = Schunk::new(storage(Some(&path), true)).unwrap();
    let expect = build(&mut sc, 48, 16384);
    drop(sc);
    let sc = Schunk::open(&path).unwrap();
    let f = sc.frame().unwrap();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let hl = f.header().header_len as usize;
    let data_end = hl + f.header().cbytes as usize;
    // Every byte of header, index and trailer, and chunk bytes spread over the data section
    // up to 10,000 positions or more; one random bit each.
    let mut positions: Vec<usize> = (0..hl).chain(data_end..len).collect();
    let outside = positions.len();
    let step = ((data_end - hl) / (10_000 - outside.min(9_000))).max(1);
    positions.extend((hl..data_end).step_by(step));
    assert!(positions.len() >= 10_000, "{}", positions.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut chunks_hit = std::collections::BTreeSet::new();
    for &pos in &positions {
        let hit = (hl..data_end)
            .contains(&pos)
            .then(|| chunk_at(&sc, pos))
            .flatten();
        if let Some(n) = hit {
            chunks_hit.insert(n);
        }
        let bit = 1u8 << (rng.next() % 8);
        with_flipped(&path, pos as u64, bit, || {
            check_damaged(
                Schunk::open(&path),
                hit,
                &format!("byte {pos} bit {bit:#x}"),
            );
        });
    }
    eprintln!(
        "{} positions of a {len}-byte frame ({outside} in header/index/trailer), {} chunks hit",
        positions.len(),
        chunks_hit.len()
    );
    assert_eq!(chunks_hit.len(), 48);
    check_data(&Schunk::open(&path).unwrap(), &expect);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn every_bit_of_an_sframe_index_and_chunk_files() {
    let dir = scratch("flip.b2sframe");
    let mut sc = Schunk::new(storage(Some(&dir), false)).unwrap();
    let expect = build(&mut sc, 4, 600);
    // An update goes to a new chunk file with fingerprints on.
    sc.update_chunk(1, &compress(&sc, &expect[1])).unwrap();
    drop(sc);
    let sc = Schunk::open(&dir).unwrap();
    let index = dir.join(blosc2::frame::SFRAME_INDEX);
    let ilen = std::fs::metadata(&index).unwrap().len();
    for bit in 0..ilen * 8 {
        with_flipped(&index, bit / 8, 1 << (bit % 8), || {
            check_damaged(Schunk::open(&dir), None, &format!("index bit {bit}"));
        });
    }
    let mut checked = 0;
    for (n, &id) in sc.frame().unwrap().offsets().iter().enumerate() {
        let file = blosc2::frame::sframe_chunk_path(&dir, id);
        let flen = std::fs::metadata(&file).unwrap().len();
        for pos in 0..flen {
            with_flipped(&file, pos, 0xff, || {
                check_damaged(
                    Schunk::open(&dir),
                    Some(n as i64),
                    &format!("chunk {n} byte {pos}"),
                );
            });
            checked += 1;
        }
    }
    eprintln!(
        "sframe: {} index bits, {checked} chunk-file bytes",
        ilen * 8
    );
    check_data(&Schunk::open(&dir).unwrap(), &expect);
    intact(&Schunk::open(&dir).unwrap());
    let _ = blosc2::urlpath::remove_urlpath(&dir);
}

#[test]
fn every_byte_of_a_b2nd_array() {
    use blosc2::b2nd::{Array, Params};
    let cparams = CParams {
        typesize: 8,
        compcode: blosc2::codecs::ZSTD,
        clevel: 3,
        ..CParams::default()
    };
    let mut params: Params<Storage> = Params::new(cparams, &[30, 20], &[12, 10], &[6, 5]);
    params.options = Storage {
        contiguous: true,
        ..Storage::default()
    };
    params.dtype = "<f8".into();
    let values: Vec<u8> = (0..600)
        .flat_map(|i| (i as f64 * 0.25).to_le_bytes())
        .collect();
    let arr = Array::<Schunk>::from_cbuffer(&params, &values).unwrap();
    let mut sc = arr.into_store();
    sc.set_fingerprint_mode(FingerprintMode::On).unwrap();
    sc.vlmeta_add("attrs", b"\x81\xa1x\x01", None).unwrap();
    intact(&sc);
    let frame = sc.to_buffer().unwrap().into_owned();
    let hl = sc.frame().unwrap().header().header_len as usize;
    let data_end = hl + sc.frame().unwrap().header().cbytes as usize;
    let mut refused = 0;
    for pos in 0..frame.len() {
        let mut copy = frame.clone();
        copy[pos] ^= 0xff;
        let hit = (hl..data_end)
            .contains(&pos)
            .then(|| chunk_at(&sc, pos))
            .flatten();
        let what = format!("b2nd byte {pos}");
        let Ok(mut damaged) = Schunk::from_vec(copy) else {
            continue;
        };
        let r = damaged.verify().unwrap().unwrap();
        assert!(r.absent.is_none() && !r.damaged.is_empty(), "{what}: {r:?}");
        if let Some(n) = hit {
            assert!(r.damaged.contains(&Region::Chunk(n)), "{what}: {r:?}");
            // The array read refuses the damaged chunk with verified reads.
            damaged
                .set_fingerprint_mode(FingerprintMode::Verify)
                .unwrap();
            if let Ok(a) = Array::from_store(damaged) {
                assert!(a.to_vec().is_err(), "{what}: array read");
                refused += 1;
            }
        }
    }
    assert!(refused > 0);
    let back = Array::<Schunk>::from_cframe(frame).unwrap();
    assert_eq!(back.to_vec().unwrap(), values);
}

#[test]
fn environment_turns_it_on() {
    // Run in a child process: the variable is read when super-chunks are made.
    if std::env::var_os("RBLOSC2_FP_CHILD").is_none() {
        let exe = std::env::current_exe().unwrap();
        for (value, want) in [("1", "On"), ("verify", "Verify"), ("0", "Off"), ("", "Off")] {
            let out = std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "environment_turns_it_on",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("RBLOSC2_FP_CHILD", "1")
                .env("BLOSC_FINGERPRINT", value)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{text}");
            assert!(text.contains(&format!("mode={want} ")), "{value}: {text}");
        }
        return;
    }
    let mut sc = Schunk::new(storage(None, true)).unwrap();
    sc.append_buffer(&data(1000, 3)).unwrap();
    let r = sc.verify().unwrap().unwrap();
    println!(
        "mode={:?} intact={} absent={:?}",
        sc.fingerprint_mode(),
        r.intact(),
        r.absent
    );
    assert_eq!(r.intact(), sc.fingerprint_mode() != FingerprintMode::Off);
}

/// What one chunk's fingerprint costs: CRC-32C throughput on 64 MiB (run with --ignored).
#[test]
#[ignore]
fn crc32c_throughput() {
    use blosc2::frame::fingerprint::Entry;
    for items in [1 << 18, 16 << 20] {
        let buf = data(items, 1);
        let mut best = f64::MAX;
        for _ in 0..20 {
            let t = std::time::Instant::now();
            std::hint::black_box(Entry::of(Some(std::hint::black_box(&buf))));
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "crc32c: {:.1} GB/s on {} KiB",
            buf.len() as f64 / best / 1e9,
            buf.len() >> 10
        );
    }
}

/// What fingerprints add to chunk writes, off and on alternated, fastest of 25 (a loaded
/// machine slows some runs, not all): 32 appends then 8 updates of compressed 1 MiB chunks, as
/// the C matrix's schunk rows do them, in memory, in a file and in a directory:
/// `cargo test --release --test fingerprints fingerprint_cost -- --ignored --nocapture`.
#[test]
#[ignore]
fn fingerprint_cost() {
    let probe = Schunk::new(storage(None, true)).unwrap();
    let chunks: Vec<Vec<u8>> = (0..33)
        .map(|c| compress(&probe, &data(1 << 18, c)))
        .collect();
    let avg = chunks.iter().map(Vec::len).sum::<usize>() / chunks.len();
    println!("chunks of {} KiB on average", avg >> 10);
    for (name, contiguous, file) in [
        ("memory", true, false),
        ("file", true, true),
        ("sparse-dir", false, true),
    ] {
        let mut best = [[f64::MAX; 2]; 2];
        for round in 0..25 {
            for k in 0..2 {
                let on = (k + round) % 2 == 1;
                let path = file.then(|| scratch(&format!("cost-{name}")));
                let mut sc = Schunk::new(storage(path.as_deref(), contiguous)).unwrap();
                let mode = if on {
                    FingerprintMode::On
                } else {
                    FingerprintMode::Off
                };
                sc.set_fingerprint_mode(mode).unwrap();
                let t = std::time::Instant::now();
                for c in &chunks[..32] {
                    sc.append_chunk(c).unwrap();
                }
                let append = t.elapsed().as_secs_f64();
                let t = std::time::Instant::now();
                for i in (0..32).step_by(4) {
                    sc.update_chunk(i, &chunks[32]).unwrap();
                }
                let update = t.elapsed().as_secs_f64();
                assert_eq!(sc.fingerprinted(), on);
                best[0][on as usize] = best[0][on as usize].min(append);
                best[1][on as usize] = best[1][on as usize].min(update);
                drop(sc);
                if let Some(p) = path {
                    let _ = blosc2::urlpath::remove_urlpath(&p);
                }
            }
        }
        for (op, [off, on]) in ["append", "update"].iter().zip(best) {
            println!(
                "{name} {op}: off {:.0} us, on {:.0} us, +{:.0} us",
                off * 1e6,
                on * 1e6,
                (on - off) * 1e6
            );
        }
    }
}
