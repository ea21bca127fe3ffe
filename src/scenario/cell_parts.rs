//! What joins and drives soft cells in a scenario (spec `cells.md` §4–§6, §9, §10): connector types and
//! interactions, links, chains and the schedule (each cell's connectors and muscles are in
//! [`super::cells`]). [`plan`] checks all of it (errors name the JSON path and the fix) and resolves
//! names to the indices the world uses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::cells::{resolve_type, CellSpec, CellTypeSpec, MuscleJson, Switch};
use super::{ScenarioError, MAX_POSITION};
use crate::geom::{compact, Vec2};
use crate::model::cell::connector::{self, ConnectorParams, MU_0};
use crate::model::cell::fold::{self, Design, Program, Site, SiteKind, StopChain};
use crate::model::cell::muscle::MuscleKind;
use crate::model::cell::{CellParams, CellPreset};
use crate::sim::{CellAction, CellEvent, ConnectorType, LinkKind, MuscleSpec};
use crate::snapshot::BodyId;

/// The code's near cap, written as the string `"9R/N"` (R, N of the carrying cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum NearCapRule {
    #[serde(rename = "9R/N")]
    NineRByN,
}

/// L, where the magnet force stops growing as 1/r² (spec §4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum NearCapSpec {
    /// A length in m (> 0).
    Length(f64),
    /// `"9R/N"`: the code's "body length" of the carrying cell (0.45 m for N 100, R 5).
    Rule(NearCapRule),
}

/// A connector type (spec §4, §7). Unset keys come from `preset`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectorTypeSpec {
    /// `scs-paper` (default; hidden mass 0) or `scs-code` (hidden mass 1 kg, code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<CellPreset>,
    /// A, N·m² (> 0; 500, code). Pairs of types use √(A_a·A_b) unless `interactions` says otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength: Option<f64>,
    /// r_int, the interaction radius in m (2.0, code): two connectors pair when closer than the sum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// L, the near cap: `"9R/N"` (default, code) or a length in m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near_cap: Option<NearCapSpec>,
    /// Extra mass on the carrying body, kg (scs-paper 0, ours; scs-code 1, the code's helper body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_mass: Option<f64>,
}

/// The amplitude A_ab of one pair of connector types: `strength`, or the pole form q1, q2, mu.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InteractionSpec {
    /// Two keys of `connector_types` (the order does not matter).
    pub a: String,
    pub b: String,
    /// A_ab, N·m²: > 0 attracts, < 0 repels (ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength: Option<f64>,
    /// Pole strengths, A·m (paper's F = μ·q₁q₂/(4πr²)): A_ab = −μ·q₁q₂/(4π), like poles repel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q1: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q2: Option<f64>,
    /// Permeability, H/m (default μ₀ = 1.2566e-6, air).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
}

/// `t`, `r`, `b`, `l`: the edge of cell a centred on body 0, N/4, N/2 or 3N/4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Edge {
    #[serde(rename = "t")]
    Top,
    #[serde(rename = "r")]
    Right,
    #[serde(rename = "b")]
    Bottom,
    #[serde(rename = "l")]
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkKindSpec {
    /// A revolute joint at the midpoint of two bodies of two cells: `a` and `b` are `"cell:body"`.
    Pin,
    /// Fuses two cells along an edge: `a` and `b` are cell ids, with `edge` and `fraction`.
    Merge,
}

/// A permanent joint between two cells (spec §6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub kind: LinkKindSpec,
    /// `pin`: `"cell:body"` (e.g. `"a:25"`); `merge`: a cell id.
    pub a: String,
    pub b: String,
    /// `merge` only: the edge of cell a (`t`, `r`, `b`, `l`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<Edge>,
    /// `merge` only: k = round(fraction·N) facing body pairs are joined, in (0, 0.5].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
}

/// n cells in a line, neighbours pinned at their facing bodies (spec §6). Cell j is `<id>.<j>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// Prefix of the cell ids: `<id>.0`, `<id>.1`, ….
    pub id: String,
    /// A key of `cell_types`.
    #[serde(rename = "type")]
    pub cell_type: String,
    /// Number of cells (≥ 2); with a `program`, its letter's length (which it defaults to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<usize>,
    /// Centre of cell 0, m.
    pub start: [f64; 2],
    /// Direction θ of the line, rad (0: to the right); every cell is turned by θ.
    #[serde(default)]
    pub direction: f64,
    /// A folding program, `builtin:E`, `builtin:P`, `builtin:F` or `builtin:L` (`cells.md` §11; letters
    /// are reconstructions, not the paper's sequences): adds the attraction sites' connectors, of the
    /// connector types `fold-bend`, `fold-double` and `fold-lattice` (and `fold-straight`,
    /// `fold-zigzag`, `fold-diagonal` when `sites` gives them angles), which `connector_types` may
    /// define to override the design's strength, radius and near cap. Interpretation (ours): the bend
    /// sites join chain neighbours, which the spec's sites do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Connectors per site face (3, ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_connectors: Option<usize>,
    /// A key of `cell_types` for the cells where the letter turns (default: `type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_type: Option<String>,
    /// With a `program`: the membrane angles of the site connectors, replacing the builtin design's
    /// for the kinds given (ours; `cells.md` §11 lists them "in the JSON").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sites: Option<FoldSitesJson>,
    /// How neighbours are joined: `touching` (default; spec §6: the membranes touch and the pin sits where
    /// they meet) or, with a `program`, `stops` (ours): each joint gets a gap, bridged by the pin at its
    /// midpoint, that lets it turn freely until the two cells touch at ±90°; where the letter needs it a
    /// cell's pins sit a quarter turn apart (`Program::stop_chain`), so at the stops the chain is the
    /// letter exactly. The chain is laid out with its joints open, and each joint's bend site, a
    /// connector type of its own (`fold-bend.<j>`, with the parameters of `fold-bend`; the fan of
    /// `sites.bend` recentred where the cells touch; the other site kinds unused), pulls it shut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joints: Option<ChainJoints>,
    /// Muscles given to each cell listed in `muscle_cells`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muscles: Vec<MuscleJson>,
    /// Indices of the chain cells that carry `muscles` (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub muscle_cells: Option<Vec<usize>>,
}

