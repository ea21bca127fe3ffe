//! The cantilever experiment of spec §13: a w × h beam welded to a wall on its left face, gravity
//! off, loaded downwards on its rightmost masses; δ(t) is the mean centre height of the rightmost
//! column relative to rest.

use crate::geom::Vec2;
use crate::model::voxel::geometry::{NE, SE};
use crate::model::voxel::grid::BodyGrid;
use crate::model::voxel::material::{Material, Preset};
use crate::model::voxel::scaffolding::Scaffolding;
use crate::sim::voxel_robot::{RobotOptions, Welds};
use crate::sim::world::{
    PointLoad, SimError, World, WorldSettings, DEFAULT_SOLVER_ITERATIONS, LEGACY_SOLVER_ITERATIONS,
};
use crate::snapshot::{BodyId, Snapshot, SnapshotDetail};

/// The conditions of the paper's cantilever experiment (spec §13), which the original 2D-VSR-Sim 1.0.0
/// was also measured in: the one definition the sweep defaults, the report settings, the reference
/// comparison and the CLI defaults all read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CantileverSettings {
    /// Total static load |F| (N), on every step.
    pub static_force_n: f64,
    pub static_duration_s: f64,
    /// Total load |F| (N) of the dynamic impulse.
    pub dynamic_force_n: f64,
    /// How long the impulse acts (s); see [`impulse_steps`].
    pub impulse_s: f64,
    /// How long the dynamic response is recorded (s), impulse included.
    pub dynamic_duration_s: f64,
    /// Time step (s).
    pub dt: f64,
}

/// The paper's settings: 30 N for 60 s; 800 N for 0.1 s, recorded for 15 s; dt = 1/60 s.
pub const PAPER: CantileverSettings = CantileverSettings {
    static_force_n: 30.0,
    static_duration_s: 60.0,
    dynamic_force_n: 800.0,
    impulse_s: 0.1,
    dynamic_duration_s: 15.0,
    dt: 1.0 / 60.0,
};

/// The paper's sweep: beam sizes (w, h) …
pub const PAPER_SIZES: [(u32, u32); 3] = [(5, 2), (10, 2), (10, 4)];
/// … spring frequencies f_s (Hz) swept with all groups …
pub const PAPER_FS_HZ: [f64; 7] = [4.0, 8.0, 10.0, 15.0, 20.0, 25.0, 30.0];
/// … and the f_s (Hz) of the scaffolding sweep (over `Scaffolding::PAPER_SETS`).
pub const PAPER_SCAFFOLD_FS_HZ: f64 = 8.0;

/// One cantilever run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeamSetup {
    pub w: u32,
    pub h: u32,
    pub material: Material,
    /// Total downward force, N.
    pub force_n: f64,
    /// The load acts on steps `0..load_steps` (`u64::MAX`: every step).
    pub load_steps: u64,
    /// Number of steps to simulate.
    pub steps: u64,
    pub dt: f64,
    pub solver_iterations: usize,
    /// Merged clusters (default) or jointed welds (cross-check).
    pub welds: Welds,
    /// Coincident springs of welded neighbours as one joint (default) or two (cross-check).
    pub merge_coincident_springs: bool,
}

impl BeamSetup {
    /// The static case: |F| on every step (the paper: 30 N for 60 s).
    pub fn static_case(w: u32, h: u32, material: Material, force_n: f64, duration_s: f64, dt: f64) -> BeamSetup {
        BeamSetup {
            w,
            h,
            material,
            force_n,
            load_steps: u64::MAX,
            steps: (duration_s / dt).round() as u64,
            dt,
            solver_iterations: solver_iterations_for(material.preset),
            welds: Welds::Merged,
            merge_coincident_springs: true,
        }
    }

    /// The dynamic case: |F| for round(0.1 s/dt) steps (7 steps in `legacy-1.0`), observed for `duration_s`.
    pub fn dynamic_case(w: u32, h: u32, material: Material, force_n: f64, duration_s: f64, dt: f64) -> BeamSetup {
        BeamSetup {
            w,
            h,
            material,
            force_n,
            load_steps: impulse_steps(dt, material.preset),
            steps: (duration_s / dt).round() as u64,
            dt,
            solver_iterations: solver_iterations_for(material.preset),
            welds: Welds::Merged,
            merge_coincident_springs: true,
        }
    }

    /// A material with the given spring frequency and scaffolding.
    pub fn material(preset: Preset, fs_hz: f64, scaffolding: Scaffolding) -> Material {
        Material { spring_hz: fs_hz, scaffolding, ..Material::with_preset(preset) }
    }
}

