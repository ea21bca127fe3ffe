//! Lattice geometry and node numbering (spec §2): voxels on an integer grid, the six nodes of a
//! cuboctahedral voxel numbered as PFEA does (0 = −x, 1 = −y, 2 = −z, 3 = +x, 4 = +y, 5 = +z), node
//! identity by position, and the text-layer form of a lattice.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::error::PomError;

/// A voxel's grid coordinate (i, j, k); its centre is at pitch·(i, j, k).
pub type Voxel = [i32; 3];

/// A node's identity: 2·voxel + u_n. Face neighbours name their shared node with the same key.
pub(crate) type NodeKey = [i32; 3];

/// Axis letters, for ids such as `foot_bl.x` and messages.
pub const AXIS_NAMES: [char; 3] = ['x', 'y', 'z'];

/// The unit vector u_n from a voxel's centre to its node n.
pub(crate) fn node_dir(n: usize) -> [i32; 3] {
    let mut u = [0; 3];
    u[n % 3] = if n < 3 { -1 } else { 1 };
    u
}

/// The axis a node sits on (n mod 3); nodes n and n + 3 are opposite on it.
pub(crate) fn node_axis(n: usize) -> usize {
    n % 3
}

/// The node of a voxel at the centre of the face in direction `sign`·e_axis.
pub fn node_index(axis: usize, sign: i32) -> usize {
    if sign < 0 {
        axis
    } else {
        axis + 3
    }
}

/// The position key of node n of voxel v.
pub fn node_key(v: Voxel, n: usize) -> NodeKey {
    let u = node_dir(n);
    [2 * v[0] + u[0], 2 * v[1] + u[1], 2 * v[2] + u[2]]
}

/// The voxel across the face of node n (it shares that node, as its node n ± 3).
pub(crate) fn face_neighbour(v: Voxel, n: usize) -> Voxel {
    let u = node_dir(n);
    [v[0] + u[0], v[1] + u[1], v[2] + u[2]]
}

/// Largest |coordinate| of a voxel: keeps node keys (2·v ± 1) and neighbours far from i32 overflow.
pub(crate) const MAX_COORDINATE: i32 = 1 << 20;

/// Formats a voxel as `(i, j, k)` in messages.
pub(crate) fn show_voxel(v: Voxel) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

/// A face-connected set of voxels and the pitch between voxel centres.
#[derive(Debug, Clone, PartialEq)]
pub struct Lattice {
    pitch: f64,
    voxels: BTreeSet<Voxel>,
}

impl Lattice {
    /// Checks that the pitch is positive and the voxels are non-empty and face-connected (POM's
    /// propagation needs a single body; two loose pieces would be two robots).
    pub fn new(pitch: f64, voxels: impl IntoIterator<Item = Voxel>) -> Result<Lattice, PomError> {
        if !(pitch.is_finite() && pitch > 0.0 && pitch <= super::limits::MAX_LENGTH) {
            return Err(PomError::invalid(
                "lattice.pitch",
                format!(
                    "{} must be a positive length in m of at most {}, e.g. 0.0762",
                    crate::geom::compact(pitch),
                    super::limits::MAX_LENGTH
                ),
            ));
        }
        let voxels: BTreeSet<Voxel> = voxels.into_iter().collect();
        if let Some(&far) = voxels.iter().find(|v| v.iter().any(|c| c.abs() > MAX_COORDINATE)) {
            return Err(PomError::invalid(
                "lattice.layers",
                format!("voxel {} is too far out: coordinates must be within ±{MAX_COORDINATE}", show_voxel(far)),
            ));
        }
        let Some(&first) = voxels.iter().next() else {
            return Err(PomError::invalid(
                "lattice.layers",
                "the lattice has no voxel: mark at least one cell with `#`",
            ));
        };
        let reached = connected(&voxels, first, |_| true);
        if let Some(&loose) = voxels.iter().find(|v| !reached.contains(*v)) {
            return Err(PomError::invalid(
                "lattice.layers",
                format!(
                    "voxel {} is not face-connected to voxel {}: POM needs one connected body; join the pieces or remove one",
                    show_voxel(loose),
                    show_voxel(first)
                ),
            ));
        }
        Ok(Lattice { pitch, voxels })
    }

