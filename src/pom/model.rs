//! Controls, effectors and the J matrix (spec §5–§6): x = J·q with `J[3j + k, i] = c_ij·a_{d_i, n_j}[k]`.
//!
//! A [`Model`] exists only after every refusal of spec §7 has passed (see `checks`), so the kinematics
//! can rely on one control per plane and on valid node references.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::actuation::{column, dimension, parity, Plane};
use super::error::PomError;
use super::geometry::{node_axis, node_key, show_voxel, Lattice, Voxel, AXIS_NAMES};
use super::limits::{MAX_ID_CHARS, MAX_LENGTH};
use crate::geom::compact;

/// A node named by one voxel containing it and its index there (0–5, PFEA numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeRef {
    /// Grid coordinate (i, j, k) of a lattice voxel.
    pub voxel: Voxel,
    /// Node index in that voxel: 0 = −x, 1 = −y, 2 = −z, 3 = +x, 4 = +y, 5 = +z.
    pub node: usize,
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "voxel {} node {}", show_voxel(self.voxel), self.node)
    }
}

/// A signed axis, written `+x`, `-z`, …
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Push {
    pub axis: usize,
    /// +1 or −1.
    pub sign: i8,
}

impl fmt::Display for Push {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", if self.sign < 0 { '-' } else { '+' }, AXIS_NAMES[self.axis % 3])
    }
}

/// What an effector is for: feet count for ground support, markers are what motion capture tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// May touch the ground; counts for support in the gait checks.
    Foot,
    /// A tracked marker.
    Marker,
    #[default]
    Other,
}

/// One control node: a node pushed by an actuator, with displacement q > 0 along +`push`.
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    pub id: String,
    pub at: NodeRef,
    pub push: Push,
    /// The node at the actuator's other end, if named (it must move opposite, spec §6).
    pub partner: Option<NodeRef>,
    /// Allowed q, m (default ±5 mm, the prototype's per-node travel).
    pub range: [f64; 2],
}

/// What a control turns: its actuation dimension, sign convention and plane.
#[derive(Debug, Clone, PartialEq)]
pub struct Actuation {
    /// Rotation axis of the turning squares.
    pub d: usize,
    /// σ = a_{d,n}·e_push: converts "q along +push" to the paper's "q along a_{d,n}".
    pub sigma: i8,
    pub plane: Plane,
}

/// One end-effector: a lattice node, or a point rigidly offset from one (an "extension", moving by its
/// attach node's displacement).
#[derive(Debug, Clone, PartialEq)]
pub struct Effector {
    pub id: String,
    pub at: NodeRef,
    /// Offset of the point from its node at rest, m (zero for a plain node).
    pub offset: [f64; 3],
    /// The extension it belongs to, if any (for labels only).
    pub extension: Option<String>,
    pub role: Role,
    /// Driven (a target) rather than watched in lateral kinematics.
    pub drive: bool,
}

/// Lattice, controls and effectors with the J matrix built.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    lattice: Lattice,
    controls: Vec<Control>,
    actuations: Vec<Actuation>,
    effectors: Vec<Effector>,
    mass_voxels: Vec<Voxel>,
    /// Row-major, 3K × M.
    j: Vec<i8>,
}

