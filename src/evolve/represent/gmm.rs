//! `gmm_body` (spec §4.1, after Hiller & Lipson): the body from one Gaussian mixture per material.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use super::{MapError, Shape};
use crate::controller::{CellFunction, ControllerSpec, TimeFunction, TimeFunctionsSpec};
use crate::evolve::EvolveError;
use crate::model::voxel::material::MaterialSpec;
use crate::model::voxel::scaffolding::Scaffolding;
use crate::scenario::RobotSpec;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GmmSpec {
    /// Enclosing grid width.
    pub w: u32,
    /// Enclosing grid height.
    pub h: u32,
    /// Gaussians per material (default 5).
    #[serde(default = "five")]
    pub gaussians: usize,
    /// g₀ (default 1).
    #[serde(default = "one")]
    pub threshold: f64,
    /// `code` (default: cells at (x/w, y/h), e^(−d²/2σ²), strict threshold) or `paper` (as printed).
    #[serde(default)]
    pub formula: GmmFormula,
    /// Initialisation box per gene (default [0, 1]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<[f64; 2]>,
    /// The materials, in genome order (default: hard, soft, active, counter).
    #[serde(default = "all_materials")]
    pub materials: Vec<GmmMaterial>,
}

fn five() -> usize {
    5
}
fn one() -> f64 {
    1.0
}
fn all_materials() -> Vec<GmmMaterial> {
    vec![GmmMaterial::Hard, GmmMaterial::Soft, GmmMaterial::Active, GmmMaterial::Counter]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GmmFormula {
    #[default]
    Code,
    Paper,
}

/// The paper's four materials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GmmMaterial {
    /// Passive hard: f_s = 25 Hz, all scaffolding groups, f(t) = 0.
    Hard,
    /// Passive soft: f_s = 5 Hz, side external + central cross, f(t) = 0.
    Soft,
    /// Active: default voxel, f(t) = sin(2πt).
    Active,
    /// Counter-phased active: default voxel, f(t) = sin(−2πt).
    Counter,
}

impl GmmMaterial {
    pub fn key(self) -> char {
        match self {
            GmmMaterial::Hard => 'h',
            GmmMaterial::Soft => 's',
            GmmMaterial::Active => 'a',
            GmmMaterial::Counter => 'c',
        }
    }

    pub fn spec(self) -> MaterialSpec {
        match self {
            GmmMaterial::Hard => {
                MaterialSpec { spring_hz: Some(25.0), scaffolding: Some(Scaffolding::ALL), ..Default::default() }
            }
            GmmMaterial::Soft => {
                MaterialSpec { spring_hz: Some(5.0), scaffolding: Some(Scaffolding::EC), ..Default::default() }
            }
            GmmMaterial::Active | GmmMaterial::Counter => MaterialSpec::default(),
        }
    }

    /// The control function; passive materials get none (0).
    pub fn function(self) -> Option<TimeFunction> {
        let sin = |frequency| TimeFunction::Sin { amplitude: 1.0, frequency, phase: 0.0, offset: 0.0 };
        match self {
            GmmMaterial::Hard | GmmMaterial::Soft => None,
            GmmMaterial::Active => Some(sin(1.0)),
            GmmMaterial::Counter => Some(sin(-1.0)),
        }
    }
}

impl GmmSpec {
    pub(crate) fn validate(&self) -> Result<(), EvolveError> {
        let bad = |path: &str, message: String| Err(EvolveError::Invalid { path: path.into(), message });
        if self.w == 0 || self.h == 0 || self.w > 1000 || self.h > 1000 {
            return bad(
                "representation.w",
                format!("the grid {}×{} is invalid: give w, h in 1 … 1000", self.w, self.h),
            );
        }
        if self.gaussians > 1_000_000 {
            return bad(
                "representation.gaussians",
                format!("is {}: give at most 1000000 Gaussians per material", self.gaussians),
            );
        }
        if self.gaussians == 0 {
            return bad(
                "representation.gaussians",
                "is 0: give at least 1 Gaussian per material (the paper: 5)".into(),
            );
        }
        if !self.threshold.is_finite() {
            return bad("representation.threshold", "must be a finite number (the paper: 1)".into());
        }
        if self.materials.is_empty() {
            return bad(
                "representation.materials",
                "is empty: list at least one of hard, soft, active, counter".into(),
            );
        }
        for (i, m) in self.materials.iter().enumerate() {
            if self.materials[..i].contains(m) {
                return bad(
                    &format!("representation.materials[{i}]"),
                    "repeats a material: list each at most once".into(),
                );
            }
        }
        Ok(())
    }

