//! What a run is for, and what it measures. A task owns its setup (where the robot goes, which objects
//! it places: [`Placement`]), its per-step observation ([`Monitor`], fed by snapshots or by the world
//! itself on the snapshot-free path, with the same numbers) and its result ([`RunResult`], the one shape
//! every front door returns: `simulate`, `eval`, `render`, `evolve`, Python).
//!
//! Adding a task: a variant of `scenario::TaskSpec` with its validation, one file here with its spec,
//! placement, monitor and metrics, and the arms the compiler asks for ([`Task`], `TaskMonitor`,
//! [`TaskMetrics`], `Scenario::build`).

pub mod balancing;
pub mod cantilever;
pub mod carrying;
pub mod climbing;
pub mod fold;
pub mod force_deflection;
pub mod free;
pub mod jumping;
pub mod locomotion;
pub mod pushing;
mod result;
pub mod shape;

use std::sync::Arc;

use crate::geom::Vec2;
use crate::model::cell::CellParams;
use crate::model::object::{mass_problem, ObjectSpec};
use crate::sim::Stepping;
use crate::sim::{SimError, World};
use crate::snapshot::{BodyId, Flow, ListenerError, Progress, Snapshot, SnapshotListener};
use force_deflection::{FdError, ForceDeflectionSpec};
use free::CellMetricsListener;
use locomotion::LocomotionListener;

pub use result::{RunResult, TaskMetrics};

/// A task field that is out of its domain: `task.<field>` and what it must be.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`task.{field}`: {message}")]
pub struct TaskSpecError {
    pub field: String,
    pub message: String,
}

impl TaskSpecError {
    pub fn new(field: &str, message: String) -> TaskSpecError {
        TaskSpecError { field: field.into(), message }
    }
}

/// What a task knows of robot 0 when it places things: its default placement and size.
pub struct Footprint<'a> {
    /// Bottom-left corner of the body grid under the default placement rule, m.
    pub origin: Vec2,
    /// Width of the body grid, m.
    pub width: f64,
    /// Heights of the lowest and highest occupied points above `origin.y`, m.
    pub bottom: f64,
    pub top: f64,
    /// Voxel side, m.
    pub side: f64,
    /// The robot's mass, kg, and the magnitude of gravity, m/s².
    pub mass: f64,
    pub gravity: f64,
    /// The ground's highest point under the robot at its default placement, m.
    pub ground: f64,
    /// The ground's highest point over [x0, x1], m.
    pub ground_under: &'a dyn Fn(f64, f64) -> f64,
}

/// What a task places before the run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Placement {
    /// Where robot 0's grid corner goes instead of the default rule (an explicit `position` still wins).
    pub robot_origin: Option<Vec2>,
    /// The task's objects, built after the scenario's bodies, in this order.
    pub objects: Vec<ObjectSpec>,
}

/// Friction of the boxes tasks place (as the terrain's).
pub(crate) const BOX_FRICTION: f64 = 1.0;

/// A box's optional size and mass, checked.
fn check_box(size: Option<[f64; 2]>, mass: Option<f64>) -> Result<(), TaskSpecError> {
    if let Some(size) = size {
        for (i, s) in size.iter().enumerate() {
            if !(s.is_finite() && *s > 0.0 && *s <= 1000.0) {
                return Err(TaskSpecError::new(
                    &format!("box_size[{i}]"),
                    format!("{} m: a side must be in (0, 1000] m", crate::geom::compact(*s)),
                ));
            }
        }
    }
    match mass.and_then(mass_problem) {
        Some(message) => Err(TaskSpecError::new("box_mass", message)),
        None => Ok(()),
    }
}

/// The `force_deflection` sweep as planned from its scenario: one cell pressed level by level, each level
/// a world of its own (so it is run, not stepped).
#[derive(Debug, Clone)]
pub struct ForceDeflectionRun {
    pub cell: String,
    pub params: CellParams,
    pub dt: f64,
    pub stepping: Stepping,
    pub spec: ForceDeflectionSpec,
}

