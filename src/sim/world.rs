//! The simulation: a rapier world holding terrain, walls and robots, stepped as spec §7 orders it,
//! emitting a snapshot to every listener after each step.

use std::sync::Arc;

use rapier2d::geometry::{BroadPhaseBvh, BvhOptimizationStrategy};
use rapier2d::parry::query::{DefaultQueryDispatcher, QueryDispatcher};
use rapier2d::prelude::*;

use super::cell::system::{BodyRef, CellEvent, CellSystem, ConnectorType, LinkKind, MuscleSpec};
mod fixture;

pub use fixture::{FixtureError, Plate, PlateContact, PlateMotion};

use super::cell::pressure::SubstepPressure;
use super::cell::Cell;
use super::contact::{ContactFilter, SelfContact};
use super::contact_projection::ContactProjection;
use super::hooks::StepHooks;
use super::kinds::BodyRuntime;
use super::polygon_contacts::PolygonContacts;
use super::tag::ColliderTag;
use super::v;
use super::voxel_robot::{RobotOptions, VoxelRobot, Welds};
use crate::controller::Controller;
use crate::geom::{Aabb, Polygon, Vec2 as V2};
use crate::model::cell::CellParams;
use crate::model::terrain::Terrain;
use crate::model::voxel::grid::BodyGrid;
use crate::model::voxel::material::Preset;
use crate::model::voxel::morphology::Morphology;
use crate::model::voxel::sensors::SensorReadings;
use crate::snapshot::{BodyId, Flow, Progress, Snapshot, SnapshotDetail, SnapshotListener};

/// Terrain and walls: friction 0.2, restitution 0 (spec §2).
const STATIC_FRICTION: f64 = 0.2;

/// Solver substeps per step: the smallest count for which doubling it changes the 10×4 cantilever's
/// static deflection at 4 and 30 Hz by < 1 % and its first dynamic peak by < 2 % (spec §7).
/// Measured with `examples/cantilever_probe` (δ static 30 Hz / 4 Hz, first peak 30 Hz, m):
/// 3 → 0.142558 / 7.050629 / 1.30214, 4 → 0.140246 / 7.048850 / 1.29840, 6 → 0.140130 / 7.047538 / 1.30586,
/// 8 → 0.140448 / 7.047040 / 1.31204, 20 → 0.140949 / 7.045998 / 1.32397.
/// 3 → 6 moves the stiff beam 1.73 %; 4 → 8 moves it 0.14 % (4 Hz 0.03 %, peak 1.04 %). See docs/model.md, "Solver".
pub const DEFAULT_SOLVER_ITERATIONS: usize = 4;

/// `legacy-1.0` solves each step as dyn4j 3.3.0 did: one solver pass over the whole dt (no substeps) of
/// [`LEGACY_VELOCITY_ITERATIONS`] velocity iterations. The substeps are what made legacy worms fast
/// (issue 38): a spring solved implicitly over the whole 1/60 s responds like an 8 Hz, ζ 0.3 spring
/// would at 6.6 Hz, ζ 0.57 (one backward-Euler step), four substeps like 7.7 Hz, ζ 0.39. Its static
/// stiffness is k either way, so the cantilever statics do not move; the worms' gaits do (docs/model.md).
pub const LEGACY_SOLVER_ITERATIONS: usize = 1;

/// dyn4j 3.3.0's default velocity iterations per step (`Settings.DEFAULT_SOLVER_ITERATIONS`); rapier's
/// internal PGS iterations per substep in `legacy-1.0`. With one iteration per step the stiff springs
/// of the 30 Hz cantilever do not converge (it bends up to 2× too far); with ten it is within 10 %.
pub const LEGACY_VELOCITY_ITERATIONS: usize = 10;

/// dyn4j 3.3.0's `Settings.DEFAULT_RESTITUTION_VELOCITY`, m/s: in `legacy-1.0` a contact bounces only
/// when it approaches faster than this ([`IntegrationParameters::restitution_velocity_threshold`](rapier2d::dynamics::IntegrationParameters::restitution_velocity_threshold)).
pub const LEGACY_RESTITUTION_VELOCITY: f64 = 1.0;

