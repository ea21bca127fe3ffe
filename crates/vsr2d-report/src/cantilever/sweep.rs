//! The paper's cantilever sweeps (spec §13): every size × (f_s with all groups, and scaffolding at
//! 8 Hz), static and dynamic, run in parallel, plus the solver convergence measurement and the
//! picture of the loaded beam.
//!
//! Alongside the main sweep, the runs that the original 2D-VSR-Sim 1.0.0 was measured on (see
//! [`super::reference`]) are repeated with the `legacy-1.0` preset under the original's conditions, in
//! the same parallel batch and through the same `SweepOptions::run_job` path.

use indicatif::{ParallelProgressIterator, ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::data::{CantileverData, DynamicRun, ReferenceRuns, ReportSettings, Setting, StaticRun};
use super::reference::{self, Reference, ReferenceError};
use vsr2d::geom::{Aabb, Vec2};
use vsr2d::model::voxel::material::{Material, Preset};
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::render::{pixmap_to_rgba_image, Camera, CellFrame, GridRenderer, RenderOptions};
use vsr2d::sim::world::{SimError, DEFAULT_SOLVER_ITERATIONS};
use vsr2d::snapshot::SnapshotDetail;
use vsr2d::task::cantilever::{
    impulse_steps, run, solver_iterations_for, Beam, BeamSetup, PAPER, PAPER_FS_HZ, PAPER_SCAFFOLD_FS_HZ, PAPER_SIZES,
};

/// Which cases to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cases {
    Both,
    Static,
    Dynamic,
}

/// Everything a sweep depends on; `Default` is the paper's full sweep ([`PAPER`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepOptions {
    pub sizes: Vec<(u32, u32)>,
    /// Spring frequencies swept with all groups.
    pub fs_hz: Vec<f64>,
    /// Scaffolding sets swept at `scaffold_fs_hz`.
    pub scaffolds: Vec<Scaffolding>,
    pub scaffold_fs_hz: f64,
    pub cases: Cases,
    pub static_force_n: f64,
    pub static_duration_s: f64,
    pub dynamic_force_n: f64,
    pub dynamic_duration_s: f64,
    pub dt: f64,
    pub preset: Preset,
    /// The beams' material (`vsr2d cantilever --material`), its f_s and scaffolding replaced by each
    /// run's; `None`: the preset's defaults.
    pub material: Option<Material>,
    pub solver_iterations: usize,
    /// Re-run the stiffest and softest static cases with twice the solver iterations.
    pub measure_convergence: bool,
    /// Also run, with the `legacy-1.0` preset, the selected runs that the original 2D-VSR-Sim 1.0.0
    /// was measured on, for the report's comparison.
    pub compare_with_original: bool,
    pub progress: bool,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            sizes: PAPER_SIZES.to_vec(),
            fs_hz: PAPER_FS_HZ.to_vec(),
            scaffolds: Scaffolding::PAPER_SETS.to_vec(),
            scaffold_fs_hz: PAPER_SCAFFOLD_FS_HZ,
            cases: Cases::Both,
            static_force_n: PAPER.static_force_n,
            static_duration_s: PAPER.static_duration_s,
            dynamic_force_n: PAPER.dynamic_force_n,
            dynamic_duration_s: PAPER.dynamic_duration_s,
            dt: PAPER.dt,
            preset: Preset::Default,
            material: None,
            solver_iterations: DEFAULT_SOLVER_ITERATIONS,
            measure_convergence: true,
            compare_with_original: true,
            progress: false,
        }
    }
}

/// Duration of each gait of the locomotion comparison (the original's runs: 60 s).
pub const GAIT_DURATION_S: f64 = 60.0;

/// One run of the sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Job {
    w: u32,
    h: u32,
    fs_hz: f64,
    scaffolding: Scaffolding,
    dynamic: bool,
}

enum Outcome {
    Static(StaticRun),
    Dynamic(DynamicRun),
}

