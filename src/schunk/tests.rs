use super::*;
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH, MAX_OVERHEAD};
use crate::Error;

fn data(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32)
        .flat_map(|i| (seed * 1000 + i * (seed + 1) + (i % 7) * 3).to_le_bytes())
        .collect()
}

fn storage(contiguous: bool) -> Storage {
    Storage {
        contiguous,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    }
}

#[test]
fn memory_list_and_frame_agree() {
    for contiguous in [false, true] {
        let mut sc = Schunk::new(storage(contiguous)).unwrap();
        assert_eq!(sc.chunksize(), -1);
        sc.append_buffer(&data(1000, 1)).unwrap();
        sc.append_buffer(&data(1000, 2)).unwrap();
        assert_eq!(sc.append_buffer(&data(10, 3)).unwrap(), 3);
        assert_eq!(sc.chunksize(), 4000);
        assert_eq!(sc.nbytes(), 8040);
        assert_eq!(sc.decompress_chunk_vec(1).unwrap(), data(1000, 2));
        assert_eq!(sc.decompress_chunk_vec(2).unwrap(), data(10, 3));
        let mut slice = vec![0u8; 8];
        sc.get_slice_buffer(999, 1001, &mut slice).unwrap();
        assert_eq!(&slice[..4], &data(1000, 1)[3996..]);
        assert_eq!(&slice[4..], &data(1000, 2)[..4]);
        assert_eq!(sc.get_chunk(3).err(), Some(Error::InvalidParam));
    }
}

/// A copy made the way copies were made before `append_stored_chunks`: every chunk
/// appended on its own.
fn copy_one_by_one(src: &Schunk) -> Schunk {
    let mut out = Schunk::new(storage(true)).unwrap();
    for m in &src.metas {
        out.meta_add(&m.name, &m.content).unwrap();
    }
    for n in 0..src.nchunks() {
        out.append_chunk(&src.get_chunk(n).unwrap()).unwrap();
    }
    for m in &src.vlmetas {
        out.vlmeta_add(&m.name, &src.vlmeta_get(&m.name).unwrap(), None)
            .unwrap();
    }
    out
}

fn zeros_chunk(nbytes: i32) -> Vec<u8> {
    let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
    let params = storage(true).cparams;
    crate::chunk::special::make(&params, Special::Zero, nbytes, None, &mut c).unwrap();
    c
}

/// Chunks read from disk go through one reused buffer per thread: chunks of other sizes
/// in any order (longer, shorter, special) still decompress to exactly their data, and a
/// chunk read as a whole agrees with the decompression.
#[test]
fn chunks_on_disk_read_through_the_reused_buffer() {
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    for (contiguous, name) in [(true, "b2frame"), (false, "b2sframe")] {
        let path = dir.join(format!("rblosc2-reuse-{pid}.{name}"));
        let _ = crate::urlpath::remove_urlpath(&path);
        let mut sc = Schunk::new(Storage {
            urlpath: Some(path.clone()),
            ..storage(contiguous)
        })
        .unwrap();
        // Items per chunk, 0 for a chunk of zeros (a special chunk), the short one last.
        let items = [1000usize, 0, 1000, 10];
        let want = |k: usize| match items[k] {
            0 => vec![0u8; 4000],
            n => data(n, k as u32),
        };
        for k in 0..items.len() {
            sc.append_buffer(&want(k)).unwrap();
        }
        for k in [0usize, 3, 1, 2, 3, 0] {
            let mut out = vec![0xAAu8; 4000];
            let n = sc.decompress_chunk(k as i64, &mut out, None).unwrap();
            assert_eq!(&out[..n], &want(k)[..], "chunk {k}");
            assert_eq!(sc.decompress_chunk_vec(k as i64).unwrap(), want(k));
        }
        let mut out = vec![0u8; 4000];
        assert_eq!(
            sc.decompress_chunk(4, &mut out, None),
            Err(Error::InvalidParam)
        );
        drop(sc);
        crate::urlpath::remove_urlpath(&path).unwrap();
    }
}

