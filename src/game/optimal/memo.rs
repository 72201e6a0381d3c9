//! The transposition table of the optimal search: code set → exact optimal
//! value (with the experiment that reaches it) or a proven lower bound.
//!
//! Input: sorted code sets (0-based code indices) plus a salt (the depth
//! limit left, or the objective). Output: the best entry stored so far.
//!
//! Invariants: keys are 128-bit polynomial fingerprints modulo the
//! Mersenne prime 2^61 − 1 under two fixed bases; two different sets of at
//! most `L` codes collide with probability at most `(L / 2^61)^2`, so over
//! 10^9 stored sets of at most 10^4 codes a collision has probability below
//! 10^-14. Writes never lose information: an exact value is never replaced
//! by a bound, and a bound only grows. The map is sharded behind mutexes so
//! rayon workers can share it, and stops taking new sets at its capacity
//! (the search stays exact, it only recomputes more).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::bounds::Cost;

const P: u64 = (1 << 61) - 1;
const BASE1: u64 = 0x1d8e_4e27_c47d_124f & P;
const BASE2: u64 = 0x0b3f_9a1c_5e2d_7a63 & P;

#[inline]
fn mul_mod(a: u64, b: u64) -> u64 {
    let x = (a as u128) * (b as u128);
    let lo = (x as u64) & P;
    let hi = (x >> 61) as u64;
    let s = lo + hi;
    if s >= P {
        s - P
    } else {
        s
    }
}

#[inline]
fn add_mod(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

/// The fingerprint of a code set under a salt.
pub fn key(set: &[u16], salt: u32) -> u128 {
    let mut h1 = add_mod(salt as u64 + 1, set.len() as u64);
    let mut h2 = h1;
    for &c in set {
        let x = c as u64 + 1;
        h1 = add_mod(mul_mod(h1, BASE1), x);
        h2 = add_mod(mul_mod(h2, BASE2), x);
    }
    ((h1 as u128) << 64) | h2 as u128
}

/// What is known about one set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The optimal value when `exact`, else a lower bound on it.
    pub value: Cost,
    pub exact: bool,
    /// An optimal experiment when `exact`.
    pub experiment: u32,
}

impl Entry {
    pub fn exact(value: Cost, experiment: u32) -> Entry {
        Entry {
            value,
            exact: true,
            experiment,
        }
    }

    pub fn bound(value: Cost) -> Entry {
        Entry {
            value,
            exact: false,
            experiment: u32::MAX,
        }
    }
}

/// Keys are already uniform: hash them by their low bits.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 ^= k;
    }
}

/// An entry packed in 64 bits: value (bits 33..), exact (bit 32),
/// experiment (bits 0..32).
#[derive(Clone, Copy)]
struct Packed(u64);

impl From<Entry> for Packed {
    fn from(e: Entry) -> Packed {
        Packed((e.value as u64) << 33 | (e.exact as u64) << 32 | e.experiment as u64)
    }
}

impl From<Packed> for Entry {
    fn from(p: Packed) -> Entry {
        Entry {
            value: (p.0 >> 33) as Cost,
            exact: p.0 >> 32 & 1 == 1,
            experiment: p.0 as u32,
        }
    }
}

/// Keys as two words (8-byte alignment keeps an entry at 24 bytes).
type Shard = HashMap<(u64, u64), Packed, BuildHasherDefault<KeyHasher>>;

fn split(key: u128) -> (u64, u64) {
    ((key >> 64) as u64, key as u64)
}

const SHARDS: usize = 64;

/// Entries a memo holds by default (about 24 bytes each plus the hash
/// table's slack: roughly 0.5 GiB when full).
pub const DEFAULT_CAPACITY: usize = 1 << 24;

/// A concurrent map from set fingerprints to entries.
pub struct Memo {
    shards: Vec<Mutex<Shard>>,
    len: AtomicUsize,
    /// New sets are not recorded beyond this many entries (known sets
    /// still gain information).
    capacity: usize,
}

impl Default for Memo {
    fn default() -> Self {
        Memo::new()
    }
}

impl Memo {
    pub fn new() -> Memo {
        Memo::with_capacity(DEFAULT_CAPACITY)
    }

    pub fn with_capacity(capacity: usize) -> Memo {
        Memo {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            len: AtomicUsize::new(0),
            capacity,
        }
    }

    #[inline]
    fn shard(&self, key: u128) -> &Mutex<Shard> {
        &self.shards[(key >> 122) as usize % SHARDS]
    }

    pub fn get(&self, key: u128) -> Option<Entry> {
        let shard = self.shard(key).lock().unwrap_or_else(|e| e.into_inner());
        shard.get(&split(key)).map(|&p| p.into())
    }

    /// Records `entry`, keeping whatever is more informative.
    pub fn put(&self, key: u128, entry: Entry) {
        let mut shard = self.shard(key).lock().unwrap_or_else(|e| e.into_inner());
        match shard.get_mut(&split(key)) {
            Some(slot) => {
                let old = Entry::from(*slot);
                if old.exact {
                    return;
                }
                if entry.exact || entry.value > old.value {
                    *slot = entry.into();
                }
            }
            None => {
                if self.len.load(Ordering::Relaxed) >= self.capacity {
                    return;
                }
                shard.insert(split(key), entry.into());
                self.len.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_on_content_length_and_salt() {
        assert_ne!(key(&[1, 2, 3], 0), key(&[1, 2, 4], 0));
        assert_ne!(key(&[1, 2], 0), key(&[1, 2, 0], 0));
        assert_ne!(key(&[1, 2], 0), key(&[1, 2], 1));
        assert_eq!(key(&[5, 9], 3), key(&[5, 9], 3));
    }

    #[test]
    fn entries_only_gain_information() {
        let m = Memo::new();
        let k = key(&[1, 2, 3], 0);
        m.put(k, Entry::bound(5));
        m.put(k, Entry::bound(4));
        assert_eq!(m.get(k), Some(Entry::bound(5)));
        m.put(k, Entry::exact(7, 2));
        m.put(k, Entry::bound(9));
        assert_eq!(m.get(k), Some(Entry::exact(7, 2)));
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn a_full_memo_records_no_new_sets() {
        let m = Memo::with_capacity(1);
        m.put(key(&[1], 0), Entry::bound(3));
        m.put(key(&[2], 0), Entry::exact(4, 0));
        assert_eq!(m.get(key(&[2], 0)), None);
        m.put(key(&[1], 0), Entry::exact(5, 1));
        assert_eq!(m.get(key(&[1], 0)), Some(Entry::exact(5, 1)));
    }
}
