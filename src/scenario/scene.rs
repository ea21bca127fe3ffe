//! A scenario resolved once for a run: its robots placed with their bodies, its terrain built, its cells
//! planned, its cost checked, its world settings and step count decided. [`Scene::build`] only inserts
//! all that into a world.

use super::cell_plan::CellPlan;
use super::placement::PlacedRobot;
use super::{Cost, Limits, Scenario, ScenarioError, TaskSpec};
use crate::controller::{Controller, ControllerSpec};
use crate::model::object::ObjectSpec;
use crate::model::terrain::Terrain;
use crate::sim::{RobotOptions, World, WorldSettings};
use crate::snapshot::{BodyId, SnapshotDetail};
use crate::task::fold::FoldGoal;
use crate::task::{ForceDeflectionRun, Simulation, Task};

/// Everything one run of a scenario needs, resolved: what [`Scenario::resolve`] gives.
pub struct Scene {
    settings: WorldSettings,
    steps: u64,
    cost: Cost,
    terrain: Option<Terrain>,
    robots: Vec<SceneRobot>,
    /// The cells and their parts, planned once (body ids from 0: offset when inserted).
    cells: CellPlan,
    has_cells: bool,
    /// What the `fold` task measures of the planned cells (`None` for other tasks).
    fold_goals: Option<Vec<FoldGoal>>,
    /// The `force_deflection` task's cell and sweep (`None` for other tasks).
    force_deflection: Option<ForceDeflectionRun>,
    /// The scenario's objects, then the ones its task places.
    objects: Vec<ObjectSpec>,
    task_objects: Vec<ObjectSpec>,
    task: TaskSpec,
}

/// A robot of a scene: its body placed, its label and its controller's spec.
pub struct SceneRobot {
    pub label: String,
    pub placed: PlacedRobot,
    pub controller: Option<ControllerSpec>,
    pub self_collisions: bool,
    /// Whether the scenario gave its `position` (an overlap error then says to move it).
    pub positioned: bool,
}

impl Scenario {
    /// Resolves this scenario for one run, refusing it if its cost exceeds `limits` (checked first, before
    /// anything but the cost is resolved, as [`Scenario::check_limits`] does) or if it cannot be placed.
    pub fn resolve(&self, limits: &Limits) -> Result<Scene, ScenarioError> {
        let legacy = self.world.compat.is_legacy();
        let plan = self.cell_plan();
        let terrain = self.world.terrain.build(legacy);
        // The cost sees what `cost()` sees: cells only when there are some, the ground only under objects.
        let cost = self
            .cost_of(plan.as_ref().ok().filter(|_| self.has_cells()), terrain.as_ref().ok().and_then(Option::as_ref));
        self.check_cost(&cost, limits)?;
        let terrain = terrain.map_err(ScenarioError::Terrain)?;
        let placements = self.place_robots(terrain.as_ref())?;
        let cells = plan?;
        let fold_goals = (self.task == TaskSpec::Fold).then(|| Self::fold_goals_of(&cells));
        let force_deflection = match &self.task {
            TaskSpec::ForceDeflection(spec) => {
                let params = super::cells::validate(&self.cell_types, &self.cells)?;
                let (Some(p), Some(cell)) = (params.first(), self.cells.first()) else {
                    return Err(ScenarioError::Json { path: "cells".into(), message: "add one cell".into() });
                };
                Some(ForceDeflectionRun {
                    cell: cell.id.clone(),
                    params: *p,
                    dt: self.world.dt,
                    stepping: self.stepping(),
                    spec: spec.clone(),
                })
            }
            _ => None,
        };
        let robots = self
            .robots
            .iter()
            .zip(placements.robots)
            .enumerate()
            .map(|(i, (spec, placed))| SceneRobot {
                label: spec.label.clone().unwrap_or_else(|| format!("robot{i}")),
                placed,
                controller: spec.controller.clone(),
                self_collisions: spec.self_collisions,
                positioned: spec.position.is_some(),
            })
            .collect();
        Ok(Scene {
            settings: self.world_settings(),
            steps: self.steps(),
            cost,
            terrain,
            robots,
            cells,
            has_cells: self.has_cells(),
            fold_goals,
            force_deflection,
            objects: self.objects.clone(),
            task_objects: placements.task_objects,
            task: self.task.clone(),
        })
    }

    /// [`Scenario::resolve`] for a gate that refuses a scenario over `limits` at once but reports any
    /// other problem where the run is built (as it did when the gate checked the cost alone and the run
    /// resolved the scenario): `Err` is the refusal, `Ok(Err)` the problem to report with the run. The
    /// cost is the only thing `resolve` refuses as [`ScenarioError::TooLarge`].
    pub fn resolve_within(&self, limits: &Limits) -> Result<Result<Scene, ScenarioError>, ScenarioError> {
        match self.resolve(limits) {
            Err(e @ ScenarioError::TooLarge(_)) => Err(e),
            resolved => Ok(resolved),
        }
    }
}

