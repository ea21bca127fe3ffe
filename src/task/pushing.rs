//! The `pushing` task (ours, after EvoGym's Pusher): a box stands on the ground in front of the robot;
//! how far does the robot push it.

use serde::{Deserialize, Serialize};

use super::{Footprint, Placement, TaskSpecError, BOX_FRICTION};
use crate::geom::Vec2;
use crate::model::object::ObjectSpec;
use crate::snapshot::Progress;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushingSpec {
    /// Width and height of the box, m (default one voxel side square).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_size: Option<[f64; 2]>,
    /// Mass of the box, kg (default 1, a voxel's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_mass: Option<f64>,
    /// Gap between the robot's right side and the box at t = 0, m (default half a voxel side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<f64>,
}

impl PushingSpec {
    pub fn validate(&self) -> Result<(), TaskSpecError> {
        super::check_box(self.box_size, self.box_mass)?;
        match self.gap {
            Some(g) if !(g.is_finite() && (0.0..=1000.0).contains(&g)) => {
                Err(TaskSpecError::new("gap", format!("{} m: give a distance in [0, 1000] m", crate::geom::compact(g))))
            }
            _ => Ok(()),
        }
    }

    /// The box stands on the ground (its highest point under the box, plus a millimetre).
    pub fn place(&self, fp: &Footprint) -> Placement {
        let [w, h] = self.box_size.unwrap_or([fp.side, fp.side]);
        let x0 = fp.origin.x + fp.width + self.gap.unwrap_or(0.5 * fp.side);
        let ground = (fp.ground_under)(x0, x0 + w);
        let centre = Vec2::new(x0 + 0.5 * w, ground + 0.001 + 0.5 * h);
        let the_box = ObjectSpec::dynamic_box("box", [w, h], centre, self.box_mass.unwrap_or(1.0), BOX_FRICTION);
        Placement { robot_origin: None, objects: vec![the_box] }
    }
}

/// What `pushing` reports (robot 0 and the box).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushingMetrics {
    /// The box centre's x(T) − x(0), m: the slide or flight of a kicked box included.
    pub box_distance: f64,
    /// The robot centre's x(T) − x(0), m.
    pub robot_distance: f64,
    /// The box centre's x travel from t = 0 to the last time it touched the robot (or 0 if it never
    /// did), m: what the box slides or flies after the robot's last touch (a kick) earns nothing.
    pub pushed_distance: f64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct PushingMonitor {
    the_box: usize,
    start: [f64; 2],
    now: [f64; 2],
    pushed: f64,
}

impl PushingMonitor {
    pub fn new(the_box: usize) -> Self {
        PushingMonitor { the_box, ..Default::default() }
    }
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        self.start = [run.centre(self.the_box).x, run.centre(0).x];
        self.now = self.start;
    }
    pub fn observe(&mut self, run: &dyn Progress) {
        self.now = [run.centre(self.the_box).x, run.centre(0).x];
        if run.object_touches(self.the_box, 0) {
            self.pushed = self.now[0] - self.start[0];
        }
    }
    pub fn metrics(&self) -> PushingMetrics {
        PushingMetrics {
            box_distance: self.now[0] - self.start[0],
            robot_distance: self.now[1] - self.start[1],
            pushed_distance: self.pushed,
        }
    }
}
