//! The message V8's `JSON.parse` throws for invalid JSON (Node 22), for pi-forge's
//! `Failed to parse JSON: <message>` diagnostic (spec §1.3 calls it V8-specific, §9).
//!
//! This is a syntax checker that walks the text in UTF-16 units as V8's `JsonParser` does and
//! reports its first error with V8's wording, position and `(line L column C)` suffix, or the
//! `Unexpected token` form with V8's 10-unit source context. Messages were checked against
//! Node 22 for every error kind (see the tests).

const MAX_CONTEXT: usize = 10;
const MIN_LENGTH_FOR_CONTEXT: usize = MAX_CONTEXT * 2 + 1;

struct Checker<'a> {
    s: &'a [u16],
    pos: usize,
}

enum Frame {
    Array,
    Object,
}

fn is_ws(c: u16) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0a | 0x0d)
}

fn is_digit(c: u16) -> bool {
    (u16::from(b'0')..=u16::from(b'9')).contains(&c)
}

impl Checker<'_> {
    fn peek(&self) -> Option<u16> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    fn at(&self, what: &str) -> String {
        self.at_with(&format!("{what} in JSON"))
    }

    fn at_with(&self, what: &str) -> String {
        let before = &self.s[..self.pos.min(self.s.len())];
        let line = 1 + before.iter().filter(|&&c| c == 0x0a).count();
        let line_start = before.iter().rposition(|&c| c == 0x0a).map_or(0, |i| i + 1);
        format!(
            "{what} at position {} (line {line} column {})",
            self.pos,
            self.pos - line_start + 1
        )
    }

    fn unexpected(&self) -> String {
        let Some(c) = self.peek() else {
            return "Unexpected end of JSON input".to_string();
        };
        let token = if (0xD800..0xDC00).contains(&c)
            && self
                .s
                .get(self.pos + 1)
                .is_some_and(|d| (0xDC00..0xE000).contains(d))
        {
            String::from_utf16_lossy(&self.s[self.pos..self.pos + 2])
        } else {
            String::from_utf16_lossy(&[c])
        };
        let len = self.s.len();
        if len < MIN_LENGTH_FOR_CONTEXT {
            return format!(
                "Unexpected token '{token}', \"{}\" is not valid JSON",
                String::from_utf16_lossy(self.s)
            );
        }
        let start = self.pos.saturating_sub(MAX_CONTEXT);
        let end = (self.pos + MAX_CONTEXT).min(len);
        let ctx = String::from_utf16_lossy(&self.s[start..end]);
        let pre = if start == 0 { "" } else { "..." };
        let post = if end == len { "" } else { "..." };
        format!("Unexpected token '{token}', {pre}\"{ctx}\"{post} is not valid JSON")
    }

    fn string(&mut self) -> Result<(), String> {
        self.pos += 1;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.at("Unterminated string"));
            };
            match c {
                0x22 => {
                    self.pos += 1;
                    return Ok(());
                }
                0x5c => {
                    self.pos += 1;
                    match self.peek() {
                        None => return Err(self.at("Unterminated string")),
                        Some(e) if b"\"\\/bfnrt".iter().any(|&x| u16::from(x) == e) => {
                            self.pos += 1
                        }
                        Some(e) if e == u16::from(b'u') => {
                            self.pos += 1;
                            for _ in 0..4 {
                                match self.peek() {
                                    Some(h)
                                        if char::from_u32(u32::from(h))
                                            .is_some_and(|ch| ch.is_ascii_hexdigit()) =>
                                    {
                                        self.pos += 1
                                    }
                                    _ => return Err(self.at("Bad Unicode escape")),
                                }
                            }
                        }
                        Some(_) => return Err(self.at("Bad escaped character")),
                    }
                }
                c if c < 0x20 => return Err(self.at("Bad control character in string literal")),
                _ => self.pos += 1,
            }
        }
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(is_digit) {
            self.pos += 1;
        }
    }

    fn number(&mut self) -> Result<(), String> {
        if self.peek() == Some(u16::from(b'-')) {
            self.pos += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(self.at("No number after minus sign"));
            }
        }
        if self.peek() == Some(u16::from(b'0')) {
            self.pos += 1;
            if self.peek().is_some_and(is_digit) {
                return Err(self.at("Unexpected number"));
            }
        } else {
            self.digits();
        }
        if self.peek() == Some(u16::from(b'.')) {
            self.pos += 1;
            if !self.peek().is_some_and(is_digit) {
                return Err(self.at("Unterminated fractional number"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(c) if c == u16::from(b'e') || c == u16::from(b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(c) if c == u16::from(b'+') || c == u16::from(b'-')) {
                self.pos += 1;
            }
            if !self.peek().is_some_and(is_digit) {
                return Err(self.at("Exponent part is missing a number"));
            }
            self.digits();
        }
        Ok(())
    }

    fn literal(&mut self, word: &str) -> Result<(), String> {
        for b in word.bytes() {
            if self.peek() != Some(u16::from(b)) {
                return Err(self.unexpected());
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn key_and_colon(&mut self) -> Result<(), String> {
        self.string()?;
        self.skip_ws();
        if self.peek() != Some(u16::from(b':')) {
            return Err(self.at("Expected ':' after property name"));
        }
        self.pos += 1;
        Ok(())
    }

    fn run(&mut self) -> Result<(), String> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(self.unexpected());
            };
            match c {
                0x22 => self.string()?,
                c if c == u16::from(b'-') || is_digit(c) => self.number()?,
                c if c == u16::from(b't') => self.literal("true")?,
                c if c == u16::from(b'f') => self.literal("false")?,
                c if c == u16::from(b'n') => self.literal("null")?,
                0x7b => {
                    self.pos += 1;
                    self.skip_ws();
                    match self.peek() {
                        Some(0x7d) => self.pos += 1,
                        Some(0x22) => {
                            self.key_and_colon()?;
                            stack.push(Frame::Object);
                            continue 'value;
                        }
                        _ => return Err(self.at("Expected property name or '}'")),
                    }
                }
                0x5b => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(0x5d) {
                        self.pos += 1;
                    } else {
                        stack.push(Frame::Array);
                        continue 'value;
                    }
                }
                _ => return Err(self.unexpected()),
            }
            // After a value.
            loop {
                self.skip_ws();
                match stack.last() {
                    None => {
                        if self.peek().is_some() {
                            return Err(
                                self.at_with("Unexpected non-whitespace character after JSON")
                            );
                        }
                        return Ok(());
                    }
                    Some(Frame::Array) => match self.peek() {
                        Some(0x2c) => {
                            self.pos += 1;
                            continue 'value;
                        }
                        Some(0x5d) => {
                            self.pos += 1;
                            stack.pop();
                        }
                        _ => return Err(self.at("Expected ',' or ']' after array element")),
                    },
                    Some(Frame::Object) => match self.peek() {
                        Some(0x2c) => {
                            self.pos += 1;
                            self.skip_ws();
                            if self.peek() != Some(0x22) {
                                return Err(self.at("Expected double-quoted property name"));
                            }
                            self.key_and_colon()?;
                            continue 'value;
                        }
                        Some(0x7d) => {
                            self.pos += 1;
                            stack.pop();
                        }
                        _ => return Err(self.at("Expected ',' or '}' after property value")),
                    },
                }
            }
        }
    }
}

