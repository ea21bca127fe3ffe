//! What joins cells and acts on them beyond their own pressure (spec `cells.md` §4–§6, §9): connectors
//! and their pairs, muscles, pins and merges, and the schedule. The laws are in
//! [`crate::model::cell::connector`] and [`crate::model::cell::muscle`]; this module reads positions,
//! applies forces and writes joint targets. Everything is kept in vectors in build order, so no hash
//! order reaches the physics.

use rapier2d::prelude::*;

use super::Cell;
use crate::geom::Vec2;
use crate::model::cell::connector::{self, ConnectorAt, ConnectorParams, ConnectorState, FIXTURE_HALF_SIZE};
use crate::model::cell::muscle::{self, MuscleKind, Ramp};
use crate::sim::body::SimBody;
use crate::sim::kinds::BodyRuntime;
use crate::sim::tag::ColliderTag;
use crate::sim::v;
use crate::snapshot::{
    BodyId, BodySnapshot, CellConnectorSnapshot, CellLinkSnapshot, CellMuscleSnapshot, CellPairSnapshot,
};

/// A connector type as the world uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorType {
    pub name: String,
    pub params: ConnectorParams,
}

/// Where a connector, muscle or link sits: body `body` of cell `cell`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyRef {
    pub cell: BodyId,
    pub body: usize,
}

pub(crate) struct Connector {
    name: String,
    at: BodyRef,
    kind: usize,
    on: bool,
    /// L, m (the type's, or 9R/N of the carrying cell).
    near_cap: f64,
    state: ConnectorState,
}

/// A muscle of one cell (spec §5).
#[derive(Debug, Clone, PartialEq)]
pub struct MuscleSpec {
    pub cell: BodyId,
    pub name: String,
    pub kind: MuscleKind,
    pub from: usize,
    pub to: usize,
    pub hz: f64,
    pub damping_ratio: f64,
    pub min_length: f64,
    /// L₀ as a factor of the distance at build.
    pub length_factor: f64,
    /// Initial command ℓ.
    pub command: f64,
}

pub(crate) struct Muscle {
    spec: MuscleSpec,
    joint: ImpulseJointHandle,
    l0: f64,
    k: f64,
    c: f64,
    ramp: Ramp,
    /// The rest length (or rope maximum) last written, m.
    rest: f64,
}

/// How two cells are joined for good (spec §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Pin,
    Merge,
}

pub(crate) struct Link {
    kind: LinkKind,
    a: BodyRef,
    b: BodyRef,
}

