//! The `carrying` task (ours, after EvoGym's Carrier): a box is placed on top of the robot; how far does
//! the robot carry it before it falls to the ground.

use serde::{Deserialize, Serialize};

use super::{Footprint, Placement, TaskSpecError, BOX_FRICTION};
use crate::geom::Vec2;
use crate::model::object::ObjectSpec;
use crate::snapshot::Progress;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CarryingSpec {
    /// Width and height of the box, m (default two voxel sides by half a side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_size: Option<[f64; 2]>,
    /// Mass of the box, kg (default 1, a voxel's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_mass: Option<f64>,
}

impl CarryingSpec {
    pub fn validate(&self) -> Result<(), TaskSpecError> {
        super::check_box(self.box_size, self.box_mass)
    }

    /// The box rests, centred, a hundredth of a voxel side above the robot's top.
    pub fn place(&self, fp: &Footprint) -> Placement {
        let [w, h] = self.box_size.unwrap_or([2.0 * fp.side, 0.5 * fp.side]);
        let centre = Vec2::new(fp.origin.x + 0.5 * fp.width, fp.origin.y + fp.top + 0.01 * fp.side + 0.5 * h);
        let the_box = ObjectSpec::dynamic_box("box", [w, h], centre, self.box_mass.unwrap_or(1.0), BOX_FRICTION);
        Placement { robot_origin: None, objects: vec![the_box] }
    }
}

/// What `carrying` reports (robot 0 and the box).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CarryingMetrics {
    /// The box centre's x(T) − x(0), m.
    pub box_distance: f64,
    /// The robot centre's x(T) − x(0), m.
    pub robot_distance: f64,
    /// The box centre's x travel from t = 0 to the last time it rested on the robot (touched robot 0 and
    /// not the ground) before it first touched the ground (or T), m: a thrown or dropped box's flight
    /// earns nothing, a box that hops on the robot and lands on it again counts in full.
    pub carried_distance: f64,
    /// When the box first touched the ground, s (null if it never did).
    pub dropped_at: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct CarryingMonitor {
    the_box: usize,
    box_x0: f64,
    box_x: f64,
    robot_x0: f64,
    robot_x: f64,
    carried: f64,
    dropped_at: Option<f64>,
}

impl CarryingMonitor {
    pub fn new(the_box: usize) -> Self {
        CarryingMonitor { the_box, ..Default::default() }
    }
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        (self.box_x0, self.robot_x0) = (run.centre(self.the_box).x, run.centre(0).x);
        (self.box_x, self.robot_x) = (self.box_x0, self.robot_x0);
    }
    pub fn observe(&mut self, run: &dyn Progress) {
        (self.box_x, self.robot_x) = (run.centre(self.the_box).x, run.centre(0).x);
        if self.dropped_at.is_none() {
            if run.object_state(self.the_box).is_some_and(|o| o.touching_ground) {
                self.dropped_at = Some(run.time());
            } else if run.object_touches(self.the_box, 0) {
                self.carried = self.box_x - self.box_x0;
            }
        }
    }
    pub fn metrics(&self) -> CarryingMetrics {
        CarryingMetrics {
            box_distance: self.box_x - self.box_x0,
            robot_distance: self.robot_x - self.robot_x0,
            carried_distance: self.carried,
            dropped_at: self.dropped_at,
        }
    }
}
