//! Which SIMD instruction set the filter kernels use, detected once per process.
//!
//! The environment variable `RBLOSC2_SIMD` (`scalar`, `sse2`, `avx2` or `gfni`) caps the choice, so
//! every kernel family can be exercised, and compared with the reference, on one machine.

use std::sync::atomic::{AtomicU8, Ordering};

/// The kernel families, from slowest to fastest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Isa {
    Scalar = 1,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Sse2 = 2,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2 = 3,
    /// AVX2 plus GFNI (its affine instruction transposes 8x8 bit matrices in one go).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2Gfni = 4,
}

static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The best instruction set this CPU offers (cached after the first call).
pub(crate) fn isa() -> Isa {
    match DETECTED.load(Ordering::Relaxed) {
        1 => Isa::Scalar,
        2 => Isa::Sse2,
        3 => Isa::Avx2,
        4 => Isa::Avx2Gfni,
        _ => {
            let found = detect();
            DETECTED.store(found as u8, Ordering::Relaxed);
            found
        }
    }
}

fn detect() -> Isa {
    let cap = match std::env::var("RBLOSC2_SIMD").as_deref() {
        Ok("scalar") => Isa::Scalar,
        Ok("sse2") => Isa::Sse2,
        Ok("avx2") => Isa::Avx2,
        _ => Isa::Avx2Gfni,
    };
    cpu_best().min(cap)
}

#[cfg(target_arch = "x86_64")]
fn cpu_best() -> Isa {
    if std::arch::is_x86_feature_detected!("avx2") {
        if std::arch::is_x86_feature_detected!("gfni") {
            Isa::Avx2Gfni
        } else {
            Isa::Avx2
        }
    } else if std::arch::is_x86_feature_detected!("sse2") {
        Isa::Sse2
    } else {
        Isa::Scalar
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_best() -> Isa {
    Isa::Scalar
}

/// The instruction sets usable here, for tests that compare every kernel with its scalar twin.
#[cfg(test)]
pub(crate) fn available() -> Vec<Isa> {
    let best = cpu_best();
    [Isa::Scalar, Isa::Sse2, Isa::Avx2, Isa::Avx2Gfni]
        .into_iter()
        .filter(|i| *i <= best)
        .collect()
}
