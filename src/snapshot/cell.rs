//! A soft cell as plain data (spec `cells.md` §12, first slice: membrane, area, pressure).

use serde::{Deserialize, Serialize};

use super::BodyId;
use crate::geom::{Aabb, Vec2};

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
}
