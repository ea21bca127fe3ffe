//! A scenario driven from outside one control period at a time: a Python policy, a reinforcement-
//! learning agent. Every robot's controller is replaced by control values the caller sets before each
//! step; the caller reads back observations (sensor features, as an MLP controller would see them),
//! the metrics of the scenario's task and snapshots.
//!
//! With the same values at every step, a run is the run of a constant controller, bit for bit (the
//! world calls the replacing controller exactly where it would call the scenario's).

use crate::controller::{ActionHandle, ControllerSpec, ExternalController, SensorFeatures, SensorLayout};
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::SimError;
use crate::snapshot::{BodyId, Progress, Snapshot};
use crate::task::{Monitor, RunResult};
use crate::task::Simulation;

/// Why a step was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error(
        "expected {expected} control values (one per voxel of each robot, robots in order, voxels in grid order \
         from the bottom row), got {got}"
    )]
    ActionCount { expected: usize, got: usize },
    #[error("the run is over ({steps} steps, t = {t} s): reset it to start again")]
    Finished { steps: u64, t: f64 },
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// One robot's ends of the loop: where its control values go and what it observes.
struct Driven {
    actions: ActionHandle,
    features: SensorFeatures,
}

/// A scenario run step by step under outside control.
pub struct SteppedSimulation {
    scenario: Scenario,
    sensors: Option<SensorLayout>,
    simulation: Simulation,
    metrics: Monitor,
    robots: Vec<Driven>,
    /// A step failed (unstable): no further step.
    failed: bool,
}

impl SteppedSimulation {
    /// Builds `scenario` with every robot under outside control. `sensors` is the observation layout
    /// of every robot; without it a robot observes what its MLP controller's layout names, or, with
    /// another controller or none, every sensor's current reading ([`SensorLayout::every_sensor`]).
    pub fn new(scenario: Scenario, sensors: Option<SensorLayout>) -> Result<SteppedSimulation, ScenarioError> {
        let (simulation, metrics, robots) = Self::build(&scenario, sensors.as_ref())?;
        Ok(SteppedSimulation { scenario, sensors, simulation, metrics, robots, failed: false })
    }

    #[allow(clippy::type_complexity)]
    fn build(
        scenario: &Scenario,
        sensors: Option<&SensorLayout>,
    ) -> Result<(Simulation, Monitor, Vec<Driven>), ScenarioError> {
        let mut robots = Vec::new();
        let mut layout_error = None;
        let simulation = scenario.build_with(|i, cells, grid| {
            let every;
            let layout = match (sensors, &scenario.robots[i].controller) {
                (Some(layout), _) => layout,
                (None, Some(ControllerSpec::Mlp(mlp))) => &mlp.sensors,
                _ => {
                    every = SensorLayout::every_sensor();
                    &every
                }
            };
            let features = match layout.build(cells, grid) {
                Ok(f) => f,
                Err(reason) => {
                    layout_error.get_or_insert(ScenarioError::Controller { robot: i, reason });
                    SensorLayout::default().build(cells, grid).ok()?
                }
            };
            let (controller, actions) = ExternalController::new(cells.len());
            robots.push(Driven { actions, features });
            Some(Box::new(controller))
        })?;
        if let Some(e) = layout_error {
            return Err(e);
        }
        if matches!(simulation.task, crate::task::Task::ForceDeflection(_)) {
            return Err(ScenarioError::Json {
                path: "task".into(),
                message: "a `force_deflection` sweep is many short runs, not one: it cannot be stepped; use \
                          `evaluate` for its result"
                    .into(),
            });
        }
        let mut simulation = simulation;
        let mut metrics = simulation.monitor();
        if metrics.needs_snapshots() {
            // A listener that never fails or stops: the flow is always `Continue`.
            let _ = simulation.world.emit_initial(&mut [&mut metrics]);
        } else {
            metrics.begin(&simulation.world);
        }
        let mut built = (simulation, metrics, robots);
        Self::observe(&mut built.0, &mut built.2);
        Ok(built)
    }

    /// Pushes the current readings into every robot's feature histories.
    fn observe(simulation: &mut Simulation, robots: &mut [Driven]) {
        for (i, robot) in robots.iter_mut().enumerate() {
            if robot.features.is_empty() {
                continue;
            }
            if let Some(readings) = simulation.world.sensor_readings(BodyId(i)) {
                robot.features.push(&readings);
            }
        }
    }

    /// Starts again from t = 0. `terrain_seed` replaces the seed of a random terrain (uneven, hilly,
    /// steppy: a new terrain per episode); the others ignore it.
    pub fn reset(&mut self, terrain_seed: Option<u64>) -> Result<(), ScenarioError> {
        if let (Some(seed), Some(s)) = (terrain_seed, self.scenario.world.terrain.seed_mut()) {
            *s = seed;
        }
        (self.simulation, self.metrics, self.robots) = Self::build(&self.scenario, self.sensors.as_ref())?;
        self.failed = false;
        Ok(())
    }

    /// Control values per robot (its voxel count), in robot order.
    pub fn action_sizes(&self) -> Vec<usize> {
        self.robots.iter().map(|r| r.actions.len()).collect()
    }

    /// Features per robot, in robot order (the observation adds the time after all of them).
    pub fn feature_sizes(&self) -> Vec<usize> {
        self.robots.iter().map(|r| r.features.len()).collect()
    }

    /// The length of [`SteppedSimulation::observation`]: every robot's features, then t.
    pub fn observation_size(&self) -> usize {
        self.feature_sizes().iter().sum::<usize>() + 1
    }