impl Scene {
    /// The scene with its snapshots carrying `extra` too (what a render draws beyond the scenario's
    /// `world.snapshot`); nothing else of the run depends on it.
    pub fn with_detail(mut self, extra: SnapshotDetail) -> Scene {
        self.settings.detail = self.settings.detail.union(extra);
        self
    }

    /// What the run costs (checked against the limits it was resolved with).
    pub fn cost(&self) -> &Cost {
        &self.cost
    }

    /// The run's length in physics steps.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The robots, in the scenario's order, placed.
    pub fn robots(&self) -> &[SceneRobot] {
        &self.robots
    }

    /// Builds the world: terrain, then each robot placed and given its controller, the cells, the objects
    /// and the task.
    pub fn build(self) -> Result<Simulation, ScenarioError> {
        self.build_with(|_, _, _| None)
    }

    /// [`Scene::build`], where `controller_for(i, cells, [w, h])` may give robot i (voxels at `cells`,
    /// grid order) another controller than its scenario's (`None` keeps the scenario's).
    pub(crate) fn build_with(
        self,
        mut controller_for: impl FnMut(usize, &[[u32; 2]], [u32; 2]) -> Option<Box<dyn Controller>>,
    ) -> Result<Simulation, ScenarioError> {
        let mut world = World::new(self.settings);
        if let Some(t) = &self.terrain {
            world.add_terrain(t);
        }
        let mut labels = Vec::new();
        for (i, robot) in self.robots.iter().enumerate() {
            let body = &robot.placed.body;
            let cells: Vec<[u32; 2]> = body.voxels().map(|(c, _)| c).collect();
            let controller = match (controller_for(i, &cells, [body.width(), body.height()]), &robot.controller) {
                (Some(c), _) => Some(c),
                (None, Some(c)) => Some(
                    c.build(&cells, [body.width(), body.height()])
                        .map_err(|reason| ScenarioError::Controller { robot: i, reason })?,
                ),
                (None, None) => None,
            };
            labels.push(robot.label.clone());
            let options = RobotOptions { self_collisions: robot.self_collisions, ..RobotOptions::default() };
            world.add_robot(robot.label.clone(), body, robot.placed.origin, options, controller);
        }
        add_cells(&mut world, &mut labels, self.cells);
        let task_first = add_objects(
            &mut world,
            &mut labels,
            &self.robots,
            &self.objects,
            &self.task_objects,
            &self.task,
            self.terrain.as_ref(),
        )?;
        let task = match &self.task {
            TaskSpec::Locomotion(spec) => Task::Locomotion { transient: spec.transient },
            TaskSpec::Free => Task::Free,
            TaskSpec::Fold => Task::Fold(self.fold_goals.unwrap_or_default()),
            TaskSpec::ForceDeflection(_) => {
                Task::ForceDeflection(Box::new(self.force_deflection.expect("resolved with its task")))
            }
            TaskSpec::Jumping(_) => Task::Jumping { ground: flat_ground(self.terrain.as_ref()) },
            TaskSpec::Carrying(_) => Task::Carrying { the_box: task_first },
            TaskSpec::Pushing(_) => Task::Pushing { the_box: task_first },
            TaskSpec::Climbing(_) => Task::Climbing { ground: flat_ground(self.terrain.as_ref()) },
            // A quarter of the platform's thickness: see `BalancingMetrics::time_on_platform`.
            TaskSpec::Balancing(_) => {
                let (board, ground) = (&self.task_objects[0], flat_ground(self.terrain.as_ref()));
                Task::Balancing {
                    platform: task_first,
                    ground,
                    fall_margin: 0.25 * board.size[1],
                    full_tilt: crate::task::balancing::full_tilt(board.size, board.position[1] - ground),
                }
            }
            TaskSpec::Shape(_) => Task::Shape,
        };
        Ok(Simulation::new(world, self.steps, task, labels, self.robots.len(), self.has_cells))
    }
}

/// Adds the planned cells and their parts after the robots.
fn add_cells(world: &mut World, labels: &mut Vec<String>, plan: CellPlan) {
    let first = world.body_count();
    let plan = plan.offset(first);
    for c in &plan.cells {
        world.add_cell(c.id.clone(), c.type_name.clone(), c.params, c.position, c.rotation);
        labels.push(c.id.clone());
    }
    if !plan.cells.is_empty() {
        world.set_connector_types(plan.connector_types, plan.strengths);
        for c in plan.connectors {
            world.add_connector(c.name, BodyId(first + c.cell), c.body, c.kind, c.on);
        }
        for m in plan.muscles {
            world.add_muscle(m);
        }
        for (kind, (ca, ba), (cb, bb)) in plan.links {
            world.add_cell_link(kind, (BodyId(first + ca), ba), (BodyId(first + cb), bb));
        }
        world.set_cell_schedule(plan.events);
    }
}