/// Steps the released 2D-VSR-Sim 1.0.0 took with accumulated time: it stepped while t < `limit`, or
/// while t ≤ `limit` when `inclusive` (its load windows), adding dt after each step. The accumulated
/// rounding is what decides the last step, so it is counted the same way (60 s at 1/60 s: 3601).
pub fn legacy_step_count(limit: f64, dt: f64, inclusive: bool) -> u64 {
    let mut t = 0.0;
    let mut n = 0;
    while t < limit || (inclusive && t == limit) {
        t += dt;
        n += 1;
    }
    n
}

/// Whose rules a world's engine follows where rapier and the original's dyn4j 3.3.0 differ (issue 38;
/// docs/model.md, "Ground contact" and "Locomotion against the original").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineRules {
    /// rapier's: one velocity iteration per solver substep, friction solved in the unbiased pass after
    /// it, a contact bouncing on the step it appears, soft contacts whose velocity pass carries a
    /// penetration bias that an unbiased pass takes out again.
    Rapier,
    /// dyn4j 3.3.0's (`legacy-1.0`): [`LEGACY_VELOCITY_ITERATIONS`] velocity iterations with friction in
    /// every one (with one solver pass per step, friction solved once let the worms' stiff grip slip
    /// back on each stroke); a contact bouncing on every step it approaches faster than
    /// [`LEGACY_RESTITUTION_VELOCITY`], new or persisting, slower impacts inelastic; rigid contacts
    /// without a bias in the velocity pass, then dyn4j's position pass, which moves penetrating bodies
    /// apart without touching their velocities (`src/sim/contact_projection.rs`).
    Dyn4j,
}

/// The natural frequency, Hz, of the undamped "soft" contacts that stand for rigid ones
/// ([`EngineRules::Dyn4j`]): at Δt = 1/60 s their softening is below 1e-10.
const RIGID_CONTACT_FREQUENCY: Real = 1.0e6;

/// Global settings of a world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldSettings {
    pub dt: f64,
    pub gravity: V2,
    /// c: the controller runs every c + 1 steps.
    pub control_interval: u32,
    pub solver_iterations: usize,
    /// Engine steps of dt / k per step, each with its own collision detection and the user forces of
    /// that engine step (magnets, loads, actuation); 1 unless a scenario asks for more. The cells'
    /// pressure is recomputed every solver substep whatever k is ([`crate::sim::Stepping`]).
    pub force_substeps: usize,
    /// `legacy-1.0` timing: the first control call happens after step c + 1, not at t = 0.
    pub legacy_first_control: bool,
    /// Whose rules the engine follows where rapier and dyn4j differ ([`Self::with_engine_of`]).
    pub engine: EngineRules,
    /// Optional snapshot content.
    pub detail: SnapshotDetail,
    /// Welded masses as merged bodies (default) or as jointed bodies (cross-check).
    pub welds: Welds,
}

impl WorldSettings {
    /// These settings with the engine rules of a material preset: dyn4j's for `legacy-1.0`, rapier's
    /// otherwise.
    pub fn with_engine_of(self, preset: Preset) -> WorldSettings {
        WorldSettings { engine: if preset.is_legacy() { EngineRules::Dyn4j } else { EngineRules::Rapier }, ..self }
    }

    /// The length of one engine step, dt / `force_substeps`, s.
    pub fn physics_dt(&self) -> f64 {
        self.dt / self.force_substeps.max(1) as f64
    }
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            dt: 1.0 / 60.0,
            gravity: V2::new(0.0, -9.8),
            control_interval: 1,
            solver_iterations: DEFAULT_SOLVER_ITERATIONS,
            force_substeps: 1,
            legacy_first_control: false,
            engine: EngineRules::Rapier,
            detail: SnapshotDetail::default(),
            welds: Welds::Merged,
        }
    }
}

