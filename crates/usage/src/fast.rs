//! A hand-written scanner for the common shape of a session line, in front of the serde parse of
//! [`crate::scan`].
//!
//! It validates the whole line at least as strictly as `serde_json` does and fills the same
//! [`RawLine`] the serde path would, so [`crate::scan::parse_line`] post-processes both alike.
//! Whenever it meets something it does not handle on its own (a kept string or a key with
//! escapes, a repeated field, a non-object line, deep nesting, a `forgeNestedUsage` report, an
//! out-of-range number, or any syntax error) it returns `None` and the caller runs the serde
//! parse, which then decides (and words any error). So its only obligation is: when it answers,
//! the answer equals serde's. A differential test checks that on every fixture line and on
//! mutated lines.

use std::borrow::Cow;

use crate::scan::{Details, JsNum, JsStr, ObjOr, RawCost, RawLine, RawMessage, RawUsage};

/// Deeper than this, bail (serde_json's own limit is 128).
const MAX_DEPTH: u32 = 100;

/// Fills `raw` from `text` (one JSONL line) when the line has the common shape; `false` sends it
/// to serde (`raw` is then partly filled and must be dropped). In place: the record is large and
/// moving it per line showed in profiles.
pub(crate) fn fill_raw_line<'a>(text: &'a str, raw: &mut RawLine<'a>) -> bool {
    let b = text.as_bytes();
    let mut p = Scanner {
        b,
        text,
        i: 0,
        // One vectorized pass: without control bytes, strings need only look for `"` and `\\`.
        plain: !b.iter().fold(false, |any, &c| any | (c < 0x20)),
    };
    p.ws();
    if p.line(raw).is_none() {
        return false;
    }
    p.ws();
    p.i == p.b.len()
}

struct Scanner<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    /// The line holds no byte below 0x20.
    plain: bool,
}

