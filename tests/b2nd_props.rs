//! Property tests of b2nd arrays against a naive n-d model: random shapes, chunk and block
//! shapes, typesizes and filters; random slices (empty and single-item ones included),
//! selections, resizes, inserts, appends, deletes, concatenations, squeezes and copies.

use blosc2::b2nd::shape::{for_each_index, strides};
use blosc2::b2nd::{Array, ChunkStore, MemStore, Params};
use blosc2::chunk::header::{BITSHUFFLE, DELTA, NOFILTER, SHUFFLE};
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in lo..=hi.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// The naive model: a C-order buffer.
#[derive(Clone, Debug, PartialEq)]
struct Model {
    shape: Vec<i64>,
    ts: usize,
    data: Vec<u8>,
}

impl Model {
    fn random(rng: &mut Rng, shape: &[i64], ts: usize) -> Model {
        let n = shape.iter().product::<i64>() as usize * ts;
        // Runs of repeated bytes so that codecs find matches too.
        let mut data = Vec::with_capacity(n);
        while data.len() < n {
            let b = rng.next() as u8;
            let run = rng.range(1, 6) as usize;
            for _ in 0..run.min(n - data.len()) {
                data.push(b);
            }
        }
        Model {
            shape: shape.to_vec(),
            ts,
            data,
        }
    }
    fn pos(&self, idx: &[i64]) -> usize {
        let s = strides(&self.shape);
        idx.iter().zip(&s).map(|(i, s)| i * s).sum::<i64>() as usize * self.ts
    }
    fn item(&self, idx: &[i64]) -> &[u8] {
        let p = self.pos(idx);
        &self.data[p..p + self.ts]
    }
    fn set_item(&mut self, idx: &[i64], v: &[u8]) {
        let p = self.pos(idx);
        let ts = self.ts;
        self.data[p..p + ts].copy_from_slice(v);
    }
    /// The model of shape `shape` whose item at idx is f(idx) (None: zero).
    fn build(shape: &[i64], ts: usize, f: impl Fn(&[i64]) -> Option<Vec<u8>>) -> Model {
        let mut m = Model {
            shape: shape.to_vec(),
            ts,
            data: vec![0; shape.iter().product::<i64>() as usize * ts],
        };
        let _ = for_each_index(shape, |idx| {
            if let Some(v) = f(idx) {
                m.set_item(idx, &v);
            }
            Ok(())
        });
        m
    }
    fn slice(&self, start: &[i64], stop: &[i64]) -> Model {
        let shape: Vec<i64> = start.iter().zip(stop).map(|(a, b)| b - a).collect();
        Model::build(&shape, self.ts, |idx| {
            let src: Vec<i64> = idx.iter().zip(start).map(|(i, s)| i + s).collect();
            Some(self.item(&src).to_vec())
        })
    }
}

struct Case {
    shape: Vec<i64>,
    chunkshape: Vec<i32>,
    blockshape: Vec<i32>,
    cparams: CParams,
}

fn random_case(rng: &mut Rng) -> Case {
    let ndim = match rng.range(0, 9) {
        0 => 0,
        1..=2 => 1,
        3..=5 => 2,
        6..=7 => 3,
        _ => rng.range(4, 6),
    } as usize;
    let max_extent = [1, 40, 14, 8, 5, 4, 3][ndim];
    let mut shape = Vec::new();
    let mut chunkshape = Vec::new();
    let mut blockshape = Vec::new();
    for _ in 0..ndim {
        let s = if rng.range(0, 15) == 0 {
            0
        } else {
            rng.range(1, max_extent)
        };
        let c = rng.range(1, s.max(1) + 2) as i32;
        let b = rng.range(1, c as i64) as i32;
        shape.push(s);
        chunkshape.push(c);
        blockshape.push(b);
    }
    let ts = [1, 2, 4, 8, 3, 16][rng.range(0, 5) as usize];
    let filter = [NOFILTER, SHUFFLE, BITSHUFFLE, DELTA][rng.range(0, 3) as usize];
    let cparams = CParams {
        typesize: ts,
        clevel: rng.range(0, 9) as u8,
        compcode: [0u8, 1][rng.range(0, 1) as usize],
        filters: [0, 0, 0, 0, 0, filter],
        ..CParams::default()
    };
    Case {
        shape,
        chunkshape,
        blockshape,
        cparams,
    }
}