    /// Reads `layers[k]` (bottom first) as text rows, **the first row being the highest y**, characters
    /// x = 0, 1, …; `#` is a voxel, `.` or a space empty.
    pub fn from_layers(pitch: f64, layers: &[Vec<String>]) -> Result<Lattice, PomError> {
        let mut voxels = Vec::new();
        for (k, rows) in layers.iter().enumerate() {
            let h = rows.len();
            for (r, row) in rows.iter().enumerate() {
                let j = (h - 1 - r) as i32;
                for (i, c) in row.chars().enumerate() {
                    match c {
                        '#' => voxels.push([i as i32, j, k as i32]),
                        '.' | ' ' => {}
                        other => {
                            return Err(PomError::invalid(
                                format!("lattice.layers.z{k}[{r}]"),
                                format!(
                                    "character {other:?} at column {i}: use `#` for a voxel and `.` for an empty cell"
                                ),
                            ))
                        }
                    }
                }
            }
        }
        Lattice::new(pitch, voxels)
    }

    pub fn pitch(&self) -> f64 {
        self.pitch
    }

    pub fn contains(&self, v: Voxel) -> bool {
        self.voxels.contains(&v)
    }

    pub fn voxels(&self) -> impl Iterator<Item = Voxel> + '_ {
        self.voxels.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.voxels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.voxels.is_empty()
    }

    /// Rest position of a voxel's centre, m.
    pub fn centre(&self, v: Voxel) -> [f64; 3] {
        v.map(|c| self.pitch * c as f64)
    }

    /// Rest position of a node key, m (keys count half pitches).
    pub fn key_position(&self, key: NodeKey) -> [f64; 3] {
        key.map(|c| 0.5 * self.pitch * c as f64)
    }

    /// Rest position of node n of voxel v, m.
    pub(crate) fn node_position(&self, v: Voxel, n: usize) -> [f64; 3] {
        self.key_position(node_key(v, n))
    }

    /// Every distinct node with the (voxel, node index) pairs that share it: one pair, or two across a
    /// face between voxels.
    pub fn nodes(&self) -> BTreeMap<NodeKey, Vec<(Voxel, usize)>> {
        let mut nodes: BTreeMap<NodeKey, Vec<(Voxel, usize)>> = BTreeMap::new();
        for v in self.voxels() {
            for n in 0..6 {
                nodes.entry(node_key(v, n)).or_default().push((v, n));
            }
        }
        nodes
    }

    /// The voxels 4-connected to `start` within its layer normal to `axis` (the same `axis` coordinate).
    pub(crate) fn layer_component(&self, start: Voxel, axis: usize) -> BTreeSet<Voxel> {
        connected(&self.voxels, start, |step| step != axis)
    }
}

/// Breadth-first search from `start` through face neighbours, stepping only along axes `allowed`.
fn connected(voxels: &BTreeSet<Voxel>, start: Voxel, allowed: impl Fn(usize) -> bool) -> BTreeSet<Voxel> {
    let mut seen = BTreeSet::new();
    if !voxels.contains(&start) {
        return seen;
    }
    seen.insert(start);
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for n in (0..6).filter(|&n| allowed(node_axis(n))) {
            let w = face_neighbour(v, n);
            if voxels.contains(&w) && seen.insert(w) {
                queue.push_back(w);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_nodes_share_an_axis_and_neighbours_share_a_node() {
        for n in 0..3 {
            assert_eq!(node_axis(n), node_axis(n + 3));
            assert_eq!(node_dir(n).map(|c| -c), node_dir(n + 3));
            let v = [1, 2, 3];
            assert_eq!(node_key(v, n + 3), node_key(face_neighbour(v, n + 3), n));
        }
        assert_eq!(node_dir(0), [-1, 0, 0]);
        assert_eq!(node_dir(4), [0, 1, 0]);
        assert_eq!(node_dir(5), [0, 0, 1]);
    }

    #[test]
    fn layers_read_first_row_as_highest_y_and_must_be_connected() {
        let l = Lattice::from_layers(1.0, &[vec!["#.".into(), "##".into()]]).unwrap();
        assert!(l.contains([0, 1, 0]) && l.contains([0, 0, 0]) && l.contains([1, 0, 0]) && !l.contains([1, 1, 0]));
        let err = Lattice::from_layers(1.0, &[vec!["#.#".into()]]).unwrap_err().to_string();
        assert!(err.contains("not face-connected"), "{err}");
        let err = Lattice::from_layers(1.0, &[vec!["#x".into()]]).unwrap_err().to_string();
        assert!(err.contains("lattice.layers.z0[0]") && err.contains("'x'"), "{err}");
        // A 2×2×1 lattice has 24 − 4 shared = 20 distinct nodes (spec §13 check 3).
        let square = Lattice::from_layers(1.0, &[vec!["##".into(), "##".into()]]).unwrap();
        assert_eq!(square.nodes().len(), 20);
    }
}
