//! The paper's speed benchmark (spec §14): simulated voxel steps per second (SVSPS) of a w × 3 worm
//! walking on uneven terrain, timed over the step loop only, one simulation at a time on one thread.

pub mod cell_increments;
pub mod cells;
pub mod render;
pub mod throughput;

use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::time::Instant;

use serde::Serialize;

use vsr2d::controller::{
    distributed_layer_sizes, mlp_layer_sizes, weight_count, CellFunction, ControllerSpec, DistributedSpec, MlpSpec,
    SensorLayout, TimeFunction, TimeFunctionsSpec,
};
use vsr2d::evolve::represent::paper6_features;
use vsr2d::model::terrain::TerrainSpec;
use vsr2d::model::voxel::material::MaterialSpec;
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::scenario::{RobotSpec, Scenario, ScenarioError, TaskSpec, WorldSpec};
use vsr2d::sim::world::SimError;

/// What to measure. Rows are (w, scaffolding, dt) cases; see [`BenchOptions::cases`].
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// Worm widths w (the worm is w × 3 voxels).
    pub widths: Vec<u32>,
    /// Scaffolding sets; the first is the baseline measured at every width.
    pub scaffoldings: Vec<Scaffolding>,
    /// Time steps in s; the first is the baseline measured at every width.
    pub dts: Vec<f64>,
    /// Timed runs per case (the reported SVSPS is their median).
    pub repeats: usize,
    /// Simulated time per run, s.
    pub duration_s: f64,
    /// `Some(w)`: the other scaffoldings and dts are measured at this width only (keeps the full run
    /// short); `None`: every combination at every width.
    pub sweep_width: Option<u32>,
    /// Attach the locomotion-metrics listener, i.e. time what [`vsr2d::batch::evaluate`] pays. Off for
    /// SVSPS proper, which is defined with no listener.
    pub with_metrics: bool,
    /// Controllers; the first (the paper's wave) is the baseline, the others are measured at the sweep
    /// width with the baseline scaffolding and dt.
    pub controllers: Vec<BenchController>,
}

/// What drives the benchmark worm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchController {
    /// The paper's travelling wave sin(−2πt + πx/w) (no sensors).
    Wave,
    /// A central MLP as in the sensing study: paper6 features of every voxel and a 1 Hz driver, no
    /// hidden layer, fixed pseudo-random weights in [−1, 1].
    Mlp,
    /// A homogeneous distributed controller: paper6 features, 1 signal per direction, one hidden
    /// layer of 5, fixed pseudo-random weights in [−1, 1].
    Distributed,
}

impl BenchController {
    pub fn name(self) -> &'static str {
        match self {
            BenchController::Wave => "wave",
            BenchController::Mlp => "mlp",
            BenchController::Distributed => "distributed",
        }
    }

    /// This controller on a body of `voxels` voxels (for [`BenchController::Wave`], `wave`).
    fn spec(self, voxels: usize, wave: ControllerSpec) -> ControllerSpec {
        let weights = |n: usize| {
            let mut rng = vsr2d::rng::SplitMix64::new(1);
            (0..n).map(|_| rng.range(-1.0, 1.0)).collect::<Vec<f64>>()
        };
        let sensors = SensorLayout { default: paper6_features(), cells: Vec::new() };
        match self {
            BenchController::Wave => wave,
            BenchController::Mlp => {
                let driver = Some(TimeFunction::Sin { amplitude: 1.0, frequency: 1.0, phase: 0.0, offset: 0.0 });
                let n = weight_count(&mlp_layer_sizes(6 * voxels, true, &[], voxels));
                ControllerSpec::Mlp(MlpSpec { sensors, driver, hidden: Vec::new(), weights: weights(n) })
            }
            BenchController::Distributed => {
                let hidden = vec![5];
                let n = weight_count(&distributed_layer_sizes(6, 1, true, &hidden));
                ControllerSpec::Distributed(DistributedSpec {
                    sensors,
                    signals: 1,
                    directional: true,
                    hidden,
                    weights: Some(weights(n)),
                    cells: Vec::new(),
                })
            }
        }
    }
}

impl BenchOptions {
    /// The paper's benchmark: w ∈ {3, 6, 12, 24, 45}, 60 s at dt = 1/60, 5 repeats, plus the three
    /// softer scaffolding sets and dt = 1/120 at w = 12 only. About a minute and a half on a 2-core
    /// EPYC VM in release.
    pub fn full() -> BenchOptions {
        BenchOptions {
            widths: vec![3, 6, 12, 24, 45],
            scaffoldings: vec![Scaffolding::ALL, Scaffolding::EC, Scaffolding::EIC, Scaffolding::EIX],
            dts: vec![1.0 / 60.0, 1.0 / 120.0],
            repeats: 5,
            duration_s: 60.0,
            sweep_width: Some(12),
            with_metrics: false,
            controllers: vec![BenchController::Wave, BenchController::Mlp, BenchController::Distributed],
        }
    }