fn params(c: &Case) -> Params<()> {
    Params::new(c.cparams.clone(), &c.shape, &c.chunkshape, &c.blockshape)
}

/// Every chunk decompresses to what a fresh array of the same data has: padding is zero.
fn check_chunks(a: &Array<MemStore>, m: &Model) {
    assert_eq!(a.shape(), &m.shape[..]);
    assert_eq!(a.to_vec().unwrap(), m.data, "data");
    let p = Params::<()>::new(
        a.store().cparams().clone(),
        &m.shape,
        &a.chunkshape(),
        &a.blockshape(),
    );
    let fresh = Array::<MemStore>::from_cbuffer(&p, &m.data).unwrap();
    assert_eq!(a.store().nchunks(), fresh.store().nchunks());
    let n = a.geometry().chunk_nbytes();
    for i in 0..a.store().nchunks() {
        let (mut x, mut y) = (vec![1u8; n], vec![2u8; n]);
        a.store().decompress_chunk(i, &mut x, None).unwrap();
        fresh.store().decompress_chunk(i, &mut y, None).unwrap();
        assert_eq!(x, y, "chunk {i}");
    }
}

fn random_slice(rng: &mut Rng, shape: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut start = Vec::new();
    let mut stop = Vec::new();
    for s in shape {
        let a = rng.range(0, *s);
        let b = match rng.range(0, 3) {
            0 => a,
            1 => (a + 1).min(*s),
            _ => rng.range(a, *s),
        };
        start.push(a);
        stop.push(b);
    }
    (start, stop)
}

