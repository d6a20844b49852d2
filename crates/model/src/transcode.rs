//! Re-emitting JSON text as `JSON.stringify(JSON.parse(text), null, 2)` without building a tree.
//!
//! A session line written by Pi is already in `JSON.stringify`'s canonical form, so its message
//! can be re-indented token by token. [`transcode_pretty`] does that and checks on the way that
//! the result equals [`crate::json::stringify_pretty`] of [`crate::json::parse`]: numbers are
//! re-formatted as ECMAScript does; strings are copied only when their escapes are exactly the
//! ones `JSON.stringify` writes; objects are copied in order only when no key is an array index
//! (JavaScript orders those first) and no key repeats. Anything else (and any syntax error) makes
//! it give up, leaving `out` as it was, and the caller takes the tree path.

use crate::json::format_f64;

/// Deeper than this, give up (serde_json's parser stops at 128).
const MAX_DEPTH: usize = 100;

/// Appends `JSON.stringify(JSON.parse(raw), null, 2)` to `out` as if the value sat at nesting
/// `depth` (its inner lines indented by `2 * (depth + 1)` spaces). Returns `false`, with `out`
/// unchanged, when the text is not in the canonical form this copies exactly.
pub fn transcode_pretty(raw: &str, depth: usize, out: &mut String) -> bool {
    let start = out.len();
    let mut t = Transcoder {
        b: raw.as_bytes(),
        text: raw,
        i: 0,
        out,
    };
    t.ws();
    let ok = t.value(depth).is_some() && {
        t.ws();
        t.i == t.b.len()
    };
    if !ok {
        out.truncate(start);
    }
    ok
}

/// The raw text of member `key` of the JSON object `object` (a whole session line, say), when
/// that object's top-level keys are plain (no escapes) and `key` occurs once. Validates nothing
/// beyond what it skips.
pub fn member_raw<'a>(object: &'a str, key: &str) -> Option<&'a str> {
    let mut s = Skipper {
        b: object.as_bytes(),
        i: 0,
    };
    s.ws();
    s.eat(b'{')?;
    s.ws();
    let mut found = None;
    if s.eat(b'}').is_some() {
        return None;
    }
    loop {
        let (k_start, k_end, escaped) = s.string()?;
        if escaped {
            return None;
        }
        s.ws();
        s.eat(b':')?;
        s.ws();
        let v_start = s.i;
        s.skip(0)?;
        if &object[k_start..k_end] == key {
            if found.is_some() {
                return None;
            }
            found = Some(&object[v_start..s.i]);
        }
        s.ws();
        match s.peek()? {
            b',' => {
                s.i += 1;
                s.ws();
            }
            b'}' => return found,
            _ => return None,
        }
    }
}

/// Whether `key` is an array index (canonical decimal below 2^32 - 1).
fn is_array_index(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 10
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key.len() == 1 || !key.starts_with('0'))
        && key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// The length of the JSON number at the start of `bytes` (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`),
/// or `None` when there is none or a digit follows it (serde_json refuses `01`).
pub fn number_len(bytes: &[u8]) -> Option<usize> {
    let digits = |from: usize| {
        bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i += digits(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    if bytes.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some(i)
}

struct Skipper<'a> {
    b: &'a [u8],
    i: usize,
}

impl Skipper<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }
    /// A string: (start, end) of its contents and whether it holds an escape.
    fn string(&mut self) -> Option<(usize, usize, bool)> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            let at = memchr::memchr2(b'"', b'\\', &self.b[self.i..])?;
            self.i += at;
            if self.b[self.i] == b'"' {
                self.i += 1;
                return Some((start, self.i - 1, escaped));
            }
            escaped = true;
            self.i += 2;
        }
    }
    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.i += 1;
                self.ws();
                if self.eat(close).is_some() {
                    return Some(());
                }
                loop {
                    if open == b'{' {
                        self.string()?;
                        self.ws();
                        self.eat(b':')?;
                        self.ws();
                    }
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.i += 1;
                            self.ws();
                        }
                        c if c == close => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            _ => {
                while self.peek().is_some_and(|c| {
                    !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.i += 1;
                }
                Some(())
            }
        }
    }
}

struct Transcoder<'a, 'o> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    out: &'o mut String,
}

