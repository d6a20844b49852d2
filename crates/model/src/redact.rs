//! Secret redaction: the one step every output of forge-replay goes through.
//!
//! Sessions, cases, scenarios and catalogs can hold credentials: tool-call arguments named
//! `apiKey` or `password`, a message's own `Authorization` or `cookie` headers, a provider's
//! `apiKey` in a models file, a key pasted into a prompt or given as `--model`. Everything
//! forge-replay prints or writes passes through this module first (unless the user asks for
//! `--no-redact`); what is *compared* (requests against goldens or captures) never does.
//!
//! Two rules, applied the same way to JSON values ([`redact_value`]), JSON text ([`json_text`],
//! byte-exact outside what it replaces) and plain text ([`text`]: error messages, tables):
//!
//! * **Keys** ([`is_secret_key`]): pi-forge's pattern (`src/payload-capture.ts`, `redactPayload`),
//!   `/(api[-_]?key|authorization|bearer|token|secret|password|cookie|credential)/i`, plus the
//!   auth headers it misses ([`SECRET_HEADERS`]). The value under such a key becomes
//!   `"[redacted]"`, whatever it is, except booleans and `null` (they carry no secret). The
//!   pattern also matches token *counts* (`max_tokens`, `budget_tokens`, `tokensBefore`, …), which
//!   are limits, not credentials: those keys are kept ([`is_safe_token_count_key`]), so a redacted
//!   payload still compares equal to pi-ai's.
//! * **Values** ([`string_content`]): credential-shaped strings anywhere, whatever the key:
//!   `sk-…` API keys (OpenAI, Anthropic), `Bearer …`, AWS access key ids, Google API keys,
//!   GitHub, GitLab and Slack tokens, JSON web tokens and PEM private keys. Only the credential
//!   itself is replaced, so the text around it stays readable.
//!
//! [`RedactingWriter`] is a writer that applies both (the CLI's stdout and files).
//!
//! In plain text, a secret key followed by `:` or `=` (`apiKey=…`, `Authorization: Bearer …`,
//! `"password": "…"`) has its value replaced as well; numbers there are kept (`max tokens: 40`).
//!
//! pi-forge's own capture transform (depth, size and image elision, and its pattern applied to
//! token counts too) is a different thing, reproduced by `forge_replay_wire::redact` for
//! comparing with files pi-forge saved.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The replacement value for a secret.
pub const REDACTED: &str = "[redacted]";

