//! A voxel robot's structure in the physics engine: welded masses merged into one rigid body per cluster (or,
//! as a cross-check, one body per mass with fixed joints), springs as implicit force-based joints whose
//! stiffness comes from their own corner masses, ropes as distance limits plus a one-sided motor
//! (spec §2–§6), and the per-mass read-outs the sensors and snapshots need.

use rapier2d::prelude::*;

use crate::geom::{Aabb, Vec2 as V2};
use crate::model::voxel::geometry::{self as voxel, SpringDef, NE, NW, SE, SW};
use crate::model::voxel::grid::BodyGrid;
use crate::model::voxel::material::{ActuationMode, Material};
use crate::model::voxel::scaffolding::SpringGroup;
use crate::sim::tag::ColliderTag;
use crate::sim::v;
use crate::snapshot::BodyId;

/// Stiffness of the rope lower-bound motor: 60 Hz, critically damped (spec §4).
const ROPE_MOTOR_HZ: f64 = 60.0;

/// Where a mass sits: on which cluster body, at which offset from the body origin.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MassRef {
    pub body: usize,
    pub offset: V2,
}

#[derive(Debug, Clone)]
pub(crate) struct VoxelRef {
    pub cell: [u32; 2],
    pub material: Material,
    pub masses: [MassRef; 4],
    pub springs: std::ops::Range<usize>,
}

#[derive(Debug, Clone)]
pub(crate) struct SpringRef {
    pub joint: ImpulseJointHandle,
    pub def: SpringDef,
    pub voxel: usize,
    /// The coincident spring of a welded neighbour that shares this spring's joint, if any.
    pub partner: Option<usize>,
    /// This spring's own rest-length target (m), set by its voxel's control.
    pub target: f64,
    /// Its two ends: per end the index of the body and the anchor in the body's frame.
    pub ends: [(usize, V2); 2],
}

#[derive(Debug, Clone)]
pub(crate) struct RopeRef {
    pub joint: ImpulseJointHandle,
    pub voxel: usize,
    pub mass_a: usize,
    pub mass_b: usize,
    pub min: f64,
    /// Upper bound, `None` in `legacy-1.0` (the released code had none).
    pub max: Option<f64>,
    /// The lower-bound motor is on for this step.
    pub motor_on: bool,
    /// The joint takes part in this step's solve (a bound is, or is about to be, reached).
    pub enabled: bool,
}

/// The kinematic state of one cluster body, read once per step in f64.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BodyState {
    pub origin: V2,
    pub cos: f64,
    pub sin: f64,
    pub com: V2,
    pub linvel: V2,
    pub angvel: f64,
}

impl BodyState {
    pub fn rotate(&self, p: V2) -> V2 {
        V2::new(self.cos * p.x - self.sin * p.y, self.sin * p.x + self.cos * p.y)
    }
    pub fn point(&self, local: V2) -> V2 {
        self.origin + self.rotate(local)
    }
    pub fn velocity_at(&self, p: V2) -> V2 {
        let r = p - self.com;
        self.linvel + V2::new(-self.angvel * r.y, self.angvel * r.x)
    }
}

/// How welded masses are simulated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Welds {
    /// One rigid body per cluster of welded masses: ideal welds, and the fast path.
    #[default]
    Merged,
    /// One body per corner mass, welds as rapier fixed joints (a spanning tree of each cluster's welds):
    /// the slower second way of computing the same thing, to cross-check the merged clusters.
    Joints,
}

/// Options for building a robot.
#[derive(Debug, Clone, Copy)]
pub struct RobotOptions {
    /// Masses of different voxels of this robot that are not welded collide.
    pub self_collisions: bool,
    /// Make the clusters on the body's left face part of the static world (cantilever wall).
    pub pin_left_face: bool,
    /// Solve two coincident springs (the side-external springs of a side shared by welded
    /// neighbours: same bodies, same anchors) as one joint of summed stiffness and damping at the
    /// stiffness-weighted mean target: the same force law with one joint fewer. `false` solves each
    /// spring as its own joint (the slower cross-check).
    pub merge_coincident_springs: bool,
}

impl Default for RobotOptions {
    fn default() -> Self {
        RobotOptions { self_collisions: true, pin_left_face: false, merge_coincident_springs: true }
    }
}

