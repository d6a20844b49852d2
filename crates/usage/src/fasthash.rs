//! A fast, non-cryptographic hasher for the corpus run's in-process maps (paths, id hashes,
//! group codes): std's SipHash was a tenth of a warm run. Not for anything an adversary picks
//! to collide on purpose (the keys are the user's own files and hashes of them).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash's step: rotate, xor the word, multiply.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl FastHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // hashbrown takes its control bits from the top of the hash: fold the well-mixed
        // high half down too.
        self.0 ^ (self.0 >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.add(u64::from(v));
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

pub(crate) type FastBuild = BuildHasherDefault<FastHasher>;
pub(crate) type FastMap<K, V> = HashMap<K, V, FastBuild>;
pub(crate) type FastSet<K> = HashSet<K, FastBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn h<T: Hash>(v: T) -> u64 {
        FastBuild::default().hash_one(v)
    }

    #[test]
    fn distinct_inputs_hash_apart() {
        assert_ne!(h(1u64), h(2u64));
        assert_ne!(h("ab"), h("ba"));
        assert_ne!(
            h(std::path::Path::new("/a/b.jsonl")),
            h(std::path::Path::new("/a/c.jsonl"))
        );
        // A short tail and its zero-padded form differ (the tail's length is mixed in).
        assert_ne!(h([1u8].as_slice()), h([1u8, 0].as_slice()));
        let m: FastMap<u64, usize> = (0..1000u64).map(|i| (i << 32, i as usize)).collect();
        assert!((0..1000u64).all(|i| m[&(i << 32)] == i as usize));
    }
}