/// Copies that take the chunks as stored write the whole runs of chunks at once, yet leave
/// the bytes appending them one by one leaves: chunk-size rules with special chunks (as
/// offsets, whose size the frame derives) and a short last chunk, frames whose chunks
/// were rewritten out of place, for every kind of source.
#[test]
fn stored_copies_write_what_appending_one_by_one_writes() {
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let sources = [
        (false, None),
        (true, None),
        (true, Some(dir.join(format!("rblosc2-copy-{pid}.b2frame")))),
        (
            false,
            Some(dir.join(format!("rblosc2-copy-{pid}.b2sframe"))),
        ),
    ];
    // Items per chunk, negative for a chunk of zeros.
    let histories: [&[i32]; 5] = [
        &[1000, 1000, 1000, 10],
        &[1000, 1000, -1000, -1000],
        &[1000, 1000, -500],
        &[-1000, 1000, -1000, 999],
        &[1000, -1000, -500, 1000],
    ];
    for (contiguous, urlpath) in sources {
        for (k, history) in histories.iter().enumerate() {
            if k == 4 && (contiguous || urlpath.is_some()) {
                // A frame cannot even hand out such special chunks: only lists copy them.
                continue;
            }
            if let Some(p) = &urlpath {
                let _ = crate::urlpath::remove_urlpath(p);
            }
            let mut src = Schunk::new(Storage {
                urlpath: urlpath.clone(),
                ..storage(contiguous)
            })
            .unwrap();
            src.meta_add("m", b"meta").unwrap();
            for (i, &n) in history.iter().enumerate() {
                if n < 0 {
                    src.append_chunk(&zeros_chunk(-n * 4)).unwrap();
                } else {
                    src.append_buffer(&data(n as usize, i as u32)).unwrap();
                }
            }
            if k == 0 {
                // Rewritten in place, then out of place: the frame keeps a hole, and the
                // chunk size turns variable. (Not with special chunks: a frame cannot
                // tell their size then.)
                let third = src.get_chunk(2).unwrap().to_vec();
                src.update_chunk(0, &third).unwrap();
                let mut big = vec![0u8; 8000 + MAX_OVERHEAD];
                let n = src.compressor().compress(&data(2000, 9), &mut big).unwrap();
                src.update_chunk(2, &big[..n]).unwrap();
            }
            src.vlmeta_add("v", b"vlmeta", None).unwrap();

            let mut fast = Schunk::new(storage(true)).unwrap();
            fast.meta_add("m", b"meta").unwrap();
            let what = format!("contiguous {contiguous}, {urlpath:?}, history {k}");
            assert!(fast.append_stored_chunks(&src).unwrap(), "{what}");
            fast.vlmeta_add("v", b"vlmeta", None).unwrap();
            let slow = copy_one_by_one(&src);
            assert_eq!(
                fast.to_buffer().unwrap(),
                slow.to_buffer().unwrap(),
                "{what}"
            );
            assert_eq!(fast.chunksize(), slow.chunksize(), "{what}");
            assert_eq!(
                src.copy(storage(true)).unwrap().to_buffer().unwrap(),
                slow.to_buffer().unwrap(),
                "{what}"
            );
            // (A frame cannot tell the size of its special chunks once the chunk size
            // turned variable: the last history only compares bytes.)
            for n in 0..src.nchunks() {
                if k < 4 {
                    let got = fast.decompress_chunk_vec(n).unwrap();
                    assert_eq!(got, src.decompress_chunk_vec(n).unwrap(), "{what}");
                }
            }
            if let Some(p) = &urlpath {
                crate::urlpath::remove_urlpath(p).unwrap();
            }
        }
    }
}

#[test]
fn file_urls_lose_their_prefix() {
    assert_eq!(local_path(Path::new("file:///tmp/x")), Path::new("tmp/x"));
    assert_eq!(local_path(Path::new("/tmp/x")), Path::new("/tmp/x"));
    assert_eq!(local_path(Path::new("file://x")), Path::new("file://x"));
}

