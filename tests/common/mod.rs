//! Helpers shared by the frame tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use blosc2::schunk::Schunk;

pub mod recording;

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

pub fn reference_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("RBLOSC2_REFERENCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            cache.join("rblosc2-reference-3.3.5")
        }
    };
    (dir.join("include/blosc2.h").exists() && dir.join("lib/libblosc2.so.9").exists())
        .then_some(dir)
}

/// Builds the reference dumper (`tests/frames_ref/gen.c`); `None` (with a message) when it cannot.
pub fn dumper(work: &Path) -> Option<PathBuf> {
    let Some(reference) = reference_dir() else {
        eprintln!("SKIPPED: reference c-blosc2 not cached (run capi-tests/get-reference.sh)");
        return None;
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frames_ref/gen.c");
    let exe = work.join("gen");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let lib = reference.join("lib");
    let status = Command::new(cc)
        .arg("-O1")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .arg(format!("-I{}", reference.join("include").display()))
        .arg(format!("-L{}", lib.display()))
        .arg("-l:libblosc2.so.9")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .status();
    match status {
        Ok(s) if s.success() => Some(exe),
        _ => {
            eprintln!("SKIPPED: could not compile tests/frames_ref/gen.c against the reference");
            None
        }
    }
}
