//! The codecs c-blosc2 3.3.5 knows, in one table: id, name and how each is provided (compiled
//! into the chunk engine, registered at start-up with its functions, or registered by name only
//! as a plugin c-blosc2 loads from `libblosc2_<name>.so`). Everything that names or classifies a
//! codec id derives from [`CODECS`].

use super::{
    BLOSCLZ, BLOSCLZ_FORMAT, LZ4, LZ4HC, LZ4_FORMAT, NDLZ, UDCODEC_FORMAT, ZFP_ACC, ZFP_PREC,
    ZFP_RATE, ZLIB, ZLIB_FORMAT, ZSTD, ZSTD_FORMAT,
};

/// How a codec of [`CODECS`] is provided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Compiled into the chunk engine ([`super::compress_stream`]): "built-in". `format` is the
    /// code of its library (the chunk flags' format field, blosc2_get_complib_info's code) and
    /// `library` that library's name.
    Builtin {
        /// The library's code.
        format: u8,
        /// The library's name.
        library: &'static str,
    },
    /// Put in the codec registry at start-up with its functions (`chunk::plugins`).
    Registered,
    /// Put in the codec registry at start-up by name only; its functions are loaded from
    /// `libblosc2_<name>.so` when first used (c-blosc2's `codecs-registry.c`).
    Plugin,
}

/// One codec c-blosc2 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codec {
    /// Its id (`compcode`); id 3 (the old Snappy) is unused.
    pub id: u8,
    /// Its name (`blosc2_compcode_to_compname`).
    pub name: &'static str,
    /// How it is provided.
    pub provider: Provider,
}

const fn builtin(id: u8, name: &'static str, format: u8, library: &'static str) -> Codec {
    Codec {
        id,
        name,
        provider: Provider::Builtin { format, library },
    }
}

const fn codec(id: u8, name: &'static str, provider: Provider) -> Codec {
    Codec { id, name, provider }
}

/// Every codec c-blosc2 names, built-in ones first in id order.
pub const CODECS: &[Codec] = &[
    builtin(BLOSCLZ, "blosclz", BLOSCLZ_FORMAT, "BloscLZ"),
    builtin(LZ4, "lz4", LZ4_FORMAT, "LZ4"),
    builtin(LZ4HC, "lz4hc", LZ4_FORMAT, "LZ4"),
    builtin(ZLIB, "zlib", ZLIB_FORMAT, "Zlib"),
    builtin(ZSTD, "zstd", ZSTD_FORMAT, "Zstd"),
    codec(NDLZ, "ndlz", Provider::Registered),
    codec(ZFP_ACC, "zfp_acc", Provider::Registered),
    codec(ZFP_PREC, "zfp_prec", Provider::Registered),
    codec(ZFP_RATE, "zfp_rate", Provider::Registered),
    codec(36, "openhtj2k", Provider::Plugin),
    codec(37, "grok", Provider::Plugin),
    codec(38, "openzl", Provider::Plugin),
    codec(39, "j2k", Provider::Plugin),
    codec(40, "htj2k", Provider::Plugin),
];

/// The library code ([`Provider::Builtin`]'s `format`) of each built-in codec id (as index),
/// computed from [`CODECS`] at compile time.
const FORMATS: [Option<u8>; 256] = {
    let mut table = [None; 256];
    let mut i = 0;
    while i < CODECS.len() {
        if let Provider::Builtin { format, .. } = CODECS[i].provider {
            table[CODECS[i].id as usize] = Some(format);
        }
        i += 1;
    }
    table
};

/// Whether a codec id is one of the built-in codecs (compiled into the chunk engine).
pub fn is_builtin(compcode: u8) -> bool {
    FORMATS[compcode as usize].is_some()
}

/// The format code stored in bits 5..7 of the chunk flags for a codec id: the built-in
/// codec's library code, [`UDCODEC_FORMAT`] for any other codec.
pub fn compformat(compcode: u8) -> u8 {
    FORMATS[compcode as usize].unwrap_or(UDCODEC_FORMAT)
}

/// The table entry of a codec id (C's `int` codes: anything outside 0..=255 has none).
pub fn codec_of(code: i32) -> Option<&'static Codec> {
    let id = u8::try_from(code).ok()?;
    CODECS.iter().find(|c| c.id == id)
}