    /// The same rows with 5 s runs and 3 repeats: a few seconds, for a fast look (noisier, and
    /// dominated by the initial fall more than the full run is).
    pub fn quick() -> BenchOptions {
        BenchOptions { repeats: 3, duration_s: 5.0, ..BenchOptions::full() }
    }

    /// The cases in measurement order: the baseline (first scaffolding, first dt, first controller) at
    /// every width, then the other scaffoldings, dts and controllers at the sweep width (or at every
    /// width without one).
    pub fn cases(&self) -> Vec<BenchCase> {
        let (Some(&base_s), Some(&base_dt)) = (self.scaffoldings.first(), self.dts.first()) else {
            return Vec::new();
        };
        let base_c = self.controllers.first().copied().unwrap_or(BenchController::Wave);
        let mut cases = Vec::new();
        let mut push = |c: BenchCase| {
            if !cases.contains(&c) {
                cases.push(c);
            }
        };
        for &w in &self.widths {
            push(BenchCase { w, scaffolding: base_s, dt: base_dt, controller: base_c });
        }
        let sweep: Vec<u32> = match self.sweep_width {
            Some(w) => vec![w],
            None => self.widths.clone(),
        };
        for &w in &sweep {
            for &scaffolding in &self.scaffoldings {
                push(BenchCase { w, scaffolding, dt: base_dt, controller: base_c });
            }
            for &dt in &self.dts {
                push(BenchCase { w, scaffolding: base_s, dt, controller: base_c });
            }
            for &controller in &self.controllers {
                push(BenchCase { w, scaffolding: base_s, dt: base_dt, controller });
            }
        }
        if self.sweep_width.is_none() {
            for &w in &self.widths {
                for &scaffolding in &self.scaffoldings {
                    for &dt in &self.dts {
                        push(BenchCase { w, scaffolding, dt, controller: base_c });
                    }
                }
            }
        }
        cases
    }
}

/// One measured configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchCase {
    pub w: u32,
    pub scaffolding: Scaffolding,
    pub dt: f64,
    pub controller: BenchController,
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    pub w: u32,
    pub voxels: usize,
    /// `all`, `E+C`, `E+I+C` or `E+I+X`.
    pub scaffolding: String,
    pub springs_per_voxel: usize,
    pub dt: f64,
    /// `wave` (the paper's), `mlp` or `distributed` (see [`BenchController`]).
    pub controller: &'static str,
    pub steps: u64,
    pub repeats: usize,
    /// Median SVSPS over the repeats.
    pub svsps: f64,
    pub svsps_mean: f64,
    /// Sample standard deviation (0 with one repeat).
    pub svsps_stddev: f64,
    pub svsps_min: f64,
    pub svsps_max: f64,
    /// Median wall time of the step loop, s.
    pub loop_seconds: f64,
    /// `none` (SVSPS proper) or `metrics` (the locomotion-metrics listener attached).
    pub listener: &'static str,
}

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("benchmark worm w = {w}: {source}")]
    Scenario { w: u32, source: ScenarioError },
    #[error("benchmark worm w = {w}, scaffolding {scaffolding}, dt = {dt}: {source}")]
    Sim { w: u32, scaffolding: Scaffolding, dt: f64, source: SimError },
    #[error("invalid benchmark options: {0}")]
    Options(String),
    /// The throughput benchmark's batch or its temporary files failed.
    #[error("throughput benchmark: {0}")]
    Throughput(String),
}

impl BenchError {
    /// Bad options or a benchmark scenario that does not build are input; an unstable run is not.
    pub fn is_input(&self) -> bool {
        matches!(self, BenchError::Options(_) | BenchError::Scenario { .. })
    }
}

