//! A scenario driven from outside one control period at a time: a Python policy, a reinforcement-
//! learning agent. Every robot's controller is replaced by control values the caller sets before each
//! step; the caller reads back observations (sensor features, as an MLP controller would see them),
//! the metrics of the scenario's task and snapshots.
//!
//! With the same values at every step, a run is the run of a constant controller, bit for bit (the
//! world calls the replacing controller exactly where it would call the scenario's).
//!
//! Driven per voxel ([`PerVoxel`]), each voxel observes its own features and the signals its
//! neighbours sent it at the previous step, and acts with its actuation and the signals it sends: the
//! loop of a distributed controller ([`crate::controller::distributed`]) with the policy outside, so
//! one policy can be trained for every voxel.

use crate::controller::{
    ActionHandle, ControllerError, ControllerSpec, ExternalController, SensorFeatures, SensorLayout, SignalBus,
};
use crate::scenario::{Limits, Scenario, ScenarioError, Scene};
use crate::sim::SimError;
use crate::snapshot::{BodyId, Progress, Snapshot};
use crate::task::{Run, RunError, RunResult};

/// Why a step was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error(
        "expected {expected} control values (one per voxel of each robot, robots in order, voxels in grid order \
         from the bottom row), got {got}"
    )]
    ActionCount { expected: usize, got: usize },
    #[error(
        "expected {expected} values per voxel action (1 actuation + {sent} signals sent) × {voxels} voxels = {}, got \
         {got}",
        .expected * .voxels
    )]
    VoxelActionCount { expected: usize, sent: usize, voxels: usize, got: usize },
    #[error("the simulation is not driven per voxel: build it with a per-voxel setting to step it per voxel")]
    NotPerVoxel,
    #[error(
        "actions[{voxel}, {column}] (a signal voxel {voxel} sends) is {value}: signals reach the neighbours' \
         observations as they are, so give finite numbers (the actuation, column 0, is clipped to [-1, 1] and NaN \
         read as 0)"
    )]
    NonFiniteSignal { voxel: usize, column: usize, value: f64 },
    #[error("the run is over ({steps} steps, t = {t} s): reset it to start again")]
    Finished { steps: u64, t: f64 },
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// One robot's ends of the loop: where its control values go and what it observes.
struct Driven {
    actions: ActionHandle,
    features: SensorFeatures,
    /// Driven per voxel: the signals between its voxels.
    bus: Option<SignalBus>,
}

/// How a body driven per voxel exchanges signals (as a distributed controller's `signals` and
/// `directional`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerVoxel {
    /// Signal values per direction.
    pub signals: usize,
    /// One vector per neighbour (true) or one for all (false).
    pub directional: bool,
}

/// A scenario run step by step under outside control.
pub struct SteppedSimulation {
    scenario: Scenario,
    sensors: Option<SensorLayout>,
    per_voxel: Option<PerVoxel>,
    run: Run,
    /// Body labels, in order.
    labels: Vec<String>,
    robots: Vec<Driven>,
    /// A step failed (unstable): no further step.
    failed: bool,
}

impl SteppedSimulation {
    /// Builds `scenario` with every robot under outside control. `sensors` is the observation layout
    /// of every robot; without it a robot observes what its MLP or distributed controller's layout
    /// names, or, with another controller or none, every sensor's current reading
    /// ([`SensorLayout::every_sensor`]).
    pub fn new(scenario: Scenario, sensors: Option<SensorLayout>) -> Result<SteppedSimulation, ScenarioError> {
        Self::with_per_voxel(scenario, sensors, None)
    }

    /// [`SteppedSimulation::new`], driven per voxel when `per_voxel` is given: every voxel of every
    /// robot must then have the same number of features.
    pub fn with_per_voxel(
        scenario: Scenario,
        sensors: Option<SensorLayout>,
        per_voxel: Option<PerVoxel>,
    ) -> Result<SteppedSimulation, ScenarioError> {
        let scene = scenario.resolve(&Limits::NONE);
        Self::with_scene(scenario, scene, sensors, per_voxel)
    }

    /// [`SteppedSimulation::with_per_voxel`] of `scenario` already resolved for its first run (its cost
    /// checked by the caller): `scene`, or why it did not resolve. [`SteppedSimulation::reset`] resolves
    /// it again.
    pub fn with_scene(
        scenario: Scenario,
        scene: Result<Scene, ScenarioError>,
        sensors: Option<SensorLayout>,
        per_voxel: Option<PerVoxel>,
    ) -> Result<SteppedSimulation, ScenarioError> {
        let (run, labels, robots) = Self::build(&scenario, scene?, sensors.as_ref(), per_voxel)?;
        Ok(SteppedSimulation { scenario, sensors, per_voxel, run, labels, robots, failed: false })
    }

