//! Controllers (spec §9): the JSON specification, validation against a body, and the runtime objects
//! the simulation calls at every control step.
//!
//! ```json
//! {"type": "time_functions",
//!  "default": {"type": "expr", "expr": "sin(-2*pi*t + pi*x/w)"},
//!  "cells": [{"cell": [0, 0], "function": {"type": "constant", "value": 0.5}}]}
//!
//! {"type": "mlp",
//!  "sensors": {"default": [{"sensor": "area_ratio", "aggregate": "mean", "n": 5}],
//!              "cells": [{"cell": [0, 0], "features": [{"sensor": "touching"}]}]},
//!  "driver": {"type": "sin"},
//!  "hidden": [10],
//!  "weights": [0.1, -0.3, ...]}
//!
//! {"type": "distributed", "sensors": {"default": [{"sensor": "area_ratio"}]},
//!  "signals": 1, "hidden": [], "weights": [0.1, -0.3, ...]}
//! ```
//!
//! Error locations (`cells[2]`, `sensors.cells[0].features[1]`) are relative to the controller
//! object.

pub mod distributed;
pub mod expr;
pub mod external;
pub mod function;
pub(crate) mod history;
pub mod mlp;

use serde::{Deserialize, Serialize};

use crate::model::voxel::sensors::{SensorKind, SensorReadings};

pub use distributed::{distributed_layer_sizes, CellWeights, DistributedController, DistributedSpec, SignalBus};
pub use external::{ActionHandle, ExternalController};
pub use function::{CompiledFunction, FunctionError, TimeFunction};
use history::{History, MAX_HISTORY};
pub use mlp::{mlp_layer_sizes, weight_count, Mlp};

/// A grid cell `[x, y]` (y = 0 is the bottom row).
pub type Cell = [u32; 2];

/// A controller as written in a scenario, tagged by `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ControllerSpec {
    /// One time function per voxel: a default plus per-cell overrides.
    TimeFunctions(TimeFunctionsSpec),
    /// A centralized multi-layer perceptron over sensor features.
    Mlp(MlpSpec),
    /// One small MLP per voxel over its own features and its neighbours' signals.
    Distributed(DistributedSpec),
}

/// What [`ControllerSpec`] is read from: the same variants, externally tagged, so that an error inside
/// one is located at its field (see [`crate::tagged`]).
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum ControllerWire {
    TimeFunctions(TimeFunctionsSpec),
    Mlp(MlpSpec),
    Distributed(DistributedSpec),
}

impl<'de> Deserialize<'de> for ControllerSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match crate::tagged::deserialize(d, "type", None)? {
            ControllerWire::TimeFunctions(spec) => ControllerSpec::TimeFunctions(spec),
            ControllerWire::Mlp(spec) => ControllerSpec::Mlp(spec),
            ControllerWire::Distributed(spec) => ControllerSpec::Distributed(spec),
        })
    }
}

/// Open-loop control: every voxel follows its own f(t); a voxel with no function gets 0.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeFunctionsSpec {
    /// The function of every voxel that has no override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<TimeFunction>,
    /// Per-cell overrides; each cell must hold a voxel and appear at most once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellFunction>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellFunction {
    pub cell: Cell,
    pub function: TimeFunction,
}

/// The centralized MLP of spec §9b.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MlpSpec {
    /// Which features each voxel feeds to the network.
    #[serde(default)]
    pub sensors: SensorLayout,
    /// An optional driving function, evaluated at t with x = y = 0 and the grid's w, h; its value
    /// is the input after all the features.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<TimeFunction>,
    /// Hidden layer sizes (possibly none).
    #[serde(default)]
    pub hidden: Vec<usize>,
    /// θ: for each layer transition, for each source neuron (the bias last), for each destination.
    pub weights: Vec<f64>,
}

/// The features of every voxel: a default list plus per-cell overrides (which replace it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SensorLayout {
    #[serde(default)]
    pub default: Vec<Feature>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellFeatures>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellFeatures {
    pub cell: Cell,
    pub features: Vec<Feature>,
}

/// One network input: a sensor of the voxel, aggregated over its readings history (spec §8).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Feature {
    pub sensor: SensorKind,
    #[serde(default)]
    pub aggregate: Aggregate,
    /// Window length in control steps (≥ 1); `current` ignores it.
    #[serde(default = "one")]
    pub n: usize,
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// s(t).
    #[default]
    Current,
    /// The mean of the last n readings.
    Mean,
    /// s(t) − s(t − (n − 1)·Δt_c); diff(1) = 0.
    Diff,
}

impl Feature {
    /// The history length this feature needs.
    fn window(&self) -> usize {
        match self.aggregate {
            Aggregate::Current => 1,
            Aggregate::Mean | Aggregate::Diff => self.n,
        }
    }
}