/// A sweep that could not be run.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("the embedded reference data of the original 2D-VSR-Sim 1.0.0 is unreadable: {0}")]
    Reference(#[from] ReferenceError),
    #[error("the embedded gait set of the original 2D-VSR-Sim 1.0.0 is unreadable: {0}")]
    Gaits(#[from] super::locomotion::GaitsError),
    #[error("locomotion comparison: {0}")]
    Gait(#[from] super::locomotion::GaitRunError),
}

fn covered(reference: &Reference, job: &Job) -> bool {
    if job.dynamic {
        reference.dynamic_run(job.w, job.h, job.fs_hz, job.scaffolding).is_some()
    } else {
        reference.static_run(job.w, job.h, job.fs_hz, job.scaffolding).is_some()
    }
}

impl SweepOptions {
    /// The (f_s, scaffolding) pairs of one size: the f_s sweep with all groups, then the scaffolding
    /// sweep at `scaffold_fs_hz`, without repeating a pair.
    fn variants(&self) -> Vec<(f64, Scaffolding)> {
        let mut v: Vec<(f64, Scaffolding)> = self.fs_hz.iter().map(|&f| (f, Scaffolding::ALL)).collect();
        for &s in &self.scaffolds {
            let pair = (self.scaffold_fs_hz, s);
            if !v.contains(&pair) {
                v.push(pair);
            }
        }
        v
    }

    fn jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::new();
        for dynamic in [false, true] {
            let wanted = match self.cases {
                Cases::Both => true,
                Cases::Static => !dynamic,
                Cases::Dynamic => dynamic,
            };
            if !wanted {
                continue;
            }
            for &(w, h) in &self.sizes {
                for (fs_hz, scaffolding) in self.variants() {
                    jobs.push(Job { w, h, fs_hz, scaffolding, dynamic });
                }
            }
        }
        jobs
    }

    /// The material of a run at `fs_hz` with `scaffolding`: the sweep's material with those two replaced.
    pub fn material_for(&self, fs_hz: f64, scaffolding: Scaffolding) -> Material {
        match self.material {
            Some(m) => Material { spring_hz: fs_hz, scaffolding, ..m },
            None => BeamSetup::material(self.preset, fs_hz, scaffolding),
        }
    }

    fn setup(&self, job: &Job, iterations: usize) -> BeamSetup {
        let material = self.material_for(job.fs_hz, job.scaffolding);
        let mut setup = if job.dynamic {
            BeamSetup::dynamic_case(job.w, job.h, material, self.dynamic_force_n, self.dynamic_duration_s, self.dt)
        } else {
            BeamSetup::static_case(job.w, job.h, material, self.static_force_n, self.static_duration_s, self.dt)
        };
        setup.solver_iterations = iterations;
        setup
    }

    fn run_job(&self, job: &Job) -> Result<Outcome, SimError> {
        let setup = self.setup(job, self.solver_iterations);
        let series = run(&setup)?;
        Ok(if job.dynamic {
            Outcome::Dynamic(DynamicRun {
                w: job.w,
                h: job.h,
                fs_hz: job.fs_hz,
                scaffolding: job.scaffolding,
                force_n: self.dynamic_force_n,
                impulse_steps: setup.load_steps as u32,
                dt: self.dt,
                dy_m: series,
            })
        } else {
            Outcome::Static(StaticRun {
                w: job.w,
                h: job.h,
                fs_hz: job.fs_hz,
                scaffolding: job.scaffolding,
                force_n: self.static_force_n,
                dy_final_m: *series.last().unwrap_or(&0.0),
            })
        })
    }

    fn progress_bar(&self, len: usize) -> ProgressBar {
        if !self.progress {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len as u64);
        if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} runs ({elapsed}, eta {eta})") {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix("cantilever");
        bar
    }

    /// The same selection of runs under the conditions the original 2D-VSR-Sim 1.0.0 was measured in,
    /// with the `legacy-1.0` preset and its solver stepping (one pass per step, as dyn4j's).
    pub fn reference_options(&self) -> SweepOptions {
        SweepOptions {
            preset: Preset::Legacy10,
            // The original was measured with its own default material.
            material: None,
            solver_iterations: solver_iterations_for(Preset::Legacy10),
            static_force_n: reference::CONDITIONS.static_force_n,
            static_duration_s: reference::CONDITIONS.static_duration_s,
            dynamic_force_n: reference::CONDITIONS.dynamic_force_n,
            dynamic_duration_s: reference::CONDITIONS.dynamic_duration_s,
            dt: reference::CONDITIONS.dt,
            measure_convergence: false,
            compare_with_original: false,
            progress: false,
            ..self.clone()
        }
    }

    /// Whether this sweep's own runs are the comparison's runs (preset `legacy-1.0` under the original's
    /// conditions), so they need not run twice.
    pub fn reuses_main_runs_for_reference(&self) -> bool {
        let r = self.reference_options();
        self.preset == r.preset
            && self.material.is_none()
            && self.static_force_n == r.static_force_n
            && self.static_duration_s == r.static_duration_s
            && self.dynamic_force_n == r.dynamic_force_n
            && self.dynamic_duration_s == r.dynamic_duration_s
            && self.dt == r.dt
            && self.solver_iterations == r.solver_iterations
    }

    /// Runs every case in parallel (rayon, one simulation per core) and collects the report data. With
    /// `compare_with_original`, the `legacy-1.0` runs of the comparison join the same batch (and the
    /// progress bar), unless the main runs already are those runs.
    pub fn run(&self) -> Result<CantileverData, SweepError> {
        let jobs = self.jobs();
        let reference = if self.compare_with_original { Some(Reference::embedded()?) } else { None };
        let reuse = self.reuses_main_runs_for_reference();
        let reference_options = self.reference_options();
        let reference_jobs: Vec<Job> = match &reference {
            Some(r) if !reuse => reference_options.jobs().into_iter().filter(|j| covered(r, j)).collect(),
            _ => Vec::new(),
        };
        let tasks: Vec<(&SweepOptions, Job)> =
            jobs.iter().map(|j| (self, *j)).chain(reference_jobs.iter().map(|j| (&reference_options, *j))).collect();
        let bar = self.progress_bar(tasks.len());
        let outcomes: Vec<Result<Outcome, SimError>> =
            tasks.par_iter().progress_with(bar.clone()).map(|(options, job)| options.run_job(job)).collect();
        bar.finish_and_clear();
        let mut data = CantileverData {
            settings: self.settings(),
            static_runs: Vec::new(),
            dynamic_runs: Vec::new(),
            reference_runs: None,
            locomotion: None,
        };
        let mut legacy = ReferenceRuns {
            preset: reference_options.preset.name().to_string(),
            reused_main_runs: reuse,
            dt: reference_options.dt,
            static_duration_s: reference_options.static_duration_s,
            dynamic_duration_s: reference_options.dynamic_duration_s,
            solver_iterations: reference_options.solver_iterations,
            static_runs: Vec::new(),
            dynamic_runs: Vec::new(),
        };
        for (i, outcome) in outcomes.into_iter().enumerate() {
            let (static_runs, dynamic_runs) = if i < jobs.len() {
                (&mut data.static_runs, &mut data.dynamic_runs)
            } else {
                (&mut legacy.static_runs, &mut legacy.dynamic_runs)
            };
            match outcome? {
                Outcome::Static(s) => static_runs.push(s),
                Outcome::Dynamic(d) => dynamic_runs.push(d),
            }
        }
        if let Some(r) = &reference {
            if reuse {
                legacy.static_runs = data
                    .static_runs
                    .iter()
                    .filter(|s| r.static_run(s.w, s.h, s.fs_hz, s.scaffolding).is_some())
                    .cloned()
                    .collect();
                legacy.dynamic_runs = data
                    .dynamic_runs
                    .iter()
                    .filter(|d| r.dynamic_run(d.w, d.h, d.fs_hz, d.scaffolding).is_some())
                    .cloned()
                    .collect();
            }
            data.reference_runs = Some(legacy);
            // The worm gaits, as the original was measured: 60 s each, each gait's mean over the original's
            // six Δt (one simulation per core); a single run is a draw of a chaotic contact sequence.
            let (gaits, dt_perturbations) = super::locomotion::mean_gaits()?;
            let velocities = super::locomotion::run_gaits(&gaits, GAIT_DURATION_S, &dt_perturbations)?;
            data.locomotion = Some(super::locomotion::compare(&gaits, &velocities, GAIT_DURATION_S));
        }
        if self.measure_convergence {
            data.settings.convergence_note = self.convergence_note()?;
        }
        Ok(data)
    }

    fn settings(&self) -> ReportSettings {
        let material = self.material.unwrap_or_else(|| Material::with_preset(self.preset));
        ReportSettings {
            preset: self.preset.name().to_string(),
            dt: self.dt,
            static_duration_s: self.static_duration_s,
            dynamic_duration_s: self.dynamic_duration_s,
            static_force_n: self.static_force_n,
            dynamic_force_n: self.dynamic_force_n,
            impulse_s: impulse_steps(self.dt, self.preset) as f64 * self.dt,
            voxel_side_m: material.side,
            solver_iterations: self.solver_iterations,
            convergence_note: "not measured in this run".to_string(),
            extra: vec![
                Setting {
                    name: "engine".into(),
                    value: "rapier2d 0.36 (f32); springs: implicit force-based joints, k = m_eff·ω² from their own two corner masses".into(),
                },
                Setting { name: "scaffolding sweep at".into(), value: format!("{} Hz", self.scaffold_fs_hz) },
            ],
            ..ReportSettings::default()
        }
    }

    /// Re-runs the softest and stiffest static cases of the largest size with twice the solver
    /// iterations and states the relative change (spec §7 asks for < 1 %).
    fn convergence_note(&self) -> Result<String, SimError> {
        let Some(&(w, h)) = self.sizes.iter().max_by_key(|(w, h)| w * h) else {
            return Ok("no size to measure".into());
        };
        let lo = self.fs_hz.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = self.fs_hz.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if !lo.is_finite() {
            return Ok("no spring frequency to measure".into());
        }
        let mut parts = Vec::new();
        let mut worst: f64 = 0.0;
        for fs in if lo == hi { vec![lo] } else { vec![lo, hi] } {
            let job = Job { w, h, fs_hz: fs, scaffolding: Scaffolding::ALL, dynamic: false };
            let (a, b) = rayon::join(
                || run(&self.setup(&job, self.solver_iterations)),
                || run(&self.setup(&job, 2 * self.solver_iterations)),
            );
            let (a, b) = (*a?.last().unwrap_or(&0.0), *b?.last().unwrap_or(&0.0));
            let change = if a != 0.0 { ((b - a) / a).abs() } else { 0.0 };
            worst = worst.max(change);
            parts.push(format!(
                "{w}×{h} at {fs} Hz: δ = {a:.6} m with {} iterations, {b:.6} m with {} ({:.2} %)",
                self.solver_iterations,
                2 * self.solver_iterations,
                100.0 * change
            ));
        }
        let verdict =
            if worst < 0.01 { "converged (< 1 %)" } else { "NOT converged to 1 %: raise --solver-iterations" };
        Ok(format!("{}; {verdict}", parts.join("; ")))
    }

    /// The loaded beam at the end of a static run, springs drawn (the paper's Figure 4).
    pub fn beam_figure(&self, w: u32, h: u32, width: u32, height: u32) -> Result<image::RgbaImage, SweepFigureError> {
        let material = self.material_for(self.scaffold_fs_hz, Scaffolding::ALL);
        let mut setup =
            BeamSetup::static_case(w, h, material, self.static_force_n, self.static_duration_s.min(10.0), self.dt);
        setup.solver_iterations = self.solver_iterations;
        let mut beam = Beam::build_with_detail(&setup, SnapshotDetail { springs: true, ..SnapshotDetail::default() });
        beam.world.run(setup.steps, &mut [])?;
        let snapshot = beam.snapshot();
        let l = material.side;
        // Frame the wall, the beam at rest and its bent tip, with room on the left for the caption.
        let length = w as f64 * l;
        let beam_box = Aabb {
            min: Vec2::new(-0.3 * length, -0.5 * h as f64 * l),
            max: Vec2::new(length + 0.5 * l, 1.5 * h as f64 * l),
        };
        let view = beam_box.union(snapshot.bodies_bbox(None));
        // A pinned beam goes nowhere: no distance or speed in the overlay.
        let options = RenderOptions { springs: true, masses: true, progress: false, ..RenderOptions::default() };
        let mut renderer = GridRenderer::new(width, height, 1, 1, options)?;
        renderer.set_camera(0, Camera::fixed(view));
        let label = format!(
            "{w}×{h} beam, {} Hz, {} N, δ = {:.3} m",
            self.scaffold_fs_hz,
            self.static_force_n,
            beam.deflection()
        );
        let pixmap = renderer.render(&[CellFrame::new(&snapshot).label(&label)])?;
        Ok(pixmap_to_rgba_image(pixmap))
    }
}

