//! Rigid objects and fixed structures (ours, issue 33): boxes a robot carries or pushes, walls, platforms
//! and poles that tasks place. Engine-free: what an object is, in SI units, and its validation.

use serde::{Deserialize, Serialize};

use crate::geom::Vec2;
use crate::model::terrain::Terrain;

/// How an object moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ObjectMotion {
    /// A free rigid body under gravity and contacts.
    #[default]
    Dynamic,
    /// Never moves (a wall, a platform, a pole).
    Fixed,
    /// Turns freely about its centre, which is pinned in place (a see-saw's platform).
    Hinged,
}

/// One object as written in scenario JSON (`objects[i]`): a rectangle, axis-aligned at `angle` 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectSpec {
    /// Name in snapshots and frames (default `object<i>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Width and height, m.
    pub size: [f64; 2],
    /// Centre at t = 0, m.
    pub position: [f64; 2],
    /// Rotation at t = 0, rad (counter-clockwise).
    #[serde(default)]
    pub angle: f64,
    #[serde(default)]
    pub motion: ObjectMotion,
    /// Mass, kg (dynamic and hinged objects; default 1).
    #[serde(default = "default_mass")]
    pub mass: f64,
    /// Coulomb friction coefficient, combined with the other surface's by geometric mean (default 1).
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Velocity at t = 0, m/s (dynamic objects).
    #[serde(default)]
    pub velocity: [f64; 2],
    /// A hinged object's restoring torque per radian from its angle at t = 0, N·m/rad (default 0: it
    /// turns freely), and its damping, N·m·s/rad (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hinge_stiffness: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hinge_damping: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn default_mass() -> f64 {
    1.0
}

fn default_friction() -> f64 {
    1.0
}

/// The largest object side and coordinate, m: beyond this f32 engine coordinates lose the millimetre.
pub(crate) const MAX_OBJECT_EXTENT: f64 = 10_000.0;

/// The smallest mass, kg, and angular inertia about the centre, kg·m², of an object that moves. The
/// engine keeps both in single precision and inverts them; measured (issue 52): a box lands like a 1 kg
/// one down to an inertia of 1e-38 kg·m² (f32's smallest normal number is 1.2e-38), falls through the
/// ground at 1e-39 and turns non-finite at masses of 1e-40 kg and below. 1e-30 leaves eight orders.
pub(crate) const MIN_OBJECT_MASS: f64 = 1e-30;
pub const MIN_OBJECT_INERTIA: f64 = 1e-30;
/// The largest object mass, kg.
pub(crate) const MAX_OBJECT_MASS: f64 = 1e6;

/// Why `mass` (kg) cannot be an object's mass, if it cannot: the requirement, for an error message.
pub(crate) fn mass_problem(mass: f64) -> Option<String> {
    let ok = mass.is_finite() && (MIN_OBJECT_MASS..=MAX_OBJECT_MASS).contains(&mass);
    (!ok).then(|| {
        format!(
            "{} kg: must be in [{MIN_OBJECT_MASS:e}, {MAX_OBJECT_MASS:e}] kg (the engine inverts masses in single \
             precision)",
            crate::geom::compact(mass)
        )
    })
}

