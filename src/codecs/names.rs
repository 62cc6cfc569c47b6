//! Codec names and codes as c-blosc2 3.3.5 knows them: the built-in codecs and the plugin codecs
//! of its global registry (which c-blosc2 resolves by name even when the plugin is not loaded).

/// [`super::BLOSCLZ`] as the `int` codes of the C API.
pub const BLOSCLZ: i32 = 0;
/// [`super::LZ4`] as the `int` codes of the C API.
pub const LZ4: i32 = 1;
/// [`super::LZ4HC`] as the `int` codes of the C API.
pub const LZ4HC: i32 = 2;
/// [`super::ZLIB`] as the `int` codes of the C API.
pub const ZLIB: i32 = 4;
/// [`super::ZSTD`] as the `int` codes of the C API.
pub const ZSTD: i32 = 5;

/// (code, name) of every codec c-blosc2 names; code 3 (the old Snappy) is unused.
const CODECS: [(i32, &str); 14] = [
    (BLOSCLZ, "blosclz"),
    (LZ4, "lz4"),
    (LZ4HC, "lz4hc"),
    (ZLIB, "zlib"),
    (ZSTD, "zstd"),
    (32, "ndlz"),
    (33, "zfp_acc"),
    (34, "zfp_prec"),
    (35, "zfp_rate"),
    (36, "openhtj2k"),
    (37, "grok"),
    (38, "openzl"),
    (39, "j2k"),
    (40, "htj2k"),
];

/// The BloscLZ release whose format our BloscLZ codec writes (reported by blosc2_get_complib_info).
pub const BLOSCLZ_VERSION: &str = "2.5.3";

/// Comma-separated names of the built-in codecs (blosc2_list_compressors).
pub const BUILTIN_LIST: &str = "blosclz,lz4,lz4hc,zlib,zstd";

/// The name of a codec code.
pub fn name_of(code: i32) -> Option<&'static str> {
    CODECS.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// The code of a codec name (exact, case-sensitive match).
pub fn code_of(name: &str) -> Option<i32> {
    CODECS.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
}

/// Whether the codec is compiled into this library (as opposed to a plugin).
pub fn is_builtin(code: i32) -> bool {
    matches!(code, BLOSCLZ | LZ4 | LZ4HC | ZLIB | ZSTD)
}

/// The compression library behind a codec: (library code, library name), as reported by
/// blosc2_get_complib_info.  Plugin codecs are their own library, named like the codec.
pub fn library_of(name: &str) -> Option<(i32, &'static str)> {
    let code = code_of(name)?;
    Some(match code {
        BLOSCLZ => (0, "BloscLZ"),
        LZ4 | LZ4HC => (1, "LZ4"),
        ZLIB => (3, "Zlib"),
        ZSTD => (4, "Zstd"),
        _ => (code, name_of(code)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes() {
        assert_eq!(name_of(2), Some("lz4hc"));
        assert_eq!(name_of(3), None);
        assert_eq!(name_of(40), Some("htj2k"));
        assert_eq!(name_of(41), None);
        assert_eq!(code_of("zfp_prec"), Some(34));
        assert_eq!(code_of("LZ4"), None);
        assert_eq!(code_of(""), None);
        for code in -1..300 {
            if let Some(name) = name_of(code) {
                assert_eq!(code_of(name), Some(code));
            }
        }
        assert_eq!(library_of("lz4hc"), Some((1, "LZ4")));
        assert_eq!(library_of("zlib"), Some((3, "Zlib")));
        assert_eq!(library_of("ndlz"), Some((32, "ndlz")));
        assert_eq!(library_of("snappy"), None);
        assert!(is_builtin(ZSTD) && !is_builtin(32));
    }
}
