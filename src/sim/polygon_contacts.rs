//! Contact manifolds between two convex polygons of which one is not a cuboid (a mass or a box against
//! a terrain piece or a wall), found by the separating-axis test over both polygons' face normals
//! instead of parry's GJK; `legacy-1.0` uses it (`World::new`), as dyn4j found these contacts.
//!
//! parry 0.31 sends a cuboid against a convex polygon to GJK (`contact_manifold_pfm_pfm`). In f32, with
//! a 0.9 m mass against a 40 m terrain piece, GJK misjudges shapes within about 0.1 mm of touching: it
//! calls them intersecting and then finds no penetration, so the pair gets no contact at all, even
//! inside the prediction distance (a mass 0.06 mm above the ground: `distance` 0, `contact` none). The
//! mass then falls through the ground for a whole step (6.6 cm in the `legacy-1.0` 3×3 worm). Polygons
//! have few faces, so the exact test is cheap; parry already uses it for two cuboids, which it keeps.

use rapier2d::parry::math::{Pose, Real, Vector};
use rapier2d::parry::query::details::NormalConstraints;
use rapier2d::parry::query::sat;
use rapier2d::parry::query::{
    ClosestPoints, Contact, ContactManifold, ContactManifoldsWorkspace, NonlinearRigidMotion,
    PersistentQueryDispatcher, QueryDispatcher, ShapeCastHit, ShapeCastOptions, ShapeDistance, ShapeIntersection,
    Unsupported,
};
use rapier2d::parry::shape::{
    ConvexPolygon, Cuboid, PolygonalFeature, PolygonalFeatureMap, Shape, SupportMap, TypedShape,
};

/// A convex polygon parry knows by its faces.
#[derive(Clone, Copy)]
enum Polygon<'a> {
    Cuboid(&'a Cuboid),
    Convex(&'a ConvexPolygon),
}

impl<'a> Polygon<'a> {
    fn of(shape: &'a dyn Shape) -> Option<Polygon<'a>> {
        match shape.as_typed_shape() {
            TypedShape::Cuboid(c) => Some(Polygon::Cuboid(c)),
            TypedShape::ConvexPolygon(p) => Some(Polygon::Convex(p)),
            _ => None,
        }
    }

    fn feature(self, dir: Vector) -> PolygonalFeature {
        let mut out = PolygonalFeature::default();
        match self {
            Polygon::Cuboid(c) => c.local_support_feature(dir, &mut out),
            Polygon::Convex(p) => p.local_support_feature(dir, &mut out),
        }
        out
    }

    /// The face whose normal separates `other` (posed by `pos_other` in this polygon's frame) the most:
    /// the separation (negative while they overlap) and the normal in this polygon's frame.
    fn deepest_face(self, other: Polygon, pos_other: &Pose) -> (Real, Vector) {
        match self {
            Polygon::Cuboid(c) => sat::cuboid_support_map_find_local_separating_normal_oneway(c, &other, pos_other),
            Polygon::Convex(p) => p.normals().iter().fold((-Real::MAX, Vector::ZERO), |best, &n| {
                let separation = sat::support_map_support_map_compute_separation(p, &other, pos_other, n);
                if separation > best.0 {
                    (separation, n)
                } else {
                    best
                }
            }),
        }
    }
}

impl SupportMap for Polygon<'_> {
    fn local_support_point(&self, dir: Vector) -> Vector {
        match self {
            Polygon::Cuboid(c) => c.local_support_point(dir),
            Polygon::Convex(p) => p.local_support_point(dir),
        }
    }
}

/// The manifold of two convex polygons: the face of deepest separation, then parry's clipping of the
/// two support features, as parry's own cuboid–cuboid manifold does.
fn polygon_manifold<M, C: Default + Copy>(
    pos12: &Pose,
    shape1: Polygon,
    shape2: Polygon,
    prediction: Real,
    manifold: &mut ContactManifold<M, C>,
) {
    let pos21 = pos12.inverse();
    let (sep1, n1) = shape1.deepest_face(shape2, pos12);
    let (sep2, n2) = shape2.deepest_face(shape1, &pos21);
    if sep1.max(sep2) > prediction {
        manifold.clear();
        return;
    }
    let local_n1 = if sep2 > sep1 { pos12.rotation * -n2 } else { n1 };
    let local_n2 = pos21.rotation * -local_n1;
    let old_points = manifold.points.clone();
    manifold.clear();
    let (feature1, feature2) = (shape1.feature(local_n1), shape2.feature(local_n2));
    PolygonalFeature::contacts(pos12, &pos21, local_n1, local_n2, &feature1, &feature2, manifold, false);
    manifold.local_n1 = local_n1;
    manifold.local_n2 = local_n2;
    // Carries the warm-start impulses of the points that persist.
    manifold.match_contacts(&old_points);
}

/// Two polygons of which at least one is not a cuboid: parry's SAT already handles two cuboids.
fn polygon_pair<'a>(shape1: &'a dyn Shape, shape2: &'a dyn Shape) -> Result<(Polygon<'a>, Polygon<'a>), Unsupported> {
    match (Polygon::of(shape1), Polygon::of(shape2)) {
        (Some(Polygon::Cuboid(_)), Some(Polygon::Cuboid(_))) => Err(Unsupported),
        (Some(p1), Some(p2)) => Ok((p1, p2)),
        _ => Err(Unsupported),
    }
}

