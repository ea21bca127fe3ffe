//! Locomotion metrics (spec §10), computed by a snapshot listener.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::model::voxel::Morphology;
use crate::snapshot::{Flow, ListenerError, Progress, Snapshot, SnapshotListener};
use crate::task::TaskSpecError;

/// The `locomotion` task's fields.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocomotionSpec {
    /// Seconds left out at the start, s (default 0): every metric is measured from t0 = `transient` to
    /// the end, so a distance won by falling over or settling after placement does not count as gait.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transient: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl LocomotionSpec {
    /// `duration` is the world's: the transient must leave time to measure.
    pub fn validate(&self, duration: f64) -> Result<(), TaskSpecError> {
        let valid =
            self.transient == 0.0 || (self.transient.is_finite() && self.transient > 0.0 && self.transient < duration);
        if !valid {
            return Err(TaskSpecError::new(
                "transient",
                format!(
                    "{} s: give seconds in [0, world.duration = {} s)",
                    crate::geom::compact(self.transient),
                    crate::geom::compact(duration)
                ),
            ));
        }
        Ok(())
    }
}

/// The numeric behaviour metrics of every robot, by name: `/robots/<i>/<name>` in the result.
pub const BEHAVIOUR_METRICS: [&str; 8] = [
    "x_velocity",
    "relative_x_velocity",
    "center_avg_y",
    "control_effort",
    "control_change",
    "x_distance",
    "y_distance",
    "ground_contact",
];

/// The numeric morphology descriptors of every robot, by name: `/robots/<i>/morphology/<name>` in the
/// result (each material's fraction is at `/robots/<i>/morphology/materials/<key>`).
pub const MORPHOLOGY_DESCRIPTORS: [&str; 7] =
    ["voxels", "width", "height", "elongation", "compactness", "emptiness", "symmetry"];

/// The JSON pointer of robot `robot`'s behaviour metric or morphology descriptor `name` in the result
/// (`x_velocity` → `/robots/0/x_velocity`, `voxels` → `/robots/0/morphology/voxels`); `None` for other
/// names.
pub fn robot_metric_pointer(name: &str, robot: usize) -> Option<String> {
    if BEHAVIOUR_METRICS.contains(&name) {
        Some(format!("/robots/{robot}/{name}"))
    } else if MORPHOLOGY_DESCRIPTORS.contains(&name) {
        Some(format!("/robots/{robot}/morphology/{name}"))
    } else {
        None
    }
}

/// Metrics of one robot over a run: its behaviour (measured from the task's t0 to the end) and its
/// body's morphology (static, from the body grid at placement).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LocomotionMetrics {
    pub label: String,
    /// (x_c(T) − x_c(0)) / T, m/s.
    pub x_velocity: f64,
    /// x_velocity over the larger side of the bounding box at placement, body lengths per second.
    pub relative_x_velocity: f64,
    /// Mean centre height over steps 1…N, m.
    pub center_avg_y: f64,
    /// Mean over control calls and voxels of the squared clipped control value, in [0, 1]. Under
    /// `legacy-1.0`: Σ over control calls of f_raw²·dt per cell, averaged over all W·H cells.
    pub control_effort: f64,
    /// Mean over control calls 2…K and voxels of the squared change of the control value.
    pub control_change: f64,
    /// Distance travelled along x, m: x_c(T) − x_c(t0) of the centre.
    pub x_distance: f64,
    /// Vertical displacement of the centre, m: y_c(T) − y_c(t0) (negative for a robot that ends lower
    /// than it started: dropped, fallen over, or sunk into its legs' stance).
    pub y_distance: f64,
    /// Fraction of the measured steps after which some voxel of the robot touches the ground (the
    /// terrain, a wall or a fixed object; not another robot or a moving object), in [0, 1]: 1 for a
    /// walker that never leaves the ground, below 1 for one that hops or jumps.
    pub ground_contact: f64,
    /// Simulated time measured (from the task's `transient` t0 to the end), s.
    pub duration: f64,
    /// Steps measured (after t0).
    pub steps: u64,
    /// The body's morphology descriptors: static numbers of its body grid at placement, never of the
    /// physics (a soft cell has none: it is no voxel grid, and is reported under `cells`).
    pub morphology: Morphology,
}

impl LocomotionMetrics {
    /// The name of the first metric that is NaN or infinite (an unstable run, a controller dividing by
    /// zero), if any: such a value cannot be written as JSON and is no result.
    pub fn non_finite(&self) -> Option<&'static str> {
        [
            ("x_velocity", self.x_velocity),
            ("relative_x_velocity", self.relative_x_velocity),
            ("center_avg_y", self.center_avg_y),
            ("control_effort", self.control_effort),
            ("control_change", self.control_change),
            ("x_distance", self.x_distance),
            ("y_distance", self.y_distance),
            ("ground_contact", self.ground_contact),
            ("duration", self.duration),
        ]
        .into_iter()
        .find(|(_, v)| !v.is_finite())
        .map(|(name, _)| name)
    }
}

#[derive(Debug, Clone, Default)]
struct RobotAccumulator {
    label: String,
    x0: f64,
    y0: f64,
    size0: f64,
    x_last: f64,
    y_last: f64,
    y_sum: f64,
    /// Measured steps after which the robot touched the ground.
    grounded: u64,
    effort_sum: f64,
    legacy_effort_sum: f64,
    cells: usize,
    change_sum: f64,
    calls: u64,
    voxels: usize,
    previous: Vec<f64>,
}