/// A robot living in a physics world.
pub(crate) struct Robot {
    pub id: BodyId,
    pub label: String,
    pub bodies: Vec<RigidBodyHandle>,
    pub voxels: Vec<VoxelRef>,
    pub springs: Vec<SpringRef>,
    pub ropes: Vec<RopeRef>,
    /// Welded mass pairs as (voxel, mass) pairs.
    pub welds: Vec<[(usize, usize); 2]>,
    /// Cluster of welded masses of each (voxel, mass), indexed 4·voxel + mass: masses of one cluster
    /// never collide (they are one body when merged, jointed bodies otherwise).
    pub cluster_of: Vec<usize>,
    /// Current clipped control value per voxel.
    pub control: Vec<f64>,
    /// The raw controller outputs behind `control`.
    pub raw_control: Vec<f64>,
    /// Size of the body grid.
    pub grid: [u32; 2],
    /// Control value the spring targets were last set for (area mode), per voxel.
    applied: Vec<Option<f64>>,
    /// Some voxel is `legacy-1.0`: its springs' laws follow the pose, set before every step.
    per_pose_laws: bool,
    /// Per voxel, what its springs' per-pose laws need of its material: the corner mass as a free body
    /// and (ω², 2ζω) (empty without per-pose laws).
    pose_law_materials: Vec<(voxel::CornerInertia, (f64, f64))>,
    /// Scratch of the per-pose laws: every mass centre (4·voxel + mass) in this step's pose.
    pose_law_centres: Vec<V2>,
    /// Cached body states, refreshed by [`Robot::read_state`].
    pub states: Vec<BodyState>,
}

/// Union-find over the (voxel, mass) corners meeting at lattice vertices.
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

