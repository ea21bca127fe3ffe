//! Where each robot of a scenario starts, decided before any world exists: side by side over the terrain
//! (the first robot on legacy-1.0's uneven ground as the original placed it), at its `position`, or
//! where its task puts robot 0 (with the task's objects); refused where it cannot start.

use super::{Scenario, ScenarioError, TaskSpec};
use crate::geom::Vec2;
use crate::model::object::ObjectSpec;
use crate::model::terrain::{Terrain, TerrainError};
use crate::model::voxel::grid::BodyGrid;
use crate::task::{Footprint, Placement};

/// A robot with its body resolved and its start chosen.
pub struct PlacedRobot {
    pub body: BodyGrid,
    /// Where its grid's lower-left corner starts, m.
    pub origin: Vec2,
    /// Its voxel squares at the start, [x0, y0, x1, y1].
    pub squares: Vec<[f64; 4]>,
}

/// Every robot placed, in the scenario's order, and the objects the task places with robot 0.
pub struct Placements {
    pub robots: Vec<PlacedRobot>,
    pub task_objects: Vec<ObjectSpec>,
}

impl Scenario {
    /// Places every robot over `terrain` (built from this scenario), in order: each is checked against
    /// the terrain and the robots placed before it.
    pub(crate) fn place_robots(&self, terrain: Option<&Terrain>) -> Result<Placements, ScenarioError> {
        // Legacy uneven placement uses the unshifted heights of the first two points.
        let legacy_placement = terrain.and_then(|t| t.legacy_placement);
        let mut next_x = 11.0;
        let mut robots: Vec<PlacedRobot> = Vec::new();
        let mut task_objects = Vec::new();
        for (i, spec) in self.robots.iter().enumerate() {
            let body = self.body(i)?;
            let l = body.side();
            let bw = body.width() as f64 * l;
            let default_origin = match (terrain, legacy_placement) {
                (Some(_), Some(([y1, y2], x2))) if i == 0 => {
                    Vec2::new(2.0, 1.0 + y1.max(y1 + (y2 - y1) * bw / (x2 - 2.0)))
                }
                (Some(t), _) => Vec2::new(next_x, 1.0 + t.max_height(next_x, next_x + bw)),
                (None, _) => Vec2::new(next_x, 0.0),
            };
            let mut origin = spec.position.map_or(default_origin, |[x, y]| Vec2::new(x, y));
            // Whether the task chose this origin: like a `position`, and unlike the default rule, such an
            // origin can put the robot in the ground.
            let mut task_origin = false;
            if i == 0 {
                let rows = body.voxels().map(|(c, _)| c[1]);
                let (min_row, max_row) = rows.fold((u32::MAX, 0), |(lo, hi), r| (lo.min(r), hi.max(r)));
                let ground_under = |x0: f64, x1: f64| terrain.map_or(0.0, |t| t.max_height(x0, x1));
                let footprint = Footprint {
                    origin: default_origin,
                    width: bw,
                    bottom: min_row as f64 * l,
                    top: (max_row + 1) as f64 * l,
                    side: l,
                    mass: body.voxels().map(|(_, m)| m.mass).sum(),
                    gravity: self.world.gravity[0].hypot(self.world.gravity[1]),
                    ground: ground_under(default_origin.x, default_origin.x + bw),
                    ground_under: &ground_under,
                };
                let placement = self.task_placement(&footprint)?;
                if let (Some(o), None) = (placement.robot_origin, spec.position) {
                    origin = o;
                    task_origin = true;
                }
                task_objects = placement.objects;
            }
            let squares: Vec<[f64; 4]> = body
                .voxels()
                .map(|(c, _)| {
                    let (x, y) = (origin.x + c[0] as f64 * l, origin.y + c[1] as f64 * l);
                    [x, y, x + l, y + l]
                })
                .collect();
            self.check_place(i, origin, bw, &squares, terrain, &robots, spec.position.is_some() || task_origin)?;
            // Robots without a position stand side by side, 2 voxel sides apart.
            next_x = next_x.max(origin.x + bw + 2.0 * l);
            robots.push(PlacedRobot { body, origin, squares });
        }
        Ok(Placements { robots, task_objects })
    }

