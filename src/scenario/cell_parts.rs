//! What joins and drives soft cells in a scenario, as JSON (spec `cells.md` §4–§6, §9, §10): connector
//! types and interactions, links, chains and the schedule (each cell's connectors and muscles are in
//! [`super::cells`]). [`super::cell_plan::plan`] checks all of it and resolves it.

use serde::{Deserialize, Serialize};

use super::cells::{MuscleJson, Switch};
use crate::model::cell::fold::SiteKind;
use crate::model::cell::CellPreset;

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
pub(super) fn stop_type_name(joint: usize) -> String {
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
    pub(super) fn get(&self, kind: SiteKind) -> Option<&Vec<f64>> {
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
