//! The eight per-voxel sensors of spec §8, computed from mass positions and velocities.

use serde::{Deserialize, Serialize};

use crate::geom::Vec2;
use crate::model::voxel::geometry::{NE, NW, SE, SW};

/// Geometry of one voxel at an instant: mass centres, outer corners, velocities.
#[derive(Debug, Clone, Copy)]
pub struct VoxelPose {
    pub centres: [Vec2; 4],
    pub outer_corners: [Vec2; 4],
    pub velocities: [Vec2; 4],
}

/// |shoelace area| of a polygon.
pub(crate) fn polygon_area(points: &[Vec2]) -> f64 {
    let n = points.len();
    (0..n).map(|i| points[i].cross(points[(i + 1) % n])).sum::<f64>().abs() / 2.0
}

/// Angle of an upright voxel = 0: direction of unit(SE − SW) + unit(NE − NW), in (−π, π].
pub(crate) fn voxel_angle(centres: &[Vec2; 4]) -> f64 {
    let s = (centres[SE] - centres[SW]).normalized() + (centres[NE] - centres[NW]).normalized();
    if s.x == 0.0 && s.y == 0.0 {
        return 0.0;
    }
    let a = s.y.atan2(s.x);
    if a == -std::f64::consts::PI {
        std::f64::consts::PI
    } else {
        a
    }
}

/// The released code's angle: the mean of the angles of NW→NE and SE→SW (about θ ∓ π/2).
pub(crate) fn legacy_voxel_angle(centres: &[Vec2; 4]) -> f64 {
    let a = centres[NE] - centres[NW];
    let b = centres[SW] - centres[SE];
    (a.y.atan2(a.x) + b.y.atan2(b.x)) / 2.0
}

