//! Morphology descriptors of a body grid: static numbers of the body as placed, never of its motion
//! (what quality-diversity archives and diversity studies bin robots by).
//!
//! `elongation` and `compactness` are those of 2D-VSR-Sim's `Utils.shapeElongation` and
//! `Utils.shapeCompactness` (github.com/ericmedvet/2dhmsr, `it.units.erallab.hmsrobots.util.Utils`),
//! the descriptors of Medvet et al.'s work on the diversity of evolved VSRs; the others are plain
//! counts and fractions of the grid.

use std::collections::{BTreeMap, BTreeSet};
use std::f64::consts::FRAC_1_SQRT_2;

use serde::{Deserialize, Serialize};

use super::grid::BodyGrid;

/// Morphology descriptors of a robot's body grid at placement (never from the physics). Cells are
/// counted in voxels; the bounding box is that of the occupied cells (empty rows and columns at the
/// grid's edges do not count). `elongation` and `compactness` are 2D-VSR-Sim's (Medvet et al.;
/// `it.units.erallab.hmsrobots.util.Utils` in github.com/ericmedvet/2dhmsr).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Morphology {
    /// Number of voxels (occupied cells).
    pub voxels: u32,
    /// Width of the bounding box of the voxels, in voxels.
    pub width: u32,
    /// Height of the bounding box of the voxels, in voxels.
    pub height: u32,
    /// 1 − min over 8 directions θ = k·45° of (shorter side / longer side) of the bounding box of the
    /// voxel centres rotated by θ, each side measured as max − min + 1 voxel: 0 for a square or a single
    /// voxel, 0.75 for a 4×1 worm, → 1 for a long thin body in any direction (2D-VSR-Sim's
    /// `shapeElongation(posture, n)` with n = 8; with n = 4 it would only restate width and height).
    pub elongation: f64,
    /// Voxels over the cells of the body's approximate convex hull, in (0, 1]: the hull is the body
    /// with every empty cell of at least 5 occupied neighbours (of its 8) filled, repeated until none
    /// is left (2D-VSR-Sim's `shapeCompactness`). 1 for a rectangle; below 1 where the outline has
    /// notches the rule fills (a one-cell notch in an edge, a hole).
    pub compactness: f64,
    /// Fraction of the bounding box's cells that are empty, in [0, 1): holes and the gaps between
    /// legs (2/8 for the biped `["####", "#..#"]`).
    pub emptiness: f64,
    /// Fraction of the voxels of each material, keyed by the material's key in the scenario's
    /// `materials` (`#` without `materials`); keys of materials with identical parameters are one
    /// material, keyed `a/b` as the renderer's material key names them. The fractions sum to 1.
    pub materials: BTreeMap<String, f64>,
    /// Left–right mirror symmetry in [0, 1]: the fraction of voxels whose mirror image in the vertical
    /// axis through the bounding box's centre is also a voxel (1 for the worm and the biped, 2/3 for
    /// the L `["#.", "##"]`). Shape only: materials are not compared.
    pub symmetry: f64,
}

