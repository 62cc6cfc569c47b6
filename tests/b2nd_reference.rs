//! b2nd arrays against bytes written by c-blosc2 3.3.5: chunks of arrays built from a buffer and
//! then partly overwritten (generator: data/b2nd_reference_chunks.c), and slices that skip
//! block 0 of DELTA-filtered chunks (where the reference itself returns wrong bytes).

use blosc2::b2nd::{meta, Array, ChunkStore, MemStore, Params};
use blosc2::chunk::header::{BITSHUFFLE, DELTA, SHUFFLE};
use blosc2::chunk::CParams;
use blosc2::codecs::{BLOSCLZ, LZ4, ZSTD};
use blosc2::Error;

const REFERENCE: &[u8] = include_bytes!("data/b2nd_reference_chunks.bin");

struct Case {
    shape: Vec<i64>,
    chunkshape: Vec<i32>,
    blockshape: Vec<i32>,
    typesize: i32,
    compcode: u8,
    clevel: u8,
    filters: [u8; 6],
    set_start: Vec<i64>,
    set_stop: Vec<i64>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            shape: vec![10, 7],
            chunkshape: vec![4, 5],
            blockshape: vec![2, 3],
            typesize: 4,
            compcode: BLOSCLZ,
            clevel: 5,
            filters: [0, 0, 0, 0, 0, SHUFFLE],
            set_start: vec![1, 2],
            set_stop: vec![9, 6],
        },
        Case {
            shape: vec![5, 6, 7],
            chunkshape: vec![3, 4, 5],
            blockshape: vec![2, 2, 2],
            typesize: 2,
            compcode: LZ4,
            clevel: 9,
            filters: [0, 0, 0, 0, 0, BITSHUFFLE],
            set_start: vec![0, 1, 1],
            set_stop: vec![5, 6, 3],
        },
        Case {
            shape: vec![100],
            chunkshape: vec![30],
            blockshape: vec![7],
            typesize: 8,
            compcode: BLOSCLZ,
            clevel: 9,
            filters: [0, 0, 0, 0, DELTA, SHUFFLE],
            set_start: vec![25],
            set_stop: vec![95],
        },
        Case {
            shape: vec![],
            chunkshape: vec![],
            blockshape: vec![],
            typesize: 8,
            compcode: ZSTD,
            clevel: 3,
            filters: [0, 0, 0, 0, 0, SHUFFLE],
            set_start: vec![],
            set_stop: vec![],
        },
    ]
}

fn params(c: &Case) -> Params<()> {
    let cparams = CParams {
        typesize: c.typesize,
        compcode: c.compcode,
        clevel: c.clevel,
        filters: c.filters,
        nthreads: 1,
        ..CParams::default()
    };
    Params::new(cparams, &c.shape, &c.chunkshape, &c.blockshape)
}

fn pattern(n: usize, f: impl Fn(usize) -> usize) -> Vec<u8> {
    (0..n).map(|k| (f(k) % 256) as u8).collect()
}

fn build(c: &Case) -> Array<MemStore> {
    let ts = c.typesize as usize;
    let n = c.shape.iter().product::<i64>() as usize * ts;
    let data = pattern(n, |k| k * 31 + k / 7);
    let mut a = Array::<MemStore>::from_cbuffer(&params(c), &data).unwrap();
    let bshape: Vec<i64> = c
        .set_start
        .iter()
        .zip(&c.set_stop)
        .map(|(a, b)| b - a)
        .collect();
    let m = bshape.iter().product::<i64>() as usize * ts;
    let upd = pattern(m, |k| k * 13 + 5);
    a.set_slice_cbuffer(&upd, &bshape, &c.set_start, &c.set_stop)
        .unwrap();
    a
}

#[test]
fn chunks_equal_reference() {
    let mut rest = REFERENCE;
    let mut take = |n: usize| {
        let (a, b) = rest.split_at(n);
        rest = b;
        a
    };
    for (i, c) in cases().iter().enumerate() {
        let a = build(c);
        let nchunks = u32::from_le_bytes(take(4).try_into().unwrap()) as i64;
        assert_eq!(a.store().nchunks(), nchunks, "case {i}");
        for n in 0..nchunks {
            let len = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
            let want = take(len);
            assert_eq!(&*a.store().chunk(n).unwrap(), want, "case {i} chunk {n}");
        }
    }
    // zeros, then rows inserted at a chunk boundary, whole leading columns deleted, columns
    // appended: special zero chunks, shifted chunks and recompressed ones.
    let mut p = params(&cases()[0]);
    p.cparams.filters = [0, 0, 0, 0, 0, SHUFFLE];
    let mut a = Array::<MemStore>::zeros(&p).unwrap();
    a.insert(&pattern(4 * 7 * 4, |k| k * 7 + 1), 0, 4).unwrap();
    a.delete(1, 0, 5).unwrap();
    a.append(&pattern(14 * 3 * 4, |k| k * 5 + 3), 1).unwrap();
    assert_eq!(a.shape(), &[14, 5]);
    let nchunks = u32::from_le_bytes(take(4).try_into().unwrap()) as i64;
    assert_eq!(a.store().nchunks(), nchunks);
    for n in 0..nchunks {
        let len = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        assert_eq!(
            &*a.store().chunk(n).unwrap(),
            take(len),
            "reshaped chunk {n}"
        );
    }
    assert!(rest.is_empty());
}