/// pi-forge's secret-key test: the key contains (case-insensitively) `apikey`/`api-key`/`api_key`,
/// `authorization`, `bearer`, `token`, `secret`, `password`, `cookie` or `credential`.
pub fn matches_secret_pattern(key: &str) -> bool {
    let k = key.as_bytes();
    // Every word is at least five bytes: most keys (`role`, `type`, `text`, `id`) stop here.
    if k.len() < 5 {
        return false;
    }
    let at =
        |i: usize, w: &[u8]| k.len() - i >= w.len() && k[i..i + w.len()].eq_ignore_ascii_case(w);
    for (i, &c) in k.iter().enumerate().take(k.len() - 4) {
        let hit = match c | 0x20 {
            b'a' => {
                at(i, b"authorization")
                    || at(i, b"apikey")
                    || at(i, b"api-key")
                    || at(i, b"api_key")
            }
            b'b' => at(i, b"bearer"),
            b't' => at(i, b"token"),
            b's' => at(i, b"secret"),
            b'p' => at(i, b"password"),
            b'c' => at(i, b"cookie") || at(i, b"credential"),
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

/// Header names whose values are secrets although pi-forge's pattern misses them.
pub const SECRET_HEADERS: &[&str] = &[
    "x-goog-api-key",
    "proxy-authorization",
    "chatgpt-account-id",
];

/// Keys that match the secret pattern but hold token counts or the names of token-count fields
/// (compared after removing `_`, `-` and `.`, case-insensitively): request limits, usage
/// reports (pi-ai's, Anthropic's, OpenAI's, Google's), Pi's compaction `tokensBefore`, and
/// pi-ai's catalog fields about them.
pub const SAFE_TOKEN_COUNT_KEYS: &[&str] = &[
    "tokens",
    "maxtokens",
    "maxoutputtokens",
    "maxcompletiontokens",
    "maxinputtokens",
    "maxnewtokens",
    "maxtokensfield",
    "budgettokens",
    "thinkingbudgettokens",
    "thinkingtokenbudget",
    "thinkingtokenbudgetfield",
    "supportsthinkingtokenbudget",
    "tokenbudget",
    "mintokens",
    "totaltokens",
    "inputtokens",
    "outputtokens",
    "prompttokens",
    "completiontokens",
    "reasoningtokens",
    "cachedtokens",
    "cachereadtokens",
    "cachewritetokens",
    "cachereadinputtokens",
    "cachecreationinputtokens",
    "ephemeral5minputtokens",
    "ephemeral1hinputtokens",
    "thinkingtokens",
    "inputtokensabove",
    "inputtokensdetails",
    "outputtokensdetails",
    "prompttokensdetails",
    "completiontokensdetails",
    "tokensbefore",
    "tokensafter",
    "contexttokens",
    // forge-replay's own output (`cache explain --format json`).
    "cacheabletokens",
    "defaulttokensbefore",
];

/// Whether a key is a token count ([`SAFE_TOKEN_COUNT_KEYS`], or a Google-style `…TokenCount`).
pub fn is_safe_token_count_key(key: &str) -> bool {
    let norm: String = key
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    SAFE_TOKEN_COUNT_KEYS.contains(&norm.as_str())
        || (norm.ends_with("tokencount") && !norm.contains("auth") && !norm.contains("api"))
}

/// Whether the value under this key is a secret: pi-forge's pattern or a known auth header, and
/// not a token count.
pub fn is_secret_key(key: &str) -> bool {
    (matches_secret_pattern(key)
        || (key.len() >= 14 && SECRET_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(key))))
        && !is_safe_token_count_key(key)
}

/// Whether a value under a secret key is replaced (booleans and `null` carry no secret).
fn replaces(value: &Value) -> bool {
    !matches!(value, Value::Bool(_) | Value::Null) && value.as_str() != Some(REDACTED)
}

/// A copy of `value` with every secret redacted (see the module docs).
pub fn redact_value(value: &Value) -> Value {
    let mut v = value.clone();
    redact_in_place(&mut v);
    v
}

/// Redacts `value` in place; returns how many values were replaced.
pub fn redact_in_place(value: &mut Value) -> usize {
    match value {
        Value::Array(items) => items.iter_mut().map(redact_in_place).sum(),
        Value::Object(map) => redact_map(map),
        Value::String(s) => {
            if let Some(r) = decoded_json(s) {
                *s = r;
                return 1;
            }
            match string_content(s) {
                Cow::Owned(r) => {
                    *s = r;
                    1
                }
                Cow::Borrowed(_) => 0,
            }
        }
        _ => 0,
    }
}

fn redact_map(map: &mut Map<String, Value>) -> usize {
    let mut n = 0;
    for (k, v) in map.iter_mut() {
        if is_secret_key(k) {
            if replaces(v) {
                *v = Value::String(REDACTED.into());
                n += 1;
            }
        } else {
            n += redact_in_place(v);
        }
    }
    n
}

/// Redacts HTTP headers: a secret name's value becomes `"[redacted]"`, credentials in other
/// values are replaced.
pub fn redact_headers(headers: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    headers
        .iter()
        .map(|(k, v)| {
            let v = if is_secret_key(k) {
                REDACTED.to_string()
            } else {
                string_content(v).into_owned()
            };
            (k.clone(), v)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Credential-shaped values

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a credential may start at `i`: the byte before it is not part of a word (a JSON
/// escape such as `\n` counts as a separator).
fn starts_word(b: &[u8], i: usize) -> bool {
    i == 0 || !(is_word(b[i - 1]) || b[i - 1] == b'-') || (i >= 2 && b[i - 2] == b'\\')
}

fn run(b: &[u8], from: usize, ok: impl Fn(u8) -> bool) -> usize {
    b[from..].iter().take_while(|&&c| ok(c)).count()
}

fn key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-')
}

/// If a credential starts at `i`, the byte range it covers (to replace).
fn credential_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let rest = &b[i..];
    let word_end = |start: usize, len: usize| {
        let end = start + len;
        (end >= b.len() || !is_word(b[end])).then_some((i, end))
    };
    match rest.first()? {
        b's' if rest.starts_with(b"sk-") => {
            let n = run(b, i + 3, key_char);
            (n >= 20).then_some((i, i + 3 + n))
        }
        b'B' if rest.starts_with(b"Bearer ") => {
            let spaces = run(b, i + 6, |c| c == b' ');
            let from = i + 6 + spaces;
            let n = run(b, from, |c| {
                c.is_ascii_alphanumeric()
                    || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
            });
            (n >= 8).then_some((from, from + n))
        }
        b'A' if rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA") => {
            let n = run(b, i + 4, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
            if n == 16 {
                word_end(i, 20)
            } else {
                None
            }
        }
        b'A' if rest.starts_with(b"AIza") => {
            let n = run(b, i + 4, key_char);
            if n == 35 {
                word_end(i, 39)
            } else {
                None
            }
        }
        b'g' if rest.len() > 4
            && rest.starts_with(b"gh")
            && matches!(rest[2], b'p' | b'o' | b'u' | b's' | b'r')
            && rest[3] == b'_' =>
        {
            let n = run(b, i + 4, |c| c.is_ascii_alphanumeric());
            (n >= 30).then_some((i, i + 4 + n))
        }
        b'g' if rest.starts_with(b"github_pat_") => {
            let n = run(b, i + 11, is_word);
            (n >= 30).then_some((i, i + 11 + n))
        }
        b'g' if rest.starts_with(b"glpat-") => {
            let n = run(b, i + 6, key_char);
            (n >= 20).then_some((i, i + 6 + n))
        }
        b'x' if rest.len() > 5
            && rest.starts_with(b"xox")
            && matches!(rest[3], b'a' | b'b' | b'p' | b'r' | b's')
            && rest[4] == b'-' =>
        {
            let n = run(b, i + 5, key_char);
            (n >= 10).then_some((i, i + 5 + n))
        }
        b'e' if rest.starts_with(b"eyJ") => {
            let part = |from: usize| run(b, from, key_char);
            let a = part(i);
            let dot1 = i + a;
            if a < 10 || b.get(dot1) != Some(&b'.') || !b[dot1 + 1..].starts_with(b"eyJ") {
                return None;
            }
            let p = part(dot1 + 1);
            let dot2 = dot1 + 1 + p;
            if p < 10 || b.get(dot2) != Some(&b'.') {
                return None;
            }
            let s = part(dot2 + 1);
            (s >= 10).then_some((i, dot2 + 1 + s))
        }
        b'-' if rest.starts_with(b"-----BEGIN ") => {
            let head_end = i + 11 + rest[11..].windows(5).position(|w| w == b"-----")?;
            if !b[i..head_end].ends_with(b"PRIVATE KEY") {
                return None;
            }
            let end_at = head_end
                + 5
                + b[head_end + 5..]
                    .windows(9)
                    .position(|w| w == b"-----END ")?;
            let close = end_at + 9 + b[end_at + 9..].windows(5).position(|w| w == b"-----")?;
            // Within one string of JSON text: never across a quote.
            (!b[i..close].contains(&b'"')).then_some((i, close + 5))
        }
        _ => None,
    }
}

/// Second bytes that, after a first byte, can start a credential: `sk`, `Be`, `AK`/`AS`/`AI`,
/// `gh`/`gi`/`gl`, `xo`, `ey`, `--` (a quick filter before [`credential_at`]); 0 for a byte that
/// starts none.
static NEXT: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b's' as usize] = 1;
    t[b'B' as usize] = 2;
    t[b'A' as usize] = 3;
    t[b'g' as usize] = 4;
    t[b'x' as usize] = 5;
    t[b'e' as usize] = 6;
    t[b'-' as usize] = 7;
    t
};

#[inline]
fn may_start_at(b: &[u8], i: usize) -> bool {
    let kind = NEXT[b[i] as usize];
    if kind == 0 {
        return false;
    }
    let Some(&next) = b.get(i + 1) else {
        return false;
    };
    match kind {
        1 => next == b'k',
        2 => next == b'e',
        3 => matches!(next, b'K' | b'S' | b'I'),
        4 => matches!(next, b'h' | b'i' | b'l'),
        5 => next == b'o',
        6 => next == b'y',
        _ => next == b'-',
    }
}

/// Replaces `ranges` of `s` with `[redacted]`.
fn splice(s: &str, ranges: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for &(a, b) in ranges {
        out.push_str(&s[last..a]);
        out.push_str(REDACTED);
        last = b;
    }
    out.push_str(&s[last..]);
    out
}

fn credential_ranges(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    // Every credential has a distinctive byte at a fixed offset from its start: `-` (`sk-`,
    // `xoxb-`, `glpat-`, `-----BEGIN`), `_` (`ghp_`, `github_pat_`), `J` (`eyJ`), `A` (`AKIA`,
    // `AIza`), `B` (`Bearer`). SIMD scans find those; only their candidate starts are checked.
    let mut starts: Vec<usize> = Vec::new();
    for p in memchr::memchr3_iter(b'-', b'_', b'J', b) {
        let back: &[usize] = match b[p] {
            b'-' => &[2, 4, 5, 0],
            b'_' => &[3, 6],
            _ => &[2],
        };
        starts.extend(back.iter().filter_map(|&k| p.checked_sub(k)));
    }
    starts.extend(memchr::memchr2_iter(b'A', b'B', b));
    if starts.is_empty() {
        return Vec::new();
    }
    starts.sort_unstable();
    starts.dedup();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut done = 0;
    for i in starts {
        if i < done {
            continue;
        }
        if may_start_at(b, i) && starts_word(b, i) {
            if let Some((from, to)) = credential_at(b, i) {
                ranges.push((from, to));
                done = to;
            }
        }
    }
    ranges
}

/// A string with every credential-shaped part replaced by `[redacted]` (borrowed when there is
/// none). Works on plain text and on the escaped content of a JSON string alike.
pub fn string_content(s: &str) -> Cow<'_, str> {
    let ranges = credential_ranges(s);
    if ranges.is_empty() {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(splice(s, &ranges))
    }
}

// ---------------------------------------------------------------------------------------------
// JSON text

/// Index just past the string starting at `i` (a `"`), or the end of the text.
fn string_end(b: &[u8], i: usize) -> usize {
    // Most strings are short: a plain loop before the SIMD search.
    for (k, &c) in b.iter().enumerate().skip(i + 1).take(24) {
        match c {
            b'"' => return k + 1,
            b'\\' => break,
            _ => {}
        }
    }
    let mut j = i + 1;
    while let Some(k) = memchr::memchr2(b'"', b'\\', &b[j..]) {
        let at = j + k;
        if b[at] == b'\\' {
            j = at + 2;
            if j >= b.len() {
                return b.len();
            }
        } else {
            return at + 1;
        }
    }
    b.len()
}

/// Index just past the container starting at `i` (`{` or `[`), or the end of the text.
fn container_end(b: &[u8], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'"' => {
                j = string_end(b, j);
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

fn is_delimiter(c: u8) -> bool {
    matches!(c, b',' | b'}' | b']' | b':' | b'"' | b'{' | b'[') || c.is_ascii_whitespace()
}

/// The decoded key of a JSON string token (`"…"`, quotes included).
fn decode_key(token: &str) -> Cow<'_, str> {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(token);
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    match crate::json::parse(token) {
        Ok(Value::String(s)) => Cow::Owned(s),
        _ => Cow::Borrowed(inner),
    }
}

/// For a string token whose content is itself JSON text (an object or array, as in tool-call
/// `arguments` sent as a string), the token with that JSON redacted and encoded again; `None`
/// when the content is not JSON or holds nothing to redact.
fn encoded_json(token: &str, inner: &str) -> Option<String> {
    let first = inner.trim_start_matches([' ', '\t']).as_bytes().first()?;
    if !matches!(first, b'{' | b'[') {
        return None;
    }
    let Ok(Value::String(decoded)) = crate::json::parse(token) else {
        return None;
    };
    crate::json::parse(&decoded).ok()?;
    match json_text(&decoded) {
        Cow::Owned(r) => {
            let mut out = String::with_capacity(token.len());
            crate::json::write_string(&mut out, &r);
            Some(out)
        }
        Cow::Borrowed(_) => None,
    }
}

/// [`encoded_json`] for a decoded string value.
fn decoded_json(s: &str) -> Option<String> {
    let first = s.trim_start().as_bytes().first()?;
    if !matches!(first, b'{' | b'[') {
        return None;
    }
    crate::json::parse(s).ok()?;
    match json_text(s) {
        Cow::Owned(r) => Some(r),
        Cow::Borrowed(_) => None,
    }
}

/// [`json_text`] when `on` (the default of every output), else the text as it is
/// (`--no-redact`).
pub fn json_text_if(on: bool, text: &str) -> Cow<'_, str> {
    if on {
        json_text(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// [`text`] when `on` (the default of every output), else the text as it is (`--no-redact`).
pub fn text_if(on: bool, s: &str) -> Cow<'_, str> {
    if on {
        text(s)
    } else {
        Cow::Borrowed(s)
    }
}

/// JSON text (one value, or several such as JSON Lines, in any layout) with every secret
/// redacted as [`redact_value`] would; the bytes outside the replaced values are unchanged.
/// Text that is not JSON is not an error: it comes back with its credential-shaped parts
/// replaced as far as the scan can tell.
pub fn json_text(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    // Values under secret keys, and JSON carried in strings: (from, to, replacement).
    let mut values: Vec<(usize, usize, String)> = Vec::new();
    let mut stack: Vec<u8> = Vec::new();
    let mut expect_key = false;
    let mut secret = false;
    let mut i = 0;
    while i < b.len() {
        // Indentation and separators: skipped in one tight loop.
        while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t' | b':') {
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => {
                let end = string_end(b, i);
                if expect_key && stack.last() == Some(&b'{') {
                    secret = is_secret_key(&decode_key(&text[i..end]));
                    expect_key = false;
                } else if secret {
                    if &text[i..end] != "\"[redacted]\"" {
                        values.push((i, end, "\"[redacted]\"".into()));
                    }
                    secret = false;
                } else if end > i + 2 && matches!(b[i + 1], b'{' | b'[' | b' ') {
                    // JSON inside a string (OpenAI-style tool-call `arguments`).
                    if let Some(r) = encoded_json(&text[i..end], &text[i + 1..end - 1]) {
                        values.push((i, end, r));
                    }
                }
                i = end;
            }
            b'{' | b'[' => {
                if secret {
                    let end = container_end(b, i);
                    values.push((i, end, "\"[redacted]\"".into()));
                    secret = false;
                    i = end;
                } else {
                    stack.push(c);
                    expect_key = c == b'{';
                    i += 1;
                }
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
                secret = false;
                i += 1;
            }
            b',' => {
                expect_key = stack.last() == Some(&b'{');
                secret = false;
                i += 1;
            }
            _ => {
                let n = run(b, i, |c| !is_delimiter(c)).max(1);
                let end = (i + n).min(b.len());
                let word = &b[i..end];
                if secret && !matches!(word, b"true" | b"false" | b"null") {
                    values.push((i, end, "\"[redacted]\"".into()));
                }
                secret = false;
                i = end;
                while !text.is_char_boundary(i) {
                    i += 1;
                }
            }
        }
    }
    // Credential-shaped strings: one scan of the whole text (they never cross a `"`); those
    // inside a value already replaced are dropped.
    let creds = credential_ranges(text);
    if values.is_empty() && creds.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut all: Vec<(usize, usize, &str)> = values
        .iter()
        .map(|(a, z, r)| (*a, *z, r.as_str()))
        .collect();
    let mut v = values.iter().peekable();
    for (a, z) in creds {
        while v.next_if(|(_, vz, _)| *vz <= a).is_some() {}
        if v.peek().is_some_and(|(va, _, _)| *va < z) {
            continue;
        }
        all.push((a, z, REDACTED));
    }
    all.sort_unstable_by_key(|r| r.0);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (a, z, r) in all {
        out.push_str(&text[last..a]);
        out.push_str(r);
        last = z;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

// ---------------------------------------------------------------------------------------------
// Plain text

/// Where the value after a secret key in plain text ends (`from` is its first byte).
fn text_value_end(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let first = *b.get(from)?;
    if first == b'"' || first == b'\'' {
        let mut j = from + 1;
        while j < b.len() && b[j] != first {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        return Some((from + 1, j.min(b.len())));
    }
    let stop = |c: u8| {
        c.is_ascii_whitespace()
            || matches!(
                c,
                b',' | b';' | b'&' | b')' | b'}' | b']' | b'>' | b'"' | b'\''
            )
    };
    let mut end = from + run(b, from, |c| !stop(c));
    // `Authorization: Bearer abc`: the scheme and its token.
    let scheme = &b[from..end];
    if matches!(
        scheme,
        b"Bearer" | b"Basic" | b"Token" | b"Digest" | b"bearer" | b"basic"
    ) {
        let spaces = run(b, end, |c| c == b' ');
        if spaces > 0 {
            end += spaces + run(b, end + spaces, |c| !stop(c));
        }
    }
    Some((from, end))
}

/// Plain text (an error message, a table, a line of a report) with its secrets redacted: the
/// values after secret keys (`key: value`, `key=value`, `"key": "value"`) and credential-shaped
/// strings anywhere. Borrowed when there is nothing to redact.
pub fn text(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let mut ranges = credential_ranges(s);
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-')
            || (i > 0 && key_char(b[i - 1]))
        {
            i += 1;
            continue;
        }
        let n = run(b, i, |c| key_char(c) || c == b'.');
        let key = &s[i..i + n];
        let mut j = i + n;
        if j < b.len() && matches!(b[j], b'"' | b'\'') {
            j += 1;
        }
        j += run(b, j, |c| c == b' ');
        if n == 0 || j >= b.len() || !matches!(b[j], b':' | b'=') || !is_secret_key(key) {
            i += n.max(1);
            continue;
        }
        j += 1;
        j += run(b, j, |c| c == b' ');
        if let Some((from, to)) = text_value_end(b, j) {
            let value = &s[from..to];
            let keep = value.is_empty()
                || value == REDACTED
                || value
                    .bytes()
                    .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b',' | b'_'))
                || matches!(value, "true" | "false" | "null" | "undefined");
            if !keep {
                ranges.push((from, to));
            }
            i = to.max(i + 1);
        } else {
            i += n.max(1);
        }
    }
    if ranges.is_empty() {
        return Cow::Borrowed(s);
    }
    ranges.sort();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (a, z) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(z),
            _ => merged.push((a, z)),
        }
    }
    Cow::Owned(splice(s, &merged))
}