/// What a built simulation measures, with the body indices and heights its monitor needs. Robot 0 is "the
/// robot" of the single-robot tasks.
#[derive(Debug, Clone)]
pub enum Task {
    /// Distance, height and control effort of every robot (spec §10), from `transient` s on.
    Locomotion {
        transient: f64,
    },
    /// The scene as given (the robots' locomotion metrics, the cells' metrics).
    Free,
    /// Chains folding into letters (`cells.md` §11).
    Fold(Vec<fold::FoldGoal>),
    ForceDeflection(Box<ForceDeflectionRun>),
    Jumping {
        ground: f64,
    },
    Carrying {
        the_box: usize,
    },
    Pushing {
        the_box: usize,
    },
    Climbing {
        ground: f64,
    },
    Balancing {
        platform: usize,
        ground: f64,
        fall_margin: f64,
        /// The board's |angle| with one end on the ground (see [`balancing::full_tilt`]).
        full_tilt: f64,
    },
    Shape,
}

/// Why a run stopped without a result.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    ForceDeflection(#[from] FdError),
    #[error(
        "a `force_deflection` sweep is many short runs of its own, not one run: it is not recorded, rendered \
         or stepped; run it with `vsr2d simulate` (its frames are in `vsr2d cells-report`)"
    )]
    NotOneRun,
}

/// A built scenario, ready to run.
pub struct Simulation {
    world: World,
    steps: u64,
    task: Task,
    /// Body labels, in creation order.
    labels: Vec<String>,
    /// How many of the bodies are voxel robots (the first ones): the robots the result lists.
    robots: usize,
    /// Whether the world has soft cells (the result then lists their metrics).
    has_cells: bool,
    /// The control interval c and the `legacy-1.0` timing rules (the locomotion metrics need them).
    control_interval: u32,
    legacy: bool,
}

impl Simulation {
    /// A built world with its task, run for `steps` steps; `robots` voxel robots come first among the
    /// bodies labelled `labels`. The control interval and timing rules are the world's.
    pub fn new(world: World, steps: u64, task: Task, labels: Vec<String>, robots: usize, has_cells: bool) -> Self {
        let (control_interval, legacy) = (world.settings().control_interval, world.settings().legacy_first_control);
        Simulation { world, steps, task, labels, robots, has_cells, control_interval, legacy }
    }

    /// The run's length in physics steps.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// What the run is for.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// Body labels, in creation order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The world as built, not stepped yet.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The bare world, without its task: for driving the physics by hand (benchmarks, engine tests).
    pub fn into_world(self) -> World {
        self.world
    }

    /// The task's observer for this run: what every step feeds.
    fn monitor(&self) -> Monitor {
        let task = match &self.task {
            Task::Locomotion { .. } | Task::Free | Task::ForceDeflection(_) => TaskMonitor::None,
            Task::Fold(goals) => TaskMonitor::Fold(fold::FoldListener::new(goals.clone())),
            Task::Jumping { ground } => TaskMonitor::Jumping(jumping::JumpingMonitor::new(*ground)),
            Task::Carrying { the_box } => TaskMonitor::Carrying(carrying::CarryingMonitor::new(*the_box)),
            Task::Pushing { the_box } => TaskMonitor::Pushing(pushing::PushingMonitor::new(*the_box)),
            Task::Climbing { ground } => TaskMonitor::Climbing(climbing::ClimbingMonitor::new(*ground)),
            Task::Balancing { platform, ground, fall_margin, full_tilt } => {
                TaskMonitor::Balancing(balancing::BalancingMonitor::new(*platform, *ground, *fall_margin, *full_tilt))
            }
            Task::Shape => TaskMonitor::Shape(shape::ShapeMonitor::default()),
        };
        Monitor {
            locomotion: LocomotionListener::new(self.control_interval, self.legacy)
                .with_transient(match self.task {
                    Task::Locomotion { transient } => transient,
                    _ => 0.0,
                })
                .with_morphologies(
                    (0..self.robots).map(|i| self.world.morphology(BodyId(i)).cloned().unwrap_or_default()).collect(),
                ),
            robots: self.robots,
            cells: self.has_cells.then(CellMetricsListener::default),
            task,
        }
    }

    /// Starts stepping: [`Simulation::start_with`] with no listener but the task's monitor.
    pub fn start(self) -> Result<Run, RunError> {
        self.start_with(&mut [])
    }