/// A value read where a string or number is kept.
enum Scalar<'a> {
    Str(&'a str),
    Num(f64),
    Other,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// A string at the cursor (which is on its `"`): the text between the quotes and whether it
    /// holds an escape. Validates escapes and rejects control characters, as serde_json does.
    fn string(&mut self) -> Option<(&'a str, bool)> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            let rest = &self.b[self.i..];
            self.i += if self.plain {
                memchr::memchr2(b'"', b'\\', rest)?
            } else {
                special(rest)?
            };
            match self.b[self.i] {
                b'"' => {
                    let s = &self.text[start..self.i];
                    self.i += 1;
                    return Some((s, escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.i += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'u' => {
                            let hex = self.b.get(self.i + 1..self.i + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.i += 5;
                        }
                        _ => return None,
                    }
                }
                _ => return None, // a control character
            }
        }
    }

    /// A key: a string without escapes followed by `:`.
    fn key(&mut self) -> Option<&'a str> {
        let (k, escaped) = self.string()?;
        if escaped {
            return None;
        }
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(k)
    }

    /// A number in JSON's grammar; its text.
    fn number(&mut self) -> Option<&'a str> {
        let start = self.i;
        self.i += forge_replay_model::transcode::number_len(&self.b[start..])?;
        Some(&self.text[start..self.i])
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + word.len())? == word {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// Validates and skips any value.
    fn skip(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.eat(b'}').is_some() {
                    return Some(());
                }
                loop {
                    self.string()?;
                    self.ws();
                    self.eat(b':')?;
                    self.ws();
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.i += 1;
                            self.ws();
                        }
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.eat(b']').is_some() {
                    return Some(());
                }
                loop {
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.i += 1;
                            self.ws();
                        }
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number().map(|_| ()),
        }
    }

    /// A kept scalar: strings (without escapes) and numbers are read, anything else skipped.
    fn scalar(&mut self, depth: u32) -> Option<Scalar<'a>> {
        match self.peek()? {
            b'"' => match self.string()? {
                (s, false) => Some(Scalar::Str(s)),
                (_, true) => None, // serde decodes it: let serde do it
            },
            b'-' | b'0'..=b'9' => {
                let text = self.number()?;
                let v = if text.bytes().all(|c| c.is_ascii_digit() || c == b'-') {
                    // serde_json reads an integer's magnitude as a u64 (a longer one as a
                    // double) and negates it: "-0" is -0.0.
                    let (negative, digits) = match text.strip_prefix('-') {
                        Some(d) => (true, d),
                        None => (false, text),
                    };
                    let m = match digits.parse::<u64>() {
                        Ok(v) => v as f64,
                        Err(_) => digits.parse::<f64>().ok()?,
                    };
                    if negative {
                        -m
                    } else {
                        m
                    }
                } else {
                    text.parse::<f64>().ok()?
                };
                // serde_json refuses numbers out of f64 range (JSON.parse gives Infinity).
                v.is_finite().then_some(Scalar::Num(v))
            }
            _ => {
                self.skip(depth)?;
                Some(Scalar::Other)
            }
        }
    }

    fn js_str(&mut self, depth: u32) -> Option<JsStr<'a>> {
        Some(match self.scalar(depth)? {
            Scalar::Str(s) => JsStr(Some(Cow::Borrowed(s))),
            _ => JsStr(None),
        })
    }

    fn js_num(&mut self, depth: u32) -> Option<JsNum> {
        Some(match self.scalar(depth)? {
            Scalar::Num(v) => JsNum(Some(v)),
            _ => JsNum(None),
        })
    }

    /// Iterates an object's members: `f(scanner, key)` must consume the value. `None` when the
    /// value is not an object (`Some(false)`, value skipped) or on a syntax error.
    fn object(
        &mut self,
        depth: u32,
        mut f: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<bool> {
        if self.peek()? != b'{' {
            // serde reads this value with `deserialize_any`, which parses (and range-checks) a
            // number: `scalar` does the same.
            self.scalar(depth)?;
            return Some(false);
        }
        if depth >= MAX_DEPTH {
            return None;
        }
        self.i += 1;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(true);
        }
        loop {
            let k = self.key()?;
            f(self, k)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                b'}' => {
                    self.i += 1;
                    return Some(true);
                }
                _ => return None,
            }
        }
    }

    fn line(&mut self, raw: &mut RawLine<'a>) -> Option<()> {
        if self.peek()? != b'{' {
            return None; // serde's derive also reads arrays as structs: let serde do it
        }
        let mut seen = 0u16;
        let is_object = self.object(0, |p, k| {
            let bit = match k {
                "type" => 0,
                "id" => 1,
                "parentId" => 2,
                "timestamp" => 3,
                "message" => 4,
                "version" => 5,
                "cwd" => 6,
                "parentSession" => 7,
                _ => return p.skip(1),
            };
            if seen & (1 << bit) != 0 {
                return None; // serde's derive refuses a repeated field
            }
            seen |= 1 << bit;
            match bit {
                0 => raw.ty = p.js_str(1)?,
                1 => raw.id = p.js_str(1)?,
                2 => raw.parent_id = p.js_str(1)?,
                3 => raw.timestamp = p.js_str(1)?,
                4 => p.message(1, &mut raw.message)?,
                5 => raw.version = p.js_num(1)?,
                6 => raw.cwd = p.js_str(1)?,
                _ => raw.parent_session = p.js_str(1)?,
            }
            Some(())
        })?;
        is_object.then_some(())
    }

    fn message(&mut self, depth: u32, out: &mut ObjOr<RawMessage<'a>>) -> Option<()> {
        let m = out.0.insert(RawMessage::default());
        let mut seen = 0u8;
        let d = depth + 1;
        let is_object = self.object(depth, |p, k| {
            let bit = match k {
                "role" => 0,
                "usage" => 1,
                "details" => 2,
                "model" => 3,
                "provider" => 4,
                "api" => 5,
                "stopReason" => 6,
                _ => return p.skip(d),
            };
            if seen & (1 << bit) != 0 {
                return None;
            }
            seen |= 1 << bit;
            match bit {
                0 => m.role = p.js_str(d)?,
                1 => m.usage = p.usage(d)?,
                2 => m.details = p.details(d)?,
                3 => m.model = p.js_str(d)?,
                4 => m.provider = p.js_str(d)?,
                5 => m.api = p.js_str(d)?,
                _ => m.stop_reason = p.js_str(d)?,
            }
            Some(())
        })?;
        if !is_object {
            out.0 = None;
        }
        Some(())
    }

    fn usage(&mut self, depth: u32) -> Option<ObjOr<RawUsage>> {
        let mut u = RawUsage::default();
        let mut seen = 0u8;
        let d = depth + 1;
        let is_object = self.object(depth, |p, k| {
            let bit = match k {
                "input" => 0,
                "output" => 1,
                "cacheRead" => 2,
                "cacheWrite" => 3,
                "cost" => 4,
                _ => return p.skip(d),
            };
            if seen & (1 << bit) != 0 {
                return None;
            }
            seen |= 1 << bit;
            match bit {
                0 => u.input = p.js_num(d)?,
                1 => u.output = p.js_num(d)?,
                2 => u.cache_read = p.js_num(d)?,
                3 => u.cache_write = p.js_num(d)?,
                _ => u.cost = p.cost(d)?,
            }
            Some(())
        })?;
        Some(ObjOr(is_object.then_some(u)))
    }

    fn cost(&mut self, depth: u32) -> Option<ObjOr<RawCost>> {
        let mut c = RawCost::default();
        let mut seen = false;
        let d = depth + 1;
        let is_object = self.object(depth, |p, k| {
            if k != "total" {
                return p.skip(d);
            }
            if seen {
                return None;
            }
            seen = true;
            c.total = p.js_num(d)?;
            Some(())
        })?;
        Some(ObjOr(is_object.then_some(c)))
    }

    /// `details`: only its keys are looked at; a `forgeNestedUsage` report goes to serde.
    fn details(&mut self, depth: u32) -> Option<Details> {
        let d = depth + 1;
        self.object(depth, |p, k| {
            if k == crate::nested::FORGE_NESTED_USAGE_KEY {
                return None;
            }
            p.skip(d)
        })?;
        Some(Details(None))
    }
}

/// Offset of the first `"`, `\\` or control character in `s`, eight bytes at a time.
fn special(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut i = 0;
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().ok()?);
        let found = zero_byte(w ^ (ONES * u64::from(b'"')))
            | zero_byte(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if found != 0 {
            // The lowest flagged byte is exact (borrows only run upwards).
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|at| i + at)
}
