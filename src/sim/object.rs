//! A rigid object as a body of the world: one rapier body with one box collider, fixed, free, or hinged
//! at its centre to a fixed pivot. A moving object's collider is tagged, so contacts with it are seen like
//! a robot's; a fixed one is ground, like the terrain.

use rapier2d::prelude::*;

use super::body::SimBody;
use super::tag::ColliderTag;
use super::v;
use crate::geom::{Aabb, Vec2};
use crate::model::object::{ObjectMotion, ObjectSpec};
use crate::snapshot::{BodyId, BodySnapshot, ObjectSnapshot, ObjectState, SnapshotDetail};

pub(crate) struct RigidObject {
    id: BodyId,
    label: String,
    motion: ObjectMotion,
    half: Vec2,
    handle: RigidBodyHandle,
    centre: Vec2,
    angle: f64,
    velocity: Vec2,
    touching: bool,
    touching_ground: bool,
    /// The other bodies it touches (robots, cells, moving objects), in the order contacts were seen.
    touching_bodies: Vec<BodyId>,
}

impl RigidObject {
    pub fn build(physics: &mut PhysicsWorld, id: BodyId, label: String, spec: &ObjectSpec) -> RigidObject {
        let builder = match spec.motion {
            ObjectMotion::Fixed => RigidBodyBuilder::fixed(),
            // Objects never sleep: a resting box must feel a robot that walks into it at once.
            ObjectMotion::Dynamic | ObjectMotion::Hinged => RigidBodyBuilder::dynamic().can_sleep(false),
        };
        let centre = spec.centre();
        let handle = physics.bodies.insert(
            builder
                .translation(v(centre))
                .rotation(spec.angle as Real)
                .linvel(v(Vec2::new(spec.velocity[0], spec.velocity[1]))),
        );
        let half = Vec2::new(spec.size[0] * 0.5, spec.size[1] * 0.5);
        let mut collider = ColliderBuilder::cuboid(half.x as Real, half.y as Real)
            .mass(spec.mass as Real)
            .friction(spec.friction as Real)
            .friction_combine_rule(CoefficientCombineRule::GeometricMean)
            .restitution(0.0)
            .restitution_combine_rule(CoefficientCombineRule::Max);
        // A fixed object is ground like the terrain: untagged, so what touches it is touching the ground.
        if spec.motion != ObjectMotion::Fixed {
            collider = collider.user_data(ColliderTag { body: id, part: 0, piece: 0 }.encode());
        }
        physics.colliders.insert_with_parent(collider, handle, &mut physics.bodies);
        if spec.motion == ObjectMotion::Hinged {
            let pivot = physics.bodies.insert(RigidBodyBuilder::fixed().translation(v(centre)));
            let mut joint = RevoluteJointBuilder::new().contacts_enabled(false);
            if spec.hinge_stiffness > 0.0 || spec.hinge_damping > 0.0 {
                // A torsion spring towards the angle at t = 0, in absolute units (N·m/rad).
                joint = joint.motor_model(MotorModel::ForceBased).motor_position(
                    spec.angle as Real,
                    spec.hinge_stiffness as Real,
                    spec.hinge_damping as Real,
                );
            }
            physics.impulse_joints.insert(pivot, handle, joint, true);
        }
        let mut object = RigidObject {
            id,
            label,
            motion: spec.motion,
            half,
            handle,
            centre,
            angle: spec.angle,
            velocity: Vec2::ZERO,
            touching: false,
            touching_ground: false,
            touching_bodies: Vec::new(),
        };
        object.read_state(physics);
        object
    }