#[test]
fn slices_and_selections() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case_no in 0..4000 {
        let c = random_case(&mut rng);
        let ts = c.cparams.typesize as usize;
        let mut m = Model::random(&mut rng, &c.shape, ts);
        let mut a = Array::<MemStore>::from_cbuffer(&params(&c), &m.data).unwrap();
        check_chunks(&a, &m);
        for _ in 0..4 {
            // get_slice_cbuffer into a larger buffer
            let (start, stop) = random_slice(&mut rng, &c.shape);
            let bshape: Vec<i64> = start
                .iter()
                .zip(&stop)
                .map(|(a, b)| b - a + rng.range(0, 1))
                .collect();
            let mut buf = vec![0xaau8; bshape.iter().product::<i64>() as usize * ts];
            a.get_slice_cbuffer(&start, &stop, &mut buf, &bshape)
                .unwrap();
            let got = Model {
                shape: bshape.clone(),
                ts,
                data: buf,
            };
            let want = m.slice(&start, &stop);
            for_each_index(&want.shape, |idx| {
                assert_eq!(
                    got.item(idx),
                    want.item(idx),
                    "case {case_no} get {start:?}..{stop:?}"
                );
                Ok(())
            })
            .unwrap();
            // set_slice_cbuffer
            let (start, stop) = random_slice(&mut rng, &c.shape);
            let sshape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
            let src = Model::random(&mut rng, &sshape, ts);
            a.set_slice_cbuffer(&src.data, &sshape, &start, &stop)
                .unwrap();
            let _ = for_each_index(&sshape, |idx| {
                let dst: Vec<i64> = idx.iter().zip(&start).map(|(i, s)| i + s).collect();
                m.set_item(&dst, src.item(idx));
                Ok(())
            });
            // orthogonal selections (repeats allowed): scattered indices, or runs of
            // consecutive ones (copied as runs when they share a block) with a repeat inside
            let sel: Vec<Vec<i64>> = c
                .shape
                .iter()
                .map(|s| {
                    if *s == 0 {
                        return vec![];
                    }
                    if rng.range(0, 1) == 0 {
                        return (0..rng.range(0, 4)).map(|_| rng.range(0, s - 1)).collect();
                    }
                    let first = rng.range(0, s - 1);
                    let mut v: Vec<i64> = (first..(first + rng.range(1, 12)).min(*s)).collect();
                    if rng.range(0, 1) == 0 {
                        let at = rng.range(0, v.len() as i64 - 1) as usize;
                        v.insert(at, v[at]);
                    }
                    v
                })
                .collect();
            let sel_refs: Vec<&[i64]> = sel.iter().map(|v| &v[..]).collect();
            let sshape: Vec<i64> = sel.iter().map(|v| v.len() as i64).collect();
            let n = sshape.iter().product::<i64>() as usize * ts;
            let mut buf = vec![0u8; n];
            a.get_orthogonal_selection(&sel_refs, &mut buf, &sshape)
                .unwrap();
            let got = Model {
                shape: sshape.clone(),
                ts,
                data: buf,
            };
            let _ = for_each_index(&sshape, |idx| {
                let src: Vec<i64> = (0..idx.len()).map(|d| sel[d][idx[d] as usize]).collect();
                assert_eq!(got.item(idx), m.item(&src), "case {case_no} orthogonal get");
                Ok(())
            });
            let src = Model::random(&mut rng, &sshape, ts);
            a.set_orthogonal_selection(&sel_refs, &src.data, &sshape)
                .unwrap();
            let _ = for_each_index(&sshape, |idx| {
                let dst: Vec<i64> = (0..idx.len()).map(|d| sel[d][idx[d] as usize]).collect();
                m.set_item(&dst, src.item(idx));
                Ok(())
            });
            assert_eq!(a.to_vec().unwrap(), m.data, "case {case_no}");
            // sparse gathers by flat position
            let nitems = m.data.len() / ts;
            if nitems > 0 {
                let coords: Vec<i64> = (0..rng.range(0, 6))
                    .map(|_| rng.range(0, nitems as i64 - 1))
                    .collect();
                let mut buf = vec![0u8; coords.len() * ts];
                a.get_sparse_cbuffer(&coords, &mut buf).unwrap();
                for (i, c) in coords.iter().enumerate() {
                    let c = *c as usize;
                    assert_eq!(buf[i * ts..(i + 1) * ts], m.data[c * ts..(c + 1) * ts]);
                }
            }
        }
        check_chunks(&a, &m);
        // get_slice into a new array with other chunk/block shapes
        let (start, stop) = random_slice(&mut rng, &c.shape);
        let other = random_case(&mut rng);
        let nd = c.shape.len();
        let mut p = params(&c);
        if other.shape.len() == nd {
            p.chunkshape = other.chunkshape.iter().map(|x| *x.max(&1)).collect();
            p.blockshape = other.blockshape.clone();
        }
        let b = a.get_slice::<MemStore>(&p, &start, &stop).unwrap();
        check_chunks(&b, &m.slice(&start, &stop));
    }
}