/// The connector type of the sites of stop joint `joint` (from cell `joint` to cell `joint + 1`).
fn stop_type_name(joint: usize) -> String {
    format!("{}.{joint}", SiteKind::Bend.type_name())
}

/// How a chain's neighbours are joined (see [`ChainSpec::joints`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChainJoints {
    /// Touching membranes, pinned where they meet (spec §6).
    #[default]
    Touching,
    /// A gap per joint, closed by a contact stop at the letter's bend (ours; needs a `program`).
    Stops,
}

/// The site connectors' membrane angles of a folding chain, in degrees, one entry per connector of a
/// face (each list replaces the builtin one; an empty list removes the kind). On a neighbour site
/// (`bend`, `double`, `straight`, `zigzag`) an angle is measured on each of the two cells from its
/// joint towards the side the site is on (the inside of the turn; both sides for `straight` and
/// `zigzag`); on a `lattice` or `diagonal` site it is the offset from the direction of the partner's
/// target. Strength, radius and near cap come from the connector type `fold-<kind>` (define it in
/// `connector_types` to change them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FoldSitesJson {
    /// Joints next to one corner of the letter (connector type `fold-bend`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bend: Option<Vec<f64>>,
    /// Joints between two corners that turn the same way (`fold-double`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub double: Option<Vec<f64>>,
    /// Joints with no corner on either side (`fold-straight`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub straight: Option<Vec<f64>>,
    /// Joints between two corners that turn opposite ways (`fold-zigzag`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zigzag: Option<Vec<f64>>,
    /// Cells that are lattice neighbours in the letter (they touch there) but not in the chain
    /// (`fold-lattice`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lattice: Option<Vec<f64>>,
    /// Cells that are diagonal neighbours in the letter, across a corner (`fold-diagonal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagonal: Option<Vec<f64>>,
}

impl FoldSitesJson {
    fn get(&self, kind: SiteKind) -> Option<&Vec<f64>> {
        match kind {
            SiteKind::Bend => self.bend.as_ref(),
            SiteKind::Double => self.double.as_ref(),
            SiteKind::Straight => self.straight.as_ref(),
            SiteKind::Zigzag => self.zigzag.as_ref(),
            SiteKind::Lattice => self.lattice.as_ref(),
            SiteKind::Diagonal => self.diagonal.as_ref(),
        }
    }
}

/// One scheduled change, applied once at the first step with t ≤ t_k, in file order (spec §9). Exactly
/// one target: `connectors` (with `switch`), `muscle` (with `length`, optional `ramp`) or `cell` (with
/// `pressure`, `rest_area_scale` and/or `push`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// When, s (≥ 0).
    pub t: f64,
    /// `"*"` (every connector), `"a:*"` (every connector of cell a) or `"a:c2"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connectors: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch: Option<Switch>,
    /// `"a/m0"` (muscle m0 of cell a) or `"*/m0"` (muscle m0 of every cell that has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub muscle: Option<String>,
    /// Command ℓ ∈ [0, 1]: rest length L₀·(m + (1 − m)·ℓ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Seconds over which the command changes linearly (default 0: at once; ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp: Option<f64>,
    /// A cell id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<String>,
    /// New pressure constant C, N per body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<f64>,
    /// New factor on A₀ (SCS keys: 1.05, 0.95).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_area_scale: Option<f64>,
    /// A velocity in m/s added to every body of the cell (an impulse m_i·Δv each; ours, e.g. to release
    /// two cells after a switch-off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<[f64; 2]>,
}

/// A cell to build (the scenario's cells, then the chains' cells).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCell {
    pub id: String,
    pub type_name: String,
    pub params: CellParams,
    pub position: Vec2,
    pub rotation: f64,
}

/// A connector to build: cell index in [`CellPlan::cells`], name, body, type index, switched on.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedConnector {
    pub cell: usize,
    pub name: String,
    pub body: usize,
    pub kind: usize,
    pub on: bool,
}

