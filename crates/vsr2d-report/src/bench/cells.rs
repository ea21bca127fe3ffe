//! The soft cells' timing benchmark (spec `cells.md` §15 item 3 b, c; §16 rows "cost per cell",
//! "linear in cells", "real time", "membrane resolution"): milliseconds per step for a square grid of
//! separated `scs-paper` cells (N 100, dt 1/50 s, gravity 0), and for one cell at several resolutions N.
//!
//! Cells at rest would cost the solver less than cells at work, so every cell is given a random initial
//! velocity (uniform direction, speed uniform in [0, 0.5] m/s, SplitMix64 seed 1, ours): neighbours
//! (1 m apart) meet within seconds and press on each other, so the timed steps include cell–cell
//! contacts and deforming membranes. A single cell is given the same kind of velocity and, having no
//! neighbour, only drifts; its membrane still carries the pressure and joint work of every step.
//! Each point is the mean ± σ of `repeats` timed runs of `steps` steps, after `warmup` untimed steps.

use std::f64::consts::PI;
use std::time::Instant;

use serde::Serialize;

use vsr2d::geom::Vec2;
use vsr2d::model::cell::{CellParams, CellPreset};
use vsr2d::rng::SplitMix64;
use vsr2d::sim::{SimError, Stepping, World, WorldSettings};

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct CellBenchOptions {
    /// Cell counts of the grid series (N 100).
    pub counts: Vec<usize>,
    /// Bodies per cell of the single-cell series.
    pub resolutions: Vec<usize>,
    /// Untimed steps before the first timed run.
    pub warmup: u64,
    /// Timed runs per point.
    pub repeats: usize,
    /// Body-steps (cells × N × steps) each timed run aims at; the steps per run are this divided by the
    /// bodies, clamped to [`MIN_STEPS`, `MAX_STEPS`], so small worlds are timed over many steps.
    pub body_steps: u64,
    /// Engine steps per step and solver substeps; `None` (the default): what a scenario of that cell
    /// type gets, [`Stepping::for_cells`] (1 × 16 up to N 1000 at C 450).
    pub stepping: Option<Stepping>,
}

/// Fewest and most steps in one timed run.
pub const MIN_STEPS: u64 = 5;
pub const MAX_STEPS: u64 = 2000;

impl CellBenchOptions {
    /// 1 … 10 000 cells and N 10 … 1000, 5 repeats.
    pub fn full() -> CellBenchOptions {
        CellBenchOptions {
            counts: vec![1, 10, 100, 1000, 10_000],
            resolutions: vec![10, 30, 100, 300, 1000],
            warmup: 20,
            repeats: 5,
            body_steps: 2_000_000,
            stepping: None,
        }
    }

    /// Up to 1000 cells, 3 repeats, shorter runs.
    pub fn quick() -> CellBenchOptions {
        CellBenchOptions {
            counts: vec![1, 10, 100, 1000],
            repeats: 3,
            warmup: 10,
            body_steps: 500_000,
            ..CellBenchOptions::full()
        }
    }
}

/// Which series a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellSeries {
    /// A grid of `cells` cells of N 100.
    Cells,
    /// One cell of N bodies.
    Resolution,
}

/// One measured point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellBenchRow {
    pub series: CellSeries,
    pub cells: usize,
    pub bodies_per_cell: usize,
    pub force_substeps: usize,
    pub substeps: usize,
    pub steps_per_run: u64,
    pub repeats: usize,
    /// Wall time per step, ms: mean and standard deviation over the repeats.
    pub ms_per_step: f64,
    pub ms_per_step_sd: f64,
    /// The same per cell.
    pub ms_per_cell_step: f64,
    /// Time to build the world, s.
    pub build_s: f64,
    /// Resident memory of the process after the warm-up, MB (Linux; `None` elsewhere).
    pub rss_mb: Option<f64>,
    /// Largest perimeter error at the end of the timed runs.
    pub max_perimeter_error: f64,
}

/// A least-squares line ms_per_step = intercept + slope·cells.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LinearFit {
    pub slope_ms_per_cell: f64,
    pub intercept_ms: f64,
    pub r2: f64,
}

/// Everything the benchmark measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellBenchReport {
    pub rows: Vec<CellBenchRow>,
    /// The fit over the grid rows with at least 10 cells (cells.md §16, "linear in cells").
    pub fit: Option<LinearFit>,
    /// Peak resident memory of the process, MB.
    pub peak_rss_mb: Option<f64>,
    /// Points that could not be measured because the run became unstable (a finding, not an error).
    pub unstable: Vec<String>,
}