    pub(crate) fn robot(&self, genome: &[f64], label: &str) -> Result<RobotSpec, MapError> {
        let grid = gmm_grid(self, genome);
        let kept = largest_component(self.w, self.h, &grid);
        if kept.is_empty() {
            return Err(MapError::EmptyBody);
        }
        // Crop to the component's bounding box.
        let (x0, y0) = (kept.iter().map(|c| c[0]).min().unwrap(), kept.iter().map(|c| c[1]).min().unwrap());
        let (x1, y1) = (kept.iter().map(|c| c[0]).max().unwrap(), kept.iter().map(|c| c[1]).max().unwrap());
        let mut cells: Vec<[u32; 2]> = kept.iter().map(|c| [c[0] - x0, c[1] - y0]).collect();
        cells.sort_by_key(|c| (c[1], c[0]));
        let material_of = |c: [u32; 2]| self.materials[grid[((c[1] + y0) * self.w + c[0] + x0) as usize].unwrap()];
        let shape = Shape { w: x1 - x0 + 1, h: y1 - y0 + 1, cells };
        let used: Vec<GmmMaterial> = shape.cells.iter().map(|c| material_of(*c)).collect();
        let materials: BTreeMap<String, MaterialSpec> = used.iter().map(|m| (m.key().to_string(), m.spec())).collect();
        let functions = shape
            .cells
            .iter()
            .zip(&used)
            .filter_map(|(c, m)| m.function().map(|function| CellFunction { cell: *c, function }))
            .collect();
        Ok(RobotSpec {
            label: Some(label.to_string()),
            materials: Some(materials),
            body: shape.rows(|i| used[i].key()),
            controller: Some(ControllerSpec::TimeFunctions(TimeFunctionsSpec { default: None, cells: functions })),
            self_collisions: true,
            position: None,
        })
    }
}

/// The material index (into `spec.materials`) of every cell of the enclosing grid, grid order, before
/// the component step. Genome index 4·gaussians·j + 4·i + k: material j, Gaussian i, k = x̂, ŷ, σ, q.
pub fn gmm_grid(spec: &GmmSpec, genome: &[f64]) -> Vec<Option<usize>> {
    let (w, h) = (spec.w, spec.h);
    let per_material = 4 * spec.gaussians;
    let mut grid = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let (cx, cy) = match spec.formula {
                GmmFormula::Code => (x as f64 / w as f64, y as f64 / h as f64),
                GmmFormula::Paper => ((x + 1) as f64, (y + 1) as f64),
            };
            let g: Vec<f64> = (0..spec.materials.len())
                .map(|j| {
                    let genes = &genome[j * per_material..(j + 1) * per_material];
                    genes
                        .chunks_exact(4)
                        .map(|t| {
                            let (xh, yh, sigma, q) = (t[0], t[1], t[2], t[3]);
                            let d2 = (cx - xh).powi(2) + (cy - yh).powi(2);
                            match spec.formula {
                                // Computed literally: σ = 0 gives NaN (0·∞ or 0/0) and the material loses
                                // every cell, as in the code.
                                GmmFormula::Code => {
                                    let s = sigma.max(0.0);
                                    q / (s * (2.0 * PI).sqrt()) * (-d2 / (2.0 * s * s)).exp()
                                }
                                GmmFormula::Paper if sigma == 0.0 => 0.0,
                                GmmFormula::Paper => q / (sigma * (2.0 * PI).sqrt()) * (-d2 / (sigma * sigma)).exp(),
                            }
                        })
                        .sum()
                })
                .collect();
            let mut best: Option<usize> = None;
            for (j, v) in g.iter().enumerate() {
                let passes = match spec.formula {
                    GmmFormula::Code => *v > spec.threshold,
                    GmmFormula::Paper => *v >= spec.threshold,
                };
                // Strictly larger: ties go to the lower material index.
                if passes && best.is_none_or(|b| *v > g[b]) {
                    best = Some(j);
                }
            }
            grid.push(best);
        }
    }
    grid
}

/// The largest 4-connected component of the filled cells, as cells; between equal components the one
/// holding the first cell in grid order wins (components are found in grid order, and only a strictly
/// larger one replaces the current best).
pub fn largest_component(w: u32, h: u32, grid: &[Option<usize>]) -> Vec<[u32; 2]> {
    let mut seen = vec![false; grid.len()];
    let mut best: Vec<[u32; 2]> = Vec::new();
    for start in 0..grid.len() {
        if seen[start] || grid[start].is_none() {
            continue;
        }
        let mut component = Vec::new();
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(i) = stack.pop() {
            let (x, y) = ((i as u32) % w, (i as u32) / w);
            component.push([x, y]);
            let mut visit = |nx: u32, ny: u32| {
                let j = (ny * w + nx) as usize;
                if !seen[j] && grid[j].is_some() {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if x > 0 {
                visit(x - 1, y);
            }
            if x + 1 < w {
                visit(x + 1, y);
            }
            if y > 0 {
                visit(x, y - 1);
            }
            if y + 1 < h {
                visit(x, y + 1);
            }
        }
        if component.len() > best.len() {
            best = component;
        }
    }
    best
}