/// Why a controller cannot be built for a body. Locations are relative to the controller object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ControllerError {
    #[error("{location}: {error}")]
    Function { location: String, error: FunctionError },
    #[error("{location}: cell [{}, {}] holds no voxel", .cell[0], .cell[1])]
    NoVoxel { location: String, cell: Cell },
    #[error("{location}: cell [{}, {}] is already overridden by {first}", .cell[0], .cell[1])]
    DuplicateCell { location: String, first: String, cell: Cell },
    #[error("{location}: n must be at least 1 for aggregate '{aggregate}'")]
    ZeroWindow { location: String, aggregate: &'static str },
    #[error("{location}: n = {n} is larger than the maximum history of {MAX_HISTORY} readings")]
    WindowTooLong { location: String, n: usize },
    #[error("hidden[{index}]: a hidden layer needs at least 1 neuron")]
    EmptyHiddenLayer { index: usize },
    #[error(
        "expected {expected} weights for layer sizes {sizes:?}, got {got} ({}; the input layer is \
         {features} sensor features + {driver} driving value + 1 bias)",
        formula(.sizes)
    )]
    WeightCount { expected: usize, got: usize, sizes: Vec<usize>, features: usize, driver: usize },
    #[error("weights[{index}] must be a finite number, got {value}")]
    NonFiniteWeight { index: usize, value: f64 },
    #[error("invalid body for the controller: {0}")]
    Body(String),
    #[error("{location}: {message}")]
    Invalid { location: String, message: String },
}

/// "22×10 + 10×6" for sizes [22, 10, 6].
fn formula(sizes: &[usize]) -> String {
    let terms: Vec<String> = sizes.windows(2).map(|w| format!("{}×{}", w[0], w[1])).collect();
    terms.join(" + ")
}

/// A running controller: called at every control step of its robot.
pub trait Controller: Send {
    /// Pushes `readings` (one per voxel, grid order) into the histories it keeps, then writes one
    /// raw control value per voxel into `outputs` (the simulation clips them and maps NaN to 0).
    fn control(&mut self, t: f64, readings: &[SensorReadings], outputs: &mut [f64]);

    /// The last inputs and outputs, for snapshots that ask for them.
    fn io(&self) -> Option<ControllerIo> {
        None
    }

    /// Whether `control` reads its `readings`; when false the simulation skips computing sensors.
    fn needs_sensors(&self) -> bool {
        true
    }
}

/// A controller given as a closure (tests, scripted experiments).
pub struct FnController<F>(pub F);

impl<F: FnMut(f64, &[SensorReadings], &mut [f64]) + Send> Controller for FnController<F> {
    fn control(&mut self, t: f64, readings: &[SensorReadings], outputs: &mut [f64]) {
        (self.0)(t, readings, outputs)
    }
}

/// The voxel cells of a body, checked to be inside the grid and in grid order.
struct Body<'a> {
    cells: &'a [Cell],
}

impl<'a> Body<'a> {
    fn new(cells: &'a [Cell], grid: [u32; 2]) -> Result<Body<'a>, ControllerError> {
        for (i, c) in cells.iter().enumerate() {
            if c[0] >= grid[0] || c[1] >= grid[1] {
                return Err(ControllerError::Body(format!(
                    "cell [{}, {}] lies outside the {}×{} grid",
                    c[0], c[1], grid[0], grid[1]
                )));
            }
            if i > 0 && order_key(cells[i - 1]) >= order_key(*c) {
                return Err(ControllerError::Body(format!(
                    "cells are not in grid order (strictly increasing y·w + x) at cell [{}, {}]",
                    c[0], c[1]
                )));
            }
        }
        Ok(Body { cells })
    }

    fn index_of(&self, cell: Cell) -> Option<usize> {
        self.cells.binary_search_by_key(&order_key(cell), |c| order_key(*c)).ok()
    }

    /// For each voxel, the index of the override that applies to it. Refuses overrides of empty
    /// cells and cells overridden twice; `location(i)` names override i in errors.
    fn resolve_overrides(
        &self,
        overrides: impl Iterator<Item = Cell>,
        location: impl Fn(usize) -> String,
    ) -> Result<Vec<Option<usize>>, ControllerError> {
        let mut by_voxel = vec![None; self.cells.len()];
        for (i, cell) in overrides.enumerate() {
            let v = self.index_of(cell).ok_or_else(|| ControllerError::NoVoxel { location: location(i), cell })?;
            if let Some(first) = by_voxel[v] {
                return Err(ControllerError::DuplicateCell { location: location(i), first: location(first), cell });
            }
            by_voxel[v] = Some(i);
        }
        Ok(by_voxel)
    }
}

/// Grid order: row-major from the bottom row (the linear index y·W + x, without needing W).
fn order_key(c: Cell) -> (u32, u32) {
    (c[1], c[0])
}

impl ControllerSpec {
    /// Builds the runtime controller for a body whose voxels occupy `cells` (grid order) in a grid
    /// of size `grid` = [w, h].
    pub fn build(&self, cells: &[Cell], grid: [u32; 2]) -> Result<Box<dyn Controller>, ControllerError> {
        Ok(match self {
            ControllerSpec::TimeFunctions(s) => Box::new(s.build(cells, grid)?),
            ControllerSpec::Mlp(s) => Box::new(s.build(cells, grid)?),
            ControllerSpec::Distributed(s) => Box::new(s.build(cells, grid)?),
        })
    }