/// The query dispatcher of the narrow phase: polygon pairs here, everything else to parry's default.
#[derive(Clone, Copy, Default)]
pub(crate) struct PolygonContacts;

impl QueryDispatcher for PolygonContacts {
    fn intersection_test(&self, _: &Pose, _: &dyn Shape, _: &dyn Shape) -> Result<ShapeIntersection, Unsupported> {
        Err(Unsupported)
    }
    fn distance(&self, _: &Pose, _: &dyn Shape, _: &dyn Shape) -> Result<ShapeDistance, Unsupported> {
        Err(Unsupported)
    }
    fn contact(&self, _: &Pose, _: &dyn Shape, _: &dyn Shape, _: Real) -> Result<Option<Contact>, Unsupported> {
        Err(Unsupported)
    }
    fn closest_points(&self, _: &Pose, _: &dyn Shape, _: &dyn Shape, _: Real) -> Result<ClosestPoints, Unsupported> {
        Err(Unsupported)
    }
    fn cast_shapes(
        &self,
        _: &Pose,
        _: Vector,
        _: &dyn Shape,
        _: &dyn Shape,
        _: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        Err(Unsupported)
    }
    fn cast_shapes_nonlinear(
        &self,
        _: &NonlinearRigidMotion,
        _: &dyn Shape,
        _: &NonlinearRigidMotion,
        _: &dyn Shape,
        _: Real,
        _: Real,
        _: bool,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        Err(Unsupported)
    }
}

impl<M: Default, C: Default + Copy> PersistentQueryDispatcher<M, C> for PolygonContacts {
    fn contact_manifolds(
        &self,
        pos12: &Pose,
        shape1: &dyn Shape,
        shape2: &dyn Shape,
        prediction: Real,
        manifolds: &mut Vec<ContactManifold<M, C>>,
        _: &mut Option<ContactManifoldsWorkspace>,
    ) -> Result<(), Unsupported> {
        let (p1, p2) = polygon_pair(shape1, shape2)?;
        if manifolds.is_empty() {
            manifolds.push(ContactManifold::new());
        }
        polygon_manifold(pos12, p1, p2, prediction, &mut manifolds[0]);
        Ok(())
    }