impl Model {
    /// Applies the refusals of spec §7 and builds J. `mass_voxels` are extra unit masses (voxels the
    /// kinematics does not model, such as the robot's front voxels) used by the stability check.
    pub fn new(
        lattice: Lattice,
        controls: Vec<Control>,
        effectors: Vec<Effector>,
        mass_voxels: Vec<Voxel>,
    ) -> Result<Model, PomError> {
        ids(controls.iter().map(|c| c.id.as_str()), "controls")?;
        ids(effectors.iter().map(|e| e.id.as_str()), "effectors")?;
        let actuations =
            controls.iter().enumerate().map(|(i, c)| actuation(&lattice, i, c)).collect::<Result<Vec<_>, _>>()?;
        distinct_planes(&controls, &actuations)?;
        for (i, e) in effectors.iter().enumerate() {
            node_ref(&lattice, &format!("effectors[{i}]"), e.at)?;
            if !e.offset.iter().all(|c| c.is_finite()) {
                return Err(PomError::invalid(format!("effectors[{i}]"), "the extension offset must be finite"));
            }
        }
        let mut seen = BTreeSet::new();
        for (i, &v) in mass_voxels.iter().enumerate() {
            if lattice.contains(v) || !seen.insert(v) {
                return Err(PomError::invalid(
                    format!("lattice.mass_voxels[{i}]"),
                    format!(
                        "voxel {} is already counted; list each extra voxel once and not a lattice voxel",
                        show_voxel(v)
                    ),
                ));
            }
        }
        let mut model = Model { lattice, controls, actuations, effectors, mass_voxels, j: Vec::new() };
        for (i, c) in model.controls.iter().enumerate() {
            partner(&model, i, c)?;
        }
        let (rows, cols) = (model.rows(), model.cols());
        model.j = vec![0; rows * cols];
        for (e, eff) in model.effectors.iter().enumerate() {
            for i in 0..cols {
                let a = model.node_response(i, eff.at);
                for (k, &v) in a.iter().enumerate() {
                    model.j[(3 * e + k) * cols + i] = v;
                }
            }
        }
        Ok(model)
    }

    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }
    pub fn controls(&self) -> &[Control] {
        &self.controls
    }
    pub fn actuations(&self) -> &[Actuation] {
        &self.actuations
    }
    pub fn effectors(&self) -> &[Effector] {
        &self.effectors
    }
    pub fn mass_voxels(&self) -> &[Voxel] {
        &self.mass_voxels
    }

    /// 3K: one row per effector component.
    pub fn rows(&self) -> usize {
        3 * self.effectors.len()
    }

    /// M: one column per control.
    pub fn cols(&self) -> usize {
        self.controls.len()
    }

    /// J[row, col] ∈ {−1, 0, +1}; 0 outside the matrix.
    pub fn j(&self, row: usize, col: usize) -> i8 {
        if row < self.rows() && col < self.cols() {
            self.j[row * self.cols() + col]
        } else {
            0
        }
    }

    /// The one control driving a row with its sign, if any (each row has at most one non-zero, §5).
    pub fn driver(&self, row: usize) -> Option<(usize, i8)> {
        (0..self.cols()).map(|i| (i, self.j(row, i))).find(|&(_, s)| s != 0)
    }

    /// `<effector>.<x|y|z>`, the row names of J and of unreachable components.
    pub fn row_name(&self, row: usize) -> String {
        match self.effectors.get(row / 3) {
            Some(e) => format!("{}.{}", e.id, AXIS_NAMES[row % 3]),
            None => format!("row {row}"),
        }
    }

    /// The row of an effector component.
    pub(crate) fn row_of(&self, effector: &str, axis: usize) -> Option<usize> {
        self.effectors.iter().position(|e| e.id == effector).map(|j| 3 * j + axis)
    }

    pub(crate) fn control_index(&self, id: &str) -> Option<usize> {
        self.controls.iter().position(|c| c.id == id)
    }

    /// c_ij for a voxel: σ_i·parity against the control's voxel inside its plane, 0 outside.
    pub fn coefficient(&self, control: usize, voxel: Voxel) -> i8 {
        let (Some(c), Some(a)) = (self.controls.get(control), self.actuations.get(control)) else {
            return 0;
        };
        if a.plane.voxels.contains(&voxel) {
            a.sigma * parity(voxel, c.at.voxel)
        } else {
            0
        }
    }

    /// Displacement of a node per unit q of one control: c_ij·a_{d_i, n}.
    pub(crate) fn node_response(&self, control: usize, at: NodeRef) -> [i8; 3] {
        let c = self.coefficient(control, at.voxel);
        match self.actuations.get(control) {
            Some(a) if c != 0 => column(a.d, at.node).map(|v| c * v),
            _ => [0; 3],
        }
    }

    /// Displacement of any lattice node for control displacements `q` (equation (1) for one node);
    /// every voxel sharing the node gives the same answer (spec §4).
    pub(crate) fn node_displacement(&self, at: NodeRef, q: &[f64]) -> [f64; 3] {
        let mut x = [0.0; 3];
        for (i, qi) in q.iter().enumerate().take(self.cols()) {
            let a = self.node_response(i, at);
            for k in 0..3 {
                x[k] += f64::from(a[k]) * qi;
            }
        }
        x
    }

    /// Rest position of effector j, m.
    pub(crate) fn effector_rest(&self, j: usize) -> [f64; 3] {
        let Some(e) = self.effectors.get(j) else { return [0.0; 3] };
        let p = self.lattice.node_position(e.at.voxel, e.at.node);
        [p[0] + e.offset[0], p[1] + e.offset[1], p[2] + e.offset[2]]
    }
}

// The refusals of spec §7, made while a model is built.

/// Ids name CSV columns and J rows: unique, non-empty, not `t`, and without CSV or path punctuation.
pub(crate) fn ids<'a>(ids: impl Iterator<Item = &'a str>, list: &str) -> Result<(), PomError> {
    let mut seen = BTreeSet::new();
    for (i, id) in ids.enumerate() {
        let path = format!("{list}[{i}].id");
        if id.chars().count() > MAX_ID_CHARS {
            let head: String = id.chars().take(20).collect();
            return Err(PomError::invalid(
                path,
                format!("{head:?}… is {} characters long: an id has at most {MAX_ID_CHARS}", id.chars().count()),
            ));
        }
        if id.is_empty() || id == "t" || id.contains([',', '"', '\n', '\r', '.']) {
            return Err(PomError::invalid(
                path,
                format!("{id:?} cannot be an id: use a non-empty name other than `t` without commas, dots or quotes"),
            ));
        }
        if !seen.insert(id) {
            return Err(PomError::invalid(path, format!("{id:?} is used twice in `{list}`: give each a distinct id")));
        }
    }
    Ok(())
}