/// A simulation that cannot go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error(
        "the simulation became unstable at step {step} (t = {t:.4} s): {what}; \
         try a smaller dt, more solver iterations, softer springs or lower actuation forces"
    )]
    Unstable { step: u64, t: f64, what: String },
    #[error("controller of robot {robot} returned {got} values, expected {expected} (one per voxel)")]
    ControllerOutput { robot: BodyId, got: usize, expected: usize },
    /// A snapshot listener (a recorder, say) failed; the run stopped there.
    #[error("at step {step}: {message}")]
    Listener { step: u64, message: String },
}

/// A constant force on one mass of a voxel robot, applied at its centre on steps `from_step..until_step`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointLoad {
    pub body: BodyId,
    pub voxel: usize,
    pub mass: usize,
    pub force: V2,
    pub from_step: u64,
    pub until_step: u64,
}

/// A world of terrain, walls and bodies.
pub struct World {
    physics: PhysicsWorld,
    filter: ContactFilter,
    /// The cells' pressure, applied inside the engine step (buffers kept across steps).
    pressure: SubstepPressure,
    bodies: Vec<BodyRuntime>,
    terrain: Option<Arc<Polygon>>,
    statics: Vec<Arc<Polygon>>,
    loads: Vec<PointLoad>,
    settings: WorldSettings,
    step: u64,
    touching_step: Option<u64>,
    initial_sent: bool,
    /// Connectors, muscles, links and the schedule of the cells (empty without cells).
    cells: CellSystem,
    plates: fixture::Plates,
    contact_projection: ContactProjection,
}

impl World {
    pub fn new(settings: WorldSettings) -> World {
        let mut physics = PhysicsWorld::new();
        physics.gravity = Vector::new(settings.gravity.x as Real, settings.gravity.y as Real);
        physics.integration_parameters.dt = settings.physics_dt() as Real;
        physics.integration_parameters.num_solver_iterations = settings.solver_iterations.max(1);
        if settings.engine == EngineRules::Dyn4j {
            let ip = &mut physics.integration_parameters;
            ip.num_internal_pgs_iterations = LEGACY_VELOCITY_ITERATIONS;
            ip.friction_in_bias_pass = true;
            ip.restitution_velocity_threshold = Some(LEGACY_RESTITUTION_VELOCITY as Real);
            // Undamped and this fast, rapier's softening (its cfm factor) is below 1e-10: rigid.
            let rigid = SpringCoefficients::new(RIGID_CONTACT_FREQUENCY, 0.0);
            ip.contact_softness = rigid;
            ip.static_contact_softness = rigid;
            // No penetration bias in the velocity pass, hence no unbiased pass to take it out again.
            ip.normalized_max_corrective_velocity = 0.0;
            ip.num_internal_stabilization_iterations = 0;
            // dyn4j finds every contact of a mass with the ground; parry's GJK loses some within
            // ~0.1 mm of touching and lets the mass fall through for a step (`polygon_contacts`). The
            // default preset keeps parry's contacts for now: its figures and goldens were measured with
            // them (docs/model.md).
            physics.narrow_phase = NarrowPhase::with_query_dispatcher(PolygonContacts.chain(DefaultQueryDispatcher));
        }
        // The broad-phase tree is kept as built and refitted, not re-balanced every step: our bodies
        // move as a few coherent groups (a robot, a chain of cells) over static ground, so the
        // optimiser bought nothing measurable and cost 5 % of the paper benchmark's time (issue 17).
        // Which pairs are found does not depend on the tree's shape, only their order does.
        physics.broad_phase = BroadPhaseBvh::with_optimization_strategy(BvhOptimizationStrategy::None);
        World {
            physics,
            filter: ContactFilter::default(),
            pressure: SubstepPressure::default(),
            bodies: Vec::new(),
            terrain: None,
            statics: Vec::new(),
            loads: Vec::new(),
            settings,
            step: 0,
            touching_step: None,
            initial_sent: false,
            cells: CellSystem::default(),
            plates: fixture::Plates::default(),
            contact_projection: ContactProjection::default(),
        }
    }

    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Adds the terrain: one static body with a convex quadrilateral per profile segment, then one per
    /// segment of its ceiling (drawn as a static polygon).
    pub fn add_terrain(&mut self, terrain: &Terrain) {
        let body = self.physics.bodies.insert(RigidBodyBuilder::fixed());
        for quad in terrain.segments().iter().chain(terrain.ceiling_segments().iter()) {
            let points: Vec<Vector> = quad.iter().map(|p| v(*p)).collect();
            if let Some(c) = ColliderBuilder::convex_hull(&points) {
                self.physics.colliders.insert_with_parent(Self::static_material(c), body, &mut self.physics.bodies);
            }
        }
        self.terrain = Some(Arc::new(terrain.outline()));
        if let Some(roof) = terrain.ceiling_outline() {
            self.statics.push(Arc::new(roof));
        }
    }

