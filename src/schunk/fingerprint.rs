//! Fingerprints of a super-chunk's frame (docs/FINGERPRINTS.md): turned on per super-chunk or
//! by `BLOSC_FINGERPRINT`, kept by frames that hold them, verified on demand or on every read.

use super::{Chunks, Schunk};
use crate::frame::fingerprint::{FpChange, Report};
use crate::Result;

/// What a super-chunk does with fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum FingerprintMode {
    /// Frames are written without fingerprints (as c-blosc2 writes them).
    #[default]
    Off = 0,
    /// Frames are written with fingerprints.
    On = 1,
    /// As `On`, and every chunk read from the frame is checked against its fingerprint.
    Verify = 2,
}

/// The environment variable that turns fingerprints on for new and opened super-chunks.
pub const FINGERPRINT_ENV: &str = "BLOSC_FINGERPRINT";

impl FingerprintMode {
    /// The mode `BLOSC_FINGERPRINT` asks for: `1`, `on`, `crc32c` (On), `verify` (Verify);
    /// `0`, `off`, unset or anything else: Off (frames that hold fingerprints keep them).
    pub fn from_env() -> FingerprintMode {
        match std::env::var(FINGERPRINT_ENV)
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
            .as_str()
        {
            "1" | "on" | "crc32c" => FingerprintMode::On,
            "2" | "verify" => FingerprintMode::Verify,
            _ => FingerprintMode::Off,
        }
    }
}

impl Schunk {
    /// What the super-chunk does with fingerprints.
    pub fn fingerprint_mode(&self) -> FingerprintMode {
        self.fingerprint
    }

    /// Whether the super-chunk's frame holds a fingerprint now (as opened, or as last written).
    pub fn fingerprinted(&self) -> bool {
        self.frame().is_some_and(|f| f.fingerprinted())
    }

    /// Sets what the super-chunk does with fingerprints. A frame that holds none and is to
    /// have them gets them now (every stored chunk is read once), and one that holds them and
    /// is to have none is written without them now; frames made later (copies, serialisations)
    /// follow the mode.
    ///
    /// # Errors
    /// Those of reading the stored chunks and rewriting the frame (a read-only file).
    pub fn set_fingerprint_mode(&mut self, mode: FingerprintMode) -> Result<()> {
        let _held = self.hold(true)?;
        self.fingerprint = mode;
        let h = self.frame_header();
        if let Chunks::Frame(f) = &mut self.chunks {
            let write = mode != FingerprintMode::Off;
            f.set_fingerprinting(write, mode == FingerprintMode::Verify);
            let damaged = f.damaged_when_opened().is_some();
            // A frame whose fingerprint did not hold when opened is not sealed again as it is
            // (see Frame::next_table); it can only lose its fingerprint.
            let change = if write && !f.fingerprinted() && !damaged {
                Some(FpChange::Rebuild)
            } else if !write && (f.fingerprinted() || damaged) {
                Some(FpChange::Same)
            } else {
                None
            };
            if let Some(change) = change {
                let offsets = f.offsets().to_vec();
                f.commit(h, &self.metas, &self.vlmetas, None, offsets, change)?;
            }
        }
        Ok(())
    }

    /// Applies the mode to the frame just made or opened: a frame that holds fingerprints
    /// (or one that did not hold) keeps them (the mode becomes at least `On`).
    pub(super) fn apply_fingerprint_mode(&mut self) {
        if let Chunks::Frame(f) = &mut self.chunks {
            let had = f.fingerprinted() || f.damaged_when_opened().is_some();
            if had && self.fingerprint == FingerprintMode::Off {
                self.fingerprint = FingerprintMode::On;
            }
            let mode = self.fingerprint;
            f.set_fingerprinting(
                mode != FingerprintMode::Off,
                mode == FingerprintMode::Verify,
            );
        }
    }

    /// Verifies the super-chunk's frame as it is in its store now (None without a frame: a
    /// chunk list in memory has nothing to check against).
    pub fn verify(&self) -> Result<Option<Report>> {
        let _held = self.hold(false)?;
        self.frame().map(|f| f.verify()).transpose()
    }
}