/// The paper's worm: w × 3 voxels of the default material with the given scaffolding, controlled by
/// f(t) = sin(−2πt + πx/w) on every cell, on uneven terrain (h = 5 m, spacing 40 m, seed 1).
pub fn worm_scenario(w: u32, scaffolding: Scaffolding, dt: f64, duration: f64) -> Scenario {
    let material = MaterialSpec { scaffolding: Some(scaffolding), ..Default::default() };
    let cells = (0..3)
        .flat_map(|y| (0..w).map(move |x| [x, y]))
        .map(|cell| CellFunction {
            cell,
            function: TimeFunction::Sin {
                amplitude: 1.0,
                frequency: -1.0,
                phase: PI * cell[0] as f64 / w as f64,
                offset: 0.0,
            },
        })
        .collect();
    Scenario {
        world: WorldSpec {
            terrain: TerrainSpec::Uneven { height: 5.0, spacing: 40.0, seed: 1, ceiling: None },
            dt,
            duration,
            ..WorldSpec::default()
        },
        robots: vec![RobotSpec {
            label: Some(format!("worm {w}x3")),
            materials: Some(BTreeMap::from([("#".to_string(), material)])),
            body: vec!["#".repeat(w as usize); 3],
            controller: Some(ControllerSpec::TimeFunctions(TimeFunctionsSpec { default: None, cells })),
            self_collisions: true,
            position: None,
        }],
        cell_types: Default::default(),
        cells: Vec::new(),
        connector_types: Default::default(),
        interactions: Vec::new(),
        links: Vec::new(),
        chains: Vec::new(),
        schedule: Vec::new(),
        objects: Vec::new(),
        task: TaskSpec::default(),
    }
}

/// Builds and runs one simulation; returns (voxels, steps, seconds spent in the step loop).
fn time_once(case: BenchCase, duration: f64, with_metrics: bool) -> Result<(usize, u64, f64), BenchError> {
    let BenchCase { w, scaffolding, dt, controller } = case;
    let mut scenario = worm_scenario(w, scaffolding, dt, duration);
    let robot = &mut scenario.robots[0];
    let wave = robot.controller.take().expect("the worm has a controller");
    robot.controller = Some(controller.spec(3 * w as usize, wave));
    let sim = scenario.build().map_err(|source| BenchError::Scenario { w, source })?;
    let (voxels, steps) = (sim.world().voxel_count(), sim.steps());
    let start = Instant::now();
    // With metrics: the path `eval::evaluate` takes (no snapshots, metrics read the world).
    let result = if with_metrics {
        sim.evaluate().map(|_| ()).map_err(|e| match e {
            vsr2d::task::RunError::Sim(e) => e,
            other => unreachable!("a locomotion run fails only in the engine: {other}"),
        })
    } else {
        sim.into_world().run(steps, &mut []).map(|_| ())
    };
    let seconds = start.elapsed().as_secs_f64();
    result.map_err(|source| BenchError::Sim { w, scaffolding, dt, source })?;
    Ok((voxels, steps, seconds))
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    }
}

/// Measures one case.
pub fn measure(case: BenchCase, options: &BenchOptions) -> Result<BenchRow, BenchError> {
    let mut svsps = Vec::with_capacity(options.repeats);
    let mut seconds = Vec::with_capacity(options.repeats);
    let (mut voxels, mut steps) = (0, 0);
    for _ in 0..options.repeats {
        let (v, n, s) = time_once(case, options.duration_s, options.with_metrics)?;
        (voxels, steps) = (v, n);
        // A zero-length loop (duration 0) has no meaningful rate.
        svsps.push(if s > 0.0 { (v as f64 * n as f64) / s } else { 0.0 });
        seconds.push(s);
    }
    svsps.sort_by(f64::total_cmp);
    seconds.sort_by(f64::total_cmp);
    let n = svsps.len() as f64;
    let mean = svsps.iter().sum::<f64>() / n;
    let var = if svsps.len() > 1 { svsps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    Ok(BenchRow {
        w: case.w,
        voxels,
        scaffolding: case.scaffolding.to_string(),
        springs_per_voxel: case.scaffolding.springs_per_voxel(),
        dt: case.dt,
        controller: case.controller.name(),
        steps,
        repeats: options.repeats,
        svsps: median(&svsps),
        svsps_mean: mean,
        svsps_stddev: var.sqrt(),
        svsps_min: svsps[0],
        svsps_max: svsps[svsps.len() - 1],
        loop_seconds: median(&seconds),
        listener: if options.with_metrics { "metrics" } else { "none" },
    })
}

/// Runs every case in order, calling `on_row` as each finishes (for incremental printing).
pub fn run_bench(options: &BenchOptions, mut on_row: impl FnMut(&BenchRow)) -> Result<Vec<BenchRow>, BenchError> {
    if options.repeats == 0 {
        return Err(BenchError::Options("repeats must be at least 1".into()));
    }
    if !(options.duration_s.is_finite() && options.duration_s > 0.0) {
        return Err(BenchError::Options(format!("duration {} s must be a positive number", options.duration_s)));
    }
    if let Some(&w) = options.widths.iter().find(|&&w| w == 0) {
        return Err(BenchError::Options(format!("width {w} must be at least 1")));
    }
    let mut rows = Vec::new();
    for case in options.cases() {
        let row = measure(case, options)?;
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The machine and build a measurement was made on (spec §14 asks reports to state them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineInfo {
    pub cpu_model: String,
    pub logical_cpus: usize,
    /// `release` or `debug` (debug assertions on: numbers are not representative).
    pub build_profile: &'static str,
    /// 1-minute load average when the benchmark started: above ~0.5 per CPU, other processes compete
    /// with the measurement.
    pub load_average: Option<f64>,
}

impl MachineInfo {
    pub fn detect() -> MachineInfo {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        MachineInfo {
            cpu_model,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            build_profile: if cfg!(debug_assertions) { "debug" } else { "release" },
            load_average: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|t| t.split_whitespace().next().and_then(|v| v.parse().ok())),
        }
    }
}

impl std::fmt::Display for MachineInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "machine: {}, {} logical CPUs; build: {}", self.cpu_model, self.logical_cpus, self.build_profile)?;
        if self.build_profile == "debug" {
            f.write_str(" (debug assertions on: build with --release for representative numbers)")?;
        }
        if let Some(load) = self.load_average {
            write!(f, "; load average {load:.2}")?;
            if load > 0.5 * self.logical_cpus as f64 {
                f.write_str(" (other processes compete for the CPUs: expect low, noisy numbers)")?;
            }
        }
        Ok(())
    }
}

