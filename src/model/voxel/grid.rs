//! A robot body: a W × H grid of optional voxel materials, validated to be buildable (spec §6).

use crate::geom::compact;
use crate::model::voxel::material::{ActuationMode, Material};

/// Why a body cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BodyGridError {
    #[error("the body has no voxel: give at least one cell a material")]
    Empty,
    #[error(
        "the body is not connected: voxel at cell ({x}, {y}) cannot be reached from cell ({x0}, {y0}) through shared edges; \
         voxels that touch only at a corner are not joined, so fill a cell between them or remove the stray voxel"
    )]
    Disconnected { x: u32, y: u32, x0: u32, y0: u32 },
    #[error("all voxels of a body must have the same side length: cell ({x}, {y}) has {side} m, the first voxel has {first} m")]
    MixedSides { x: u32, y: u32, side: f64, first: f64 },
    #[error("the body grid is {width}×{height}: both sizes must be at least 1")]
    ZeroSize { width: u32, height: u32 },
}

/// A grid of cells; cell (x, y) has y = 0 at the bottom; index i = y·W + x.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyGrid {
    width: u32,
    height: u32,
    cells: Vec<Option<Material>>,
    /// Names of materials (e.g. their scenario keys), for snapshots and the renderer's material key.
    names: Vec<(String, Material)>,
}

/// A body's distinct materials, for display: each with a name, and each voxel's index into them.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    /// In the order the materials first appear in grid order. With several materials each name says
    /// what sets it apart (`h: 25 Hz, all`).
    pub names: Vec<String>,
    /// Per voxel, in grid order: the index of its material in `names`.
    pub of_voxel: Vec<u32>,
}

impl BodyGrid {
    /// Builds and validates a body from cells in grid order (x fastest, bottom row first).
    pub fn new(width: u32, height: u32, cells: Vec<Option<Material>>) -> Result<BodyGrid, BodyGridError> {
        if width == 0 || height == 0 {
            return Err(BodyGridError::ZeroSize { width, height });
        }
        assert_eq!(cells.len(), (width * height) as usize, "cell count must match the grid size");
        let body = BodyGrid { width, height, cells, names: Vec::new() };
        body.validate()?;
        Ok(body)
    }

    /// A full w × h rectangle of one material.
    pub fn filled(width: u32, height: u32, material: Material) -> Result<BodyGrid, BodyGridError> {
        BodyGrid::new(width, height, vec![Some(material); (width * height) as usize])
    }

    /// Names materials (a scenario names them by their keys); a material may carry several names.
    pub fn with_material_names(mut self, names: Vec<(String, Material)>) -> Self {
        self.names = names;
        self
    }

    /// The distinct materials (equal parameters are one material) in the order they first appear in
    /// grid order, named by [`BodyGrid::with_material_names`] (`material N` without a name); with several,
    /// each name is followed by what sets the material apart.
    pub fn palette(&self) -> Palette {
        let (distinct, keys, of_voxel) = self.distinct_materials();
        let names = keys
            .into_iter()
            .zip(&distinct)
            .map(|(name, m)| {
                if distinct.len() < 2 {
                    return name;
                }
                let traits = distinguishing_traits(m, &distinct);
                if traits.is_empty() {
                    name
                } else {
                    format!("{name}: {}", traits.join(", "))
                }
            })
            .collect();
        Palette { names, of_voxel }
    }

    /// [`BodyGrid::palette`] without what sets the materials apart: each distinct material's bare name
    /// (its scenario key, `a/b` for keys of identical materials, `material N` unnamed), and per voxel in
    /// grid order the index of its material.
    pub fn material_keys(&self) -> (Vec<String>, Vec<u32>) {
        let (_, keys, of_voxel) = self.distinct_materials();
        (keys, of_voxel)
    }

    /// The distinct materials in the order they first appear in grid order, their bare names, and each
    /// voxel's index into them.
    fn distinct_materials(&self) -> (Vec<Material>, Vec<String>, Vec<u32>) {
        let mut distinct: Vec<Material> = Vec::new();
        let of_voxel = self
            .voxels()
            .map(|(_, m)| {
                let i = distinct.iter().position(|d| d == m).unwrap_or_else(|| {
                    distinct.push(*m);
                    distinct.len() - 1
                });
                u32::try_from(i).unwrap_or(u32::MAX)
            })
            .collect();
        let keys = distinct
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let given: Vec<&str> = self.names.iter().filter(|(_, n)| n == m).map(|(s, _)| s.as_str()).collect();
                if given.is_empty() {
                    format!("material {}", i + 1)
                } else {
                    given.join("/")
                }
            })
            .collect();
        (distinct, keys, of_voxel)
    }

    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn height(&self) -> u32 {
        self.height
    }
    pub fn get(&self, x: u32, y: u32) -> Option<&Material> {
        if x < self.width && y < self.height {
            self.cells[(y * self.width + x) as usize].as_ref()
        } else {
            None
        }
    }

    /// The occupied cells in grid order with their materials.
    pub fn voxels(&self) -> impl Iterator<Item = ([u32; 2], &Material)> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter_map(move |(i, c)| c.as_ref().map(|m| ([i as u32 % self.width, i as u32 / self.width], m)))
    }

    pub fn voxel_count(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    /// The common side length l.
    pub fn side(&self) -> f64 {
        self.voxels().next().map(|(_, m)| m.side).unwrap_or(0.0)
    }

    fn validate(&self) -> Result<(), BodyGridError> {
        let Some(([x0, y0], first)) = self.voxels().next() else {
            return Err(BodyGridError::Empty);
        };
        if let Some(([x, y], m)) = self.voxels().find(|(_, m)| m.side != first.side) {
            return Err(BodyGridError::MixedSides { x, y, side: m.side, first: first.side });
        }
        // Flood fill over edge-adjacent occupied cells from the first voxel.
        let mut seen = vec![false; self.cells.len()];
        let mut stack = vec![(x0, y0)];
        seen[(y0 * self.width + x0) as usize] = true;
        while let Some((x, y)) = stack.pop() {
            let neighbours = [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)];
            for (nx, ny) in neighbours {
                if self.get(nx, ny).is_some() && !seen[(ny * self.width + nx) as usize] {
                    seen[(ny * self.width + nx) as usize] = true;
                    stack.push((nx, ny));
                }
            }
        }
        if let Some(([x, y], _)) = self.voxels().find(|([x, y], _)| !seen[(y * self.width + x) as usize]) {
            return Err(BodyGridError::Disconnected { x, y, x0, y0 });
        }
        Ok(())
    }
}

