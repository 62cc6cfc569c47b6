//! Frames written by c-blosc / c-blosc2 open and decompress to what the reference gives.
//!
//! `tests/data/frames/expected.txt` was written by `tests/frames_ref/gen.c dump` run against
//! the reference c-blosc2 3.3.5: per frame its sizes, metalayers, vlmetalayers, and per chunk
//! the decompressed size, compressed size and FNV-1a 64 hashes of the decompressed bytes and of
//! the compressed chunk as `blosc2_schunk_get_chunk` returns it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use blosc2::schunk::Schunk;

mod common;
use common::describe;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/frames")
}

fn path_of(name: &str) -> PathBuf {
    let top = data_dir().join(name);
    if top.exists() {
        top
    } else {
        data_dir().join("ref").join(name)
    }
}

/// expected.txt grouped by frame name, in file order.
fn expected() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join("expected.txt")).unwrap();
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let (name, rest) = line.split_once(' ').unwrap();
        map.entry(name.to_string())
            .or_default()
            .push(rest.to_string());
    }
    map
}

/// Expected lines, with what the reference leaves undefined blanked out: the data of
/// uninitialised chunks, the block-starts area of lazy memcpyed chunks.
fn trimmed(lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| l.trim_end().to_string()).collect()
}

fn blank_uninit(sc: &Schunk, lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            if f[0] == "chunk" {
                let chunk = sc.get_chunk(f[1].parse().unwrap()).unwrap();
                if (chunk[31] >> 4) & 7 == 4 {
                    return format!("chunk {} {} {} uninit {}", f[1], f[2], f[3], f[5]);
                }
            }
            if f[0] == "lazy" {
                // The reference leaves the block-starts area of a lazy memcpyed chunk
                // uninitialised (we zero it).
                let chunk = sc.get_chunk(f[1].parse().unwrap()).unwrap();
                if chunk[2] & 0x02 != 0 && (chunk[31] >> 4) & 7 == 0 {
                    return format!("lazy {} {} memcpyed", f[1], f[2]);
                }
            }
            l
        })
        .collect()
}

#[test]
fn reference_frames_open_and_decompress_as_the_reference() {
    let exp = expected();
    assert!(exp.len() >= 16, "expected.txt lists {} frames", exp.len());
    for (name, lines) in &exp {
        let path = path_of(name);
        let sc = Schunk::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            blank_uninit(&sc, describe(&sc)),
            blank_uninit(&sc, trimmed(lines)),
            "{name} (open)"
        );
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            // In memory, shared without a copy.
            let shared: Arc<Vec<u8>> = Arc::new(bytes.clone());
            let view = Schunk::from_buffer(shared, false).unwrap();
            // In memory there are no lazy chunks: get_lazychunk gives the chunk itself.
            let not_lazy = |v: Vec<String>| -> Vec<String> {
                v.into_iter().filter(|l| !l.starts_with("lazy ")).collect()
            };
            let ours = describe(&view);
            for n in 0..view.nchunks() {
                assert_eq!(view.get_lazychunk(n).unwrap(), view.get_chunk(n).unwrap());
            }
            assert_eq!(
                not_lazy(blank_uninit(&view, ours)),
                not_lazy(blank_uninit(&view, trimmed(lines))),
                "{name} (no-copy buffer)"
            );
            // The no-copy view hands back the very same bytes.
            assert_eq!(&*view.to_buffer().unwrap(), &bytes[..], "{name} to_buffer");
            // Copied into a list of chunks: cbytes counts every chunk then.
            let copied = Schunk::from_buffer(Arc::new(bytes), true).unwrap();
            assert_eq!(copied.nchunks(), sc.nchunks());
            for n in 0..sc.nchunks() {
                assert_eq!(
                    copied.decompress_chunk_vec(n).unwrap(),
                    sc.decompress_chunk_vec(n).unwrap()
                );
            }
        }
    }
}

#[test]
fn chunks_read_from_several_threads() {
    let sc = Schunk::open(&path_of("frame_simple-zstd.b2frame")).unwrap();
    let sequential: Vec<Vec<u8>> = (0..sc.nchunks())
        .map(|n| sc.decompress_chunk_vec(n).unwrap())
        .collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for n in (0..sc.nchunks()).rev() {
                    assert_eq!(sc.decompress_chunk_vec(n).unwrap(), sequential[n as usize]);
                }
            });
        }
    });
}

#[test]
fn maskout_reads_only_unmasked_blocks_of_chunks_on_disk() {
    for name in ["example_item_prices.b2nd", "sframe.b2frame"] {
        let sc = Schunk::open(&path_of(name)).unwrap();
        for n in 0..sc.nchunks() {
            let full = sc.decompress_chunk_vec(n).unwrap();
            let lazy = sc.get_lazychunk(n).unwrap();
            let h = blosc2::chunk::ChunkHeader::parse(&lazy).unwrap();
            let (nblocks, _) = h.nblocks_leftover();
            let mask: Vec<bool> = (0..nblocks).map(|i| i % 2 == 1).collect();
            let mut out = vec![0xeeu8; full.len()];
            assert_eq!(
                sc.decompress_chunk(n, &mut out, Some(&mask)),
                Ok(full.len())
            );
            let bs = h.blocksize as usize;
            for (i, (o, f)) in out.chunks(bs).zip(full.chunks(bs)).enumerate() {
                if mask[i] {
                    assert!(o.iter().all(|&b| b == 0xee), "{name} chunk {n} block {i}");
                } else {
                    assert_eq!(o, f, "{name} chunk {n} block {i}");
                }
            }
        }
    }
}
