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
use std::ops::{Deref, DerefMut};

use forge_replay_model::cursor::{Cursor, MAX_DEPTH};

use crate::scan::{Details, JsNum, JsStr, ObjOr, RawCost, RawLine, RawMessage, RawUsage, UsageNum};

/// Fills `raw` from `text` (one JSONL line) when the line has the common shape; `false` sends it
/// to serde (`raw` is then partly filled and must be dropped). In place: the record is large and
/// moving it per line showed in profiles.
pub(crate) fn fill_raw_line<'a>(text: &'a str, raw: &mut RawLine<'a>) -> bool {
    let mut p = Scanner(Cursor::new(text));
    p.ws();
    if p.line(raw).is_none() {
        return false;
    }
    p.ws();
    p.at_end()
}

/// The validating cursor plus the reads of the fields usage analytics keeps.
struct Scanner<'a>(Cursor<'a>);

impl<'a> Deref for Scanner<'a> {
    type Target = Cursor<'a>;
    fn deref(&self) -> &Cursor<'a> {
        &self.0
    }
}

impl DerefMut for Scanner<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// A value read where a string or number is kept.
enum Scalar<'a> {
    Str(&'a str),
    Num(f64),
    Other,
}

impl<'a> Scanner<'a> {
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
            if self.next_member(b'}')? {
                return Some(true);
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
                "recordType" => 8,
                "runId" => 9,
                // A release marker (`custom` entries): the last one counts, as in JSON.parse.
                "customType" => {
                    raw.custom_type = p.js_str(1)?;
                    return Some(());
                }
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
                7 => raw.parent_session = p.js_str(1)?,
                8 => raw.record_type = p.js_str(1)?,
                _ => raw.run_id = p.js_str(1)?,
            }
            Some(())
        })?;
        is_object.then_some(())
    }

    fn message(&mut self, depth: u32, out: &mut ObjOr<RawMessage<'a>>) -> Option<()> {
        let m = out.0.insert(RawMessage::default());
        let mut seen = 0u16;
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
                "timestamp" => 7,
                "responseId" => 8,
                // Release markers: only whether the key is there.
                "thinkingLevel" => {
                    m.keys |= crate::markers::KEY_THINKING_LEVEL;
                    return p.skip(d);
                }
                "durationMs" => {
                    m.keys |= crate::markers::KEY_DURATION;
                    return p.skip(d);
                }
                "nestedCalls" => {
                    m.keys |= crate::markers::KEY_NESTED_CALLS;
                    return p.skip(d);
                }
                "diagnostics" => {
                    m.keys |= crate::markers::KEY_DIAGNOSTICS;
                    return p.skip(d);
                }
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
                6 => m.stop_reason = p.js_str(d)?,
                7 => m.timestamp = p.js_num(d)?,
                _ => m.response_id = p.js_str(d)?,
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
                "cacheWrite1h" => 5,
                _ => return p.skip(d),
            };
            if seen & (1 << bit) != 0 {
                return None;
            }
            seen |= 1 << bit;
            match bit {
                0 => u.input = UsageNum::from_js(p.js_num(d)?),
                1 => u.output = UsageNum::from_js(p.js_num(d)?),
                2 => u.cache_read = UsageNum::from_js(p.js_num(d)?),
                3 => u.cache_write = UsageNum::from_js(p.js_num(d)?),
                4 => u.cost = p.cost(d)?,
                _ => u.cache_write_1h = p.js_num(d)?,
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
            if k == "totalFromProvider" {
                c.from_provider = true; // a release marker
                return p.skip(d);
            }
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
        Some(Details(None, None))
    }
}