    /// The number of weights an MLP needs on this body (`None` for time functions; for a
    /// distributed controller, all its voxels' networks together when heterogeneous, one otherwise).
    pub fn expected_weight_count(&self, cells: &[Cell], grid: [u32; 2]) -> Result<Option<usize>, ControllerError> {
        match self {
            ControllerSpec::TimeFunctions(_) => Ok(None),
            ControllerSpec::Mlp(s) => Ok(Some(weight_count(&s.layer_sizes(cells, grid)?))),
            ControllerSpec::Distributed(s) => {
                let counts = s.weight_counts(cells, grid)?;
                Ok(Some(if s.weights.is_some() { counts.first().copied().unwrap_or(0) } else { counts.iter().sum() }))
            }
        }
    }
}

impl TimeFunctionsSpec {
    pub fn build(&self, cells: &[Cell], grid: [u32; 2]) -> Result<TimeFunctionsController, ControllerError> {
        let body = Body::new(cells, grid)?;
        let location = |i: usize| format!("cells[{i}]");
        let overrides = body.resolve_overrides(self.cells.iter().map(|c| c.cell), location)?;
        let compile = |f: &TimeFunction, location: String| {
            f.compile().map_err(|error| ControllerError::Function { location, error })
        };
        let default = self.default.as_ref().map(|f| compile(f, "default".into())).transpose()?;
        let compiled: Vec<CompiledFunction> = self
            .cells
            .iter()
            .enumerate()
            .map(|(i, c)| compile(&c.function, format!("cells[{i}].function")))
            .collect::<Result<_, _>>()?;
        let functions = cells
            .iter()
            .zip(&overrides)
            .map(|(&cell, o)| {
                let f = o.map(|i| &compiled[i]).or(default.as_ref())?;
                Some(f.for_cell(cell, grid))
            })
            .collect();
        Ok(TimeFunctionsController { functions, cells: cells.to_vec(), grid, last: vec![0.0; cells.len()] })
    }
}

/// The runtime form of [`TimeFunctionsSpec`].
#[derive(Debug, Clone)]
pub struct TimeFunctionsController {
    /// Per voxel in grid order; `None` outputs 0.
    functions: Vec<Option<CompiledFunction>>,
    cells: Vec<Cell>,
    grid: [u32; 2],
    last: Vec<f64>,
}

impl Controller for TimeFunctionsController {
    fn control(&mut self, t: f64, _readings: &[SensorReadings], outputs: &mut [f64]) {
        for (((out, f), &cell), last) in outputs.iter_mut().zip(&self.functions).zip(&self.cells).zip(&mut self.last) {
            *out = f.as_ref().map_or(0.0, |f| f.eval(t, cell, self.grid));
            *last = *out;
        }
    }

    fn io(&self) -> Option<ControllerIo> {
        Some(ControllerIo { inputs: Vec::new(), outputs: self.last.clone(), signals: None })
    }