/// A benchmark that could not run.
#[derive(Debug, thiserror::Error)]
pub enum CellBenchError {
    #[error("invalid cell benchmark options: {0}")]
    Options(String),
    #[error("cell benchmark, {cells} cells of N {bodies}: {source}")]
    Sim { cells: usize, bodies: usize, source: SimError },
}

/// Builds `count` cells of `params` in a square grid, 1 m between membranes, with random velocities.
pub fn grid_world(params: &CellParams, count: usize, stepping: Stepping, seed: u64) -> World {
    let preset = CellPreset::ScsPaper;
    let mut world = World::new(WorldSettings {
        dt: preset.dt(),
        gravity: Vec2::ZERO,
        solver_iterations: stepping.solver_iterations.max(1),
        force_substeps: stepping.force_substeps.max(1),
        ..WorldSettings::default()
    });
    let side = (count as f64).sqrt().ceil().max(1.0) as usize;
    let pitch = 2.0 * (params.radius + params.body_radius()) + 1.0;
    let mut rng = SplitMix64::new(seed);
    for i in 0..count {
        let (col, row) = (i % side, i / side);
        let centre = Vec2::new(col as f64 * pitch, row as f64 * pitch);
        let id = world.add_cell(format!("c{i}"), "bench", *params, centre, 0.0);
        let angle = rng.range(0.0, 2.0 * PI);
        let speed = rng.range(0.0, 0.5);
        world.set_body_velocity(id, Vec2::new(angle.cos(), angle.sin()) * speed);
    }
    world
}

/// VmRSS or VmHWM of this process in MB (Linux).
fn proc_status_mb(key: &str) -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Mean and sample standard deviation (0 for one value).
pub(crate) fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

/// Wall time per step of `repeats` runs of `steps` steps, ms: mean and sample standard deviation.
pub(crate) fn time_steps(world: &mut World, steps: u64, repeats: usize) -> Result<(f64, f64), SimError> {
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t = Instant::now();
        world.run(steps, &mut [])?;
        times.push(t.elapsed().as_secs_f64() * 1e3 / steps as f64);
    }
    Ok(mean_sd(&times))
}

/// Times one point.
pub fn measure(
    series: CellSeries,
    params: &CellParams,
    count: usize,
    options: &CellBenchOptions,
) -> Result<CellBenchRow, CellBenchError> {
    let sim_err = |source| CellBenchError::Sim { cells: count, bodies: params.bodies, source };
    let start = Instant::now();
    let stepping = options.stepping.unwrap_or_else(|| Stepping::for_cells([params], CellPreset::ScsPaper.dt()));
    let mut world = grid_world(params, count, stepping, 1);
    let build_s = start.elapsed().as_secs_f64();
    world.run(options.warmup, &mut []).map_err(sim_err)?;
    let rss_mb = proc_status_mb("VmRSS:");
    let bodies = (count * params.bodies).max(1) as u64;
    let steps = (options.body_steps / bodies).clamp(MIN_STEPS, MAX_STEPS);
    let (mean, sd) = time_steps(&mut world, steps, options.repeats).map_err(sim_err)?;
    let max_perimeter_error = world.snapshot().cells().map(|c| c.perimeter_error).fold(0.0, f64::max);
    Ok(CellBenchRow {
        series,
        cells: count,
        bodies_per_cell: params.bodies,
        force_substeps: stepping.force_substeps,
        substeps: stepping.solver_iterations,
        steps_per_run: steps,
        repeats: options.repeats,
        ms_per_step: mean,
        ms_per_step_sd: sd,
        ms_per_cell_step: mean / count as f64,
        build_s,
        rss_mb,
        max_perimeter_error,
    })
}

/// Least squares of y on x; `None` with fewer than two distinct x.
pub fn linear_fit(points: &[(f64, f64)]) -> Option<LinearFit> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_res: f64 = points.iter().map(|p| (p.1 - intercept - slope * p.0).powi(2)).sum();
    let r2 = if syy > 0.0 { 1.0 - ss_res / syy } else { 1.0 };
    Some(LinearFit { slope_ms_per_cell: slope, intercept_ms: intercept, r2 })
}