/// A node reference must name a lattice voxel and a node index 0–5.
pub(crate) fn node_ref(lattice: &Lattice, path: &str, at: NodeRef) -> Result<(), PomError> {
    if !lattice.contains(at.voxel) {
        return Err(PomError::invalid(
            format!("{path}.voxel"),
            format!("voxel {} is not in the lattice: name a `#` cell of `lattice.layers`", show_voxel(at.voxel)),
        ));
    }
    if at.node > 5 {
        return Err(PomError::invalid(
            format!("{path}.node"),
            format!("node {} does not exist: use 0 = −x, 1 = −y, 2 = −z, 3 = +x, 4 = +y or 5 = +z", at.node),
        ));
    }
    Ok(())
}

/// The actuation dimension, sign and plane of control `index`, refusing a push along the node's axis.
pub(crate) fn actuation(lattice: &Lattice, index: usize, c: &Control) -> Result<Actuation, PomError> {
    let path = format!("controls[{index}]");
    node_ref(lattice, &path, c.at)?;
    let axis = node_axis(c.at.node);
    let Some(d) = dimension(axis, c.push.axis) else {
        let allowed: Vec<String> =
            (0..3).filter(|&k| k != axis).map(|k| format!("±{}", AXIS_NAMES[k])).collect::<Vec<_>>();
        return Err(PomError::PushAlongOwnAxis {
            path: format!("{path}.push"),
            id: c.id.clone(),
            node: c.at.node,
            push: c.push.to_string(),
            allowed: allowed.join(" or "),
        });
    };
    let sigma = column(d, c.at.node)[c.push.axis] * c.push.sign;
    let [lo, hi] = c.range;
    if !(lo.is_finite() && hi.is_finite() && lo < hi && lo <= 0.0 && hi >= 0.0 && -lo <= MAX_LENGTH && hi <= MAX_LENGTH)
    {
        return Err(PomError::invalid(
            format!("{path}.range"),
            format!(
                "[{}, {}] must be [low, high] in m with low < high, the rest position 0 inside and within ±{MAX_LENGTH}, e.g. [-0.005, 0.005]",
                compact(lo),
                compact(hi)
            ),
        ));
    }
    Ok(Actuation { d, sigma, plane: Plane::through(lattice, c.at.voxel, d) })
}

/// Refuses two controls in one plane of motion: their contributions would not be orthogonal.
pub(crate) fn distinct_planes(controls: &[Control], actuations: &[Actuation]) -> Result<(), PomError> {
    for (b, ab) in actuations.iter().enumerate() {
        for (a, aa) in actuations.iter().enumerate().take(b) {
            if aa.d == ab.d && aa.plane.voxels.contains(&controls[b].at.voxel) {
                let voxels: Vec<String> = aa.plane.voxels.iter().map(|&v| show_voxel(v)).collect();
                return Err(PomError::SharedPlane {
                    first: controls[a].id.clone(),
                    second: controls[b].id.clone(),
                    d: aa.d,
                    axis: aa.plane.axis_name(),
                    layer: aa.plane.layer,
                    voxels: voxels.join(", "),
                });
            }
        }
    }
    Ok(())
}

/// A named partner must be another node of the control's plane on the push line through the control
/// node, moving opposite along the push axis, so the actuator's length changes by 2q.
pub(crate) fn partner(model: &Model, index: usize, c: &Control) -> Result<(), PomError> {
    let Some(p) = c.partner else { return Ok(()) };
    let path = format!("controls[{index}].partner");
    node_ref(model.lattice(), &path, p)?;
    let plane = &model.actuations()[index].plane;
    let refuse = |why: String| Err(PomError::invalid(path.clone(), format!("control {:?}: {why}", c.id)));
    if !plane.voxels.contains(&p.voxel) {
        return refuse(format!(
            "partner {p} is outside the plane of motion d = {}, {}-layer {}: name a node of a voxel in that layer",
            plane.d,
            plane.axis_name(),
            plane.layer
        ));
    }
    let (kc, kp) = (node_key(c.at.voxel, c.at.node), node_key(p.voxel, p.node));
    if kc == kp {
        return refuse(format!("partner {p} is the control node itself: name the node at the actuator's other end"));
    }
    if (0..3).any(|k| k != c.push.axis && kc[k] != kp[k]) {
        return refuse(format!(
            "partner {p} is not on the push line ({}) through the control node: an actuator pushes along its own length",
            c.push
        ));
    }
    let along = model.node_response(index, p)[c.push.axis] * c.push.sign;
    if along != -1 {
        let how = if along == 0 { "does not move" } else { "moves the same way" };
        return refuse(format!(
            "partner {p} {how} along {} when the control node moves, so the actuator would not change length; \
             name a node that moves opposite (e.g. the same node of the neighbouring voxel along the push axis)",
            c.push
        ));
    }
    Ok(())
}