/// `x` to the micrometre, for messages (a riser's top read a hair beside it).
fn micro(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// `x` printed to three significant digits and read back (so that messages show 2.4e-26, not its
/// nearest double's 17 digits).
fn three_digits(x: f64) -> f64 {
    format!("{x:.2e}").parse().unwrap_or(x)
}

/// Angular inertia of a uniform `size` rectangle of `mass` about its centre, kg·m².
pub fn box_inertia(mass: f64, size: [f64; 2]) -> f64 {
    mass * (size[0] * size[0] + size[1] * size[1]) / 12.0
}

/// Why a moving box of `mass` and `size` is too light for the engine to turn, if it is.
pub(crate) fn inertia_problem(mass: f64, size: [f64; 2]) -> Option<String> {
    let inertia = box_inertia(mass, size);
    // The tolerance lets the suggested mass, rounded up to three digits, pass.
    (inertia < MIN_OBJECT_INERTIA * (1.0 - 1e-9)).then(|| {
        let needed = MIN_OBJECT_INERTIA / box_inertia(1.0, size);
        // Up to three significant digits, so that giving it passes.
        let unit = 10f64.powf(needed.log10().floor() - 2.0);
        let needed = ((needed / unit) - 1e-6).ceil() * unit;
        format!(
            "{} kg on a {} × {} m box is an angular inertia of {} kg·m², below the {MIN_OBJECT_INERTIA:e} the \
             engine's single-precision inverse needs (lighter boxes fall through the ground); give at least {} kg, \
             or a larger box",
            crate::geom::compact(mass),
            crate::geom::compact(size[0]),
            crate::geom::compact(size[1]),
            crate::geom::compact(three_digits(inertia)),
            crate::geom::compact(three_digits(needed)),
        )
    })
}

impl ObjectSpec {
    /// A dynamic box of `size` centred at `position`.
    pub(crate) fn dynamic_box(label: &str, size: [f64; 2], position: Vec2, mass: f64, friction: f64) -> ObjectSpec {
        ObjectSpec {
            label: Some(label.into()),
            size,
            position: [position.x, position.y],
            angle: 0.0,
            motion: ObjectMotion::Dynamic,
            mass,
            friction,
            velocity: [0.0, 0.0],
            hinge_stiffness: 0.0,
            hinge_damping: 0.0,
        }
    }

    /// A fixed rectangle spanning `min`..`max`.
    pub(crate) fn fixed_rect(label: &str, min: Vec2, max: Vec2) -> ObjectSpec {
        let c = (min + max) * 0.5;
        ObjectSpec {
            label: Some(label.into()),
            size: [max.x - min.x, max.y - min.y],
            position: [c.x, c.y],
            angle: 0.0,
            motion: ObjectMotion::Fixed,
            mass: default_mass(),
            friction: default_friction(),
            velocity: [0.0, 0.0],
            hinge_stiffness: 0.0,
            hinge_damping: 0.0,
        }
    }

    pub fn centre(&self) -> Vec2 {
        Vec2::new(self.position[0], self.position[1])
    }

    /// The corners at t = 0, counter-clockwise from the lower left (before rotation).
    pub fn corners(&self) -> [Vec2; 4] {
        let (hx, hy) = (self.size[0] * 0.5, self.size[1] * 0.5);
        let (s, c) = self.angle.sin_cos();
        let c0 = self.centre();
        [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)].map(|(x, y)| c0 + Vec2::new(c * x - s * y, s * x + c * y))
    }

    /// The first field that is out of its domain, as (field, what it must be), if any.
    pub fn invalid(&self) -> Option<(String, String)> {
        let e = MAX_OBJECT_EXTENT;
        for (i, s) in self.size.iter().enumerate() {
            if !(s.is_finite() && *s > 0.0 && *s <= e) {
                return Some((
                    format!("size[{i}]"),
                    format!("{} m: a side must be in (0, {e}] m", crate::geom::compact(*s)),
                ));
            }
        }
        for (i, p) in self.position.iter().enumerate() {
            if !(p.is_finite() && p.abs() <= e) {
                return Some((
                    format!("position[{i}]"),
                    format!("{} m: must be within ±{e} m", crate::geom::compact(*p)),
                ));
            }
        }
        if !(self.angle.is_finite() && self.angle.abs() <= 100.0) {
            return Some((
                "angle".into(),
                format!("{}: give an angle in rad within ±100", crate::geom::compact(self.angle)),
            ));
        }
        if let Some(message) = mass_problem(self.mass) {
            return Some(("mass".into(), message));
        }
        // A fixed object never reads its mass; one that moves is turned by the engine.
        if self.motion != ObjectMotion::Fixed {
            if let Some(message) = inertia_problem(self.mass, self.size) {
                return Some(("mass".into(), message));
            }
        }
        if !(self.friction.is_finite() && (0.0..=10.0).contains(&self.friction)) {
            return Some(("friction".into(), format!("{}: must be in [0, 10]", crate::geom::compact(self.friction))));
        }
        for (i, v) in self.velocity.iter().enumerate() {
            if !(v.is_finite() && v.abs() <= 100.0) {
                return Some((
                    format!("velocity[{i}]"),
                    format!("{} m/s: must be within ±100 m/s", crate::geom::compact(*v)),
                ));
            }
        }
        for (field, v) in [("hinge_stiffness", self.hinge_stiffness), ("hinge_damping", self.hinge_damping)] {
            if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                return Some((field.into(), format!("{}: must be in [0, 1e9]", crate::geom::compact(v))));
            }
            if v != 0.0 && self.motion != ObjectMotion::Hinged {
                return Some((
                    field.into(),
                    "applies to a hinged object only: drop it, or use `\"motion\": \"hinged\"`".into(),
                ));
            }
        }
        if self.motion != ObjectMotion::Dynamic && self.velocity != [0.0, 0.0] {
            return Some((
                "velocity".into(),
                "only a dynamic object starts moving: drop `velocity` or use `\"motion\": \"dynamic\"`".into(),
            ));
        }
        None
    }

    /// Why a dynamic object cannot start on `terrain`, if it cannot: beyond the terrain's ends (it would
    /// fall until the engine's speed limit stops the run), or partly in the ground (it is shot out of it or
    /// stays stuck). Fixed and hinged objects never fall, so they may stand in the ground (a post).
    pub fn ground_problem(&self, terrain: &Terrain) -> Option<String> {
        if self.motion != ObjectMotion::Dynamic {
            return None;
        }
        let corners = self.corners();
        let (x0, x1) = (terrain.profile[0].x, terrain.profile[terrain.profile.len() - 1].x);
        if corners.iter().any(|c| c.x < x0 || c.x > x1) {
            return Some(format!(
                "the object must lie over the terrain, x in [{}, {}] m, or it falls without end; move it, make it \
                 `\"motion\": \"fixed\"`, or use `\"terrain\": {{\"type\": \"none\"}}`",
                crate::geom::compact(x0),
                crate::geom::compact(x1)
            ));
        }
        // How far the ground rises above the outline: at each corner (a hair inside, so a box against a
        // riser's foot is not in it) and at each terrain vertex under an edge.
        let centre = self.centre();
        let inset = 1e-9 * self.size[0].max(self.size[1]);
        let mut deepest: Option<(Vec2, f64)> = None;
        let mut sunk = |point: Vec2, ground: f64| {
            if ground > point.y + 1e-9 && deepest.is_none_or(|(p, g)| ground - point.y > g - p.y) {
                deepest = Some((point, ground));
            }
        };
        for (i, &a) in corners.iter().enumerate() {
            let x = a.x + inset * (centre.x - a.x).signum();
            if let Some(ground) = terrain.height_at(x) {
                sunk(a, ground);
            }
            let b = corners[(i + 1) % 4];
            let (lo, hi) = if a.x < b.x { (a, b) } else { (b, a) };
            // The profile runs left to right: only its vertices strictly between the edge's ends.
            let first = terrain.profile.partition_point(|v| v.x <= lo.x);
            for v in terrain.profile[first..].iter().take_while(|v| v.x < hi.x) {
                sunk(Vec2::new(v.x, lo.y + (hi.y - lo.y) * (v.x - lo.x) / (hi.x - lo.x)), v.y);
            }
        }
        deepest.map(|(point, ground)| {
            let raise = ((ground - point.y) * 1000.0).ceil() / 1000.0;
            format!(
                "the object starts in the ground: its outline at [{}, {}] m is under the surface (y = {} m there); \
                 raise it by {} m or more (position[1] ≥ {} m), or make it `\"motion\": \"fixed\"`",
                crate::geom::compact(micro(point.x)),
                crate::geom::compact(micro(point.y)),
                crate::geom::compact(micro(ground)),
                crate::geom::compact(raise),
                crate::geom::compact(self.position[1] + raise),
            )
        })
    }

    /// Whether the rectangle (as placed at t = 0) overlaps the axis-aligned box `[x0, y0, x1, y1]`.
    pub fn overlaps(&self, b: [f64; 4]) -> bool {
        let corners = self.corners();
        let min =
            corners.iter().fold(Vec2::new(f64::INFINITY, f64::INFINITY), |m, p| Vec2::new(m.x.min(p.x), m.y.min(p.y)));
        let max = corners
            .iter()
            .fold(Vec2::new(f64::NEG_INFINITY, f64::NEG_INFINITY), |m, p| Vec2::new(m.x.max(p.x), m.y.max(p.y)));
        const EPS: f64 = 1e-9;
        min.x < b[2] - EPS && b[0] < max.x - EPS && min.y < b[3] - EPS && b[1] < max.y - EPS
    }
}

