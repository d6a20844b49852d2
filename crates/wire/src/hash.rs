//! pi-ai's `shortHash` (`utils/hash.js`): a fast deterministic 2×32-bit hash over the UTF-16 code
//! units of a string, printed in base 36.

use crate::js::utf16_units;

/// `shortHash(str)`.
pub fn short_hash(s: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for ch in utf16_units(s) {
        let ch = u32::from(ch);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    let mut out = to_base36(h2);
    out.push_str(&to_base36(h1));
    out
}

/// `(n >>> 0).toString(36)`.
pub fn to_base36(mut n: u32) -> String {
    if n == 0 {
        return "0".into();
    }
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut buf = Vec::new();
    while n > 0 {
        buf.push(digits[(n % 36) as usize]);
        n /= 36;
    }
    buf.reverse();
    String::from_utf8(buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_pi_ai() {
        // Values computed with pi-ai 0.87.1's shortHash under Node 22.
        assert_eq!(short_hash(""), "k4n83c7h0j2b");
        assert_eq!(short_hash("system:3:grep"), "ccdm21plu593");
        assert_eq!(short_hash("call_abc|fc_123"), "jp01dsxufnom");
        let lone = forge_replay_model::json::parse(r#""😀x\ud800""#).unwrap();
        assert_eq!(short_hash(lone.as_str().unwrap()), "19jygp91j3273w");
    }
}
