//! The simulation: a rapier world holding terrain, walls and robots, stepped as spec §7 orders it,
//! emitting a snapshot to every listener after each step.

use std::sync::Arc;

use rapier2d::prelude::*;

use crate::controller::Controller;
use crate::controller::ControllerIo;
use crate::geom::{Polygon, Vec2 as V2};
use crate::model::terrain::Terrain;
use crate::model::voxel::grid::BodyGrid;
use crate::model::voxel::sensors::SensorReadings;
use crate::model::voxel::sensors::{self, VoxelPose};
use crate::sim::voxel_robot::{decode_tag, v, Robot, RobotOptions, Welds};
use crate::snapshot::{
    Flow, RobotSnapshot, RopeSegment, Snapshot, SnapshotDetail, SnapshotListener, SpringSegment, VoxelSnapshot,
};

/// Terrain and walls: friction 0.2, restitution 0 (spec §2).
const STATIC_FRICTION: f64 = 0.2;

/// Solver substeps per step: the smallest count for which doubling it changes the 10×4 cantilever's
/// static deflection at 4 and 30 Hz by < 1 % and its first dynamic peak by < 2 % (spec §7).
/// Measured with `examples/cantilever_probe` (δ static 30 Hz / 4 Hz, first peak 30 Hz, m):
/// 3 → 0.142593 / 7.060463 / 1.30209, 4 → 0.140262 / 7.054659 / 1.29836, 6 → 0.140134 / 7.050340 / 1.30584,
/// 8 → 0.140449 / 7.048735 / 1.31203, 20 → 0.140950 / 7.046381 / 1.32397.
/// 3 → 6 moves the stiff beam 1.75 %; 4 → 8 moves it 0.13 % (4 Hz 0.09 %, peak 1.05 %). See README, "Solver".
pub const DEFAULT_SOLVER_ITERATIONS: usize = 4;

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

/// Global settings of a world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldSettings {
    pub dt: f64,
    pub gravity: V2,
    /// c: the controller runs every c + 1 steps.
    pub control_interval: u32,
    pub solver_iterations: usize,
    /// `legacy-1.0` timing: the first control call happens after step c + 1, not at t = 0.
    pub legacy_first_control: bool,
    /// Optional snapshot content.
    pub detail: SnapshotDetail,
    /// Welded masses as merged bodies (default) or as jointed bodies (cross-check).
    pub welds: Welds,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            dt: 1.0 / 60.0,
            gravity: V2::new(0.0, -9.8),
            control_interval: 1,
            solver_iterations: DEFAULT_SOLVER_ITERATIONS,
            legacy_first_control: false,
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
    ControllerOutput { robot: usize, got: usize, expected: usize },
    /// A snapshot listener (a recorder, say) failed; the run stopped there.
    #[error("at step {step}: {message}")]
    Listener { step: u64, message: String },
}

/// A constant force on one mass of a robot, applied at its centre on steps `from_step..until_step`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointLoad {
    pub robot: usize,
    pub voxel: usize,
    pub mass: usize,
    pub force: V2,
    pub from_step: u64,
    pub until_step: u64,
}

/// What the contact filter knows of one robot.
struct CollisionRules {
    self_collisions: bool,
    /// Per voxel: its diagonal masses collide (legacy without the central cross).
    diagonal: Vec<bool>,
    /// Cluster of welded masses per 4·voxel + mass: welded masses never collide.
    cluster_of: Vec<usize>,
}

/// Decides which collider pairs may touch (spec §6, collisions table).
struct ContactFilter {
    robots: Vec<CollisionRules>,
}

impl PhysicsHooks for ContactFilter {
    fn filter_contact_pair(&self, ctx: &PairFilterContext) -> Option<SolverFlags> {
        let fixed = |h: Option<RigidBodyHandle>| h.is_none_or(|h| !ctx.bodies[h].is_dynamic());
        if fixed(ctx.rigid_body1) && fixed(ctx.rigid_body2) {
            return None;
        }
        let a = decode_tag(ctx.colliders[ctx.collider1].user_data);
        let b = decode_tag(ctx.colliders[ctx.collider2].user_data);
        if let (Some((ra, va, ma)), Some((rb, vb, mb))) = (a, b) {
            if ra == rb {
                let rules = &self.robots[ra];
                let allowed = if va == vb {
                    rules.diagonal[va] && ma.abs_diff(mb) == 2
                } else {
                    rules.self_collisions && rules.cluster_of[4 * va + ma] != rules.cluster_of[4 * vb + mb]
                };
                if !allowed {
                    return None;
                }
            }
        }
        Some(SolverFlags::COMPUTE_RIGID_IMPULSES)
    }
}

