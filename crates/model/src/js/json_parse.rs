//! The message of the `SyntaxError` V8's `JSON.parse` throws (Node 22, Pi's runtime).
//!
//! pi-forge reports a capability file that does not parse as `Failed to parse JSON: <message>`,
//! and pi-ai fails a request whose stored signature does not parse with the same text, so
//! forge-replay reproduces V8's wording: its positioned messages (`… in JSON at position P (line
//! L column C)`, positions and columns in UTF-16 units, lines ended by `\n`, `\r` or `\r\n`), the
//! `Unexpected token` form with up to ten units of source on each side, and the whole-text form
//! for `NaN`, `Infinity`, `undefined` and `[object Object]`. Node 20 words several of these
//! differently; every kind is in `fixtures/js/conformance.jsonl`, made by Node 22.

use super::string::{from_utf16, utf16_units};

/// Units of source quoted on each side of an unexpected token.
const MAX_CONTEXT: usize = 10;
/// Shorter sources are quoted whole.
const MIN_SOURCE_FOR_CONTEXT: usize = 2 * MAX_CONTEXT + 1;

/// `JSON.parse(text)`'s error message, or `None` when it parses.
///
/// The checker walks the text in UTF-16 units without building values, iteratively (any nesting
/// depth), and stops at the first error as V8's parser does.
pub fn json_parse_error(text: &str) -> Option<String> {
    // Whatever serde_json accepts, V8 accepts too (the same grammar; serde_json is only stricter,
    // on lone surrogate escapes and nesting depth), so only a failure needs the exact checker.
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        return None;
    }
    let units: Vec<u16> = utf16_units(text).collect();
    let fail = Checker { s: &units, i: 0 }.run().err()?;
    Some(match fail {
        Fail::Eos => "Unexpected end of JSON input".to_string(),
        Fail::At(what, pos) => {
            let (line, column) = line_column(&units, pos);
            format!("{what} at position {pos} (line {line} column {column})")
        }
        Fail::Token(pos) => unexpected_token(text, &units, pos),
    })
}

enum Fail {
    /// The text ended inside a value.
    Eos,
    /// A positioned message (`<what> at position …`).
    At(&'static str, usize),
    /// An unexpected character at this position (the message quotes the source around it).
    Token(usize),
}

/// What is open around the current value.
enum Frame {
    Array,
    Object,
}

struct Checker<'a> {
    s: &'a [u16],
    i: usize,
}

fn is_ws(c: u16) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0A | 0x0D)
}

fn is_digit(c: u16) -> bool {
    (0x30..=0x39).contains(&c)
}

impl Checker<'_> {
    fn peek(&self) -> Option<u16> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.i += 1;
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(is_digit) {
            self.i += 1;
        }
        self.i - start
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

    fn number(&mut self) -> Result<(), Fail> {
        if self.peek() == Some(0x2D) {
            self.i += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(Fail::At("No number after minus sign in JSON", self.i));
            }
        }
        if self.peek() == Some(0x30) {
            self.i += 1;
            if self.peek().is_some_and(is_digit) {
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

    /// A property name and its colon, at the name's opening quote.
    fn key_and_colon(&mut self) -> Result<(), Fail> {
        self.string()?;
        self.skip_ws();
        if self.peek() != Some(0x3A) {
            return Err(Fail::At("Expected ':' after property name in JSON", self.i));
        }
        self.i += 1;
        Ok(())
    }

    fn run(&mut self) -> Result<(), Fail> {
        let mut open: Vec<Frame> = Vec::new();
        'value: loop {
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(Fail::Eos);
            };
            match c {
                0x22 => self.string()?,
                0x2D | 0x30..=0x39 => self.number()?,
                0x74 => self.literal("true")?,
                0x66 => self.literal("false")?,
                0x6E => self.literal("null")?,
                0x7B => {
                    self.i += 1;
                    self.skip_ws();
                    match self.peek() {
                        Some(0x7D) => self.i += 1,
                        Some(0x22) => {
                            self.key_and_colon()?;
                            open.push(Frame::Object);
                            continue 'value;
                        }
                        _ => return Err(Fail::At("Expected property name or '}' in JSON", self.i)),
                    }
                }
                0x5B => {
                    self.i += 1;
                    self.skip_ws();
                    if self.peek() == Some(0x5D) {
                        self.i += 1;
                    } else {
                        open.push(Frame::Array);
                        continue 'value;
                    }
                }
                _ => return Err(Fail::Token(self.i)),
            }
            // After a value: close what it ends, or go on to the next element or property.
            loop {
                self.skip_ws();
                match open.last() {
                    None => {
                        return match self.peek() {
                            None => Ok(()),
                            Some(_) => Err(Fail::At(
                                "Unexpected non-whitespace character after JSON",
                                self.i,
                            )),
                        }
                    }
                    Some(Frame::Array) => match self.peek() {
                        Some(0x2C) => {
                            self.i += 1;
                            continue 'value;
                        }
                        Some(0x5D) => {
                            self.i += 1;
                            open.pop();
                        }
                        _ => {
                            return Err(Fail::At(
                                "Expected ',' or ']' after array element in JSON",
                                self.i,
                            ))
                        }
                    },
                    Some(Frame::Object) => match self.peek() {
                        Some(0x2C) => {
                            self.i += 1;
                            self.skip_ws();
                            if self.peek() != Some(0x22) {
                                return Err(Fail::At(
                                    "Expected double-quoted property name in JSON",
                                    self.i,
                                ));
                            }
                            self.key_and_colon()?;
                            continue 'value;
                        }
                        Some(0x7D) => {
                            self.i += 1;
                            open.pop();
                        }
                        _ => {
                            return Err(Fail::At(
                                "Expected ',' or '}' after property value in JSON",
                                self.i,
                            ))
                        }
                    },
                }
            }
        }
    }
}

/// `(line, column)`, 1-based, of a UTF-16 offset; `\n`, `\r` and `\r\n` end a line.
fn line_column(s: &[u16], pos: usize) -> (usize, usize) {
    let mut line = 1;
    let mut start = 0;
    let mut i = 0;
    while i < pos.min(s.len()) {
        match s[i] {
            0x0D if s.get(i + 1) == Some(&0x0A) && i + 1 < pos => {
                i += 2;
                line += 1;
                start = i;
                continue;
            }
            0x0A | 0x0D => {
                line += 1;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    (line, pos - start + 1)
}

/// `Unexpected token 'C', "…" is not valid JSON`: the one code unit at `pos`, and the source
/// around it (whole when short, else ten units each side with `...` where cut).
fn unexpected_token(text: &str, s: &[u16], pos: usize) -> String {
    if matches!(text, "NaN" | "Infinity" | "undefined" | "[object Object]") {
        return format!("\"{text}\" is not valid JSON");
    }
    let token = from_utf16(&s[pos..pos + 1]);
    let len = s.len();
    if len < MIN_SOURCE_FOR_CONTEXT {
        return format!("Unexpected token '{token}', \"{text}\" is not valid JSON");
    }
    let start = pos.saturating_sub(MAX_CONTEXT);
    let end = (pos + MAX_CONTEXT).min(len);
    let pre = if start == 0 { "" } else { "..." };
    let post = if end == len { "" } else { "..." };
    let context = from_utf16(&s[start..end]);
    format!("Unexpected token '{token}', {pre}\"{context}\"{post} is not valid JSON")
}