    /// Every robot's features in robot order, then the time t in s.
    pub fn observation(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.observation_size()];
        let mut at = 0;
        for r in &self.robots {
            r.features.write(&mut out[at..at + r.features.len()]);
            at += r.features.len();
        }
        out[at] = self.time();
        out
    }

    /// Sets the control values (one per voxel of each robot, robots in order; clipped to [−1, 1], NaN
    /// read as 0 by the simulation) and advances to the next control step: one step when the control
    /// interval is 0. Returns the number of physics steps taken.
    pub fn step(&mut self, actions: &[f64]) -> Result<u64, StepError> {
        let expected: usize = self.robots.iter().map(|r| r.actions.len()).sum();
        if actions.len() != expected {
            return Err(StepError::ActionCount { expected, got: actions.len() });
        }
        if self.is_finished() {
            return Err(StepError::Finished { steps: self.simulation.steps, t: self.time() });
        }
        let mut at = 0;
        for r in &self.robots {
            let n = r.actions.len();
            r.actions.set(&actions[at..at + n]);
            at += n;
        }
        // Until the values have been used by a control step and the next step is a control step again
        // (legacy-1.0 skips the control call of step 0, so its first period is one step longer).
        let world = &mut self.simulation.world;
        let mut taken = 0;
        let mut controlled = false;
        while world.step_index() < self.simulation.steps {
            controlled |= world.is_control_step();
            let stepped = if self.metrics.needs_snapshots() {
                world.step(&mut [&mut self.metrics])
            } else {
                world.step(&mut []).inspect(|_| self.metrics.observe_world(world))
            };
            if let Err(e) = stepped {
                self.failed = true;
                return Err(e.into());
            }
            taken += 1;
            if controlled && world.is_control_step() {
                break;
            }
        }
        Self::observe(&mut self.simulation, &mut self.robots);
        Ok(taken)
    }

    /// Whether the scenario's duration is reached or a step failed.
    pub fn is_finished(&self) -> bool {
        self.failed || self.simulation.world.step_index() >= self.simulation.steps
    }

    /// The task's result so far (that of the whole run once it is finished): what `vsr2d simulate`
    /// prints for the scenario.
    pub fn metrics(&self) -> RunResult {
        self.metrics.result()
    }

    /// The current state as plain data.
    pub fn snapshot(&mut self) -> Snapshot {
        self.simulation.world.snapshot()
    }

    pub fn time(&self) -> f64 {
        self.simulation.world.time()
    }

    /// The scenario's task, by its JSON name (`locomotion`, `jumping`, …).
    pub fn task_name(&self) -> &'static str {
        self.scenario.task.name()
    }

    pub fn step_index(&self) -> u64 {
        self.simulation.world.step_index()
    }

    /// The scenario's length in physics steps.
    pub fn total_steps(&self) -> u64 {
        self.simulation.steps
    }

    /// The x of every robot's centre now, m (what locomotion rewards).
    pub fn centres_x(&self) -> Vec<f64> {
        let world = &self.simulation.world;
        (0..Progress::body_count(world)).map(|i| Progress::centre(world, i).x).collect()
    }

    /// Robot labels, in order.
    pub fn labels(&self) -> &[String] {
        &self.simulation.labels
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(controller: &str, duration: f64) -> Scenario {
        Scenario::from_json(&format!(
            r####"{{"world": {{"duration": {duration}}},
                "robots": [{{"body": ["###", "#.#"]{controller}}}]}}"####
        ))
        .unwrap()
    }

    #[test]
    fn constant_values_give_the_constant_controller_run_bit_for_bit() {
        let c = r##", "controller": {"type": "time_functions", "default": {"type": "constant", "value": 0.6}}"##;
        let reference = scenario(c, 1.0).build().unwrap().evaluate().unwrap();
        let mut stepped = SteppedSimulation::new(scenario("", 1.0), None).unwrap();
        assert_eq!(stepped.action_sizes(), vec![5]);
        let mut steps = 0;
        while !stepped.is_finished() {
            steps += stepped.step(&[0.6; 5]).unwrap();
        }
        assert_eq!(steps, stepped.total_steps());
        assert_eq!(stepped.metrics(), reference);
        assert!(matches!(stepped.step(&[0.6; 5]), Err(StepError::Finished { .. })));
    }

    #[test]
    fn observations_are_every_sensor_now_then_time() {
        let mut stepped = SteppedSimulation::new(scenario("", 0.5), None).unwrap();
        assert_eq!(stepped.feature_sizes(), vec![5 * 8]);
        let obs = stepped.observation();
        assert_eq!(obs.len(), 41);
        // At rest: every area ratio is 1 (to the engine's f32 positions) and the time is 0.
        assert_eq!(obs[40], 0.0);
        assert!((obs[0] - 1.0).abs() < 1e-6, "{}", obs[0]);
        stepped.step(&[1.0; 5]).unwrap();
        let obs = stepped.observation();
        assert!((obs[40] - stepped.time()).abs() < 1e-12 && stepped.time() > 0.0);
        // The same readings as the world reports.
        let readings = stepped.simulation.world.sensor_readings(BodyId(0)).unwrap();
        assert_eq!(obs[8], readings[1].get(crate::model::voxel::sensors::SensorKind::AreaRatio));
    }

    #[test]
    fn wrong_action_count_is_refused_and_reset_starts_over() {
        let mut stepped = SteppedSimulation::new(scenario("", 0.5), None).unwrap();
        assert!(matches!(stepped.step(&[0.0; 4]), Err(StepError::ActionCount { expected: 5, got: 4 })));
        stepped.step(&[1.0; 5]).unwrap();
        let first = stepped.observation();
        stepped.reset(None).unwrap();
        assert_eq!(stepped.step_index(), 0);
        stepped.step(&[1.0; 5]).unwrap();
        assert_eq!(stepped.observation(), first, "a reset run repeats itself");
    }
}
