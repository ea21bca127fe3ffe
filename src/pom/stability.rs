//! Static stability on the ground plane (spec §8 step 4): the centroid of the voxels projected on the
//! ground, the support polygon of the feet on the ground and the signed static margin.
//!
//! Voxel centres do not move in POM, so the centroid is fixed; only the support polygon follows the feet.

use crate::geom::Vec2;

use super::model::Model;

/// Projected centroid of all lattice voxels and the extra `mass_voxels`, unit mass each.
pub fn centroid(model: &Model) -> Vec2 {
    let l = model.lattice();
    let centres: Vec<[f64; 3]> = l.voxels().chain(model.mass_voxels().iter().copied()).map(|v| l.centre(v)).collect();
    let n = centres.len().max(1) as f64;
    Vec2::new(centres.iter().map(|c| c[0]).sum::<f64>() / n, centres.iter().map(|c| c[1]).sum::<f64>() / n)
}

/// Convex hull, counter-clockwise, without collinear points (Andrew's monotone chain).
pub(crate) fn convex_hull(points: &[Vec2]) -> Vec<Vec2> {
    let mut p: Vec<Vec2> = points.iter().copied().filter(|v| v.is_finite()).collect();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let mut hull: Vec<Vec2> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &Vec2>> =
            if pass == 0 { Box::new(p.iter()) } else { Box::new(p.iter().rev()) };
        for &v in ordered {
            while hull.len() >= start + 2
                && (hull[hull.len() - 1] - hull[hull.len() - 2]).cross(v - hull[hull.len() - 2]) <= 0.0
            {
                hull.pop();
            }
            hull.push(v);
        }
        hull.pop();
    }
    hull
}

fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f64 {
    let ab = b - a;
    let len2 = ab.dot(ab);
    let t = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab * t)).length()
}

/// Signed distance from `c` to the boundary of the convex polygon `hull` (counter-clockwise): positive
/// inside, negative outside. A degenerate support (fewer than three non-collinear feet) has no
/// inside, so its margin is minus the distance to the feet (−∞ without feet).
pub(crate) fn static_margin(hull: &[Vec2], c: Vec2) -> f64 {
    let n = hull.len();
    if n == 0 {
        return f64::NEG_INFINITY;
    }
    let edges = || (0..n).map(|i| (hull[i], hull[(i + 1) % n]));
    let nearest = edges().map(|(a, b)| segment_distance(c, a, b)).fold(f64::INFINITY, f64::min);
    let inside = n >= 3 && edges().all(|(a, b)| (b - a).cross(c - a) > 0.0);
    if inside {
        nearest
    } else {
        -nearest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_drops_interior_points_and_margin_is_signed() {
        let pts =
            [Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0), Vec2::new(2.0, 2.0), Vec2::new(0.0, 2.0), Vec2::new(1.0, 1.0)];
        let hull = convex_hull(&pts);
        assert_eq!(hull.len(), 4);
        assert!((static_margin(&hull, Vec2::new(1.0, 0.5)) - 0.5).abs() < 1e-15);
        assert!((static_margin(&hull, Vec2::new(3.0, 1.0)) + 1.0).abs() < 1e-15);
        let segment = convex_hull(&pts[..2]);
        assert!(static_margin(&segment, Vec2::new(1.0, 0.0)) <= 0.0);
    }
}