/// A writer whose JSON ([`json_text`]) and plain text ([`text`]) are redacted when `on`; fixed
/// framing that holds no input data is written as it is.
#[derive(Debug)]
pub struct RedactingWriter<W> {
    w: W,
    on: bool,
}

impl<W: std::io::Write> RedactingWriter<W> {
    pub fn new(w: W, on: bool) -> Self {
        RedactingWriter { w, on }
    }

    /// Complete JSON text: one value, or several (JSON Lines).
    pub fn json(&mut self, text: &str) -> std::io::Result<()> {
        if self.on {
            self.w.write_all(json_text(text).as_bytes())
        } else {
            self.w.write_all(text.as_bytes())
        }
    }

    /// Plain text.
    pub fn text(&mut self, text: &str) -> std::io::Result<()> {
        if self.on {
            self.w.write_all(self::text(text).as_bytes())
        } else {
            self.w.write_all(text.as_bytes())
        }
    }

    /// Fixed framing that holds no input data (`{"requests": [`).
    pub fn frame(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.w.write_all(bytes)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }

    pub fn into_inner(self) -> W {
        self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_can_be_turned_off() {
        let secret = r#"{"apiKey": "sk-abcdefghijklmnopqrstuvwxyz123456"}"#;
        assert_eq!(json_text_if(false, secret), secret);
        assert_eq!(json_text_if(true, secret), json_text(secret));
        assert!(text_if(true, secret).contains(REDACTED));
        assert_eq!(text_if(false, secret), secret);
    }

    #[test]
    fn the_redacting_writer_redacts_json_and_text_but_not_framing() {
        let secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
        let mut w = RedactingWriter::new(Vec::new(), true);
        w.json(&format!("{{\"apiKey\":\"{secret}\"}}")).unwrap();
        w.text(&format!(" key {secret} ")).unwrap();
        w.frame(b"[").unwrap();
        let out = String::from_utf8(w.into_inner()).unwrap();
        assert!(!out.contains(secret), "{out}");
        assert!(
            out.starts_with("{\"apiKey\":\"[redacted]\"}") && out.ends_with(" ["),
            "{out}"
        );
        let mut off = RedactingWriter::new(Vec::new(), false);
        off.text(secret).unwrap();
        assert_eq!(off.into_inner(), secret.as_bytes());
    }
    use serde_json::json;

    const ANT: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

    #[test]
    fn secrets_go_token_counts_stay() {
        let v = json!({"max_tokens": 5, "thinking": {"budget_tokens": 3}, "apiKey": "k", "x-api-key": "k",
                       "headers": {"Authorization": "Bearer x"}, "prompt_cache_key": "s", "maxOutputTokens": 9,
                       "refresh_token": "t", "tokensBefore": 120, "credential": {"user": "u"},
                       "password": 1234, "token": true, "secret": null, "chatgpt-account-id": "acc"});
        assert_eq!(
            redact_value(&v),
            json!({"max_tokens": 5, "thinking": {"budget_tokens": 3}, "apiKey": "[redacted]", "x-api-key": "[redacted]",
                       "headers": {"Authorization": "[redacted]"}, "prompt_cache_key": "s", "maxOutputTokens": 9,
                       "refresh_token": "[redacted]", "tokensBefore": 120, "credential": "[redacted]",
                       "password": "[redacted]", "token": true, "secret": null, "chatgpt-account-id": "[redacted]"})
        );
    }

    #[test]
    fn credential_shaped_values_anywhere() {
        for (input, want) in [
            (format!("key {ANT} end"), "key [redacted] end".to_string()),
            (
                "sk-proj-abcdefghijklmnopqrstuvwxyz012345".into(),
                "[redacted]".into(),
            ),
            (
                "Authorization was Bearer abcdefgh12345678".into(),
                "Authorization was Bearer [redacted]".into(),
            ),
            ("AKIAIOSFODNN7EXAMPLE".into(), "[redacted]".into()),
            (
                "k=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234".into(),
                "k=[redacted]".into(),
            ),
            (
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789".into(),
                "[redacted]".into(),
            ),
            ("xoxb-1234567890-abcdef".into(), "[redacted]".into()),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlX2hlcmU".into(),
                "[redacted]".into(),
            ),
            (
                "a -----BEGIN RSA PRIVATE KEY-----\\nMIIE\\n-----END RSA PRIVATE KEY----- b".into(),
                "a [redacted] b".into(),
            ),
            (
                "\\nsk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx".into(),
                "\\n[redacted]".into(),
            ),
        ] {
            assert_eq!(string_content(&input), want, "{input}");
        }
        for keep in [
            "task-abcdefghijklmnopqrstuvwxyz",
            "desk-organizer-abcdefghijklmnopqrstu",
            "sk-short",
            "Bearer [redacted]",
            "iVBORw0KGgoAAAANSUhEUgAIzaAKIAIOSFODNN7EXAMPLEAAAA",
            "plain words",
        ] {
            assert_eq!(string_content(keep), keep);
        }
    }

