//! A voxel robot in the world: its structure in the engine (`structure`), its controller, its sensors
//! and its snapshot.

mod structure;

pub use structure::{spring_joint, RobotOptions, Welds};

use rapier2d::prelude::PhysicsWorld;

use super::body::SimBody;
use super::tag::ColliderTag;
use super::SimError;
use crate::controller::{Controller, ControllerIo};
use crate::geom::{Aabb, Vec2};
use crate::model::voxel::grid::{BodyGrid, Palette};
use crate::model::voxel::morphology::Morphology;
use crate::model::voxel::sensors::{self, SensorReadings, VoxelPose};
use crate::model::voxel::SpringGroup;
use crate::snapshot::{
    BodyId, BodySnapshot, RopeSegment, SnapshotDetail, SpringSegment, VoxelRobotSnapshot, VoxelSnapshot,
};
use structure::Robot;

/// A voxel robot and what drives it.
pub(crate) struct VoxelRobot {
    robot: Robot,
    controller: Option<Box<dyn Controller>>,
    readings: Vec<SensorReadings>,
    outputs: Vec<f64>,
    touching: Vec<bool>,
    /// Whether any voxel touches the terrain, a wall or a fixed object (as of the last contact refresh).
    touching_ground: bool,
    /// The body grid's morphology descriptors, computed once at build.
    morphology: Morphology,
    /// The body's material names and each voxel's index into them (display only: physics reads `robot`).
    palette: Palette,
}

/// Which masses of one voxel robot may touch each other (spec §6).
pub(crate) struct VoxelSelfContact {
    self_collisions: bool,
    /// Per voxel: its diagonal masses collide (legacy without the central cross).
    diagonal: Vec<bool>,
    /// Cluster of welded masses per 4·voxel + mass: welded masses never collide.
    cluster_of: Vec<usize>,
}

impl VoxelSelfContact {
    pub fn allows(&self, a: ColliderTag, b: ColliderTag) -> bool {
        if a.part == b.part {
            self.diagonal[a.part] && a.piece.abs_diff(b.piece) == 2
        } else {
            self.self_collisions && self.cluster_of[4 * a.part + a.piece] != self.cluster_of[4 * b.part + b.piece]
        }
    }
}

impl VoxelRobot {
    /// Builds `grid` into `physics` with its bottom-left corner at `origin`.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        physics: &mut PhysicsWorld,
        id: BodyId,
        label: String,
        grid: &BodyGrid,
        origin: Vec2,
        options: RobotOptions,
        welds: Welds,
        dt: f64,
        controller: Option<Box<dyn Controller>>,
    ) -> (VoxelRobot, VoxelSelfContact) {
        let robot = Robot::build(physics, id, label, grid, origin, options, welds, dt);
        let contact = VoxelSelfContact {
            self_collisions: options.self_collisions,
            diagonal: robot
                .voxels
                .iter()
                .map(|vx| {
                    vx.material.preset.is_legacy() && !vx.material.scaffolding.contains(SpringGroup::CentralCross)
                })
                .collect(),
            cluster_of: robot.cluster_of.clone(),
        };
        let n = robot.voxels.len();
        let body = VoxelRobot {
            robot,
            controller,
            readings: vec![SensorReadings::default(); n],
            outputs: vec![0.0; n],
            touching: vec![false; n],
            touching_ground: false,
            morphology: Morphology::of(grid),
            palette: grid.palette(),
        };
        (body, contact)
    }

    /// The morphology descriptors of the body grid it was built from.
    pub fn morphology(&self) -> &Morphology {
        &self.morphology
    }

    /// Centre of voxel `vi` (mean of its mass centres).
    pub fn voxel_centre(&self, vi: usize) -> Vec2 {
        self.robot.voxel_centre(vi)
    }

    /// The pose of voxel `vi`, given its mass squares (corners, outer corner) already computed.
    fn voxel_pose(&self, vi: usize, squares: &[([Vec2; 4], Vec2); 4]) -> VoxelPose {
        VoxelPose {
            centres: [0, 1, 2, 3].map(|k| self.robot.mass_centre(vi, k)),
            outer_corners: squares.map(|(_, outer)| outer),
            velocities: [0, 1, 2, 3].map(|k| self.robot.mass_velocity(vi, k)),
        }
    }

    fn sensors_of(&self, vi: usize, pose: &VoxelPose) -> SensorReadings {
        let mat = &self.robot.voxels[vi].material;
        sensors::read(pose, mat.side, self.touching[vi], mat.preset.is_legacy())
    }

    fn read_voxel(&self, vi: usize) -> SensorReadings {
        let squares = [0, 1, 2, 3].map(|k| self.robot.mass_square(vi, k));
        self.sensors_of(vi, &self.voxel_pose(vi, &squares))
    }
}

impl SimBody for VoxelRobot {
    fn needs_sensors(&self) -> bool {
        self.controller.as_ref().is_some_and(|c| c.needs_sensors())
    }

    fn sensor_readings(&self) -> Vec<SensorReadings> {
        (0..self.robot.voxels.len()).map(|vi| self.read_voxel(vi)).collect()
    }

    fn control(&mut self, physics: &mut PhysicsWorld, t: f64) -> Result<(), SimError> {
        if self.controller.is_none() {
            return Ok(());
        }
        if self.needs_sensors() {
            for vi in 0..self.robot.voxels.len() {
                self.readings[vi] = self.read_voxel(vi);
            }
        }
        self.outputs.iter_mut().for_each(|o| *o = 0.0);
        if let Some(controller) = self.controller.as_mut() {
            controller.control(t, &self.readings, &mut self.outputs);
        }
        if self.outputs.len() != self.robot.voxels.len() {
            return Err(SimError::ControllerOutput {
                robot: self.robot.id,
                got: self.outputs.len(),
                expected: self.robot.voxels.len(),
            });
        }
        self.robot.apply_control(physics, &self.outputs);
        Ok(())
    }