/// Reads all eight sensors. `legacy` switches the angle and rotated velocities to the released code's.
pub fn read(pose: &VoxelPose, side: f64, touching: bool, legacy: bool) -> SensorReadings {
    let area_ratio = polygon_area(&pose.outer_corners) / (side * side);
    let v = pose.velocities.iter().fold(Vec2::ZERO, |s, p| s + *p) * 0.25;
    let (angle, x_rot, y_rot) = if legacy {
        let a = legacy_voxel_angle(&pose.centres);
        let (s, c) = a.sin_cos();
        (a, v.dot(Vec2::new(c, s)), v.dot(Vec2::new(-s, c)))
    } else {
        let a = voxel_angle(&pose.centres);
        let (s, c) = a.sin_cos();
        (a, v.dot(Vec2::new(c, s)), v.dot(Vec2::new(s, -c)))
    };
    SensorReadings {
        area_ratio,
        velocity_magnitude: v.length(),
        x_velocity: v.x,
        y_velocity: v.y,
        angle,
        x_rot_velocity: x_rot,
        y_rot_velocity: y_rot,
        touching: if touching { 1.0 } else { 0.0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A voxel of side 3 (masses 0.9) rotated by `theta` about the origin, translating at `vel`.
    fn posed(theta: f64, vel: Vec2, scale: f64) -> VoxelPose {
        let rot = |p: Vec2| Vec2::new(theta.cos() * p.x - theta.sin() * p.y, theta.sin() * p.x + theta.cos() * p.y);
        let signs = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        VoxelPose {
            centres: signs.map(|(sx, sy)| rot(Vec2::new(sx * 1.05 * scale, sy * 1.05 * scale))),
            outer_corners: signs.map(|(sx, sy)| rot(Vec2::new(sx * 1.5 * scale, sy * 1.5 * scale))),
            velocities: [vel; 4],
        }
    }

    #[test]
    fn rest_voxel_reads_hand_computed_values() {
        let r = read(&posed(0.0, Vec2::new(0.3, -0.4), 1.0), 3.0, true, false);
        assert!((r.area_ratio - 1.0).abs() < 1e-12);
        assert!((r.velocity_magnitude - 0.5).abs() < 1e-12);
        assert_eq!((r.x_velocity, r.y_velocity), (0.3, -0.4));
        assert_eq!(r.angle, 0.0);
        assert!((r.x_rot_velocity - 0.3).abs() < 1e-12);
        // Velocity along the voxel's downward axis: moving down reads positive.
        assert!((r.y_rot_velocity - 0.4).abs() < 1e-12);
        assert_eq!(r.touching, 1.0);
    }

    #[test]
    fn rotated_and_shrunk_voxel() {
        let theta = 0.7;
        let scale = 0.8f64.sqrt();
        let r = read(&posed(theta, Vec2::new(1.0, 0.0), scale), 3.0, false, false);
        assert!((r.area_ratio - 0.8).abs() < 1e-12);
        assert!((r.angle - theta).abs() < 1e-12);
        assert!((r.x_rot_velocity - theta.cos()).abs() < 1e-12);
        assert!((r.y_rot_velocity - theta.sin()).abs() < 1e-12);
        // Upside down reads π, never −π.
        let upside = read(&posed(std::f64::consts::PI, Vec2::ZERO, 1.0), 3.0, false, false);
        assert!((upside.angle - std::f64::consts::PI).abs() < 1e-9);
    }

    #[test]
    fn legacy_angle_is_offset_by_a_quarter_turn() {
        let r = read(&posed(0.3, Vec2::ZERO, 1.0), 3.0, false, true);
        // NW→NE reads 0.3, SE→SW reads 0.3 − π: the mean is 0.3 − π/2.
        assert!((r.angle - (0.3 - std::f64::consts::FRAC_PI_2)).abs() < 1e-9, "{}", r.angle);
    }
}

/// The eight required per-voxel sensors (spec §8), in their canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SensorKind {
    AreaRatio,
    VelocityMagnitude,
    XVelocity,
    YVelocity,
    Angle,
    XRotVelocity,
    YRotVelocity,
    Touching,
}

impl SensorKind {
    pub const ALL: [SensorKind; 8] = [
        SensorKind::AreaRatio,
        SensorKind::VelocityMagnitude,
        SensorKind::XVelocity,
        SensorKind::YVelocity,
        SensorKind::Angle,
        SensorKind::XRotVelocity,
        SensorKind::YRotVelocity,
        SensorKind::Touching,
    ];
    /// The id used in JSON and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            SensorKind::AreaRatio => "area_ratio",
            SensorKind::VelocityMagnitude => "velocity_magnitude",
            SensorKind::XVelocity => "x_velocity",
            SensorKind::YVelocity => "y_velocity",
            SensorKind::Angle => "angle",
            SensorKind::XRotVelocity => "x_rot_velocity",
            SensorKind::YRotVelocity => "y_rot_velocity",
            SensorKind::Touching => "touching",
        }
    }
    pub(crate) fn from_id(id: &str) -> Option<SensorKind> {
        SensorKind::ALL.into_iter().find(|k| k.id() == id)
    }
    pub fn index(self) -> usize {
        self as usize
    }

    /// The smallest and largest reading this sensor can report: an area ratio is an |area| (≥ 0), a
    /// speed is ≥ 0, the angle is in (−π, π] (both definitions), touching is 0 or 1; velocities are
    /// unbounded.
    pub fn range(self) -> (f64, f64) {
        use std::f64::consts::PI;
        match self {
            SensorKind::AreaRatio | SensorKind::VelocityMagnitude => (0.0, f64::INFINITY),
            SensorKind::Angle => (-PI, PI),
            SensorKind::Touching => (0.0, 1.0),
            SensorKind::XVelocity | SensorKind::YVelocity | SensorKind::XRotVelocity | SensorKind::YRotVelocity => {
                (f64::NEG_INFINITY, f64::INFINITY)
            }
        }
    }
}

/// The instantaneous readings of one voxel's eight sensors.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SensorReadings {
    pub area_ratio: f64,
    pub velocity_magnitude: f64,
    pub x_velocity: f64,
    pub y_velocity: f64,
    pub angle: f64,
    pub x_rot_velocity: f64,
    pub y_rot_velocity: f64,
    pub touching: f64,
}

impl SensorReadings {
    pub fn get(&self, kind: SensorKind) -> f64 {
        match kind {
            SensorKind::AreaRatio => self.area_ratio,
            SensorKind::VelocityMagnitude => self.velocity_magnitude,
            SensorKind::XVelocity => self.x_velocity,
            SensorKind::YVelocity => self.y_velocity,
            SensorKind::Angle => self.angle,
            SensorKind::XRotVelocity => self.x_rot_velocity,
            SensorKind::YRotVelocity => self.y_rot_velocity,
            SensorKind::Touching => self.touching,
        }
    }
}