impl SweepOptions {
    /// The static run of [`SweepOptions::beam_figure`] from rest to its end in the interactive viewer
    /// (docs/viewer.md): springs and masses shown, the camera fixed on the wall, the beam and room for
    /// the tip to bend down by up to the beam's length.
    pub fn beam_viewer(&self, w: u32, h: u32) -> Result<vsr2d::view::Page, SweepFigureError> {
        let material = self.material_for(self.scaffold_fs_hz, Scaffolding::ALL);
        let mut setup =
            BeamSetup::static_case(w, h, material, self.static_force_n, self.static_duration_s.min(10.0), self.dt);
        setup.solver_iterations = self.solver_iterations;
        let beam = Beam::build_with_detail(&setup, SnapshotDetail { springs: true, ..SnapshotDetail::default() });
        let (l, length) = (material.side, w as f64 * material.side);
        let view =
            Aabb { min: Vec2::new(-0.3 * length, -length), max: Vec2::new(length + 0.5 * l, 1.5 * h as f64 * l) };
        let label = format!("{w}×{h} beam, {} Hz, {} N", self.scaffold_fs_hz, self.static_force_n);
        let sim = beam.into_simulation(setup.steps, label.clone());
        let options = RenderOptions { springs: true, masses: true, progress: false, ..RenderOptions::default() };
        let settings = vsr2d::view::ViewSettings {
            movie: vsr2d::movie::MovieSettings {
                options,
                fixed_view: Some(view),
                ..vsr2d::movie::MovieSettings::default()
            },
            title: format!("Loaded beam: {label}"),
            ..vsr2d::view::ViewSettings::default()
        };
        Ok(vsr2d::view::build_page(
            vec![vsr2d::movie::MovieSource::simulation(label, sim).map_err(vsr2d::view::ViewError::from)?],
            &settings,
        )?)
    }
}

/// The beam figure could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SweepFigureError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("cannot render the beam figure: {0}")]
    Render(#[from] vsr2d::render::RenderError),
    #[error("cannot make the beam's viewer page: {0}")]
    View(#[from] vsr2d::view::ViewError),
}