/// The 8 directions of [`Morphology::elongation`], as exact (cos θ, sin θ).
const DIRECTIONS: [(f64, f64); 8] = [
    (1.0, 0.0),
    (FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    (0.0, 1.0),
    (-FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    (-1.0, 0.0),
    (-FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
    (0.0, -1.0),
    (FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
];

impl Morphology {
    /// The descriptors of `grid`, its materials named by their keys.
    pub fn of(grid: &BodyGrid) -> Morphology {
        let (keys, of_voxel) = grid.material_keys();
        let cells: Vec<[u32; 2]> = grid.voxels().map(|(c, _)| c).collect();
        let names: Vec<&str> = of_voxel.iter().map(|&i| keys[i as usize].as_str()).collect();
        Morphology::of_cells(&cells, &names)
    }

    /// The descriptors of the voxels at `cells` (`[x, y]`, any order, no repeats), voxel i of material
    /// `materials[i]`. An empty body has all descriptors 0.
    pub(crate) fn of_cells(cells: &[[u32; 2]], materials: &[&str]) -> Morphology {
        let n = cells.len();
        if n == 0 {
            return Morphology::default();
        }
        let (x0, x1) = (cells.iter().map(|c| c[0]).min().unwrap_or(0), cells.iter().map(|c| c[0]).max().unwrap_or(0));
        let (y0, y1) = (cells.iter().map(|c| c[1]).min().unwrap_or(0), cells.iter().map(|c| c[1]).max().unwrap_or(0));
        let (width, height) = (x1 - x0 + 1, y1 - y0 + 1);
        let occupied: BTreeSet<[u32; 2]> = cells.iter().copied().collect();
        let mut materials_of = BTreeMap::new();
        for m in materials {
            *materials_of.entry(m.to_string()).or_insert(0usize) += 1;
        }
        let mirrored = cells.iter().filter(|c| occupied.contains(&[x0 + x1 - c[0], c[1]])).count();
        Morphology {
            voxels: n as u32,
            width,
            height,
            elongation: elongation(cells),
            compactness: n as f64 / hull_cells(&occupied, [x0, y0], [width, height]) as f64,
            emptiness: (u64::from(width) * u64::from(height) - n as u64) as f64
                / (f64::from(width) * f64::from(height)),
            materials: materials_of.into_iter().map(|(k, c)| (k, c as f64 / n as f64)).collect(),
            symmetry: mirrored as f64 / n as f64,
        }
    }
}

/// See [`Morphology::elongation`].
fn elongation(cells: &[[u32; 2]]) -> f64 {
    let shortest_ratio = DIRECTIONS
        .iter()
        .map(|&(c, s)| {
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            for cell in cells {
                let (x, y) = (f64::from(cell[0]), f64::from(cell[1]));
                let p = [x * c - y * s, x * s + y * c];
                for k in 0..2 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
            let (a, b) = (hi[0] - lo[0] + 1.0, hi[1] - lo[1] + 1.0);
            a.min(b) / a.max(b)
        })
        .fold(f64::INFINITY, f64::min);
    1.0 - shortest_ratio
}

/// The cells of the approximate convex hull of [`Morphology::compactness`] (it never leaves the
/// bounding box at `origin` of `size`: a cell outside has at most 3 neighbours inside).
fn hull_cells(occupied: &BTreeSet<[u32; 2]>, origin: [u32; 2], size: [u32; 2]) -> usize {
    let (w, h) = (size[0] as i64, size[1] as i64);
    let mut hull = vec![false; (w * h) as usize];
    for c in occupied {
        hull[((c[1] - origin[1]) as i64 * w + (c[0] - origin[0]) as i64) as usize] = true;
    }
    let filled =
        |hull: &[bool], x: i64, y: i64| (0..w).contains(&x) && (0..h).contains(&y) && hull[(y * w + x) as usize];
    // Filling is monotone (a filled cell only adds neighbours), so the sweep order does not change the end.
    loop {
        let mut changed = false;
        for y in 0..h {
            for x in 0..w {
                if hull[(y * w + x) as usize] {
                    continue;
                }
                let neighbours = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
                    .iter()
                    .filter(|(dx, dy)| filled(&hull, x + dx, y + dy))
                    .count();
                if neighbours >= 5 {
                    hull[(y * w + x) as usize] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return hull.iter().filter(|c| **c).count();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells of text rows (first row on top), every voxel of material `#` unless its character is
    /// another letter.
    fn of_rows(rows: &[&str]) -> Morphology {
        let h = rows.len() as u32;
        let mut cells = Vec::new();
        let mut names = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                if ch != '.' {
                    cells.push([x as u32, h - 1 - r as u32]);
                    names.push(ch.to_string());
                }
            }
        }
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        Morphology::of_cells(&cells, &names)
    }

    #[test]
    fn a_worm_is_a_full_symmetric_bar() {
        let m = of_rows(&["####"]);
        assert_eq!((m.voxels, m.width, m.height), (4, 4, 1));
        assert_eq!((m.emptiness, m.symmetry, m.compactness), (0.0, 1.0, 1.0));
        // Along x its box is 4 × 1; along the diagonals 1 + 3/√2 both ways (ratio 1).
        assert!((m.elongation - 0.75).abs() < 1e-12, "{}", m.elongation);
        assert_eq!(m.materials, BTreeMap::from([("#".to_string(), 1.0)]));
    }

    #[test]
    fn the_biped_has_two_empty_cells_of_eight_and_is_symmetric() {
        let m = of_rows(&["####", "#..#"]);
        assert_eq!((m.voxels, m.width, m.height), (6, 4, 2));
        assert_eq!(m.emptiness, 2.0 / 8.0);
        assert_eq!(m.symmetry, 1.0);
        // Each gap cell has 4 occupied neighbours (3 above, 1 beside): the hull rule leaves it empty.
        assert_eq!(m.compactness, 1.0);
        assert!((m.elongation - 0.5).abs() < 1e-12, "{}", m.elongation);
    }

    #[test]
    fn an_l_is_not_symmetric_and_a_notch_lowers_compactness() {
        let l = of_rows(&["#.", "##"]);
        assert!((l.symmetry - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(l.emptiness, 0.25);
        // The empty corner has 3 occupied neighbours: no fill.
        assert_eq!(l.compactness, 1.0);
        // A one-cell notch in the top edge has 5 occupied neighbours: the hull has 9 cells.
        let notched = of_rows(&["#.#", "###", "###"]);
        assert_eq!(notched.compactness, 8.0 / 9.0);
        assert_eq!(notched.symmetry, 1.0);
        // A ring's hole is filled too.
        let ring = of_rows(&["###", "#.#", "###"]);
        assert_eq!((ring.compactness, ring.emptiness), (8.0 / 9.0, 1.0 / 9.0));
    }

    #[test]
    fn squares_are_not_elongated_and_materials_sum_to_one() {
        for rows in [&["#"][..], &["##", "##"], &["###", "###", "###"]] {
            assert!(of_rows(rows).elongation.abs() < 1e-12, "{rows:?}");
        }
        let m = of_rows(&["abba", "a..b"]);
        assert_eq!(m.materials, BTreeMap::from([("a".to_string(), 0.5), ("b".to_string(), 0.5)]));
        let two = of_rows(&["aab"]);
        assert!((two.materials.values().sum::<f64>() - 1.0).abs() < 1e-15);
        // Only shape counts for the symmetry.
        assert_eq!(two.symmetry, 1.0);
    }

    #[test]
    fn a_diagonal_staircase_is_elongated_though_its_box_is_square() {
        let m = of_rows(&["...#", "..##", ".##.", "##.."]);
        assert_eq!((m.width, m.height), (4, 4));
        assert!(m.elongation > 0.3, "{}", m.elongation);
        // Only the middle step's two voxels, (1, 1) and (2, 1), mirror each other.
        assert!((m.symmetry - 2.0 / 7.0).abs() < 1e-15, "{}", m.symmetry);
    }

    #[test]
    fn empty_margins_of_the_grid_do_not_count() {
        let a = of_rows(&["....", ".##.", "...."]);
        let b = of_rows(&["##"]);
        assert_eq!(a, b);
    }
}