    /// How far a ray from `from` along the unit vector `direction` travels before it meets the terrain,
    /// its ceiling or a wall (within `max` m): what the engine's colliders are, for checks of the
    /// geometry. Valid once the world has stepped (the engine indexes colliders in its step).
    pub fn static_ray(&self, from: V2, direction: V2, max: f64) -> Option<f64> {
        let ray = Ray::new(v(from), v(direction));
        let filter = QueryFilter::only_fixed();
        self.physics.cast_ray(&ray, max as Real, true, filter).map(|(_, distance)| distance as f64)
    }

    /// Adds a static convex polygon (a wall).
    pub fn add_wall(&mut self, polygon: Polygon) {
        let body = self.physics.bodies.insert(RigidBodyBuilder::fixed());
        let points: Vec<Vector> = polygon.iter().map(|p| v(*p)).collect();
        if let Some(c) = ColliderBuilder::convex_hull(&points) {
            self.physics.colliders.insert_with_parent(Self::static_material(c), body, &mut self.physics.bodies);
        }
        self.statics.push(Arc::new(polygon));
    }

    fn static_material(c: ColliderBuilder) -> ColliderBuilder {
        c.friction(STATIC_FRICTION as Real)
            .friction_combine_rule(CoefficientCombineRule::GeometricMean)
            .restitution(0.0)
            .restitution_combine_rule(CoefficientCombineRule::Max)
    }

    /// Builds a voxel robot with its bottom-left grid corner at `origin`; returns its id.
    pub fn add_robot(
        &mut self,
        label: impl Into<String>,
        grid: &BodyGrid,
        origin: V2,
        options: RobotOptions,
        controller: Option<Box<dyn Controller>>,
    ) -> BodyId {
        let id = BodyId(self.bodies.len());
        let settings = self.settings;
        let (robot, contact) = VoxelRobot::build(
            &mut self.physics,
            id,
            label.into(),
            grid,
            origin,
            options,
            settings.welds,
            settings.physics_dt(),
            controller,
        );
        self.filter.bodies.push(SelfContact::VoxelRobot(contact));
        self.bodies.push(BodyRuntime::VoxelRobot(robot));
        self.touching_step = None;
        id
    }

    /// Builds a soft cell of `params` centred at `centre`, turned by `rotation` rad; returns its id.
    pub fn add_cell(
        &mut self,
        label: impl Into<String>,
        type_name: impl Into<String>,
        params: CellParams,
        centre: V2,
        rotation: f64,
    ) -> BodyId {
        let id = BodyId(self.bodies.len());
        let cell = Cell::build(
            &mut self.physics,
            id,
            label.into(),
            type_name.into(),
            params,
            centre,
            rotation,
            self.settings.dt,
        );
        self.filter.bodies.push(SelfContact::Cell);
        self.bodies.push(BodyRuntime::Cell(cell));
        self.touching_step = None;
        id
    }

    /// Adds a rigid object (box, wall, platform, pole) as a body; returns its id.
    pub fn add_object(&mut self, label: impl Into<String>, spec: &crate::model::object::ObjectSpec) -> BodyId {
        let id = BodyId(self.bodies.len());
        let object = super::object::RigidObject::build(&mut self.physics, id, label.into(), spec);
        self.filter.bodies.push(SelfContact::Object);
        self.bodies.push(BodyRuntime::Object(object));
        self.touching_step = None;
        id
    }

