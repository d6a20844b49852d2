//! A validating cursor over JSON text: the building block of the scanners that read or re-emit
//! session lines without building a `serde_json::Value` (`usage`'s line scanner,
//! [`crate::transcode`]).
//!
//! Every method either consumes one syntactic element, validated at least as strictly as
//! serde_json validates it (escapes, control characters, number grammar, nesting), or returns
//! `None`. `None` is not an error message: callers give up and take a serde path, which then
//! decides and words any error.

/// Deeper than this, give up (serde_json's own limit is 128).
pub const MAX_DEPTH: u32 = 100;

/// A position in JSON text.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    text: &'a str,
    /// The offset of the next byte.
    pub i: usize,
    /// The text holds no byte below 0x20, so strings need only look for `"` and `\`.
    plain: bool,
    /// An escape `JSON.stringify` would not write (`\/`, `\u` other than `\u00xx` in lowercase
    /// for a control character without a short form) has been read.
    noncanonical: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        let b = text.as_bytes();
        Cursor {
            text,
            i: 0,
            // One branch-free (vectorizable) pass over the text.
            plain: !b.iter().fold(false, |any, &c| any | (c < 0x20)),
            noncanonical: false,
        }
    }

    /// Whether a string read so far held an escape `JSON.stringify` would not write (valid JSON
    /// all the same): `\/`, or a `\u` escape other than lowercase `\u00xx` for a control
    /// character without a short form.
    pub fn saw_noncanonical_escape(&self) -> bool {
        self.noncanonical
    }

    /// A cursor whose caller has already looked for control bytes (`plain`: there are none).
    pub(crate) fn with_plain(text: &'a str, plain: bool) -> Self {
        Cursor {
            text,
            i: 0,
            plain,
            noncanonical: false,
        }
    }

    /// A cursor over text already known to be valid JSON (a session line the reader accepted):
    /// its strings hold no raw control bytes, so the scan for them is skipped.
    pub fn new_valid(text: &'a str) -> Self {
        Cursor {
            text,
            i: 0,
            plain: true,
            noncanonical: false,
        }
    }

    /// The whole text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The text's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte.
    pub fn peek(&self) -> Option<u8> {
        self.bytes().get(self.i).copied()
    }

    /// Whether the whole text has been consumed.
    pub fn at_end(&self) -> bool {
        self.i == self.text.len()
    }

    /// Skips JSON whitespace.
    pub fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// Consumes `c` if it is next.
    pub fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// A string at the cursor (which is on its `"`): the text between the quotes and whether it
    /// holds an escape. Escapes are validated and control characters refused, as serde_json does.
    pub fn string(&mut self) -> Option<(&'a str, bool)> {
        self.eat(b'"')?;
        let b = self.bytes();
        let start = self.i;
        let mut escaped = false;
        loop {
            let rest = &b[self.i..];
            self.i += if self.plain {
                memchr::memchr2(b'"', b'\\', rest)?
            } else {
                special(rest)?
            };
            match b[self.i] {
                b'"' => {
                    let s = &self.text[start..self.i];
                    self.i += 1;
                    return Some((s, escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.i += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'/' => {
                            self.noncanonical = true;
                            self.i += 1;
                        }
                        b'u' => {
                            let hex = b.get(self.i + 1..self.i + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            if !canonical_u_escape(hex) {
                                self.noncanonical = true;
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

    /// A key: a string without escapes, then `:`.
    pub fn key(&mut self) -> Option<&'a str> {
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
    pub fn number(&mut self) -> Option<&'a str> {
        let start = self.i;
        self.i += number_len(&self.bytes()[start..])?;
        Some(&self.text[start..self.i])
    }

    /// `true`, `false` or `null` (whichever `word` is).
    pub fn literal(&mut self, word: &str) -> Option<()> {
        if self.bytes().get(self.i..self.i + word.len())? == word.as_bytes() {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// Validates and skips any value, `depth` levels deep.
    pub fn skip(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            open @ (b'{' | b'[') => {
                if depth >= MAX_DEPTH {
                    return None;
                }
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
                    if self.next_member(close)? {
                        return Some(());
                    }
                }
            }
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            _ => self.number().map(|_| ()),
        }
    }

    /// After a member or element: `,` (returns `false`, more follow) or `close` (returns
    /// `true`, consumed), with the whitespace around them.
    pub fn next_member(&mut self, close: u8) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.i += 1;
                self.ws();
                Some(false)
            }
            c if c == close => {
                self.i += 1;
                Some(true)
            }
            _ => None,
        }
    }
}

/// Whether the four hex digits of a `\u` escape are what `JSON.stringify` writes: `00` then a
/// lowercase code below 0x20 that has no short form (`\b`, `\t`, `\n`, `\f`, `\r`).
fn canonical_u_escape(hex: &[u8]) -> bool {
    let digit = |h: u8| match h {
        b'0'..=b'9' => Some(h - b'0'),
        b'a'..=b'f' => Some(h - b'a' + 10),
        _ => None,
    };
    match (
        hex,
        hex.get(2).copied().and_then(digit),
        hex.get(3).copied().and_then(digit),
    ) {
        ([b'0', b'0', ..], Some(hi @ 0..=1), Some(lo)) => {
            !matches!(hi * 16 + lo, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D)
        }
        _ => false,
    }
}

/// The length of the JSON number at the start of `bytes`
/// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`), or `None` when there is none or a digit
/// follows it (serde_json refuses `01`).
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

/// Offset of the first `"`, `\` or control character in `s`, eight bytes at a time.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn skips(text: &str) -> bool {
        let mut c = Cursor::new(text);
        c.ws();
        c.skip(0).is_some() && {
            c.ws();
            c.at_end()
        }
    }

    #[test]
    fn skip_accepts_exactly_what_serde_accepts() {
        for text in [
            r#"{"a":[1,-2.5e+3,true,false,null,"x\n\u00e9\/"],"b":{}}"#,
            " [ ] ",
            "\"tab\\there\"",
            "0",
            "-0.0e-0",
        ] {
            assert!(skips(text), "{text}");
            assert!(serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok());
        }
        for text in [
            "01",
            "1.",
            "-",
            "+1",
            ".5",
            "tru",
            "[1,]",
            "{,}",
            r#"{"a"}"#,
            "\"a\tb\"",
            r#""\x""#,
            r#""\u12""#,
            "[1 2]",
        ] {
            assert!(!skips(text), "{text}");
            assert!(serde_json::from_str::<serde::de::IgnoredAny>(text).is_err());
        }
    }

    #[test]
    fn special_finds_the_first_flagged_byte() {
        assert_eq!(special(b"abcdefghij\"k"), Some(10));
        assert_eq!(special(b"abc\\"), Some(3));
        assert_eq!(special(b"abcdefgh\x01"), Some(8));
        assert_eq!(special(b"plain text, no specials"), None);
    }
}
