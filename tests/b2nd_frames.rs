//! b2nd arrays in frames: the example files written by c-blosc2 open with the shapes, dtypes
//! and data the reference reports (tests/data/b2nd_dump_example.c), and arrays survive
//! to_cframe/from_cframe and save/open.

use blosc2::b2nd::{Array, ChunkStore, MemStore, Params};
use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};
use std::path::Path;

/// FNV-1a over the bytes, with the offset basis b2nd_dump_example.c uses (1469598103934665603).
fn fnv1a64(b: &[u8]) -> u64 {
    b.iter().fold(1_469_598_103_934_665_603u64, |h, x| {
        (h ^ *x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn f32_at(v: &[u8], i: usize) -> f32 {
    f32::from_le_bytes(v[i * 4..i * 4 + 4].try_into().unwrap())
}

#[test]
fn example_files_match_reference() {
    // c-blosc2 3.3.5: ndim 2, typesize 4, 4 chunks, dtype "|u1", shape 400x3, chunks 110x3,
    // blocks 57x3, fnv1a64 of the data 9d9680a61a1d9d51.
    let a = Array::open(Path::new("tests/data/example_day_month_temp.b2nd")).unwrap();
    assert_eq!(a.shape(), &[400, 3]);
    assert_eq!(a.chunkshape(), vec![110, 3]);
    assert_eq!(a.blockshape(), vec![57, 3]);
    assert_eq!(
        (a.typesize(), a.dtype(), a.dtype_format()),
        (4, Some("|u1"), 0)
    );
    let v = a.to_vec().unwrap();
    assert_eq!(fnv1a64(&v), 0x9d96_80a6_1a1d_9d51);
    assert_eq!(
        [f32_at(&v, 0), f32_at(&v, 1), f32_at(&v, 2)],
        [9.0, 3.0, 31.144001]
    );
    assert_eq!([f32_at(&v, 370), f32_at(&v, 1199)], [26.613998, 2.709375]);
    // 12x25x250, chunks 8x10x50, blocks 4x5x10, 30 chunks, fnv1a64 c72059f80474fd8b.
    let a = Array::open(Path::new("tests/data/example_item_prices.b2nd")).unwrap();
    assert_eq!(a.shape(), &[12, 25, 250]);
    assert_eq!(a.chunkshape(), vec![8, 10, 50]);
    assert_eq!(a.blockshape(), vec![4, 5, 10]);
    assert_eq!(a.store().nchunks(), 30);
    assert_eq!((a.typesize(), a.dtype()), (4, Some("|u1")));
    let v = a.to_vec().unwrap();
    assert_eq!(fnv1a64(&v), 0xc720_59f8_0474_fd8b);
    let idx = (5 * 25 + 13) * 250 + 77;
    assert_eq!(
        [f32_at(&v, 0), f32_at(&v, idx), f32_at(&v, 74999)],
        [194.5, 65.0, 419.5]
    );
    // A slice read through the frame.
    let mut buf = vec![0u8; 2 * 3 * 4 * 4];
    a.get_slice_cbuffer(&[5, 13, 77], &[7, 16, 81], &mut buf, &[2, 3, 4])
        .unwrap();
    assert_eq!(f32_at(&buf, 0), 65.0);
}

fn frame_params(contiguous: bool, urlpath: Option<std::path::PathBuf>) -> Params<Storage> {
    let cparams = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut p = Params::<Storage>::new(cparams, &[13, 9], &[5, 4], &[2, 3]);
    p.options.contiguous = contiguous;
    p.options.urlpath = urlpath;
    p.dtype = "<i4".into();
    p
}

fn data(n: usize) -> Vec<u8> {
    (0..n * 4).map(|k| (k * 7 + k / 13) as u8).collect()
}

#[test]
fn arrays_in_frames_round_trip() {
    let dir = std::env::temp_dir().join(format!("rblosc2-b2nd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (contiguous, path)) in [
        (true, None),
        (false, None),
        (true, Some(dir.join("a.b2nd"))),
        (false, Some(dir.join("sparse.b2nd"))),
    ]
    .into_iter()
    .enumerate()
    {
        let p = frame_params(contiguous, path.clone());
        let mut a = Array::<Schunk>::from_cbuffer(&p, &data(13 * 9)).unwrap();
        // Reshape in place: frames must take inserts, deletes and updates.
        a.insert(&data(5 * 9), 0, 5).unwrap();
        a.delete(1, 0, 4).unwrap();
        a.append(&data(18 * 2), 1).unwrap();
        let v = a.to_vec().unwrap();
        assert_eq!(a.shape(), &[18, 7]);
        // The same operations in memory give the same chunks.
        let mut m = Array::<MemStore>::from_cbuffer(&frame_params_mem(), &data(13 * 9)).unwrap();
        m.insert(&data(5 * 9), 0, 5).unwrap();
        m.delete(1, 0, 4).unwrap();
        m.append(&data(18 * 2), 1).unwrap();
        assert_eq!(m.to_vec().unwrap(), v);
        for n in 0..m.store().nchunks() {
            assert_eq!(
                a.store().chunk(n).unwrap(),
                m.store().chunk(n).unwrap(),
                "chunk {n}"
            );
        }
        let cframe = a.to_cframe().unwrap().into_owned();
        let b = Array::from_cframe(cframe).unwrap();
        assert_eq!((b.shape(), b.dtype()), (&[18i64, 7][..], Some("<i4")));
        assert_eq!(b.to_vec().unwrap(), v);
        if let Some(path) = path {
            drop(a);
            let b = Array::open(&path).unwrap();
            assert_eq!(b.to_vec().unwrap(), v);
        }
        let saved = dir.join(format!("saved-{i}.b2nd"));
        b.save(&saved).unwrap();
        let c = Array::open(&saved).unwrap();
        assert_eq!(c.to_vec().unwrap(), v);
        assert_eq!(c.chunkshape(), vec![5, 4]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn frame_params_mem() -> Params<()> {
    let p = frame_params(false, None);
    let mut q = Params::<()>::new(p.cparams, &p.shape, &p.chunkshape, &p.blockshape);
    q.dtype = p.dtype;
    q
}

/// Random reshapes of arrays in contiguous and sparse in-memory frames give the chunks the
/// in-memory store gives.
#[test]
fn random_reshapes_in_frames_match_memory() {
    let mut seed = 0x51u64;
    let mut rnd = |n: i64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as i64
    };
    for case in 0..150 {
        let shape = [rnd(9) + 1, rnd(7) + 1];
        let chunkshape = [rnd(4) as i32 + 1, rnd(4) as i32 + 1];
        let blockshape = [
            rnd(chunkshape[0] as i64) as i32 + 1,
            rnd(chunkshape[1] as i64) as i32 + 1,
        ];
        let cparams = CParams {
            typesize: 2,
            ..CParams::default()
        };
        let mut pf = Params::<Storage>::new(cparams.clone(), &shape, &chunkshape, &blockshape);
        pf.options.contiguous = case % 2 == 0;
        let pm = Params::<()>::new(cparams, &shape, &chunkshape, &blockshape);
        let n = (shape[0] * shape[1]) as usize;
        let mut f = Array::<Schunk>::from_cbuffer(&pf, &data(n / 2 + 1)[..n * 2]).unwrap();
        let mut m = Array::<MemStore>::from_cbuffer(&pm, &data(n / 2 + 1)[..n * 2]).unwrap();
        for _ in 0..4 {
            let axis = rnd(2) as usize;
            let s = m.shape().to_vec();
            let other = s[1 - axis];
            match rnd(3) {
                0 => {
                    let rows = rnd(4) + 1;
                    let buf = data((rows * other) as usize / 2 + 1)[..(rows * other * 2) as usize]
                        .to_vec();
                    let c = chunkshape[axis] as i64;
                    let at = if rnd(2) == 0 {
                        s[axis]
                    } else {
                        rnd(s[axis] / c + 1) * c
                    };
                    let len_ok = at == s[axis] || rows % c == 0;
                    // Nothing can be inserted across an empty cross-section.
                    if !len_ok || other == 0 {
                        continue;
                    }
                    f.insert(&buf, axis, at).unwrap();
                    m.insert(&buf, axis, at).unwrap();
                }
                1 => {
                    let len = rnd(s[axis] + 1);
                    f.delete(axis, s[axis] - len, len).unwrap();
                    m.delete(axis, s[axis] - len, len).unwrap();
                }
                _ => {
                    let new = [s[0] + rnd(5) - 2, s[1] + rnd(5) - 2].map(|x| x.max(0));
                    f.resize(&new, None).unwrap();
                    m.resize(&new, None).unwrap();
                }
            }
            assert_eq!(f.shape(), m.shape());
            assert_eq!(f.to_vec().unwrap(), m.to_vec().unwrap(), "case {case}");
        }
        assert_eq!(f.store().nchunks(), m.store().nchunks());
        for i in 0..m.store().nchunks() {
            assert_eq!(
                f.store().chunk(i).unwrap(),
                m.store().chunk(i).unwrap(),
                "case {case} chunk {i}"
            );
        }
        let cf = f.to_cframe().unwrap().into_owned();
        let back = Array::from_cframe(cf).unwrap();
        assert_eq!(back.to_vec().unwrap(), m.to_vec().unwrap());
    }
}

#[test]
fn zeros_frame_equals_reference() {
    // c-blosc2 3.3.5's b2nd_zeros + b2nd_to_cframe (generator: data/b2nd_zeros_reference.c).
    let want = include_bytes!("data/b2nd_zeros_reference.b2frame");
    let cparams = CParams {
        typesize: 4,
        nthreads: 1,
        ..CParams::default()
    };
    let mut p = Params::<Storage>::new(cparams, &[13, 9], &[5, 4], &[2, 3]);
    p.options.contiguous = true;
    p.dtype = "<i4".into();
    let a = Array::<Schunk>::zeros(&p).unwrap();
    assert_eq!(&a.to_cframe().unwrap()[..], &want[..]);
    let b = Array::from_cframe(want.to_vec()).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![0u8; 13 * 9 * 4]);
}

/// Thin slices of arrays in frame files (read block by block, through lazy chunks) give what
/// the same slices of the array in memory give: shuffle, DELTA (whose block 0 every block
/// needs) and incompressible data (chunks stored as they are), in a cframe and an sframe.
#[test]
fn thin_slices_of_arrays_on_disk_match_memory() {
    let dir = std::env::temp_dir().join(format!("rblosc2-b2nd-thin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let n = 48usize;
    let mut x: u32 = 7;
    let noisy: Vec<u8> = (0..n * n * n * 8)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as u8
        })
        .collect();
    let smooth: Vec<u8> = (0..n * n * n)
        .flat_map(|i| ((i % 1000) as f64 * 0.5).to_le_bytes())
        .collect();
    let cases: [(&str, &[u8], [u8; 6]); 3] = [
        ("shuffle", &smooth, [0, 0, 0, 0, 0, 1]),
        ("delta", &smooth, [0, 0, 0, 0, 3, 1]),
        ("noisy", &noisy, [0, 0, 0, 0, 0, 1]),
    ];
    for (name, values, filters) in cases {
        for contiguous in [true, false] {
            let cparams = CParams {
                typesize: 8,
                filters,
                ..CParams::default()
            };
            let shape = [n as i64; 3];
            let mut p = Params::<Storage>::new(cparams.clone(), &shape, &[24, 24, 24], &[6, 6, 6]);
            p.options.contiguous = contiguous;
            let path = dir.join(format!("{name}-{contiguous}.b2nd"));
            p.options.urlpath = Some(path.clone());
            drop(Array::<Schunk>::from_cbuffer(&p, values).unwrap());
            let on_disk = Array::<Schunk>::open(&path).unwrap();
            let mut q = Params::<()>::new(cparams, &shape, &[24, 24, 24], &[6, 6, 6]);
            q.dtype = p.dtype.clone();
            let in_memory = Array::<MemStore>::from_cbuffer(&q, values).unwrap();
            for (start, stop) in [
                ([13, 0, 0], [15, 48, 48]),
                ([0, 7, 0], [48, 8, 48]),
                ([0, 0, 30], [48, 48, 31]),
                ([25, 3, 40], [26, 47, 44]),
            ] {
                let bshape: Vec<i64> = (0..3).map(|d| stop[d] - start[d]).collect();
                let len = bshape.iter().product::<i64>() as usize * 8;
                let (mut a, mut b) = (vec![0u8; len], vec![1u8; len]);
                on_disk
                    .get_slice_cbuffer(&start, &stop, &mut a, &bshape)
                    .unwrap();
                in_memory
                    .get_slice_cbuffer(&start, &stop, &mut b, &bshape)
                    .unwrap();
                assert!(a == b, "{name} contiguous={contiguous} {start:?}..{stop:?}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
