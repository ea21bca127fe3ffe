//! The soft-cell part of a scenario (spec `cells.md` §10): `cell_types` and `cells`, with each cell's
//! connectors and muscles; connector types, interactions, links, chains, the schedule and the plan that
//! resolves them all are in [`super::cell_parts`], which builds on this module.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ScenarioError, MAX_POSITION};
use crate::model::cell::muscle::MuscleKind;
use crate::model::cell::{CellParams, CellPreset, Normals, RestArea, Ring, MIN_BODIES};

/// A cell type: a preset filled in by the explicit keys (explicit keys win).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellTypeSpec {
    /// `scs-paper` (default: the paper's numbers, clean model) or `scs-code` (the SCS code's defaults
    /// and quirks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<CellPreset>,
    /// Another type to copy first, then override (its preset too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub like: Option<String>,
    /// N, membrane bodies: even, ≥ 8 (scs-paper 100, paper; scs-code 30, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bodies: Option<usize>,
    /// R, cell radius in m (scs-paper 5, code comment; scs-code 3, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// C, pressure constant in N per membrane body (scs-paper 200, code comment; scs-code 10, code; the
    /// paper's maximum stable 450, written "m⁻²" there, which cannot be: C times a ratio is a force).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<f64>,
    /// c_d, damping of velocities relative to the cell's mean, N·s/m (scs-paper 50, code comment;
    /// scs-code 1, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<f64>,
    /// γ, damping of the cell's mean velocity, N·s/m (0, ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drag: Option<f64>,
    /// Body density, kg/m² (1, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Body friction coefficient (0.1, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
    /// Body restitution (0, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f64>,
    /// A₀: `circle` (πR², code) or `polygon` (the rest N-gon, ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_area: Option<RestArea>,
    /// Pressure direction: `geometric` (scs-paper, ours) or `scs` (scs-code, the code's quirk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normals: Option<Normals>,
    /// Ring joint anchors: `closed` (scs-paper, ours) or `scs` (scs-code, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ring: Option<Ring>,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Name shown in metrics and videos; unique among cells.
    pub id: String,
    /// A key of `cell_types`.
    #[serde(rename = "type")]
    pub cell_type: String,
    /// Centre of the cell at build, m.
    pub position: [f64; 2],
    /// Counter-clockwise turn of the ring at build, rad (default 0: body 0 on top).
    #[serde(default)]
    pub rotation: f64,
    /// Connectors (magnets) on membrane bodies (`cells.md` §4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connectors: Vec<ConnectorSpec>,
    /// Muscles between two bodies of this cell (`cells.md` §5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muscles: Vec<MuscleJson>,
}

/// `cell_types.<key>` resolved (following `like`), or the error at its path.
pub fn resolve_type(types: &BTreeMap<String, CellTypeSpec>, key: &str) -> Result<CellParams, ScenarioError> {
    let err =
        |field: &str, message: String| ScenarioError::CellType { key: key.to_string(), field: field.into(), message };
    // The chain of `like`s, from `key` back to its root; a loop is refused.
    let mut chain = vec![key.to_string()];
    let mut at = key;
    while let Some(parent) = types.get(at).and_then(|t| t.like.as_deref()) {
        if chain.iter().any(|k| k == parent) {
            return Err(err("like", format!("`like` loops back to {parent:?}; remove one of the references")));
        }
        if !types.contains_key(parent) {
            let known: Vec<&str> = types.keys().map(String::as_str).collect();
            return Err(err("like", format!("{parent:?} is not a cell type; use one of {known:?}")));
        }
        chain.push(parent.to_string());
        at = parent;
    }
    // The nearest preset wins: the type's own, else its parent's, …
    let preset = chain.iter().find_map(|k| types[k].preset).unwrap_or(CellPreset::ScsPaper);
    let mut p = preset.params();
    for k in chain.iter().rev() {
        let t = &types[k];
        let set = |v: &mut f64, o: Option<f64>| {
            if let Some(o) = o {
                *v = o
            }
        };
        if let Some(n) = t.bodies {
            p.bodies = n;
        }
        set(&mut p.radius, t.radius);
        set(&mut p.pressure, t.pressure);
        set(&mut p.damping, t.damping);
        set(&mut p.drag, t.drag);
        set(&mut p.density, t.density);
        set(&mut p.friction, t.friction);
        set(&mut p.restitution, t.restitution);
        p.rest_area = t.rest_area.unwrap_or(p.rest_area);
        p.normals = t.normals.unwrap_or(p.normals);
        p.ring = t.ring.unwrap_or(p.ring);
    }
    if p.bodies < MIN_BODIES || p.bodies % 2 == 1 {
        // Odd rings have no body N/2 opposite body 0, which the spec's indexing (lowest body, edges,
        // chains) relies on.
        let fix = if p.bodies < MIN_BODIES { MIN_BODIES } else { p.bodies + 1 };
        return Err(err(
            "bodies",
            format!("{} bodies: a membrane needs an even number ≥ {MIN_BODIES}; use e.g. {fix}", p.bodies),
        ));
    }
    if p.bodies > 10_000 {
        return Err(err("bodies", format!("{} bodies: at most 10000 per cell", p.bodies)));
    }
    p.validate().map_err(|e| {
        let field = match &e {
            crate::model::cell::CellParamError::Radius(_) => "radius",
            crate::model::cell::CellParamError::Density(_) => "density",
            crate::model::cell::CellParamError::Negative { field, .. } => field,
            crate::model::cell::CellParamError::TooFewBodies(_) => "bodies",
        };
        err(field, e.to_string())
    })?;
    Ok(p)
}

