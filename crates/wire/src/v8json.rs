//! The error message V8 (Node 22) gives when `JSON.parse` rejects a text.
//!
//! pi-ai calls `JSON.parse` on stored signatures (a Responses reasoning item is kept as the JSON of
//! a thinking block's `thinkingSignature`); when that throws, the request fails with V8's message,
//! and forge-replay reports the same text. Positions are UTF-16 offsets, as in V8; messages were
//! checked against Node 22.23.

use crate::js::{from_utf16_lossless, utf16_units};

/// Characters of context on each side of an unexpected token.
const MAX_CONTEXT: usize = 10;
/// Shorter sources are quoted whole.
const MIN_SOURCE_FOR_CONTEXT: usize = 2 * MAX_CONTEXT + 1;

enum Fail {
    /// An unexpected character at this position (the generic message with source context).
    Token(usize),
    /// The text ended early.
    Eos,
    /// A positioned message.
    At(&'static str, usize),
}

struct Parser<'a> {
    s: &'a [u16],
    i: usize,
}

fn is_ws(c: u16) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0A | 0x0D)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u16> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<(), Fail> {
        self.skip_ws();
        let Some(c) = self.peek() else {
            return Err(Fail::Eos);
        };
        match c {
            0x22 => self.string(),
            0x7B => self.object(),
            0x5B => self.array(),
            0x2D | 0x30..=0x39 => self.number(),
            0x74 => self.literal("true"),
            0x66 => self.literal("false"),
            0x6E => self.literal("null"),
            _ => Err(Fail::Token(self.i)),
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), Fail> {
        for w in word.bytes() {
            match self.peek() {
                None => return Err(Fail::Eos),
                Some(c) if c == u16::from(w) => self.i += 1,
                Some(_) => return Err(Fail::Token(self.i)),
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| (0x30..=0x39).contains(&c)) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<(), Fail> {
        if self.peek() == Some(0x2D) {
            self.i += 1;
            if !self.peek().is_some_and(|c| (0x30..=0x39).contains(&c)) {
                return Err(Fail::At("No number after minus sign in JSON", self.i));
            }
        }
        if self.peek() == Some(0x30) {
            self.i += 1;
            if self.peek().is_some_and(|c| (0x30..=0x39).contains(&c)) {
                return Err(Fail::At("Unexpected number in JSON", self.i));
            }
        } else {
            self.digits();
        }
        if self.peek() == Some(0x2E) {
            self.i += 1;
            if self.digits() == 0 {
                return Err(Fail::At("Unterminated fractional number in JSON", self.i));
            }
        }
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            self.i += 1;
            if matches!(self.peek(), Some(0x2B | 0x2D)) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Fail::At(
                    "Exponent part is missing a number in JSON",
                    self.i,
                ));
            }
        }
        Ok(())
    }

    fn string(&mut self) -> Result<(), Fail> {
        self.i += 1;
        loop {
            let Some(c) = self.peek() else {
                return Err(Fail::At("Unterminated string in JSON", self.i));
            };
            match c {
                0x22 => {
                    self.i += 1;
                    return Ok(());
                }
                0x5C => {
                    self.i += 1;
                    match self.peek() {
                        None => return Err(Fail::Eos),
                        Some(0x22 | 0x5C | 0x2F | 0x62 | 0x66 | 0x6E | 0x72 | 0x74) => self.i += 1,
                        Some(0x75) => {
                            self.i += 1;
                            for _ in 0..4 {
                                let hex = self
                                    .peek()
                                    .and_then(|h| char::from_u32(u32::from(h)))
                                    .is_some_and(|h| h.is_ascii_hexdigit());
                                if !hex {
                                    return Err(Fail::At("Bad Unicode escape in JSON", self.i));
                                }
                                self.i += 1;
                            }
                        }
                        Some(_) => return Err(Fail::At("Bad escaped character in JSON", self.i)),
                    }
                }
                c if c < 0x20 => {
                    return Err(Fail::At(
                        "Bad control character in string literal in JSON",
                        self.i,
                    ))
                }
                _ => self.i += 1,
            }
        }
    }

    fn object(&mut self) -> Result<(), Fail> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some(0x7D) {
            self.i += 1;
            return Ok(());
        }
        let mut first = true;
        loop {
            self.skip_ws();
            if self.peek() != Some(0x22) {
                let msg = if first {
                    "Expected property name or '}' in JSON"
                } else {
                    "Expected double-quoted property name in JSON"
                };
                return Err(Fail::At(msg, self.i));
            }
            first = false;
            self.string()?;
            self.skip_ws();
            if self.peek() != Some(0x3A) {
                return Err(Fail::At("Expected ':' after property name in JSON", self.i));
            }
            self.i += 1;
            self.value()?;
            self.skip_ws();
            match self.peek() {
                Some(0x2C) => self.i += 1,
                Some(0x7D) => {
                    self.i += 1;
                    return Ok(());
                }
                _ => {
                    return Err(Fail::At(
                        "Expected ',' or '}' after property value in JSON",
                        self.i,
                    ))
                }
            }
        }
    }

    fn array(&mut self) -> Result<(), Fail> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some(0x5D) {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.value()?;
            self.skip_ws();
            match self.peek() {
                Some(0x2C) => self.i += 1,
                Some(0x5D) => {
                    self.i += 1;
                    return Ok(());
                }
                _ => {
                    return Err(Fail::At(
                        "Expected ',' or ']' after array element in JSON",
                        self.i,
                    ))
                }
            }
        }
    }
}