/// One scheduled change (spec §9 step 1).
#[derive(Debug, Clone, PartialEq)]
pub enum CellAction {
    /// Switch these connectors (indices in build order).
    Switch {
        connectors: Vec<usize>,
        on: bool,
    },
    /// Ramp these muscles' command to `command` over `ramp` s.
    Muscle {
        muscles: Vec<usize>,
        command: f64,
        ramp: f64,
    },
    Pressure {
        cell: BodyId,
        value: f64,
    },
    RestAreaScale {
        cell: BodyId,
        value: f64,
    },
    /// Add this velocity to every body of the cell (an impulse m_i·Δv on each; ours, for releases).
    Push {
        cell: BodyId,
        velocity: Vec2,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CellEvent {
    pub t: f64,
    pub action: CellAction,
}

/// Everything of [`super`] that spans cells. Empty for voxel worlds: then it does nothing at all.
#[derive(Default)]
pub(crate) struct CellSystem {
    types: Vec<ConnectorType>,
    /// A_ab by type indices.
    strengths: Vec<Vec<f64>>,
    connectors: Vec<Connector>,
    pairs: Vec<(usize, usize)>,
    muscles: Vec<Muscle>,
    links: Vec<Link>,
    events: Vec<CellEvent>,
    next_event: usize,
}

fn cell(bodies: &[BodyRuntime], id: BodyId) -> Option<&Cell> {
    match bodies.get(id.index())? {
        BodyRuntime::Cell(c) => Some(c),
        _ => None,
    }
}

fn cell_mut(bodies: &mut [BodyRuntime], id: BodyId) -> Option<&mut Cell> {
    match bodies.get_mut(id.index())? {
        BodyRuntime::Cell(c) => Some(c),
        _ => None,
    }
}

impl CellSystem {
    pub fn is_empty(&self) -> bool {
        self.connectors.is_empty() && self.muscles.is_empty() && self.events.is_empty()
    }

    /// Sets the connector types and the pair amplitudes A_ab (square, by type index).
    pub fn set_connector_types(&mut self, types: Vec<ConnectorType>, strengths: Vec<Vec<f64>>) {
        self.types = types;
        self.strengths = strengths;
    }

    /// Adds a connector of type `kind` on `at`: its square collider and hidden mass on the body.
    pub fn add_connector(
        &mut self,
        physics: &mut PhysicsWorld,
        bodies: &[BodyRuntime],
        name: String,
        at: BodyRef,
        kind: usize,
        on: bool,
    ) -> usize {
        let c = cell(bodies, at.cell).expect("connectors sit on cells");
        let p = self.types[kind].params;
        let params = &c.params;
        let handle = c.bodies[at.body];
        let half = (FIXTURE_HALF_SIZE * params.body_radius()) as Real;
        let collider = ColliderBuilder::cuboid(half, half)
            .density(params.density as Real)
            .friction(params.friction as Real)
            .friction_combine_rule(CoefficientCombineRule::GeometricMean)
            .restitution(params.restitution as Real)
            .restitution_combine_rule(CoefficientCombineRule::Max)
            .user_data(ColliderTag { body: at.cell, part: at.body, piece: 1 }.encode());
        physics.colliders.insert_with_parent(collider, handle, &mut physics.bodies);
        if p.hidden_mass > 0.0 {
            // Several connectors on one body add up.
            let before: f64 =
                self.connectors.iter().filter(|c| c.at == at).map(|c| self.types[c.kind].params.hidden_mass).sum();
            physics.bodies[handle].set_additional_mass((before + p.hidden_mass) as Real, true);
        }
        let near_cap = p.near_cap.unwrap_or_else(|| connector::near_cap_rule(params.radius, params.bodies));
        let state = ConnectorState::of(on, false);
        self.connectors.push(Connector { name, at, kind, on, near_cap, state });
        self.connectors.len() - 1
    }

    /// Adds a muscle between two bodies of one cell; L₀ = `length_factor` × their distance now.
    pub fn add_muscle(&mut self, physics: &mut PhysicsWorld, bodies: &[BodyRuntime], spec: MuscleSpec) -> usize {
        let c = cell(bodies, spec.cell).expect("muscles sit on cells");
        let (ha, hb) = (c.bodies[spec.from], c.bodies[spec.to]);
        let l0 = spec.length_factor * (c.pos[spec.from] - c.pos[spec.to]).length();
        let (ma, mb) = (physics.bodies[ha].mass() as f64, physics.bodies[hb].mass() as f64);
        let (k, cd) = muscle::spring_coefficients(spec.hz, spec.damping_ratio, ma, mb);
        let rest = muscle::commanded_length(l0, spec.min_length, spec.command);
        let data: GenericJoint = match spec.kind {
            MuscleKind::Spring | MuscleKind::Fixed => {
                SpringJointBuilder::new(rest as Real, k as Real, cd as Real).build().into()
            }
            MuscleKind::Rope => RopeJointBuilder::new(rest as Real).build().into(),
        };
        let joint = physics.impulse_joints.insert(ha, hb, data, true);
        let ramp = Ramp::hold(spec.command);
        self.muscles.push(Muscle { spec, joint, l0, k, c: cd, ramp, rest });
        self.muscles.len() - 1
    }

    /// Pins body a to body b (a revolute joint at the midpoint of their centres, contacts off), or, for
    /// a merge pair, joins their centres (both anchors at the centres).
    pub fn add_link(
        &mut self,
        physics: &mut PhysicsWorld,
        bodies: &[BodyRuntime],
        kind: LinkKind,
        a: BodyRef,
        b: BodyRef,
    ) {
        let (ca, cb) = (cell(bodies, a.cell).expect("cell"), cell(bodies, b.cell).expect("cell"));
        let (ha, hb) = (ca.bodies[a.body], cb.bodies[b.body]);
        let (pa, pb) = (ca.pos[a.body], cb.pos[b.body]);
        let (a1, a2) = match kind {
            LinkKind::Pin => {
                let mid = (pa + pb) * 0.5;
                let local = |h: RigidBodyHandle, w: Vec2| {
                    let pose = physics.bodies[h].position();
                    let (t, r) = (pose.translation, pose.rotation);
                    let (dx, dy) = (w.x - t.x as f64, w.y - t.y as f64);
                    let (sn, cs) = (r.sin() as f64, r.cos() as f64);
                    // The inverse rotation of the body's pose.
                    v(Vec2::new(cs * dx + sn * dy, -sn * dx + cs * dy))
                };
                (local(ha, mid), local(hb, mid))
            }
            LinkKind::Merge => (Vector::ZERO, Vector::ZERO),
        };
        let joint = RevoluteJointBuilder::new().local_anchor1(a1).local_anchor2(a2).contacts_enabled(false);
        physics.impulse_joints.insert(ha, hb, joint, true);
        self.links.push(Link { kind, a, b });
    }

    pub fn set_schedule(&mut self, events: Vec<CellEvent>) {
        self.events = events;
        self.next_event = 0;
    }

    /// Spec §9 step 1: every event with t ≤ t_k not yet applied, in file order (the events are given in
    /// that order and applied once each). A tolerance of 10⁻⁹·dt absorbs k·dt's rounding.
    pub fn apply_schedule(&mut self, physics: &mut PhysicsWorld, bodies: &mut [BodyRuntime], t: f64, dt: f64) {
        while let Some(e) = self.events.get(self.next_event) {
            if e.t > t + 1e-9 * dt {
                break;
            }
            match &e.action {
                CellAction::Switch { connectors, on } => {
                    for &i in connectors {
                        self.connectors[i].on = *on;
                    }
                }
                CellAction::Muscle { muscles, command, ramp } => {
                    for &i in muscles {
                        let m = &mut self.muscles[i];
                        let from = m.ramp.value(t);
                        m.ramp = Ramp { from, to: *command, t0: t, duration: *ramp };
                    }
                }
                CellAction::Pressure { cell, value } => {
                    if let Some(c) = cell_mut(bodies, *cell) {
                        c.params.pressure = *value;
                    }
                }
                CellAction::RestAreaScale { cell, value } => {
                    if let Some(c) = cell_mut(bodies, *cell) {
                        c.params.rest_area_scale = *value;
                    }
                }
                CellAction::Push { cell, velocity } => {
                    if let Some(c) = cell_mut(bodies, *cell) {
                        for h in &c.bodies {
                            let rb = &mut physics.bodies[*h];
                            let lv = rb.linvel();
                            rb.set_linvel(lv + v(*velocity), true);
                        }
                        c.read_state(physics);
                    }
                }
            }
            self.next_event += 1;
        }
    }

    /// Spec §9 steps 3 and 4: the pair set from the current positions, the magnet forces of every pair in
    /// sorted order, then the muscles' rest lengths for this step.
    pub fn before_step(&mut self, physics: &mut PhysicsWorld, bodies: &[BodyRuntime], t: f64) {
        if !self.connectors.is_empty() {
            let at: Vec<ConnectorAt> = self
                .connectors
                .iter()
                .map(|c| ConnectorAt {
                    cell: c.at.cell.index(),
                    position: cell(bodies, c.at.cell).map_or(Vec2::ZERO, |cell| cell.pos[c.at.body]),
                    radius: self.types[c.kind].params.radius,
                    on: c.on,
                })
                .collect();
            self.pairs = connector::find_pairs(&at);
            // Types that do not interact (A_ab = 0: the stop joints' types of a folding chain) do not pair.
            let (connectors, strengths) = (&self.connectors, &self.strengths);
            self.pairs.retain(|&(i, j)| strengths[connectors[i].kind][connectors[j].kind] != 0.0);
            let mut paired = vec![false; self.connectors.len()];
            for &(i, j) in &self.pairs {
                paired[i] = true;
                paired[j] = true;
                let (a, b) = (&self.connectors[i], &self.connectors[j]);
                let strength = self.strengths[a.kind][b.kind];
                // The cap of the pair: the larger of the two connectors' (equal for one type).
                let cap = a.near_cap.max(b.near_cap);
                let f = connector::magnet_force(strength, at[i].position, at[j].position, cap);
                for (r, force) in [(a.at, -f), (b.at, f)] {
                    if let Some(c) = cell(bodies, r.cell) {
                        physics.bodies[c.bodies[r.body]].add_force(v(force), true);
                    }
                }
            }
            for (c, p) in self.connectors.iter_mut().zip(paired) {
                c.state = ConnectorState::of(c.on, p);
            }
        }
        for m in &mut self.muscles {
            if m.spec.kind == MuscleKind::Fixed {
                continue;
            }
            let rest = muscle::commanded_length(m.l0, m.spec.min_length, m.ramp.value(t));
            if rest == m.rest {
                continue;
            }
            m.rest = rest;
            if let Some(j) = physics.impulse_joints.get_mut(m.joint, true) {
                match m.spec.kind {
                    MuscleKind::Spring => {
                        j.data.set_motor_position(JointAxis::LinX, rest as Real, m.k as Real, m.c as Real);
                    }
                    MuscleKind::Rope => {
                        j.data.set_limits(JointAxis::LinX, [0.0, rest as Real]);
                    }
                    MuscleKind::Fixed => {}
                }
            }
        }
    }

    /// Active pairs that involve cell `id`.
    pub fn pairs_of(&self, id: BodyId) -> usize {
        self.pairs
            .iter()
            .filter(|&&(i, j)| self.connectors[i].at.cell == id || self.connectors[j].at.cell == id)
            .count()
    }

    /// Adds connectors, muscles, the pairs and links whose first end is on each cell to the snapshots.
    pub fn decorate(&self, snapshots: &mut [BodySnapshot], bodies: &[BodyRuntime]) {
        if self.connectors.is_empty() && self.muscles.is_empty() && self.links.is_empty() {
            return;
        }
        let pos = |r: BodyRef| cell(bodies, r.cell).map_or(Vec2::ZERO, |c| c.pos[r.body]);
        let mut out: Vec<Option<&mut crate::snapshot::CellSnapshot>> =
            snapshots.iter_mut().map(|s| if let BodySnapshot::Cell(c) = s { Some(c) } else { None }).collect();
        for c in &self.connectors {
            if let Some(Some(s)) = out.get_mut(c.at.cell.index()) {
                s.connectors.push(CellConnectorSnapshot {
                    id: c.name.clone(),
                    body: c.at.body,
                    position: pos(c.at),
                    radius: self.types[c.kind].params.radius,
                    connector_type: self.types[c.kind].name.clone(),
                    type_index: c.kind,
                    state: c.state,
                });
            }
        }
        for &(i, j) in &self.pairs {
            let (a, b) = (&self.connectors[i], &self.connectors[j]);
            let other = bodies.get(b.at.cell.index()).map_or(String::new(), |x| x.get().label().to_string());
            if let Some(Some(s)) = out.get_mut(a.at.cell.index()) {
                s.pairs.push(CellPairSnapshot {
                    connector: a.name.clone(),
                    other_cell: other,
                    other_connector: b.name.clone(),
                    from: pos(a.at),
                    to: pos(b.at),
                });
            }
        }
        for m in &self.muscles {
            let (a, b) =
                (BodyRef { cell: m.spec.cell, body: m.spec.from }, BodyRef { cell: m.spec.cell, body: m.spec.to });
            let (pa, pb) = (pos(a), pos(b));
            if let Some(Some(s)) = out.get_mut(m.spec.cell.index()) {
                s.muscles.push(CellMuscleSnapshot {
                    id: m.spec.name.clone(),
                    kind: m.spec.kind,
                    from: m.spec.from,
                    to: m.spec.to,
                    rest_length: m.rest,
                    length: (pa - pb).length(),
                    from_position: pa,
                    to_position: pb,
                });
            }
        }
        for l in &self.links {
            let other = bodies.get(l.b.cell.index()).map_or(String::new(), |x| x.get().label().to_string());
            if let Some(Some(s)) = out.get_mut(l.a.cell.index()) {
                s.links.push(CellLinkSnapshot {
                    kind: match l.kind {
                        LinkKind::Pin => "pin".into(),
                        LinkKind::Merge => "merge".into(),
                    },
                    body: l.a.body,
                    other_cell: other,
                    other_body: l.b.body,
                    from: pos(l.a),
                    to: pos(l.b),
                });
            }
        }
    }
}
