//! pi-forge capabilities, replayed offline (spec: `forge-capabilities.md`).
//!
//! placeholder overview (filled in below once the API settles).

pub mod anchor;
pub mod binding;
pub mod context;
pub mod discovery;
pub mod event;
pub mod fingerprint;
pub mod history;
pub mod js;
pub mod projection;
pub mod reducer;
pub mod resource;
pub mod status;
pub mod tools;
pub mod warning;
