//! dyn4j 3.3.0's position pass over contacts (`SequentialImpulses.solvePositionContraints`), run after the
//! engine has integrated positions in `legacy-1.0` ([`super::world::EngineRules::Dyn4j`]):
//! each penetrating contact point is pushed apart by a pseudo-impulse that moves positions directly and
//! leaves velocities alone. dyn4j's velocity pass has no penetration bias: this pass is what keeps its
//! bodies out of the ground, without the push-off velocity a bias adds (issue 38; docs/model.md).
//!
//! dyn4j runs it island by island (bodies joined by contacts or joints; fixed bodies join nothing), and
//! each island stops iterating when its own contacts are shallow: a box landing far away must not give
//! a robot's contacts more iterations (issue 52).

use rapier2d::math::{Real, Rotation, Vector};
use rapier2d::prelude::*;

/// dyn4j's `Settings.DEFAULT_BAUMGARTE`: the fraction of the penetration removed per iteration.
const BAUMGARTE: Real = 0.2;
/// dyn4j's `Settings.DEFAULT_LINEAR_TOLERANCE`, m: the penetration left alone.
const LINEAR_TOLERANCE: Real = 0.005;
/// dyn4j's `Settings.DEFAULT_MAXIMUM_LINEAR_CORRECTION`, m: the largest correction of one iteration.
const MAX_LINEAR_CORRECTION: Real = 0.2;
/// dyn4j's `Settings.DEFAULT_POSITION_CONSTRAINT_SOLVER_ITERATIONS`.
const ITERATIONS: usize = 10;

/// A dynamic body while the pass moves it: its world centre of mass and rotation, and the inverse
/// inertia m / I of dyn4j's pass, which gives every dynamic body an inverse mass of 1.
struct Moving {
    handle: RigidBodyHandle,
    com: Vector,
    rotation: Rotation,
    local_com: Vector,
    inv_inertia: Real,
    moved: bool,
}

/// A contact point: per side the index of its body in `moving` (`None` for a fixed side) and its anchor
/// (about the centre of mass in the body's frame for a moving side, in the world for a fixed one), the
/// manifold's normal from side 1 to side 2, and the accumulated position impulse, kept ≥ 0 as in dyn4j.
#[derive(Clone)]
struct Point {
    bodies: [Option<usize>; 2],
    anchors: [Vector; 2],
    normal: Vector,
    impulse: Real,
}

/// The pass, with its buffers kept from step to step.
#[derive(Default)]
pub(crate) struct ContactProjection {
    moving: Vec<Moving>,
    points: Vec<Point>,
    /// Index in `moving` of each rigid body, by the handle's arena index (`usize::MAX`: not gathered).
    slot: Vec<usize>,
    /// Per rigid body (arena index), a representative of the bodies its joints connect it to, and the
    /// (bodies, joints) counts it was worked out for: vsr2d adds joints only while it builds a world.
    joint_root: Vec<usize>,
    joint_root_of: (usize, usize),
    /// Per moving body, its island's parent in a union-find; per point, its island's first point.
    island_parent: Vec<usize>,
    island_of_point: Vec<usize>,
    /// Scratch: per joint root, its first moving body; per island, its first point (`usize::MAX`: none).
    first_of_root: Vec<usize>,
    first_point: Vec<usize>,
}

/// The representative of `i` in a union-find forest, halving the path on the way.
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Joins the sets of `a` and `b`, keeping the smaller representative.
fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    parent[ra.max(rb)] = ra.min(rb);
}