#[test]
fn delta_slices_skipping_block_zero() {
    // Every block of these chunks depends on block 0 through DELTA; slices that do not touch
    // block 0 must still decode it (c-blosc2 3.3.5 returns wrong bytes here).
    let c = &cases()[2];
    let a = build(c);
    let full = a.to_vec().unwrap();
    for (start, stop) in [(8i64, 13i64), (14, 30), (37, 38), (61, 95), (92, 100)] {
        let mut buf = vec![0u8; (stop - start) as usize * 8];
        a.get_slice_cbuffer(&[start], &[stop], &mut buf, &[stop - start])
            .unwrap();
        assert_eq!(buf, full[start as usize * 8..stop as usize * 8]);
    }
    let mut buf = vec![0u8; 2 * 8];
    a.get_orthogonal_selection(&[&[44, 99]], &mut buf, &[2])
        .unwrap();
    assert_eq!(buf[..8], full[44 * 8..45 * 8]);
    assert_eq!(buf[8..], full[99 * 8..100 * 8]);
}

#[test]
fn hostile_metalayers_are_rejected() {
    let store = |smeta: &[u8]| {
        let mut s = MemStore::create(CParams::default(), Default::default(), &()).unwrap();
        s.meta_add("b2nd", smeta).unwrap();
        s
    };
    let ok =
        |shape: &[i64], cs: &[i32], bs: &[i32]| meta::serialize(shape, cs, bs, None, 0).unwrap();
    // A zero chunk extent with a non-zero shape, overflowing products, a negative extent, a
    // chunk of more than i32::MAX items.
    for smeta in [
        ok(&[5], &[0], &[0]),
        ok(&[i64::MAX, i64::MAX], &[1, 1], &[1, 1]),
        ok(&[-4], &[2], &[1]),
        ok(&[1 << 40, 2], &[i32::MAX, 2], &[1, 1]),
    ] {
        assert!(Array::from_store(store(&smeta)).is_err());
    }
    // As c-blosc2 3.3.5: blocks larger than chunks, and chunks larger than a Blosc chunk (2^30
    // items of 8 bytes), open; the latter's chunks cannot be read.
    assert!(Array::from_store(store(&ok(&[5], &[2], &[3]))).is_ok());
    let huge = Array::from_store(store(&ok(&[1 << 40], &[1 << 30], &[1]))).unwrap();
    let mut out = [0u8; 8];
    assert_eq!(
        huge.get_slice_cbuffer(&[0], &[1], &mut out, &[1]),
        Err(Error::InvalidParam)
    );
    let mut big = ok(&[4], &[2], &[1]);
    big[2] = 17;
    assert_eq!(Array::from_store(store(&big)).err(), Some(Error::Failure));
    let no_meta = MemStore::create(CParams::default(), Default::default(), &()).unwrap();
    assert_eq!(
        Array::from_store(no_meta).err(),
        Some(Error::MetalayerNotFound)
    );
    // Valid metadata but missing chunks: opens (as in c-blosc2); reading a chunk fails.
    let missing = Array::from_store(store(&ok(&[4], &[2], &[1]))).unwrap();
    assert!(missing
        .get_slice_cbuffer(&[0], &[1], &mut out, &[1])
        .is_err());
}

#[test]
fn fill_values_and_errors() {
    let mut p = params(&cases()[0]);
    p.cparams.typesize = 4;
    let a = Array::<MemStore>::full(&p, &[1, 2, 3, 4]).unwrap();
    assert_eq!(a.to_vec().unwrap(), [1, 2, 3, 4].repeat(70));
    let a = Array::<MemStore>::nans(&p).unwrap();
    let v = a.to_vec().unwrap();
    assert!(v
        .chunks(4)
        .all(|x| f32::from_le_bytes(x.try_into().unwrap()).is_nan()));
    let a = Array::<MemStore>::uninit(&p).unwrap();
    assert_eq!(a.store().nchunks(), 6);
    p.cparams.typesize = 2;
    assert_eq!(Array::<MemStore>::nans(&p).err(), Some(Error::Data));
    assert_eq!(a.dtype(), Some("|S4"));
    let mut a = Array::<MemStore>::zeros(&params(&cases()[0])).unwrap();
    let mut buf = vec![0u8; 16];
    assert!(a
        .get_slice_cbuffer(&[0, 0], &[3, 2], &mut buf, &[3, 2])
        .is_err());
    assert!(a
        .get_slice_cbuffer(&[0, 0], &[11, 1], &mut buf, &[11, 1])
        .is_err());
    assert!(a
        .set_slice_cbuffer(&buf, &[2, 2], &[2, 2], &[0, 0])
        .is_err());
    assert_eq!(
        a.get_orthogonal_selection(&[&[10], &[0]], &mut buf, &[1, 1])
            .err(),
        Some(Error::InvalidIndex)
    );
    assert!(a.resize(&[12, 7], Some(&[3, 0])).is_err());
    assert!(a.delete(0, 1, 2).is_err());
    assert!(a.insert(&buf, 2, 0).is_err());
    let b = Array::<MemStore>::zeros(&params(&cases()[1])).unwrap();
    assert!(a.concatenate(&b, 0).is_err());
    assert_eq!(
        a.squeeze_index(&[true, false]).err(),
        Some(Error::InvalidIndex)
    );
    assert!(a.expand_dims(&[true, false]).is_err());
}