/// The table's header lines.
pub fn table_header() -> String {
    let head = format!(
        "{:>4} {:>6} {:>11} {:>7} {:>9} {:>11} {:>6} {:>4} {:>12} {:>21} {:>9}",
        "w",
        "voxels",
        "scaffolding",
        "springs",
        "dt",
        "controller",
        "steps",
        "reps",
        "SVSPS median",
        "SVSPS mean ± sd",
        "loop s"
    );
    let rule = "-".repeat(head.chars().count());
    format!("{head}\n{rule}")
}

/// One table line.
pub fn table_row(r: &BenchRow) -> String {
    let dt = if (1.0 / r.dt - (1.0 / r.dt).round()).abs() < 1e-9 {
        format!("1/{}", (1.0 / r.dt).round())
    } else {
        format!("{:.5}", r.dt)
    };
    format!(
        "{:>4} {:>6} {:>11} {:>7} {:>9} {:>11} {:>6} {:>4} {:>12.0} {:>21} {:>9.3}",
        r.w,
        r.voxels,
        r.scaffolding,
        r.springs_per_voxel,
        dt,
        r.controller,
        r.steps,
        r.repeats,
        r.svsps,
        format!("{:.0} ± {:.0}", r.svsps_mean, r.svsps_stddev),
        r.loop_seconds
    )
}

/// The whole table.
pub fn format_table(rows: &[BenchRow]) -> String {
    let mut out = table_header();
    for r in rows {
        out.push('\n');
        out.push_str(&table_row(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_sweeps_scaffolding_and_dt_at_one_width_only() {
        let cases = BenchOptions::full().cases();
        // 5 widths at the baseline, 3 more scaffoldings, 1 more dt and 2 more controllers at w = 12.
        assert_eq!(cases.len(), 5 + 3 + 1 + 2);
        assert!(cases
            .iter()
            .filter(|c| c.w != 12)
            .all(|c| c.scaffolding == Scaffolding::ALL && c.dt == 1.0 / 60.0 && c.controller == BenchController::Wave));
        let controllers: Vec<_> = cases.iter().map(|c| c.controller).filter(|c| *c != BenchController::Wave).collect();
        assert_eq!(controllers, [BenchController::Mlp, BenchController::Distributed]);
    }

    #[test]
    fn without_a_sweep_width_every_combination_is_measured_once() {
        let o = BenchOptions { widths: vec![3, 6], sweep_width: None, ..BenchOptions::full() };
        // Every width × scaffolding × dt with the wave, and the two other controllers at every width.
        assert_eq!(o.cases().len(), 2 * 4 * 2 + 2 * 2);
    }

    #[test]
    fn the_worm_is_valid_and_fully_filled() {
        let s = worm_scenario(6, Scaffolding::EC, 1.0 / 60.0, 1.0);
        let text = serde_json::to_string(&s).unwrap();
        let parsed = Scenario::from_json(&text).unwrap();
        assert_eq!(parsed.body(0).unwrap().voxels().count(), 18);
        assert_eq!(parsed.steps(), 60);
    }

    /// The controller rows' worms build: their weight counts match the 12×3 body.
    #[test]
    fn the_controller_rows_build_on_the_worm() {
        for c in [BenchController::Mlp, BenchController::Distributed] {
            let case = BenchCase { w: 12, scaffolding: Scaffolding::ALL, dt: 1.0 / 60.0, controller: c };
            let (voxels, steps, _) = time_once(case, 0.1, true).unwrap();
            assert_eq!((voxels, steps), (36, 6));
        }
    }

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }
}
