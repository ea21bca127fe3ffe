//! The fitness cache (spec §8): keyed by the canonical JSON of the mapped scenario, so genomes that map
//! to the same robot share one simulation; least recently used entries go first. Keys are 128-bit
//! FNV-1a hashes of that JSON, which keeps checkpoints small (a collision needs ~2⁶⁴ distinct
//! scenarios).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

/// FNV-1a, 128 bits: stable across platforms and Rust versions (unlike `std`'s hasher).
pub(crate) fn fnv128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    bytes.iter().fold(OFFSET, |h, b| (h ^ *b as u128).wrapping_mul(PRIME))
}

/// The result of evaluating one scenario: the numbers the algorithm reads (the fitness metric's value,
/// the objectives, the descriptors) or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub fitness: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objectives: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptors: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Evaluation {
    pub fn invalid(reason: impl Into<String>) -> Evaluation {
        Evaluation { fitness: None, objectives: None, descriptors: None, error: Some(reason.into()) }
    }
}

/// A deterministic LRU map: recency is a counter bumped on every lookup hit and insertion.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    capacity: usize,
    tick: u64,
    entries: HashMap<u128, (Evaluation, u64)>,
    by_age: BTreeMap<u64, u128>,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache { capacity, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&mut self, key: u128) -> Option<Evaluation> {
        let (value, age) = self.entries.get_mut(&key)?;
        self.by_age.remove(age);
        self.tick += 1;
        *age = self.tick;
        self.by_age.insert(self.tick, key);
        Some(value.clone())
    }

    pub fn insert(&mut self, key: u128, value: Evaluation) {
        if self.capacity == 0 {
            return;
        }
        if let Some((_, age)) = self.entries.remove(&key) {
            self.by_age.remove(&age);
        }
        while self.entries.len() >= self.capacity {
            let (_, oldest) = self.by_age.pop_first().expect("a full cache has entries");
            self.entries.remove(&oldest);
        }
        self.tick += 1;
        self.entries.insert(key, (value, self.tick));
        self.by_age.insert(self.tick, key);
    }

    /// Entries oldest first, keys in hex: what a checkpoint stores.
    pub fn export(&self) -> Vec<(String, Evaluation)> {
        self.by_age.values().map(|k| (format!("{k:032x}"), self.entries[k].0.clone())).collect()
    }

    /// Rebuilds a cache from [`Cache::export`]: the same recency order, hence the same future evictions.
    pub(crate) fn import(capacity: usize, entries: Vec<(String, Evaluation)>) -> Result<Cache, String> {
        let mut cache = Cache::new(capacity);
        for (key, value) in entries {
            let k = u128::from_str_radix(&key, 16).map_err(|_| format!("cache key {key:?} is not hexadecimal"))?;
            cache.insert(k, value);
        }
        Ok(cache)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(v: f64) -> Evaluation {
        Evaluation { fitness: Some(v), objectives: None, descriptors: None, error: None }
    }

    #[test]
    fn fnv_matches_the_published_empty_string_value() {
        // The 128-bit FNV-1a offset basis is the hash of the empty input.
        assert_eq!(fnv128(b""), 0x6c62272e07bb014262b821756295c58d);
        assert_ne!(fnv128(b"a"), fnv128(b"b"));
    }

    #[test]
    fn least_recently_used_goes_first_and_export_round_trips() {
        let mut c = Cache::new(2);
        c.insert(1, ok(1.0));
        c.insert(2, ok(2.0));
        assert!(c.get(1).is_some()); // 2 is now the oldest
        c.insert(3, ok(3.0));
        assert!(c.get(2).is_none() && c.get(1).is_some() && c.get(3).is_some());
        let mut d = Cache::import(2, c.export()).unwrap();
        assert_eq!(d.export(), c.export());
        d.insert(4, ok(4.0)); // evicts 1, the oldest after the lookups above
        assert!(d.get(1).is_none());
        assert_eq!(Cache::new(0).export().len(), 0);
    }
}