/// Everything about cells, resolved: cell ids become indices (add the id of the first cell to get a
/// [`BodyId`]), type names become type indices, selectors become lists.
#[derive(Debug, Clone, PartialEq)]
pub struct CellPlan {
    pub cells: Vec<PlannedCell>,
    pub connector_types: Vec<ConnectorType>,
    pub strengths: Vec<Vec<f64>>,
    pub connectors: Vec<PlannedConnector>,
    /// `cell` holds the cell index (as a `BodyId` relative to the first cell).
    pub muscles: Vec<MuscleSpec>,
    pub links: Vec<(LinkKind, (usize, usize), (usize, usize))>,
    /// Cells in actions hold cell indices like `muscles`.
    pub events: Vec<CellEvent>,
    /// The chains with a folding program.
    pub folds: Vec<PlannedFold>,
}

/// A chain with a folding program: its cells are `first .. first + program.cells()` of
/// [`CellPlan::cells`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedFold {
    pub chain: String,
    pub first: usize,
    pub program: Program,
    pub sites: Vec<Site>,
    /// With `joints: stops`, the joints' stops and the cells' pin offsets ([`Program::stop_chain`]).
    pub stops: Option<StopChain>,
    /// The chain's centre spacing d_c and the cells' diameter D, m.
    pub pitch: f64,
    pub diameter: f64,
    /// Every site connector: which chain cell carries it, its name, the chain cell it attracts.
    pub connectors: Vec<FoldConnector>,
}

/// One connector of a folding site.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldConnector {
    pub cell: usize,
    pub name: String,
    pub partner: usize,
    pub kind: SiteKind,
}

impl CellPlan {
    /// Moves every cell reference by `first` (the id of the first cell in the world).
    pub fn offset(mut self, first: usize) -> CellPlan {
        for m in &mut self.muscles {
            m.cell = BodyId(m.cell.0 + first);
        }
        for e in &mut self.events {
            match &mut e.action {
                CellAction::Pressure { cell, .. }
                | CellAction::RestAreaScale { cell, .. }
                | CellAction::Push { cell, .. } => *cell = BodyId(cell.0 + first),
                CellAction::Switch { .. } | CellAction::Muscle { .. } => {}
            }
        }
        self
    }
}

fn at(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError::At { path: path.into(), message: message.into() }
}

fn finite_in(path: &str, value: f64, lo: f64, hi: f64, what: &str) -> Result<(), ScenarioError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(at(path, format!("{} is out of range: {what}", compact(value))))
    }
}

fn positive(path: &str, value: f64, what: &str) -> Result<(), ScenarioError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(at(path, format!("{} is invalid: {what} must be finite and > 0", compact(value))))
    }
}

/// The parts of a scenario [`plan`] reads.
pub struct CellInput<'a> {
    pub cell_types: &'a BTreeMap<String, CellTypeSpec>,
    pub cells: &'a [CellSpec],
    pub connector_types: &'a BTreeMap<String, ConnectorTypeSpec>,
    pub interactions: &'a [InteractionSpec],
    pub links: &'a [LinkSpec],
    pub chains: &'a [ChainSpec],
    pub schedule: &'a [EventSpec],
}