impl Robot {
    /// Builds `body` with its bottom-left corner at `origin` (world coordinates).
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        physics: &mut PhysicsWorld,
        id: BodyId,
        label: String,
        body: &BodyGrid,
        origin: V2,
        options: RobotOptions,
        welds_as: Welds,
        dt: f64,
    ) -> Robot {
        let l = body.side();
        let cells: Vec<([u32; 2], Material)> = body.voxels().map(|(c, m)| (c, *m)).collect();
        let index_of = |x: u32, y: u32| cells.iter().position(|(c, _)| *c == [x, y]);
        let n = cells.len();

        // Weld masses across every shared edge; clusters are the connected components.
        let mut parent: Vec<usize> = (0..4 * n).collect();
        let mut welds = Vec::new();
        for (i, ([x, y], _)) in cells.iter().enumerate() {
            if let Some(j) = index_of(x + 1, *y) {
                welds.push([(i, SE), (j, SW)]);
                welds.push([(i, NE), (j, NW)]);
            }
            if let Some(j) = index_of(*x, y + 1) {
                welds.push([(i, NW), (j, SW)]);
                welds.push([(i, NE), (j, SE)]);
            }
        }
        for [(a, ma), (b, mb)] in &welds {
            let (ra, rb) = (find(&mut parent, 4 * a + ma), find(&mut parent, 4 * b + mb));
            parent[ra.max(rb)] = ra.min(rb);
        }

        // World position of every mass centre at rest.
        let centre_of = |i: usize, k: usize| {
            let ([x, y], mat) = &cells[i];
            let c = origin + V2::new((*x as f64 + 0.5) * l, (*y as f64 + 0.5) * l);
            c + voxel::mass_offset(mat, k)
        };

        // Clusters in order of first appearance (grid order, then mass order).
        let mut cluster_of = vec![usize::MAX; 4 * n];
        let mut clusters: Vec<Vec<usize>> = Vec::new();
        for slot in 0..4 * n {
            let root = find(&mut parent, slot);
            if cluster_of[root] == usize::MAX {
                cluster_of[root] = clusters.len();
                clusters.push(Vec::new());
            }
            cluster_of[slot] = cluster_of[root];
            clusters[cluster_of[root]].push(slot);
        }
        // One rigid body per cluster, or per mass when welds are joints.
        let body_members: Vec<Vec<usize>> = match welds_as {
            Welds::Merged => clusters,
            Welds::Joints => (0..4 * n).map(|slot| vec![slot]).collect(),
        };

        let mut bodies = Vec::with_capacity(body_members.len());
        let mut mass_refs = vec![MassRef { body: 0, offset: V2::ZERO }; 4 * n];
        for (ci, members) in body_members.iter().enumerate() {
            let centre = members.iter().fold(V2::ZERO, |s, &slot| s + centre_of(slot / 4, slot % 4))
                * (1.0 / members.len() as f64);
            let materials: Vec<&Material> = members.iter().map(|&s| &cells[s / 4].1).collect();
            // Welded masses of different materials share one body: it takes their mean damping.
            let mean =
                |f: &dyn Fn(&Material) -> f64| materials.iter().map(|m| f(m)).sum::<f64>() / materials.len() as f64;
            let lin_d = mean(&|m| damping_for_engine(m, m.linear_damping, dt));
            let ang_d = mean(&|m| damping_for_engine(m, m.angular_damping, dt));
            // The cantilever wall: clusters on the left face become static.
            let pinned = options.pin_left_face
                && members.iter().all(|&s| cells[s / 4].0[0] == 0 && (s % 4 == SW || s % 4 == NW));
            let builder = if pinned { RigidBodyBuilder::fixed() } else { RigidBodyBuilder::dynamic() };
            let handle = physics.bodies.insert(
                builder
                    .translation(v(centre))
                    .linear_damping(lin_d as Real)
                    .angular_damping(ang_d as Real)
                    .can_sleep(false),
            );
            for &slot in members {
                let (vi, k) = (slot / 4, slot % 4);
                let mat = &cells[vi].1;
                let offset = centre_of(vi, k) - centre;
                let half = (mat.mass_side() / 2.0) as Real;
                let collider = ColliderBuilder::cuboid(half, half)
                    .translation(v(offset))
                    .mass(mat.corner_mass() as Real)
                    .friction(mat.friction as Real)
                    .friction_combine_rule(CoefficientCombineRule::GeometricMean)
                    .restitution(mat.restitution as Real)
                    .restitution_combine_rule(CoefficientCombineRule::Max)
                    .active_hooks(ActiveHooks::FILTER_CONTACT_PAIRS)
                    .user_data(ColliderTag { body: id, part: vi, piece: k }.encode());
                physics.colliders.insert_with_parent(collider, handle, &mut physics.bodies);
                mass_refs[slot] = MassRef { body: ci, offset };
            }
            bodies.push(handle);
        }
        if welds_as == Welds::Joints {
            // A spanning tree of each cluster's welds: rigid like the merged body, without the redundant
            // closed loop of a 2×2 junction.
            let mut tree: Vec<usize> = (0..4 * n).collect();
            for &[(va, ka), (vb, kb)] in &welds {
                let (sa, sb) = (4 * va + ka, 4 * vb + kb);
                let (ra, rb) = (find(&mut tree, sa), find(&mut tree, sb));
                if ra == rb {
                    continue;
                }
                tree[ra.max(rb)] = ra.min(rb);
                let (ha, hb) = (bodies[mass_refs[sa].body], bodies[mass_refs[sb].body]);
                if !physics.bodies[ha].is_dynamic() && !physics.bodies[hb].is_dynamic() {
                    continue;
                }
                // Anchored where the two masses touch, with their relative rotation fixed at zero.
                let (ca, cb) = (centre_of(va, ka), centre_of(vb, kb));
                let mid = (ca + cb) * 0.5;
                let joint = FixedJointBuilder::new().local_anchor1(v(mid - ca)).local_anchor2(v(mid - cb));
                physics.impulse_joints.insert(ha, hb, joint, true);
            }
        }

        // Every spring with its bodies and body-local anchors, then the coincident pairs.
        let spring_defs: Vec<(usize, SpringDef)> = cells
            .iter()
            .enumerate()
            .flat_map(|(vi, (_, mat))| voxel::springs(mat).into_iter().map(move |d| (vi, d)))
            .collect();
        let ends = |&(vi, def): &(usize, SpringDef)| {
            let (a, b) = (mass_refs[4 * vi + def.mass_a], mass_refs[4 * vi + def.mass_b]);
            ((a.body, a.offset + def.anchor_a), (b.body, b.offset + def.anchor_b))
        };
        let partners = if options.merge_coincident_springs {
            coincident_pairs(&spring_defs.iter().map(ends).collect::<Vec<_>>(), 1e-9 * l)
        } else {
            vec![None; spring_defs.len()]
        };
        let mut voxels = Vec::with_capacity(n);
        let mut springs: Vec<SpringRef> = Vec::with_capacity(spring_defs.len());
        let mut ropes = Vec::new();
        for (vi, (cell, mat)) in cells.iter().enumerate() {
            let masses = [0, 1, 2, 3].map(|k| mass_refs[4 * vi + k]);
            let spring_start = springs.len();
            // This voxel's springs (joints inserted voxel by voxel, springs before ropes, as always).
            while let Some(&(_, def)) = spring_defs.get(springs.len()).filter(|(v, _)| *v == vi) {
                let si = springs.len();
                let target = voxel::target_length(mat, def.group, 0.0);
                let joint = match partners[si] {
                    Some(p) if p < si => springs[p].joint,
                    partner => {
                        let ((ba, pa), (bb, pb)) = ends(&(vi, def));
                        let (k, c, rest) = match partner {
                            Some(p) => {
                                let (pv, pd) = spring_defs[p];
                                let pt = voxel::target_length(&cells[pv].1, pd.group, 0.0);
                                merged_law(def.stiffness, def.damping, target, pd.stiffness, pd.damping, pt)
                            }
                            None => (def.stiffness, def.damping, target),
                        };
                        let joint = spring_joint(pa, pb, rest, k, c);
                        physics.impulse_joints.insert(bodies[ba], bodies[bb], joint, true)
                    }
                };
                let ((ba, pa), (bb, pb)) = ends(&(vi, def));
                springs.push(SpringRef {
                    joint,
                    def,
                    voxel: vi,
                    partner: partners[si],
                    target,
                    ends: [(ba, pa), (bb, pb)],
                });
            }
            if mat.ropes {
                let (min, max) = voxel::rope_bounds(mat);
                for (ma, mb) in voxel::SIDES {
                    let (a, b) = (masses[ma], masses[mb]);
                    // Ropes are slack nearly always: the joint only joins the solve near a bound.
                    let mut builder = GenericJointBuilder::new(JointAxesMask::empty())
                        .coupled_axes(JointAxesMask::LIN_AXES)
                        .local_anchor1(v(a.offset))
                        .local_anchor2(v(b.offset))
                        .motor_model(JointAxis::LinX, MotorModel::AccelerationBased);
                    // legacy-1.0 had the lower bound only.
                    if !mat.preset.is_legacy() {
                        builder = builder.limits(JointAxis::LinX, [0.0, max as Real]);
                    }
                    let mut joint = builder.build();
                    joint.set_enabled(false);
                    let handle = physics.impulse_joints.insert(bodies[a.body], bodies[b.body], joint, true);
                    let max = (!mat.preset.is_legacy()).then_some(max);
                    ropes.push(RopeRef {
                        joint: handle,
                        voxel: vi,
                        mass_a: ma,
                        mass_b: mb,
                        min,
                        max,
                        motor_on: false,
                        enabled: false,
                    });
                }
            }
            voxels.push(VoxelRef { cell: *cell, material: *mat, masses, springs: spring_start..springs.len() });
        }

        let per_pose_laws = cells.iter().any(|(_, m)| m.preset.is_legacy());
        let pose_law_materials = if per_pose_laws {
            cells.iter().map(|(_, m)| (voxel::CornerInertia::of(m), m.spring_rates())).collect()
        } else {
            Vec::new()
        };
        let mut robot = Robot {
            id,
            label,
            states: vec![BodyState::default(); bodies.len()],
            bodies,
            voxels,
            springs,
            ropes,
            welds,
            cluster_of,
            control: vec![0.0; n],
            raw_control: vec![0.0; n],
            grid: [body.width(), body.height()],
            applied: vec![Some(0.0); n],
            per_pose_laws,
            pose_law_materials,
            pose_law_centres: Vec::new(),
        };
        robot.read_state(physics);
        robot
    }

    /// Refreshes the cached f64 state of every cluster body.
    pub fn read_state(&mut self, physics: &PhysicsWorld) {
        for (state, handle) in self.states.iter_mut().zip(&self.bodies) {
            let rb = &physics.bodies[*handle];
            let pose = rb.position();
            let t = pose.translation;
            let com = rb.center_of_mass();
            let lv = rb.linvel();
            *state = BodyState {
                origin: V2::new(t.x as f64, t.y as f64),
                cos: pose.rotation.cos() as f64,
                sin: pose.rotation.sin() as f64,
                com: V2::new(com.x as f64, com.y as f64),
                linvel: V2::new(lv.x as f64, lv.y as f64),
                angvel: rb.angvel() as f64,
            };
        }
    }

    /// World position of the centre of mass `k` of voxel `vi`.
    pub fn mass_centre(&self, vi: usize, k: usize) -> V2 {
        let m = self.voxels[vi].masses[k];
        self.states[m.body].point(m.offset)
    }

    /// Velocity of the centre of mass `k` of voxel `vi` (a point of its cluster body).
    pub fn mass_velocity(&self, vi: usize, k: usize) -> V2 {
        self.mass_centre_and_velocity(vi, k).1
    }

    /// Centre and velocity of mass `k` of voxel `vi`, the centre computed once.
    pub fn mass_centre_and_velocity(&self, vi: usize, k: usize) -> (V2, V2) {
        let p = self.mass_centre(vi, k);
        (p, self.states[self.voxels[vi].masses[k].body].velocity_at(p))
    }

    /// The four corners of mass `k` of voxel `vi`, counter-clockwise, and its outer corner.
    pub fn mass_square(&self, vi: usize, k: usize) -> ([V2; 4], V2) {
        let vox = &self.voxels[vi];
        let m = vox.masses[k];
        let s = &self.states[m.body];
        let h = vox.material.mass_side() / 2.0;
        let c = s.point(m.offset);
        let corners = [V2::new(-h, -h), V2::new(h, -h), V2::new(h, h), V2::new(-h, h)].map(|d| c + s.rotate(d));
        (corners, corners[k])
    }

    /// World anchors of spring `si`.
    pub fn spring_anchors(&self, si: usize) -> (V2, V2) {
        self.anchors(&self.springs[si])
    }

    fn anchors(&self, sp: &SpringRef) -> (V2, V2) {
        let [(a, anchor_a), (b, anchor_b)] = sp.ends;
        (self.states[a].point(anchor_a), self.states[b].point(anchor_b))
    }

    /// Sets the clipped control values and, in area mode, the spring targets of changed voxels.
    pub fn apply_control(&mut self, physics: &mut PhysicsWorld, raw: &[f64]) {
        for (vi, &f) in raw.iter().enumerate() {
            self.raw_control[vi] = f;
            let f = if f.is_nan() { 0.0 } else { f.clamp(-1.0, 1.0) };
            self.control[vi] = f;
            let mat = self.voxels[vi].material;
            if mat.actuation != ActuationMode::Area {
                continue;
            }
            // legacy-1.0 kept the previous targets when the command was exactly 0.
            if f == 0.0 && mat.preset.is_legacy() {
                continue;
            }
            if self.applied[vi] == Some(f) {
                continue;
            }
            self.applied[vi] = Some(f);
            // One target per spring group (the voxel's springs are 18 of 4 groups).
            let group_target = SpringGroup::ALL.map(|g| voxel::target_length(&mat, g, f));
            for si in self.voxels[vi].springs.clone() {
                self.springs[si].target = group_target[self.springs[si].def.group as usize];
                // legacy-1.0 writes its motors before every step ([`Robot::update_legacy_spring_laws`]).
                if mat.preset.is_legacy() {
                    continue;
                }
                let (k, c, target) = self.joint_law(si, |s| (s.def.stiffness, s.def.damping));
                // A motor-target change only: rapier keeps its joint assembly (colouring, chunks, row
                // builders) and refreshes the motors (vendor/rapier2d/PATCH.md).
                physics.impulse_joints.set_motor_position(
                    self.springs[si].joint,
                    JointAxis::LinX,
                    target as Real,
                    k as Real,
                    c as Real,
                );
            }
        }
    }

    /// `legacy-1.0`: sets every spring's stiffness k = μω² and damping c = 2ζωμ from the effective mass μ
    /// of its two corner masses as they stand now, as dyn4j's distance joints did at the start of each
    /// step (`DistanceJoint.initializeConstraints`). μ depends on the lever arms r × n of the anchors: a
    /// mass turned by 0.1 rad against a side spring changes it by about ±10 %. Neighbours with different
    /// commands turn their shared masses, so a lattice of voxels deforms differently than with the rest
    /// pose's μ, which the default preset keeps as a material constant (issue 38; docs/model.md).
    pub fn update_legacy_spring_laws(&mut self, physics: &mut PhysicsWorld) {
        if !self.per_pose_laws {
            return;
        }
        // Each mass centre once: a mass is an end of up to nine of its voxel's springs.
        let mut centres = std::mem::take(&mut self.pose_law_centres);
        centres.clear();
        centres.extend((0..4 * self.voxels.len()).map(|slot| self.mass_centre(slot / 4, slot % 4)));
        for si in 0..self.springs.len() {
            let sp = &self.springs[si];
            // A coincident pair shares one joint, set when its first spring comes.
            if !self.voxels[sp.voxel].material.preset.is_legacy() || sp.partner.is_some_and(|p| p < si) {
                continue;
            }
            let (k, c, target) = self.joint_law(si, |s| self.current_law(s, &centres));
            physics.impulse_joints.set_motor_position(sp.joint, JointAxis::LinX, target as Real, k as Real, c as Real);
        }
        self.pose_law_centres = centres;
    }

    /// The law (k, c, target) of spring `si`'s joint, from `law`, the stiffness and damping of a spring:
    /// its own, or with a coincident partner the two merged into one.
    fn joint_law(&self, si: usize, law: impl Fn(&SpringRef) -> (f64, f64)) -> (f64, f64, f64) {
        let sp = &self.springs[si];
        let (k, c) = law(sp);
        match sp.partner {
            Some(p) => {
                let q = &self.springs[p];
                let (kq, cq) = law(q);
                merged_law(k, c, sp.target, kq, cq, q.target)
            }
            None => (k, c, sp.target),
        }
    }

    /// Stiffness and damping of a spring from its effective mass in the current pose; `centres` holds
    /// every mass centre in that pose.
    fn current_law(&self, sp: &SpringRef, centres: &[V2]) -> (f64, f64) {
        let (pa, pb) = self.anchors(sp);
        let (ca, cb) = (centres[4 * sp.voxel + sp.def.mass_a], centres[4 * sp.voxel + sp.def.mass_b]);
        let (inertia, (omega_sq, two_zeta_omega)) = &self.pose_law_materials[sp.voxel];
        let mu = inertia.effective_mass_along(pa - ca, pb - cb, (pb - pa).normalized());
        (mu * omega_sq, mu * two_zeta_omega)
    }

    /// Force actuation: pushes each mass along the line to its voxel centre (for one step).
    /// Returns whether any force was applied.
    pub fn apply_force_actuation(&self, physics: &mut PhysicsWorld) -> bool {
        let mut any = false;
        for (vi, vox) in self.voxels.iter().enumerate() {
            let f = self.control[vi];
            if vox.material.actuation != ActuationMode::Force || f == 0.0 {
                continue;
            }
            let centres = [0, 1, 2, 3].map(|k| self.mass_centre(vi, k));
            let c = centres.iter().fold(V2::ZERO, |s, p| s + *p) * 0.25;
            for (k, p) in centres.iter().enumerate() {
                let force = (c - *p).normalized() * (f * vox.material.max_force);
                self.push_mass(physics, vi, k, force);
            }
            any = true;
        }
        any
    }

    /// Adds a force at the centre of mass `k` of voxel `vi` (kept until forces are reset).
    pub fn push_mass(&self, physics: &mut PhysicsWorld, vi: usize, k: usize, force: V2) {
        let p = self.mass_centre(vi, k);
        let handle = self.bodies[self.voxels[vi].masses[k].body];
        if let Some(rb) = physics.bodies.get_mut(handle) {
            if rb.is_dynamic() {
                rb.add_force_at_point(v(force), v(p), true);
            }
        }
    }

    /// Sets the linear velocity of every dynamic body (tests, initial conditions).
    pub fn set_velocity(&self, physics: &mut PhysicsWorld, velocity: V2) {
        for h in &self.bodies {
            if let Some(rb) = physics.bodies.get_mut(*h) {
                rb.set_linvel(v(velocity), true);
            }
        }
    }

    pub fn reset_forces(&self, physics: &mut PhysicsWorld) {
        for h in &self.bodies {
            if let Some(rb) = physics.bodies.get_mut(*h) {
                rb.reset_forces(false);
                rb.reset_torques(false);
            }
        }
    }

    /// Switches the ropes for the coming step (spec §4). The lower bound is a stiff motor, on when the
    /// distance is at or below d_min or would reach it within the step; the upper bound is the joint's
    /// distance limit. A rope far from both bounds does nothing, so its joint is left out of the solve
    /// (disabled), which saves the solver a fifth of its constraints.
    pub fn update_ropes(&mut self, physics: &mut PhysicsWorld, dt: f64) {
        let stiffness = (2.0 * std::f64::consts::PI * ROPE_MOTOR_HZ).powi(2) as Real;
        let damping = (2.0 * 2.0 * std::f64::consts::PI * ROPE_MOTOR_HZ) as Real;
        // Mass centres and velocities of the voxel the ropes belong to (ropes come voxel by voxel).
        let mut cached: Option<(usize, [(V2, V2); 4])> = None;
        for ri in 0..self.ropes.len() {
            let r = &self.ropes[ri];
            let masses = match cached {
                Some((vi, masses)) if vi == r.voxel => masses,
                _ => {
                    let masses = [0, 1, 2, 3].map(|k| self.mass_centre_and_velocity(r.voxel, k));
                    cached = Some((r.voxel, masses));
                    masses
                }
            };
            let ((pa, va), (pb, vb)) = (masses[r.mass_a], masses[r.mass_b]);
            // `sqrt(dot)`, not `Vec2::length`'s `hypot` (a libm call, 0.8 % of the step loop): only the
            // switching decisions below read `d`, and they are far from the last bit.
            let d = (pb - pa).dot(pb - pa).sqrt();
            // (pb − pa).normalized() without computing the length twice.
            let along = if d > 0.0 { (pb - pa) * (1.0 / d) } else { V2::ZERO };
            let rate = (vb - va).dot(along);
            // A lower bound only pushes. A motor that ended the last step pulling the masses together
            // is holding the voxel crushed against its own springs (it would latch there for good):
            // release it. If a load still crushes the voxel, the bound re-engages on the next step.
            let pulled = r.motor_on
                // Rapier's sign: a positive motor impulse on the distance axis draws the bodies together.
                && physics.impulse_joints.get(r.joint).is_some_and(|j| j.data.motors[JointAxis::LinX as usize].impulse > 0.0);
            let motor_on = d + rate.min(0.0) * dt <= r.min && !pulled;
            // Engage the limit a little early (two steps at the current rate, plus 1 cm) so it is in
            // the solve before the bound is crossed.
            let near_max = r.max.is_some_and(|max| d + 2.0 * rate.max(0.0) * dt >= max - 0.01);
            let enabled = motor_on || near_max;
            if motor_on == r.motor_on && enabled == r.enabled {
                continue;
            }
            let (joint_handle, min) = (r.joint, r.min as Real);
            self.ropes[ri].motor_on = motor_on;
            self.ropes[ri].enabled = enabled;
            // A rope with a distance limit has no wide rows, so switching it keeps the solver's wide
            // joint assembly (vendor/rapier2d/PATCH.md, patch 4).
            physics.impulse_joints.modify_scalar_joint(joint_handle, true, |joint| {
                joint.set_enabled(enabled);
                if motor_on {
                    joint.set_motor_position(JointAxis::LinX, min, stiffness, damping);
                } else {
                    joint.motor_axes.remove(JointAxesMask::LIN_X);
                }
            });
        }
    }

    /// Centre of voxel `vi`: the mean of its four mass centres (spec §6).
    pub fn voxel_centre(&self, vi: usize) -> V2 {
        (0..4).fold(V2::ZERO, |s, k| s + self.mass_centre(vi, k)) * 0.25
    }

    /// Centre of the robot: the unweighted mean of its voxel centres (spec §6). The one implementation
    /// behind snapshots and the snapshot-free metrics, so both are bit-identical.
    pub fn centre(&self) -> V2 {
        (0..self.voxels.len()).fold(V2::ZERO, |s, vi| s + self.voxel_centre(vi)) * (1.0 / self.voxels.len() as f64)
    }

    /// Centre and bounding box of the robot from the cached state.
    pub fn centre_and_bbox(&self) -> (V2, Aabb) {
        let bbox = Aabb::from_points(
            (0..self.voxels.len()).flat_map(|vi| (0..4).flat_map(move |k| self.mass_square(vi, k).0)),
        );
        (self.centre(), bbox)
    }

    /// Kinetic energy of all dynamic bodies (for physics checks).
    pub fn kinetic_energy(&self, physics: &PhysicsWorld) -> f64 {
        self.bodies.iter().map(|h| physics.bodies[*h].kinetic_energy() as f64).sum()
    }

    pub fn group_of_spring(&self, si: usize) -> SpringGroup {
        self.springs[si].def.group
    }
}