    fn needs_sensors(&self) -> bool {
        false
    }
}

impl SensorLayout {
    /// The features of each voxel (grid order), after validating the layout against the body.
    /// Locations in errors start with "sensors.".
    fn per_voxel<'s>(&'s self, body: &Body) -> Result<Vec<&'s [Feature]>, ControllerError> {
        let cells = &self.cells;
        let location = |i: usize| format!("sensors.cells[{i}]");
        let overrides = body.resolve_overrides(cells.iter().map(|c| c.cell), location)?;
        let lists = std::iter::once(("sensors.default".to_string(), &self.default))
            .chain(cells.iter().enumerate().map(|(i, c)| (format!("sensors.cells[{i}].features"), &c.features)));
        for (list, features) in lists {
            for (j, f) in features.iter().enumerate() {
                let location = || format!("{list}[{j}]");
                let aggregate = match f.aggregate {
                    Aggregate::Current => continue,
                    Aggregate::Mean => "mean",
                    Aggregate::Diff => "diff",
                };
                if f.n == 0 {
                    return Err(ControllerError::ZeroWindow { location: location(), aggregate });
                }
                if f.n > MAX_HISTORY {
                    return Err(ControllerError::WindowTooLong { location: location(), n: f.n });
                }
            }
        }
        Ok(overrides.iter().map(|o| o.map_or(self.default.as_slice(), |i| cells[i].features.as_slice())).collect())
    }

    /// The number of features this layout gives on a body whose voxels occupy `cells` (grid order).
    pub(crate) fn feature_count(&self, cells: &[Cell], grid: [u32; 2]) -> Result<usize, ControllerError> {
        Ok(self.per_voxel(&Body::new(cells, grid)?)?.iter().map(|f| f.len()).sum())
    }

    /// The runtime feature extractor of this layout on a body.
    pub fn build(&self, cells: &[Cell], grid: [u32; 2]) -> Result<SensorFeatures, ControllerError> {
        let per_voxel = self.per_voxel(&Body::new(cells, grid)?)?;
        // One history per (voxel, sensor) used, as long as the longest window over it.
        let mut histories: Vec<(usize, SensorKind, History)> = Vec::new();
        let mut inputs = Vec::new();
        for (voxel, features) in per_voxel.iter().enumerate() {
            let first = histories.len();
            for f in features.iter() {
                let slot = match histories[first..].iter().position(|(_, k, _)| *k == f.sensor) {
                    Some(p) => first + p,
                    None => {
                        histories.push((voxel, f.sensor, History::new(1)));
                        histories.len() - 1
                    }
                };
                let h = &mut histories[slot].2;
                if f.window() > h.capacity() {
                    *h = History::new(f.window());
                }
                inputs.push(Input { history: slot, aggregate: f.aggregate, n: f.n });
            }
        }
        Ok(SensorFeatures { histories, inputs })
    }

    /// Every sensor's current reading for every voxel (the observation of a body whose controller
    /// names no layout).
    pub fn every_sensor() -> SensorLayout {
        let default =
            SensorKind::ALL.iter().map(|&sensor| Feature { sensor, aggregate: Aggregate::Current, n: 1 }).collect();
        SensorLayout { default, cells: Vec::new() }
    }
}

/// A [`SensorLayout`] at run time: the readings histories it needs and how each feature aggregates
/// them. Feeds the MLP controller, and observations of bodies driven from outside.
#[derive(Debug, Clone)]
pub struct SensorFeatures {
    /// (voxel, sensor, readings) for every pair some feature reads.
    histories: Vec<(usize, SensorKind, History)>,
    inputs: Vec<Input>,
}

impl SensorFeatures {
    /// The number of features.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// The number of features of each of `voxels` voxels (they are written voxel after voxel, in grid
    /// order).
    pub(crate) fn counts_per_voxel(&self, voxels: usize) -> Vec<usize> {
        let mut counts = vec![0; voxels];
        for input in &self.inputs {
            if let Some(c) = counts.get_mut(self.histories[input.history].0) {
                *c += 1;
            }
        }
        counts
    }

    /// Records one control step's readings (one per voxel, grid order).
    pub fn push(&mut self, readings: &[SensorReadings]) {
        for (voxel, kind, h) in &mut self.histories {
            // A missing reading (a caller bug) reads as 0 rather than panicking.
            h.push(readings.get(*voxel).map_or(0.0, |r| r.get(*kind)));
        }
    }

    /// The smallest and largest value of each feature, in layout order: a mean stays within its
    /// sensor's range [lo, hi], a difference within [lo − hi, hi − lo].
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        self.inputs
            .iter()
            .map(|input| {
                let (lo, hi) = self.histories[input.history].1.range();
                match input.aggregate {
                    Aggregate::Current | Aggregate::Mean => (lo, hi),
                    Aggregate::Diff => (lo - hi, hi - lo),
                }
            })
            .collect()
    }

    /// Writes the features, in layout order, into `out` (as many as both hold).
    pub fn write(&self, out: &mut [f64]) {
        for (slot, input) in out.iter_mut().zip(&self.inputs) {
            let h = &self.histories[input.history].2;
            *slot = match input.aggregate {
                Aggregate::Current => h.current(),
                Aggregate::Mean => h.mean(input.n),
                Aggregate::Diff => h.diff(input.n),
            };
        }
    }
}

impl MlpSpec {
    /// Layer sizes n₀ … n_{L+1} on this body (n₀ counts the driving input and the bias).
    pub(crate) fn layer_sizes(&self, cells: &[Cell], grid: [u32; 2]) -> Result<Vec<usize>, ControllerError> {
        let features = self.sensors.feature_count(cells, grid)?;
        Ok(mlp_layer_sizes(features, self.driver.is_some(), &self.hidden, cells.len()))
    }