    fn apply_actuation_forces(&self, physics: &mut PhysicsWorld) -> bool {
        self.robot.apply_force_actuation(physics)
    }

    fn push(&self, physics: &mut PhysicsWorld, part: usize, piece: usize, force: Vec2) {
        self.robot.push_mass(physics, part, piece, force)
    }

    fn before_step(&mut self, physics: &mut PhysicsWorld, dt: f64) {
        self.robot.update_ropes(physics, dt);
        self.robot.update_legacy_spring_laws(physics);
    }

    fn reset_forces(&self, physics: &mut PhysicsWorld) {
        self.robot.reset_forces(physics)
    }

    fn read_state(&mut self, physics: &PhysicsWorld) {
        self.robot.read_state(physics)
    }

    fn instability(&self, speed_limit: f64) -> Option<String> {
        for (bi, s) in self.robot.states.iter().enumerate() {
            if !(s.origin.is_finite() && s.linvel.is_finite() && s.angvel.is_finite()) {
                return Some(format!("robot {} body {bi} has a non-finite state", self.robot.id));
            }
            // Squared, without `hypot`: this runs every step for every body, and only the verdict
            // (far from any rounding) depends on it.
            if s.linvel.dot(s.linvel) >= speed_limit * speed_limit {
                return Some(format!(
                    "robot {} body {bi} reached the engine's speed limit ({:.0} m/s): the state is exploding",
                    self.robot.id,
                    s.linvel.length()
                ));
            }
        }
        None
    }

    fn clear_touching(&mut self) {
        self.touching.iter_mut().for_each(|t| *t = false);
        self.touching_ground = false;
    }

    fn mark_touching(&mut self, part: usize) {
        self.touching[part] = true;
    }

    fn mark_touching_ground(&mut self) {
        self.touching_ground = true;
    }

    fn touching_any(&self) -> bool {
        self.touching.iter().any(|t| *t)
    }

    fn touching_ground(&self) -> bool {
        self.touching_ground
    }

    fn outline_points(&self) -> Vec<Vec2> {
        let r = &self.robot;
        (0..r.voxels.len()).flat_map(|vi| [0, 1, 2, 3].map(|k| r.mass_square(vi, k).1)).collect()
    }

    fn snapshot(&self, detail: SnapshotDetail) -> BodySnapshot {
        let r = &self.robot;
        let voxels: Vec<VoxelSnapshot> = (0..r.voxels.len())
            .map(|vi| {
                let squares = [0, 1, 2, 3].map(|k| r.mass_square(vi, k));
                // One pose per voxel feeds the geometry and the sensors alike.
                let pose = self.voxel_pose(vi, &squares);
                let sensors = self.sensors_of(vi, &pose);
                VoxelSnapshot {
                    cell: r.voxels[vi].cell,
                    masses: squares.map(|(c, _)| c),
                    outline: squares.map(|(_, o)| o),
                    center: pose.centres.iter().fold(Vec2::ZERO, |s, p| s + *p) * 0.25,
                    velocity: pose.velocities.iter().fold(Vec2::ZERO, |s, p| s + *p) * 0.25,
                    area_ratio: sensors.area_ratio,
                    control: r.control[vi],
                    raw_control: r.raw_control[vi],
                    touching: self.touching[vi],
                    sensors,
                    material: self.palette.of_voxel.get(vi).copied().unwrap_or(0),
                }
            })
            .collect();
        let bbox = Aabb::from_points(voxels.iter().flat_map(|vx| vx.masses.iter().flatten().copied()));
        BodySnapshot::VoxelRobot(VoxelRobotSnapshot {
            id: r.id,
            label: r.label.clone(),
            grid: r.grid,
            center: r.centre(),
            bbox,
            voxels,
            touching_ground: self.touching_ground,
            materials: self.palette.names.clone(),
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
                        let (a, b) = (r.mass_centre(rope.voxel, rope.mass_a), r.mass_centre(rope.voxel, rope.mass_b));
                        RopeSegment { a, b, active: rope.enabled }
                    })
                    .collect()
            }),
            welds: detail.welds.then(|| {
                r.welds.iter().map(|[(va, ma), (vb, mb)]| [r.mass_centre(*va, *ma), r.mass_centre(*vb, *mb)]).collect()
            }),
            controller: if detail.controller {
                self.controller.as_ref().map(|c| {
                    c.io().unwrap_or_else(|| ControllerIo {
                        inputs: vec![],
                        outputs: self.outputs.clone(),
                        signals: None,
                    })
                })
            } else {
                None
            },
        })
    }

    fn label(&self) -> &str {
        &self.robot.label
    }

    fn centre(&self) -> Vec2 {
        self.robot.centre()
    }

    fn centre_and_bbox(&self) -> (Vec2, Aabb) {
        self.robot.centre_and_bbox()
    }

    fn actuators(&self) -> usize {
        self.robot.voxels.len()
    }

    fn grid_cells(&self) -> usize {
        (self.robot.grid[0] * self.robot.grid[1]) as usize
    }

    fn controls(&self) -> (&[f64], &[f64]) {
        (&self.robot.control, &self.robot.raw_control)
    }

    fn kinetic_energy(&self, physics: &PhysicsWorld) -> f64 {
        self.robot.kinetic_energy(physics)
    }

    fn set_velocity(&mut self, physics: &mut PhysicsWorld, velocity: Vec2) {
        self.robot.set_velocity(physics, velocity);
        self.robot.read_state(physics);
    }
}