/// `(line, column)`, 1-based, of a UTF-16 offset (line terminators `\n`, `\r`, `\r\n`, U+2028,
/// U+2029).
fn line_column(s: &[u16], pos: usize) -> (usize, usize) {
    let mut line = 1;
    let mut start = 0;
    let mut i = 0;
    while i < pos.min(s.len()) {
        let c = s[i];
        if c == 0x0D && s.get(i + 1) == Some(&0x0A) && i + 1 < pos {
            i += 2;
            line += 1;
            start = i;
            continue;
        }
        if matches!(c, 0x0A | 0x0D | 0x2028 | 0x2029) {
            line += 1;
            start = i + 1;
        }
        i += 1;
    }
    (line, pos - start + 1)
}

/// V8's `JSON.parse` error message for `text`, or `None` when it parses.
pub fn json_parse_error(text: &str) -> Option<String> {
    // Fast path: whatever serde_json accepts, V8 accepts too (same grammar; serde_json is only
    // stricter: lone surrogate escapes, nesting depth), so only failures need the exact parser.
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        return None;
    }
    let s = utf16_units(text);
    let mut p = Parser { s: &s, i: 0 };
    let result = p.value().and_then(|()| {
        p.skip_ws();
        match p.peek() {
            None => Ok(()),
            Some(_) => Err(Fail::At(
                "Unexpected non-whitespace character after JSON",
                p.i,
            )),
        }
    });
    let fail = result.err()?;
    Some(match fail {
        Fail::Eos => "Unexpected end of JSON input".to_string(),
        Fail::At(msg, pos) => {
            let (line, column) = line_column(&s, pos);
            format!("{msg} at position {pos} (line {line} column {column})")
        }
        Fail::Token(pos) => {
            if matches!(text, "NaN" | "Infinity" | "undefined" | "[object Object]") {
                return Some(format!("\"{text}\" is not valid JSON"));
            }
            let token = from_utf16_lossless(&s[pos..pos + 1]);
            let len = s.len();
            let sub = |a: usize, b: usize| from_utf16_lossless(&s[a..b.min(len)]);
            if len < MIN_SOURCE_FOR_CONTEXT {
                format!("Unexpected token '{token}', \"{text}\" is not valid JSON")
            } else if pos < MAX_CONTEXT {
                format!(
                    "Unexpected token '{token}', \"{}\"... is not valid JSON",
                    sub(0, pos + MAX_CONTEXT)
                )
            } else if pos < len - MAX_CONTEXT {
                format!(
                    "Unexpected token '{token}', ...\"{}\"... is not valid JSON",
                    sub(pos - MAX_CONTEXT, pos + MAX_CONTEXT)
                )
            } else {
                format!(
                    "Unexpected token '{token}', ...\"{}\" is not valid JSON",
                    sub(pos - MAX_CONTEXT, len)
                )
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::json_parse_error as e;

    #[test]
    fn valid_json_has_no_error_on_both_paths() {
        // Accepted by the serde_json fast path, or (lone surrogate escape) by the exact parser.
        for ok in [
            r#"{"type":"reasoning","summary":[],"n":-1.5e-7}"#,
            " [1, true, null, \"\\u00e9\"] ",
            r#""\ud800""#,
            "1e400",
        ] {
            assert_eq!(e(ok), None, "{ok}");
        }
    }

    #[test]
    fn matches_node_22() {
        // Each expectation was produced by `JSON.parse` in Node 22.23.
        let cases: &[(&str, &str)] = &[
            (
                "not base64!",
                "Unexpected token 'o', \"not base64!\" is not valid JSON",
            ),
            ("", "Unexpected end of JSON input"),
            ("nul", "Unexpected end of JSON input"),
            (
                "{",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            (
                "{\"a\":1",
                "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"a\":1,}",
                "Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\r\n\"a\" 1}",
                "Expected ':' after property name in JSON at position 7 (line 2 column 5)",
            ),
            (
                "{\n\r\"a\" 1}",
                "Expected ':' after property name in JSON at position 7 (line 3 column 5)",
            ),
            (
                "[1 2]",
                "Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)",
            ),
            (
                "\"abc",
                "Unterminated string in JSON at position 4 (line 1 column 5)",
            ),
            (
                "\"a\u{1}\"",
                "Bad control character in string literal in JSON at position 2 (line 1 column 3)",
            ),
            (
                "\"\\x\"",
                "Bad escaped character in JSON at position 2 (line 1 column 3)",
            ),
            (
                "\"\\u12g4\"",
                "Bad Unicode escape in JSON at position 5 (line 1 column 6)",
            ),
            ("\"\\", "Unexpected end of JSON input"),
            (
                "-01",
                "Unexpected number in JSON at position 2 (line 1 column 3)",
            ),
            (
                "1.e5",
                "Unterminated fractional number in JSON at position 2 (line 1 column 3)",
            ),
            (
                "1e+",
                "Exponent part is missing a number in JSON at position 3 (line 1 column 4)",
            ),
            (
                "{\"a\":1}\n\n  x",
                "Unexpected non-whitespace character after JSON at position 11 (line 3 column 3)",
            ),
            ("NaN", "\"NaN\" is not valid JSON"),
            ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
            (
                "xxxxxxxxxxxxxxxxxxxx",
                "Unexpected token 'x', \"xxxxxxxxxxxxxxxxxxxx\" is not valid JSON",
            ),
            (
                "xxxxxxxxxxxxxxxxxxxxx",
                "Unexpected token 'x', \"xxxxxxxxxx\"... is not valid JSON",
            ),
            (
                "[1,1,1,1,1,1,1,x,1,1,1,1,1,1,1,1,1,1,1]",
                "Unexpected token 'x', ...\"1,1,1,1,1,x,1,1,1,1,\"... is not valid JSON",
            ),
            (
                "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,x]",
                "Unexpected token 'x', ...\"1,1,1,1,1,x]\" is not valid JSON",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(e(input).as_deref(), Some(*want), "{input:?}");
        }
        assert_eq!(e("{\"type\":\"reasoning\",\"summary\":[]}"), None);
        assert_eq!(e(" [1, -0.5e-3, \"\\u00e9\", true, null] "), None);
    }
}