    pub fn build(&self, cells: &[Cell], grid: [u32; 2]) -> Result<MlpController, ControllerError> {
        let features = self.sensors.build(cells, grid)?;
        if let Some(index) = self.hidden.iter().position(|&n| n == 0) {
            return Err(ControllerError::EmptyHiddenLayer { index });
        }
        let driver = match &self.driver {
            Some(f) => Some(
                f.compile()
                    .map_err(|error| ControllerError::Function { location: "driver".into(), error })?
                    .for_cell([0, 0], grid),
            ),
            None => None,
        };
        let n_features = features.len();
        let sizes = mlp_layer_sizes(n_features, driver.is_some(), &self.hidden, cells.len());
        // n₀ ≥ 1 (the bias) and there are at least two layers, so only the count can be wrong.
        let Some(net) = Mlp::new(sizes.clone(), self.weights.clone()) else {
            return Err(ControllerError::WeightCount {
                expected: weight_count(&sizes),
                got: self.weights.len(),
                sizes,
                features: n_features,
                driver: driver.is_some() as usize,
            });
        };
        if let Some((index, &value)) = self.weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
            return Err(ControllerError::NonFiniteWeight { index, value });
        }
        Ok(MlpController { features, driver, grid, net })
    }
}

/// One network input: which history and how to aggregate it.
#[derive(Debug, Clone, Copy)]
struct Input {
    history: usize,
    aggregate: Aggregate,
    n: usize,
}

/// The runtime form of [`MlpSpec`]; all buffers are allocated at build time.
#[derive(Debug, Clone)]
pub struct MlpController {
    features: SensorFeatures,
    driver: Option<CompiledFunction>,
    grid: [u32; 2],
    net: Mlp,
}

impl MlpController {
    /// The network, e.g. to inspect hidden activations.
    pub fn net(&self) -> &Mlp {
        &self.net
    }
}

impl Controller for MlpController {
    fn control(&mut self, t: f64, readings: &[SensorReadings], outputs: &mut [f64]) {
        self.features.push(readings);
        let slots = self.net.inputs_mut();
        self.features.write(slots);
        if let Some(f) = &self.driver {
            // The driving value is the last input before the bias.
            if let Some(last) = slots.last_mut() {
                *last = f.eval(t, [0, 0], self.grid);
            }
        }
        for (out, y) in outputs.iter_mut().zip(self.net.forward()) {
            *out = *y;
        }
    }

    fn io(&self) -> Option<ControllerIo> {
        Some(ControllerIo { inputs: self.net.layer(0).to_vec(), outputs: self.net.outputs().to_vec(), signals: None })
    }
}

/// The controller's last inputs and outputs (optional snapshot content).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ControllerIo {
    pub inputs: Vec<f64>,
    pub outputs: Vec<f64>,
    /// The signals a distributed controller's voxels sent at the last call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<SignalsIo>,
}

/// What every voxel of a distributed controller sent at its last call, towards each side.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SignalsIo {
    /// Values per side.
    pub per_side: usize,
    /// Voxels in grid order, for each its sides N, E, S, W, for each side `per_side` values (a
    /// non-directional controller's one vector is listed on every side).
    pub sent: Vec<f64>,
}

impl SignalsIo {
    /// The values voxel `v` sent towards `side` (0 N, 1 E, 2 S, 3 W); empty if out of range.
    pub fn side(&self, v: usize, side: usize) -> &[f64] {
        let start = (4 * v + side) * self.per_side;
        self.sent.get(start..start + self.per_side).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> ControllerSpec {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}\n{json}"))
    }

    /// All cells of a full w×h grid, in grid order.
    fn full(w: u32, h: u32) -> Vec<Cell> {
        (0..h).flat_map(|y| (0..w).map(move |x| [x, y])).collect()
    }

    fn readings(area_ratio: f64) -> SensorReadings {
        SensorReadings { area_ratio, ..SensorReadings::default() }
    }