impl ContactProjection {
    /// Runs the pass over the contacts the engine solved this step and writes the moved poses back.
    pub fn run(&mut self, physics: &mut PhysicsWorld) {
        self.gather(physics);
        if self.points.is_empty() {
            return;
        }
        self.find_islands(physics);
        if self.island_of_point.iter().all(|&i| i == 0) {
            Self::solve(&mut self.points, &mut self.moving);
        } else {
            // Each island's points in their order, the islands one after the other.
            let mut order: Vec<usize> = (0..self.points.len()).collect();
            order.sort_by_key(|&k| self.island_of_point[k]);
            let mut points: Vec<Point> = order.iter().map(|&k| self.points[k].clone()).collect();
            let mut start = 0;
            while start < points.len() {
                let island = self.island_of_point[order[start]];
                let end = start + order[start..].iter().take_while(|&&k| self.island_of_point[k] == island).count();
                Self::solve(&mut points[start..end], &mut self.moving);
                start = end;
            }
        }
        for m in self.moving.iter().filter(|m| m.moved) {
            let translation = m.com - m.rotation * m.local_com;
            physics.bodies[m.handle].set_position(Pose::from_parts(translation, m.rotation), false);
        }
    }

    fn gather(&mut self, physics: &PhysicsWorld) {
        for m in self.moving.drain(..) {
            self.slot[m.handle.0.into_raw_parts().0 as usize] = usize::MAX;
        }
        self.points.clear();
        // In the colliders' order, not the contact graph's: rapier renumbers its pairs when one ends, so
        // the graph's order of the robot's pairs depends on pairs elsewhere (a box landing far away).
        let mut pairs: Vec<_> = physics.narrow_phase.contact_pairs().collect();
        pairs.sort_unstable_by_key(|pair| {
            let (c1, c2) = (pair.collider1.into_raw_parts().0, pair.collider2.into_raw_parts().0);
            (c1.min(c2), c1.max(c2))
        });
        for pair in pairs {
            for manifold in pair.manifolds() {
                let handles = [manifold.data.rigid_body1, manifold.data.rigid_body2];
                let bodies = handles.map(|h| h.map(|h| (h, &physics.bodies[h])));
                // Kinematic plates are not in the legacy model; a pair with one is left to the engine.
                if bodies.iter().flatten().any(|(_, rb)| rb.is_kinematic()) {
                    continue;
                }
                // A side the solver holds in world space (fixed; asleep, though vsr2d's bodies never
                // sleep) has a world-space anchor and does not move.
                let moves = |rb: &RigidBody| rb.is_dynamic() && !rb.is_sleeping();
                let sides = bodies.map(|b| b.filter(|(_, rb)| moves(rb)).map(|(h, rb)| self.slot_of(h, rb)));
                if sides == [None, None] {
                    continue;
                }
                for contact in &manifold.data.solver_contacts {
                    self.points.push(Point {
                        bodies: sides,
                        anchors: [contact.anchor1, contact.anchor2],
                        normal: manifold.data.normal,
                        impulse: 0.0,
                    });
                }
            }
        }
    }

    /// `island_of_point`: for each point, the index of the first point of its island (0 for the first
    /// island), joining moving bodies through joints and through the points themselves.
    fn find_islands(&mut self, physics: &PhysicsWorld) {
        let counts = (physics.bodies.len(), physics.impulse_joints.len());
        if self.joint_root_of != counts || self.joint_root.is_empty() {
            let arena = physics.bodies.iter().map(|(h, _)| h.0.into_raw_parts().0 as usize + 1).max().unwrap_or(0);
            self.joint_root = (0..arena).collect();
            for (_, joint) in physics.impulse_joints.iter() {
                let ends =
                    [joint.body1(), joint.body2()].map(|h| (h.0.into_raw_parts().0 as usize, &physics.bodies[h]));
                if ends.iter().all(|(_, rb)| rb.is_dynamic()) {
                    union(&mut self.joint_root, ends[0].0, ends[1].0);
                }
            }
            // Flattened once, so that each step reads a body's root directly.
            for i in 0..self.joint_root.len() {
                self.joint_root[i] = find(&mut self.joint_root, i);
            }
            self.joint_root_of = counts;
        }
        // Moving bodies joined by joints share a root; map each root to its first moving body.
        self.island_parent.clear();
        self.island_parent.extend(0..self.moving.len());
        for (i, m) in self.moving.iter().enumerate() {
            let index = m.handle.0.into_raw_parts().0 as usize;
            let root = self.joint_root.get(index).copied().unwrap_or(index);
            if root >= self.first_of_root.len() {
                self.first_of_root.resize(root + 1, usize::MAX);
            }
            match self.first_of_root[root] {
                usize::MAX => self.first_of_root[root] = i,
                first => union(&mut self.island_parent, first, i),
            }
        }
        for m in &self.moving {
            let index = m.handle.0.into_raw_parts().0 as usize;
            let root = self.joint_root.get(index).copied().unwrap_or(index);
            self.first_of_root[root] = usize::MAX;
        }
        for point in &self.points {
            if let [Some(a), Some(b)] = point.bodies {
                union(&mut self.island_parent, a, b);
            }
        }
        // Islands are named by their first point; `first_point` is indexed by the island's moving body.
        self.first_point.clear();
        self.first_point.resize(self.moving.len(), usize::MAX);
        self.island_of_point.clear();
        for (k, point) in self.points.iter().enumerate() {
            let body = point.bodies[0].or(point.bodies[1]).expect("a point has a moving side");
            let island = find(&mut self.island_parent, body);
            if self.first_point[island] == usize::MAX {
                self.first_point[island] = k;
            }
            self.island_of_point.push(self.first_point[island]);
        }
    }