    #[test]
    fn json_text_equals_the_value_rule_and_keeps_other_bytes() {
        let doc = json!({
            "model": "m", "max_tokens": 5, "apiKey": "k1",
            "headers": {"Authorization": "Bearer abcdefghijkl", "x-other": "v"},
            "args": {"password": {"nested": ["a", {"b": 1}]}, "token": 17, "ok": true, "secret": null},
            "messages": [{"content": format!("my key is {ANT}")}],
            "w\u{0061}piKey": "x", "tokensBefore": 3
        });
        let want = crate::json::stringify_pretty(&redact_value(&doc));
        for text in [
            crate::json::stringify_pretty(&doc),
            crate::json::stringify(&doc),
        ] {
            let got = json_text(&text);
            let reparsed = crate::json::parse(&got).unwrap();
            assert_eq!(crate::json::stringify_pretty(&reparsed), want);
        }
        // JSON inside a string, as OpenAI-style APIs send tool-call arguments.
        let args = json!({"arguments": "{\"cmd\":\"ls\",\"password\":\"p\"}", "text": "{not json"});
        assert_eq!(
            json_text(&crate::json::stringify(&args)),
            r#"{"arguments":"{\"cmd\":\"ls\",\"password\":\"[redacted]\"}","text":"{not json"}"#
        );
        assert_eq!(
            redact_value(&args)["arguments"],
            json!("{\"cmd\":\"ls\",\"password\":\"[redacted]\"}")
        );
        let escaped = r#"{"\u0061piKey": "x", "n": 1}"#;
        assert_eq!(
            json_text(escaped),
            r#"{"\u0061piKey": "[redacted]", "n": 1}"#
        );
        let clean = "{\n  \"model\": \"m\",\n  \"max_tokens\": 5\n}\n{\"a\":[1,2]}\n";
        assert!(matches!(json_text(clean), Cow::Borrowed(_)));
        let jsonl = "{\"apiKey\":\"a\"}\n{\"apiKey\":\"b\",\"n\":2}\n";
        assert_eq!(
            json_text(jsonl),
            "{\"apiKey\":\"[redacted]\"}\n{\"apiKey\":\"[redacted]\",\"n\":2}\n"
        );
        // Not JSON: no panic, credentials still found.
        assert_eq!(json_text(&format!("oops {ANT} \"x")), "oops [redacted] \"x");
        assert_eq!(json_text("\"unterminated"), "\"unterminated");
        assert_eq!(json_text("{\"apiKey\": "), "{\"apiKey\": ");
        assert_eq!(json_text("é{\"a\":é}"), "é{\"a\":é}");
    }