#[test]
fn reshaping_operations() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for case_no in 0..3000 {
        let c = random_case(&mut rng);
        if c.shape.is_empty() {
            continue;
        }
        let ts = c.cparams.typesize as usize;
        let nd = c.shape.len();
        let mut m = Model::random(&mut rng, &c.shape, ts);
        let mut a = Array::<MemStore>::from_cbuffer(&params(&c), &m.data).unwrap();
        for _ in 0..4 {
            let axis = rng.range(0, nd as i64 - 1) as usize;
            let chunk = c.chunkshape[axis] as i64;
            let op = rng.range(0, 4);
            if std::env::var("B2ND_TRACE").is_ok() {
                eprintln!(
                    "case {case_no} op {op} axis {axis} shape {:?} chunks {:?} blocks {:?}",
                    m.shape, c.chunkshape, c.blockshape
                );
            }
            match op {
                0 => {
                    // resize at the end
                    let new: Vec<i64> = m
                        .shape
                        .iter()
                        .map(|s| (s + rng.range(-3, 3)).max(0))
                        .collect();
                    if std::env::var("B2ND_TRACE").is_ok() {
                        eprintln!("resize to {new:?}");
                    }
                    a.resize(&new, None).unwrap();
                    let old = m.clone();
                    m = Model::build(&new, ts, |idx| {
                        (0..nd)
                            .all(|d| idx[d] < old.shape[d])
                            .then(|| old.item(idx).to_vec())
                    });
                }
                1 => {
                    // insert at the end or at a chunk boundary, a whole number of chunks
                    let n_at = m.shape[axis] / chunk;
                    let at = if rng.bool() {
                        m.shape[axis]
                    } else {
                        rng.range(0, n_at) * chunk
                    };
                    let len = if at == m.shape[axis] {
                        rng.range(0, 5)
                    } else {
                        chunk * rng.range(1, 2)
                    };
                    let mut bshape = m.shape.clone();
                    bshape[axis] = len;
                    let ins = Model::random(&mut rng, &bshape, ts);
                    let r = a.insert(&ins.data, axis, at);
                    if ins.data.is_empty() && bshape.iter().product::<i64>() == 0 && r.is_err() {
                        continue; // nothing to insert along a zero-extent cross-section
                    }
                    r.unwrap();
                    let old = m.clone();
                    let mut new = old.shape.clone();
                    new[axis] += len;
                    m = Model::build(&new, ts, |idx| {
                        let i = idx[axis];
                        let mut j = idx.to_vec();
                        if i < at {
                            Some(old.item(idx).to_vec())
                        } else if i < at + len {
                            j[axis] = i - at;
                            Some(ins.item(&j).to_vec())
                        } else {
                            j[axis] = i - len;
                            Some(old.item(&j).to_vec())
                        }
                    });
                }
                2 => {
                    // delete at the end (any length) or whole chunks at a chunk boundary
                    let s = m.shape[axis];
                    let (at, len) = if rng.bool() || s < chunk {
                        let len = rng.range(0, s);
                        (s - len, len)
                    } else {
                        let at = rng.range(0, s / chunk - 1) * chunk;
                        let len = chunk * rng.range(1, (s - at) / chunk);
                        (at, len)
                    };
                    a.delete(axis, at, len).unwrap();
                    let old = m.clone();
                    let mut new = old.shape.clone();
                    new[axis] -= len;
                    m = Model::build(&new, ts, |idx| {
                        let mut j = idx.to_vec();
                        if idx[axis] >= at {
                            j[axis] += len;
                        }
                        Some(old.item(&j).to_vec())
                    });
                }
                3 => {
                    // append
                    let mut bshape = m.shape.clone();
                    bshape[axis] = rng.range(1, 4);
                    if bshape.iter().product::<i64>() == 0 {
                        continue;
                    }
                    let ins = Model::random(&mut rng, &bshape, ts);
                    a.append(&ins.data, axis).unwrap();
                    let old = m.clone();
                    let mut new = old.shape.clone();
                    new[axis] += bshape[axis];
                    m = Model::build(&new, ts, |idx| {
                        if idx[axis] < old.shape[axis] {
                            Some(old.item(idx).to_vec())
                        } else {
                            let mut j = idx.to_vec();
                            j[axis] -= old.shape[axis];
                            Some(ins.item(&j).to_vec())
                        }
                    });
                }
                _ => {
                    // concatenate another array with the same cross-section
                    let mut oshape = m.shape.clone();
                    oshape[axis] = rng.range(0, 7);
                    let other = Model::random(&mut rng, &oshape, ts);
                    let mut p = params(&c);
                    p.shape = oshape.clone();
                    if rng.bool() {
                        p.chunkshape = c.chunkshape.iter().map(|x| x + 1).collect();
                    }
                    let b = Array::<MemStore>::from_cbuffer(&p, &other.data).unwrap();
                    a.concatenate(&b, axis).unwrap();
                    let old = m.clone();
                    let mut new = old.shape.clone();
                    new[axis] += oshape[axis];
                    m = Model::build(&new, ts, |idx| {
                        if idx[axis] < old.shape[axis] {
                            Some(old.item(idx).to_vec())
                        } else {
                            let mut j = idx.to_vec();
                            j[axis] -= old.shape[axis];
                            Some(other.item(&j).to_vec())
                        }
                    });
                }
            }
            assert_eq!(a.to_vec().unwrap(), m.data, "case {case_no}");
        }
        check_chunks(&a, &m);
        // squeeze and expand_dims
        let sq = a.squeeze().unwrap();
        let kept: Vec<i64> = m.shape.iter().copied().filter(|s| *s != 1).collect();
        assert_eq!(sq.shape(), &kept[..]);
        assert_eq!(sq.to_vec().unwrap(), m.data);
        if nd < 6 {
            let mut axes = vec![false; nd];
            axes.insert(rng.range(0, nd as i64) as usize, true);
            let ex = a.expand_dims(&axes).unwrap();
            assert_eq!(ex.ndim(), nd + 1);
            assert_eq!(ex.to_vec().unwrap(), m.data);
        }
        // copy with other chunk shapes
        let mut p = params(&c);
        p.chunkshape = c.chunkshape.iter().map(|x| x + 2).collect();
        let cp = a.copy::<MemStore>(&p).unwrap();
        check_chunks(&cp, &m);
        let cp = a.copy::<MemStore>(&params(&c)).unwrap();
        check_chunks(&cp, &m);
    }
}

