//! Refusals (spec §7) and range checks (spec §6): what makes a set of controls unusable, and which
//! actuator displacements exceed the prototype's travel.

use std::collections::BTreeSet;

use crate::geom::compact;

use super::actuation::{column, dimension, Plane};
use super::error::PomError;
use super::geometry::{node_axis, node_key, show_voxel, Lattice, AXIS_NAMES};
use super::model::{Actuation, Control, Model, NodeRef};

/// Default control range, m: the prototype's actuators change their length by ±10 mm, moving each of
/// their two nodes by ±5 mm (paper).
pub const DEFAULT_RANGE: [f64; 2] = [-0.005, 0.005];

/// Slack on range limits, m, so that a target exactly at a limit is not reported for rounding.
const RANGE_SLACK: f64 = 1e-12;

/// Ids name CSV columns and J rows: unique, non-empty, not `t`, and without CSV or path punctuation.
/// The longest id of a control, effector or extension: ids head table columns, CSV headers and plot
/// legends.
pub const MAX_ID_CHARS: usize = 100;

/// The largest length accepted anywhere in a spec (pitch, offsets, ranges, targets, displacements), m: a
/// lattice a kilometre wide is a typo, and 1e308 would overflow every sum that follows.
pub const MAX_LENGTH: f64 = 1e3;

/// The largest time accepted (keyframes, gait period, dt), s, as for scenarios.
pub const MAX_TIME: f64 = 1e6;

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

/// One actuator displacement outside its control's range.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub t: f64,
    pub control: usize,
    pub q: f64,
    /// How far outside the range, m (positive).
    pub excess: f64,
}

/// Every sample where a control leaves its range (with 1e−12 m slack for rounding).
pub fn range_violations(model: &Model, times: &[f64], q: &[Vec<f64>]) -> Vec<Violation> {
    let mut out = Vec::new();
    for (&t, qs) in times.iter().zip(q) {
        for (i, (c, &v)) in model.controls().iter().zip(qs).enumerate() {
            let excess = (c.range[0] - v).max(v - c.range[1]);
            if excess > RANGE_SLACK {
                out.push(Violation { t, control: i, q: v, excess });
            }
        }
    }
    out
}

/// Clamps every control displacement into its range (`clip: true`).
pub fn clip(model: &Model, q: &mut [f64]) {
    for (c, v) in model.controls().iter().zip(q.iter_mut()) {
        *v = v.clamp(c.range[0], c.range[1]);
    }
}