    /// Sets the connector types and A_ab by type index (square); call before adding connectors.
    pub fn set_connector_types(&mut self, types: Vec<ConnectorType>, strengths: Vec<Vec<f64>>) {
        self.cells.set_connector_types(types, strengths);
    }

    /// Adds a connector of type index `kind` on body `body` of cell `cell`; returns its index.
    pub fn add_connector(
        &mut self,
        name: impl Into<String>,
        cell: BodyId,
        body: usize,
        kind: usize,
        on: bool,
    ) -> usize {
        let at = BodyRef { cell, body };
        self.cells.add_connector(&mut self.physics, &self.bodies, name.into(), at, kind, on)
    }

    /// Adds a muscle (spec `cells.md` §5); returns its index.
    pub fn add_muscle(&mut self, spec: MuscleSpec) -> usize {
        self.cells.add_muscle(&mut self.physics, &self.bodies, spec)
    }

    /// Joins body `a.1` of cell `a.0` to body `b.1` of cell `b.0` (spec §6).
    pub fn add_cell_link(&mut self, kind: LinkKind, a: (BodyId, usize), b: (BodyId, usize)) {
        let (a, b) = (BodyRef { cell: a.0, body: a.1 }, BodyRef { cell: b.0, body: b.1 });
        self.cells.add_link(&mut self.physics, &self.bodies, kind, a, b);
    }

    /// The cells' schedule, in file order (spec §9 step 1).
    pub fn set_cell_schedule(&mut self, events: Vec<CellEvent>) {
        self.cells.set_schedule(events);
    }

    /// Active connector pairs that involve cell `id` now.
    pub fn cell_pairs(&self, id: BodyId) -> usize {
        self.cells.pairs_of(id)
    }

    /// Whether body `id` is a soft cell.
    pub fn is_cell(&self, id: BodyId) -> bool {
        matches!(self.bodies.get(id.index()), Some(BodyRuntime::Cell(_)))
    }

    /// Whether body `id` is a rigid object.
    pub fn is_object(&self, id: BodyId) -> bool {
        matches!(self.bodies.get(id.index()), Some(BodyRuntime::Object(_)))
    }

    /// Total linear momentum Σ m·v of cell `id`, kg·m/s (`None` if `id` is not a cell).
    pub fn cell_momentum(&self, id: BodyId) -> Option<V2> {
        match self.bodies.get(id.index())? {
            BodyRuntime::Cell(c) => Some(c.momentum(&self.physics)),
            _ => None,
        }
    }

    /// Adds a free rigid box: a load, not a body of the snapshots (the rope check of spec §4 drops one
    /// on a voxel).
    pub fn add_rigid_box(&mut self, centre: V2, half_extents: V2, mass: f64) {
        let body = self.physics.bodies.insert(RigidBodyBuilder::dynamic().translation(v(centre)).can_sleep(false));
        let collider = Self::static_material(ColliderBuilder::cuboid(half_extents.x as Real, half_extents.y as Real))
            .mass(mass as Real);
        self.physics.colliders.insert_with_parent(collider, body, &mut self.physics.bodies);
    }

    /// Sets the velocity of every rigid part of body `id` (initial conditions).
    pub fn set_body_velocity(&mut self, id: BodyId, velocity: V2) {
        self.bodies[id.index()].get_mut().set_velocity(&mut self.physics, velocity);
    }

    pub fn add_load(&mut self, load: PointLoad) {
        self.loads.push(load);
    }

    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Voxels of all voxel robots (the unit of the benchmark's throughput).
    pub fn voxel_count(&self) -> usize {
        self.bodies.iter().map(|b| b.get().actuators()).sum()
    }

    /// Steps done so far.
    pub fn step_index(&self) -> u64 {
        self.step
    }

    /// t = k·dt (never accumulated).
    pub fn time(&self) -> f64 {
        self.step as f64 * self.settings.dt
    }

    /// Centre of voxel `vi` of voxel robot `id` (mean of its mass centres), now: what the cantilever
    /// task measures at every step without building snapshots. `None` if `id` is not a voxel robot.
    pub fn voxel_centre(&self, id: BodyId, vi: usize) -> Option<V2> {
        match self.bodies.get(id.index())? {
            BodyRuntime::VoxelRobot(r) => Some(r.voxel_centre(vi)),
            _ => None,
        }
    }

    /// The morphology descriptors of voxel robot `id`'s body grid (static: computed when it was built).
    /// `None` if `id` is not a voxel robot.
    pub fn morphology(&self, id: BodyId) -> Option<&Morphology> {
        match self.bodies.get(id.index())? {
            BodyRuntime::VoxelRobot(r) => Some(r.morphology()),
            _ => None,
        }
    }

    /// Total kinetic energy of the bodies (energy checks).
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(|b| b.get().kinetic_energy(&self.physics)).sum()
    }

