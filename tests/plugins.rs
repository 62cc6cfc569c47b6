//! The plugins c-blosc2 3.3.5 registers at init, through the Rust API: the cell filters
//! (ndcell, ndmean) get the block shape from the array's "b2nd" metalayer, in memory, in a
//! frame and after reopening one; without an array they refuse. (Byte-for-byte interop with
//! the reference is in capi-tests/plugin_interop.c.)

use blosc2::b2nd::{Array, MemStore, Params};
use blosc2::chunk::{CParams, Compressor};
use blosc2::schunk::{Schunk, Storage};
use blosc2::Error;

/// `BLOSC_FILTER_NDCELL` and `BLOSC_FILTER_NDMEAN`.
const NDCELL: u8 = 32;
const NDMEAN: u8 = 33;

fn cparams(filter: u8, meta: u8, typesize: i32) -> CParams {
    let mut filters = [0; 6];
    let mut filters_meta = [0; 6];
    filters[4] = filter;
    filters_meta[4] = meta;
    filters[5] = 1; // SHUFFLE
    CParams {
        typesize,
        filters,
        filters_meta,
        ..CParams::default()
    }
}

fn ints(n: usize) -> Vec<u8> {
    (0..n as u32)
        .flat_map(|i| (i * 3 + i / 17).to_le_bytes())
        .collect()
}

fn f32s(v: &[u8]) -> Vec<f32> {
    v.as_chunks::<4>()
        .0
        .iter()
        .map(|&c| f32::from_le_bytes(c))
        .collect()
}

#[test]
fn ndcell_round_trips_in_memory_frames_and_reopened_files() {
    let data = ints(29 * 13);
    let mut p = Params::<()>::new(cparams(NDCELL, 3, 4), &[29, 13], &[10, 8], &[5, 6]);
    p.dtype = "<u4".into();
    let a = Array::<MemStore>::from_cbuffer(&p, &data).unwrap();
    assert_eq!(a.to_vec().unwrap(), data);

    let path = std::env::temp_dir().join(format!("rblosc2-ndcell-{}.b2nd", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut p = Params::<Storage>::new(cparams(NDCELL, 3, 4), &[29, 13], &[10, 8], &[5, 6]);
    p.options.contiguous = true;
    p.options.urlpath = Some(path.clone());
    let a = Array::<Schunk>::from_cbuffer(&p, &data).unwrap();
    assert_eq!(a.to_vec().unwrap(), data);
    drop(a);
    let reopened = Array::open(&path).unwrap();
    assert_eq!(reopened.to_vec().unwrap(), data);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn ndmean_averages_cells_and_the_zero_padding() {
    // Ones in a 63x63 array of one 64x64 block, cells of 2: the cells on the last row and
    // column of the block hold padding zeros too.
    let data: Vec<u8> = (0..63 * 63).flat_map(|_| 1f32.to_le_bytes()).collect();
    let p = Params::<()>::new(cparams(NDMEAN, 2, 4), &[63, 63], &[64, 64], &[64, 64]);
    let a = Array::<MemStore>::from_cbuffer(&p, &data).unwrap();
    let v = f32s(&a.to_vec().unwrap());
    let at = |r: usize, c: usize| v[r * 63 + c];
    assert_eq!([at(0, 0), at(61, 61), at(30, 40)], [1.0, 1.0, 1.0]);
    assert_eq!([at(62, 0), at(62, 61), at(0, 62), at(61, 62)], [0.5; 4]);
    assert_eq!(at(62, 62), 0.25);
}

#[test]
fn cell_filters_refuse_without_an_array() {
    for filter in [NDCELL, NDMEAN] {
        let c = Compressor::new(cparams(filter, 2, 4)).unwrap();
        let src = vec![0u8; 4096];
        let mut dst = vec![0u8; 4096 + 64];
        assert_eq!(c.compress(&src, &mut dst), Err(Error::FilterPipeline));
    }
}
