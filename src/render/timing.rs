//! Frame timing (spec §12): frame k at `fps` shows, in each cell, the first snapshot with
//! t ≥ k/fps − 1e−9; a finished run keeps its last snapshot; the video ends when no cell has a snapshot
//! at or after k/fps.

use std::borrow::Borrow;

use crate::snapshot::Snapshot;

/// Slack on frame times, so a snapshot at t = k·dt is not missed by rounding.
pub const FRAME_TIME_EPS: f64 = 1e-9;

/// The time of frame `k`.
pub fn frame_time(k: u64, fps: f64) -> f64 {
    k as f64 / fps
}

/// Whether a snapshot at time `t` may be shown at frame time `frame_t` or later (t ≥ frame_t − ε).
fn reaches(t: f64, frame_t: f64) -> bool {
    t >= frame_t - FRAME_TIME_EPS
}

/// The number of frames of a video whose cells' runs end at `end_times` (the time of each run's last
/// snapshot): frames 0..=K, where K is the last k with some run reaching k/fps. 0 for no runs or bad fps.
pub fn frame_count(end_times: impl IntoIterator<Item = f64>, fps: f64) -> u64 {
    if !(fps.is_finite() && fps > 0.0) {
        return 0;
    }
    let Some(end) = end_times.into_iter().filter(|t| !t.is_nan()).reduce(f64::max) else { return 0 };
    if end < 0.0 || !end.is_finite() {
        // A run that ends before 0 s shows nothing; an unbounded one has no frame count.
        return if end.is_infinite() && end > 0.0 { u64::MAX } else { 0 };
    }
    // Estimate, then correct by the exact predicate (floating-point rounding of the product).
    let mut k = ((end + FRAME_TIME_EPS) * fps).floor() as u64;
    while k > 0 && !reaches(end, frame_time(k, fps)) {
        k -= 1;
    }
    while k < u64::MAX - 1 && reaches(end, frame_time(k + 1, fps)) {
        k += 1;
    }
    k.saturating_add(1)
}

/// The number of frames for in-memory sequences (each time-ordered); empty sequences are ignored.
pub fn frame_count_of<S: Borrow<Snapshot>>(sequences: &[&[S]], fps: f64) -> u64 {
    frame_count(sequences.iter().filter_map(|s| s.last()).map(|s| s.borrow().t), fps)
}

/// Index of the snapshot that frame time `frame_t` shows in a time-ordered sequence: the first with
/// t ≥ frame_t − ε, else the last one. `None` for an empty sequence.
pub fn pick_index<S: Borrow<Snapshot>>(sequence: &[S], frame_t: f64) -> Option<usize> {
    if sequence.is_empty() {
        return None;
    }
    let i = sequence.partition_point(|s| !reaches(s.borrow().t, frame_t));
    Some(i.min(sequence.len() - 1))
}

/// Streaming version of [`pick_index`]: walks a time-ordered source once, holding only the snapshot it
/// shows, so a video can be rendered while the simulation runs (e.g. from a channel's `iter()`).
#[derive(Debug)]
pub struct FrameCursor<S> {
    current: Option<S>,
    exhausted: bool,
    live: bool,
}

impl<S> Default for FrameCursor<S> {
    fn default() -> Self {
        FrameCursor { current: None, exhausted: false, live: false }
    }
}

impl<S: Borrow<Snapshot>> FrameCursor<S> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves to the snapshot shown at `frame_t` (non-decreasing between calls), pulling from `source` as
    /// needed. Returns it, or the last snapshot if the source has ended, or `None` if it never yielded.
    pub fn advance<I: Iterator<Item = S>>(&mut self, frame_t: f64, source: &mut I) -> Option<&S> {
        loop {
            if let Some(c) = &self.current {
                if reaches(c.borrow().t, frame_t) {
                    self.live = true;
                    break;
                }
            }
            match if self.exhausted { None } else { source.next() } {
                Some(s) => self.current = Some(s),
                None => {
                    self.exhausted = true;
                    self.live = false;
                    break;
                }
            }
        }
        self.current.as_ref()
    }

    /// Whether the last [`FrameCursor::advance`] found a snapshot at or after its frame time. A video
    /// ends at the first frame where no cell's cursor is live.
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The snapshot currently shown.
    pub fn current(&self) -> Option<&S> {
        self.current.as_ref()
    }
}