    /// Runs `steps` steps, delivering the initial snapshot first if it has not been delivered yet; ends
    /// early when a listener asks to stop, and with its error when one fails.
    /// Makes the solver rebuild its whole joint assembly at the next step, as any mutable joint access
    /// does (for tests of the engine's assembly reuse).
    #[cfg(test)]
    pub(crate) fn invalidate_joint_assembly(&mut self) {
        let first = self.physics.impulse_joints.iter().next().map(|(handle, _)| handle);
        if let Some(handle) = first {
            self.physics.impulse_joints.get_mut(handle, false);
        }
    }

    pub fn run(&mut self, steps: u64, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Flow, SimError> {
        if self.emit_initial(listeners)? == Flow::Stop {
            return Ok(Flow::Stop);
        }
        for _ in 0..steps {
            if self.step(listeners)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// Delivers the t = 0 snapshot (once).
    pub fn emit_initial(&mut self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Flow, SimError> {
        if self.initial_sent {
            return Ok(Flow::Continue);
        }
        self.initial_sent = true;
        self.emit(listeners)
    }

    /// Whether the next step starts with a control call.
    pub fn is_control_step(&self) -> bool {
        let period = self.settings.control_interval as u64 + 1;
        self.step % period == 0 && !(self.settings.legacy_first_control && self.step == 0)
    }

    /// One step: control, actuation, physics, time advance, snapshot (spec §7). Returns what the
    /// listeners ask for next.
    pub fn step(&mut self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Flow, SimError> {
        Ok(self.step_while(listeners, &mut || true)?.unwrap_or(Flow::Continue))
    }

    /// [`World::step`] that asks `keep_going()` before each of its engine steps after the first
    /// (`world.force_substeps`), so that a deadline or a cancel flag is honoured within one engine step
    /// even when a step is long; `None` when it said no. A world stopped that way is half-way through a
    /// step: only dropping it makes sense. Asking changes no bit of a run that goes on.
    pub fn step_while(
        &mut self,
        listeners: &mut [&mut dyn SnapshotListener],
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Flow>, SimError> {
        let t = self.time();
        let dt = self.settings.dt;
        if !self.cells.is_empty() {
            self.cells.apply_schedule(&mut self.physics, &mut self.bodies, t, dt);
        }
        let control = self.is_control_step();
        if control {
            self.control(t)?;
        }
        let k = self.settings.force_substeps.max(1);
        let h = self.settings.physics_dt();
        for sub in 0..k {
            if sub > 0 {
                if !keep_going() {
                    return Ok(None);
                }
                for body in &mut self.bodies {
                    body.get_mut().read_state(&self.physics);
                }
            }
            self.physics_step(control, t + sub as f64 * h, h, (sub + 1) as f64 / k as f64);
        }
        self.plates.finish_step(dt);
        self.step += 1;
        for body in &mut self.bodies {
            body.get_mut().read_state(&self.physics);
        }
        self.check_stability()?;
        if listeners.is_empty() {
            return Ok(Some(Flow::Continue));
        }
        self.emit(listeners).map(Some)
    }

    /// One engine step of length `h` from time `t`: the forces of this substep (actuation, loads, pressure,
    /// magnets, muscles), the kinematic plates at `progress` of their move, the engine, then the reset of
    /// the forces the engine would otherwise keep.
    fn physics_step(&mut self, control: bool, t: f64, h: f64, progress: f64) {
        let mut forces_applied = false;
        if control {
            for body in &self.bodies {
                forces_applied |= body.get().apply_actuation_forces(&mut self.physics);
            }
        }
        for load in &self.loads {
            if (load.from_step..load.until_step).contains(&self.step) {
                self.bodies[load.body.index()].get().push(&mut self.physics, load.voxel, load.mass, load.force);
                forces_applied = true;
            }
        }
        for body in &mut self.bodies {
            body.get_mut().before_step(&mut self.physics, h);
        }
        if !self.cells.is_empty() {
            self.cells.before_step(&mut self.physics, &self.bodies, t);
        }
        self.plates.place(&mut self.physics, progress);

        let hooks = StepHooks::new(&self.filter, &self.bodies, &self.pressure);
        self.physics.step_with_events(&hooks, &());
        if self.settings.engine == EngineRules::Dyn4j {
            self.contact_projection.run(&mut self.physics);
        }

        self.plates.add_contacts(&self.physics);
        for body in &self.bodies {
            // Cells set pressure forces every step; voxel robots only when something was applied.
            if forces_applied || matches!(body, BodyRuntime::Cell(_)) {
                body.get().reset_forces(&mut self.physics);
            }
        }
    }

    fn control(&mut self, t: f64) -> Result<(), SimError> {
        if self.bodies.iter().any(|b| b.get().needs_sensors()) {
            self.refresh_touching();
        }
        for body in &mut self.bodies {
            body.get_mut().control(&mut self.physics, t)?;
        }
        Ok(())
    }

    fn check_stability(&self) -> Result<(), SimError> {
        let unstable = |what: String| SimError::Unstable { step: self.step, t: self.time(), what };
        if !self.physics.quarantine().is_empty() {
            return Err(unstable("the engine quarantined bodies whose state became non-finite".into()));
        }
        let limit = 0.99 * self.physics.integration_parameters.max_linear_velocity() as f64;
        match self.bodies.iter().find_map(|b| b.get().instability(limit)) {
            Some(what) => Err(unstable(what)),
            None => Ok(()),
        }
    }

    /// Marks the parts of bodies in active contact with something outside their body.
    fn refresh_touching(&mut self) {
        if self.touching_step == Some(self.step) {
            return;
        }
        self.touching_step = Some(self.step);
        for body in &mut self.bodies {
            body.get_mut().clear_touching();
        }
        if self.step == 0 {
            return;
        }
        for pair in self.physics.narrow_phase.contact_pairs() {
            if !pair.has_any_active_contact() {
                continue;
            }
            let tag = |h| self.physics.colliders.get(h).and_then(|c| ColliderTag::decode(c.user_data));
            let (a, b) = (tag(pair.collider1), tag(pair.collider2));
            for (this, other) in [(a, b), (b, a)] {
                if let Some(this) = this {
                    if other.is_none_or(|o| o.body != this.body) {
                        let body = self.bodies[this.body.index()].get_mut();
                        body.mark_touching(this.part);
                        match other {
                            None => body.mark_touching_ground(),
                            Some(other) => body.mark_touching_body(other.body),
                        }
                    }
                }
            }
        }
    }

    /// Delivers the current snapshot to every listener; any listener may stop the run.
    fn emit(&mut self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Flow, SimError> {
        let snapshot = Arc::new(self.snapshot());
        let mut flow = Flow::Continue;
        for l in listeners.iter_mut() {
            match l.on_snapshot(&snapshot) {
                Ok(Flow::Stop) => flow = Flow::Stop,
                Ok(Flow::Continue) => {}
                Err(e) => return Err(SimError::Listener { step: self.step, message: e.to_string() }),
            }
        }
        Ok(flow)
    }

    /// Refreshes which parts of which bodies touch something (once per step; what a task that reads
    /// contacts calls after each step on the snapshot-free path). Changes no physics.
    pub fn refresh_contacts(&mut self) {
        self.refresh_touching();
    }

    /// The sensor readings of every part of body `id` in the current state (voxels in grid order):
    /// what its controller would read at a control step now. `None` for an unknown body.
    pub fn sensor_readings(&mut self, id: BodyId) -> Option<Vec<SensorReadings>> {
        self.bodies.get(id.index())?;
        self.refresh_touching();
        Some(self.bodies[id.index()].get().sensor_readings())
    }

    /// The current state as plain data.
    pub fn snapshot(&mut self) -> Snapshot {
        self.refresh_touching();
        let detail = self.settings.detail;
        let mut bodies: Vec<_> = self.bodies.iter().map(|b| b.get().snapshot(detail)).collect();
        self.cells.decorate(&mut bodies, &self.bodies);
        Snapshot {
            step: self.step,
            t: self.time(),
            bodies,
            terrain: self.terrain.clone(),
            statics: self.statics.clone(),
        }
    }
}

/// The fast path: tasks read the world itself, with the same numbers a snapshot would carry.
impl Progress for World {
    fn step_index(&self) -> u64 {
        self.step
    }
    fn time(&self) -> f64 {
        World::time(self)
    }
    fn body_count(&self) -> usize {
        self.bodies.len()
    }
    fn label(&self, body: usize) -> &str {
        self.bodies[body].get().label()
    }
    fn centre(&self, body: usize) -> V2 {
        self.bodies[body].get().centre()
    }
    fn centre_and_bbox(&self, body: usize) -> (V2, Aabb) {
        self.bodies[body].get().centre_and_bbox()
    }
    fn actuators(&self, body: usize) -> usize {
        self.bodies[body].get().actuators()
    }
    fn grid_cells(&self, body: usize) -> usize {
        self.bodies[body].get().grid_cells()
    }
    fn controls(&self, body: usize) -> (Vec<f64>, Vec<f64>) {
        let (values, raw) = self.bodies[body].get().controls();
        (values.to_vec(), raw.to_vec())
    }
    fn touching(&self, body: usize) -> bool {
        self.bodies[body].get().touching_any()
    }
    fn touching_ground(&self, body: usize) -> bool {
        self.bodies[body].get().touching_ground()
    }
    fn object_touches(&self, object: usize, other: usize) -> bool {
        self.bodies[object].get().touches_body(BodyId(other))
    }
    fn object_state(&self, body: usize) -> Option<crate::snapshot::ObjectState> {
        self.bodies[body].get().object_state()
    }
    fn outline_points(&self, body: usize) -> Vec<V2> {
        self.bodies[body].get().outline_points()
    }
}

#[cfg(test)]
mod tests {
    use super::legacy_step_count;
    use crate::scenario::Scenario;

    /// The worm's centre after `steps` steps, rebuilding the solver's joint assembly every step or not.
    fn worm_after(steps: u64, fresh_assembly_each_step: bool) -> (f64, f64) {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/worm-10x3-uneven.json"))
                .unwrap();
        let mut world = Scenario::from_json(&text).unwrap().build().unwrap().into_world();
        for _ in 0..steps {
            if fresh_assembly_each_step {
                world.invalidate_joint_assembly();
            }
            world.step(&mut []).unwrap();
        }
        let c = world.voxel_centre(crate::snapshot::BodyId(0), 0).unwrap();
        (c.x, c.y)
    }

    #[test]
    fn switching_ropes_keeps_the_wide_joint_assembly_without_changing_a_bit() {
        // Ropes engage near their bounds and switch every step or so; rapier patch 4 then rebuilds only
        // the scalar overflow and keeps the wide (SIMD) joint chunks. A fresh assembly every step (the
        // slow way) must give the same run, bit for bit.
        let steps = 240;
        assert_eq!(worm_after(steps, false), worm_after(steps, true));
    }

    #[test]
    fn legacy_step_counts_of_the_released_code() {
        // spec §15 rows 10 and 15: 60 s gives 3601 steps; the dynamic load (t ≤ 0.1 s) acts for 7.
        assert_eq!(legacy_step_count(60.0, 1.0 / 60.0, false), 3601);
        assert_eq!(legacy_step_count(0.1, 1.0 / 60.0, true), 7);
        assert_eq!(legacy_step_count(0.0, 1.0 / 60.0, false), 0);
    }
}