/// An array concatenated with itself (in place, the same array as both sources) holds two
/// copies of its former content along the axis, in memory and in a frame.
#[test]
fn self_concatenation() {
    let mut rng = Rng(0x5e1f_c0ca_7e4a_7e00);
    for case_no in 0..600 {
        let c = random_case(&mut rng);
        if c.shape.is_empty() {
            continue;
        }
        let ts = c.cparams.typesize as usize;
        let axis = rng.range(0, c.shape.len() as i64 - 1) as usize;
        let m = Model::random(&mut rng, &c.shape, ts);
        let mut new = m.shape.clone();
        new[axis] *= 2;
        let want = Model::build(&new, ts, |idx| {
            let mut j = idx.to_vec();
            j[axis] %= m.shape[axis].max(1);
            Some(m.item(&j).to_vec())
        });
        let mut a = Array::<MemStore>::from_cbuffer(&params(&c), &m.data).unwrap();
        a.concatenate_self(axis).unwrap();
        assert_eq!(a.to_vec().unwrap(), want.data, "case {case_no}");
        check_chunks(&a, &want);
        if case_no % 5 == 0 {
            let p = Params {
                options: Storage {
                    contiguous: rng.bool(),
                    ..Storage::default()
                },
                ..Params::new(c.cparams.clone(), &c.shape, &c.chunkshape, &c.blockshape)
            };
            let mut f = Array::<Schunk>::from_cbuffer(&p, &m.data).unwrap();
            f.concatenate_self(axis).unwrap();
            assert_eq!(f.to_vec().unwrap(), want.data, "frame case {case_no}");
        }
    }
}

/// Slices read block by block (one thread) and with the chunk's blocks shared among two
/// threads agree with the model; the items of a larger buffer outside the slice are zero.
#[test]
fn slices_with_threads() {
    let mut rng = Rng(0x7a5e_ed11_0b10_c4e5);
    for case_no in 0..800 {
        let c = random_case(&mut rng);
        let ts = c.cparams.typesize as usize;
        let m = Model::random(&mut rng, &c.shape, ts);
        let mut p = params(&c);
        p.dparams.nthreads = if case_no % 2 == 0 { 2 } else { 1 };
        let a = Array::<MemStore>::from_cbuffer(&p, &m.data).unwrap();
        for _ in 0..3 {
            let (start, stop) = random_slice(&mut rng, &c.shape);
            let pad = rng.range(0, 1);
            let bshape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a + pad).collect();
            let mut buf = vec![0xaau8; bshape.iter().product::<i64>() as usize * ts];
            a.get_slice_cbuffer(&start, &stop, &mut buf, &bshape)
                .unwrap();
            let want = m.slice(&start, &stop);
            let want = Model::build(&bshape, ts, |idx| {
                let inside = idx.iter().zip(&want.shape).all(|(i, s)| i < s);
                inside.then(|| want.item(idx).to_vec())
            });
            assert_eq!(
                buf, want.data,
                "case {case_no} {start:?}..{stop:?} pad {pad}"
            );
        }
    }
}

