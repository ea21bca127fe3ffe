//! What a scenario resolves to: bodies with their materials, world settings and stepping; `build`,
//! through a [`super::Scene`].

use std::collections::BTreeMap;

use super::{Limits, Scenario, ScenarioError};
use crate::geom::Vec2;
use crate::model::voxel::grid::BodyGrid;
use crate::model::voxel::grid::BodyGridError;
use crate::model::voxel::material::MaterialSpec;
use crate::sim::{Stepping, WorldSettings, DEFAULT_SOLVER_ITERATIONS, LEGACY_SOLVER_ITERATIONS};
use crate::task::Simulation;

impl Scenario {
    /// The body of robot `i`, with materials resolved.
    pub fn body(&self, i: usize) -> Result<BodyGrid, ScenarioError> {
        let spec = &self.robots[i];
        let default_preset = self.world.compat;
        let mut materials = BTreeMap::new();
        match &spec.materials {
            Some(map) => {
                for (key, m) in map {
                    let mut chars = key.chars();
                    let (Some(c), None) = (chars.next(), chars.next()) else {
                        return Err(ScenarioError::MaterialKey { robot: i, key: key.clone() });
                    };
                    if c == '.' || c == ' ' {
                        return Err(ScenarioError::MaterialKey { robot: i, key: key.clone() });
                    }
                    let mut m = m.clone();
                    m.preset = m.preset.or(Some(default_preset));
                    let resolved =
                        m.resolve().map_err(|reason| ScenarioError::Material { robot: i, key: key.clone(), reason })?;
                    materials.insert(c, resolved);
                }
            }
            None => {
                let m = MaterialSpec { preset: Some(default_preset), ..Default::default() };
                materials.insert('#', m.resolve().expect("defaults are valid"));
            }
        }
        let h = spec.body.len();
        let width = spec.body.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        if h == 0 || width == 0 {
            return Err(ScenarioError::BodyGrid { robot: i, reason: BodyGridError::Empty });
        }
        if width.saturating_mul(h) > super::MAX_GRID_CELLS {
            return Err(ScenarioError::BodyRow {
                robot: i,
                row: 0,
                message: format!(
                    "the body grid is {width}×{h} cells, more than {} (empty cells count too); use a smaller body",
                    super::MAX_GRID_CELLS
                ),
            });
        }
        let mut cells = vec![None; width * h];
        for (row, text) in spec.body.iter().enumerate() {
            let y = h - 1 - row;
            for (x, c) in text.chars().enumerate() {
                if c == '.' || c == ' ' {
                    continue;
                }
                let Some(m) = materials.get(&c) else {
                    let known: Vec<String> = materials.keys().map(|k| format!("`{k}`")).collect();
                    return Err(ScenarioError::BodyRow {
                        robot: i,
                        row,
                        message: format!(
                            "character {c:?} at column {x} is not a material; use one of {} or `.` for an empty cell",
                            known.join(", ")
                        ),
                    });
                };
                cells[y * width + x] = Some(*m);
            }
        }
        let names = materials.iter().map(|(key, m)| (key.to_string(), *m)).collect();
        BodyGrid::new(width as u32, h as u32, cells)
            .map(|body| body.with_material_names(names))
            .map_err(|reason| ScenarioError::BodyGrid { robot: i, reason })
    }

    /// The world settings this scenario asks for.
    pub(crate) fn world_settings(&self) -> WorldSettings {
        let stepping = self.stepping();
        WorldSettings {
            dt: self.world.dt,
            gravity: Vec2::new(self.world.gravity[0], self.world.gravity[1]),
            control_interval: self.world.control_interval,
            solver_iterations: stepping.solver_iterations,
            force_substeps: stepping.force_substeps,
            legacy_first_control: self.world.compat.is_legacy(),
            detail: self.world.snapshot,
            welds: self.world.welds,
            ..WorldSettings::default()
        }
        .with_engine_of(self.world.compat)
    }

    /// Engine steps per step and solver substeps: the scenario's `world.force_substeps` and
    /// `world.solver_iterations`, else the defaults: [`DEFAULT_SOLVER_ITERATIONS`] without cells
    /// ([`LEGACY_SOLVER_ITERATIONS`] in `legacy-1.0`, which solves each step once as dyn4j did), and
    /// with cells [`Stepping::for_cells`] over the declared cell types (cells need more substeps than
    /// voxels to keep the ring inextensible, and fine membranes more still; cells.md §8).
    pub fn stepping(&self) -> Stepping {
        let auto = if self.has_cells() {
            let types: Vec<_> =
                self.cell_types.keys().filter_map(|k| super::cells::resolve_type(&self.cell_types, k).ok()).collect();
            Stepping::for_cells(&types, self.world.dt)
        } else if self.world.compat.is_legacy() {
            Stepping { force_substeps: 1, solver_iterations: LEGACY_SOLVER_ITERATIONS }
        } else {
            Stepping { force_substeps: 1, solver_iterations: DEFAULT_SOLVER_ITERATIONS }
        };
        Stepping {
            force_substeps: self.world.force_substeps.unwrap_or(auto.force_substeps),
            solver_iterations: self.world.solver_iterations.unwrap_or(auto.solver_iterations),
        }
    }

    /// Builds the world: terrain, then each robot placed and given its controller. No resource limit
    /// applies (see [`Scenario::resolve`]).
    pub fn build(&self) -> Result<Simulation, ScenarioError> {
        self.resolve(&Limits::NONE)?.build()
    }
}

