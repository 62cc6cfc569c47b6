//! A bounds-checked msgpack reader that renders one value as JSON text, for showing metalayer
//! contents whose layout the inspector does not know.

use crate::{Error, Result};

/// Deeper nesting than this is reported as damage rather than followed (no stack exhaustion).
const MAX_DEPTH: usize = 64;

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(Error::ReadBuffer)?;
        let s = self.bytes.get(self.pos..end).ok_or(Error::ReadBuffer)?;
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn be(&mut self, n: usize) -> Result<u64> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | b as u64))
    }
}

/// Appends `s` to `out` as a JSON string literal.
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_bytes(out: &mut String, b: &[u8]) {
    // Binary data has no JSON form; a hex string keeps it readable and lossless.
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    json_string(out, &format!("0x{hex}"));
}

fn json_float(out: &mut String, v: f64) {
    if v.is_finite() {
        out.push_str(&format!("{v:?}"));
    } else {
        json_string(out, &format!("{v}"));
    }
}

fn value(r: &mut Reader, out: &mut String, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::Failure);
    }
    let m = r.byte()?;
    match m {
        0x00..=0x7f => out.push_str(&m.to_string()),
        0xe0..=0xff => out.push_str(&(m as i8).to_string()),
        0x80..=0x8f => map(r, out, (m & 0x0f) as usize, depth)?,
        0x90..=0x9f => array(r, out, (m & 0x0f) as usize, depth)?,
        0xa0..=0xbf => string(r, out, (m & 0x1f) as usize)?,
        0xc0 => out.push_str("null"),
        0xc2 => out.push_str("false"),
        0xc3 => out.push_str("true"),
        0xc4..=0xc6 => {
            let n = r.be(1 << (m - 0xc4))? as usize;
            json_bytes(out, r.take(n)?);
        }
        0xc7..=0xc9 => {
            let n = r.be(1 << (m - 0xc7))? as usize;
            r.byte()?;
            json_bytes(out, r.take(n)?);
        }
        0xca => json_float(out, f32::from_bits(r.be(4)? as u32) as f64),
        0xcb => json_float(out, f64::from_bits(r.be(8)?)),
        0xcc..=0xcf => out.push_str(&r.be(1 << (m - 0xcc))?.to_string()),
        0xd0 => out.push_str(&(r.be(1)? as u8 as i8).to_string()),
        0xd1 => out.push_str(&(r.be(2)? as u16 as i16).to_string()),
        0xd2 => out.push_str(&(r.be(4)? as u32 as i32).to_string()),
        0xd3 => out.push_str(&(r.be(8)? as i64).to_string()),
        0xd4..=0xd8 => {
            r.byte()?;
            json_bytes(out, r.take(1 << (m - 0xd4))?);
        }
        0xd9..=0xdb => {
            let n = r.be(1 << (m - 0xd9))? as usize;
            string(r, out, n)?
        }
        0xdc | 0xdd => {
            let n = r.be(2 << (m - 0xdc))? as usize;
            array(r, out, n, depth)?
        }
        0xde | 0xdf => {
            let n = r.be(2 << (m - 0xde))? as usize;
            map(r, out, n, depth)?
        }
        _ => return Err(Error::Failure), // 0xc1 is never used
    }
    Ok(())
}

fn string(r: &mut Reader, out: &mut String, n: usize) -> Result<()> {
    let b = r.take(n)?;
    match std::str::from_utf8(b) {
        Ok(s) => json_string(out, s),
        Err(_) => json_bytes(out, b),
    }
    Ok(())
}

fn array(r: &mut Reader, out: &mut String, n: usize, depth: usize) -> Result<()> {
    out.push('[');
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        value(r, out, depth + 1)?;
    }
    out.push(']');
    Ok(())
}

fn map(r: &mut Reader, out: &mut String, n: usize, depth: usize) -> Result<()> {
    out.push('{');
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        // JSON keys must be strings: render the key, then quote it unless it already is one.
        let mut key = String::new();
        value(r, &mut key, depth + 1)?;
        if key.starts_with('"') {
            out.push_str(&key);
        } else {
            json_string(out, &key);
        }
        out.push_str(": ");
        value(r, out, depth + 1)?;
    }
    out.push('}');
    Ok(())
}

/// Renders the msgpack value at the start of `bytes` as JSON; bytes that are not one complete
/// msgpack value (or have bytes left over) come back as a JSON string when they are printable
/// UTF-8 text, as a hex string otherwise.
pub fn to_json(bytes: &[u8]) -> String {
    let mut r = Reader { bytes, pos: 0 };
    let mut out = String::new();
    match value(&mut r, &mut out, 0) {
        Ok(()) if r.pos == bytes.len() => out,
        _ => {
            let mut text = String::new();
            match std::str::from_utf8(bytes) {
                Ok(s) if !s.is_empty() && s.chars().all(|c| !c.is_control() || c == '\n') => {
                    json_string(&mut text, s)
                }
                _ => json_bytes(&mut text, bytes),
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_nested_values() {
        // {"a": [1, -1, true, nil], 3: "x"}
        let b = [
            0x82, 0xa1, b'a', 0x94, 0x01, 0xff, 0xc3, 0xc0, 0x03, 0xa1, b'x',
        ];
        assert_eq!(to_json(&b), r#"{"a": [1, -1, true, null], "3": "x"}"#);
    }

    #[test]
    fn truncated_value_becomes_hex() {
        assert_eq!(to_json(&[0x92, 0x01]), "\"0x9201\"");
        assert_eq!(to_json(&[0xdb, 0xff, 0xff, 0xff, 0xff]), "\"0xdbffffffff\"");
    }
}
