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

/// A map from `u64` keys (hashes already) to `usize` values: open addressing with linear probing,
/// at most half full. Unlike a `HashMap` it can be read ahead ([`KeyTable::touch`]): the merge
/// touches the slots of a file's keys first, so their cache misses overlap instead of coming
/// one after the other (they were most of the merge's time).
#[derive(Debug, Clone)]
pub(crate) struct KeyTable {
    keys: Vec<u64>,
    values: Vec<usize>,
    /// `64 - log2(slots)`.
    shift: u32,
    len: usize,
    /// Key 0 marks an empty slot: its value is kept here.
    zero: Option<usize>,
}

/// Where [`KeyTable::find`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The key is there, with this value.
    Found(usize),
    /// The key is not there; [`KeyTable::fill`] puts it here.
    Vacant(usize),
}

impl KeyTable {
    /// Room for `n` keys without growing.
    pub fn with_capacity(n: usize) -> KeyTable {
        let slots = n.saturating_mul(2).max(16).next_power_of_two();
        KeyTable {
            keys: vec![0; slots],
            values: vec![0; slots],
            shift: 64 - slots.trailing_zeros(),
            len: 0,
            zero: None,
        }
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(K) >> self.shift) as usize
    }

    /// Reads the key's first slot (so a later [`KeyTable::find`] finds it in the cache); the
    /// value read means nothing.
    #[inline]
    pub fn touch(&self, key: u64) -> u64 {
        let at = self.home(key);
        self.keys[at] ^ self.values[at] as u64
    }

    #[inline]
    pub fn find(&self, key: u64) -> Slot {
        if key == 0 {
            return match self.zero {
                Some(v) => Slot::Found(v),
                None => Slot::Vacant(usize::MAX),
            };
        }
        let mask = self.keys.len() - 1;
        let mut at = self.home(key);
        loop {
            match self.keys[at] {
                0 => return Slot::Vacant(at),
                k if k == key => return Slot::Found(self.values[at]),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Puts `key` (not in the table) with `value` at the slot [`KeyTable::find`] gave, with no
    /// other change to the table in between.
    #[inline]
    pub fn fill(&mut self, at: usize, key: u64, value: usize) {
        if key == 0 {
            self.zero = Some(value);
            return;
        }
        self.keys[at] = key;
        self.values[at] = value;
        self.len += 1;
        if self.len * 2 > self.keys.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let mut bigger = KeyTable::with_capacity(self.keys.len());
        bigger.zero = self.zero;
        for (&k, &v) in self.keys.iter().zip(&self.values) {
            if k != 0 {
                if let Slot::Vacant(at) = bigger.find(k) {
                    bigger.keys[at] = k;
                    bigger.values[at] = v;
                    bigger.len += 1;
                }
            }
        }
        *self = bigger;
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn key_table_agrees_with_a_hash_map() {
        let mut t = KeyTable::with_capacity(4);
        let mut m: HashMap<u64, usize> = HashMap::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..20_000usize {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Small keys collide often, and 0 is a key too.
            let key = if i % 3 == 0 { x % 64 } else { x };
            let _ = t.touch(key);
            match (t.find(key), m.get(&key)) {
                (Slot::Found(v), Some(&w)) => assert_eq!(v, w),
                (Slot::Vacant(at), None) => {
                    t.fill(at, key, i);
                    m.insert(key, i);
                }
                (a, b) => panic!("{key}: {a:?} vs {b:?}"),
            }
        }
        for (k, v) in &m {
            assert_eq!(t.find(*k), Slot::Found(*v));
        }
        assert_eq!(t.len + usize::from(t.zero.is_some()), m.len());
    }
}