/// Runs both series, calling `on_row` after each point.
pub fn run_cell_bench(
    options: &CellBenchOptions,
    mut on_row: impl FnMut(&CellBenchRow),
) -> Result<CellBenchReport, CellBenchError> {
    if options.repeats == 0 {
        return Err(CellBenchError::Options("repeats must be ≥ 1".into()));
    }
    if options.counts.iter().any(|&c| c == 0 || c > 100_000) {
        return Err(CellBenchError::Options("cell counts must be in 1 … 100000".into()));
    }
    if options.resolutions.iter().any(|&n| n < 8 || n % 2 == 1 || n > 10_000) {
        return Err(CellBenchError::Options("resolutions must be even, in 8 … 10000".into()));
    }
    let base = CellPreset::ScsPaper.params();
    let mut rows = Vec::new();
    for &count in &options.counts {
        let row = measure(CellSeries::Cells, &base, count, options)?;
        on_row(&row);
        rows.push(row);
    }
    let mut unstable = Vec::new();
    for &n in &options.resolutions {
        match measure(CellSeries::Resolution, &CellParams { bodies: n, ..base }, 1, options) {
            Ok(row) => {
                on_row(&row);
                rows.push(row);
            }
            Err(e @ CellBenchError::Sim { .. }) => unstable.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.series == CellSeries::Cells && r.cells >= 10)
        .map(|r| (r.cells as f64, r.ms_per_step))
        .collect();
    Ok(CellBenchReport { rows, fit: linear_fit(&points), peak_rss_mb: proc_status_mb("VmHWM:"), unstable })
}

/// The table's header.
pub fn cell_table_header() -> String {
    let head = format!(
        "{:>10} {:>6} {:>5} {:>7} {:>6} {:>22} {:>13} {:>8} {:>8} {:>10}",
        "series", "cells", "N", "k × n", "steps", "ms/step mean ± sd", "ms/cell/step", "build s", "RSS MB", "perim err"
    );
    format!("{head}\n{}", "-".repeat(head.chars().count()))
}

/// One table line.
pub fn cell_table_row(r: &CellBenchRow) -> String {
    let series = match r.series {
        CellSeries::Cells => "cells",
        CellSeries::Resolution => "resolution",
    };
    format!(
        "{:>10} {:>6} {:>5} {:>7} {:>6} {:>22} {:>13.4} {:>8.2} {:>8} {:>9.3}%",
        series,
        r.cells,
        r.bodies_per_cell,
        format!("{} × {}", r.force_substeps, r.substeps),
        r.steps_per_run,
        format!("{:.4} ± {:.4}", r.ms_per_step, r.ms_per_step_sd),
        r.ms_per_cell_step,
        r.build_s,
        r.rss_mb.map_or("n/a".into(), |m| format!("{m:.0}")),
        100.0 * r.max_perimeter_error
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_fit_recovers_a_line_and_its_r2() {
        let f = linear_fit(&[(10.0, 3.0), (100.0, 21.0), (1000.0, 201.0)]).unwrap();
        assert!((f.slope_ms_per_cell - 0.2).abs() < 1e-12 && (f.intercept_ms - 1.0).abs() < 1e-9);
        assert!((f.r2 - 1.0).abs() < 1e-12);
        assert!(linear_fit(&[(1.0, 1.0)]).is_none());
        assert!(linear_fit(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
    }

    #[test]
    fn the_grid_is_separated_and_moving() {
        let p = CellPreset::ScsPaper.params();
        let mut w = grid_world(&p, 5, Stepping { force_substeps: 1, solver_iterations: 4 }, 1);
        let s = w.snapshot();
        let cells: Vec<_> = s.cells().collect();
        assert_eq!(cells.len(), 5);
        for (i, a) in cells.iter().enumerate() {
            assert!(a.velocity.length() <= 0.5 + 1e-9);
            for b in &cells[..i] {
                assert!((a.center - b.center).length() >= 2.0 * (p.radius + p.body_radius()) + 1.0 - 1e-6);
            }
        }
    }

    #[test]
    fn bad_options_are_refused() {
        let o = CellBenchOptions { counts: vec![0], ..CellBenchOptions::quick() };
        assert!(matches!(run_cell_bench(&o, |_| {}), Err(CellBenchError::Options(_))));
        let o = CellBenchOptions { resolutions: vec![9], counts: vec![], ..CellBenchOptions::quick() };
        assert!(matches!(run_cell_bench(&o, |_| {}), Err(CellBenchError::Options(_))));
    }
}
