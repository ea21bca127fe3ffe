//! A robot body: a W × H grid of optional voxel materials, validated to be buildable (spec §6).

use crate::model::voxel::material::Material;

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
}

impl BodyGrid {
    /// Builds and validates a body from cells in grid order (x fastest, bottom row first).
    pub fn new(width: u32, height: u32, cells: Vec<Option<Material>>) -> Result<BodyGrid, BodyGridError> {
        if width == 0 || height == 0 {
            return Err(BodyGridError::ZeroSize { width, height });
        }
        assert_eq!(cells.len(), (width * height) as usize, "cell count must match the grid size");
        let body = BodyGrid { width, height, cells };
        body.validate()?;
        Ok(body)
    }

    /// A full w × h rectangle of one material.
    pub fn filled(width: u32, height: u32, material: Material) -> Result<BodyGrid, BodyGridError> {
        BodyGrid::new(width, height, vec![Some(material); (width * height) as usize])
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
    fn voxels_come_in_grid_order() {
        let body = grid(&["#.", "##"]).unwrap();
        let cells: Vec<[u32; 2]> = body.voxels().map(|(c, _)| c).collect();
        assert_eq!(cells, vec![[0, 0], [1, 0], [0, 1]]);
    }
}