    fn slot_of(&mut self, handle: RigidBodyHandle, rb: &RigidBody) -> usize {
        let index = handle.0.into_raw_parts().0 as usize;
        if index >= self.slot.len() {
            self.slot.resize(index + 1, usize::MAX);
        }
        if self.slot[index] == usize::MAX {
            let mprops = &rb.mass_properties().local_mprops;
            self.slot[index] = self.moving.len();
            self.moving.push(Moving {
                handle,
                com: rb.center_of_mass(),
                rotation: rb.position().rotation,
                local_com: mprops.local_com,
                inv_inertia: mprops.mass() * mprops.inv_principal_inertia,
                moved: false,
            });
        }
        self.slot[index]
    }

    /// dyn4j's iterations: Gauss-Seidel over the points, until no point is deeper than three times the
    /// tolerance or the iterations run out.
    fn solve(points: &mut [Point], moving: &mut [Moving]) {
        for _ in 0..ITERATIONS {
            let mut min_separation: Real = 0.0;
            for point in points.iter_mut() {
                let side = |s: usize, moving: &[Moving]| match point.bodies[s] {
                    Some(i) => {
                        let arm = moving[i].rotation * point.anchors[s];
                        (moving[i].com + arm, arm, 1.0, moving[i].inv_inertia)
                    }
                    None => (point.anchors[s], Vector::ZERO, 0.0, 0.0),
                };
                let (p1, r1, im1, ii1) = side(0, moving);
                let (p2, r2, im2, ii2) = side(1, moving);
                let n = point.normal;
                let separation = (p2 - p1).dot(n);
                min_separation = min_separation.min(separation);
                let correction = BAUMGARTE * (separation + LINEAR_TOLERANCE).clamp(-MAX_LINEAR_CORRECTION, 0.0);
                let (rn1, rn2) = (r1.perp_dot(n), r2.perp_dot(n));
                let k = im1 + im2 + ii1 * rn1 * rn1 + ii2 * rn2 * rn2;
                if k <= Real::EPSILON {
                    continue;
                }
                let previous = point.impulse;
                point.impulse = (previous - correction / k).max(0.0);
                if point.impulse == previous {
                    continue;
                }
                let j = n * (point.impulse - previous);
                if let Some(i) = point.bodies[0] {
                    let m = &mut moving[i];
                    m.com -= j * im1;
                    m.rotation = Rotation::new(-ii1 * r1.perp_dot(j)) * m.rotation;
                    m.moved = true;
                }
                if let Some(i) = point.bodies[1] {
                    let m = &mut moving[i];
                    m.com += j * im2;
                    m.rotation = Rotation::new(ii2 * r2.perp_dot(j)) * m.rotation;
                    m.moved = true;
                }
            }
            if min_separation >= -3.0 * LINEAR_TOLERANCE {
                break;
            }
        }
    }
}
