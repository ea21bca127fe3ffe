//! Picks the sweeps out of the cantilever data: the sizes present, the f_s sweep with all groups and
//! the scaffolding sweep of each size, and the order of runs in tables.

use super::data::{CantileverData, DynamicRun, StaticRun};
use vsr2d::model::voxel::scaffolding::Scaffolding;

/// Equality of swept frequencies, which come from the same literal list but may pass through text.
pub fn same_fs(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Beam sizes present in the data, in (w, h) order (5×2, 10×2, 10×4).
pub fn sizes(data: &CantileverData) -> Vec<(u32, u32)> {
    let mut s: Vec<(u32, u32)> =
        data.static_runs.iter().map(|r| (r.w, r.h)).chain(data.dynamic_runs.iter().map(|r| (r.w, r.h))).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// The f_s of the scaffolding sweep: the frequency with the most runs that do not use all groups
/// (ties: the lowest); `None` when every run uses all groups.
pub fn scaffolding_sweep_fs(fs_of_non_all: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for fs in fs_of_non_all {
        if !fs.is_finite() {
            continue;
        }
        match counts.iter_mut().find(|(f, _)| same_fs(*f, fs)) {
            Some(c) => c.1 += 1,
            None => counts.push((fs, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.total_cmp(&b.0)));
    counts.first().map(|c| c.0)
}

/// Static sweep over f_s with all groups for one size: (f_s, δ) sorted by f_s, first run per f_s.
pub fn static_fs_sweep(runs: &[StaticRun], size: (u32, u32)) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for r in runs.iter().filter(|r| (r.w, r.h) == size && r.scaffolding == Scaffolding::ALL) {
        if r.fs_hz.is_finite() && !pts.iter().any(|p| same_fs(p.0, r.fs_hz)) {
            pts.push((r.fs_hz, r.dy_final_m));
        }
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// Static δ of each paper scaffolding set at f_s for one size, in [`Scaffolding::PAPER_SETS`] order.
pub fn static_scaffolding_sweep(runs: &[StaticRun], size: (u32, u32), fs: f64) -> Vec<(Scaffolding, f64)> {
    Scaffolding::PAPER_SETS
        .iter()
        .filter_map(|s| {
            runs.iter()
                .find(|r| (r.w, r.h) == size && r.scaffolding == *s && same_fs(r.fs_hz, fs))
                .map(|r| (*s, r.dy_final_m))
        })
        .collect()
}

/// Dynamic runs with all groups for one size, sorted by f_s, first run per f_s.
pub fn dynamic_fs_sweep(runs: &[DynamicRun], size: (u32, u32)) -> Vec<&DynamicRun> {
    let mut out: Vec<&DynamicRun> = Vec::new();
    for r in runs.iter().filter(|r| (r.w, r.h) == size && r.scaffolding == Scaffolding::ALL) {
        if r.fs_hz.is_finite() && !out.iter().any(|o| same_fs(o.fs_hz, r.fs_hz)) {
            out.push(r);
        }
    }
    out.sort_by(|a, b| a.fs_hz.total_cmp(&b.fs_hz));
    out
}

/// Dynamic runs of each paper scaffolding set at f_s for one size, in [`Scaffolding::PAPER_SETS`] order.
pub fn dynamic_scaffolding_sweep(runs: &[DynamicRun], size: (u32, u32), fs: f64) -> Vec<&DynamicRun> {
    Scaffolding::PAPER_SETS
        .iter()
        .filter_map(|s| runs.iter().find(|r| (r.w, r.h) == size && r.scaffolding == *s && same_fs(r.fs_hz, fs)))
        .collect()
}

/// The sizes in an iterator, sorted, each once.
pub fn sizes_of(sizes: impl Iterator<Item = (u32, u32)>) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = sizes.collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The f_s of one size's scaffolding sweep, from its runs' (scaffolding, f_s).
pub fn size_sweep_fs(runs: impl Iterator<Item = (Scaffolding, f64)>) -> Option<f64> {
    scaffolding_sweep_fs(runs.filter(|(s, _)| *s != Scaffolding::ALL).map(|(_, f)| f))
}

/// Table order: size, then all groups by f_s, then the other paper sets softest first.
pub fn run_order(w: u32, h: u32, s: Scaffolding, fs: f64) -> (u32, u32, usize, u64) {
    let rank = if s == Scaffolding::ALL {
        0
    } else {
        Scaffolding::PAPER_SETS.iter().position(|p| *p == s).map_or(10 + s.springs_per_voxel(), |i| i + 1)
    };
    // Non-negative finite f64 order as integer bits; NaN last.
    let key = if fs.is_finite() && fs >= 0.0 { fs.to_bits() } else { u64::MAX };
    (w, h, rank, key)
}