/// Adds the scenario's objects, then the task's (`task_objects`), refusing any that overlaps a robot as
/// placed; the id of the task's first object. (These checks run here, after the controllers are built,
/// so that a scenario with several faults reports the same one first as it always has.)
fn add_objects(
    world: &mut World,
    labels: &mut Vec<String>,
    robots: &[SceneRobot],
    objects: &[ObjectSpec],
    task_objects: &[ObjectSpec],
    task: &TaskSpec,
    terrain: Option<&Terrain>,
) -> Result<usize, ScenarioError> {
    let overlapped = |o: &ObjectSpec| {
        robots.iter().enumerate().find(|(_, robot)| robot.placed.squares.iter().any(|sq| o.overlaps(*sq)))
    };
    for (k, o) in objects.iter().enumerate() {
        if let Some((j, _)) = overlapped(o) {
            return Err(ScenarioError::Json {
                path: format!("objects[{k}].position"),
                message: format!("the object overlaps robot {j} at t = 0; move it (or make it smaller)"),
            });
        }
        if let Some(message) = terrain.and_then(|t| o.ground_problem(t)) {
            return Err(ScenarioError::Json { path: format!("objects[{k}].position"), message });
        }
        let label = o.label.clone().unwrap_or_else(|| format!("object{k}"));
        world.add_object(label.clone(), o);
        labels.push(label);
    }
    // The task's objects come last: their ids are the first of them plus their index.
    let task_first = world.body_count();
    for o in task_objects {
        // The task's sizes may follow the robot, so its box is checked as placed: a light box on a
        // small robot can fall below the inertia the engine turns.
        if let Some((field, message)) = o.invalid() {
            let field = match field.as_str() {
                "mass" => task.object_mass_field().to_string(),
                f => f.replacen("size", task.object_size_field(), 1),
            };
            return Err(ScenarioError::Json { path: format!("task.{field}"), message });
        }
        // As for the scenario's objects (issue 52): a task's box or wall inside a robot at t = 0.
        if let Some((j, robot)) = overlapped(o) {
            let what = o.label.as_deref().unwrap_or("object");
            let (path, fix) = if robot.positioned {
                (format!("robots[{j}].position"), format!("move robot {j}"))
            } else {
                let field = task.object_size_field();
                (format!("task.{field}"), format!("give a smaller `{field}`, or a `position` to robot {j}"))
            };
            return Err(ScenarioError::Json {
                path,
                message: format!(
                    "the `{}` task's {what} (centred at [{}, {}] m, {} × {} m) overlaps robot {j} at t = 0; {fix}",
                    task.name(),
                    crate::geom::compact(o.position[0]),
                    crate::geom::compact(o.position[1]),
                    crate::geom::compact(o.size[0]),
                    crate::geom::compact(o.size[1]),
                ),
            });
        }
        let label = o.label.clone().unwrap_or_default();
        world.add_object(label.clone(), o);
        labels.push(label);
    }
    Ok(task_first)
}

/// The flat terrain's surface height (the tasks defined on flat ground refuse other terrains).
fn flat_ground(terrain: Option<&Terrain>) -> f64 {
    terrain.map_or(0.0, |t| t.max_height(t.profile[1].x, t.profile[1].x))
}

#[cfg(test)]
mod tests {
    use crate::scenario::cell_plan::plans;
    use crate::scenario::{Limits, Scenario};

    /// A run of a scenario with cells plans them once: resolving does, building and running reuse it
    /// (issue 51). The limit check and the build used to plan them again, once each.
    #[test]
    fn a_run_plans_its_cells_once() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/cells-fold-L.json");
        let mut scenario = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        scenario.world.duration = 0.2;
        let before = plans();
        let result = scenario.resolve(&Limits::DEFAULT).unwrap().build().unwrap().evaluate().unwrap();
        assert!(result.cells.is_some());
        assert_eq!(plans() - before, 1, "cell plans in one resolve + build + run");
    }

    /// A render of a cells scenario plans its cells once per run too, read from a file or given read
    /// (Python) with a new duration (issue 51): the render job checked the limits (planning them) before
    /// building each source (planning them again).
    #[test]
    fn a_render_plans_its_cells_once_per_run() {
        use crate::render_job::{Hooks, OutputFile, Outputs, RenderJob, RenderSettings, RunInput, RunKind, Sources};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/cells-fold-E.json");
        // Reading a scenario validates its cells by planning them (the render job reads the file's).
        let before = plans();
        let scenario = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        let reading = plans() - before;
        let dir = tempfile::tempdir().unwrap();
        let job = RenderJob {
            sources: Sources::Runs(vec![
                RunInput { given_as: "SCENARIO".into(), kind: RunKind::ScenarioFile(path.into()) },
                RunInput {
                    given_as: "scenarios[1]".into(),
                    kind: RunKind::Scenario { name: "scenarios[1]".into(), scenario: Box::new(scenario), file: None },
                },
            ]),
            settings: RenderSettings { size: (64, 36), duration: Some(0.2), ..RenderSettings::default() },
            outputs: Outputs {
                still: Some(OutputFile::new(dir.path().join("still.png"), "--png")),
                ..Outputs::default()
            },
            limits: Limits::DEFAULT,
        };
        let before = plans();
        let plan = job.preflight().unwrap();
        plan.run(&mut Hooks { progress: &mut |_, _| {}, keep_going: &|| true }).unwrap();
        assert_eq!(plans() - before, reading + 2, "cell plans in a render of two runs, one of them read from its file");
    }
}