/// Checks `cell_types` and `cells`: types resolve, ids unique, positions finite, no two membranes
/// overlapping at t = 0. Returns each cell's parameters.
pub fn validate(types: &BTreeMap<String, CellTypeSpec>, cells: &[CellSpec]) -> Result<Vec<CellParams>, ScenarioError> {
    for key in types.keys() {
        resolve_type(types, key)?;
    }
    let mut params = Vec::with_capacity(cells.len());
    for (i, c) in cells.iter().enumerate() {
        let err = |field: &str, message: String| ScenarioError::Cell { index: i, field: field.into(), message };
        if let Some(j) = cells[..i].iter().position(|o| o.id == c.id) {
            return Err(err("id", format!("{:?} is already the id of cells[{j}]; ids must be unique", c.id)));
        }
        if !types.contains_key(&c.cell_type) {
            let known: Vec<&str> = types.keys().map(String::as_str).collect();
            return Err(err("type", format!("{:?} is not a key of `cell_types`; use one of {known:?}", c.cell_type)));
        }
        if !c.position.iter().all(|x| x.is_finite() && x.abs() <= MAX_POSITION) {
            return Err(err("position", "both coordinates must be finite and within ±1e5 m".into()));
        }
        if !c.rotation.is_finite() {
            return Err(err("rotation", "must be a finite angle in rad".into()));
        }
        params.push(resolve_type(types, &c.cell_type)?);
    }
    // Outer radius R + r_b: two membranes overlap when their centres are closer than the sum. Cells go
    // into a grid of squares as wide as the largest possible sum, so each is compared with the earlier
    // cells of its 3 × 3 squares only: a file of 10⁵ cells is checked in moments, not 10¹⁰ comparisons.
    // Cells are taken in file order, so the overlap reported is the first (i, then j) as before.
    let outer = |p: &CellParams| p.radius + p.body_radius();
    let reach = 2.0 * params.iter().map(outer).fold(0.0, f64::max);
    let square = |c: &CellSpec| ((c.position[0] / reach).floor() as i64, (c.position[1] / reach).floor() as i64);
    let mut grid: std::collections::HashMap<(i64, i64), Vec<usize>> = std::collections::HashMap::new();
    for (i, c) in cells.iter().enumerate() {
        let (sx, sy) = square(c);
        let mut near: Vec<usize> = (-1..=1)
            .flat_map(|dx| (-1..=1).map(move |dy| (sx + dx, sy + dy)))
            .filter_map(|k| grid.get(&k))
            .flatten()
            .copied()
            .collect();
        near.sort_unstable();
        for j in near {
            let (a, b) = (&params[i], &params[j]);
            let need = outer(a) + outer(b);
            let d = (c.position[0] - cells[j].position[0]).hypot(c.position[1] - cells[j].position[1]);
            if d < need {
                return Err(ScenarioError::Cell {
                    index: i,
                    field: "position".into(),
                    message: format!(
                        "the membrane overlaps that of cells[{j}] ({:?}) at t = 0: centres {} m apart, at least {} m \
                         needed (R + r_b of each); move it",
                        cells[j].id,
                        crate::geom::compact(d),
                        crate::geom::compact(need)
                    ),
                });
            }
        }
        grid.entry((sx, sy)).or_default().push(i);
    }
    Ok(params)
}

/// A connector switch (spec §4; the states active/inactive/passive are derived).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Switch {
    On,
    Off,
}

fn on() -> Switch {
    Switch::On
}

fn c() -> String {
    "c".into()
}

/// Connectors of one type on a list of bodies: one connector per body, ids `<id>0`, `<id>1`, ….
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectorSpec {
    /// Prefix of the ids (default `c`: `c0`, `c1`, …).
    #[serde(default = "c")]
    pub id: String,
    /// A key of `connector_types`.
    #[serde(rename = "type")]
    pub connector_type: String,
    /// Membrane body indices (0 on top, clockwise).
    pub bodies: Vec<usize>,
    /// `on` (default) or `off` at t = 0.
    #[serde(default = "on")]
    pub switch: Switch,
}

fn hz() -> f64 {
    50.0
}
fn one() -> f64 {
    1.0
}
fn min_length() -> f64 {
    0.2
}

/// A muscle between the centres of two bodies of this cell (spec §5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MuscleJson {
    /// Unique within the cell; the schedule names it `<cell>/<id>`.
    pub id: String,
    /// `spring` (commanded rest length), `fixed` (never commanded) or `rope` (commanded maximum).
    pub kind: MuscleKind,
    /// Body indices of its two ends (different).
    pub from: usize,
    pub to: usize,
    /// Spring frequency, Hz (50, code demo cell).
    #[serde(default = "hz")]
    pub hz: f64,
    /// Spring damping ratio ζ (1, code demo cell).
    #[serde(default = "one")]
    pub damping_ratio: f64,
    /// m: command 0 gives m·L₀ (0.2, code).
    #[serde(default = "min_length")]
    pub min_length: f64,
    /// L₀ as a factor of the distance of the two bodies at build (1).
    #[serde(default = "one")]
    pub length_factor: f64,
    /// Initial command ℓ ∈ [0, 1] (1: idle, rest length L₀).
    #[serde(default = "one")]
    pub length: f64,
}