/// The chunk-size rules c-blosc2 3.3.5 follows (sequences checked against it).
#[test]
fn chunksize_turns_variable_like_the_reference() {
    let run = |sizes: &[usize]| -> Vec<i32> {
        let mut sc = Schunk::new(storage(true)).unwrap();
        sizes
            .iter()
            .map(|&n| {
                sc.append_buffer(&data(n / 4, 1)).unwrap();
                sc.chunksize()
            })
            .collect()
    };
    assert_eq!(run(&[4000, 5000, 4000]), [4000, 0, 0]);
    assert_eq!(run(&[4000, 3000, 4000]), [4000, 4000, 0]);
    assert_eq!(run(&[4000, 4000, 3000, 3000]), [4000, 4000, 4000, 0]);
    let edit = |at: i64, n: usize, insert: bool| -> i32 {
        let mut sc = Schunk::new(storage(false)).unwrap();
        for _ in 0..3 {
            sc.append_buffer(&data(1000, 1)).unwrap();
        }
        let mut one = Schunk::new(storage(false)).unwrap();
        one.append_buffer(&data(n / 4, 2)).unwrap();
        let chunk = one.get_chunk(0).unwrap().into_owned();
        if insert {
            sc.insert_chunk(at, &chunk).unwrap();
        } else {
            sc.update_chunk(at, &chunk).unwrap();
        }
        sc.chunksize()
    };
    assert_eq!(edit(0, 3000, false), 0);
    assert_eq!(edit(2, 3000, false), 4000);
    assert_eq!(edit(1, 5000, false), 0);
    assert_eq!(edit(1, 3000, true), 0);
    assert_eq!(edit(3, 3000, true), 4000);
    assert_eq!(edit(1, 5000, true), 0);
}

mod shared_frame_tests {
    use super::*;
    use crate::frame::io::LockingFileIo;
    use crate::frame::lock::sidecar_path;

    /// A reader handle sees what a writer handle added after `refresh` (not before) and keeps
    /// its own parameters; with locking, an exclusive lock by the writer bumps the sidecar's
    /// generation, which makes the reader stale at its next (shared) lock.
    #[test]
    fn reader_refreshes_after_writer_grows_the_frame() {
        for (contiguous, locking) in [(true, false), (true, true), (false, true)] {
            let path = std::env::temp_dir().join(format!(
                "rblosc2-shared-{}-{contiguous}-{locking}",
                std::process::id()
            ));
            let _ = crate::urlpath::remove_urlpath(&path);
            let io: Arc<dyn Io> = if locking {
                Arc::new(LockingFileIo)
            } else {
                Arc::new(FileIo)
            };
            let storage = Storage {
                contiguous,
                urlpath: Some(path.clone()),
                cparams: CParams {
                    typesize: 4,
                    ..Default::default()
                },
                io: io.clone(),
                ..Default::default()
            };
            let block: Vec<u8> = (0..4000u32).flat_map(|i| i.to_le_bytes()).collect();
            let mut writer = Schunk::new(storage).unwrap();
            writer.append_buffer(&block).unwrap();
            let mut reader = Schunk::open_offset_with(&path, 0, io).unwrap();
            reader.storage.dparams.nthreads = 3;
            assert!(!reader.is_stale());
            writer.append_buffer(&block).unwrap();
            writer.vlmeta_add("v", b"x", None).unwrap();
            assert!(reader.is_stale());
            assert_eq!(reader.nchunks(), 1);
            assert_eq!(reader.refresh(), Ok(true));
            assert_eq!(reader.refresh(), Ok(false));
            assert_eq!((reader.nchunks(), reader.nbytes()), (2, 32_000));
            assert_eq!(reader.vlmeta_get("v").unwrap(), b"x");
            assert_eq!(reader.dparams().nthreads, 3);
            assert_eq!(reader.decompress_chunk_vec(1).unwrap(), block);
            if locking {
                // Each change the writer made took the lock exclusively once (two appends
                // and a vlmetalayer), and so does an explicit bracket.
                writer.lock().unwrap();
                writer.lock().unwrap();
                writer.unlock().unwrap();
                writer.unlock().unwrap();
                let sidecar = std::fs::read(sidecar_path(&path, !contiguous)).unwrap();
                assert_eq!(sidecar[8..16], 4u64.to_ne_bytes());
                assert!(
                    !reader.is_stale(),
                    "the generation is only looked at under the lock"
                );
                reader.lock_shared().unwrap();
                reader.unlock().unwrap();
                assert!(
                    reader.is_stale(),
                    "another handle took the lock exclusively"
                );
                assert_eq!(reader.refresh(), Ok(true));
            }
            crate::urlpath::remove_urlpath(&path).unwrap();
        }
    }