/// Accumulates locomotion metrics for every robot of a world.
#[derive(Debug, Clone)]
pub(crate) struct LocomotionListener {
    control_period: u64,
    /// `legacy-1.0`: no control call at t = 0, and the released code's control effort.
    legacy: bool,
    robots: Vec<RobotAccumulator>,
    steps: u64,
    t: f64,
    /// The locomotion task's `transient`: metrics start at the first step at or after it.
    transient: f64,
    /// (step, t) where the measurement started (0, 0 without a transient).
    start: Option<(u64, f64)>,
    /// The robots' morphology descriptors, in creation order (static: see [`Self::with_morphologies`]).
    morphologies: Vec<Morphology>,
}

impl LocomotionListener {
    /// `control_interval` is c (the controller runs every c + 1 steps).
    pub fn new(control_interval: u32, legacy: bool) -> Self {
        LocomotionListener {
            control_period: control_interval as u64 + 1,
            legacy,
            robots: Vec::new(),
            steps: 0,
            t: 0.0,
            transient: 0.0,
            start: None,
            morphologies: Vec::new(),
        }
    }

    /// Reports `morphologies[i]` as robot i's morphology (a body without one reports the empty
    /// [`Morphology::default`]).
    pub(crate) fn with_morphologies(self, morphologies: Vec<Morphology>) -> Self {
        LocomotionListener { morphologies, ..self }
    }

    /// Measures from the first step at or after `transient` seconds (the `locomotion` task's option).
    pub(crate) fn with_transient(self, transient: f64) -> Self {
        LocomotionListener { transient, ..self }
    }

    /// Metrics per robot, in creation order.
    pub fn metrics(&self) -> Vec<LocomotionMetrics> {
        self.robots
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (step0, t0) = self.start.unwrap_or((0, 0.0));
                let duration = self.t - t0;
                let steps = self.steps - step0;
                let dx = r.x_last - r.x0;
                let x_velocity = if duration > 0.0 { dx / duration } else { 0.0 };
                let effort_norm = (r.calls as f64) * r.voxels as f64;
                let change_norm = (r.calls.saturating_sub(1) as f64) * r.voxels as f64;
                LocomotionMetrics {
                    label: r.label.clone(),
                    x_velocity,
                    relative_x_velocity: if r.size0 > 0.0 { x_velocity / r.size0 } else { 0.0 },
                    center_avg_y: if steps > 0 { r.y_sum / steps as f64 } else { 0.0 },
                    control_effort: if self.legacy {
                        r.legacy_effort_sum / r.cells.max(1) as f64
                    } else if effort_norm > 0.0 {
                        r.effort_sum / effort_norm
                    } else {
                        0.0
                    },
                    control_change: if change_norm > 0.0 { r.change_sum / change_norm } else { 0.0 },
                    x_distance: dx,
                    y_distance: r.y_last - r.y0,
                    ground_contact: if steps > 0 { r.grounded as f64 / steps as f64 } else { 0.0 },
                    duration,
                    steps,
                    morphology: self.morphologies.get(i).cloned().unwrap_or_default(),
                }
            })
            .collect()
    }
}

impl LocomotionListener {
    /// Starts a run from each body's label, centre, bounding box, actuators and grid at t = 0.
    pub(crate) fn begin(&mut self, run: &dyn Progress) {
        self.robots = (0..run.body_count())
            .map(|i| {
                let (centre, bbox) = run.centre_and_bbox(i);
                RobotAccumulator {
                    label: run.label(i).to_string(),
                    x0: centre.x,
                    x_last: centre.x,
                    y0: centre.y,
                    y_last: centre.y,
                    size0: bbox.width().max(bbox.height()),
                    voxels: run.actuators(i),
                    cells: run.grid_cells(i),
                    ..Default::default()
                }
            })
            .collect();
        self.start = (self.transient <= 0.0).then_some((0, 0.0));
    }

    /// Records the state after a step: each body's centre, and, after a control call, its clipped and
    /// raw control values (asked for only then).
    pub fn observe(&mut self, run: &dyn Progress) {
        let (step, t) = (run.step_index(), run.time());
        self.steps = step;
        self.t = t;
        if self.start.is_none() {
            if t < self.transient {
                return;
            }
            // t0: the state now is where the measurement starts (placement size stays the body length).
            self.start = Some((step, t));
            for (i, acc) in self.robots.iter_mut().enumerate() {
                let c = run.centre(i);
                (acc.x0, acc.x_last) = (c.x, c.x);
                (acc.y0, acc.y_last) = (c.y, c.y);
            }
            return;
        }
        // The state after step k carries the values of a control call made at step k.
        let k = step - 1;
        let control_call = k % self.control_period == 0 && !(self.legacy && k == 0);
        let dt = t / step as f64;
        for (i, acc) in self.robots.iter_mut().enumerate() {
            let c = run.centre(i);
            acc.x_last = c.x;
            acc.y_last = c.y;
            acc.y_sum += c.y;
            if run.touching_ground(i) {
                acc.grounded += 1;
            }
            if control_call {
                let (values, raw) = run.controls(i);
                acc.effort_sum += values.iter().map(|f| f * f).sum::<f64>();
                acc.legacy_effort_sum += raw.iter().map(|f| f * f * dt).sum::<f64>();
                if acc.calls > 0 {
                    acc.change_sum += values.iter().zip(&acc.previous).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
                }
                acc.previous = values;
                acc.calls += 1;
            }
        }
    }
}

impl SnapshotListener for LocomotionListener {
    fn on_snapshot(&mut self, s: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        if s.step == 0 {
            self.begin(&**s);
        } else {
            self.observe(&**s);
        }
        Ok(Flow::Continue)
    }
}