    fn contact_manifold_convex_convex(
        &self,
        pos12: &Pose,
        shape1: &dyn Shape,
        shape2: &dyn Shape,
        _: Option<&dyn NormalConstraints>,
        _: Option<&dyn NormalConstraints>,
        prediction: Real,
        manifold: &mut ContactManifold<M, C>,
    ) -> Result<(), Unsupported> {
        let (p1, p2) = polygon_pair(shape1, shape2)?;
        polygon_manifold(pos12, p1, p2, prediction, manifold);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rapier2d::parry::math::Rotation;
    use rapier2d::parry::query::DefaultQueryDispatcher;

    use super::*;

    /// A 40 m terrain quad of the `legacy-1.0` uneven5 terrain (its first segment, 2.3° downhill).
    fn slope() -> ConvexPolygon {
        let points = [(1.0, -10.0), (40.96, -10.0), (40.96, 2.025278), (1.0, 3.629265)];
        ConvexPolygon::from_convex_polyline(points.iter().map(|&(x, y)| Vector::new(x, y)).collect())
            .expect("a convex quad")
    }

    /// A 0.9 m mass turned by −0.0997 rad, its centre at (11.39909, y): where the 3×3 worm's corner mass
    /// was at the end of step 82 (y = 3.6882682), its front-bottom corner just above the slope.
    fn mass_pose(y: f64) -> Pose {
        Pose::from_parts(Vector::new(11.39909, y as Real), Rotation::from_cos_sin_unchecked(0.9950367, -0.09950881))
    }

    /// The lowest corner's signed distance to the slope's top edge, worked out by hand in f64.
    fn corner_height(y: f64) -> f64 {
        let (c, s) = (0.9950367f64, -0.09950881f64);
        let (x0, y0) = (11.39909f64 as Real as f64, y as Real as f64);
        let corner = (x0 + 0.45 * c + 0.45 * s, y0 + 0.45 * s - 0.45 * c);
        let (a, b) = ((1.0f64, 3.629265f64 as Real as f64), (40.96f64 as Real as f64, 2.025278f64 as Real as f64));
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        ((corner.1 - a.1) * dx - (corner.0 - a.0) * dy) / (dx * dx + dy * dy).sqrt()
    }

    fn deepest_point<D: PersistentQueryDispatcher<(), ()>>(dispatcher: &D, y: f64) -> Option<Real> {
        let (mass, ground) = (Cuboid::new(Vector::new(0.45, 0.45)), slope());
        let pos12 = mass_pose(y).inverse() * Pose::IDENTITY;
        let mut manifolds = Vec::new();
        dispatcher.contact_manifolds(&pos12, &mass, &ground, 0.02, &mut manifolds, &mut None).expect("supported");
        manifolds.iter().flat_map(|m| m.points.iter().map(|p| p.dist)).reduce(Real::min)
    }

    #[test]
    fn a_mass_a_hair_above_a_long_slope_touches_it() {
        let y = 3.6882682;
        let height = corner_height(y);
        assert!(height > 0.0 && height < 1e-4, "the corner is {height} m above the slope");
        // Why this module exists: parry's GJK finds no contact at all here.
        assert_eq!(deepest_point(&DefaultQueryDispatcher, y), None);
        let found = deepest_point(&PolygonContacts, y).expect("a contact within the prediction distance");
        assert!((found as f64 - height).abs() < 5e-6, "contact at {found} m, the corner is {height} m above");
    }

    #[test]
    fn every_depth_across_the_touch_is_the_corner_height() {
        // From 1 mm above to 1 mm into the slope in 10 µm steps: always a contact, at the right depth.
        for i in -100..=100 {
            let y = 3.6882682 + i as f64 * 1e-5;
            let height = corner_height(y);
            let found = deepest_point(&PolygonContacts, y).unwrap_or_else(|| panic!("no contact at {height} m"));
            assert!((found as f64 - height).abs() < 5e-6, "contact at {found} m, the corner is {height} m");
        }
    }

    #[test]
    fn a_mass_beyond_the_prediction_distance_has_no_contact_and_a_flat_one_has_two() {
        assert_eq!(deepest_point(&PolygonContacts, 3.6882682 + 0.03), None);
        // A mass lying flat on a level quad, 1 mm deep: both bottom corners, 1 mm deep.
        let ground = ConvexPolygon::from_convex_polyline(vec![
            Vector::new(-5.0, -1.0),
            Vector::new(5.0, -1.0),
            Vector::new(5.0, 0.0),
            Vector::new(-5.0, 0.0),
        ])
        .expect("a convex quad");
        let mass = Cuboid::new(Vector::new(0.45, 0.45));
        let pos12 = Pose::from_parts(Vector::new(0.3, 0.449), Rotation::IDENTITY).inverse();
        let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
        PolygonContacts.contact_manifolds(&pos12, &mass, &ground, 0.02, &mut manifolds, &mut None).expect("supported");
        let depths: Vec<Real> = manifolds[0].points.iter().map(|p| p.dist).collect();
        assert_eq!(depths.len(), 2);
        assert!(depths.iter().all(|d| (d + 0.001).abs() < 1e-6), "{depths:?}");
    }
}
