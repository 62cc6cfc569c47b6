//! getitem on `zfp_rate` (codec 35) chunks of b2nd arrays, as c-blosc2 3.3.5 serves it: items
//! that fit in the zfp cell (4 items a side) holding the first are decoded from that cell
//! alone, in the cell's order; a request asking for more bits than a cell holds fails with
//! `Data`; anything else reads whole blocks. Byte-for-byte comparisons with the reference are
//! in capi-tests/zfp_getitem.c; this checks the same rules against whole-chunk decoding,
//! including the requests spanning blocks, where we return the right items and c-blosc2 does
//! not.

use blosc2::b2nd::{Array, Params};
use blosc2::chunk::{CParams, DParams, Decompressor};
use blosc2::schunk::{Schunk, Storage};
use blosc2::Error;

const ZFP_RATE: u8 = 35;

fn cparams(typesize: i32, rate: u8) -> CParams {
    CParams {
        typesize,
        compcode: ZFP_RATE,
        compcode_meta: rate,
        filters: [0; 6],
        nthreads: 1,
        ..CParams::default()
    }
}

fn data(n: usize, typesize: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            let v = (i % 13) as f64 * 1.25 + (i / 7) as f64 * 0.5 + ((i * 7919) % 17) as f64 / 8.0;
            if typesize == 4 {
                (v as f32).to_le_bytes().to_vec()
            } else {
                v.to_le_bytes().to_vec()
            }
        })
        .collect()
}

fn array(shape: &[i64], chunks: &[i32], blocks: &[i32], typesize: i32, rate: u8) -> Array<Schunk> {
    let n = shape.iter().product::<i64>() as usize;
    let p = Params::<Storage>::new(cparams(typesize, rate), shape, chunks, blocks);
    Array::<Schunk>::from_cbuffer(&p, &data(n, typesize as usize)).unwrap()
}

/// getitem of `nitems` items from item `start` of chunk `nchunk`.
fn getitem(sc: &Schunk, nchunk: i64, start: usize, nitems: usize) -> blosc2::Result<Vec<u8>> {
    let chunk = sc.get_chunk(nchunk).unwrap();
    let ts = sc.typesize() as usize;
    let mut out = vec![0u8; nitems * ts];
    let n = sc
        .decompressor()
        .getitem_bytes(&chunk, start * ts, nitems * ts, &mut out)?;
    assert_eq!(n, nitems * ts);
    Ok(out)
}

/// The block coordinates (C order) of block item `i`.
fn coords(blockshape: &[i32], mut i: usize) -> Vec<usize> {
    let mut c = vec![0; blockshape.len()];
    for d in (0..blockshape.len()).rev() {
        c[d] = i % blockshape[d] as usize;
        i /= blockshape[d] as usize;
    }
    c
}

/// Block item `start`'s place in its cell (the cell's items in C order, 4 a side).
fn in_cell(blockshape: &[i32], start: usize) -> usize {
    coords(blockshape, start)
        .iter()
        .fold(0, |p, c| p * 4 + c % 4)
}

/// Where the `k`-th item of a cell-wise getitem from block item `start` lies in the block (C
/// order), or None for the cell's padding past the block's edge.
fn cell_item(blockshape: &[i32], start: usize, k: usize) -> Option<usize> {
    let corner = coords(blockshape, start);
    let mut p = in_cell(blockshape, start) + k;
    let (mut flat, mut stride) = (0, 1);
    for d in (0..blockshape.len()).rev() {
        let c = corner[d] - corner[d] % 4 + p % 4;
        p /= 4;
        if c >= blockshape[d] as usize {
            return None;
        }
        flat += c * stride;
        stride *= blockshape[d] as usize;
    }
    Some(flat)
}

struct Case {
    shape: &'static [i64],
    chunks: &'static [i32],
    blocks: &'static [i32],
    typesize: i32,
    rate: u8,
}

