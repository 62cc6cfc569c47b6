//! Test helper: the values the hand-written C header fragments (cbindgen/*.h) give their
//! enumerators, `#define`s and default-parameter macros, for the tests that check the core's
//! tables against that C text (so that a change to one copy alone fails `cargo test`).

/// The header fragments that define names.
const FRAGMENTS: [&str; 4] = [
    include_str!("../cbindgen/blosc2-prologue.h"),
    include_str!("../cbindgen/codecs-registry-prologue.h"),
    include_str!("../cbindgen/filters-registry-prologue.h"),
    include_str!("../cbindgen/blosc2-epilogue.h"),
];

/// The value of the enumerator `name` (a line `name = value,`), if a fragment defines it.
pub(crate) fn enumerator(name: &str) -> Option<i64> {
    FRAGMENTS.iter().flat_map(|f| f.lines()).find_map(|l| {
        let (n, v) = l.trim().split_once(" = ")?;
        (n == name).then(|| v.trim_end_matches(',').parse().unwrap())
    })
}

/// The text of `#define name text` (a string's quotes removed), if a fragment defines it.
pub(crate) fn define(name: &str) -> Option<String> {
    let key = format!("{name} ");
    FRAGMENTS.iter().flat_map(|f| f.lines()).find_map(|l| {
        let rest = l.trim_start_matches(['#', ' ']).strip_prefix("define ")?;
        Some(
            rest.strip_prefix(&key)?
                .trim()
                .trim_matches('"')
                .to_string(),
        )
    })
}

/// The values of the braced initializer `static const TYPE name = {...};`, flattened (nested
/// braces dropped): numbers as written, `NULL` as 0, `false`/`true` as 0/1, enumerators by
/// their values.
pub(crate) fn initializer(name: &str) -> Vec<i64> {
    let key = format!(" {name} = {{");
    let text = FRAGMENTS
        .iter()
        .find_map(|f| Some(&f[f.find(&key)? + key.len()..]))
        .unwrap_or_else(|| panic!("{name} is not defined"));
    let body = &text[..text.find("};").unwrap()];
    body.replace(['{', '}'], " ")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| match t {
            "NULL" | "false" => 0,
            "true" => 1,
            _ => t
                .parse()
                .ok()
                .or_else(|| enumerator(t))
                .unwrap_or_else(|| panic!("{name}: unknown value {t}")),
        })
        .collect()
}
