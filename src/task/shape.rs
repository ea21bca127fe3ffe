//! The `shape` task (ours, after EvoGym's shape-change tasks): how far the robot changes its body's
//! extent and the area it covers (its convex hull), as absolute figures and as ratios to its rest shape.

use serde::{Deserialize, Serialize};

use crate::geom::Vec2;
use crate::snapshot::Progress;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {}

/// What `shape` reports (robot 0; the rest shape is the one at t = 0).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapeMetrics {
    /// The largest width and height of the body's bounding box over the run, in world axes (a body that
    /// tips over changes them without changing shape), m.
    pub max_width: f64,
    pub max_height: f64,
    /// The largest area of the convex hull of the body's outline over the run (unchanged by rotation), m².
    pub max_area: f64,
    /// The same over their values at t = 0.
    pub max_width_ratio: f64,
    pub max_height_ratio: f64,
    pub max_area_ratio: f64,
}

/// Area of the convex hull of `points` (Andrew's monotone chain, then the shoelace formula), m².
pub(crate) fn convex_hull_area(points: &[Vec2]) -> f64 {
    let mut p: Vec<Vec2> = points.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup();
    if p.len() < 3 {
        return 0.0;
    }
    let turn = |o: Vec2, a: Vec2, b: Vec2| (a - o).cross(b - o);
    let mut hull: Vec<Vec2> = Vec::with_capacity(2 * p.len());
    for pass in [p.clone(), p.iter().rev().copied().collect()] {
        let start = hull.len();
        for q in pass {
            while hull.len() >= start + 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0 {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    0.5 * (0..hull.len()).map(|i| hull[i].cross(hull[(i + 1) % hull.len()])).sum::<f64>().abs()
}

#[derive(Debug, Clone, Default)]
pub(crate) struct ShapeMonitor {
    rest: [f64; 3],
    max: [f64; 3],
}

impl ShapeMonitor {
    fn measure(run: &dyn Progress) -> [f64; 3] {
        let bbox = run.centre_and_bbox(0).1;
        [bbox.width(), bbox.height(), convex_hull_area(&run.outline_points(0))]
    }
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        self.rest = Self::measure(run);
        self.max = self.rest;
    }
    pub fn observe(&mut self, run: &dyn Progress) {
        let now = Self::measure(run);
        for (m, v) in self.max.iter_mut().zip(now) {
            *m = m.max(v);
        }
    }
    pub fn metrics(&self) -> ShapeMetrics {
        let ratio = |i: usize| if self.rest[i] > 0.0 { self.max[i] / self.rest[i] } else { 0.0 };
        ShapeMetrics {
            max_width: self.max[0],
            max_height: self.max[1],
            max_area: self.max[2],
            max_width_ratio: ratio(0),
            max_height_ratio: ratio(1),
            max_area_ratio: ratio(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_area_of_a_square_with_inner_points_and_of_an_l() {
        let square = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0), (1.0, 1.0), (0.5, 1.5)];
        let pts: Vec<Vec2> = square.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
        assert!((convex_hull_area(&pts) - 4.0).abs() < 1e-12);
        // An L of three unit squares: its hull cuts the missing corner in half (3 + 0.5).
        let l = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
        let pts: Vec<Vec2> = l.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
        assert!((convex_hull_area(&pts) - 3.5).abs() < 1e-12);
        assert_eq!(convex_hull_area(&pts[..2]), 0.0);
    }
}
