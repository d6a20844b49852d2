//! Re-emitting JSON text as `JSON.stringify(JSON.parse(text), null, 2)` without building a tree.
//!
//! A session line written by Pi is already in `JSON.stringify`'s canonical form, so its message
//! can be re-indented token by token. [`transcode_pretty`] does that and checks on the way that
//! the result equals [`crate::json::stringify_pretty`] of [`crate::json::parse`]: numbers are
//! re-formatted as ECMAScript does; strings are copied only when their escapes are exactly the
//! ones `JSON.stringify` writes; objects are copied in order only when no key is an array index
//! (JavaScript orders those first) and no key repeats. Anything else (and any syntax error) makes
//! it give up, leaving `out` as it was, and the caller takes the tree path.

use crate::cursor::{Cursor, MAX_DEPTH};
use crate::json::format_f64;

/// Appends `JSON.stringify(JSON.parse(raw), null, 2)` to `out` as if the value sat at nesting
/// `depth` (its inner lines indented by `2 * (depth + 1)` spaces). Returns `false`, with `out`
/// unchanged, when the text is not in the canonical form this copies exactly.
pub fn transcode_pretty(raw: &str, depth: usize, out: &mut String) -> bool {
    transcode(raw, depth, out, None)
}

/// [`transcode_pretty`] of an object that must have member `key` with a value other than
/// `null` (`false` otherwise, `out` unchanged): one pass where a separate lookup would scan the
/// text again.
pub fn transcode_pretty_requiring(raw: &str, depth: usize, key: &str, out: &mut String) -> bool {
    transcode(raw, depth, out, Some(key))
}

fn transcode(raw: &str, depth: usize, out: &mut String, require: Option<&str>) -> bool {
    // One pass over the bytes: control bytes (the cursor then validates strings byte by byte),
    // and 0xF3, which leads every character of U+C0000..U+FFFFF, where the tree path keeps lone
    // surrogates (see `json`): such text takes the tree path.
    let (control, f3) = raw.as_bytes().iter().fold((false, false), |(c, f), &b| {
        (c | (b < 0x20), f | (b == 0xF3))
    });
    if f3 {
        return false;
    }
    let start = out.len();
    let mut t = Transcoder {
        c: Cursor::with_plain(raw, !control),
        out,
        base: depth,
        require,
        found: require.is_none(),
    };
    t.c.ws();
    let ok = t.value(depth).is_some()
        && {
            t.c.ws();
            t.c.at_end()
        }
        && t.found;
    if !ok {
        out.truncate(start);
    }
    ok
}

/// The raw text of member `key` of the JSON object `object` (a whole session line, say), when
/// that object's top-level keys are plain (no escapes) and `key` occurs once. `object` must be
/// valid JSON (a line the session reader accepted); nothing else is checked.
pub fn member_raw<'a>(object: &'a str, key: &str) -> Option<&'a str> {
    let mut c = Cursor::new_valid(object);
    c.ws();
    c.eat(b'{')?;
    c.ws();
    if c.eat(b'}').is_some() {
        return None;
    }
    let mut found = None;
    loop {
        let k = c.key()?;
        let v_start = c.i;
        c.skip(1)?;
        if k == key {
            if found.is_some() {
                return None;
            }
            found = Some(&object[v_start..c.i]);
        }
        if c.next_member(b'}')? {
            return found;
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

struct Transcoder<'a, 'o> {
    c: Cursor<'a>,
    out: &'o mut String,
    /// The depth of the top-level value.
    base: usize,
    /// A member the top-level object must have, not `null`.
    require: Option<&'o str>,
    found: bool,
}

impl<'a> Transcoder<'a, '_> {
    fn newline(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH as usize {
            return None;
        }
        match self.c.peek()? {
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
        self.c.literal(word)?;
        self.out.push_str(word);
        Some(())
    }

    /// A string's raw contents, when they are exactly what `JSON.stringify` writes for the
    /// decoded string: escapes only for `"`, `\`, and control characters (the short forms, else
    /// `\u00xx` in lowercase). The cursor validates the string and flags other escapes.
    fn string(&mut self) -> Option<&'a str> {
        let (s, _) = self.c.string()?;
        (!self.c.saw_noncanonical_escape()).then_some(s)
    }

    fn number(&mut self) -> Option<()> {
        let text = self.c.number()?;
        let plain_integer = text.len() <= 15 && text.bytes().all(|c| c.is_ascii_digit());
        if plain_integer {
            // The cursor refused leading zeros: the digits are ECMAScript's own.
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
        self.c.i += 1;
        self.c.ws();
        if self.c.eat(b']').is_some() {
            self.out.push_str("[]");
            return Some(());
        }
        self.out.push('[');
        loop {
            self.newline(depth + 1);
            self.value(depth + 1)?;
            if self.c.next_member(b']')? {
                self.newline(depth);
                self.out.push(']');
                return Some(());
            }
            self.out.push(',');
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        self.c.i += 1;
        self.c.ws();
        if self.c.eat(b'}').is_some() {
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
            self.c.ws();
            self.c.eat(b':')?;
            self.c.ws();
            self.newline(depth + 1);
            self.out.push('"');
            self.out.push_str(k);
            self.out.push_str("\": ");
            if depth == self.base && self.require == Some(k) && self.c.peek() != Some(b'n') {
                // Only `null` starts with `n`.
                self.found = true;
            }
            self.value(depth + 1)?;
            if self.c.next_member(b'}')? {
                self.newline(depth);
                self.out.push('}');
                return Some(());
            }
            self.out.push(',');
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
    fn a_required_member_must_be_present_and_not_null() {
        let mut out = String::new();
        assert!(transcode_pretty_requiring(
            r#"{"role":"user","content":[]}"#,
            0,
            "content",
            &mut out
        ));
        assert_eq!(
            out,
            stringify_pretty(&parse(r#"{"role":"user","content":[]}"#).unwrap())
        );
        for raw in [
            r#"{"role":"user"}"#,
            r#"{"content":null}"#,
            r#"{"a":{"content":1}}"#,
            "[1]",
        ] {
            let mut out = String::from("x");
            assert!(
                !transcode_pretty_requiring(raw, 0, "content", &mut out),
                "{raw}"
            );
            assert_eq!(out, "x");
        }
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