    #[test]
    fn plain_text() {
        for (input, want) in [
            (
                "unknown model \"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv\"",
                "unknown model \"[redacted]\"",
            ),
            ("apiKey=abc123 next", "apiKey=[redacted] next"),
            ("--api-key abc", "--api-key abc"),
            ("--api-key=abc", "--api-key=[redacted]"),
            (
                "Authorization: Bearer abc, x",
                "Authorization: [redacted], x",
            ),
            (
                "{\"password\": \"hunter2\", \"n\": 1}",
                "{\"password\": \"[redacted]\", \"n\": 1}",
            ),
            ("x-api-key: 'v'", "x-api-key: '[redacted]'"),
            (
                "max_tokens: 4096, tokens: 12, token: 7",
                "max_tokens: 4096, tokens: 12, token: 7",
            ),
            ("secret: true", "secret: true"),
            (
                "a plain sentence: nothing here",
                "a plain sentence: nothing here",
            ),
        ] {
            assert_eq!(text(input), want, "{input}");
        }
    }

    #[test]
    fn headers() {
        let mut h = BTreeMap::new();
        h.insert("x-api-key".to_string(), "k".to_string());
        h.insert("x-goog-api-key".to_string(), "k".to_string());
        h.insert("content-type".to_string(), "application/json".to_string());
        let r = redact_headers(&h);
        assert_eq!(r["x-api-key"], REDACTED);
        assert_eq!(r["x-goog-api-key"], REDACTED);
        assert_eq!(r["content-type"], "application/json");
    }
}
