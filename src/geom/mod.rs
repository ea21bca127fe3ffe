//! Plane geometry in f64: points and vectors, boxes, polygons. The bottom layer: everything may use it.
//!
//! `Vec2` is our own small type rather than glam's `DVec2`: its `length` is `hypot` (glam's is
//! `sqrt(dot)`), and every recorded metric depends on those bits; it also serialises as `[x, y]` and
//! describes itself in the scenario schema.

use serde::{Deserialize, Serialize};

/// A number for messages: Rust's shortest round-trip decimal for ordinary magnitudes, scientific
/// notation (`1e308`, `1.5e-9`) for very large or very small ones instead of hundreds of digits.
pub fn compact(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A 2-D point or vector in world coordinates (metres; y up). Serialised as `[x, y]`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(from = "[f64; 2]", into = "[f64; 2]")]
pub struct Vec2 {
    pub x: f64,
    pub y: f64,
}

impl Vec2 {
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
    pub fn dot(self, o: Vec2) -> f64 {
        self.x * o.x + self.y * o.y
    }
    /// z component of the 3-D cross product.
    pub fn cross(self, o: Vec2) -> f64 {
        self.x * o.y - self.y * o.x
    }
    pub fn length(self) -> f64 {
        self.x.hypot(self.y)
    }
    /// The unit vector in this direction, or zero for a zero vector.
    pub fn normalized(self) -> Vec2 {
        let l = self.length();
        if l > 0.0 {
            self * (1.0 / l)
        } else {
            Vec2::ZERO
        }
    }
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl From<[f64; 2]> for Vec2 {
    fn from(a: [f64; 2]) -> Self {
        Vec2::new(a[0], a[1])
    }
}
impl From<Vec2> for [f64; 2] {
    fn from(v: Vec2) -> Self {
        [v.x, v.y]
    }
}
impl std::ops::Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}
impl std::ops::Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}
impl std::ops::Mul<f64> for Vec2 {
    type Output = Vec2;
    fn mul(self, s: f64) -> Vec2 {
        Vec2::new(self.x * s, self.y * s)
    }
}
impl std::ops::Neg for Vec2 {
    type Output = Vec2;
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

/// An axis-aligned rectangle in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    pub min: Vec2,
    pub max: Vec2,
}

impl Aabb {
    /// The empty box: the identity of [`Aabb::union`].
    pub(crate) const EMPTY: Aabb =
        Aabb { min: Vec2::new(f64::INFINITY, f64::INFINITY), max: Vec2::new(f64::NEG_INFINITY, f64::NEG_INFINITY) };

    pub fn from_points(points: impl IntoIterator<Item = Vec2>) -> Aabb {
        points.into_iter().fold(Aabb::EMPTY, |b, p| b.including(p))
    }
    pub(crate) fn including(self, p: Vec2) -> Aabb {
        Aabb {
            min: Vec2::new(self.min.x.min(p.x), self.min.y.min(p.y)),
            max: Vec2::new(self.max.x.max(p.x), self.max.y.max(p.y)),
        }
    }
    pub fn union(self, o: Aabb) -> Aabb {
        Aabb {
            min: Vec2::new(self.min.x.min(o.min.x), self.min.y.min(o.min.y)),
            max: Vec2::new(self.max.x.max(o.max.x), self.max.y.max(o.max.y)),
        }
    }
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }
    pub fn width(&self) -> f64 {
        self.max.x - self.min.x
    }
    pub fn height(&self) -> f64 {
        self.max.y - self.min.y
    }
    pub fn center(&self) -> Vec2 {
        (self.min + self.max) * 0.5
    }
}

/// A closed polygon, vertices counter-clockwise (the last vertex joins the first).
pub type Polygon = Vec<Vec2>;

/// The root-mean-square distance between `points` and `target` (same length, paired in order) after
/// the best rigid motion of `points` (rotation and translation; no reflection, no scale): 2-D
/// Procrustes, in closed form. Empty input gives 0.
pub(crate) fn rigid_rms(points: &[Vec2], target: &[Vec2]) -> f64 {
    let n = points.len().min(target.len());
    if n == 0 {
        return 0.0;
    }
    let mean = |v: &[Vec2]| v[..n].iter().fold(Vec2::ZERO, |s, &p| s + p) * (1.0 / n as f64);
    let (cp, cq) = (mean(points), mean(target));
    // The best angle maximises Σ q·R(θ)p = cos θ·Σ p·q + sin θ·Σ p×q.
    let (mut dot, mut cross) = (0.0, 0.0);
    for (&p, &q) in points.iter().zip(target).take(n) {
        let (p, q) = (p - cp, q - cq);
        dot += p.dot(q);
        cross += p.cross(q);
    }
    let (s, c) = cross.atan2(dot).sin_cos();
    let sum: f64 = points
        .iter()
        .zip(target)
        .take(n)
        .map(|(&p, &q)| {
            let p = p - cp;
            let turned = Vec2::new(c * p.x - s * p.y, s * p.x + c * p.y);
            let d = turned - (q - cq);
            d.dot(d)
        })
        .sum();
    (sum / n as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rigid_rms_ignores_rotation_and_translation_but_not_scale_or_reflection() {
        let square = [Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0), Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0)];
        let (s, c) = 0.7f64.sin_cos();
        let moved: Vec<Vec2> =
            square.iter().map(|p| Vec2::new(c * p.x - s * p.y + 3.0, s * p.x + c * p.y - 5.0)).collect();
        assert!(rigid_rms(&moved, &square) < 1e-12);
        // Twice the size: every corner is √2 off after the best alignment (the centres coincide).
        let doubled: Vec<Vec2> = square.iter().map(|&p| p * 2.0).collect();
        assert!((rigid_rms(&square, &doubled) - 2f64.sqrt()).abs() < 1e-12);
        // A mirror image of an asymmetric shape cannot be turned onto it.
        let l = [Vec2::new(0.0, 0.0), Vec2::new(0.0, 2.0), Vec2::new(1.0, 0.0)];
        let mirrored: Vec<Vec2> = l.iter().map(|p| Vec2::new(-p.x, p.y)).collect();
        assert!(rigid_rms(&mirrored, &l) > 0.1);
        assert_eq!(rigid_rms(&[], &[]), 0.0);
    }
}
