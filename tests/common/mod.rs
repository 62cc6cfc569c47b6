//! Helpers shared by the frame tests.
#![allow(dead_code)]

use blosc2::schunk::Schunk;

pub fn fnv1a(b: &[u8]) -> u64 {
    let mut h: u64 = 1469598103934665603;
    for &x in b {
        h ^= x as u64;
        h = h.wrapping_mul(1099511628211);
    }
    h
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The lines `tests/frames_ref/gen.c dump` prints, computed with our library.
pub fn describe(sc: &Schunk) -> Vec<String> {
    let mut out = vec![format!(
        "schunk nchunks={} nbytes={} cbytes={} chunksize={} typesize={} blocksize={} compcode={} clevel={}",
        sc.nchunks(),
        sc.nbytes(),
        sc.cbytes(),
        sc.chunksize(),
        sc.typesize(),
        sc.blocksize(),
        sc.cparams().compcode,
        sc.cparams().clevel
    )];
    for m in sc.metalayers() {
        out.push(format!("meta {} {}", m.name, hex(&m.content)));
    }
    for name in sc.vlmeta_names() {
        let content = sc.vlmeta_get(name).unwrap();
        out.push(
            format!("vlmeta {} {}", name, hex(&content))
                .trim_end()
                .to_string(),
        );
    }
    for n in 0..sc.nchunks() {
        let chunk = sc.get_chunk(n).unwrap();
        let data = sc.decompress_chunk_vec(n).unwrap();
        out.push(format!(
            "chunk {} {} {} {:016x} {:016x}",
            n,
            data.len(),
            chunk.len(),
            fnv1a(&data),
            fnv1a(&chunk)
        ));
        let lazy = sc.get_lazychunk(n).unwrap();
        out.push(format!("lazy {} {} {:016x}", n, lazy.len(), fnv1a(&lazy)));
        let mut again = vec![0u8; data.len()];
        assert_eq!(sc.decompress_lazy(&lazy, &mut again, None), Ok(data.len()));
        if (chunk[31] >> 4) & 7 != 4 {
            assert_eq!(again, data, "lazy chunk {n} decompresses differently");
        }
    }
    out
}
