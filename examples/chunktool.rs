//! Developer tool: compress/decompress one chunk with the core, for interop checks.
#![allow(clippy::field_reassign_with_default)]
//! chunktool c CODEC CLEVEL TYPESIZE FILTER SPLIT NTHREADS IN OUT
//! chunktool d NTHREADS IN OUT
//! chunktool g START NBYTES IN OUT
use blosc2::chunk::{CParams, Compressor, DParams, Decompressor};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    match a[1].as_str() {
        "c" => {
            let mut p = CParams::default();
            p.compcode = a[2].parse().unwrap();
            p.clevel = a[3].parse().unwrap();
            p.typesize = a[4].parse().unwrap();
            let filters: Vec<u8> = a[5].split(',').map(|x| x.parse().unwrap()).collect();
            p.filters = [0; 6];
            let k = 6 - filters.len();
            p.filters[k..].copy_from_slice(&filters);
            p.splitmode = a[6].parse().unwrap();
            p.nthreads = a[7].parse().unwrap();
            p.use_dict = std::env::var("USE_DICT").is_ok();
            p.legacy_header = std::env::var("LEGACY").is_ok();
            let src = std::fs::read(&a[8]).unwrap();
            let mut dst = vec![0u8; src.len() + 64];
            let c = Compressor::new(p).unwrap();
            let n = c.compress(&src, &mut dst).unwrap();
            std::fs::write(&a[9], &dst[..n]).unwrap();
        }
        "d" => {
            let p = DParams {
                nthreads: a[2].parse().unwrap(),
                ..Default::default()
            };
            let src = std::fs::read(&a[3]).unwrap();
            let (nbytes, _, _) = blosc2::chunk::cbuffer_sizes(&src).unwrap();
            let mut dst = vec![0u8; nbytes as usize];
            let d = Decompressor::new(p).unwrap();
            match d.decompress(&src, &mut dst, None) {
                Ok(n) => std::fs::write(&a[4], &dst[..n]).unwrap(),
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(1)
                }
            }
        }
        "g" => {
            let start: usize = a[2].parse().unwrap();
            let n: usize = a[3].parse().unwrap();
            let src = std::fs::read(&a[4]).unwrap();
            let mut dst = vec![0u8; n];
            let d = Decompressor::new(DParams::default()).unwrap();
            let r = d.getitem_bytes(&src, start, n, &mut dst).unwrap();
            std::fs::write(&a[5], &dst[..r]).unwrap();
        }
        "v" => {
            let mut p = CParams::default();
            p.compcode = a[2].parse().unwrap();
            p.clevel = a[3].parse().unwrap();
            p.typesize = a[4].parse().unwrap();
            let filters: Vec<u8> = a[5].split(',').map(|x| x.parse().unwrap()).collect();
            p.filters = [0; 6];
            let k = 6 - filters.len();
            p.filters[k..].copy_from_slice(&filters);
            p.use_dict = std::env::var("USE_DICT").is_ok();
            let blocks: Vec<Vec<u8>> = a[7..].iter().map(|f| std::fs::read(f).unwrap()).collect();
            let refs: Vec<&[u8]> = blocks.iter().map(|b| &b[..]).collect();
            let mut dst =
                vec![
                    0u8;
                    blocks.iter().map(|b| b.len()).sum::<usize>() + 64 * blocks.len() + 40000
                ];
            let n = blosc2::chunk::vlblocks::vlcompress(&p, &refs, &mut dst).unwrap();
            std::fs::write(&a[6], &dst[..n]).unwrap();
        }
        _ => panic!("usage"),
    }
}