#[test]
fn copies_keep_metalayers() {
    let mut p = params(&cases()[0]);
    p.metalayers = vec![("units".into(), b"kelvin".to_vec())];
    p.dtype = "<f4".into();
    let mut a = Array::<MemStore>::from_cbuffer(&p, &pattern(280, |k| k)).unwrap();
    // vlmetalayers travel with copies too.
    let mut s = a.copy::<MemStore>(&p).unwrap().into_store();
    s.vlmeta_add("note", b"hello").unwrap();
    a = Array::from_store(s).unwrap();
    assert_eq!(a.dtype(), Some("<f4"));
    for chunkshape in [vec![4, 5], vec![3, 3]] {
        let mut q = params(&cases()[0]);
        q.chunkshape = chunkshape;
        q.blockshape = vec![1, 2];
        let c = a.copy::<MemStore>(&q).unwrap();
        assert_eq!(c.store().meta_get("units").unwrap(), b"kelvin");
        assert_eq!(c.store().vlmeta_get("note").unwrap(), b"hello");
        assert_eq!(c.dtype(), Some("<f4"));
        assert_eq!(c.to_vec().unwrap(), pattern(280, |k| k));
    }
    // Views of arrays with other metalayers are refused, as in c-blosc2.
    assert_eq!(a.squeeze().err(), Some(Error::InvalidParam));
}

#[test]
fn sixteen_dims_and_sparse_gathers() {
    let shape = [2i64, 3, 1, 2, 2, 1, 2, 2, 3, 1, 2, 2, 1, 2, 2, 2];
    let chunkshape = [1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 2, 1, 1, 2, 2, 1];
    let blockshape = [1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1];
    let n = shape.iter().product::<i64>() as usize;
    let cparams = CParams {
        typesize: 2,
        ..CParams::default()
    };
    let p = Params::<()>::new(cparams, &shape, &chunkshape, &blockshape);
    let data = pattern(n * 2, |k| k * 3 + k / 256);
    let a = Array::<MemStore>::from_cbuffer(&p, &data).unwrap();
    assert_eq!(a.to_vec().unwrap(), data);
    let coords = [0i64, n as i64 - 1, 777, 5, 777, 12345 % n as i64];
    let mut buf = vec![0u8; coords.len() * 2];
    a.get_sparse_cbuffer(&coords, &mut buf).unwrap();
    for (i, c) in coords.iter().enumerate() {
        let c = *c as usize;
        assert_eq!(buf[i * 2..i * 2 + 2], data[c * 2..c * 2 + 2]);
    }
    assert_eq!(
        a.get_sparse_cbuffer(&[n as i64], &mut buf).err(),
        Some(Error::InvalidIndex)
    );
    let sq = a.squeeze().unwrap();
    assert_eq!(sq.ndim(), 12);
    assert_eq!(sq.to_vec().unwrap(), data);
}

#[test]
fn mutated_metalayers_never_panic() {
    // Every single-byte change (and every truncation) of a real metalayer, with the chunks of
    // the original array: opening either fails cleanly or gives an array whose reads work or
    // fail cleanly.
    let a = build(&cases()[1]);
    let smeta = a.store().meta_get("b2nd").unwrap();
    let chunks: Vec<Vec<u8>> = (0..a.store().nchunks())
        .map(|n| a.store().chunk(n).unwrap().into_owned())
        .collect();
    let mut variants: Vec<Vec<u8>> = (0..smeta.len()).map(|n| smeta[..n].to_vec()).collect();
    for i in 0..smeta.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff, smeta[i] ^ 0x10] {
            let mut m = smeta.clone();
            m[i] = v;
            variants.push(m);
        }
    }
    for m in variants {
        let mut s = MemStore::create(a.store().cparams().clone(), Default::default(), &()).unwrap();
        s.meta_add("b2nd", &m).unwrap();
        for c in &chunks {
            s.append_chunk(c.as_slice().into()).unwrap();
        }
        if let Ok(b) = Array::from_store(s) {
            if b.nitems() < 1 << 16 {
                let _ = b.to_vec();
            }
        }
    }
}
