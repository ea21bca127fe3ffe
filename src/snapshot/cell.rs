//! A soft cell as plain data (spec `cells.md` §12): membrane, area, pressure, connectors, active pairs,
//! muscles and links. The parts added after the first slice default to empty, so older recordings load.

use serde::{Deserialize, Serialize};

use super::BodyId;
use crate::geom::{Aabb, Vec2};
use crate::model::cell::connector::ConnectorState;
use crate::model::cell::muscle::MuscleKind;

/// One SCS soft cell, in world coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellSnapshot {
    pub id: BodyId,
    pub label: String,
    /// The cell type's name in the scenario.
    #[serde(default)]
    pub cell_type: String,
    /// Mean of the body centres.
    pub center: Vec2,
    /// Bounding box of the body circles.
    pub bbox: Aabb,
    /// r_b, m.
    pub body_radius: f64,
    /// The N body centres, body 0 first, clockwise.
    pub bodies: Vec<Vec2>,
    /// Shoelace area of the centre polygon, m².
    pub area: f64,
    /// A/A₀.
    pub area_ratio: f64,
    /// F = C·(A₀/A − 1), N per body.
    pub pressure_force: f64,
    /// |P − N·s| / (N·s).
    #[serde(default)]
    pub perimeter_error: f64,
    /// Mean body velocity v̄, m/s.
    #[serde(default)]
    pub velocity: Vec2,
    /// The cell's connectors, in build order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connectors: Vec<CellConnectorSnapshot>,
    /// Active pairs whose first connector (in (cell, connector) order) is on this cell.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<CellPairSnapshot>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muscles: Vec<CellMuscleSnapshot>,
    /// Pins and merge joints whose first end is on this cell.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<CellLinkSnapshot>,
}

/// One connector (spec §4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellConnectorSnapshot {
    /// Its id within the cell (`c0`, `c1`, …).
    pub id: String,
    /// Index of the carrying membrane body.
    pub body: usize,
    /// Centre of the carrying body, m.
    pub position: Vec2,
    /// r_int, m.
    pub radius: f64,
    /// The type's name, and its index in type order (the colour order).
    #[serde(rename = "type")]
    pub connector_type: String,
    #[serde(default)]
    pub type_index: usize,
    pub state: ConnectorState,
}

/// An active connector pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellPairSnapshot {
    /// This cell's connector id.
    pub connector: String,
    /// The other cell's label and connector id.
    pub other_cell: String,
    pub other_connector: String,
    /// The two connectors' positions, m.
    pub from: Vec2,
    pub to: Vec2,
}

/// A muscle (spec §5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellMuscleSnapshot {
    pub id: String,
    pub kind: MuscleKind,
    /// Body indices of its ends.
    pub from: usize,
    pub to: usize,
    /// Rest length (spring) or maximum (rope) now, m.
    pub rest_length: f64,
    /// Distance of the two body centres now, m.
    pub length: f64,
    pub from_position: Vec2,
    pub to_position: Vec2,
}

/// A pin or merge joint (spec §6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellLinkSnapshot {
    /// `pin` or `merge`.
    pub kind: String,
    /// Body index on this cell, the other cell's label and its body index.
    pub body: usize,
    pub other_cell: String,
    pub other_body: usize,
    pub from: Vec2,
    pub to: Vec2,
}