const CASES: &[Case] = &[
    Case {
        shape: &[100],
        chunks: &[50],
        blocks: &[22],
        typesize: 4,
        rate: 50,
    },
    Case {
        shape: &[90],
        chunks: &[44],
        blocks: &[16],
        typesize: 8,
        rate: 25,
    },
    Case {
        shape: &[20, 13],
        chunks: &[12, 10],
        blocks: &[8, 5],
        typesize: 4,
        rate: 50,
    },
    Case {
        shape: &[21, 19],
        chunks: &[16, 12],
        blocks: &[9, 7],
        typesize: 8,
        rate: 37,
    },
    Case {
        shape: &[12, 9, 10],
        chunks: &[10, 9, 8],
        blocks: &[8, 5, 6],
        typesize: 4,
        rate: 30,
    },
    Case {
        shape: &[9, 9, 9],
        chunks: &[8, 8, 8],
        blocks: &[4, 6, 5],
        typesize: 8,
        // (At 60% its blocks' cells, padding included, would not be smaller than the block:
        // stored raw, no cells.)
        rate: 40,
    },
];

/// The bits a cell takes, as zfp's fixed-rate mode rounds them.
fn cell_bits(c: &Case) -> usize {
    let n = 4usize.pow(c.blocks.len() as u32);
    let rate = (c.rate as usize * c.typesize as usize * 8) as f64 / 100.0;
    let min = if c.typesize == 4 { 9 } else { 12 };
    ((n as f64 * rate + 0.5).floor() as usize).max(min)
}

#[test]
fn one_item_is_the_decoded_chunks_item() {
    for c in CASES {
        let a = array(c.shape, c.chunks, c.blocks, c.typesize, c.rate);
        let sc = a.store();
        let ts = c.typesize as usize;
        for nchunk in 0..sc.nchunks() {
            let whole = sc.decompress_chunk_vec(nchunk).unwrap();
            for i in 0..whole.len() / ts {
                let got = getitem(sc, nchunk, i, 1).unwrap();
                assert_eq!(
                    got,
                    whole[i * ts..(i + 1) * ts],
                    "{:?} chunk {nchunk} item {i}",
                    c.blocks
                );
            }
        }
    }
}

#[test]
fn runs_inside_a_cell_come_in_the_cells_order() {
    for c in CASES {
        let a = array(c.shape, c.chunks, c.blocks, c.typesize, c.rate);
        let sc = a.store();
        let ts = c.typesize as usize;
        let whole = sc.decompress_chunk_vec(0).unwrap();
        let block_items = c.blocks.iter().product::<i32>() as usize;
        let cell_items = 4usize.pow(c.blocks.len() as u32);
        let max_items = cell_bits(c) / (ts * 8);
        let mut served = 0;
        for start in 0..block_items {
            for nitems in 1..=cell_items {
                // Inside the start's cell (its padding included) and inside the block.
                if in_cell(c.blocks, start) + nitems > cell_items || start + nitems > block_items {
                    continue;
                }
                let got = getitem(sc, 0, start, nitems);
                if nitems > max_items {
                    assert_eq!(got, Err(Error::Data), "{:?} {start}+{nitems}", c.blocks);
                    continue;
                }
                let got = got.unwrap();
                for k in 0..nitems {
                    if let Some(at) = cell_item(c.blocks, start, k) {
                        assert_eq!(
                            got[k * ts..(k + 1) * ts],
                            whole[at * ts..(at + 1) * ts],
                            "{:?} {start}+{nitems} item {k}",
                            c.blocks
                        );
                    }
                }
                served += 1;
            }
        }
        assert!(served > 0);
    }
}