/// Solver substeps per step of a preset: one for `legacy-1.0` (dyn4j solved each step once).
pub fn solver_iterations_for(preset: Preset) -> usize {
    if preset.is_legacy() {
        LEGACY_SOLVER_ITERATIONS
    } else {
        DEFAULT_SOLVER_ITERATIONS
    }
}

/// Steps of the dynamic load: round(0.1 s/dt); `legacy-1.0` tested t ≤ 0.1 s on accumulated time (7 steps at 60 Hz).
pub fn impulse_steps(dt: f64, preset: Preset) -> u64 {
    if preset.is_legacy() {
        crate::sim::world::legacy_step_count(PAPER.impulse_s, dt, true)
    } else {
        (PAPER.impulse_s / dt).round() as u64
    }
}

/// A beam world ready to step, and how to measure it.
pub struct Beam {
    pub world: World,
    id: BodyId,
    tip_voxels: Vec<usize>,
    y0: f64,
}

impl Beam {
    /// The beam as a simulation of `steps` steps (for the viewer): one robot, labelled `label`, with no
    /// task of its own.
    pub fn into_simulation(self, steps: u64, label: String) -> super::Simulation {
        super::Simulation {
            world: self.world,
            steps,
            task: super::Task::Locomotion { transient: 0.0 },
            labels: vec![label],
            robots: 1,
            has_cells: false,
            control_interval: 0,
            legacy: false,
        }
    }

    pub fn build(setup: &BeamSetup) -> Beam {
        Beam::build_with_detail(setup, SnapshotDetail::default())
    }

    /// Builds the beam with optional snapshot content (springs for figures).
    pub fn build_with_detail(setup: &BeamSetup, detail: SnapshotDetail) -> Beam {
        let settings = WorldSettings {
            dt: setup.dt,
            gravity: Vec2::ZERO,
            solver_iterations: setup.solver_iterations,
            welds: setup.welds,
            detail,
            ..WorldSettings::default()
        }
        .with_engine_of(setup.material.preset);
        let mut world = World::new(settings);
        let l = setup.material.side;
        let height = setup.h as f64 * l;
        // The wall: 1 m wide, right face on the beam's left face, 10 m above and below the beam.
        world.add_wall(vec![
            Vec2::new(-1.0, -10.0),
            Vec2::new(0.0, -10.0),
            Vec2::new(0.0, height + 10.0),
            Vec2::new(-1.0, height + 10.0),
        ]);
        let body = BodyGrid::filled(setup.w, setup.h, setup.material).expect("a filled rectangle is a valid body");
        let options = RobotOptions {
            pin_left_face: true,
            merge_coincident_springs: setup.merge_coincident_springs,
            ..RobotOptions::default()
        };
        let id = world.add_robot(format!("{}x{} beam", setup.w, setup.h), &body, Vec2::ZERO, options, None);
        let tip_voxels: Vec<usize> = (0..setup.h).map(|y| (y * setup.w + setup.w - 1) as usize).collect();
        let share = setup.force_n / (2.0 * setup.h as f64);
        for &voxel in &tip_voxels {
            for mass in [SE, NE] {
                world.add_load(PointLoad {
                    body: id,
                    voxel,
                    mass,
                    force: Vec2::new(0.0, -share),
                    from_step: 0,
                    until_step: setup.load_steps,
                });
            }
        }
        let mut beam = Beam { world, id, tip_voxels, y0: 0.0 };
        beam.y0 = beam.tip_height();
        beam
    }

    fn tip_height(&self) -> f64 {
        self.tip_voxels
            .iter()
            .map(|&v| self.world.voxel_centre(self.id, v).expect("the beam is a voxel robot").y)
            .sum::<f64>()
            / self.tip_voxels.len() as f64
    }

    /// δ = y − y(0), negative when the beam bends down.
    pub fn deflection(&self) -> f64 {
        self.tip_height() - self.y0
    }

    /// The current state, for figures.
    pub fn snapshot(&mut self) -> Snapshot {
        self.world.snapshot()
    }
}

/// Runs a setup and returns δ at every step, `δ[0]` = 0 at rest.
pub fn run(setup: &BeamSetup) -> Result<Vec<f64>, SimError> {
    let mut beam = Beam::build(setup);
    let mut series = Vec::with_capacity(setup.steps as usize + 1);
    series.push(0.0);
    for _ in 0..setup.steps {
        beam.world.step(&mut [])?;
        series.push(beam.deflection());
    }
    Ok(series)
}
