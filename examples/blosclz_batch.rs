//! Batch driver for comparing the BloscLZ codec with another implementation.
//!
//! Reads cases from stdin — each `clevel: u8, maxout: u32 LE, len: u32 LE, data[len]` — and
//! writes for each the compressed size (`u32` LE) followed by the compressed bytes, after
//! checking that the stream decompresses back to the input. With `--time` it instead prints
//! compress and decompress throughput for every case. With `--decompress` each case's data is a
//! stream to decode into `maxout` bytes, and the output is the decoder's result (`u32` LE)
//! followed by that many bytes.

use std::io::{Read, Write};
use std::time::Instant;

use blosc2::codecs::blosclz;

fn main() {
    let timing = std::env::args().any(|a| a == "--time");
    let decoding = std::env::args().any(|a| a == "--decompress");
    let mut raw = Vec::new();
    std::io::stdin().read_to_end(&mut raw).expect("read stdin");
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < raw.len() {
        let clevel = raw[pos] as i32;
        let maxout = u32::from_le_bytes(raw[pos + 1..pos + 5].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(raw[pos + 5..pos + 9].try_into().unwrap()) as usize;
        let data = &raw[pos + 9..pos + 9 + len];
        pos += 9 + len;
        if decoding {
            let mut dest = vec![0u8; maxout];
            let size = blosclz::decompress(data, &mut dest);
            out.extend_from_slice(&(size as u32).to_le_bytes());
            out.extend_from_slice(&dest[..size]);
            continue;
        }
        let mut dest = vec![0u8; maxout];
        let size = blosclz::compress(clevel, data, &mut dest);
        if size > 0 {
            let mut back = vec![0u8; len];
            assert_eq!(blosclz::decompress(&dest[..size], &mut back), len);
            assert!(back == data, "round trip mismatch");
        }
        if timing {
            // Best of several short batches: the machine is shared.
            let reps = (20_000_000 / len.max(1)).max(3);
            let best = |f: &mut dyn FnMut()| {
                (0..10)
                    .map(|_| {
                        let t = Instant::now();
                        for _ in 0..reps {
                            f();
                        }
                        t.elapsed().as_secs_f64() / reps as f64
                    })
                    .fold(f64::INFINITY, f64::min)
            };
            let ct = best(&mut || {
                std::hint::black_box(blosclz::compress(clevel, data, &mut dest));
            });
            let mut back = vec![0u8; len];
            let mut dt = f64::NAN;
            if size > 0 {
                let stream = dest[..size].to_vec();
                dt = best(&mut || {
                    std::hint::black_box(blosclz::decompress(&stream, &mut back));
                });
            }
            writeln!(
                out,
                "{clevel} {len} {size} {:.1} {:.1}",
                len as f64 / ct / 1e6,
                len as f64 / dt / 1e6
            )
            .unwrap();
        } else {
            out.extend_from_slice(&(size as u32).to_le_bytes());
            out.extend_from_slice(&dest[..size]);
        }
    }
    std::io::stdout().write_all(&out).expect("write stdout");
}