    /// Builds `scene` (of `scenario`) with every robot under outside control.
    #[allow(clippy::type_complexity)]
    fn build(
        scenario: &Scenario,
        scene: Scene,
        sensors: Option<&SensorLayout>,
        per_voxel: Option<PerVoxel>,
    ) -> Result<(Run, Vec<String>, Vec<Driven>), ScenarioError> {
        let mut robots = Vec::new();
        let mut layout_error = None;
        let simulation = scene.build_with(|i, cells, grid| {
            let every;
            let layout = match (sensors, &scenario.robots[i].controller) {
                (Some(layout), _) => layout,
                (None, Some(ControllerSpec::Mlp(mlp))) => &mlp.sensors,
                (None, Some(ControllerSpec::Distributed(d))) => &d.sensors,
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
            let bus = per_voxel.map(|p| SignalBus::new(cells, p.signals, p.directional));
            robots.push(Driven { actions, features, bus });
            Some(Box::new(controller))
        })?;
        if let Some(e) = layout_error {
            return Err(e);
        }
        if per_voxel.is_some() {
            // One policy for every voxel: every voxel must observe as many features.
            let mut first: Option<(usize, usize)> = None;
            for (i, r) in robots.iter().enumerate() {
                for (v, &n) in r.features.counts_per_voxel(r.actions.len()).iter().enumerate() {
                    match first {
                        None => first = Some((i, n)),
                        Some((i0, n0)) if n0 != n => {
                            let message = format!(
                                "voxel {v} of robot {i} observes {n} features but robot {i0}'s first voxel {n0}: driven \
                                 per voxel, every voxel needs the same number; give one feature list for all (`sensors` \
                                 with a `default` and no `cells`)"
                            );
                            let reason = ControllerError::Invalid { location: "sensors".into(), message };
                            return Err(ScenarioError::Controller { robot: i, reason });
                        }
                        _ => {}
                    }
                }
            }
        }
        let labels = simulation.labels().to_vec();
        let mut run = simulation.start().map_err(|e| match e {
            RunError::NotOneRun | RunError::ForceDeflection(_) => ScenarioError::Json {
                path: "task".into(),
                message: "a `force_deflection` sweep is many short runs, not one: it cannot be stepped; use \
                          `evaluate` for its result"
                    .into(),
            },
            // Only the task's monitor hears the t = 0 snapshot, and it never fails.
            RunError::Sim(e) => ScenarioError::Json { path: String::new(), message: e.to_string() },
        })?;
        Self::observe(&mut run, &mut robots);
        Ok((run, labels, robots))
    }

    /// Pushes the current readings into every robot's feature histories.
    fn observe(run: &mut Run, robots: &mut [Driven]) {
        for (i, robot) in robots.iter_mut().enumerate() {
            if robot.features.is_empty() {
                continue;
            }
            if let Some(readings) = run.sensor_readings(BodyId(i)) {
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
        let scene = self.scenario.resolve(&Limits::NONE)?;
        (self.run, self.labels, self.robots) =
            Self::build(&self.scenario, scene, self.sensors.as_ref(), self.per_voxel)?;
        self.failed = false;
        Ok(())
    }

    /// Control values per robot (its voxel count), in robot order.
    pub fn action_sizes(&self) -> Vec<usize> {
        self.robots.iter().map(|r| r.actions.len()).collect()
    }

    /// Features per robot, in robot order (the observation adds the time after all of them).
    pub(crate) fn feature_sizes(&self) -> Vec<usize> {
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

    /// The smallest and largest value of each element of [`SteppedSimulation::observation`]: each
    /// feature's ([`SensorFeatures::bounds`]), then t ∈ [0, the scenario's length].
    pub fn observation_bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let mut bounds: Vec<(f64, f64)> = self.robots.iter().flat_map(|r| r.features.bounds()).collect();
        // The same product as the world's time at the last step, so the last t is within.
        bounds.push((0.0, self.run.steps() as f64 * self.run.world().settings().dt));
        bounds.into_iter().unzip()
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
            return Err(StepError::Finished { steps: self.run.steps(), t: self.time() });
        }
        let mut at = 0;
        for r in &self.robots {
            let n = r.actions.len();
            r.actions.set(&actions[at..at + n]);
            at += n;
        }
        // Until the values have been used by a control step and the next step is a control step again
        // (legacy-1.0 skips the control call of step 0, so its first period is one step longer).
        let mut taken = 0;
        let mut controlled = false;
        while !self.run.finished() {
            controlled |= self.run.world().is_control_step();
            if let Err(e) = self.run.step(&mut []) {
                self.failed = true;
                return Err(e.into());
            }
            taken += 1;
            if controlled && self.run.world().is_control_step() {
                break;
            }
        }
        Self::observe(&mut self.run, &mut self.robots);
        Ok(taken)
    }

    /// Driven per voxel: the observation's shape (voxels of every robot in order, features + 4 ×
    /// signals received per voxel).
    pub fn voxel_observation_shape(&self) -> Option<(usize, usize)> {
        let p = self.per_voxel?;
        let voxels = self.robots.iter().map(|r| r.actions.len()).sum();
        let features =
            self.robots.iter().find(|r| !r.actions.is_empty()).map_or(0, |r| r.features.len() / r.actions.len().max(1));
        Some((voxels, features + 4 * p.signals))
    }

    /// Driven per voxel: the action's shape (voxels, 1 actuation + the signals a voxel sends).
    pub fn voxel_action_shape(&self) -> Option<(usize, usize)> {
        let p = self.per_voxel?;
        let voxels = self.robots.iter().map(|r| r.actions.len()).sum();
        Some((voxels, 1 + if p.directional { 4 * p.signals } else { p.signals }))
    }

    /// Driven per voxel: row-major, one row per voxel (robots in order, voxels in grid order), its
    /// features, then the signals its N, E, S and W neighbours sent at the last step (0 where there is
    /// none, and before the first step).
    pub fn voxel_observation(&self) -> Option<Vec<f64>> {
        let (rows, cols) = self.voxel_observation_shape()?;
        let mut out = vec![0.0; rows * cols];
        let mut row = 0;
        for r in &self.robots {
            let (n, bus) = (r.actions.len(), r.bus.as_ref()?);
            let f = r.features.len() / n.max(1);
            let mut features = vec![0.0; r.features.len()];
            r.features.write(&mut features);
            for v in 0..n {
                let line = &mut out[(row + v) * cols..(row + v + 1) * cols];
                line[..f].copy_from_slice(&features[v * f..(v + 1) * f]);
                bus.receive(v, &mut line[f..]);
            }
            row += n;
        }
        Some(out)
    }

    /// Driven per voxel: `actions` row-major, one row per voxel (as the observation's), each the
    /// voxel's actuation then the signals it sends (N, E, S, W when directional). Signals sent now
    /// are observed after this step.
    pub fn step_voxels(&mut self, actions: &[f64]) -> Result<u64, StepError> {
        let (voxels, cols) = self.voxel_action_shape().ok_or(StepError::NotPerVoxel)?;
        if actions.len() != voxels * cols {
            return Err(StepError::VoxelActionCount { expected: cols, sent: cols - 1, voxels, got: actions.len() });
        }
        if self.is_finished() {
            return Err(StepError::Finished { steps: self.run.steps(), t: self.time() });
        }
        // Signals are delivered unclipped (a policy may scale them), so a NaN or an infinity would reach
        // the neighbours' observations: refused before anything moves.
        if let Some(i) = (0..actions.len()).find(|&i| i % cols != 0 && !actions[i].is_finite()) {
            return Err(StepError::NonFiniteSignal { voxel: i / cols, column: i % cols, value: actions[i] });
        }
        let mut actuation = Vec::with_capacity(voxels);
        let mut row = 0;
        for r in &mut self.robots {
            let n = r.actions.len();
            if let Some(bus) = r.bus.as_mut() {
                for v in 0..n {
                    let line = &actions[(row + v) * cols..(row + v + 1) * cols];
                    actuation.push(line[0]);
                    bus.send(v, &line[1..]);
                }
                bus.deliver();
            }
            row += n;
        }
        self.step(&actuation)
    }

    /// Whether the scenario's duration is reached or a step failed.
    pub fn is_finished(&self) -> bool {
        self.failed || self.run.finished()
    }

    /// The task's result so far (that of the whole run once it is finished): what `vsr2d simulate`
    /// prints for the scenario.
    pub fn metrics(&self) -> RunResult {
        self.run.result()
    }

    /// The current state as plain data.
    pub fn snapshot(&mut self) -> Snapshot {
        self.run.snapshot()
    }

    pub fn time(&self) -> f64 {
        self.run.world().time()
    }

    /// The scenario's task, by its JSON name (`locomotion`, `jumping`, …).
    pub fn task_name(&self) -> &'static str {
        self.scenario.task.name()
    }

    pub fn step_index(&self) -> u64 {
        self.run.world().step_index()
    }

    /// The scenario's length in physics steps.
    pub fn total_steps(&self) -> u64 {
        self.run.steps()
    }

    /// The x of every robot's centre now, m (what locomotion rewards).
    pub fn centres_x(&self) -> Vec<f64> {
        let world = self.run.world();
        (0..Progress::body_count(world)).map(|i| Progress::centre(world, i).x).collect()
    }

    /// Robot labels, in order.
    pub fn labels(&self) -> &[String] {
        &self.labels
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
        let readings = stepped.run.sensor_readings(BodyId(0)).unwrap();
        assert_eq!(obs[8], readings[1].get(crate::model::voxel::sensors::SensorKind::AreaRatio));
    }

    /// The bounds are each sensor's range (a difference of two readings spans hi − lo either way), and
    /// a run with alternating full actuation (the robot tumbles and hits the ground) stays within them.
    #[test]
    fn observations_stay_within_their_bounds() {
        use std::f64::consts::PI;
        let sensors = r#"{"default": [{"sensor": "angle", "aggregate": "diff", "n": 4},
            {"sensor": "touching", "aggregate": "mean", "n": 3}, {"sensor": "velocity_magnitude"}]}"#;
        let layout: SensorLayout = serde_json::from_str(sensors).unwrap();
        let mut stepped = SteppedSimulation::new(scenario("", 2.0), Some(layout)).unwrap();
        let (low, high) = stepped.observation_bounds();
        assert_eq!(low.len(), 5 * 3 + 1);
        assert_eq!((low[0], high[0]), (-2.0 * PI, 2.0 * PI));
        assert_eq!((low[1], high[1]), (0.0, 1.0));
        assert_eq!((low[2], high[2]), (0.0, f64::INFINITY));
        assert_eq!((low[15], high[15]), (0.0, stepped.total_steps() as f64 * (1.0 / 60.0)));
        let every = SteppedSimulation::new(scenario("", 2.0), None).unwrap().observation_bounds();
        let first_voxel: Vec<(f64, f64)> = every.0[..8].iter().copied().zip(every.1[..8].iter().copied()).collect();
        let inf = f64::INFINITY;
        assert_eq!(
            first_voxel,
            [(0.0, inf), (0.0, inf), (-inf, inf), (-inf, inf), (-PI, PI), (-inf, inf), (-inf, inf), (0.0, 1.0)]
        );
        let mut k = 0;
        while !stepped.is_finished() {
            let obs = stepped.observation();
            for (i, v) in obs.iter().enumerate() {
                assert!(low[i] <= *v && *v <= high[i], "feature {i} = {v} outside [{}, {}]", low[i], high[i]);
            }
            let a = if (k / 20) % 2 == 0 { 1.0 } else { -1.0 };
            stepped.step(&[a; 5]).unwrap();
            k += 1;
        }
        assert_eq!(*stepped.observation().last().unwrap(), high[15], "the last t is the upper bound");
    }

    /// A policy outside the simulation that computes, for every voxel, what a homogeneous distributed
    /// controller's network computes, drives the robot exactly as that controller does: the per-voxel
    /// loop and the controller see the same features and signals at the same steps (also under the
    /// legacy-1.0 timing, which skips the control call of step 0, up to the stepped loop's first
    /// observation).
    #[test]
    fn per_voxel_driving_reproduces_the_distributed_controller() {
        use crate::controller::{distributed_layer_sizes, weight_count, Mlp};
        let sizes = distributed_layer_sizes(2, 1, true, &[3]);
        // Weights whose robot walks in both presets (0.38 and 0.28 m/s back): a still one would make
        // the comparison of velocities a comparison of noise.
        let mut rng = crate::rng::SplitMix64::new(5);
        let weights: Vec<f64> = (0..weight_count(&sizes)).map(|_| rng.range(-1.0, 1.0)).collect();
        let sensors = r#"{"default": [{"sensor": "area_ratio", "aggregate": "mean", "n": 3}, {"sensor": "touching"}]}"#;
        for compat in ["default", "legacy-1.0"] {
            let text = |controller: &str| {
                format!(
                    r####"{{"world": {{"duration": 2, "compat": "{compat}"}},
                        "robots": [{{"body": ["###", "#.#"]{controller}}}]}}"####
                )
            };
            let controller = format!(
                r#", "controller": {{"type": "distributed", "sensors": {sensors}, "signals": 1, "hidden": [3],
                    "weights": {weights:?}}}"#
            );
            let reference = Scenario::from_json(&text(&controller)).unwrap().build().unwrap().evaluate().unwrap();
            let layout: SensorLayout = serde_json::from_str(sensors).unwrap();
            let p = PerVoxel { signals: 1, directional: true };
            let mut stepped =
                SteppedSimulation::with_per_voxel(Scenario::from_json(&text("")).unwrap(), Some(layout), Some(p))
                    .unwrap();
            assert_eq!(stepped.voxel_observation_shape(), Some((5, 6)));
            assert_eq!(stepped.voxel_action_shape(), Some((5, 5)));
            let mut net = Mlp::new(sizes.clone(), weights.clone()).unwrap();
            while !stepped.is_finished() {
                let obs = stepped.voxel_observation().unwrap();
                let mut actions = Vec::new();
                for row in obs.chunks_exact(6) {
                    net.inputs_mut().copy_from_slice(row);
                    actions.extend_from_slice(net.forward());
                }
                stepped.step_voxels(&actions).unwrap();
            }
            let metrics = stepped.metrics();
            if compat == "default" {
                assert_eq!(metrics, reference);
            } else {
                // legacy-1.0 makes its first control call after step 0, while the stepped loop's first
                // observation is taken at t = 0: one physics step earlier, so the runs agree closely,
                // not bit for bit (as for any stepped legacy run).
                let rel = |a: f64, b: f64| (a - b).abs() / b.abs();
                assert!(
                    rel(metrics.robots[0].x_velocity, reference.robots[0].x_velocity) < 0.01,
                    "{metrics:?} vs {reference:?}"
                );
                assert!(rel(metrics.robots[0].control_effort, reference.robots[0].control_effort) < 1e-6);
            }
            assert!(reference.robots[0].x_velocity.abs() > 0.1, "{compat}: the robot moves: {reference:?}");
        }
    }

    #[test]
    fn per_voxel_observations_carry_the_neighbours_signals_and_shapes_are_checked() {
        let p = PerVoxel { signals: 2, directional: false };
        let layout: SensorLayout = serde_json::from_str(r#"{"default": [{"sensor": "touching"}]}"#).unwrap();
        let mut stepped = SteppedSimulation::with_per_voxel(scenario("", 0.5), Some(layout), Some(p)).unwrap();
        // Body ["###", "#.#"]: voxels (0,0), (2,0), (0,1), (1,1), (2,1).
        assert_eq!(stepped.voxel_observation_shape(), Some((5, 1 + 8)));
        assert_eq!(stepped.voxel_action_shape(), Some((5, 3)));
        assert!(matches!(stepped.step_voxels(&[0.0; 14]), Err(StepError::VoxelActionCount { got: 14, .. })));
        // Voxel k sends (k, -k) to all its neighbours.
        let actions: Vec<f64> = (0..5).flat_map(|k| [0.0, k as f64, -(k as f64)]).collect();
        stepped.step_voxels(&actions).unwrap();
        let obs = stepped.voxel_observation().unwrap();
        let row = |v: usize| obs[v * 9 + 1..(v + 1) * 9].to_vec();
        // (0,0) hears (0,1) = voxel 2 from N; nothing from E (empty cell), S, W.
        assert_eq!(row(0), [2.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        // (1,1) = voxel 3 hears nothing from N, voxel 4 from E, nothing from S (empty), voxel 2 from W.
        assert_eq!(row(3), [0.0, 0.0, 4.0, -4.0, 0.0, 0.0, 2.0, -2.0]);
        let plain = SteppedSimulation::new(scenario("", 0.5), None).unwrap();
        assert_eq!(plain.voxel_observation_shape(), None);
        // A non-finite signal is refused with its place and does not step; a NaN actuation is read as 0.
        let before = stepped.step_index();
        let mut bad = actions.clone();
        bad[3 * 3 + 2] = f64::INFINITY;
        let e = stepped.step_voxels(&bad).unwrap_err();
        assert!(matches!(e, StepError::NonFiniteSignal { voxel: 3, column: 2, .. }), "{e}");
        assert!(e.to_string().starts_with("actions[3, 2]"), "{e}");
        assert_eq!(stepped.step_index(), before);
        bad[3 * 3 + 2] = 0.0;
        bad[0] = f64::NAN;
        stepped.step_voxels(&bad).unwrap();
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