/// A spring-damper between two body-local anchors, solved implicitly as a soft constraint: a position
/// motor on the coupled distance axis with absolute stiffness (N/m) and damping (N·s/m), force-based so
/// that it does not scale with the bodies it joins (spec §3).
pub fn spring_joint(anchor1: V2, anchor2: V2, rest_length: f64, stiffness: f64, damping: f64) -> GenericJoint {
    GenericJointBuilder::new(JointAxesMask::empty())
        .coupled_axes(JointAxesMask::LIN_AXES)
        .local_anchor1(v(anchor1))
        .local_anchor2(v(anchor2))
        .motor_position(JointAxis::LinX, rest_length as Real, stiffness as Real, damping as Real)
        .motor_model(JointAxis::LinX, MotorModel::ForceBased)
        .build()
}

/// Two springs in parallel between the same anchors, k₁(x − L₁) + k₂(x − L₂) and damping c₁ + c₂, are
/// one spring (k₁ + k₂, c₁ + c₂) at the stiffness-weighted mean rest length: (k, c, L).
fn merged_law(k1: f64, c1: f64, l1: f64, k2: f64, c2: f64, l2: f64) -> (f64, f64, f64) {
    (k1 + k2, c1 + c2, (k1 * l1 + k2 * l2) / (k1 + k2))
}