/// Views (`DimMap` + `Array::view_of`): squeezed and expanded views of random arrays with
/// dimensions of extent 1 read the base's items, writes through a view land in the base (and
/// keep its chunks' padding zero), views of views compose, a view follows its base's resizes
/// along the dimensions it keeps and fails once a dimension it dropped grows, and cannot
/// change its own shape. Dropping a dimension of extent 1 whose chunk or block extent is above
/// 1 is no view (the chunks would differ): the copy then has the same items.
#[test]
fn views_share_the_base_chunks() {
    use blosc2::b2nd::DimMap;
    use blosc2::Error;
    let mut rng = Rng(0x71e3_5eed_0b5e_55ed);
    // Shared views, copies instead, earlier views re-applied, grown-along views, unfit views.
    let mut stats = [0usize; 5];
    for case_no in 0..1500 {
        let mut c = random_case(&mut rng);
        // Dimensions of extent 1: most with unit chunks and blocks (shareable), some not.
        for _ in 0..rng.range(0, 3) {
            if c.shape.len() >= 7 {
                break;
            }
            let at = rng.range(0, c.shape.len() as i64) as usize;
            let (chunk, block) = match rng.range(0, 5) {
                0 => (2, rng.range(1, 2) as i32),
                _ => (1, 1),
            };
            c.shape.insert(at, 1);
            c.chunkshape.insert(at, chunk);
            c.blockshape.insert(at, block);
        }
        let ts = c.cparams.typesize as usize;
        let nd = c.shape.len();
        let mut m = Model::random(&mut rng, &c.shape, ts);
        let mut a = Array::<MemStore>::from_cbuffer(&params(&c), &m.data).unwrap();
        // A map kept across operations: a view made earlier, applied again later.
        let mut kept: Option<DimMap> = None;
        for step in 0..5 {
            let ctx = format!("case {case_no} step {step} shape {:?}", m.shape);
            let base_map = DimMap::identity(a.ndim());
            let map = match rng.range(0, 3) {
                0 | 1 => {
                    let index: Vec<bool> = a
                        .shape()
                        .iter()
                        .map(|s| *s == 1 && (rng.range(0, 3) > 0))
                        .collect();
                    match base_map.squeeze(a.geometry(), &index).unwrap() {
                        Some(map) => map,
                        None => {
                            // Not shareable: a dropped dimension has padding in its chunks.
                            assert!((0..a.ndim())
                                .any(|d| index[d]
                                    && (a.chunkshape()[d] > 1 || a.blockshape()[d] > 1)));
                            let copy = a.squeeze_index(&index).unwrap();
                            assert_eq!(copy.to_vec().unwrap(), m.data, "{ctx}");
                            stats[1] += 1;
                            continue;
                        }
                    }
                }
                _ => {
                    if a.ndim() >= 8 {
                        continue;
                    }
                    let mut axis = vec![false; a.ndim()];
                    for _ in 0..rng.range(1, 2) {
                        axis.insert(rng.range(0, axis.len() as i64) as usize, true);
                    }
                    base_map.expand(&axis).unwrap()
                }
            };
            // Sometimes a view of a view: expand a squeezed view again.
            let map = if rng.bool() && map.ndim() < 8 {
                let mut axis = vec![false; map.ndim()];
                axis.insert(rng.range(0, map.ndim() as i64) as usize, true);
                map.expand(&axis).unwrap()
            } else {
                map
            };
            let mut v = Array::view_of(a.into_store(), &map).unwrap();
            assert!(v.is_view() || map.is_identity());
            stats[0] += usize::from(v.is_view());
            let vshape = v.shape().to_vec();
            assert_eq!(
                vshape.iter().product::<i64>(),
                m.shape.iter().product::<i64>()
            );
            assert_eq!(
                vshape.iter().filter(|s| **s != 1).collect::<Vec<_>>(),
                m.shape.iter().filter(|s| **s != 1).collect::<Vec<_>>(),
                "{ctx}"
            );
            let mut vm = Model {
                shape: vshape.clone(),
                ts,
                data: m.data.clone(),
            };
            assert_eq!(v.to_vec().unwrap(), vm.data, "{ctx}");
            // Read and write a random slice through the view.
            let (start, stop) = random_slice(&mut rng, &vshape);
            let want = vm.slice(&start, &stop);
            let mut got = vec![0u8; want.data.len()];
            v.get_slice_cbuffer(&start, &stop, &mut got, &want.shape)
                .unwrap();
            assert_eq!(got, want.data, "{ctx}");
            let patch = Model::random(&mut rng, &want.shape, ts);
            v.set_slice_cbuffer(&patch.data, &patch.shape, &start, &stop)
                .unwrap();
            let _ = for_each_index(&patch.shape, |idx| {
                let at: Vec<i64> = idx.iter().zip(&start).map(|(i, s)| i + s).collect();
                vm.set_item(&at, patch.item(idx));
                Ok(())
            });
            assert_eq!(v.to_vec().unwrap(), vm.data, "{ctx}");
            if v.is_view() {
                let mut grown = vshape.clone();
                if let Some(s) = grown.first_mut() {
                    *s += 1;
                    assert_eq!(v.resize(&grown, None).err(), Some(Error::InvalidParam));
                }
            }
            // Back to the base: the view's writes are there.
            a = Array::from_store(v.into_store()).unwrap();
            m.data = vm.data;
            check_chunks(&a, &m);
            if kept.is_none() && !map.is_identity() {
                kept = Some(map);
            }
            // The base changes along a dimension of extent other than 1, or writes: a view
            // made earlier sees it.
            if rng.bool() {
                let dims: Vec<usize> = (0..nd).filter(|d| m.shape[*d] != 1).collect();
                if let Some(&d) = dims.get(rng.range(0, dims.len().max(1) as i64 - 1) as usize) {
                    let mut new = m.shape.clone();
                    new[d] = (new[d] + rng.range(-2, 3)).max(0);
                    if new[d] == 1 {
                        new[d] = 2;
                    }
                    a.resize(&new, None).unwrap();
                    let old = m.clone();
                    m = Model::build(&new, ts, |idx| {
                        (0..nd)
                            .all(|d| idx[d] < old.shape[d])
                            .then(|| old.item(idx).to_vec())
                    });
                }
            }
            if let Some(km) = &kept {
                let v = Array::view_of(a.into_store(), km).unwrap();
                assert_eq!(v.to_vec().unwrap(), m.data, "{ctx} (earlier view)");
                stats[2] += 1;
                a = Array::from_store(v.into_store()).unwrap();
            }
        }
        // A dimension a view dropped grows: the view no longer fits its base.
        if let Some(km) = &kept {
            if let Some(d) =
                (0..nd).find(|d| m.shape[*d] == 1 && c.chunkshape[*d] == 1 && km.ndim() < nd)
            {
                let mut new = m.shape.clone();
                new[d] = 3;
                a.resize(&new, None).unwrap();
                let fits = Array::view_of(a.into_store(), km);
                if km.dims().contains(&Some(d)) {
                    // Kept: the view grows with its base.
                    assert_eq!(fits.unwrap().to_vec().unwrap().len(), m.data.len() * 3);
                    stats[3] += 1;
                } else {
                    assert_eq!(fits.err(), Some(Error::InvalidParam), "case {case_no}");
                    stats[4] += 1;
                }
            }
        }
    }
    eprintln!("views: {stats:?}");
    assert!(stats.iter().all(|n| *n > 20), "{stats:?}");
}

