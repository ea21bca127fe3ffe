//! The paper's three actuation matrices (spec §3, verbatim), the actuation dimension of a push, planes of
//! motion and the parity rule (spec §4).
//!
//! A_d is an infinitesimal rotation about axis e_d of the voxel square normal to e_d; d is that rotation
//! axis, not the direction in which a control node is pushed.

use std::collections::BTreeSet;

use super::geometry::{node_axis, Lattice, Voxel, AXIS_NAMES};

/// Rows x, y, z; columns node 0–5. Copied from the paper's equation block.
const A0: [[i8; 6]; 3] = [[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, -1], [0, -1, 0, 0, 1, 0]];
const A1: [[i8; 6]; 3] = [[0, 0, 1, 0, 0, -1], [0, 0, 0, 0, 0, 0], [-1, 0, 0, 1, 0, 0]];
const A2: [[i8; 6]; 3] = [[0, -1, 0, 0, 1, 0], [1, 0, 0, -1, 0, 0], [0, 0, 0, 0, 0, 0]];

/// A_0, A_1, A_2 indexed `[d][row][node]`.
pub(crate) const ACTUATION: [[[i8; 6]; 3]; 3] = [A0, A1, A2];

/// a_{d,n}: the displacement of node n of every voxel of a plane per unit control displacement, before
/// the parity sign (column n of A_d).
pub fn column(d: usize, n: usize) -> [i8; 3] {
    let a = &ACTUATION[d % 3];
    [a[0][n % 6], a[1][n % 6], a[2][n % 6]]
}

/// The actuation dimension of a node on axis `node_axis` pushed along `push_axis`: the third axis, the
/// one the turning square rotates about. `None` for a push along the node's own axis (a zero column).
pub fn dimension(node_axis: usize, push_axis: usize) -> Option<usize> {
    (node_axis != push_axis && node_axis < 3 && push_axis < 3).then(|| 3 - node_axis - push_axis)
}

/// (−1)^(Σ_k (v_k − w_k)): squares of face-adjacent voxels in a plane turn in opposite directions.
pub fn parity(v: Voxel, w: Voxel) -> i8 {
    let s: i64 = (0..3).map(|k| i64::from(v[k]) - i64::from(w[k])).sum();
    if s.rem_euclid(2) == 0 {
        1
    } else {
        -1
    }
}

/// The voxels that turn with one control: its voxel's layer normal to e_d, 4-connected within it.
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// Actuation dimension (rotation axis), 0–2.
    pub d: usize,
    /// The voxels' common coordinate along d.
    pub layer: i32,
    pub voxels: BTreeSet<Voxel>,
}

impl Plane {
    /// The plane of motion through `voxel` for actuation dimension `d`.
    pub fn through(lattice: &Lattice, voxel: Voxel, d: usize) -> Plane {
        Plane { d, layer: voxel[d % 3], voxels: lattice.layer_component(voxel, d % 3) }
    }

    /// The plane's axis letter, e.g. `y` for the y-layer of d = 1.
    pub fn axis_name(&self) -> char {
        AXIS_NAMES[self.d]
    }

    /// Whether node n of a voxel of this plane translates when the plane turns (it is off the d axis).
    pub fn moves_node(&self, n: usize) -> bool {
        node_axis(n) != self.d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pom::geometry::node_dir;

    fn cross(a: [i32; 3], b: [i32; 3]) -> [i32; 3] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    /// Acceptance check 1: the matrices as printed in the paper, row by row.
    #[test]
    fn matrices_are_the_papers_verbatim() {
        assert_eq!(ACTUATION[0], [[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, -1], [0, -1, 0, 0, 1, 0]]);
        assert_eq!(ACTUATION[1], [[0, 0, 1, 0, 0, -1], [0, 0, 0, 0, 0, 0], [-1, 0, 0, 1, 0, 0]]);
        assert_eq!(ACTUATION[2], [[0, -1, 0, 0, 1, 0], [1, 0, 0, -1, 0, 0], [0, 0, 0, 0, 0, 0]]);
    }

    /// Acceptance check 1: every column ⊥ e_d and ⊥ u_n, opposite nodes antisymmetric, and A_d is the
    /// rotation s_d·(e_d × u_n) with s = (+1, −1, −1) (spec §3).
    #[test]
    fn columns_are_rotations_about_the_dimension_axis() {
        let s = [1, -1, -1];
        for d in 0..3 {
            let mut e = [0; 3];
            e[d] = 1;
            for n in 0..6 {
                let a = column(d, n).map(i32::from);
                let u = node_dir(n);
                assert_eq!(a[d], 0, "a_{d},{n} ⊥ e_d");
                assert_eq!((0..3).map(|k| a[k] * u[k]).sum::<i32>(), 0, "a_{d},{n} ⊥ u_n");
                if n < 3 {
                    assert_eq!(column(d, n + 3).map(i32::from), a.map(|c| -c), "a_{d},{} = −a_{d},{n}", n + 3);
                }
                assert_eq!(a, cross(e, u).map(|c| s[d] * c), "a_{d},{n} = s_d (e_d × u_n)");
                // Nodes on the rotation axis turn but do not translate; all others move by one unit.
                let norm: i32 = a.iter().map(|c| c * c).sum();
                assert_eq!(norm, i32::from(node_axis(n) != d));
            }
        }
    }

    #[test]
    fn dimension_is_the_third_axis_and_parity_alternates() {
        // Fig. 1: a +x node pushed along y turns the x–y squares, d = 2.
        assert_eq!(dimension(0, 1), Some(2));
        assert_eq!(dimension(2, 2), None);
        assert_eq!(parity([0, 0, 0], [1, 0, 0]), -1);
        assert_eq!(parity([0, 0, 0], [1, 1, 0]), 1);
        assert_eq!(parity([-3, 0, 0], [0, 0, 0]), -1);
    }
}