    /// Paper example 1: a 2×3 body (6 voxels), 3 mean(5) features each, `touching` on the two
    /// bottom voxels, a driving sine, one hidden layer of 10.
    fn example_1(weights: usize) -> String {
        let default = r#"[{"sensor":"area_ratio","aggregate":"mean","n":5},
                          {"sensor":"x_rot_velocity","aggregate":"mean","n":5},
                          {"sensor":"y_rot_velocity","aggregate":"mean","n":5}]"#;
        let bottom = r#"[{"sensor":"area_ratio","aggregate":"mean","n":5},
                         {"sensor":"x_rot_velocity","aggregate":"mean","n":5},
                         {"sensor":"y_rot_velocity","aggregate":"mean","n":5},
                         {"sensor":"touching","aggregate":"current"}]"#;
        format!(
            r#"{{"type":"mlp","sensors":{{"default":{default},"cells":[
                {{"cell":[0,0],"features":{bottom}}},{{"cell":[1,0],"features":{bottom}}}]}},
               "driver":{{"type":"sin"}},"hidden":[10],"weights":{:?}}}"#,
            vec![0.01; weights]
        )
    }

    #[test]
    fn paper_example_1_needs_280_weights() {
        let cells = full(2, 3);
        let s = spec(&example_1(280));
        assert_eq!(s.expected_weight_count(&cells, [2, 3]).unwrap(), Some(280));
        let ControllerSpec::Mlp(m) = &s else { panic!() };
        assert_eq!(m.layer_sizes(&cells, [2, 3]).unwrap(), vec![22, 10, 6]);
        let mut c = s.build(&cells, [2, 3]).unwrap();
        let mut out = vec![9.0; 6];
        c.control(0.0, &[readings(1.0); 6], &mut out);
        assert!(out.iter().all(|o| o.abs() < 1.0 && *o != 9.0));
        assert_eq!(c.io().unwrap().inputs.len(), 22);

        let err = spec(&example_1(279)).build(&cells, [2, 3]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "expected 280 weights for layer sizes [22, 10, 6], got 279 (22×10 + 10×6; the input layer \
             is 20 sensor features + 1 driving value + 1 bias)"
        );
    }

    #[test]
    fn paper_example_2_weight_counts() {
        let features = r#"[{"sensor":"area_ratio","aggregate":"mean","n":5},
                           {"sensor":"area_ratio","aggregate":"diff","n":5},
                           {"sensor":"x_rot_velocity","aggregate":"mean","n":5},
                           {"sensor":"x_rot_velocity","aggregate":"diff","n":5},
                           {"sensor":"y_rot_velocity","aggregate":"mean","n":5},
                           {"sensor":"y_rot_velocity","aggregate":"diff","n":5}]"#;
        for (w, expected) in [(2, 104), (3, 228), (4, 400)] {
            let cells = full(w, 2);
            let n = cells.len();
            assert_eq!((6 * n + 2) * n, expected);
            let json = format!(
                r#"{{"type":"mlp","sensors":{{"default":{features}}},"driver":{{"type":"sin"}},"weights":{:?}}}"#,
                vec![0.0; expected]
            );
            let s = spec(&json);
            assert_eq!(s.expected_weight_count(&cells, [w, 2]).unwrap(), Some(expected));
            assert!(s.build(&cells, [w, 2]).is_ok());
        }
    }

    #[test]
    fn paper_example_3_numeric_check() {
        let s = r#"{"type":"mlp","sensors":{"default":[{"sensor":"area_ratio"}]},"hidden":[2],
                    "weights":[1, 0, 1, 2, 1, -1]}"#;
        let ControllerSpec::Mlp(m) = spec(s) else { panic!() };
        let mut c = m.build(&[[0, 0]], [1, 1]).unwrap();
        assert_eq!(c.net().sizes(), &[2, 2, 1]);
        let mut out = [0.0];
        c.control(0.0, &[readings(2.0)], &mut out);
        let hidden = c.net().layer(1);
        assert!((hidden[0] - 0.995055).abs() < 1e-6, "{hidden:?}");
        assert!((hidden[1] - 0.964028).abs() < 1e-6, "{hidden:?}");
        assert!((out[0] - 0.031017).abs() < 1e-6, "{out:?}");
        // Through the public trait object as well.
        let mut boxed = spec(s).build(&[[0, 0]], [1, 1]).unwrap();
        let mut out2 = [0.0];
        boxed.control(0.0, &[readings(2.0)], &mut out2);
        assert_eq!(out2, out);
        assert_eq!(boxed.io().unwrap(), ControllerIo { inputs: vec![2.0, 1.0], outputs: out.to_vec(), signals: None });
    }

    /// With identity-like weights and no hidden layer, each output is tanh(feature), so the
    /// features can be read back through `io().inputs`.
    #[test]
    fn features_follow_history_semantics() {
        let s = r#"{"type":"mlp","sensors":{"default":[
                      {"sensor":"area_ratio","aggregate":"current","n":7},
                      {"sensor":"area_ratio","aggregate":"mean","n":3},
                      {"sensor":"area_ratio","aggregate":"diff","n":3},
                      {"sensor":"area_ratio","aggregate":"diff","n":1},
                      {"sensor":"touching","aggregate":"mean","n":2}]},
                    "weights":[0, 0, 0, 0, 0, 0]}"#;
        let ControllerSpec::Mlp(m) = spec(s) else { panic!() };
        let mut c = m.build(&[[0, 0]], [1, 1]).unwrap();
        // Two histories (area_ratio of length 3, touching of length 2), not one per feature.
        assert_eq!(c.features.histories.len(), 2);
        assert_eq!(c.features.histories[0].2.capacity(), 3);
        let mut out = [0.0];
        let mut inputs = Vec::new();
        for (a, touching) in [(1.0, 0.0), (2.0, 1.0), (4.0, 1.0), (8.0, 0.0)] {
            let r = SensorReadings { area_ratio: a, touching, ..SensorReadings::default() };
            c.control(0.0, &[r], &mut out);
            inputs.push(c.io().unwrap().inputs);
        }
        // current, mean(3), diff(3), diff(1), mean(2) of touching, bias.
        assert_eq!(inputs[0], vec![1.0, 1.0, 0.0, 0.0, 0.0, 1.0]); // first push fills
        assert_eq!(inputs[1], vec![2.0, 4.0 / 3.0, 1.0, 0.0, 0.5, 1.0]);
        assert_eq!(inputs[2], vec![4.0, 7.0 / 3.0, 3.0, 0.0, 1.0, 1.0]);
        assert_eq!(inputs[3], vec![8.0, 14.0 / 3.0, 6.0, 0.0, 0.5, 1.0]);
    }

    #[test]
    fn driver_is_the_input_before_the_bias() {
        let s = r#"{"type":"mlp","sensors":{"default":[{"sensor":"x_velocity"}]},
                    "driver":{"type":"expr","expr":"10*t + w"},"weights":[0, 0, 0, 0, 0, 0, 0, 0]}"#;
        let mut c = spec(s).build(&[[0, 0], [1, 0]], [2, 1]).unwrap();
        let r = [SensorReadings { x_velocity: 3.0, ..Default::default() }, SensorReadings::default()];
        let mut out = [5.0, 5.0];
        c.control(0.5, &r, &mut out);
        assert_eq!(c.io().unwrap().inputs, vec![3.0, 0.0, 7.0, 1.0]);
        assert_eq!(out, [0.0, 0.0]);
    }

    #[test]
    fn time_functions_default_overrides_and_zero() {
        let s = spec(
            r#"{"type":"time_functions","default":{"type":"expr","expr":"sin(-2*pi*t + pi*x/w)"},
                "cells":[{"cell":[1,1],"function":{"type":"constant","value":0.5}}]}"#,
        );
        let cells = [[0, 0], [1, 0], [1, 1]];
        let mut c = s.build(&cells, [2, 2]).unwrap();
        let mut out = [0.0; 3];
        for t in [0.0, 0.3, 1.7] {
            c.control(t, &[SensorReadings::default(); 3], &mut out);
            for (x, o) in out[..2].iter().enumerate() {
                let want = TimeFunction::travelling_wave(x as u32, 2).compile().unwrap().eval(t, [x as u32, 0], [2, 2]);
                assert!((o - want).abs() < 1e-12);
            }
            assert_eq!(out[2], 0.5);
            assert_eq!(c.io().unwrap().outputs, out.to_vec());
        }
        // No default: voxels without an override get 0.
        let s = spec(r#"{"type":"time_functions","cells":[{"cell":[1,0],"function":{"type":"sin","offset":2}}]}"#);
        let mut c = s.build(&cells, [2, 2]).unwrap();
        let mut out = [9.0; 3];
        c.control(0.0, &[SensorReadings::default(); 3], &mut out);
        assert_eq!(out, [0.0, 2.0, 0.0]);
        assert_eq!(s.expected_weight_count(&cells, [2, 2]).unwrap(), None);
    }

    #[test]
    fn build_errors_name_the_place() {
        let cells = [[0, 0], [1, 0]];
        let err = |json: &str| spec(json).build(&cells, [2, 1]).err().expect(json).to_string();
        assert_eq!(
            err(r#"{"type":"time_functions","cells":[{"cell":[0,0],"function":{"type":"sin"}},
                    {"cell":[0,1],"function":{"type":"sin"}}]}"#),
            "cells[1]: cell [0, 1] holds no voxel"
        );
        assert_eq!(
            err(r#"{"type":"time_functions","cells":[{"cell":[1,0],"function":{"type":"sin"}},
                    {"cell":[1,0],"function":{"type":"sin"}}]}"#),
            "cells[1]: cell [1, 0] is already overridden by cells[0]"
        );
        assert_eq!(
            err(r#"{"type":"time_functions","default":{"type":"expr","expr":"sin(2*pi*t"}}"#),
            "default: expr function: expected ')' at position 10 in \"sin(2*pi*t\""
        );
        assert_eq!(
            err(r#"{"type":"time_functions","cells":[{"cell":[1,0],"function":{"type":"expr","expr":"2*q"}}]}"#)
                .split(" (")
                .next()
                .unwrap(),
            "cells[0].function: expr function: unknown identifier 'q'"
        );
        assert_eq!(
            err(r#"{"type":"mlp","sensors":{"cells":[{"cell":[1,0],"features":[
                    {"sensor":"angle","aggregate":"diff","n":0}]}]},"weights":[]}"#),
            "sensors.cells[0].features[0]: n must be at least 1 for aggregate 'diff'"
        );
        assert!(err(r#"{"type":"mlp","sensors":{"default":[{"sensor":"angle","aggregate":"mean","n":1000000000}]},
                       "weights":[]}"#)
        .starts_with("sensors.default[0]: n = 1000000000 is larger"));
        assert_eq!(
            err(r#"{"type":"mlp","sensors":{"cells":[{"cell":[2,0],"features":[]}]},"weights":[]}"#),
            "sensors.cells[0]: cell [2, 0] holds no voxel"
        );
        assert_eq!(
            err(r#"{"type":"mlp","driver":{"type":"expr","expr":"min(t)"},"weights":[]}"#),
            "driver: expr function: function 'min' takes 2 arguments, got 1 at position 0 in \"min(t)\""
        );
        assert_eq!(
            err(r#"{"type":"mlp","hidden":[3,0],"weights":[]}"#),
            "hidden[1]: a hidden layer needs at least 1 neuron"
        );
        let mut bad = spec(r#"{"type":"mlp","weights":[0, 0]}"#);
        assert!(bad.build(&cells, [2, 1]).is_ok());
        if let ControllerSpec::Mlp(m) = &mut bad {
            m.weights[1] = f64::NAN;
        }
        assert_eq!(bad.build(&cells, [2, 1]).err().unwrap().to_string(), "weights[1] must be a finite number, got NaN");
        // `current` ignores n, even 0.
        assert!(spec(r#"{"type":"mlp","sensors":{"default":[{"sensor":"angle","n":0}]},"weights":[0,0,0,0,0,0]}"#)
            .build(&cells, [2, 1])
            .is_ok());
        // Cells handed over by the simulation must be in grid order and inside the grid.
        let s = spec(r#"{"type":"time_functions"}"#);
        assert!(matches!(s.build(&[[1, 0], [0, 0]], [2, 1]), Err(ControllerError::Body(_))));
        assert!(matches!(s.build(&[[2, 0]], [2, 1]), Err(ControllerError::Body(_))));
    }

    #[test]
    fn serde_rejects_unknown_fields_and_sensors() {
        let e = |json: &str| serde_json::from_str::<ControllerSpec>(json).unwrap_err().to_string();
        assert!(e(r#"{"type":"time_functions","defualt":{"type":"sin"}}"#).contains("unknown field `defualt`"));
        assert!(e(r#"{"type":"mlp","weights":[],"hiden":[2]}"#).contains("unknown field `hiden`"));
        assert!(e(r#"{"type":"mlp","weights":[],"sensors":{"default":[{"sensor":"angle","agg":"mean"}]}}"#)
            .contains("unknown field `agg`"));
        let msg = e(r#"{"type":"mlp","weights":[],"sensors":{"default":[{"sensor":"pressure"}]}}"#);
        assert!(msg.contains("unknown variant `pressure`") && msg.contains("area_ratio"), "{msg}");
        assert!(e(r#"{"type":"mlp","weights":[],"sensors":{"default":[{"sensor":"angle","aggregate":"median"}]}}"#)
            .contains("unknown variant `median`"));
        assert!(e(r#"{"type":"neat"}"#).contains("neat"));
        assert!(e(r#"{"type":"mlp"}"#).contains("missing field `weights`"));
    }

    #[test]
    fn serde_defaults_and_round_trip() {
        let s = spec(r#"{"type":"mlp","sensors":{"default":[{"sensor":"touching"}]},"weights":[]}"#);
        let ControllerSpec::Mlp(m) = &s else { panic!() };
        assert_eq!(
            m.sensors.default,
            vec![Feature { sensor: SensorKind::Touching, aggregate: Aggregate::Current, n: 1 }]
        );
        assert_eq!((m.driver.clone(), m.hidden.clone()), (None, vec![]));
        let t = spec(r#"{"type":"time_functions"}"#);
        assert_eq!(t, ControllerSpec::TimeFunctions(TimeFunctionsSpec::default()));
        for s in [s, t, spec(&example_1(280))] {
            let back: ControllerSpec = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
            assert_eq!(back, s);
        }
    }

    #[test]
    fn json_schema_lists_both_forms() {
        let schema = serde_json::to_string(&schemars::schema_for!(ControllerSpec)).unwrap();
        for word in [
            "time_functions",
            "mlp",
            "weights",
            "aggregate",
            "x_rot_velocity",
            "frequency",
            "distributed",
            "directional",
            "signals",
        ] {
            assert!(schema.contains(word), "schema lacks {word}");
        }
    }

    #[test]
    fn controllers_are_send() {
        fn send<T: Send>() {}
        send::<Box<dyn Controller>>();
        send::<MlpController>();
        send::<TimeFunctionsController>();
    }
}