/// The BloscLZ release whose format our BloscLZ codec writes (reported by blosc2_get_complib_info).
pub const BLOSCLZ_VERSION: &str = "2.5.3";

/// Comma-separated names of the built-in codecs (blosc2_list_compressors).
pub fn builtin_list() -> String {
    let builtins = CODECS
        .iter()
        .filter(|c| matches!(c.provider, Provider::Builtin { .. }));
    builtins.map(|c| c.name).collect::<Vec<_>>().join(",")
}

/// The codecs registered by name only, as plugins.
pub fn plugin_codecs() -> impl Iterator<Item = &'static Codec> {
    CODECS.iter().filter(|c| c.provider == Provider::Plugin)
}

/// The name of a codec code.
pub fn name_of(code: i32) -> Option<&'static str> {
    codec_of(code).map(|c| c.name)
}

/// The code of a codec name (exact, case-sensitive match).
pub fn code_of(name: &str) -> Option<i32> {
    CODECS
        .iter()
        .find(|c| c.name == name)
        .map(|c| i32::from(c.id))
}

/// The compression library behind a codec: (library code, library name), as reported by
/// blosc2_get_complib_info.  Codecs that are not built in are their own library, named like the
/// codec.
pub fn library_of(name: &str) -> Option<(i32, &'static str)> {
    let c = CODECS.iter().find(|c| c.name == name)?;
    Some(match c.provider {
        Provider::Builtin { format, library } => (i32::from(format), library),
        _ => (i32::from(c.id), c.name),
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
        assert_eq!(name_of(256), None);
        assert_eq!(name_of(-1), None);
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
        let builtins: Vec<u8> = (0..=255).filter(|&c| is_builtin(c)).collect();
        assert_eq!(builtins, [0, 1, 2, 4, 5]);
        assert_eq!(builtin_list(), "blosclz,lz4,lz4hc,zlib,zstd");
        let plugins: Vec<u8> = plugin_codecs().map(|c| c.id).collect();
        assert_eq!(plugins, [36, 37, 38, 39, 40]);
        let formats: Vec<u8> = [0, 1, 2, 3, 4, 5, 32, 160].map(compformat).to_vec();
        assert_eq!(formats, [0, 1, 1, 6, 3, 4, 6, 6]);
        for (i, c) in CODECS.iter().enumerate() {
            assert!(CODECS[..i].iter().all(|d| d.id != c.id && d.name != c.name));
        }
    }

    /// The enumerators the C headers write for codecs (`BLOSC_BLOSCLZ = 0`,
    /// `BLOSC_CODEC_NDLZ = 32`, ...) and their `BLOSC_*_COMPNAME` names are the table's.
    #[test]
    fn header_codecs_match_the_table() {
        use crate::header_text::{define, enumerator};
        for c in CODECS {
            let upper = c.name.to_uppercase();
            let c_name = match (c.provider, c.name) {
                (Provider::Builtin { .. }, _) => format!("BLOSC_{upper}"),
                (_, "zfp_acc") => "BLOSC_CODEC_ZFP_FIXED_ACCURACY".into(),
                (_, "zfp_prec") => "BLOSC_CODEC_ZFP_FIXED_PRECISION".into(),
                (_, "zfp_rate") => "BLOSC_CODEC_ZFP_FIXED_RATE".into(),
                _ => format!("BLOSC_CODEC_{upper}"),
            };
            assert_eq!(enumerator(&c_name), Some(i64::from(c.id)), "{c_name}");
            if let Provider::Builtin { format, library } = c.provider {
                let lib = library.to_uppercase();
                let format = Some(i64::from(format));
                assert_eq!(
                    define(&format!("{c_name}_COMPNAME")).as_deref(),
                    Some(c.name)
                );
                assert_eq!(enumerator(&format!("{c_name}_FORMAT")), format, "{c_name}");
                assert_eq!(enumerator(&format!("BLOSC_{lib}_LIB")), format, "{lib}");
                let libname = define(&format!("BLOSC_{lib}_LIBNAME"));
                assert_eq!(libname.as_deref(), Some(library));
            }
        }
        let last = i64::from(super::super::LAST_CODEC);
        assert_eq!(enumerator("BLOSC_LAST_CODEC"), Some(last));
        let ud = i64::from(super::super::UDCODEC_FORMAT);
        assert_eq!(enumerator("BLOSC_UDCODEC_FORMAT"), Some(ud));
    }
}
