//! The `jumping` task (ours, after 2dmrsim's): on flat ground, the robot starts with its lowest point a
//! gap above the ground; how high does it get its body off the ground, and for how long.

use serde::{Deserialize, Serialize};

use super::{Footprint, Placement, TaskSpecError};
use crate::geom::Vec2;
use crate::snapshot::Progress;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JumpingSpec {
    /// Height of the robot's lowest point above the ground at t = 0, m (default a quarter of the voxel
    /// side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<f64>,
}

impl JumpingSpec {
    pub fn validate(&self) -> Result<(), TaskSpecError> {
        match self.gap {
            Some(g) if !(g.is_finite() && (0.0..=1000.0).contains(&g)) => {
                Err(TaskSpecError::new("gap", format!("{} m: give a height in [0, 1000] m", crate::geom::compact(g))))
            }
            _ => Ok(()),
        }
    }

    pub fn place(&self, fp: &Footprint) -> Placement {
        let gap = self.gap.unwrap_or(0.25 * fp.side);
        Placement { robot_origin: Some(Vec2::new(fp.origin.x, fp.ground - fp.bottom + gap)), objects: Vec::new() }
    }
}

/// What `jumping` reports (robot 0; the ground is at the flat terrain's height, 0 m).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JumpingMetrics {
    /// The highest value, from t = 0 on, of the body's lowest point above the ground, m.
    pub max_height: f64,
    /// The highest rise of the body's centre, in flight (no part touching anything), above both its height
    /// at t = 0 and at that flight's take-off (the last step in contact), m: a body that stands up or tips
    /// over on the ground raises its centre without jumping, and a dropped body's rebound does not get
    /// it above where it was dropped; neither earns anything.
    pub max_centre_rise: f64,
    /// Fraction of steps 1…N after which no part of the robot touches anything.
    pub airtime: f64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct JumpingMonitor {
    ground: f64,
    centre0: f64,
    /// The centre's height at the current (or next) flight's take-off.
    takeoff: f64,
    max_height: f64,
    max_rise: f64,
    airborne: u64,
    steps: u64,
}

impl JumpingMonitor {
    pub fn new(ground: f64) -> Self {
        JumpingMonitor { ground, ..Default::default() }
    }
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        let (c, bbox) = run.centre_and_bbox(0);
        (self.centre0, self.takeoff) = (c.y, c.y);
        self.max_height = bbox.min.y - self.ground;
        self.max_rise = 0.0;
    }
    pub fn observe(&mut self, run: &dyn Progress) {
        let (c, bbox) = run.centre_and_bbox(0);
        self.max_height = self.max_height.max(bbox.min.y - self.ground);
        self.steps += 1;
        if run.touching(0) {
            self.takeoff = c.y;
        } else {
            self.airborne += 1;
            self.max_rise = self.max_rise.max(c.y - self.takeoff.max(self.centre0));
        }
    }
    pub fn metrics(&self) -> JumpingMetrics {
        JumpingMetrics {
            max_height: self.max_height,
            max_centre_rise: self.max_rise,
            airtime: if self.steps > 0 { self.airborne as f64 / self.steps as f64 } else { 0.0 },
        }
    }
}