/// A controller given as a closure (tests, scripted experiments).
pub struct FnController<F>(pub F);

impl<F: FnMut(f64, &[SensorReadings], &mut [f64]) + Send> Controller for FnController<F> {
    fn control(&mut self, t: f64, readings: &[SensorReadings], outputs: &mut [f64]) {
        (self.0)(t, readings, outputs)
    }
}

struct RobotSlot {
    robot: Robot,
    controller: Option<Box<dyn Controller>>,
    readings: Vec<SensorReadings>,
    outputs: Vec<f64>,
    touching: Vec<bool>,
}

/// A world of terrain, walls and robots.
pub struct World {
    physics: PhysicsWorld,
    filter: ContactFilter,
    slots: Vec<RobotSlot>,
    terrain: Option<Arc<Polygon>>,
    statics: Vec<Arc<Polygon>>,
    loads: Vec<PointLoad>,
    settings: WorldSettings,
    step: u64,
    touching_step: Option<u64>,
    initial_sent: bool,
}

impl World {
    pub fn new(settings: WorldSettings) -> World {
        let mut physics = PhysicsWorld::new();
        physics.gravity = Vector::new(settings.gravity.x as Real, settings.gravity.y as Real);
        physics.integration_parameters.dt = settings.dt as Real;
        physics.integration_parameters.num_solver_iterations = settings.solver_iterations.max(1);
        World {
            physics,
            filter: ContactFilter { robots: Vec::new() },
            slots: Vec::new(),
            terrain: None,
            statics: Vec::new(),
            loads: Vec::new(),
            settings,
            step: 0,
            touching_step: None,
            initial_sent: false,
        }
    }

    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Adds the terrain: one static body with a convex quadrilateral per profile segment.
    pub fn add_terrain(&mut self, terrain: &Terrain) {
        let body = self.physics.bodies.insert(RigidBodyBuilder::fixed());
        for quad in terrain.segments() {
            let points: Vec<Vector> = quad.iter().map(|p| v(*p)).collect();
            if let Some(c) = ColliderBuilder::convex_hull(&points) {
                self.physics.colliders.insert_with_parent(Self::static_material(c), body, &mut self.physics.bodies);
            }
        }
        self.terrain = Some(Arc::new(terrain.outline()));
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

    /// Builds a robot with its bottom-left grid corner at `origin`; returns its id.
    pub fn add_robot(
        &mut self,
        label: impl Into<String>,
        body: &BodyGrid,
        origin: V2,
        options: RobotOptions,
        controller: Option<Box<dyn Controller>>,
    ) -> usize {
        let id = self.slots.len();
        let settings = self.settings;
        let robot =
            Robot::build(&mut self.physics, id, label.into(), body, origin, options, settings.welds, settings.dt);
        let diagonal = robot
            .voxels
            .iter()
            .map(|vx| {
                vx.material.preset.is_legacy()
                    && !vx.material.scaffolding.contains(crate::model::voxel::scaffolding::SpringGroup::CentralCross)
            })
            .collect();
        let cluster_of = robot.cluster_of.clone();
        self.filter.robots.push(CollisionRules { self_collisions: options.self_collisions, diagonal, cluster_of });
        let n = robot.voxels.len();
        self.slots.push(RobotSlot {
            robot,
            controller,
            readings: vec![SensorReadings::default(); n],
            outputs: vec![0.0; n],
            touching: vec![false; n],
        });
        self.touching_step = None;
        id
    }

    /// Adds a free rigid box (not a robot: it has no voxels and is not in snapshots' robot list).
    /// Used for loading experiments such as the rope check of spec §4.
    pub fn add_rigid_box(&mut self, centre: V2, half_extents: V2, mass: f64) {
        let body = self.physics.bodies.insert(RigidBodyBuilder::dynamic().translation(v(centre)).can_sleep(false));
        let collider = Self::static_material(ColliderBuilder::cuboid(half_extents.x as Real, half_extents.y as Real))
            .mass(mass as Real);
        self.physics.colliders.insert_with_parent(collider, body, &mut self.physics.bodies);
    }

    /// Sets the velocity of every body of robot `id` and refreshes the cached state.
    pub fn set_robot_velocity(&mut self, id: usize, velocity: V2) {
        self.slots[id].robot.set_velocity(&mut self.physics, velocity);
        self.slots[id].robot.read_state(&self.physics);
    }

    pub fn add_load(&mut self, load: PointLoad) {
        self.loads.push(load);
    }

    pub fn robot_count(&self) -> usize {
        self.slots.len()
    }

    pub fn voxel_count(&self) -> usize {
        self.slots.iter().map(|s| s.robot.voxels.len()).sum()
    }

    /// Steps done so far.
    pub fn step_index(&self) -> u64 {
        self.step
    }

    /// t = k·dt (never accumulated).
    pub fn time(&self) -> f64 {
        self.step as f64 * self.settings.dt
    }

    /// Centre and bounding box of robot `id` now.
    pub fn robot_centre_and_bbox(&self, id: usize) -> (V2, crate::geom::Aabb) {
        self.slots[id].robot.centre_and_bbox()
    }

    /// Centre of robot `id` (unweighted mean of its voxel centres).
    pub fn robot_centre(&self, id: usize) -> V2 {
        self.slots[id].robot.centre()
    }

    /// Clipped and raw control values of robot `id`, per voxel in grid order.
    pub fn robot_controls(&self, id: usize) -> (&[f64], &[f64]) {
        let r = &self.slots[id].robot;
        (&r.control, &r.raw_control)
    }

    /// Label, voxel count and grid size of robot `id`.
    pub fn robot_info(&self, id: usize) -> (&str, usize, [u32; 2]) {
        let r = &self.slots[id].robot;
        (&r.label, r.voxels.len(), r.grid)
    }

    /// Centre of voxel `vi` of robot `id` (mean of its mass centres), now.
    pub fn voxel_centre(&self, id: usize, vi: usize) -> V2 {
        self.slots[id].robot.voxel_centre(vi)
    }

    /// Total kinetic energy of the robots' bodies.
    pub fn kinetic_energy(&self) -> f64 {
        self.slots.iter().map(|s| s.robot.kinetic_energy(&self.physics)).sum()
    }

    /// Sensor readings of every voxel of robot `id`, now.
    pub fn sensor_readings(&mut self, id: usize) -> Vec<SensorReadings> {
        self.refresh_touching();
        let slot = &self.slots[id];
        (0..slot.robot.voxels.len()).map(|vi| Self::read_voxel(&slot.robot, &slot.touching, vi)).collect()
    }

    /// Adjacent mass centre distances of every voxel of robot `id` (rope checks).
    pub fn adjacent_mass_distances(&self, id: usize) -> Vec<f64> {
        let r = &self.slots[id].robot;
        (0..r.voxels.len())
            .flat_map(|vi| {
                crate::model::voxel::geometry::SIDES
                    .map(|(a, b)| (r.mass_centre(vi, b) - r.mass_centre(vi, a)).length())
            })
            .collect()
    }

    /// Runs `steps` steps, delivering the initial snapshot first if it has not been delivered yet; ends
    /// early when a listener asks to stop, and with its error when one fails.
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

    fn is_control_step(&self) -> bool {
        let period = self.settings.control_interval as u64 + 1;
        self.step % period == 0 && !(self.settings.legacy_first_control && self.step == 0)
    }

    /// One step: control, actuation, physics, time advance, snapshot (spec §7). Returns what the
    /// listeners ask for next.
    pub fn step(&mut self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Flow, SimError> {
        let t = self.time();
        let mut forces_applied = false;
        if self.is_control_step() {
            self.control(t)?;
            for slot in &self.slots {
                forces_applied |= slot.robot.apply_force_actuation(&mut self.physics);
            }
        }
        for load in &self.loads {
            if (load.from_step..load.until_step).contains(&self.step) {
                self.slots[load.robot].robot.push_mass(&mut self.physics, load.voxel, load.mass, load.force);
                forces_applied = true;
            }
        }
        let dt = self.settings.dt;
        for slot in &mut self.slots {
            slot.robot.update_ropes(&mut self.physics, dt);
        }

        self.physics.step_with_events(&self.filter, &());

        if forces_applied {
            for slot in &self.slots {
                slot.robot.reset_forces(&mut self.physics);
            }
        }
        self.step += 1;
        for slot in &mut self.slots {
            slot.robot.read_state(&self.physics);
        }
        self.check_stability()?;
        if listeners.is_empty() {
            return Ok(Flow::Continue);
        }
        self.emit(listeners)
    }

    fn control(&mut self, t: f64) -> Result<(), SimError> {
        let needs_readings = self.slots.iter().any(|s| s.controller.as_ref().is_some_and(|c| c.needs_sensors()));
        if needs_readings {
            self.refresh_touching();
        }
        for (ri, slot) in self.slots.iter_mut().enumerate() {
            let Some(controller) = slot.controller.as_mut() else { continue };
            if controller.needs_sensors() {
                for vi in 0..slot.robot.voxels.len() {
                    slot.readings[vi] = Self::read_voxel(&slot.robot, &slot.touching, vi);
                }
            }
            slot.outputs.iter_mut().for_each(|o| *o = 0.0);
            controller.control(t, &slot.readings, &mut slot.outputs);
            if slot.outputs.len() != slot.robot.voxels.len() {
                return Err(SimError::ControllerOutput {
                    robot: ri,
                    got: slot.outputs.len(),
                    expected: slot.robot.voxels.len(),
                });
            }
            slot.robot.apply_control(&mut self.physics, &slot.outputs);
        }
        Ok(())
    }

    fn check_stability(&self) -> Result<(), SimError> {
        let unstable = |what: String| SimError::Unstable { step: self.step, t: self.time(), what };
        if !self.physics.quarantine().is_empty() {
            return Err(unstable("the engine quarantined bodies whose state became non-finite".into()));
        }
        let limit = 0.99 * self.physics.integration_parameters.max_linear_velocity() as f64;
        for slot in &self.slots {
            for (bi, s) in slot.robot.states.iter().enumerate() {
                if !(s.origin.is_finite() && s.linvel.is_finite() && s.angvel.is_finite()) {
                    return Err(unstable(format!("robot {} body {bi} has a non-finite state", slot.robot.id)));
                }
                if s.linvel.length() >= limit {
                    return Err(unstable(format!(
                        "robot {} body {bi} reached the engine's speed limit ({:.0} m/s): the state is exploding",
                        slot.robot.id,
                        s.linvel.length()
                    )));
                }
            }
        }
        Ok(())
    }

    /// Marks the voxels with a mass in active contact with something outside their robot.
    fn refresh_touching(&mut self) {
        if self.touching_step == Some(self.step) {
            return;
        }
        self.touching_step = Some(self.step);
        for slot in &mut self.slots {
            slot.touching.iter_mut().for_each(|t| *t = false);
        }
        if self.step == 0 {
            return;
        }
        for pair in self.physics.narrow_phase.contact_pairs() {
            if !pair.has_any_active_contact() {
                continue;
            }
            let a = self.physics.colliders.get(pair.collider1).and_then(|c| decode_tag(c.user_data));
            let b = self.physics.colliders.get(pair.collider2).and_then(|c| decode_tag(c.user_data));
            for (this, other) in [(a, b), (b, a)] {
                if let Some((r, vox, _)) = this {
                    if other.is_none_or(|(r2, _, _)| r2 != r) {
                        self.slots[r].touching[vox] = true;
                    }
                }
            }
        }
    }

    /// The pose of voxel `vi`, given its mass squares (corners, outer corner) already computed.
    fn voxel_pose(robot: &Robot, vi: usize, squares: &[([V2; 4], V2); 4]) -> VoxelPose {
        VoxelPose {
            centres: [0, 1, 2, 3].map(|k| robot.mass_centre(vi, k)),
            outer_corners: squares.map(|(_, outer)| outer),
            velocities: [0, 1, 2, 3].map(|k| robot.mass_velocity(vi, k)),
        }
    }

    fn sensors_of(robot: &Robot, touching: &[bool], vi: usize, pose: &VoxelPose) -> SensorReadings {
        let mat = &robot.voxels[vi].material;
        sensors::read(pose, mat.side, touching[vi], mat.preset.is_legacy())
    }

    fn read_voxel(robot: &Robot, touching: &[bool], vi: usize) -> SensorReadings {
        let squares = [0, 1, 2, 3].map(|k| robot.mass_square(vi, k));
        Self::sensors_of(robot, touching, vi, &Self::voxel_pose(robot, vi, &squares))
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

    /// The current state as plain data.
    pub fn snapshot(&mut self) -> Snapshot {
        self.refresh_touching();
        let detail = self.settings.detail;
        let robots = self
            .slots
            .iter()
            .map(|slot| {
                let r = &slot.robot;
                let voxels: Vec<VoxelSnapshot> = (0..r.voxels.len())
                    .map(|vi| {
                        let squares = [0, 1, 2, 3].map(|k| r.mass_square(vi, k));
                        // One pose per voxel feeds the geometry and the sensors alike.
                        let pose = Self::voxel_pose(r, vi, &squares);
                        let sensors = Self::sensors_of(r, &slot.touching, vi, &pose);
                        VoxelSnapshot {
                            cell: r.voxels[vi].cell,
                            masses: squares.map(|(c, _)| c),
                            outline: squares.map(|(_, o)| o),
                            center: pose.centres.iter().fold(V2::ZERO, |s, p| s + *p) * 0.25,
                            velocity: pose.velocities.iter().fold(V2::ZERO, |s, p| s + *p) * 0.25,
                            area_ratio: sensors.area_ratio,
                            control: r.control[vi],
                            raw_control: r.raw_control[vi],
                            touching: slot.touching[vi],
                            sensors,
                        }
                    })
                    .collect();
                let center = r.centre();
                let bbox =
                    crate::geom::Aabb::from_points(voxels.iter().flat_map(|vx| vx.masses.iter().flatten().copied()));
                RobotSnapshot {
                    id: r.id,
                    label: r.label.clone(),
                    grid: r.grid,
                    center,
                    bbox,
                    voxels,
                    springs: detail.springs.then(|| {
                        (0..r.springs.len())
                            .map(|si| {
                                let (a, b) = r.spring_anchors(si);
                                SpringSegment { a, b, group: r.group_of_spring(si) }
                            })
                            .collect()
                    }),
                    ropes: detail.ropes.then(|| {
                        r.ropes
                            .iter()
                            .map(|rope| {
                                let (a, b) =
                                    (r.mass_centre(rope.voxel, rope.mass_a), r.mass_centre(rope.voxel, rope.mass_b));
                                RopeSegment { a, b, active: rope.enabled }
                            })
                            .collect()
                    }),
                    welds: detail.welds.then(|| {
                        r.welds
                            .iter()
                            .map(|[(va, ma), (vb, mb)]| [r.mass_centre(*va, *ma), r.mass_centre(*vb, *mb)])
                            .collect()
                    }),
                    controller: if detail.controller {
                        slot.controller.as_ref().map(|c| {
                            c.io().unwrap_or_else(|| ControllerIo { inputs: vec![], outputs: slot.outputs.clone() })
                        })
                    } else {
                        None
                    },
                }
            })
            .collect();
        Snapshot {
            step: self.step,
            t: self.time(),
            robots,
            terrain: self.terrain.clone(),
            statics: self.statics.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::legacy_step_count;

    #[test]
    fn legacy_step_counts_of_the_released_code() {
        // spec §15 rows 10 and 15: 60 s gives 3601 steps; the dynamic load (t ≤ 0.1 s) acts for 7.
        assert_eq!(legacy_step_count(60.0, 1.0 / 60.0, false), 3601);
        assert_eq!(legacy_step_count(0.1, 1.0 / 60.0, true), 7);
        assert_eq!(legacy_step_count(0.0, 1.0 / 60.0, false), 0);
    }
}
