//! The resource limits every front door checks before any work (`simulate`, `eval`, `render`, `view`,
//! `evolve`, `study`, `pom`, the Python functions): one [`Limits`] value, [`Limits::DEFAULT`] unless
//! `--allow-large` (Python: `allow_large=True`) gives [`Limits::NONE`]. Each subject computes its own
//! cost (a scenario's voxels and steps, a POM lattice, a render's frames) and compares it here, so a
//! refusal always reads the same: the field to change, the cost, the limit and how to lift it.
//! Uses nothing, so that every layer (scenario, pom, render, evolve, the CLI, Python) can share it.

/// The largest frame side in pixels any front door renders (16384² RGBA is 1 GiB per frame).
pub const MAX_FRAME_SIDE: u32 = 16384;

/// What one job may cost. The defaults keep a run under about half an hour on one core of the
/// development machine and its memory under a few hundred MB; the basis of each number is measured
/// and written in docs/commands.md, "Limits".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Voxels over all robots of a scenario.
    pub max_voxels: u64,
    /// Voxels × steps of a scenario.
    pub max_voxel_steps: u64,
    /// Terrain profile points of a scenario.
    pub max_terrain_vertices: u64,
    /// Genes held by an evolutionary run's population (n_pop × genome size; `evolve`, `study`).
    pub max_population_genes: u64,
    /// Soft-cell membrane bodies over all cells of a scenario (its cells and its chains' cells).
    pub max_cell_bodies: u64,
    /// Soft-cell membrane bodies × steps of a scenario.
    pub max_cell_body_steps: u64,
    /// Connectors × connectors × steps of a scenario: the worst case of the per-step pair search, when
    /// every connector is near every other.
    pub max_connector_pair_steps: u64,
    /// Rigid objects of a scenario (its `objects` and the task's).
    pub max_objects: u64,
    /// Rigid objects × steps of a scenario.
    pub max_object_steps: u64,
    /// Contact pairs the engine tracks from the first step among a scenario's objects (overlapping
    /// ones, and the ground segments under the moving ones): what makes a scene of objects quadratic.
    pub max_object_contact_pairs: u64,
    /// Voxels of a POM lattice (its nodes, controls and J grow with it).
    pub max_lattice_voxels: u64,
    /// Pixels × frames of one render (videos, POM videos, still sequences).
    pub max_pixel_frames: u64,
    /// Pixels × frames × bodies shown of one render (each cell draws only what its camera sees, but a
    /// crowd seen by every cell is drawn once per cell).
    pub max_pixel_frame_bodies: u64,
}

/// The default [`Limits::max_objects`].
pub(crate) const MAX_OBJECTS: u64 = 10_000;
/// The default [`Limits::max_object_steps`]: 1 000 boxes side by side ran 60 steps in about 0.04 s
/// (release build, 2-core machine, 2026-11-28), ≈ 1.5·10⁶ object steps per second, so ≈ 2 min.
pub(crate) const MAX_OBJECT_STEPS: u64 = 200_000_000;
/// The default [`Limits::max_object_contact_pairs`]: boxes piled onto one another cost a contact each
/// pair. Measured (release build, 2-core machine, 2026-11-28, 60 steps): 447 overlapping boxes (10⁵
/// pairs) took 1.1 s and 263 MB, 1 000 (5·10⁵ pairs) 5.8 s and 985 MB; so the limit keeps a run near
/// the others' (≈ 1 min for 60 s simulated) and its memory near 300 MB.
pub(crate) const MAX_OBJECT_CONTACT_PAIRS: u64 = 100_000;