/// Pairs of coincident springs: the same two bodies and the same body-local anchors (within `tol`, in
/// either direction). Returns each spring's partner; a spring has at most one (the side shared by two
/// welded voxels), and a third coincident spring, which no voxel lattice makes, would stay unmerged.
fn coincident_pairs(ends: &[((usize, V2), (usize, V2))], tol: f64) -> Vec<Option<usize>> {
    let near = |p: V2, q: V2| (p - q).length() <= tol;
    let same = |(a1, b1): ((usize, V2), (usize, V2)), (a2, b2): ((usize, V2), (usize, V2))| {
        let direct = a1.0 == a2.0 && b1.0 == b2.0 && near(a1.1, a2.1) && near(b1.1, b2.1);
        let reversed = a1.0 == b2.0 && b1.0 == a2.0 && near(a1.1, b2.1) && near(b1.1, a2.1);
        direct || reversed
    };
    // Springs by their (unordered) body pair, so only springs between the same bodies are compared.
    let mut by_bodies: std::collections::BTreeMap<(usize, usize), Vec<usize>> = Default::default();
    for (i, ((a, _), (b, _))) in ends.iter().enumerate() {
        by_bodies.entry((*a.min(b), *a.max(b))).or_default().push(i);
    }
    let mut partner = vec![None; ends.len()];
    for group in by_bodies.values() {
        for (x, &i) in group.iter().enumerate() {
            if ends[i].0 .0 == ends[i].1 .0 || partner[i].is_some() {
                continue;
            }
            if let Some(&j) = group[x + 1..].iter().find(|&&j| partner[j].is_none() && same(ends[i], ends[j])) {
                partner[i] = Some(j);
                partner[j] = Some(i);
            }
        }
    }
    partner
}

