//! Removing and renaming the files and directories that hold frames (a cframe is one file, an
//! sframe a directory of files).

use std::fs;
use std::path::Path;

use crate::{Error, Result};

/// Removes the directory `dir` and the files in it (an sframe: no subdirectories expected).
///
/// `NotFound` when `dir` cannot be listed (missing, or not a directory); `Failure` when an entry
/// or the directory itself cannot be removed.
pub fn remove_dir(dir: &Path) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|_| Error::NotFound)?;
    for entry in entries {
        let entry = entry.map_err(|_| Error::Failure)?;
        fs::remove_file(entry.path()).map_err(|_| Error::Failure)?;
    }
    fs::remove_dir(dir).map_err(|_| Error::Failure)
}

/// Removes a cframe file (and the frame lock's sidecar next to it, as c-blosc2 does) or an
/// sframe directory (its sidecar is inside); a path that does not exist is not an error.
pub fn remove_urlpath(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(meta) if meta.is_dir() => remove_dir(path),
        Ok(_) => {
            fs::remove_file(path).map_err(|_| Error::FileRemove)?;
            // A frame that never took the lock has no sidecar.
            let _ = fs::remove_file(crate::frame::lock::sidecar_path(path, false));
            Ok(())
        }
    }
}

/// Renames (moves) a frame, replacing `new` when the platform's rename allows it.
pub fn rename_urlpath(old: &Path, new: &Path) -> Result<()> {
    fs::rename(old, new).map_err(|_| Error::Failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rblosc2-urlpath-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn remove_and_rename() {
        let dir = scratch("sframe");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("chunk.0"), b"x").unwrap();
        fs::write(dir.join("chunks.b2frame"), b"y").unwrap();
        assert_eq!(remove_dir(&dir), Ok(()));
        assert!(!dir.exists());
        assert_eq!(remove_dir(&dir), Err(Error::NotFound));
        assert_eq!(remove_urlpath(&dir), Ok(()));

        let file = scratch("cframe");
        let sidecar = crate::frame::lock::sidecar_path(&file, false);
        fs::write(&file, b"z").unwrap();
        fs::write(&sidecar, b"").unwrap();
        assert_eq!(remove_urlpath(&file), Ok(()));
        assert!(!sidecar.exists());
        fs::write(&sidecar, b"").unwrap();
        assert_eq!(
            remove_urlpath(&file),
            Ok(()),
            "a lone sidecar stays, as in c-blosc2"
        );
        assert!(sidecar.exists());
        fs::remove_file(&sidecar).unwrap();
        fs::write(&file, b"z").unwrap();
        assert_eq!(remove_dir(&file), Err(Error::NotFound));
        let moved = scratch("moved");
        assert_eq!(rename_urlpath(&file, &moved), Ok(()));
        assert_eq!(fs::read(&moved).unwrap(), b"z");
        assert_eq!(rename_urlpath(&file, &moved), Err(Error::Failure));
        assert_eq!(remove_urlpath(&moved), Ok(()));
        assert!(!moved.exists());

        let nested = scratch("nested");
        fs::create_dir_all(nested.join("sub")).unwrap();
        assert_eq!(remove_urlpath(&nested), Err(Error::Failure));
        fs::remove_dir_all(&nested).unwrap();
    }
}