impl Limits {
    /// The documented defaults (docs/commands.md, "Limits").
    pub const DEFAULT: Limits = Limits {
        max_voxels: 10_000,
        max_voxel_steps: 200_000_000,
        max_terrain_vertices: 20_000,
        max_population_genes: 10_000_000,
        max_cell_bodies: 100_000,
        max_cell_body_steps: 200_000_000,
        max_connector_pair_steps: 1_000_000_000_000,
        max_objects: MAX_OBJECTS,
        max_object_steps: MAX_OBJECT_STEPS,
        max_object_contact_pairs: MAX_OBJECT_CONTACT_PAIRS,
        max_lattice_voxels: 100_000,
        max_pixel_frames: 50_000_000_000,
        max_pixel_frame_bodies: 1_000_000_000_000,
    };
    /// No limit (`--allow-large`); the validation ranges still apply.
    pub const NONE: Limits = Limits {
        max_voxels: u64::MAX,
        max_voxel_steps: u64::MAX,
        max_terrain_vertices: u64::MAX,
        max_population_genes: u64::MAX,
        max_cell_bodies: u64::MAX,
        max_cell_body_steps: u64::MAX,
        max_connector_pair_steps: u64::MAX,
        max_objects: u64::MAX,
        max_object_steps: u64::MAX,
        max_object_contact_pairs: u64::MAX,
        max_lattice_voxels: u64::MAX,
        max_pixel_frames: u64::MAX,
        max_pixel_frame_bodies: u64::MAX,
    };

    /// [`Limits::NONE`] when `allow_large`, else [`Limits::DEFAULT`].
    pub fn allowing_large(allow_large: bool) -> Limits {
        if allow_large {
            Limits::NONE
        } else {
            Limits::DEFAULT
        }
    }

    /// Checks a render of `frames` frames of `width` × `height` pixels showing `bodies` bodies (robots
    /// and cells; at least one is counted): pixels × frames and pixels × frames × bodies.
    pub fn check_render(&self, frames: u64, width: u32, height: u32, bodies: u64) -> Result<(), TooLarge> {
        let pixel_frames = u128::from(frames).saturating_mul(u128::from(width)).saturating_mul(u128::from(height));
        let saturate = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        check(
            "frames",
            "pixels × frames",
            saturate(pixel_frames),
            self.max_pixel_frames,
            "shorten the duration, lower the frame rate or the size",
        )?;
        check(
            "frames",
            "pixels × frames × bodies shown",
            saturate(pixel_frames.saturating_mul(u128::from(bodies.max(1)))),
            self.max_pixel_frame_bodies,
            "render fewer robots, shorten the duration, lower the frame rate or the size",
        )
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// A cost over its limit: `what` of the field at `path` (JSON path or option) would be `value`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{path}`: needs {} {what}, more than the limit of {}; {hint} (`--allow-large`, Python `allow_large=True`, \
     lifts the limit)",
    compact(*.value), compact(*.limit)
)]
pub struct TooLarge {
    pub path: &'static str,
    pub what: &'static str,
    pub value: u64,
    pub limit: u64,
    pub hint: &'static str,
}

/// `value` against `limit`, refused as [`TooLarge`] when over.
pub fn check(
    path: &'static str,
    what: &'static str,
    value: u64,
    limit: u64,
    hint: &'static str,
) -> Result<(), TooLarge> {
    if value > limit {
        Err(TooLarge { path, what, value, limit, hint })
    } else {
        Ok(())
    }
}

/// A count in a message: exact below 10⁷, else like `2.5e9`.
fn compact(v: u64) -> String {
    if v < 10_000_000 {
        v.to_string()
    } else {
        format!("{:e}", v as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_over_either_limit_is_refused_naming_the_cost_compactly() {
        let l = Limits::DEFAULT;
        // 1280 × 720 × 30 fps × 20 s = 5.5e8 pixel-frames: fine with 4 bodies.
        l.check_render(600, 1280, 720, 4).unwrap();
        // 10⁶ s at 30 fps: 3e7 frames × 921 600 pixels = 2.76e13.
        let e = l.check_render(30_000_000, 1280, 720, 1).unwrap_err();
        assert_eq!(e.what, "pixels × frames");
        assert!(e.to_string().contains("2.7648e13") && e.to_string().contains("5e10"), "{e}");
        // 1 000 robots for 36 s: 1.0e12 is the limit; 2 000 robots is over it.
        l.check_render(1080, 1280, 720, 1000).unwrap();
        assert_eq!(l.check_render(1080, 1280, 720, 2000).unwrap_err().what, "pixels × frames × bodies shown");
        Limits::NONE.check_render(u64::MAX, u32::MAX, u32::MAX, u64::MAX).unwrap();
    }
}
