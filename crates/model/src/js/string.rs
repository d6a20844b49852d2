//! JavaScript strings: UTF-16 code units, `trim()` and `/\s/`, the default sort order.
//!
//! A Rust string cannot hold a lone surrogate; [`crate::json::parse`] keeps one as its stand-in
//! (see [`crate::json::LONE_SURROGATE_BASE`]), and every function here counts a stand-in as the
//! one code unit it stands for.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::json::{is_lone_surrogate_stand_in, LONE_SURROGATE_BASE};

/// ECMAScript WhiteSpace plus LineTerminator (what `trim()` removes and `/\s/` matches).
///
/// Differs from [`char::is_whitespace`]: U+FEFF is whitespace here, U+0085 is not.
pub fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `/\s/.test(s)`.
pub fn has_whitespace(s: &str) -> bool {
    s.chars().any(is_whitespace)
}

/// `String.prototype.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_whitespace)
}

/// `String.prototype.length`: UTF-16 code units.
pub fn len(s: &str) -> usize {
    s.chars()
        .map(|c| {
            if is_lone_surrogate_stand_in(c) {
                1
            } else {
                c.len_utf16()
            }
        })
        .sum()
}

/// The UTF-16 code units of a string (a lone-surrogate stand-in gives its one unit).
pub fn utf16_units(s: &str) -> impl Iterator<Item = u16> + '_ {
    s.chars().flat_map(|c| {
        let mut buf = [0u16; 2];
        let n = if is_lone_surrogate_stand_in(c) {
            buf[0] = (0xD800 + (c as u32 - LONE_SURROGATE_BASE)) as u16;
            1
        } else {
            c.encode_utf16(&mut buf).len()
        };
        buf.into_iter().take(n)
    })
}

/// Rebuilds a string from UTF-16 code units, keeping a lone surrogate as its stand-in.
pub fn from_utf16(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|r| match r {
            Ok(c) => c,
            Err(e) => {
                char::from_u32(LONE_SURROGATE_BASE + (u32::from(e.unpaired_surrogate()) - 0xD800))
                    .unwrap_or('\u{FFFD}')
            }
        })
        .collect()
}

/// The default comparison of `Array.prototype.sort()`: UTF-16 code units, so an astral
/// character sorts before U+FFFF.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    utf16_units(a).cmp(utf16_units(b))
}

/// `s.slice(0, end)` in UTF-16 units (a cut through a surrogate pair keeps its lone first half,
/// as its stand-in).
pub fn slice_utf16(s: &str, end: usize) -> Cow<'_, str> {
    if len(s) <= end {
        return Cow::Borrowed(s);
    }
    let units: Vec<u16> = utf16_units(s).take(end).collect();
    Cow::Owned(from_utf16(&units))
}

/// pi-ai's `sanitizeSurrogates`: removes unpaired surrogates (their stand-ins here).
pub fn sanitize_surrogates(s: &str) -> Cow<'_, str> {
    // Stand-ins (U+F0000..U+F07FF) are encoded with lead byte 0xF3: a byte scan rules most
    // strings out without decoding them.
    if s.as_bytes().contains(&0xF3) && s.chars().any(is_lone_surrogate_stand_in) {
        Cow::Owned(
            s.chars()
                .filter(|c| !is_lone_surrogate_stand_in(*c))
                .collect(),
        )
    } else {
        Cow::Borrowed(s)
    }
}