    /// The core's sequences: a read that re-syncs a stale frame has the owner refresh it first
    /// (once), one that does not re-sync reads the frame as it knew it; a change that re-syncs
    /// appends after the other handle's chunks, not over them.
    #[test]
    fn shared_sequences_refresh_when_stale() {
        let path = std::env::temp_dir().join(format!("rblosc2-seq-{}", std::process::id()));
        let _ = crate::urlpath::remove_urlpath(&path);
        let io: Arc<dyn Io> = Arc::new(LockingFileIo);
        let storage = Storage {
            contiguous: true,
            urlpath: Some(path.clone()),
            cparams: CParams {
                typesize: 4,
                ..Default::default()
            },
            io: io.clone(),
            ..Default::default()
        };
        let block: Vec<u8> = (0..4000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut writer = Schunk::new(storage).unwrap();
        writer.append_buffer(&block).unwrap();
        let mut reader = Schunk::open_offset_with(&path, 0, io).unwrap();
        writer.append_buffer(&block).unwrap();
        let refreshes = std::cell::Cell::new(0);
        let count = || {
            refreshes.set(refreshes.get() + 1);
            Ok(())
        };
        let stale = |s: &Schunk| Ok((s.nchunks(), s.is_stale()));
        let seen = read_shared(|| Ok(&reader), count, |_| false, stale).unwrap();
        assert_eq!((seen, refreshes.get()), ((1, true), 0));
        // The owner's refresh runs once, with the gate held, before the read.
        let seen = read_shared(|| Ok(&reader), count, |_| true, stale).unwrap();
        assert_eq!((seen, refreshes.get()), ((1, true), 1));
        assert_eq!(reader.refresh(), Ok(true));
        let seen = read_shared(|| Ok(&reader), count, |_| true, stale).unwrap();
        assert_eq!((seen, refreshes.get()), ((2, false), 1));
        writer.append_buffer(&block).unwrap();
        let n = reader
            .change_shared(|_| true, |s| s.append_buffer(&block))
            .unwrap();
        assert_eq!(n, 4);
        assert_eq!(writer.refresh_shared(), Ok(true));
        assert_eq!(writer.nchunks(), 4);
        assert_eq!(writer.refresh_shared(), Ok(false));
        crate::urlpath::remove_urlpath(&path).unwrap();
    }
}

#[test]
fn list_chunks_reuse_kept_buffers_with_the_right_bytes() {
    // Chunks of 64 KiB and more go through the kept buffers (updated in place, kept on
    // delete and drop, handed to the next list): every chunk must still read back whole.
    let n = 40_000; // 160,000 bytes a chunk, stored nearly uncompressed
    let noisy = |seed: u32| -> Vec<u8> {
        let mut state = u64::from(seed) + 1;
        (0..4 * n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) as u8
            })
            .collect()
    };
    for round in 0..3u32 {
        let mut sc = Schunk::new(storage(false)).unwrap();
        for k in 0..4 {
            sc.append_buffer(&noisy(round * 10 + k)).unwrap();
        }
        let replacement = sc.get_chunk(3).unwrap().into_owned();
        assert!(replacement.len() >= 64 << 10, "{}", replacement.len());
        sc.update_chunk(0, &replacement).unwrap();
        sc.delete_chunk(1).unwrap();
        sc.insert_chunk(1, &replacement).unwrap();
        let want = [
            round * 10 + 3,
            round * 10 + 3,
            round * 10 + 2,
            round * 10 + 3,
        ];
        for (i, seed) in want.into_iter().enumerate() {
            assert_eq!(sc.decompress_chunk_vec(i as i64).unwrap(), noisy(seed));
        }
        assert_eq!(sc.nbytes(), 4 * 4 * n as i64);
    }
}

