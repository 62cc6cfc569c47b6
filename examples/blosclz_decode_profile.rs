//! Decoder workload of bench.c's b2nd slices, for instruction counts of the BloscLZ decoder
//! alone: the 256³ float64 array's 16³ blocks of one 64³ chunk, shuffled (typesize 8) and split
//! into 8 streams of 4 KiB, each compressed at clevel 5 as c-blosc2 does.
//!
//!   cargo run --release --example blosclz_decode_profile -- [ITERS] [--stats]
//!
//! Decodes every stream ITERS times (under `valgrind --tool=callgrind` the count per decoded
//! byte is the figure to compare), and with `--stats` prints the token mix of the streams.
//! `--dump FILE` writes the streams (each: decoded size `u32` LE, stream size `u32` LE, stream)
//! for a driver of another decoder.

use blosc2::codecs::blosclz;
use blosc2::filters::shuffle;

fn value(i: usize, j: usize, k: usize) -> f64 {
    (i * 3 + j) as f64 * 0.25 + ((k * 7 + i) % 64) as f64 * 0.5
}

fn streams(chunk: [usize; 3]) -> Vec<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    for b in 0..64usize {
        let (bi, bj, bk) = (b / 16, b / 4 % 4, b % 4);
        let mut block = Vec::with_capacity(16 * 16 * 16 * 8);
        for i in 0..16 {
            for j in 0..16 {
                for k in 0..16 {
                    let v = value(
                        chunk[0] * 64 + bi * 16 + i,
                        chunk[1] * 64 + bj * 16 + j,
                        chunk[2] * 64 + bk * 16 + k,
                    );
                    block.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        let mut shuffled = vec![0u8; block.len()];
        shuffle::shuffle(8, &block, &mut shuffled);
        for part in shuffled.chunks(4096) {
            let mut c = vec![0u8; part.len()];
            let size = blosclz::compress(5, part, &mut c);
            if size > 0 {
                c.truncate(size);
                out.push((c, part.len()));
            }
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let all: Vec<(Vec<u8>, usize)> = [[0, 0, 0], [1, 2, 3], [3, 1, 2]]
        .iter()
        .flat_map(|&c| streams(c))
        .collect();
    if let Some(i) = args.iter().position(|a| a == "--dump") {
        let mut file = Vec::new();
        for (s, n) in &all {
            file.extend_from_slice(&(*n as u32).to_le_bytes());
            file.extend_from_slice(&(s.len() as u32).to_le_bytes());
            file.extend_from_slice(s);
        }
        std::fs::write(&args[i + 1], file).expect("write dump");
    }
    if args.iter().any(|a| a == "--stats") {
        let (mut lits, mut lit_bytes, mut matches) = (0usize, 0usize, [0usize; 4]);
        let mut match_bytes = [0usize; 4];
        for (s, _) in &all {
            let mut ip = 1;
            let mut ctrl = (s[0] & 31) as usize;
            loop {
                if ctrl < 32 {
                    lits += 1;
                    lit_bytes += ctrl + 1;
                    ip += ctrl + 1;
                } else {
                    let mut len = (ctrl >> 5) + 2;
                    if len == 9 {
                        loop {
                            let c = s[ip];
                            ip += 1;
                            len += c as usize;
                            if c != 255 {
                                break;
                            }
                        }
                    }
                    let low = s[ip] as usize;
                    ip += 1;
                    let mut dist = ((ctrl & 31) << 8 | low) + 1;
                    if low == 255 && ctrl & 31 == 31 {
                        dist = ((s[ip] as usize) << 8 | s[ip + 1] as usize) + 8192;
                        ip += 2;
                    }
                    let class = match dist {
                        1 => 0,
                        2..=7 => 1,
                        8..=15 => 2,
                        _ => 3,
                    };
                    matches[class] += 1;
                    match_bytes[class] += len;
                }
                if ip >= s.len() {
                    break;
                }
                ctrl = s[ip] as usize;
                ip += 1;
            }
        }
        let raw: usize = all.iter().map(|(_, n)| n).sum();
        let comp: usize = all.iter().map(|(s, _)| s.len()).sum();
        println!("{} streams, {raw} -> {comp} bytes", all.len());
        println!("literal runs {lits} ({lit_bytes} bytes)");
        for (name, (n, b)) in ["d=1", "d=2..7", "d=8..15", "d>=16"]
            .iter()
            .zip(matches.iter().zip(match_bytes))
        {
            println!("matches {name}: {n} ({b} bytes)");
        }
    }
    let mut back = vec![0u8; 4096];
    let mut total = 0;
    let start = std::time::Instant::now();
    for _ in 0..iters {
        for (s, n) in &all {
            total += blosclz::decompress(std::hint::black_box(s), &mut back[..*n]);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "decoded {total} bytes, {:.1} MB/s",
        total as f64 / secs / 1e6
    );
}
