//! The `climbing` task (ours, after EvoGym's Climber): the robot stands at the bottom of a vertical
//! channel between two walls; how high does it get.

use serde::{Deserialize, Serialize};

use super::{Footprint, Placement, TaskSpecError};
use crate::geom::Vec2;
use crate::model::object::ObjectSpec;
use crate::snapshot::Progress;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClimbingSpec {
    /// Clear width between the walls, m (default the robot's width plus a tenth of a voxel side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// Height of the walls, m (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
}

/// Thickness of each wall, m.
const WALL: f64 = 1.0;

impl ClimbingSpec {
    pub fn validate(&self) -> Result<(), TaskSpecError> {
        for (field, value) in [("width", self.width), ("height", self.height)] {
            if let Some(v) = value {
                if !(v.is_finite() && v > 0.0 && v <= 10_000.0) {
                    return Err(TaskSpecError::new(
                        field,
                        format!("{} m: must be in (0, 10000] m", crate::geom::compact(v)),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checked once the body is known: the robot must fit between the walls.
    pub(crate) fn check_fit(&self, fp: &Footprint) -> Result<(), TaskSpecError> {
        match self.width {
            Some(w) if w < fp.width => Err(TaskSpecError::new(
                "width",
                format!(
                    "{} m is narrower than the robot ({} m wide): the walls would start inside it; give at least {}",
                    crate::geom::compact(w),
                    crate::geom::compact(fp.width),
                    crate::geom::compact(fp.width)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The robot stands on the ground, centred in the channel.
    pub fn place(&self, fp: &Footprint) -> Placement {
        let width = self.width.unwrap_or(fp.width + 0.1 * fp.side);
        let height = self.height.unwrap_or(100.0);
        // The left wall starts where the robot's default placement does (clear of the terrain's ramp).
        let left = fp.origin.x + WALL;
        let right = left + width;
        let walls = vec![
            ObjectSpec::fixed_rect("left wall", Vec2::new(left - WALL, fp.ground), Vec2::new(left, fp.ground + height)),
            ObjectSpec::fixed_rect(
                "right wall",
                Vec2::new(right, fp.ground),
                Vec2::new(right + WALL, fp.ground + height),
            ),
        ];
        let x = left + 0.5 * (width - fp.width);
        Placement { robot_origin: Some(Vec2::new(x, fp.ground - fp.bottom + 0.001)), objects: walls }
    }
}

/// What `climbing` reports (robot 0).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClimbingMetrics {
    /// The centre's y(T) − y(0), m.
    pub climb_height: f64,
    /// The highest value of the body's lowest point above the ground at t = 0 and after every step that
    /// ends with the robot holding on (touching a wall or the ground), m: the top of a jump, in flight,
    /// counts only if the robot catches a wall there.
    pub max_height: f64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct ClimbingMonitor {
    ground: f64,
    y0: f64,
    y: f64,
    max_height: f64,
}

impl ClimbingMonitor {
    pub fn new(ground: f64) -> Self {
        ClimbingMonitor { ground, ..Default::default() }
    }
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        let (c, bbox) = run.centre_and_bbox(0);
        (self.y0, self.y) = (c.y, c.y);
        self.max_height = bbox.min.y - self.ground;
    }
    pub fn observe(&mut self, run: &dyn Progress) {
        let (c, bbox) = run.centre_and_bbox(0);
        self.y = c.y;
        if run.touching_ground(0) {
            self.max_height = self.max_height.max(bbox.min.y - self.ground);
        }
    }
    pub fn metrics(&self) -> ClimbingMetrics {
        ClimbingMetrics { climb_height: self.y - self.y0, max_height: self.max_height }
    }
}