impl<'a> Transcoder<'a, '_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn newline(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => {
                let s = self.string()?;
                self.out.push('"');
                self.out.push_str(s);
                self.out.push('"');
                Some(())
            }
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            _ => self.number(),
        }
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        if self.b.get(self.i..self.i + word.len())? == word.as_bytes() {
            self.i += word.len();
            self.out.push_str(word);
            Some(())
        } else {
            None
        }
    }

    /// A string's raw contents, when they are exactly what `JSON.stringify` writes for the
    /// decoded string: escapes only for `"`, `\`, and control characters (the short forms, else
    /// `\u00xx` in lowercase), no raw control characters, and no 0xF3-led character (the
    /// private-use range where the tree path keeps lone surrogates).
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        loop {
            let rest = &self.b[self.i..];
            let at = memchr::memchr2(b'"', b'\\', rest)?;
            // One branch-free (vectorizable) pass over the run before it.
            if rest[..at]
                .iter()
                .fold(false, |bad, &c| bad | (c < 0x20) | (c == 0xF3))
            {
                return None;
            }
            self.i += at;
            match self.b[self.i] {
                b'"' => {
                    let s = &self.text[start..self.i];
                    self.i += 1;
                    return Some(s);
                }
                b'\\' => {
                    match self.b.get(self.i + 1)? {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                        b'u' => {
                            // Only `\u00xx` for a control character without a short form.
                            let hex = self.b.get(self.i + 2..self.i + 6)?;
                            if hex[0] != b'0'
                                || hex[1] != b'0'
                                || !matches!(hex[2], b'0' | b'1')
                                || !matches!(hex[3], b'0'..=b'9' | b'a'..=b'f')
                            {
                                return None;
                            }
                            let code = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16)
                                .ok()?;
                            if matches!(code, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D) {
                                return None;
                            }
                            self.i += 6;
                        }
                        _ => return None, // `\/` and invalid escapes
                    }
                }
                _ => return None,
            }
        }
    }

    fn number(&mut self) -> Option<()> {
        let start = self.i;
        self.i += number_len(&self.b[start..])?;
        let text = &self.text[start..self.i];
        let plain_integer = text.len() <= 15 && text.bytes().all(|c| c.is_ascii_digit());
        if plain_integer && (text == "0" || !text.starts_with('0')) {
            self.out.push_str(text);
            return Some(());
        }
        let f: f64 = text.parse().ok()?;
        if !f.is_finite() {
            return None; // serde_json refuses it: the tree path reports the error
        }
        self.out.push_str(&format_f64(f));
        Some(())
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        self.i += 1;
        self.ws();
        if self.eat(b']').is_some() {
            self.out.push_str("[]");
            return Some(());
        }
        self.out.push('[');
        loop {
            self.newline(depth + 1);
            self.value(depth + 1)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                    self.out.push(',');
                }
                b']' => {
                    self.i += 1;
                    self.newline(depth);
                    self.out.push(']');
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        self.i += 1;
        self.ws();
        if self.eat(b'}').is_some() {
            self.out.push_str("{}");
            return Some(());
        }
        self.out.push('{');
        let mut keys: Vec<&'a str> = Vec::new();
        loop {
            let k = self.string()?;
            // Keys are compared as written: an escape in a key (rare) could hide a duplicate.
            if k.contains('\\') || is_array_index(k) || keys.contains(&k) {
                return None;
            }
            keys.push(k);
            self.ws();
            self.eat(b':')?;
            self.ws();
            self.newline(depth + 1);
            self.out.push('"');
            self.out.push_str(k);
            self.out.push_str("\": ");
            self.value(depth + 1)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                    self.out.push(',');
                }
                b'}' => {
                    self.i += 1;
                    self.newline(depth);
                    self.out.push('}');
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, stringify_pretty};

    /// The transcoder either equals the tree path or declines.
    fn check(raw: &str) -> bool {
        let mut out = String::from("prefix");
        let ok = transcode_pretty(raw, 0, &mut out);
        if ok {
            let tree = parse(raw).expect("the transcoder accepted invalid JSON");
            assert_eq!(
                &out["prefix".len()..],
                stringify_pretty(&tree),
                "raw: {raw}"
            );
        } else {
            assert_eq!(out, "prefix");
        }
        ok
    }

    #[test]
    fn canonical_text_is_reindented() {
        assert!(check(
            r#"{"role":"user","content":[{"type":"text","text":"a\nb \"q\" \\ é ✓"}],"timestamp":1733234400000}"#
        ));
        assert!(check(
            r#"{"a":[],"b":{},"c":[1,-2,0,1.5,1e21,1e-7,123456789012345678],"d":null,"e":true}"#
        ));
        assert!(check(r#"{"ctl":"\u0001\u001f\b\f\r\t"}"#));
        assert!(check(r#" [ 1 , { "x" : "y" } ] "#));
    }

    #[test]
    fn non_canonical_or_reordered_text_is_declined() {
        for raw in [
            r#"{"a":"\/"}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"1":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a\u0062":1}"#,
            r#"{"a":1e400}"#,
            r#"{"a":01}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":1"#,
            "{\"a\":\"\u{F0000}\"}",
            "{\"a\":\"tab\there\"}",
        ] {
            assert!(!check(raw), "accepted: {raw}");
        }
    }

    #[test]
    fn numbers_are_written_as_ecmascript_does() {
        for raw in [
            "[1.0]",
            "[-0]",
            "[1E2]",
            "[2.50]",
            "[9007199254740993]",
            "[0.1e1]",
        ] {
            assert!(check(raw), "{raw}");
        }
    }

    /// Property: random JSON written by `stringify` always transcodes, and random rewrites of it
    /// (whitespace, non-canonical escapes and numbers, reordered or repeated keys, broken syntax)
    /// either transcode to exactly the tree path's bytes or are declined.
    #[test]
    fn random_documents_equal_the_tree_path_or_are_declined() {
        use crate::rng::XorShift64 as Rng;
        // JSON string contents as written in the text (escapes included).
        const STRINGS: &[&str] = &[
            "",
            "a",
            "é✓😀",
            r#"q\"uote"#,
            r"back\\slash",
            r"line\nbreak",
            r"\u0001",
            r"\u001b[0m",
            r"tab\t",
            r"\/",
            r"\u00e9",
            r"\ud800",
            r"\u0041",
        ];
        const NUMBERS: &[&str] = &[
            "0",
            "-0",
            "7",
            "-12",
            "1.5",
            "1.0",
            "1e3",
            "1E-7",
            "2.50",
            "123456789012345678",
            "9007199254740993",
            "1e21",
            "0.1",
        ];
        const KEYS: &[&str] = &["role", "content", "text", "type", "1", "0", r"a\u0062", "x"];
        fn gen(r: &mut Rng, depth: u32, out: &mut String) {
            match if depth > 4 { r.below(3) } else { r.below(6) } {
                0 => {
                    out.push('"');
                    out.push_str(STRINGS[r.below(STRINGS.len() as u64) as usize]);
                    out.push('"');
                }
                1 => out.push_str(NUMBERS[r.below(NUMBERS.len() as u64) as usize]),
                2 => out.push_str(["true", "false", "null"][r.below(3) as usize]),
                3 | 4 => {
                    out.push('{');
                    for i in 0..r.below(5) {
                        if i > 0 {
                            out.push(',');
                        }
                        if r.below(8) == 0 {
                            out.push(' ');
                        }
                        out.push('"');
                        out.push_str(KEYS[r.below(KEYS.len() as u64) as usize]);
                        out.push_str("\":");
                        gen(r, depth + 1, out);
                    }
                    out.push('}');
                }
                _ => {
                    out.push('[');
                    for i in 0..r.below(4) {
                        if i > 0 {
                            out.push_str(if r.below(10) == 0 { " , " } else { "," });
                        }
                        gen(r, depth + 1, out);
                    }
                    out.push(']');
                }
            }
        }
        let mut r = Rng::new(0x2545_f491_4f6c_dd1d);
        let (mut accepted, mut canonical) = (0, 0);
        for _ in 0..20_000 {
            let mut raw = String::new();
            gen(&mut r, 0, &mut raw);
            if r.below(50) == 0 {
                let cut = r.below(raw.len() as u64 + 1) as usize;
                if raw.is_char_boundary(cut) {
                    raw.truncate(cut);
                }
            }
            let Ok(tree) = parse(&raw) else {
                let mut out = String::new();
                assert!(
                    !transcode_pretty(&raw, 1, &mut out),
                    "accepted invalid: {raw}"
                );
                continue;
            };
            accepted += usize::from(check(&raw));
            // The canonical text of the same value always transcodes.
            let compact = crate::json::stringify(&tree);
            let has_index_key = compact.contains(r#""1":"#) || compact.contains(r#""0":"#);
            if !compact.contains(r"\u") && !compact.contains('\u{F0000}') && !has_index_key {
                assert!(check(&compact), "canonical declined: {compact}");
                canonical += 1;
            }
        }
        assert!(
            accepted > 2_000 && canonical > 5_000,
            "accepted {accepted}, canonical {canonical}"
        );
    }

    #[test]
    fn member_raw_finds_unique_plain_keys() {
        let line = r#"{"type":"message","id":"a","message":{"role":"user","content":"x"},"n":[1,{"message":2}]}"#;
        assert_eq!(
            member_raw(line, "message"),
            Some(r#"{"role":"user","content":"x"}"#)
        );
        assert_eq!(member_raw(line, "nope"), None);
        assert_eq!(member_raw(r#"{"message":1,"message":2}"#, "message"), None);
        assert_eq!(member_raw(r#"{"m\u0065ssage":1}"#, "message"), None);
    }
}