/// The owner's adjustment reaches the chunks the super-chunk compresses (given at creation or
/// set later), not its parameters or its frame header.
#[test]
fn compressor_adjust_changes_the_chunks_not_the_parameters() {
    let adjust: CParamsAdjust = Arc::new(|c: &mut CParams| {
        c.clevel = 9;
        c.compcode = crate::codecs::ZLIB;
    });
    let mut plain = Schunk::new(storage(true)).unwrap();
    let mut adjusted = Schunk::new(Storage {
        compressor_adjust: Some(adjust.clone()),
        ..storage(true)
    })
    .unwrap();
    let mut opened_then_adjusted = Schunk::new(storage(true)).unwrap();
    opened_then_adjusted
        .set_compressor_adjust(Some(adjust))
        .unwrap();
    for sc in [&mut plain, &mut adjusted, &mut opened_then_adjusted] {
        sc.append_buffer(&data(5000, 1)).unwrap();
        sc.append_buffer(&data(5000, 2)).unwrap();
        assert_eq!(sc.cparams().clevel, 5);
        assert_eq!(sc.cparams().compcode, crate::codecs::BLOSCLZ);
        assert_eq!(sc.decompress_chunk_vec(1).unwrap(), data(5000, 2));
    }
    // The chunk header's codec format: BLOSCLZ's (0) for the plain one, ZLIB's (3) adjusted.
    let codec = |sc: &Schunk| (sc.get_chunk(0).unwrap()[2] >> 5) & 7;
    assert_eq!(codec(&plain), 0);
    assert_eq!(codec(&adjusted), crate::codecs::ZLIB_FORMAT);
    assert_eq!(codec(&opened_then_adjusted), crate::codecs::ZLIB_FORMAT);
    let (p, a) = (plain.frame().unwrap(), adjusted.frame().unwrap());
    assert_eq!(p.header().compcode, a.header().compcode);
    assert_eq!(p.header().clevel, a.header().clevel);
    assert_ne!(plain.get_chunk(0).unwrap(), adjusted.get_chunk(0).unwrap());
    assert_eq!(
        adjusted.get_chunk(1).unwrap(),
        opened_then_adjusted.get_chunk(1).unwrap()
    );
}

/// A chunk handed over to a list, logging what becomes of it.
struct Tracked {
    bytes: Vec<u8>,
    log: std::sync::Arc<std::sync::Mutex<Vec<&'static str>>>,
    given_back: bool,
}

impl HandedChunk for Tracked {
    fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    fn give_back(mut self: Box<Self>) {
        self.given_back = true;
        self.log.lock().unwrap().push("given back");
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if !self.given_back {
            self.log.lock().unwrap().push("released");
        }
    }
}

/// What becomes of the chunks handed over in a test.
#[derive(Default)]
struct Log(std::sync::Arc<std::sync::Mutex<Vec<&'static str>>>);

impl Log {
    fn handed(&self, bytes: Vec<u8>) -> GivenChunk<'static> {
        GivenChunk::Handed(Handover::new(Box::new(Tracked {
            bytes,
            log: self.0.clone(),
            given_back: false,
        })))
    }
    fn entries(&self) -> Vec<&'static str> {
        self.0.lock().unwrap().clone()
    }
}

/// `data` compressed as one chunk (by an in-memory super-chunk).
fn chunk_of(data: &[u8]) -> Vec<u8> {
    let mut donor = Schunk::new(storage(false)).unwrap();
    donor.append_buffer(data).unwrap();
    donor.get_chunk(0).unwrap().into_owned()
}