/// V8's `JSON.parse` error message for `text`, or `None` when V8 would accept it.
pub fn v8_parse_error(text: &str) -> Option<String> {
    let units: Vec<u16> = text.encode_utf16().collect();
    Checker { s: &units, pos: 0 }.run().err()
}

#[cfg(test)]
mod tests {
    use super::v8_parse_error;

    /// Messages printed by Node 22's `JSON.parse` for these inputs.
    #[test]
    fn matches_node_22() {
        let long = format!(
            "{{\"content\":\"{}\",\"a\":tru,\"{}\":1}}",
            "x".repeat(30),
            "z".repeat(51)
        );
        let long2 = format!("[{}x{}]", "1,".repeat(5), ",1".repeat(40));
        let long3 = format!("[{}x]", "1,".repeat(40));
        let cases: Vec<(&str, &str)> = vec![
            (
                "{\"a\":1,",
                "Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\"a\":1,}",
                "Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{not json",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            ("", "Unexpected end of JSON input"),
            ("   ", "Unexpected end of JSON input"),
            (
                "[1,2",
                "Expected ',' or ']' after array element in JSON at position 4 (line 1 column 5)",
            ),
            (
                "{\"a\" 1}",
                "Expected ':' after property name in JSON at position 5 (line 1 column 6)",
            ),
            (
                "\"abc",
                "Unterminated string in JSON at position 4 (line 1 column 5)",
            ),
            (
                "{\"a\":tru}",
                "Unexpected token '}', \"{\"a\":tru}\" is not valid JSON",
            ),
            ("x", "Unexpected token 'x', \"x\" is not valid JSON"),
            (
                "{}x",
                "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)",
            ),
            (
                "{\"a\":\"\u{1}\"}",
                "Bad control character in string literal in JSON at position 6 (line 1 column 7)",
            ),
            ("{\"a\":", "Unexpected end of JSON input"),
            ("[", "Unexpected end of JSON input"),
            ("[1,", "Unexpected end of JSON input"),
            (
                "{",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            ("tru", "Unexpected end of JSON input"),
            (
                "-",
                "No number after minus sign in JSON at position 1 (line 1 column 2)",
            ),
            (
                "1.",
                "Unterminated fractional number in JSON at position 2 (line 1 column 3)",
            ),
            (
                "\"\\u12",
                "Bad Unicode escape in JSON at position 5 (line 1 column 6)",
            ),
            (
                "\"\\x\"",
                "Bad escaped character in JSON at position 2 (line 1 column 3)",
            ),
            (
                "[1 2]",
                "Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)",
            ),
            (
                "{\"a\":1 \"b\":2}",
                "Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)",
            ),
            (
                "01",
                "Unexpected number in JSON at position 1 (line 1 column 2)",
            ),
            (
                "1e",
                "Exponent part is missing a number in JSON at position 2 (line 1 column 3)",
            ),
            ("[,]", "Unexpected token ',', \"[,]\" is not valid JSON"),
            (
                "{,}",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            ("nul", "Unexpected end of JSON input"),
            (
                "{\"a\":1}}",
                "Unexpected non-whitespace character after JSON at position 7 (line 1 column 8)",
            ),
            (
                "\u{feff}{}",
                "Unexpected token '\u{feff}', \"\u{feff}{}\" is not valid JSON",
            ),
            (
                "{\"a\":[1,}",
                "Unexpected token '}', \"{\"a\":[1,}\" is not valid JSON",
            ),
            ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
            (
                "{\"a\":01}",
                "Unexpected number in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"a\":-}",
                "No number after minus sign in JSON at position 6 (line 1 column 7)",
            ),
            (
                "[\"a\nb\"]",
                "Bad control character in string literal in JSON at position 3 (line 1 column 4)",
            ),
            (
                "{\"a\":1,\"a\"}",
                "Expected ':' after property name in JSON at position 10 (line 1 column 11)",
            ),
            (
                "1 2",
                "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)",
            ),
            (
                " {\"k\":nulx}",
                "Unexpected token 'x', \" {\"k\":nulx}\" is not valid JSON",
            ),
            (
                &long,
                "Unexpected token ',', ...\"x\",\"a\":tru,\"zzzzzzzz\"... is not valid JSON",
            ),
            (
                &long2,
                "Unexpected token 'x', ...\"1,1,1,1,1,x,1,1,1,1,\"... is not valid JSON",
            ),
            (
                &long3,
                "Unexpected token 'x', ...\"1,1,1,1,1,x]\" is not valid JSON",
            ),
            (
                "{\"a\":1",
                "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"a\"",
                "Expected ':' after property name in JSON at position 4 (line 1 column 5)",
            ),
            (
                "[1",
                "Expected ',' or ']' after array element in JSON at position 2 (line 1 column 3)",
            ),
            (
                "\"a\nb\"",
                "Bad control character in string literal in JSON at position 2 (line 1 column 3)",
            ),
            (
                "{\"a\":\"b\"\n,\n x}",
                "Expected double-quoted property name in JSON at position 12 (line 3 column 2)",
            ),
            (
                "[\"\\u00zz\"]",
                "Bad Unicode escape in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"😀\":x}",
                "Unexpected token 'x', \"{\"😀\":x}\" is not valid JSON",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(v8_parse_error(text).as_deref(), Some(want), "{text:?}");
        }
        for ok in [
            "{}",
            "[]",
            " 1 ",
            "-0.5e+3",
            "\"\\u00e9\\n\"",
            "{\"a\":[true,false,null]}",
        ] {
            assert_eq!(v8_parse_error(ok), None, "{ok}");
        }
    }
}