/// Steps for a duration: round(T/dt), or, for `legacy-1.0`, the count of `t += dt while t < T`.
pub fn steps_for(duration: f64, dt: f64, legacy: bool) -> u64 {
    if legacy {
        crate::sim::world::legacy_step_count(duration, dt, false)
    } else {
        (duration / dt).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{Scenario, ScenarioError};

    fn build(robots: &str) -> Result<crate::task::Simulation, ScenarioError> {
        Scenario::from_json(&format!(r#"{{"world": {{"terrain": {{"type": "none"}}}}, "robots": [{robots}]}}"#))?
            .build()
    }

    #[test]
    fn robots_overlapping_at_the_start_are_refused_interlocking_ones_are_not() {
        // Voxel side 3 m: a 2-wide robot at x = 0 covers [0, 6]; one at x = 3 shares a voxel with it.
        let e = build(r###"{"body": ["##"], "position": [0, 0]}, {"body": ["##"], "position": [3, 0]}"###)
            .err()
            .expect("overlap refused");
        assert_eq!(e.path(), "robots[1].position");
        assert!(e.to_string().contains("overlaps a voxel of robot 0"), "{e}");
        // Two L shapes whose grids overlap but whose voxels only touch.
        build(r###"{"body": ["#.", "##"], "position": [0, 0]}, {"body": ["##", ".#"], "position": [3, 3]}"###)
            .expect("interlocking bodies are fine");
        // Side by side, touching: fine.
        build(r###"{"body": ["##"], "position": [0, 0]}, {"body": ["##"], "position": [6, 0]}"###).expect("touching");
    }

    fn build_task(robots: &str, task: &str) -> Result<crate::task::Simulation, ScenarioError> {
        Scenario::from_json(&format!(r#"{{"robots": [{robots}], "task": {task}}}"#))?.build()
    }

    /// A task's box where another robot stands is refused as the same box among `objects` is (issue 52).
    #[test]
    fn a_task_object_inside_a_robot_is_refused_naming_what_to_move() {
        // Robot 0 (3 m voxels) at the default x = 11 m, y = 1 m; the carrying box (6 × 1.5 m) rests
        // 3 cm above its top: x in [9.5, 15.5], y in [4.03, 5.53]. Robot 1 stands there.
        let carrying = r#"{"type": "carrying"}"#;
        let e = build_task(r###"{"body": ["#"]}, {"body": ["#"], "position": [10, 4]}"###, carrying)
            .err()
            .expect("overlap refused");
        assert_eq!(e.path(), "robots[1].position", "{e}");
        assert!(e.to_string().contains("overlaps robot 1") && e.to_string().contains("box"), "{e}");
        // The same box as a scenario object is refused too.
        let as_object = Scenario::from_json(
            r###"{"robots": [{"body": ["#"]}, {"body": ["#"], "position": [10, 4]}],
                  "objects": [{"size": [6, 1.5], "position": [12.5, 4.78]}]}"###,
        )
        .unwrap()
        .build()
        .err()
        .expect("refused");
        assert_eq!(as_object.path(), "objects[0].position");
        // A box 40 m wide over a taller robot 1 standing at its default place: shrink the box.
        let wide = r#"{"type": "carrying", "box_size": [40, 1]}"#;
        let e = build_task(r###"{"body": ["#", "#"]}, {"body": ["#", "#", "#"]}"###, wide).err().expect("refused");
        assert_eq!(e.path(), "task.box_size", "{e}");
        // Clear of it, it is fine.
        build_task(r###"{"body": ["#"]}, {"body": ["#"], "position": [30, 0]}"###, carrying).expect("clear");
    }

    /// A robot given a `position` in the ground is refused, in every task (issue 52: a jumping robot
    /// placed 5 m down ran, reporting negative heights).
    #[test]
    fn a_robot_placed_in_the_ground_is_refused_in_every_task() {
        for task in [r#"{"type": "locomotion"}"#, r#"{"type": "jumping"}"#, r#"{"type": "shape"}"#] {
            let e = build_task(r###"{"body": ["##"], "position": [20, -5]}"###, task).err().expect("in the ground");
            assert_eq!(e.path(), "robots[0].position", "{task}: {e}");
            assert!(e.to_string().contains("in the ground") && e.to_string().contains("5 m higher"), "{e}");
        }
        // Standing on the ground (y = 0) is fine.
        build_task(r###"{"body": ["##"], "position": [20, 0]}"###, r#"{"type": "jumping"}"#).expect("on the ground");
    }

    /// A dynamic object in the ground or past the terrain's end is refused where it is written (a box
    /// at x = 3 000 m fell for 40 s until the engine's speed limit ended the run; one in the ground ran).
    #[test]
    fn a_dynamic_object_in_the_ground_or_off_the_terrain_is_refused() {
        let with = |objects: &str| {
            Scenario::from_json(&format!(r###"{{"robots": [{{"body": ["#"]}}], "objects": [{objects}]}}"###))
        };
        for (object, says) in [
            (r#"{"size": [1, 1], "position": [30, 0.5]}, {"size": [1, 1], "position": [40, -3]}"#, "raise it by 3.5 m"),
            (r#"{"size": [1, 1], "position": [30, 0.5]}, {"size": [1, 1], "position": [3000, 5]}"#, "x in [0, 2000] m"),
        ] {
            let e = with(object).unwrap().build().err().expect("refused");
            assert_eq!(e.path(), "objects[1].position", "{e}");
            assert!(e.to_string().contains(says), "{e}");
        }
        // A fixed post may stand in the ground; without a terrain nothing is under a box.
        with(r#"{"size": [1, 4], "position": [40, 0], "motion": "fixed"}"#).unwrap().build().expect("a post");
        Scenario::from_json(
            r###"{"world": {"terrain": {"type": "none"}}, "robots": [{"body": ["#"]}],
                  "objects": [{"size": [1, 1], "position": [3000, -5]}]}"###,
        )
        .unwrap()
        .build()
        .expect("no terrain");
    }
}