/// Checks and resolves the cells' connectors, muscles, links, chains and schedule.
pub fn plan(input: &CellInput<'_>) -> Result<CellPlan, ScenarioError> {
    let params = super::cells::validate(input.cell_types, input.cells)?;
    let mut cells: Vec<PlannedCell> = input
        .cells
        .iter()
        .zip(params)
        .map(|(c, p)| PlannedCell {
            id: c.id.clone(),
            type_name: c.cell_type.clone(),
            params: p,
            position: Vec2::new(c.position[0], c.position[1]),
            rotation: c.rotation,
        })
        .collect();

    // Connector types, in key order (the colour order), and A_ab.
    let mut connector_types = Vec::new();
    for (name, t) in input.connector_types {
        let path = |f: &str| format!("connector_types.{name}.{f}");
        let preset = t.preset.unwrap_or(CellPreset::ScsPaper);
        let strength = t.strength.unwrap_or(500.0);
        positive(&path("strength"), strength, "the strength A in N·m²")?;
        let radius = t.radius.unwrap_or(2.0);
        positive(&path("radius"), radius, "the interaction radius in m")?;
        let near_cap = match t.near_cap {
            None | Some(NearCapSpec::Rule(NearCapRule::NineRByN)) => None,
            Some(NearCapSpec::Length(l)) => {
                positive(&path("near_cap"), l, "the near cap L in m (or \"9R/N\")")?;
                Some(l)
            }
        };
        let hidden_mass = t.hidden_mass.unwrap_or(match preset {
            CellPreset::ScsPaper => 0.0,
            CellPreset::ScsCode => 1.0,
        });
        finite_in(&path("hidden_mass"), hidden_mass, 0.0, 1e6, "a mass in kg ≥ 0")?;
        connector_types.push(ConnectorType {
            name: name.clone(),
            params: ConnectorParams { strength, radius, near_cap, hidden_mass },
        });
    }
    // A folding program's site types, unless the scenario defines them.
    // Each chain's program and its sites (the design's layout, or its stop chain's).
    let mut programs: Vec<Option<(Program, Vec<Site>)>> = Vec::new();
    let mut stops: Vec<Option<StopChain>> = Vec::new();
    // Each stop joint's sites get a connector type of their own, `fold-bend.<j>`, that does not attract
    // the other joints' (ours): a cell carries two joints' fans, and each must close its own joint.
    let mut stop_types: Vec<usize> = Vec::new();
    for (k, ch) in input.chains.iter().enumerate() {
        let path = |f: &str| format!("chains[{k}].{f}");
        let Some(name) = &ch.program else {
            if ch.joints == Some(ChainJoints::Stops) {
                return Err(at(path("joints"), "`stops` are set by a folding `program`; add one or remove `joints`"));
            }
            programs.push(None);
            stops.push(None);
            continue;
        };
        let program = name.strip_prefix("builtin:").and_then(Program::builtin).ok_or_else(|| {
            let known: Vec<String> = fold::builtin_names().iter().map(|n| format!("builtin:{n}")).collect();
            at(path("program"), format!("{name:?} is not a folding program; use one of {known:?}"))
        })?;
        let count = ch.site_connectors.unwrap_or(3);
        if !(1..=10).contains(&count) {
            return Err(at(path("site_connectors"), format!("{count} connectors per site: use 1 … 10")));
        }
        let mut design = Design::builtin(count);
        if let Some(sites) = &ch.sites {
            for kind in SiteKind::ALL {
                let Some(list) = sites.get(kind) else { continue };
                let field = format!("sites.{}", kind.key());
                if list.len() > 10 {
                    return Err(at(path(&field), format!("{} angles: give at most 10 per face", list.len())));
                }
                if let Some(n) = ch.site_connectors {
                    if !list.is_empty() && list.len() != n {
                        return Err(at(
                            path(&field),
                            format!(
                                "{} angles, but `site_connectors` is {n}; give {n} angles or leave out `site_connectors`",
                                list.len()
                            ),
                        ));
                    }
                }
                for (m, &a) in list.iter().enumerate() {
                    if !a.is_finite() || a.abs() > 180.0 {
                        return Err(at(
                            path(&format!("{field}[{m}]")),
                            format!("{} is invalid: give an angle in degrees within ±180", compact(a)),
                        ));
                    }
                }
                design.site_mut(kind).angles = list.iter().map(|a| a.to_radians()).collect();
            }
        }
        for kind in SiteKind::ALL {
            let d = design.site(kind);
            if d.angles.is_empty() {
                continue;
            }
            if !connector_types.iter().any(|t| t.name == kind.type_name()) {
                connector_types.push(ConnectorType {
                    name: kind.type_name().to_string(),
                    params: ConnectorParams {
                        strength: d.strength,
                        radius: d.radius,
                        near_cap: Some(d.near_cap),
                        hidden_mass: 0.0,
                    },
                });
            }
        }
        let stop = (ch.joints == Some(ChainJoints::Stops)).then(|| program.stop_chain());
        let sites = match &stop {
            Some(chain) => program.stop_layout(chain, &design),
            None => program.layout(&design),
        };
        if stop.is_some() {
            let bend = connector_types.iter().find(|t| t.name == SiteKind::Bend.type_name()).map(|t| t.params);
            for site in &sites {
                let name = stop_type_name(site.a);
                match connector_types.iter().position(|t| t.name == name) {
                    Some(i) => stop_types.push(i),
                    None => {
                        stop_types.push(connector_types.len());
                        connector_types.push(ConnectorType { name, params: bend.expect("the bend type exists") });
                    }
                }
            }
        }
        stops.push(stop);
        programs.push(Some((program, sites)));
    }
    let names: Vec<&str> = connector_types.iter().map(|t| t.name.as_str()).collect();
    let n = connector_types.len();
    let mut strengths = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            strengths[i][j] =
                connector::default_strength(connector_types[i].params.strength, connector_types[j].params.strength);
        }
    }
    for &i in &stop_types {
        for &j in &stop_types {
            if i != j {
                strengths[i][j] = 0.0;
            }
        }
    }
    let type_index = |path: String, name: &str| {
        names.iter().position(|k| *k == name).ok_or_else(|| {
            let known = &names;
            at(path, format!("{name:?} is not a key of `connector_types`; use one of {known:?} or add it there"))
        })
    };
    for (k, it) in input.interactions.iter().enumerate() {
        let path = |f: &str| format!("interactions[{k}].{f}");
        let (a, b) = (type_index(path("a"), &it.a)?, type_index(path("b"), &it.b)?);
        let value = match (it.strength, it.q1, it.q2) {
            (Some(s), None, None) => {
                if !s.is_finite() || s == 0.0 {
                    return Err(at(
                        path("strength"),
                        format!("{} is invalid: A_ab must be finite and ≠ 0", compact(s)),
                    ));
                }
                s
            }
            (None, Some(q1), Some(q2)) => {
                let mu = it.mu.unwrap_or(MU_0);
                positive(&path("mu"), mu, "the permeability μ in H/m")?;
                let s = connector::pole_strength(q1, q2, mu);
                if !s.is_finite() || s == 0.0 {
                    return Err(at(path("q1"), "q1 and q2 must be finite and non-zero"));
                }
                s
            }
            _ => {
                return Err(at(
                    format!("interactions[{k}]"),
                    "give either `strength` (N·m²) or both `q1` and `q2` (A·m, with optional `mu`)",
                ))
            }
        };
        strengths[a][b] = value;
        strengths[b][a] = value;
    }

    // Chains: cells after the scenario's cells.
    let mut chain_cells: Vec<(usize, usize)> = Vec::new();
    let mut folds: Vec<PlannedFold> = Vec::new();
    let mut links = Vec::new();
    for (k, ch) in input.chains.iter().enumerate() {
        let path = |f: &str| format!("chains[{k}].{f}");
        let known_type = |field: &str, name: &str| {
            if input.cell_types.contains_key(name) {
                Ok(())
            } else {
                let known: Vec<&str> = input.cell_types.keys().map(String::as_str).collect();
                Err(at(path(field), format!("{name:?} is not a key of `cell_types`; use one of {known:?}")))
            }
        };
        known_type("type", &ch.cell_type)?;
        let p = resolve_type(input.cell_types, &ch.cell_type)?;
        let program = programs[k].as_ref().map(|(program, _)| program);
        let count = match (ch.cells, program) {
            (Some(n), Some(pr)) if n != pr.cells() => {
                return Err(at(
                    path("cells"),
                    format!(
                        "{n} cells, but letter {} has {}; set `cells` to {} or leave it out",
                        pr.name,
                        pr.cells(),
                        pr.cells()
                    ),
                ))
            }
            (_, Some(pr)) => pr.cells(),
            (Some(n), None) => n,
            (None, None) => {
                return Err(at(path("cells"), "a chain without `program` needs `cells`, the number of cells"))
            }
        };
        if !(2..=10_000).contains(&count) {
            return Err(at(path("cells"), format!("{count} cells: a chain needs 2 to 10000")));
        }
        let turn = match &ch.turn_type {
            None => None,
            Some(name) => {
                if program.is_none() {
                    return Err(at(path("turn_type"), "belongs to a chain with a `program`; remove it"));
                }
                known_type("turn_type", name)?;
                let t = resolve_type(input.cell_types, name)?;
                if t.radius != p.radius || t.bodies != p.bodies {
                    return Err(at(
                        path("turn_type"),
                        format!(
                            "{name:?} has R {} m and N {}, the chain's type R {} m and N {}; a chain's cells share R and N",
                            compact(t.radius),
                            t.bodies,
                            compact(p.radius),
                            p.bodies
                        ),
                    ));
                }
                Some(t)
            }
        };
        if ch.site_connectors.is_some() && program.is_none() {
            return Err(at(path("site_connectors"), "belongs to a chain with a `program`; remove it"));
        }
        if ch.sites.is_some() && program.is_none() {
            return Err(at(path("sites"), "belongs to a chain with a `program`; remove it"));
        }
        if !ch.start.iter().all(|x| x.is_finite() && x.abs() <= MAX_POSITION) {
            return Err(at(path("start"), "both coordinates must be finite and within ±1e5 m"));
        }
        if !ch.direction.is_finite() {
            return Err(at(path("direction"), "must be a finite angle in rad"));
        }
        let pitch = 2.0 * (p.radius + p.body_radius());
        let stops = &stops[k];
        // Cell centres and headings relative to the chain's start and direction, in pitches and rad: a
        // straight line of touching cells, or a stop chain laid out with its joints open.
        let (open, headings) = match stops {
            Some(c) => (c.open_centres(), c.open_headings()),
            None => ((0..count).map(|j| Vec2::new(j as f64, 0.0)).collect(), vec![0.0; count]),
        };
        let dir = Vec2::new(ch.direction.cos(), ch.direction.sin());
        let first = cells.len();
        for j in 0..count {
            let id = format!("{}.{j}", ch.id);
            if cells.iter().any(|c| c.id == id) {
                return Err(at(path("id"), format!("cell id {id:?} of this chain is already taken; rename the chain")));
            }
            let o = open[j] * pitch;
            let position = Vec2::new(ch.start[0], ch.start[1]) + dir * o.x + Vec2::new(-dir.y, dir.x) * o.y;
            let (type_name, params) = match (turn, program) {
                (Some(t), Some(pr)) if pr.is_turn(j) => (ch.turn_type.clone().unwrap_or_default(), t),
                _ => (ch.cell_type.clone(), p),
            };
            cells.push(PlannedCell { id, type_name, params, position, rotation: ch.direction + headings[j] });
            chain_cells.push((k, cells.len() - 1));
        }
        if let Some((program, sites)) = &programs[k] {
            folds.push(PlannedFold {
                chain: ch.id.clone(),
                first,
                program: program.clone(),
                sites: sites.clone(),
                stops: stops.clone(),
                pitch,
                diameter: 2.0 * p.radius,
                connectors: Vec::new(),
            });
        }
        // Facing bodies: N/4 (on the +θ side after the turn by θ; turned by a stop chain's pin offset)
        // and 3N/4.
        for j in 0..count - 1 {
            let out = stops.as_ref().map_or(p.bodies / 4, |c| fold::body_at(c.offsets[j], p.bodies));
            links.push((LinkKind::Pin, (first + j, out), (first + j + 1, 3 * p.bodies / 4)));
        }
    }
    // Chain cells must not overlap anything built before them (touching neighbours are fine).
    for &(k, i) in &chain_cells {
        for j in 0..i {
            let (a, b) = (&cells[i], &cells[j]);
            let need = a.params.radius + a.params.body_radius() + b.params.radius + b.params.body_radius();
            let d = (a.position - b.position).length();
            if d < need * (1.0 - 1e-9) {
                return Err(at(
                    format!("chains[{k}].start"),
                    format!(
                        "chain cell {:?} overlaps cell {:?} at t = 0: centres {} m apart, at least {} m needed; move \
                         the chain",
                        a.id,
                        b.id,
                        compact(d),
                        compact(need)
                    ),
                ));
            }
        }
    }
    let find_cell = |path: String, id: &str| {
        cells.iter().position(|c| c.id == id).ok_or_else(|| {
            at(
                path,
                format!("{id:?} is not a cell id; use the `id` of an entry of `cells` or a chain cell `<chain>.<j>`"),
            )
        })
    };

    // Connectors.
    let mut connectors: Vec<PlannedConnector> = Vec::new();
    for (ci, c) in input.cells.iter().enumerate() {
        let bodies = cells[ci].params.bodies;
        for (k, spec) in c.connectors.iter().enumerate() {
            let path = |f: &str| format!("cells[{ci}].connectors[{k}].{f}");
            let kind = type_index(path("type"), &spec.connector_type)?;
            if spec.bodies.is_empty() {
                return Err(at(path("bodies"), "the list is empty; give at least one body index"));
            }
            for (b, &body) in spec.bodies.iter().enumerate() {
                if body >= bodies {
                    return Err(at(
                        format!("cells[{ci}].connectors[{k}].bodies[{b}]"),
                        format!("body {body} is out of range: the cell has {bodies} bodies, 0 … {}", bodies - 1),
                    ));
                }
                let name = format!("{}{b}", spec.id);
                if connectors.iter().any(|o| o.cell == ci && o.name == name) {
                    return Err(at(
                        path("id"),
                        format!("connector id {name:?} repeats on this cell; use another prefix"),
                    ));
                }
                connectors.push(PlannedConnector { cell: ci, name, body, kind, on: spec.switch == Switch::On });
            }
        }
    }

    // The folding programs' sites: connector `<kind><partner>.<i>` on each face, switched on at t = 0.
    for fold in &mut folds {
        for site in &fold.sites {
            let type_name = match fold.stops {
                Some(_) => stop_type_name(site.a),
                None => site.kind.type_name().to_string(),
            };
            let kind = type_index(format!("chains.{}.program", fold.chain), &type_name)?;
            for (cell, other, angles) in [(site.a, site.b, &site.angles_a), (site.b, site.a, &site.angles_b)] {
                let ci = fold.first + cell;
                let prefix = site.kind.connector_prefix(other);
                let taken = connectors.iter().filter(|c| c.cell == ci && c.name.starts_with(&prefix)).count();
                for (m, &angle) in angles.iter().enumerate() {
                    let name = format!("{prefix}{}", taken + m);
                    let body = fold::body_at(angle, cells[ci].params.bodies);
                    fold.connectors.push(FoldConnector { cell, name: name.clone(), partner: other, kind: site.kind });
                    connectors.push(PlannedConnector { cell: ci, name, body, kind, on: true });
                }
            }
        }
    }

    // Muscles: the cells' own, then the chains'.
    let mut muscles: Vec<MuscleSpec> = Vec::new();
    let mut add_muscle = |path: String, cell: usize, m: &MuscleJson| -> Result<(), ScenarioError> {
        let bodies = cells[cell].params.bodies;
        for (f, b) in [("from", m.from), ("to", m.to)] {
            if b >= bodies {
                return Err(at(
                    format!("{path}.{f}"),
                    format!("body {b} is out of range: the cell has {bodies} bodies, 0 … {}", bodies - 1),
                ));
            }
        }
        if m.from == m.to {
            return Err(at(format!("{path}.to"), "a muscle joins two different bodies of its cell"));
        }
        positive(&format!("{path}.hz"), m.hz, "the spring frequency in Hz")?;
        finite_in(&format!("{path}.damping_ratio"), m.damping_ratio, 0.0, 1e3, "a damping ratio ≥ 0")?;
        finite_in(&format!("{path}.min_length"), m.min_length, 1e-3, 1.0, "a fraction in (0, 1]")?;
        positive(&format!("{path}.length_factor"), m.length_factor, "the factor on the built distance")?;
        finite_in(&format!("{path}.length"), m.length, 0.0, 1.0, "a command in [0, 1]")?;
        if muscles.iter().any(|o| o.cell.0 == cell && o.name == m.id) {
            return Err(at(format!("{path}.id"), format!("muscle id {:?} repeats on this cell", m.id)));
        }
        muscles.push(MuscleSpec {
            cell: BodyId(cell),
            name: m.id.clone(),
            kind: m.kind,
            from: m.from,
            to: m.to,
            hz: m.hz,
            damping_ratio: m.damping_ratio,
            min_length: m.min_length,
            length_factor: m.length_factor,
            command: m.length,
        });
        Ok(())
    };
    for (ci, c) in input.cells.iter().enumerate() {
        for (k, m) in c.muscles.iter().enumerate() {
            add_muscle(format!("cells[{ci}].muscles[{k}]"), ci, m)?;
        }
    }
    for (k, ch) in input.chains.iter().enumerate() {
        let members: Vec<usize> = chain_cells.iter().filter(|(c, _)| *c == k).map(|(_, i)| *i).collect();
        let count = members.len();
        let listed: Vec<usize> = ch.muscle_cells.clone().unwrap_or_else(|| (0..count).collect());
        for (q, &j) in listed.iter().enumerate() {
            if j >= count {
                return Err(at(
                    format!("chains[{k}].muscle_cells[{q}]"),
                    format!("cell {j} is out of range: the chain has {count} cells, 0 … {}", count - 1),
                ));
            }
            for (mi, m) in ch.muscles.iter().enumerate() {
                add_muscle(format!("chains[{k}].muscles[{mi}]"), members[j], m)?;
            }
        }
    }

    // Links.
    for (k, l) in input.links.iter().enumerate() {
        let path = |f: &str| format!("links[{k}].{f}");
        match l.kind {
            LinkKindSpec::Pin => {
                if l.edge.is_some() || l.fraction.is_some() {
                    return Err(at(path("kind"), "`edge` and `fraction` belong to `merge`; remove them from a pin"));
                }
                let body_ref = |f: &str, s: &str| -> Result<(usize, usize), ScenarioError> {
                    let Some((cell, body)) = s.rsplit_once(':') else {
                        return Err(at(path(f), format!("{s:?} must be \"cell:body\", e.g. \"a:25\"")));
                    };
                    let ci = find_cell(path(f), cell)?;
                    let n = cells[ci].params.bodies;
                    match body.parse::<usize>() {
                        Ok(b) if b < n => Ok((ci, b)),
                        _ => Err(at(path(f), format!("body {body:?} of cell {cell:?} must be an index 0 … {}", n - 1))),
                    }
                };
                let (a, b) = (body_ref("a", &l.a)?, body_ref("b", &l.b)?);
                if a.0 == b.0 {
                    return Err(at(path("b"), "a link joins two different cells; name a body of another cell"));
                }
                links.push((LinkKind::Pin, a, b));
            }
            LinkKindSpec::Merge => {
                let (a, b) = (find_cell(path("a"), &l.a)?, find_cell(path("b"), &l.b)?);
                if a == b {
                    return Err(at(path("b"), "a link joins two different cells; name another cell"));
                }
                let Some(edge) = l.edge else {
                    return Err(at(path("edge"), "a merge needs `edge`: one of \"t\", \"r\", \"b\", \"l\""));
                };
                let fraction = l.fraction.unwrap_or(0.1);
                finite_in(&path("fraction"), fraction, 1e-9, 0.5, "a fraction of N in (0, 0.5]")?;
                let (na, nb) = (cells[a].params.bodies, cells[b].params.bodies);
                let pairs = (fraction * na as f64).round() as usize;
                if pairs == 0 || pairs > nb / 2 {
                    return Err(at(path("fraction"), format!("gives {pairs} body pairs; use 1 … {} pairs", nb / 2)));
                }
                // Cell a's edge centre and the facing edge of b (opposite side).
                let (ea, eb) = match edge {
                    Edge::Top => (0, nb / 2),
                    Edge::Right => (na / 4, 3 * nb / 4),
                    Edge::Bottom => (na / 2, 0),
                    Edge::Left => (3 * na / 4, nb / 4),
                };
                for j in 0..pairs as i64 {
                    let o = j - pairs as i64 / 2;
                    let ia = (ea as i64 + o).rem_euclid(na as i64) as usize;
                    let ib = (eb as i64 - o).rem_euclid(nb as i64) as usize;
                    links.push((LinkKind::Merge, (a, ia), (b, ib)));
                }
            }
        }
    }

    // Schedule.
    let mut events = Vec::new();
    for (k, e) in input.schedule.iter().enumerate() {
        let path = |f: &str| format!("schedule[{k}].{f}");
        finite_in(&path("t"), e.t, 0.0, super::MAX_DURATION, "a time in s ≥ 0")?;
        let targets = [e.connectors.is_some(), e.muscle.is_some(), e.cell.is_some()].iter().filter(|x| **x).count();
        if targets != 1 {
            return Err(at(
                format!("schedule[{k}]"),
                "an event names exactly one target: `connectors` (with `switch`), `muscle` (with `length`) or `cell` \
                 (with `pressure`, `rest_area_scale` or `push`)",
            ));
        }
        let stray = |fields: &[(&str, bool)]| -> Result<(), ScenarioError> {
            match fields.iter().find(|(_, set)| *set) {
                Some((f, _)) => Err(at(path(f), "does not belong to this event's target; remove it")),
                None => Ok(()),
            }
        };
        if let Some(sel) = &e.connectors {
            stray(&[
                ("length", e.length.is_some()),
                ("ramp", e.ramp.is_some()),
                ("pressure", e.pressure.is_some()),
                ("rest_area_scale", e.rest_area_scale.is_some()),
                ("push", e.push.is_some()),
            ])?;
            let Some(switch) = e.switch else {
                return Err(at(path("switch"), "a connector event needs `switch`: \"on\" or \"off\""));
            };
            let chosen: Vec<usize> = if sel == "*" {
                (0..connectors.len()).collect()
            } else {
                let Some((cell, which)) = sel.split_once(':') else {
                    return Err(at(path("connectors"), format!("{sel:?} must be \"*\", \"cell:*\" or \"cell:c2\"")));
                };
                let ci = find_cell(path("connectors"), cell)?;
                connectors
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.cell == ci && (which == "*" || c.name == which))
                    .map(|(i, _)| i)
                    .collect()
            };
            if chosen.is_empty() {
                return Err(at(path("connectors"), format!("{sel:?} selects no connector; check the ids (c0, c1, …)")));
            }
            events.push(CellEvent {
                t: e.t,
                action: CellAction::Switch { connectors: chosen, on: switch == Switch::On },
            });
        } else if let Some(sel) = &e.muscle {
            stray(&[
                ("switch", e.switch.is_some()),
                ("pressure", e.pressure.is_some()),
                ("rest_area_scale", e.rest_area_scale.is_some()),
                ("push", e.push.is_some()),
            ])?;
            let Some(length) = e.length else {
                return Err(at(path("length"), "a muscle event needs `length`, the command ℓ in [0, 1]"));
            };
            finite_in(&path("length"), length, 0.0, 1.0, "a command in [0, 1]")?;
            let ramp = e.ramp.unwrap_or(0.0);
            finite_in(&path("ramp"), ramp, 0.0, super::MAX_DURATION, "a duration in s ≥ 0")?;
            let Some((cell, name)) = sel.split_once('/') else {
                return Err(at(path("muscle"), format!("{sel:?} must be \"cell/muscle\" or \"*/muscle\"")));
            };
            let ci = if cell == "*" { None } else { Some(find_cell(path("muscle"), cell)?) };
            let chosen: Vec<usize> = muscles
                .iter()
                .enumerate()
                .filter(|(_, m)| m.name == name && ci.is_none_or(|c| m.cell.0 == c))
                .map(|(i, _)| i)
                .collect();
            if chosen.is_empty() {
                return Err(at(path("muscle"), format!("{sel:?} selects no muscle; check the cell and muscle ids")));
            }
            if let Some(&i) = chosen.iter().find(|&&i| muscles[i].kind == MuscleKind::Fixed) {
                return Err(at(
                    path("muscle"),
                    format!("muscle {:?} is `fixed`: its length cannot be commanded; use `spring`", muscles[i].name),
                ));
            }
            events.push(CellEvent { t: e.t, action: CellAction::Muscle { muscles: chosen, command: length, ramp } });
        } else if let Some(id) = &e.cell {
            stray(&[("switch", e.switch.is_some()), ("length", e.length.is_some()), ("ramp", e.ramp.is_some())])?;
            let ci = find_cell(path("cell"), id)?;
            let cell = BodyId(ci);
            if e.pressure.is_none() && e.rest_area_scale.is_none() && e.push.is_none() {
                return Err(at(path("cell"), "a cell event needs `pressure`, `rest_area_scale` or `push`"));
            }
            if let Some(value) = e.pressure {
                finite_in(&path("pressure"), value, 0.0, 1e9, "a pressure constant C in N ≥ 0")?;
                events.push(CellEvent { t: e.t, action: CellAction::Pressure { cell, value } });
            }
            if let Some(value) = e.rest_area_scale {
                positive(&path("rest_area_scale"), value, "the factor on A₀")?;
                events.push(CellEvent { t: e.t, action: CellAction::RestAreaScale { cell, value } });
            }
            if let Some(p) = e.push {
                if !p.iter().all(|x| x.is_finite() && x.abs() <= 1e3) {
                    return Err(at(path("push"), "both components must be finite and within ±1000 m/s"));
                }
                events.push(CellEvent { t: e.t, action: CellAction::Push { cell, velocity: Vec2::new(p[0], p[1]) } });
            }
        }
    }
    Ok(CellPlan { cells, connector_types, strengths, connectors, muscles, links, events, folds })
}