/// The contact pairs the engine tracks from the first step among `objects` (issue 52): pairs of objects
/// whose bounding boxes overlap at t = 0, at least one of them moving (fixed pairs are never tested), and
/// for each moving object the ground segments under it (`ground_x`: the terrain profile's x, sorted;
/// every segment under a body is a collider pair). Objects that do not overlap keep a contact graph of a
/// few pairs per object (bodies side by side), so this count is what makes a scene quadratic; counting
/// stops soon after `cap`.
pub fn contact_pairs(objects: &[ObjectSpec], ground_x: &[f64], cap: u64) -> u64 {
    let boxes: Vec<(Vec2, Vec2, bool)> = objects
        .iter()
        .map(|o| {
            let c = o.corners();
            let lo =
                c.iter().fold(Vec2::new(f64::INFINITY, f64::INFINITY), |m, p| Vec2::new(m.x.min(p.x), m.y.min(p.y)));
            let hi = c
                .iter()
                .fold(Vec2::new(f64::NEG_INFINITY, f64::NEG_INFINITY), |m, p| Vec2::new(m.x.max(p.x), m.y.max(p.y)));
            (lo, hi, o.motion != ObjectMotion::Fixed)
        })
        .collect();
    let mut pairs: u64 = 0;
    for (lo, hi, moving) in &boxes {
        if *moving && ground_x.len() > 1 {
            // Segments [x_k, x_k+1] meeting [lo.x, hi.x].
            let first = ground_x.partition_point(|x| *x <= lo.x).saturating_sub(1);
            let last = ground_x.partition_point(|x| *x < hi.x).min(ground_x.len() - 1);
            pairs = pairs.saturating_add(last.saturating_sub(first).max(1) as u64);
        }
    }
    // Sweep along x: each object meets only those starting before it ends.
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].0.x.total_cmp(&boxes[b].0.x));
    const EPS: f64 = 1e-9;
    for (k, &a) in order.iter().enumerate() {
        if pairs > cap {
            break;
        }
        let (lo, hi, moving) = boxes[a];
        for &b in &order[k + 1..] {
            let (lo2, hi2, moving2) = boxes[b];
            if lo2.x >= hi.x - EPS {
                break;
            }
            if (moving || moving2) && lo2.y < hi.y - EPS && lo.y < hi2.y - EPS {
                pairs = pairs.saturating_add(1);
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_of_a_turned_box() {
        let mut o = ObjectSpec::dynamic_box("b", [2.0, 1.0], Vec2::new(1.0, 1.0), 1.0, 1.0);
        assert_eq!(o.corners()[0], Vec2::new(0.0, 0.5));
        o.angle = std::f64::consts::FRAC_PI_2;
        let c = o.corners()[0];
        // (−1, −0.5) turned a quarter: (0.5, −1), about the centre (1, 1).
        assert!((c.x - 1.5).abs() < 1e-12 && (c.y - 0.0).abs() < 1e-12, "{c:?}");
    }

    /// Stairs: risers of 0.5 m at x = 30, 36, 42, … m (ground at 0 m before 30 m, then 0.5 m, 1 m, …).
    fn stairs() -> Terrain {
        let spec: crate::model::terrain::TerrainSpec = serde_json::from_str(
            r#"{"type": "stairs", "direction": "up", "step_height": 0.5, "step_width": 6, "start": 30}"#,
        )
        .unwrap();
        spec.build(false).unwrap().unwrap()
    }

    #[test]
    fn a_dynamic_object_must_start_over_and_above_the_ground() {
        let t = stairs();
        let at = |x: f64, y: f64| ObjectSpec::dynamic_box("b", [1.0, 1.0], Vec2::new(x, y), 1.0, 1.0);
        // Resting on a tread, and standing against the foot of the riser at x = 36 m.
        assert_eq!(at(20.0, 0.5).ground_problem(&t), None);
        assert_eq!(at(35.5, 1.0).ground_problem(&t), None);
        // Its right half over the next, higher tread (the riser's top is inside the box).
        let problem = at(36.0, 1.0).ground_problem(&t).expect("through the riser");
        assert!(problem.contains("raise it by 0.5 m") && problem.contains("position[1] ≥ 1.5 m"), "{problem}");
        // Sunk in flat ground, turned a quarter (a diamond's lowest corner 0.207 m under the surface).
        let mut turned = at(20.0, 0.5);
        turned.angle = std::f64::consts::FRAC_PI_4;
        assert!(turned.ground_problem(&t).expect("corner in the ground").contains("raise it by 0.208 m"));
        // Past the terrain's end it would fall until the speed limit.
        assert!(at(2500.0, 5.0).ground_problem(&t).expect("off the terrain").contains("x in [0, 2000] m"));
        // A fixed post may stand in the ground.
        let mut post = at(20.0, 0.0);
        post.motion = ObjectMotion::Fixed;
        assert_eq!(post.ground_problem(&t), None);
    }

    #[test]
    fn bad_fields_are_named() {
        let mut o = ObjectSpec::dynamic_box("b", [2.0, -1.0], Vec2::ZERO, 1.0, 1.0);
        assert_eq!(o.invalid().unwrap().0, "size[1]");
        o.size[1] = 1.0;
        o.mass = 0.0;
        assert_eq!(o.invalid().unwrap().0, "mass");
        o.mass = 1.0;
        assert!(o.invalid().is_none());
        assert!(o.overlaps([0.5, 0.0, 3.0, 3.0]));
        assert!(!o.overlaps([1.0, -0.5, 3.0, 3.0]), "touching at an edge is no overlap");
    }

    #[test]
    fn a_box_too_light_to_turn_is_refused_and_the_suggested_mass_passes() {
        let mut o = ObjectSpec::dynamic_box("b", [0.01, 0.02], Vec2::ZERO, 1e-29, 1.0);
        let (field, message) = o.invalid().expect("an inertia of 4e-34 kg·m² is refused");
        assert_eq!(field, "mass");
        assert!(message.contains("give at least 2.4e-26 kg"), "{message}");
        o.mass = 2.4e-26;
        assert!(o.invalid().is_none(), "the suggestion passes");
        // A fixed object never reads its mass.
        o.mass = 1e-29;
        o.motion = ObjectMotion::Fixed;
        assert!(o.invalid().is_none());
        // Below the mass floor, whatever the size.
        o.mass = 1e-45;
        assert!(o.invalid().unwrap().1.contains("must be in [1e-30, 1e6] kg"));
    }
}
