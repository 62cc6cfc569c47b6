//! Times b2nd operations on a 2000x2000 f64 array (compare with bench/b2nd_bench.c, the same
//! operations through c-blosc2): cargo run --release --example b2nd_bench
use blosc2::b2nd::{Array, MemStore, Params};
use blosc2::chunk::CParams;
use std::time::Instant;

fn main() {
    let n = 2000i64;
    let data: Vec<u8> = (0..n * n)
        .flat_map(|i| (((i / n) as f64 * 0.01).sin() + (i % n) as f64 * 0.001).to_le_bytes())
        .collect();
    let cparams = CParams {
        typesize: 8,
        nthreads: 1,
        ..CParams::default()
    };
    let p = Params::<()>::new(cparams, &[n, n], &[500, 500], &[100, 100]);
    let t = Instant::now();
    let mut a = Array::<MemStore>::from_cbuffer(&p, &data).unwrap();
    println!("from_cbuffer   {:8.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut out = vec![0u8; data.len()];
    let t = Instant::now();
    a.to_cbuffer(&mut out).unwrap();
    println!("to_cbuffer     {:8.2} ms", t.elapsed().as_secs_f64() * 1e3);
    assert_eq!(out, data);
    let mut buf = vec![0u8; 100 * 2000 * 8];
    let t = Instant::now();
    for k in 0..10 {
        a.get_slice_cbuffer(
            &[k * 150, 0],
            &[k * 150 + 100, 2000],
            &mut buf,
            &[100, 2000],
        )
        .unwrap();
    }
    println!("get rows x10   {:8.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut small = vec![0u8; 10 * 10 * 8];
    let t = Instant::now();
    for k in 0..1000 {
        let (r, c) = ((k * 37) % 1990, (k * 91) % 1990);
        a.get_slice_cbuffer(&[r, c], &[r + 10, c + 10], &mut small, &[10, 10])
            .unwrap();
    }
    println!("get 10x10 x1000 {:7.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    for k in 0..10 {
        a.set_slice_cbuffer(
            &buf,
            &[100, 2000],
            &[k * 150 + 7, 0],
            &[k * 150 + 107, 2000],
        )
        .unwrap();
    }
    println!("set rows x10   {:8.2} ms", t.elapsed().as_secs_f64() * 1e3);
}