/// Slices over several chunks with 2 to 4 threads (the chunks shared out among the threads)
/// agree with the model, also when some chunks are special-value chunks read whole and when
/// DELTA makes every block depend on block 0.
#[test]
fn slices_across_chunks_with_threads() {
    let mut rng = Rng(0x51ce_0ac2_0554_c4a1);
    for case_no in 0..800 {
        let mut c = random_case(&mut rng);
        if case_no % 3 == 0 {
            c.cparams.filters = [0, 0, 0, 0, SHUFFLE, DELTA];
        }
        let ts = c.cparams.typesize as usize;
        let mut p = params(&c);
        p.dparams.nthreads = 2 + (case_no % 3) as i16;
        // Zeros with one random region written: the chunks outside it stay special chunks.
        let mut a = Array::<MemStore>::zeros(&p).unwrap();
        let (wstart, wstop) = random_slice(&mut rng, &c.shape);
        let wshape: Vec<i64> = wstart.iter().zip(&wstop).map(|(a, b)| b - a).collect();
        let region = Model::random(&mut rng, &wshape, ts);
        a.set_slice_cbuffer(&region.data, &wshape, &wstart, &wstop)
            .unwrap();
        let m = Model::build(&c.shape, ts, |idx| {
            let inside = (0..idx.len()).all(|d| wstart[d] <= idx[d] && idx[d] < wstop[d]);
            let rel: Vec<i64> = (0..idx.len()).map(|d| idx[d] - wstart[d]).collect();
            Some(if inside {
                region.item(&rel).to_vec()
            } else {
                vec![0u8; ts]
            })
        });
        for k in 0..3 {
            let (start, stop) = if k == 0 {
                (vec![0; c.shape.len()], c.shape.clone())
            } else {
                random_slice(&mut rng, &c.shape)
            };
            let pad = rng.range(0, 1);
            let bshape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a + pad).collect();
            let mut buf = vec![0xaau8; bshape.iter().product::<i64>() as usize * ts];
            a.get_slice_cbuffer(&start, &stop, &mut buf, &bshape)
                .unwrap();
            let want = m.slice(&start, &stop);
            let want = Model::build(&bshape, ts, |idx| {
                let inside = idx.iter().zip(&want.shape).all(|(i, s)| i < s);
                inside.then(|| want.item(idx).to_vec())
            });
            assert_eq!(
                buf, want.data,
                "case {case_no} {start:?}..{stop:?} pad {pad}"
            );
        }
    }
}