    /// Starts stepping, delivering the t = 0 snapshot to `listeners` after the task's monitor. The one
    /// refusal of what cannot be stepped (a `force_deflection` sweep: [`RunError::NotOneRun`]) and the one
    /// choice of how the monitor is fed: by snapshots when it needs them or when listeners are there (the
    /// snapshot is built anyway), else by the world itself.
    pub fn start_with(self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Run, RunError> {
        if let Task::ForceDeflection(_) = self.task {
            return Err(RunError::NotOneRun);
        }
        let mut monitor = self.monitor();
        let snapshots = monitor.needs_snapshots();
        let mut world = self.world;
        let flow = if snapshots || !listeners.is_empty() {
            world.emit_initial(&mut with_monitor(&mut monitor, listeners))?
        } else {
            monitor.begin(&world);
            Flow::Continue
        };
        let stopped = flow == Flow::Stop;
        Ok(Run { world, steps: self.steps, monitor, snapshots, stopped })
    }

    /// Runs the whole task with extra listeners (recorders, renderers) and returns its result; it ends
    /// early when a listener asks to stop. Without listeners it is [`Simulation::evaluate`].
    pub fn run(self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<RunResult, RunError> {
        if listeners.is_empty() {
            return self.evaluate();
        }
        let mut run = self.start_with(listeners)?;
        while !run.stopped && !run.finished() {
            run.step(listeners)?;
        }
        Ok(run.result())
    }

    /// Runs the whole task and returns the same result as [`Simulation::run`] (bit-identical), building
    /// no snapshot unless the task reads snapshot-only content (soft cells): the path for optimizers
    /// evaluating many robots.
    pub fn evaluate(self) -> Result<RunResult, RunError> {
        match self.evaluate_while(|_| true)? {
            Evaluation::Done(result) => Ok(result),
            Evaluation::Stopped { .. } => unreachable!("never asked to stop"),
        }
    }

    /// [`Simulation::evaluate`] that asks `keep_going(step)` before every step and between the engine
    /// steps of one ([`World::step_while`](crate::sim::World::step_while)), and stops when it says no (a
    /// wall-clock budget, a cancel flag): a deadline is honoured within one engine step, whose work the
    /// resource limits bound, not after dozens of slow steps (issue 52). `keep_going` must be cheap (a
    /// clock read, an atomic load). The result of a run that is not stopped is the same bits.
    ///
    /// The one place a `force_deflection` sweep runs: it is many short runs, not one to step.
    pub fn evaluate_while(self, mut keep_going: impl FnMut(u64) -> bool) -> Result<Evaluation, RunError> {
        if let Task::ForceDeflection(fd) = &self.task {
            return Ok(Evaluation::Done(RunResult::of_task(TaskMetrics::ForceDeflection(fd.run()?))));
        }
        let mut run = self.start()?;
        while !run.finished() {
            let step = run.world.step_index();
            if !keep_going(step) || run.step_while(&mut [], &mut || keep_going(step))?.is_none() {
                return Ok(Evaluation::Stopped { step, steps: run.steps });
            }
        }
        Ok(Evaluation::Done(run.result()))
    }
}

/// The task's monitor first, then `listeners`: the order every snapshot is delivered in.
fn with_monitor<'a>(
    monitor: &'a mut Monitor,
    listeners: &'a mut [&mut dyn SnapshotListener],
) -> Vec<&'a mut dyn SnapshotListener> {
    let mut all: Vec<&mut dyn SnapshotListener> = Vec::with_capacity(listeners.len() + 1);
    all.push(monitor);
    for l in listeners.iter_mut() {
        all.push(&mut **l);
    }
    all
}

/// A simulation being stepped ([`Simulation::start`]): its world and the task's monitor, fed the same
/// way at every step. Every front door that steps (`simulate`, `eval`, the movie, Python's stepping)
/// drives one.
pub struct Run {
    world: World,
    steps: u64,
    monitor: Monitor,
    /// The monitor reads snapshot-only content: every step builds a snapshot.
    snapshots: bool,
    /// A listener asked to stop at the last delivery.
    stopped: bool,
}

/// Where a run stands after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunFlow {
    /// Steps remain.
    Continue,
    /// The last step was taken.
    Finished,
    /// A listener asked to stop.
    Stopped,
}

