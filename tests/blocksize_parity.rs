//! Automatic block sizes equal c-blosc2 3.3.5's over the whole parameter matrix: codecs x
//! clevel 0..9 x typesizes 1, 2, 3, 4, 7, 8, 16, 33 x split modes x filter pipelines x chunk
//! sizes from 0 to 9 MiB. `tests/data/blocksizes.txt` is the output of
//! `capi-tests/blocksize_table.c` built against the reference (see its header for the format
//! and how to regenerate it).
//!
//! Chunks up to `COMPRESS_UP_TO` bytes go through the whole compressor (the block size in the
//! header it writes, as the reference table was made); larger ones, where compressing every
//! cell would take minutes, through `choose_blocksize` with the arguments the compressor gives
//! it (the small cells check that those arguments are the compressor's).

use blosc2::chunk::blocksize::choose_blocksize;
use blosc2::chunk::header::{flags_from_filters, BITSHUFFLE, DELTA, SHUFFLE};
use blosc2::chunk::pipeline::BYTEDELTA;
use blosc2::chunk::{cbuffer_sizes, CParams, Compressor};
use blosc2::codecs::{BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD};

const COMPRESS_UP_TO: i32 = 70_000;

fn codec(name: &str) -> u8 {
    match name {
        "blosclz" => BLOSCLZ,
        "lz4" => LZ4,
        "lz4hc" => LZ4HC,
        "zlib" => ZLIB,
        "zstd" => ZSTD,
        _ => panic!("unknown codec {name}"),
    }
}

/// The filter pipelines of the table (last slot last), with their metas.
fn pipeline(digit: char, typesize: i32) -> ([u8; 6], [u8; 6]) {
    let mut f = [0u8; 6];
    let mut m = [0u8; 6];
    match digit {
        '0' => {}
        '1' => f[5] = SHUFFLE,
        '2' => f[5] = BITSHUFFLE,
        '3' => (f[4], f[5]) = (DELTA, SHUFFLE),
        '4' => {
            (f[4], f[5]) = (SHUFFLE, BYTEDELTA);
            m[5] = typesize as u8;
        }
        _ => panic!("unknown pipeline {digit}"),
    }
    (f, m)
}

/// The cells of a line: "v*n" is n cells of value v.
fn expand(values: &str) -> Vec<String> {
    let mut out = Vec::new();
    for v in values.split_whitespace() {
        match v.split_once('*') {
            Some((v, n)) => out.extend(std::iter::repeat_n(v.to_string(), n.parse().unwrap())),
            None => out.push(v.to_string()),
        }
    }
    out
}

#[test]
fn automatic_blocksizes_match_the_reference_table() {
    let table = include_str!("data/blocksizes.txt");
    let mut lines = table.lines().filter(|l| !l.starts_with('#'));
    let sizes: Vec<i32> = lines
        .next()
        .and_then(|l| l.strip_prefix("sizes:"))
        .expect("sizes line")
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    let max = *sizes
        .iter()
        .filter(|s| **s <= COMPRESS_UP_TO)
        .max()
        .unwrap() as usize;
    // As in the table's generator: zeros but the first byte.
    let mut src = vec![0u8; max];
    src[0] = 1;
    let mut dst = vec![0u8; max + 64];

    let (mut cells, mut compressed) = (0usize, 0usize);
    let mut mismatches = Vec::new();
    for line in lines {
        let (key, values) = line.split_once(':').expect("key: values");
        let key: Vec<&str> = key.split_whitespace().collect();
        let [name, clevel, typesize, combos] = key[..] else {
            panic!("bad line {line}");
        };
        let (compcode, clevel) = (codec(name), clevel.parse::<u8>().unwrap());
        let typesize: i32 = typesize.parse().unwrap();
        let values = expand(values);
        assert_eq!(values.len(), sizes.len(), "{line}");
        for combo in combos.split(',') {
            let mut combo = combo.chars();
            let (Some(split), Some(digit), None) = (combo.next(), combo.next(), combo.next())
            else {
                panic!("bad combination in {line}");
            };
            let splitmode = split.to_digit(10).unwrap() as i32;
            let (filters, filters_meta) = pipeline(digit, typesize);
            let params = CParams {
                compcode,
                clevel,
                typesize,
                splitmode,
                filters,
                filters_meta,
                nthreads: 1,
                blocksize: 0,
                ..Default::default()
            };
            let compressor = Compressor::new(params.clone()).unwrap();
            for (&nbytes, want) in sizes.iter().zip(&values) {
                cells += 1;
                let got = if nbytes <= COMPRESS_UP_TO {
                    compressed += 1;
                    let n = nbytes as usize;
                    match compressor.compress(&src[..n], &mut dst[..n + 32]) {
                        Ok(len) if len > 0 => cbuffer_sizes(&dst[..len]).unwrap().2.to_string(),
                        Ok(_) => "0".to_string(),
                        Err(e) => format!("E{}", e.code()),
                    }
                } else {
                    choose_blocksize(
                        compcode,
                        clevel,
                        typesize.max(1),
                        nbytes,
                        0,
                        splitmode,
                        flags_from_filters(&filters),
                    )
                    .0
                    .to_string()
                };
                if got != *want {
                    mismatches.push(format!(
                        "{name} clevel {clevel} typesize {typesize} split {splitmode} \
                         pipeline {digit} nbytes {nbytes}: {got} instead of {want}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "{cells} cells ({compressed} compressed), {} mismatches",
        mismatches.len()
    );
    assert!(cells > 400_000, "table too small: {cells} cells");
    assert!(
        mismatches.is_empty(),
        "{} of {cells} block sizes differ from c-blosc2's:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(60)].join("\n")
    );
}