    /// Refuses robot `i` at `origin` (its body `bw` wide, its voxel squares `squares`) where it cannot
    /// start: off the terrain, overlapping a robot placed before it, sunk into the ground (`chosen`: its
    /// origin was asked for, not the default rule's) or through the ceiling.
    #[allow(clippy::too_many_arguments)]
    fn check_place(
        &self,
        i: usize,
        origin: Vec2,
        bw: f64,
        squares: &[[f64; 4]],
        terrain: Option<&Terrain>,
        placed: &[PlacedRobot],
        chosen: bool,
    ) -> Result<(), ScenarioError> {
        if let Some(t) = terrain {
            let (x0, x1) = (t.profile[0].x, t.profile[t.profile.len() - 1].x);
            if origin.x < x0 || origin.x + bw > x1 {
                return Err(ScenarioError::Position {
                    robot: i,
                    position: [origin.x, origin.y],
                    requirement: format!(
                        "the body ({} m wide) must lie over the terrain, x in [{x0}, {x1}] m; move it or use \
                         `\"terrain\": {{\"type\": \"none\"}}`",
                        crate::geom::compact(bw)
                    ),
                });
            }
        }
        // Two robots sharing space at t = 0 would be pushed apart by the solver in one step.
        let overlap = |a: &[f64; 4], b: &[f64; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
        let clash = placed.iter().enumerate().find_map(|(j, other)| {
            squares.iter().find_map(|a| other.squares.iter().find(|b| overlap(a, b)).map(|_| (j, *a)))
        });
        if let Some((j, square)) = clash {
            return Err(ScenarioError::Position {
                robot: i,
                position: [origin.x, origin.y],
                requirement: format!(
                    "its voxel at [{}, {}] m overlaps a voxel of robot {j} at t = 0; move one of them (or drop \
                     both positions: robots without one stand side by side)",
                    crate::geom::compact(square[0]),
                    crate::geom::compact(square[1]),
                ),
            });
        }
        if let (Some(t), true) = (terrain, chosen) {
            // A voxel that starts in the ground is shot out of it or stays stuck there, and the
            // task's heights and airtime come out negative (issue 52). The default rule places
            // bodies over the ground, legacy-1.0's as the original did, so only a chosen origin is
            // checked. The ends are left out: a body may stand against a riser or a gap's rim.
            let sunk = squares.iter().find_map(|sq| {
                let inset = 1e-9 * (sq[2] - sq[0]);
                let ground = t.max_height(sq[0] + inset, sq[2] - inset);
                (sq[1] < ground - 1e-9).then_some((*sq, ground))
            });
            if let Some((sq, ground)) = sunk {
                let raise = ((ground - sq[1]) * 1000.0).ceil() / 1000.0;
                return Err(ScenarioError::Position {
                    robot: i,
                    position: [origin.x, origin.y],
                    requirement: format!(
                        "its voxel at [{}, {}] m starts in the ground (the surface under it is at y = {} m); \
                         place the body {} m higher or more (y ≥ {} m for its grid corner), or drop `position`",
                        crate::geom::compact(sq[0]),
                        crate::geom::compact(sq[1]),
                        crate::geom::compact(ground),
                        crate::geom::compact(raise),
                        crate::geom::compact(origin.y + raise),
                    ),
                });
            }
        }
        if let Some(roof) = terrain.and_then(|t| t.ceiling_min(origin.x, origin.x + bw)) {
            let top = squares.iter().map(|s| s[3]).fold(f64::NEG_INFINITY, f64::max);
            if top >= roof {
                let ceiling = self.world.terrain.ceiling().unwrap_or(0.0);
                return Err(ScenarioError::Terrain(TerrainError::Invalid {
                    field: "ceiling",
                    value: ceiling,
                    requirement: format!(
                        "higher: robot {i}'s top is at y = {} m at its start, the roof above it at {} m; \
                         raise it by {} m or more, or place the robot lower",
                        crate::geom::compact(top),
                        crate::geom::compact(roof),
                        crate::geom::compact(((top - roof) * 100.0).ceil() / 100.0 + 0.01)
                    ),
                }));
            }
        }
        Ok(())
    }

    /// Where the task puts robot 0 (given its footprint) and which objects it places.
    fn task_placement(&self, footprint: &Footprint<'_>) -> Result<Placement, ScenarioError> {
        Ok(match &self.task {
            TaskSpec::Locomotion(_)
            | TaskSpec::Free
            | TaskSpec::Fold
            | TaskSpec::ForceDeflection(_)
            | TaskSpec::Shape(_) => Placement::default(),
            TaskSpec::Jumping(spec) => spec.place(footprint),
            TaskSpec::Carrying(spec) => spec.place(footprint),
            TaskSpec::Pushing(spec) => spec.place(footprint),
            TaskSpec::Climbing(spec) => {
                spec.check_fit(footprint)?;
                spec.place(footprint)
            }
            TaskSpec::Balancing(spec) => {
                spec.check_fit(footprint)?;
                spec.place(footprint)
            }
        })
    }
}