#[test]
fn runs_past_a_cell_or_across_blocks_are_the_decoded_chunks_items() {
    for c in CASES {
        let a = array(c.shape, c.chunks, c.blocks, c.typesize, c.rate);
        let sc = a.store();
        let ts = c.typesize as usize;
        let whole = sc.decompress_chunk_vec(0).unwrap();
        let items = whole.len() / ts;
        let block_items = c.blocks.iter().product::<i32>() as usize;
        let cell_items = 4usize.pow(c.blocks.len() as u32);
        let max_items = cell_bits(c) / (ts * 8);
        for start in (0..items).step_by(3) {
            for nitems in [
                1,
                2,
                3,
                5,
                9,
                17,
                cell_items + 1,
                block_items,
                2 * block_items,
            ] {
                let one_block = start / block_items == (start + nitems - 1) / block_items;
                let fits_cell = in_cell(c.blocks, start % block_items) + nitems <= cell_items;
                if start + nitems > items || one_block && fits_cell {
                    continue;
                }
                let got = getitem(sc, 0, start, nitems);
                // A block the run enters at its first item tries the cell first (and fails
                // when the run asks for more bits than a cell has); so does the first block
                // when the run fits in its start's (edge) cell.
                match got {
                    Ok(got) => assert_eq!(got, whole[start * ts..(start + nitems) * ts]),
                    Err(e) => {
                        assert_eq!(e, Error::Data);
                        assert!(
                            nitems > max_items && nitems <= cell_items,
                            "{start}+{nitems}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn slices_read_whole_chunks_whole_and_fail_as_the_reference() {
    // Chunks of one 4x4 block, a rate too low for a whole cell through getitem.
    let a = array(&[16, 16], &[4, 4], &[4, 4], 4, 30);
    let sc = a.store();
    let whole = sc.decompress_chunk_vec(0).unwrap();
    let mut out = vec![0u8; 16 * 4];
    sc.get_slice_buffer(0, 16, &mut out).unwrap();
    assert_eq!(out, whole);
    // A part of it goes through getitem: 16 * 30% of 32 bits = 154 bits a cell, 4 items ask
    // for 128, 5 for 160.
    let mut part = vec![0u8; 5 * 4];
    sc.get_slice_buffer(0, 4, &mut part[..16]).unwrap();
    assert_eq!(part[..16], whole[..16]);
    assert_eq!(sc.get_slice_buffer(0, 5, &mut part), Err(Error::Failure));
    assert_eq!(getitem(sc, 0, 0, 5), Err(Error::Data));
}

#[test]
fn without_an_array_layout_getitem_fails_cleanly() {
    // c-blosc2 crashes here (its cell reader reads the context's super-chunk, NULL).
    let a = array(&[20, 13], &[12, 10], &[8, 5], 4, 50);
    let chunk = a.store().get_chunk(0).unwrap().into_owned();
    let d = Decompressor::new(DParams::default()).unwrap();
    let mut out = [0u8; 8];
    assert!(d.getitem_bytes(&chunk, 4, 8, &mut out).is_err());
}

#[test]
fn mutated_chunks_do_not_panic() {
    let a = array(&[21, 19], &[16, 12], &[9, 7], 8, 37);
    let sc = a.store();
    let chunk = sc.get_chunk(0).unwrap().into_owned();
    let mut x: u32 = 0x9e37_79b9;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut out = vec![0u8; 64 * 8];
    for _ in 0..3000 {
        let mut m = chunk.clone();
        for _ in 0..1 + next() % 4 {
            let pos = if next() % 5 == 0 {
                next() as usize % 32
            } else {
                next() as usize % m.len()
            };
            m[pos] ^= 1 + (next() % 255) as u8;
        }
        let start = (next() % 200) as usize * 8;
        let n = (1 + next() % 64) as usize * 8;
        let _ = sc.decompressor().getitem_bytes(&m, start, n, &mut out[..n]);
    }
}

#[test]
fn a_run_crossing_a_cell_row_continues_on_the_cells_next_row() {
    // Blocks of 8x5: items 3 and 4 of row 0 are in different cells; from item 3, the next item
    // of its cell is row 1's first (block item 5).
    let a = array(&[20, 13], &[12, 10], &[8, 5], 4, 50);
    let sc = a.store();
    let whole = sc.decompress_chunk_vec(0).unwrap();
    let got = getitem(sc, 0, 3, 2).unwrap();
    assert_eq!(got[..4], whole[12..16]);
    assert_eq!(got[4..], whole[20..24]);
    assert_ne!(got[4..], whole[16..20]);
}