/// As c-blosc2: `concatenate` takes the second array's chunks as they are stored whenever they
/// line up with the result's, however they are compressed, and `copy` into the same chunk and
/// block shapes takes them as stored unless the codec, level, filters, block size or
/// dictionary use differ (the split mode and the codec's meta do not count).
#[test]
fn aligned_chunks_are_taken_as_stored() {
    use blosc2::chunk::params::{FORWARD_COMPAT_SPLIT, NEVER_SPLIT};
    use blosc2::codecs::{LZ4, ZSTD};
    let data: Vec<u8> = (0..200 * 100u32)
        .flat_map(|i| (f64::from(i) * 0.25 + f64::from(i % 7)).to_le_bytes())
        .collect();
    let params = |compcode, clevel, splitmode| {
        let cparams = CParams {
            typesize: 8,
            compcode,
            clevel,
            splitmode,
            nthreads: 1,
            ..CParams::default()
        };
        Params::<()>::new(cparams, &[200, 100], &[50, 100], &[10, 50])
    };
    let chunks = |a: &Array<MemStore>| -> Vec<Vec<u8>> {
        (0..a.store().nchunks())
            .map(|n| a.store().chunk(n).unwrap().into_owned())
            .collect()
    };
    let mut a =
        Array::<MemStore>::from_cbuffer(&params(LZ4, 5, FORWARD_COMPAT_SPLIT), &data).unwrap();
    let a_chunks = chunks(&a);
    let b = Array::<MemStore>::from_cbuffer(&params(ZSTD, 3, FORWARD_COMPAT_SPLIT), &data).unwrap();
    let b_chunks = chunks(&b);
    assert_ne!(a_chunks, b_chunks);
    a.concatenate(&b, 0).unwrap();
    assert_eq!(chunks(&a), [a_chunks, b_chunks.clone()].concat());
    assert_eq!(a.to_vec().unwrap(), [data.clone(), data.clone()].concat());

    let c = b.copy::<MemStore>(&params(ZSTD, 3, NEVER_SPLIT)).unwrap();
    assert_eq!(chunks(&c), b_chunks);
    let d = b
        .copy::<MemStore>(&params(ZSTD, 5, FORWARD_COMPAT_SPLIT))
        .unwrap();
    assert_ne!(chunks(&d), b_chunks);
    assert_eq!(d.to_vec().unwrap(), data);
}