impl Run {
    /// One step, the snapshot (if one is built) delivered to the monitor first, then to `listeners`;
    /// nothing is stepped once the run has finished.
    pub fn step(&mut self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<RunFlow, SimError> {
        Ok(self.step_while(listeners, &mut || true)?.unwrap_or(RunFlow::Stopped))
    }

    /// [`Run::step`] that asks `keep_going()` between the engine steps of this step
    /// ([`World::step_while`]); `None` when it said no, leaving the world half-way through a step: only
    /// dropping the run makes sense then.
    pub(crate) fn step_while(
        &mut self,
        listeners: &mut [&mut dyn SnapshotListener],
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Result<Option<RunFlow>, SimError> {
        if self.finished() {
            return Ok(Some(RunFlow::Finished));
        }
        let flow = if self.snapshots || !listeners.is_empty() {
            self.world.step_while(&mut with_monitor(&mut self.monitor, listeners), keep_going)?
        } else {
            let flow = self.world.step_while(&mut [], keep_going)?;
            if flow.is_some() {
                self.monitor.observe_world(&mut self.world);
            }
            flow
        };
        let Some(flow) = flow else { return Ok(None) };
        self.stopped = flow == Flow::Stop;
        Ok(Some(if self.stopped {
            RunFlow::Stopped
        } else if self.finished() {
            RunFlow::Finished
        } else {
            RunFlow::Continue
        }))
    }

    /// Whether every step has been taken.
    pub fn finished(&self) -> bool {
        self.world.step_index() >= self.steps
    }

    /// Whether a listener asked to stop at the last delivery (the start's or a step's).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The result so far (of the whole run once it has finished).
    pub fn result(&self) -> RunResult {
        self.monitor.result()
    }

    /// The task's own metrics so far, without the robots' and cells' (what a frame's overlay shows).
    pub(crate) fn task_metrics(&self) -> Option<TaskMetrics> {
        self.monitor.task_metrics()
    }

    /// The run's length in physics steps.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The world now (time, step, bodies, settings).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world to change between steps by a hand outside the simulation (a test's push).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The current state as plain data (delivered to no listener).
    pub fn snapshot(&mut self) -> Snapshot {
        self.world.snapshot()
    }

    /// The sensor readings of every part of body `id` now ([`World::sensor_readings`]).
    pub(crate) fn sensor_readings(&mut self, id: BodyId) -> Option<Vec<crate::model::voxel::sensors::SensorReadings>> {
        self.world.sensor_readings(id)
    }
}

impl ForceDeflectionRun {
    fn run(&self) -> Result<force_deflection::FdResult, FdError> {
        force_deflection::run(&self.cell, &self.params, self.dt, self.stepping, &self.spec)
    }
}

/// The end of [`Simulation::evaluate_while`].
#[derive(Debug, Clone, PartialEq)]
pub enum Evaluation {
    Done(RunResult),
    /// Stopped before `step` of `steps`.
    Stopped {
        step: u64,
        steps: u64,
    },
}

/// A task's own observer, by task.
#[derive(Debug)]
enum TaskMonitor {
    None,
    Fold(fold::FoldListener),
    Jumping(jumping::JumpingMonitor),
    Carrying(carrying::CarryingMonitor),
    Pushing(pushing::PushingMonitor),
    Climbing(climbing::ClimbingMonitor),
    Balancing(balancing::BalancingMonitor),
    Shape(shape::ShapeMonitor),
}

/// Everything a run measures: every voxel robot's locomotion metrics, every cell's metrics, and the
/// task's own; fed by snapshots (as a listener) or by the world after each step
/// ([`Monitor::observe_world`]), with the same numbers either way.
#[derive(Debug)]
pub struct Monitor {
    locomotion: LocomotionListener,
    robots: usize,
    cells: Option<CellMetricsListener>,
    task: TaskMonitor,
}

impl Monitor {
    /// Whether what it measures is only in snapshots (soft cells, folds): such runs build them.
    pub(crate) fn needs_snapshots(&self) -> bool {
        self.cells.is_some() || matches!(self.task, TaskMonitor::Fold(_))
    }

    /// Whether it reads contacts (refreshed after every step on the snapshot-free path): every robot's
    /// `ground_contact` does, and the tasks that read contacts.
    fn needs_contacts(&self) -> bool {
        self.robots > 0
            || matches!(
                self.task,
                TaskMonitor::Jumping(_) | TaskMonitor::Carrying(_) | TaskMonitor::Pushing(_) | TaskMonitor::Climbing(_)
            )
    }

    /// Starts from the state at t = 0 (no snapshot-only content: see [`Monitor::needs_snapshots`]).
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        self.locomotion.begin(run);
        match &mut self.task {
            TaskMonitor::None | TaskMonitor::Fold(_) => {}
            TaskMonitor::Jumping(m) => m.begin(run),
            TaskMonitor::Carrying(m) => m.begin(run),
            TaskMonitor::Pushing(m) => m.begin(run),
            TaskMonitor::Climbing(m) => m.begin(run),
            TaskMonitor::Balancing(m) => m.begin(run),
            TaskMonitor::Shape(m) => m.begin(run),
        }
    }

    /// Records the state after a step.
    pub fn observe(&mut self, run: &dyn Progress) {
        self.locomotion.observe(run);
        match &mut self.task {
            TaskMonitor::None | TaskMonitor::Fold(_) => {}
            TaskMonitor::Jumping(m) => m.observe(run),
            TaskMonitor::Carrying(m) => m.observe(run),
            TaskMonitor::Pushing(m) => m.observe(run),
            TaskMonitor::Climbing(m) => m.observe(run),
            TaskMonitor::Balancing(m) => m.observe(run),
            TaskMonitor::Shape(m) => m.observe(run),
        }
    }

    /// [`Monitor::observe`] of the world itself after a step, refreshing contacts first if the task reads
    /// them (as building a snapshot does).
    pub fn observe_world(&mut self, world: &mut World) {
        if self.needs_contacts() {
            world.refresh_contacts();
        }
        self.observe(&*world);
    }

    /// The result so far (of the whole run once it has ended).
    pub fn result(&self) -> RunResult {
        let mut robots = self.locomotion.metrics();
        // The locomotion listener sees every body; cells and objects are reported by their own metrics.
        robots.truncate(self.robots);
        let task = self.task_metrics();
        RunResult { robots, cells: self.cells.as_ref().map(CellMetricsListener::metrics), task }
    }

    /// The task's own metrics so far, without the robots' and cells' (what a frame's overlay shows).
    pub(crate) fn task_metrics(&self) -> Option<TaskMetrics> {
        match &self.task {
            TaskMonitor::None => None,
            TaskMonitor::Fold(f) => Some(TaskMetrics::Fold(f.metrics())),
            TaskMonitor::Jumping(m) => Some(TaskMetrics::Jumping(m.metrics())),
            TaskMonitor::Carrying(m) => Some(TaskMetrics::Carrying(m.metrics())),
            TaskMonitor::Pushing(m) => Some(TaskMetrics::Pushing(m.metrics())),
            TaskMonitor::Climbing(m) => Some(TaskMetrics::Climbing(m.metrics())),
            TaskMonitor::Balancing(m) => Some(TaskMetrics::Balancing(m.metrics())),
            TaskMonitor::Shape(m) => Some(TaskMetrics::Shape(m.metrics())),
        }
    }

    /// The fold error series (per chain: (t, RMS/D) at every snapshot), for plots.
    pub fn fold_series(&self) -> Option<&[Vec<(f64, f64)>]> {
        match &self.task {
            TaskMonitor::Fold(f) => Some(f.series()),
            _ => None,
        }
    }
}

impl SnapshotListener for Monitor {
    fn on_snapshot(&mut self, s: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        if s.step == 0 {
            self.begin(&**s);
        } else {
            self.observe(&**s);
        }
        if let Some(c) = self.cells.as_mut() {
            c.on_snapshot(s)?;
        }
        if let TaskMonitor::Fold(f) = &mut self.task {
            f.on_snapshot(s)?;
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::Evaluation;
    use crate::scenario::Scenario;

    fn worm(force_substeps: usize) -> super::Simulation {
        let json = format!(
            r#####"{{"world": {{"duration": 10, "force_substeps": {force_substeps}}}, "robots": [{{"body": ["####"]}}]}}"#####
        );
        Scenario::from_json(&json).expect("valid").build().expect("builds")
    }

    /// A deadline is honoured at the next step, and inside a step between its engine steps (issue 52:
    /// a job whose steps are slow stopped only every 64 steps, long after its budget).
    #[test]
    fn evaluate_while_asks_before_every_step_and_between_engine_steps() {
        assert_eq!(worm(1).evaluate_while(|step| step < 3).unwrap(), Evaluation::Stopped { step: 3, steps: 600 });
        // Four engine steps per step: asked before step 0 and before its 2nd, 3rd and 4th engine step.
        let mut asked = 0;
        let stopped = worm(4)
            .evaluate_while(|_| {
                asked += 1;
                asked < 3
            })
            .unwrap();
        assert_eq!((stopped, asked), (Evaluation::Stopped { step: 0, steps: 600 }, 3));
        // Asking changes nothing of a run that goes on.
        let Evaluation::Done(asked) = worm(4).evaluate_while(|_| true).unwrap() else { panic!("stopped") };
        assert_eq!(format!("{asked:?}"), format!("{:?}", worm(4).evaluate().unwrap()));
    }
}