/// Body damping handed to the engine. Rapier scales velocities by 1/(1 + d·dt) once per step;
/// `legacy-1.0` wants max(0, 1 − d·dt), which d' = d/(1 − d·dt) reproduces where d·dt < 1.
fn damping_for_engine(material: &Material, d: f64, dt: f64) -> f64 {
    if material.preset.is_legacy() && d * dt < 1.0 {
        d / (1.0 - d * dt)
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(w: u32, h: u32, welds: Welds) -> usize {
        let mut physics = PhysicsWorld::new();
        let body = BodyGrid::filled(w, h, Material::default()).unwrap();
        let robot = Robot::build(
            &mut physics,
            BodyId(0),
            String::new(),
            &body,
            V2::ZERO,
            RobotOptions::default(),
            welds,
            1.0 / 60.0,
        );
        let merged = robot.springs.iter().filter(|s| s.partner.is_some()).count();
        let joints = robot.springs.iter().map(|s| s.joint).collect::<std::collections::HashSet<_>>().len();
        assert_eq!(joints + merged / 2, robot.springs.len(), "each pair shares one joint");
        merged / 2
    }

    #[test]
    fn each_side_shared_by_welded_voxels_has_one_pair_of_coincident_springs() {
        // A w×h grid has (w − 1)·h + w·(h − 1) shared sides: 57 in the paper's 12×3 worm.
        assert_eq!(pairs(12, 3, Welds::Merged), 57);
        assert_eq!(pairs(1, 1, Welds::Merged), 0);
        assert_eq!(pairs(2, 2, Welds::Merged), 4);
        // One body per mass: the two sides' springs join different bodies.
        assert_eq!(pairs(12, 3, Welds::Joints), 0);
    }

    #[test]
    fn parallel_springs_add_stiffness_and_damping_around_the_weighted_rest_length() {
        let (k, c, l) = merged_law(100.0, 2.0, 0.9, 300.0, 4.0, 1.1);
        assert_eq!((k, c), (400.0, 6.0));
        // Same force at any length x: 100(x − 0.9) + 300(x − 1.1) = 400(x − l).
        for x in [0.5, 1.0, 1.7] {
            assert!((100.0 * (x - 0.9) + 300.0 * (x - 1.1) - k * (x - l)).abs() < 1e-12);
        }
    }
}
