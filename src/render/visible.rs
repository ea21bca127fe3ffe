//! Which bodies a cell's camera sees, so that a frame of N cells over one world of N robots costs O(N),
//! not O(N²): every body's box is sorted once per snapshot by its left edge, and a cell looks at the
//! run of boxes whose left edge lies within one body width of its view (sorted x-intervals; a uniform
//! grid or a tree would only pay for worlds of very unequal body sizes, which have few bodies).

use crate::geom::Aabb;
use crate::snapshot::{BodySnapshot, Snapshot};

/// Pixels around a cell within which a body is still drawn: the widest stroke, a printed sensor value
/// or a weld dot reaches this far beyond a body's box.
pub(crate) const DRAW_MARGIN_PX: f64 = 64.0;

/// The bodies of one snapshot, sorted by the left edge of what they draw.
#[derive(Debug, Default)]
pub(crate) struct BodyIndex {
    /// (left edge, body index) of every body with a finite box, by left edge.
    by_left: Vec<(f64, usize)>,
    /// The box of each body (what it draws), by body index.
    boxes: Vec<Aabb>,
    /// The widest box: a body seen by a view starts at most this far left of it.
    widest: f64,
}

impl BodyIndex {
    /// Indexes `snapshot`'s bodies; `arrows` extends each voxel robot's box to its velocity arrows'
    /// tips (v·0.5 s from each voxel centre), which may reach beyond the robot.
    pub(crate) fn build(&mut self, snapshot: &Snapshot, arrows: bool) {
        self.boxes.clear();
        self.by_left.clear();
        self.widest = 0.0;
        for (i, body) in snapshot.bodies.iter().enumerate() {
            let mut bbox = body.bbox();
            if let (true, BodySnapshot::VoxelRobot(r)) = (arrows, body) {
                for v in &r.voxels {
                    bbox = bbox.union(Aabb::from_points([v.center + v.velocity * 0.5]));
                }
            }
            self.boxes.push(bbox);
            if bbox.min.x.is_finite() && bbox.max.x.is_finite() && bbox.min.x <= bbox.max.x {
                self.by_left.push((bbox.min.x, i));
                self.widest = self.widest.max(bbox.max.x - bbox.min.x);
            }
        }
        self.by_left.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }

    /// The bodies whose box meets `view` (grown by `margin` world units), in snapshot order (the order
    /// they are painted in), into `out`.
    pub(crate) fn query(&self, view: Aabb, margin: f64, out: &mut Vec<usize>) {
        out.clear();
        let (x0, x1) = (view.min.x - margin, view.max.x + margin);
        let (y0, y1) = (view.min.y - margin, view.max.y + margin);
        if !(x0 <= x1 && y0 <= y1) {
            return;
        }
        let first = self.by_left.partition_point(|&(left, _)| left < x0 - self.widest);
        for &(left, i) in &self.by_left[first..] {
            if left > x1 {
                break;
            }
            let b = self.boxes[i];
            if b.max.x >= x0 && b.min.y <= y1 && b.max.y >= y0 {
                out.push(i);
            }
        }
        out.sort_unstable();
    }
}
