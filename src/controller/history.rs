//! Readings histories (spec §8): one ring buffer per (voxel, sensor) pair a controller reads.

/// The most readings one history may keep (about 55 min at 30 control calls per second); a larger
/// `n` is refused when the controller is built rather than allocated.
pub(crate) const MAX_HISTORY: usize = 100_000;

/// The last `capacity` readings of one sensor, taken at control steps.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct History {
    buf: Vec<f64>,
    /// Index of the newest reading.
    head: usize,
    filled: bool,
}

impl History {
    /// A history that can answer `mean(n)` and `diff(n)` for every n ≤ `capacity` (at least 1).
    pub fn new(capacity: usize) -> History {
        History { buf: vec![0.0; capacity.max(1)], head: 0, filled: false }
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Records a reading. The first push fills the whole history with it, so a controller sees a
    /// steady past at its first call instead of zeros.
    pub fn push(&mut self, value: f64) {
        if self.filled {
            self.head = (self.head + 1) % self.buf.len();
            self.buf[self.head] = value;
        } else {
            self.buf.fill(value);
            self.filled = true;
        }
    }

    /// The reading k control steps ago (k = 0 is the newest); k is clamped to the capacity.
    pub fn back(&self, k: usize) -> f64 {
        let len = self.buf.len();
        let k = k.min(len - 1);
        self.buf[(self.head + len - k) % len]
    }

    /// s(t).
    pub fn current(&self) -> f64 {
        self.buf[self.head]
    }

    /// The mean of the last n readings (n is clamped to [1, capacity]).
    pub fn mean(&self, n: usize) -> f64 {
        let n = n.clamp(1, self.buf.len());
        let sum: f64 = (0..n).map(|k| self.back(k)).sum();
        sum / n as f64
    }

    /// s(t) − s(t − (n − 1)·Δt_c), the paper's n-th difference; diff(1) = 0.
    pub fn diff(&self, n: usize) -> f64 {
        self.current() - self.back(n.max(1) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_push_fills_the_history() {
        let mut h = History::new(5);
        h.push(0.7);
        for k in 0..5 {
            assert_eq!(h.back(k), 0.7);
        }
        assert_eq!(h.mean(5), 0.7);
        assert_eq!(h.diff(5), 0.0);
    }

    #[test]
    fn mean_and_diff_over_a_sequence() {
        let mut h = History::new(4);
        // Pushes: 1 (fills), 2, 4, 8, 16, 32.
        h.push(1.0);
        h.push(2.0);
        // Window (newest first): 2, 1, 1, 1.
        assert_eq!(h.mean(4), 5.0 / 4.0);
        assert_eq!(h.mean(2), 1.5);
        assert_eq!(h.diff(2), 1.0);
        assert_eq!(h.diff(4), 1.0);
        h.push(4.0);
        h.push(8.0);
        // 8, 4, 2, 1.
        assert_eq!(h.mean(4), 15.0 / 4.0);
        assert_eq!(h.mean(3), 14.0 / 3.0);
        assert_eq!(h.diff(3), 8.0 - 2.0);
        assert_eq!(h.diff(4), 8.0 - 1.0);
        h.push(16.0);
        h.push(32.0);
        // 32, 16, 8, 4: the oldest readings have left the ring.
        assert_eq!(h.current(), 32.0);
        assert_eq!(h.mean(4), 60.0 / 4.0);
        assert_eq!(h.mean(1), 32.0);
        assert_eq!(h.diff(4), 28.0);
        assert_eq!(h.diff(2), 16.0);
        assert_eq!(h.diff(1), 0.0);
    }

    #[test]
    fn out_of_range_windows_are_clamped_not_panics() {
        let mut h = History::new(0);
        assert_eq!(h.capacity(), 1);
        h.push(3.0);
        h.push(5.0);
        assert_eq!(h.mean(0), 5.0);
        assert_eq!(h.mean(10), 5.0);
        assert_eq!(h.diff(0), 0.0);
        assert_eq!(h.diff(10), 0.0);
    }
}