/// Most traits named per material in [`BodyGrid::palette`]: the key stays one short line.
const MAX_TRAITS: usize = 3;

/// The parameters of `m` that differ among `all`, most telling first (stiffness, scaffolding, …).
fn distinguishing_traits(m: &Material, all: &[Material]) -> Vec<String> {
    let differs = |f: &dyn Fn(&Material) -> String| all.iter().any(|o| f(o) != f(m));
    let traits: [(&dyn Fn(&Material) -> String, &str); 15] = [
        (&|m| format!("{} Hz", compact(m.spring_hz)), "spring_hz"),
        (&|m| m.scaffolding.to_string(), "scaffolding"),
        (
            &|m| match m.actuation {
                ActuationMode::Area => "area actuation".into(),
                ActuationMode::Force => "force actuation".into(),
            },
            "actuation",
        ),
        (&|m| format!("{} kg", compact(m.mass)), "mass"),
        (&|m| format!("friction {}", compact(m.friction)), "friction"),
        (&|m| format!("ρA {}", compact(m.max_area_change)), "max_area_change"),
        (&|m| format!("{} N", compact(m.max_force)), "max_force"),
        (&|m| format!("ζ {}", compact(m.damping_ratio)), "damping_ratio"),
        (&|m| if m.ropes { "ropes".into() } else { "no ropes".into() }, "ropes"),
        (&|m| m.preset.name().to_string(), "preset"),
        (&|m| format!("restitution {}", compact(m.restitution)), "restitution"),
        (&|m| format!("d_l {}", compact(m.linear_damping)), "linear_damping"),
        (&|m| format!("d_ω {}", compact(m.angular_damping)), "angular_damping"),
        (&|m| format!("ρ {}", compact(m.mass_side_ratio)), "mass_side_ratio"),
        (&|m| format!("{} m", compact(m.side)), "side"),
    ];
    traits.iter().filter(|(f, _)| differs(*f)).take(MAX_TRAITS).map(|(f, _)| f(m)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows_top_first: &[&str]) -> Result<BodyGrid, BodyGridError> {
        let h = rows_top_first.len() as u32;
        let w = rows_top_first[0].len() as u32;
        let mut cells = vec![None; (w * h) as usize];
        for (r, row) in rows_top_first.iter().enumerate() {
            let y = h - 1 - r as u32;
            for (x, c) in row.chars().enumerate() {
                if c != '.' {
                    cells[(y * w + x as u32) as usize] = Some(Material::default());
                }
            }
        }
        BodyGrid::new(w, h, cells)
    }

    #[test]
    fn connectivity_is_through_edges_only() {
        assert!(grid(&["####", "#..#"]).is_ok());
        assert_eq!(grid(&["...."]).unwrap_err(), BodyGridError::Empty);
        let err = grid(&["#.", ".#"]).unwrap_err();
        assert!(matches!(err, BodyGridError::Disconnected { .. }), "{err}");
        assert!(err.to_string().contains("corner"));
    }

    #[test]
    fn the_palette_names_materials_in_grid_order_with_what_sets_them_apart() {
        let hard = Material { spring_hz: 25.0, ..Material::default() };
        let soft = Material { spring_hz: 5.0, scaffolding: crate::model::voxel::scaffolding::Scaffolding::EC, ..hard };
        // Top row soft, bottom row hard: the bottom-left voxel comes first in grid order.
        let cells = vec![Some(hard), Some(hard), Some(soft), Some(soft)];
        let named = vec![("s".to_string(), soft), ("h".to_string(), hard)];
        let body = BodyGrid::new(2, 2, cells.clone()).unwrap().with_material_names(named);
        let p = body.palette();
        assert_eq!(p.names, ["h: 25 Hz, all", "s: 5 Hz, E+C"]);
        assert_eq!(p.of_voxel, [0, 0, 1, 1]);
        // Without names; and one material is just its name.
        assert_eq!(
            BodyGrid::new(2, 2, cells).unwrap().palette().names,
            ["material 1: 25 Hz, all", "material 2: 5 Hz, E+C"]
        );
        let one = grid(&["##"]).unwrap().with_material_names(vec![("#".into(), Material::default())]).palette();
        assert_eq!((one.names, one.of_voxel), (vec!["#".to_string()], vec![0, 0]));
    }

    #[test]
    fn voxels_come_in_grid_order() {
        let body = grid(&["#.", "##"]).unwrap();
        let cells: Vec<[u32; 2]> = body.voxels().map(|(c, _)| c).collect();
        assert_eq!(cells, vec![[0, 0], [1, 0], [0, 1]]);
    }
}
