//! Developer micro-benchmark of the chunk engine (MB/s), for comparing with bench/ref_quick.c.
use blosc2::chunk::{CParams, Compressor, DParams, Decompressor};
use std::time::Instant;

fn main() {
    let n = 4 * 1024 * 1024;
    let data: Vec<u8> = (0..n / 4)
        .flat_map(|i: usize| ((i as f32 * 0.01).sin() * 100.0).to_le_bytes())
        .collect();
    for (name, compcode, clevel, filter, nthreads) in [
        ("noshuffle-lz4", 1u8, 5u8, 0u8, 1i16),
        ("noshuffle-zstd3", 5, 3, 0, 1),
        ("noshuffle-lz4-2t", 1, 5, 0, 2),
    ] {
        let p = CParams {
            compcode,
            clevel,
            typesize: 4,
            nthreads,
            filters: [0, 0, 0, 0, 0, filter],
            ..Default::default()
        };
        let c = Compressor::new(p).unwrap();
        let d = Decompressor::new(DParams {
            nthreads,
            ..Default::default()
        })
        .unwrap();
        let mut dst = vec![0u8; n + 64];
        let mut out = vec![0u8; n];
        let mut best_c = f64::MAX;
        let mut best_d = f64::MAX;
        let mut cbytes = 0;
        for _ in 0..20 {
            let t = Instant::now();
            cbytes = c.compress(&data, &mut dst).unwrap();
            best_c = best_c.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            d.decompress(&dst[..cbytes], &mut out, None).unwrap();
            best_d = best_d.min(t.elapsed().as_secs_f64());
        }
        assert_eq!(out, data);
        println!(
            "{name:20} ratio {:6.2} comp {:8.1} MB/s decomp {:8.1} MB/s",
            n as f64 / cbytes as f64,
            n as f64 / best_c / 1e6,
            n as f64 / best_d / 1e6
        );
    }
}
