//! JavaScript semantics that Pi, pi-forge and pi-ai rely on, in one place.
//!
//! Pi's packages are JavaScript: a limit counts UTF-16 units, `trim()` has its own whitespace set,
//! `if (x)` is truthiness, a template literal is `String(x)`, `Number(x)` parses strings its own
//! way, `new Date(s)` has V8's parser, and a `JSON.parse` failure carries V8's message. Every crate
//! that reproduces one of these calls this module; none has its own copy.
//!
//! * Values ([`truthy`], [`to_string`], [`join_element`], [`to_number`], [`string_to_number`],
//!   [`math_max`], [`math_min`]): conversions of a JSON value, with `None` as `undefined`.
//! * Strings ([`len`], [`utf16_units`], [`from_utf16`], [`cmp_utf16`], [`slice_utf16`],
//!   [`trim`], [`is_whitespace`], [`has_whitespace`], [`sanitize_surrogates`]): UTF-16 code
//!   units, with lone surrogates as [`crate::json`]'s stand-ins.
//! * [`Field`]: property lookup on the small objects of a transcript without hashing the key.
//! * [`date`]: `Date.parse`, `new Date(v).getTime()`, `toISOString()` and civil-day arithmetic.
//! * [`json_parse_error`]: the message V8's `JSON.parse` throws.
//!
//! Conformance: `fixtures/js/conformance.jsonl` holds what Node 22 computes for each of these on
//! a few hundred inputs (made by `tools/pi-oracle/src/js-conformance.mjs`), and
//! `crates/model/tests/js_conformance.rs` asserts every row.

pub mod date;
mod field;
mod json_parse;
mod string;
mod value;

pub use field::Field;
pub use json_parse::json_parse_error;
pub use string::{
    cmp_utf16, from_utf16, has_whitespace, is_whitespace, len, sanitize_surrogates, slice_utf16,
    trim, utf16_units,
};
pub use value::{join_element, math_max, math_min, string_to_number, to_number, to_string, truthy};