#[test]
fn a_list_keeps_a_handed_chunk_where_it_is_and_releases_it_once() {
    let (log, chunk) = (Log::default(), chunk_of(&data(1000, 9)));
    let handed = |bytes: Vec<u8>| log.handed(bytes);
    let logged = || log.entries();

    let mut sc = Schunk::new(storage(false)).unwrap();
    sc.append_buffer(&data(1000, 1)).unwrap();
    sc.append_buffer(&data(1000, 2)).unwrap();
    let (nbytes, cbytes) = (sc.nbytes(), sc.cbytes());
    let h = handed(chunk.clone());
    let at = h.bytes().as_ptr();
    assert_eq!(sc.insert_chunk_given(1, h), Ok(3));
    // The very bytes, not a copy; the sizes count them.
    assert_eq!(sc.chunk_list().unwrap()[1].as_ptr(), at);
    assert_eq!(sc.decompress_chunk_vec(1).unwrap(), data(1000, 9));
    assert_eq!(sc.decompress_chunk_vec(2).unwrap(), data(1000, 2));
    assert_eq!(sc.nbytes(), nbytes + 4000);
    assert_eq!(sc.cbytes(), cbytes + chunk.len() as i64);
    assert!(logged().is_empty());

    // Refused (out of range, a chunk longer than its cbytes): given back untouched.
    assert_eq!(
        sc.insert_chunk_given(9, handed(chunk.clone())),
        Err(Error::InvalidParam)
    );
    let mut longer = chunk.clone();
    longer.push(0);
    assert_eq!(
        sc.append_chunk_given(handed(longer)),
        Err(Error::ReadBuffer)
    );
    assert_eq!(logged(), ["given back", "given back"]);

    // Replaced, then dropped with the super-chunk: released once each.
    sc.update_chunk(1, &chunk).unwrap();
    assert_eq!(logged(), ["given back", "given back", "released"]);
    assert_eq!(sc.append_chunk_given(handed(chunk.clone())), Ok(4));
    assert_eq!(sc.decompress_chunk_vec(3).unwrap(), data(1000, 9));
    // An update keeps the handed chunk too; the one it replaces (ours) is let go.
    let h = handed(chunk.clone());
    let at = h.bytes().as_ptr();
    let (nbytes, cbytes) = (sc.nbytes(), sc.cbytes());
    let old_len = sc.get_chunk(0).unwrap().len() as i64;
    assert_eq!(sc.update_chunk_given(0, h), Ok(4));
    assert_eq!(sc.chunk_list().unwrap()[0].as_ptr(), at);
    assert_eq!(sc.decompress_chunk_vec(0).unwrap(), data(1000, 9));
    assert_eq!(sc.nbytes(), nbytes);
    assert_eq!(sc.cbytes(), cbytes - old_len + chunk.len() as i64);
    assert_eq!(
        sc.update_chunk_given(4, handed(chunk.clone())),
        Err(Error::InvalidParam)
    );
    assert_eq!(logged().len(), 4);
    drop(sc);
    assert_eq!(
        logged(),
        [
            "given back",
            "given back",
            "released",
            "given back",
            "released",
            "released"
        ]
    );
}

#[test]
fn a_frame_copies_a_handed_chunk_in_and_releases_it_only_once_written() {
    let (log, chunk) = (Log::default(), chunk_of(&data(1000, 9)));
    let handed = |bytes: Vec<u8>| log.handed(bytes);
    let logged = || log.entries();

    let mut frame = Schunk::new(storage(true)).unwrap();
    frame.append_buffer(&data(1000, 1)).unwrap();
    assert_eq!(frame.insert_chunk_given(0, handed(chunk.clone())), Ok(2));
    assert_eq!(logged(), ["released"]);
    assert_eq!(frame.update_chunk_given(1, handed(chunk.clone())), Ok(2));
    assert_eq!(frame.append_chunk_given(handed(chunk.clone())), Ok(3));
    assert_eq!(logged(), ["released", "released", "released"]);
    for n in 0..3 {
        assert_eq!(frame.decompress_chunk_vec(n).unwrap(), data(1000, 9));
        assert_eq!(frame.get_chunk(n).unwrap(), &chunk[..]);
    }
    // Refused: given back, the frame unchanged.
    let before = frame.to_buffer().unwrap().into_owned();
    assert_eq!(
        frame.update_chunk_given(3, handed(chunk.clone())),
        Err(Error::InvalidParam)
    );
    assert_eq!(
        frame.insert_chunk_given(-1, handed(chunk.clone())),
        Err(Error::InvalidParam)
    );
    assert_eq!(frame.to_buffer().unwrap(), &before[..]);
    assert_eq!(
        logged(),
        [
            "released",
            "released",
            "released",
            "given back",
            "given back"
        ]
    );
}
