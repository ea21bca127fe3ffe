//! The `balancing` task (ours, after 2dmrsim's and EvoGym's Balancer): the robot stands on a platform
//! hinged at its centre above the ground (a see-saw); how level does it keep it, and how long does it
//! stay on.

use serde::{Deserialize, Serialize};

use super::{Footprint, Placement, TaskSpecError};
use crate::geom::Vec2;
use crate::model::object::{mass_problem, ObjectMotion, ObjectSpec};
use crate::snapshot::Progress;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BalancingSpec {
    /// Length and thickness of the platform, m (default three robot widths by half a voxel side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_size: Option<[f64; 2]>,
    /// Height of the hinge above the ground, m (default the robot's height).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot_height: Option<f64>,
    /// Mass of the platform, kg (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_mass: Option<f64>,
    /// The hinge's restoring torque, N·m/rad (default twice M·g·h of the robot standing centred, M its
    /// mass and h the height of its centre above the hinge: the level board is then a stable balance; 0
    /// gives a free see-saw, which no body centred on it keeps level: any asymmetry tips it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hinge_stiffness: Option<f64>,
}

/// Platform geometry as placed: (size, hinge).
fn geometry(spec: &BalancingSpec, fp: &Footprint) -> ([f64; 2], Vec2) {
    let size = spec.platform_size.unwrap_or([3.0 * fp.width, 0.5 * fp.side]);
    // The platform's left end where the robot's default placement starts (clear of the terrain's ramp).
    let pivot = Vec2::new(fp.origin.x + 0.5 * size[0], fp.ground + spec.pivot_height.unwrap_or(fp.top - fp.bottom));
    (size, pivot)
}

impl BalancingSpec {
    pub fn validate(&self) -> Result<(), TaskSpecError> {
        if let Some(size) = self.platform_size {
            for (i, s) in size.iter().enumerate() {
                if !(s.is_finite() && *s > 0.0 && *s <= 10_000.0) {
                    return Err(TaskSpecError::new(
                        &format!("platform_size[{i}]"),
                        format!("{} m: must be in (0, 10000] m", crate::geom::compact(*s)),
                    ));
                }
            }
        }
        if let Some(message) = self.platform_mass.and_then(mass_problem) {
            return Err(TaskSpecError::new("platform_mass", message));
        }
        if let Some(k) = self.hinge_stiffness {
            if !(k.is_finite() && (0.0..=1e9).contains(&k)) {
                return Err(TaskSpecError::new(
                    "hinge_stiffness",
                    format!("{} N·m/rad: must be in [0, 1e9]", crate::geom::compact(k)),
                ));
            }
        }
        if let Some(h) = self.pivot_height {
            if !(h.is_finite() && h > 0.0 && h <= 10_000.0) {
                return Err(TaskSpecError::new(
                    "pivot_height",
                    format!("{} m: must be in (0, 10000] m", crate::geom::compact(h)),
                ));
            }
        }
        Ok(())
    }

    /// Checked once the body is known: the hinge must clear the ground by half the platform's thickness.
    pub(crate) fn check_fit(&self, fp: &Footprint) -> Result<(), TaskSpecError> {
        let (size, pivot) = geometry(self, fp);
        if pivot.y - fp.ground <= 0.5 * size[1] {
            return Err(TaskSpecError::new(
                "pivot_height",
                format!(
                    "the platform ({} m thick) would start in the ground: give a pivot height above {} m",
                    crate::geom::compact(size[1]),
                    crate::geom::compact(0.5 * size[1])
                ),
            ));
        }
        Ok(())
    }

    /// The platform is level at t = 0, the robot centred on it.
    pub fn place(&self, fp: &Footprint) -> Placement {
        let (size, pivot) = geometry(self, fp);
        let origin = Vec2::new(pivot.x - 0.5 * fp.width, pivot.y + 0.5 * size[1] + 0.001 - fp.bottom);
        // The robot's centre above the hinge, at placement.
        let h = origin.y + 0.5 * (fp.bottom + fp.top) - pivot.y;
        let stiffness = self.hinge_stiffness.unwrap_or(2.0 * fp.mass * fp.gravity * h);
        let platform = ObjectSpec {
            label: Some("platform".into()),
            size,
            position: [pivot.x, pivot.y],
            angle: 0.0,
            motion: ObjectMotion::Hinged,
            mass: self.platform_mass.unwrap_or(5.0),
            friction: 1.0,
            velocity: [0.0, 0.0],
            // Critically damped for the platform alone would be 2·√(k·I); a tenth of k (s) keeps the
            // robot's own pushes visible while settling the board within a few seconds.
            hinge_stiffness: stiffness,
            hinge_damping: 0.1 * stiffness,
        };
        Placement { robot_origin: Some(origin), objects: vec![platform] }
    }
}

/// The |angle| at which a board of `size` (length, thickness) hinged at its centre `pivot_height` above
/// flat ground touches the ground with a lower corner: ℓ·sin θ + t·cos θ = h with ℓ, t the half length
/// and thickness, θ = asin(h / √(ℓ² + t²)) − atan(t / ℓ); π/2 for a board too short to reach the ground.
pub fn full_tilt(size: [f64; 2], pivot_height: f64) -> f64 {
    let (l, t) = (0.5 * size[0], 0.5 * size[1]);
    let r = l.hypot(t);
    if pivot_height >= r {
        return std::f64::consts::FRAC_PI_2;
    }
    (pivot_height / r).asin() - t.atan2(l)
}

/// What `balancing` reports (robot 0 and the platform).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BalancingMetrics {
    /// Mean over steps 1…N of the platform's |angle| while the robot is on it, each step from its fall on
    /// counted as the board's full tilt (one end on the ground), rad: a robot that jumps off at once
    /// leaves a level board behind, and must not score as if it kept it level.
    pub mean_abs_angle: f64,
    /// The largest |angle| of the platform while the robot is on it, or the full tilt once it fell, rad.
    pub max_abs_angle: f64,
    /// Time until the robot fell off (its lowest point within a quarter of the platform's thickness of
    /// the ground), or the whole run, s.
    pub time_on_platform: f64,
    /// When the robot fell off, s (null if it stayed on).
    pub fell_at: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct BalancingMonitor {
    platform: usize,
    ground: f64,
    margin: f64,
    full_tilt: f64,
    sum: f64,
    max: f64,
    steps: u64,
    t: f64,
    fell_at: Option<f64>,
}

impl BalancingMonitor {
    pub fn new(platform: usize, ground: f64, margin: f64, full_tilt: f64) -> Self {
        BalancingMonitor { platform, ground, margin, full_tilt, ..Default::default() }
    }
    pub(crate) fn begin(&mut self, _run: &dyn Progress) {}
    pub fn observe(&mut self, run: &dyn Progress) {
        self.steps += 1;
        self.t = run.time();
        if self.fell_at.is_none() && run.centre_and_bbox(0).1.min.y < self.ground + self.margin {
            self.fell_at = Some(self.t);
        }
        let angle = match self.fell_at {
            None => run.object_state(self.platform).map_or(0.0, |o| o.angle.abs()),
            Some(_) => self.full_tilt,
        };
        self.sum += angle;
        self.max = self.max.max(angle);
    }
    pub fn metrics(&self) -> BalancingMetrics {
        BalancingMetrics {
            mean_abs_angle: if self.steps > 0 { self.sum / self.steps as f64 } else { 0.0 },
            max_abs_angle: self.max,
            time_on_platform: self.fell_at.unwrap_or(self.t),
            fell_at: self.fell_at,
        }
    }
}