    fn outline(&self) -> Vec<Vec2> {
        let (s, c) = self.angle.sin_cos();
        let (hx, hy) = (self.half.x, self.half.y);
        [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
            .into_iter()
            .map(|(x, y)| self.centre + Vec2::new(c * x - s * y, s * x + c * y))
            .collect()
    }
}

impl SimBody for RigidObject {
    fn push(&self, physics: &mut PhysicsWorld, _part: usize, _piece: usize, force: Vec2) {
        if let Some(rb) = physics.bodies.get_mut(self.handle) {
            rb.add_force(v(force), true);
        }
    }
    fn before_step(&mut self, _physics: &mut PhysicsWorld, _dt: f64) {}
    fn reset_forces(&self, physics: &mut PhysicsWorld) {
        if let Some(rb) = physics.bodies.get_mut(self.handle) {
            rb.reset_forces(false);
        }
    }
    fn read_state(&mut self, physics: &PhysicsWorld) {
        let rb = &physics.bodies[self.handle];
        let t = rb.position().translation;
        let lv = rb.linvel();
        self.centre = Vec2::new(t.x as f64, t.y as f64);
        self.angle = rb.position().rotation.angle() as f64;
        self.velocity = Vec2::new(lv.x as f64, lv.y as f64);
    }
    fn instability(&self, speed_limit: f64) -> Option<String> {
        if !(self.centre.is_finite() && self.velocity.is_finite() && self.angle.is_finite()) {
            return Some(format!("object {} has a non-finite state", self.label));
        }
        (self.velocity.length() >= speed_limit)
            .then(|| format!("object {} reached the engine's speed limit", self.label))
    }
    fn clear_touching(&mut self) {
        self.touching = false;
        self.touching_ground = false;
        self.touching_bodies.clear();
    }
    fn mark_touching(&mut self, _part: usize) {
        self.touching = true;
    }
    fn mark_touching_ground(&mut self) {
        self.touching_ground = true;
    }
    fn mark_touching_body(&mut self, other: BodyId) {
        if !self.touching_bodies.contains(&other) {
            self.touching_bodies.push(other);
        }
    }
    fn touches_body(&self, other: BodyId) -> bool {
        self.touching_bodies.contains(&other)
    }
    fn snapshot(&self, _detail: SnapshotDetail) -> BodySnapshot {
        let outline = self.outline();
        BodySnapshot::Object(ObjectSnapshot {
            id: self.id,
            label: self.label.clone(),
            motion: self.motion,
            bbox: Aabb::from_points(outline.iter().copied()),
            outline,
            center: self.centre,
            angle: self.angle,
            velocity: self.velocity,
            touching: self.touching,
            touching_ground: self.touching_ground,
            touching_bodies: self.touching_bodies.clone(),
        })
    }
    fn label(&self) -> &str {
        &self.label
    }
    fn centre(&self) -> Vec2 {
        self.centre
    }
    fn centre_and_bbox(&self) -> (Vec2, Aabb) {
        (self.centre, Aabb::from_points(self.outline()))
    }
    fn kinetic_energy(&self, physics: &PhysicsWorld) -> f64 {
        let rb = &physics.bodies[self.handle];
        let lv = rb.linvel();
        let (m, w) = (rb.mass() as f64, rb.angvel() as f64);
        let inertia = m * (self.half.x * self.half.x + self.half.y * self.half.y) / 3.0;
        0.5 * m * (lv.x as f64).hypot(lv.y as f64).powi(2) + 0.5 * inertia * w * w
    }
    fn set_velocity(&mut self, physics: &mut PhysicsWorld, velocity: Vec2) {
        if let Some(rb) = physics.bodies.get_mut(self.handle) {
            if rb.is_dynamic() {
                rb.set_linvel(v(velocity), true);
            }
        }
        self.read_state(physics);
    }
    fn touching_any(&self) -> bool {
        self.touching
    }
    fn touching_ground(&self) -> bool {
        self.touching_ground
    }
    fn object_state(&self) -> Option<ObjectState> {
        Some(ObjectState { angle: self.angle, touching_ground: self.touching_ground })
    }
    fn outline_points(&self) -> Vec<Vec2> {
        self.outline()
    }
}
