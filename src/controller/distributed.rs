//! The distributed controller (after 2D-VSR-Sim's `DistributedSensing`; Medvet et al., GECCO 2020):
//! every voxel runs a small MLP on its own sensor features plus the signals its four neighbours sent
//! it at the previous control call, and outputs its actuation plus the signals it sends back.
//!
//! ```json
//! {"type": "distributed",
//!  "sensors": {"default": [{"sensor": "area_ratio"}, {"sensor": "touching"}]},
//!  "signals": 1, "directional": true, "hidden": [],
//!  "weights": [0.1, -0.3, ...]}
//! ```
//!
//! Per voxel, the network's inputs are its features (layout order), then `signals` values received
//! from each neighbour in the order N, E, S, W (0 where there is no neighbour), then the bias; its
//! outputs are the actuation, then `signals` values per direction N, E, S, W (`directional`), or one
//! vector of `signals` values sent to every neighbour (`"directional": false`). What a voxel sends at
//! control call k its neighbour reads at call k + 1. `weights` is one vector shared by every voxel
//! (homogeneous); `cells` gives one per voxel instead (heterogeneous).

use serde::{Deserialize, Deserializer, Serialize};

use super::mlp::{weight_count, Mlp};
use super::{formula, Body, Cell, Controller, ControllerError, ControllerIo, SensorFeatures, SensorLayout, SignalsIo};
use crate::model::voxel::sensors::SensorReadings;

/// The four sides of a voxel, in the order signals are listed: N, E, S, W.
pub const SIDES: [&str; 4] = ["N", "E", "S", "W"];
/// The neighbouring cell of each side, as a grid offset.
const OFFSETS: [[i64; 2]; 4] = [[0, 1], [1, 0], [0, -1], [-1, 0]];

/// The side facing `side` across a shared edge (N ↔ S, E ↔ W).
fn opposite(side: usize) -> usize {
    (side + 2) % 4
}

/// The distributed controller as written in a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DistributedSpec {
    /// Which features each voxel feeds to its own network (the MLP controller's layout).
    #[serde(default)]
    pub sensors: SensorLayout,
    /// Signal values per direction (a whole number ≥ 0; default 1).
    #[serde(default = "one", deserialize_with = "signal_count")]
    #[schemars(with = "u32")]
    pub signals: usize,
    /// `true` (default): a voxel sends each neighbour its own values; `false`: one vector to all.
    #[serde(default = "yes")]
    pub directional: bool,
    /// Hidden layer sizes of every voxel's network (possibly none).
    #[serde(default)]
    pub hidden: Vec<usize>,
    /// Homogeneous: one weight vector shared by every voxel (source-major, bias last, as the MLP's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f64>>,
    /// Heterogeneous: one weight vector per voxel (every voxel exactly once), instead of `weights`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellWeights>,
}

/// The network weights of one voxel of a heterogeneous controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellWeights {
    pub cell: Cell,
    pub weights: Vec<f64>,
}

fn one() -> usize {
    1
}

fn yes() -> bool {
    true
}

/// `signals` as a whole number ≥ 0, with a message that says so (serde's own names a Rust type).
fn signal_count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    match value.as_u64() {
        Some(n) if n <= MAX_SIGNALS as u64 => Ok(n as usize),
        _ => Err(serde::de::Error::custom(format!(
            "signals is {value}: give the number of signal values per direction, a whole number from 0 to \
             {MAX_SIGNALS} (e.g. 1)"
        ))),
    }
}

/// The most signal values per direction (keeps the networks' sizes sane).
pub const MAX_SIGNALS: usize = 64;

fn invalid(location: impl Into<String>, message: impl Into<String>) -> ControllerError {
    ControllerError::Invalid { location: location.into(), message: message.into() }
}

/// One voxel network's layer sizes: n₀ = features + 4·signals + 1 bias, the hidden layers, then
/// 1 actuation + the signals sent (4·signals when directional, else signals).
pub fn distributed_layer_sizes(features: usize, signals: usize, directional: bool, hidden: &[usize]) -> Vec<usize> {
    let sent = if directional { 4 * signals } else { signals };
    let n0 = features.saturating_add(4 * signals).saturating_add(1);
    std::iter::once(n0).chain(hidden.iter().copied()).chain(std::iter::once(1 + sent)).collect()
}

impl DistributedSpec {
    /// The features of each voxel, after checking the layout, `signals` and `hidden`.
    fn feature_counts(&self, body: &Body) -> Result<Vec<usize>, ControllerError> {
        if self.signals > MAX_SIGNALS {
            return Err(invalid("signals", format!("is {}: give at most {MAX_SIGNALS}", self.signals)));
        }
        if let Some(index) = self.hidden.iter().position(|&n| n == 0) {
            return Err(ControllerError::EmptyHiddenLayer { index });
        }
        Ok(self.sensors.per_voxel(body)?.iter().map(|f| f.len()).collect())
    }

    /// The number of weights of every voxel's network (grid order) on this body.
    pub(crate) fn weight_counts(&self, cells: &[Cell], grid: [u32; 2]) -> Result<Vec<usize>, ControllerError> {
        let counts = self.feature_counts(&Body::new(cells, grid)?)?;
        Ok(counts.iter().map(|&f| weight_count(&self.sizes(f))).collect())
    }

    fn sizes(&self, features: usize) -> Vec<usize> {
        distributed_layer_sizes(features, self.signals, self.directional, &self.hidden)
    }

    /// The network of one voxel from its weights; `location` names the weight list in errors.
    fn net(&self, features: usize, weights: &[f64], location: &str) -> Result<Mlp, ControllerError> {
        let sizes = self.sizes(features);
        let sent = sizes.last().copied().unwrap_or(1) - 1;
        let Some(net) = Mlp::new(sizes.clone(), weights.to_vec()) else {
            return Err(invalid(
                location,
                format!(
                    "expected {} weights for layer sizes {sizes:?}, got {} ({}; the input layer is {features} sensor \
                     features + 4×{} neighbour signals + 1 bias, the output layer 1 actuation + {sent} signals sent)",
                    weight_count(&sizes),
                    weights.len(),
                    formula(&sizes),
                    self.signals
                ),
            ));
        };
        if let Some((i, w)) = weights.iter().enumerate().find(|(_, w)| !w.is_finite()) {
            return Err(invalid(format!("{location}[{i}]"), format!("must be a finite number, got {w}")));
        }
        Ok(net)
    }

    pub fn build(&self, cells: &[Cell], grid: [u32; 2]) -> Result<DistributedController, ControllerError> {
        let body = Body::new(cells, grid)?;
        let counts = self.feature_counts(&body)?;
        let features = self.sensors.build(cells, grid)?;
        let nets = match (&self.weights, self.cells.is_empty()) {
            (Some(_), false) => {
                return Err(invalid(
                    "cells",
                    "is given together with `weights`: give `weights` (one network shared by every voxel) or \
                     `cells` (one network per voxel), not both",
                ))
            }
            (None, true) => {
                return Err(invalid(
                    "weights",
                    "is missing: give `weights` (one network shared by every voxel) or `cells` (one \
                     {\"cell\": [x, y], \"weights\": [...]} per voxel)",
                ))
            }
            (Some(w), true) => {
                if let Some(v) = counts.iter().position(|&c| c != counts[0]) {
                    let [x0, y0] = cells[0];
                    let [x, y] = cells[v];
                    return Err(invalid(
                        "sensors",
                        format!(
                            "gives cell [{x0}, {y0}] {} features but cell [{x}, {y}] {}: one shared network needs \
                             the same number for every voxel; make the feature lists equally long, or give one \
                             network per voxel in `cells`",
                            counts[0], counts[v]
                        ),
                    ));
                }
                vec![self.net(counts.first().copied().unwrap_or(0), w, "weights")?]
            }
            (None, false) => {
                let location = |i: usize| format!("cells[{i}]");
                let by_voxel = body.resolve_overrides(self.cells.iter().map(|c| c.cell), location)?;
                let mut nets = Vec::with_capacity(cells.len());
                for (v, o) in by_voxel.iter().enumerate() {
                    let Some(i) = *o else {
                        let [x, y] = cells[v];
                        return Err(invalid(
                            "cells",
                            format!(
                                "cell [{x}, {y}] holds a voxel but has no weights: add {{\"cell\": [{x}, {y}], \
                                 \"weights\": [...]}} with {} weights (every voxel needs its network)",
                                weight_count(&self.sizes(counts[v]))
                            ),
                        ));
                    };
                    nets.push(self.net(counts[v], &self.cells[i].weights, &format!("cells[{i}].weights"))?);
                }
                nets
            }
        };
        let mut spans = Vec::with_capacity(counts.len());
        let mut at = 0;
        for c in &counts {
            spans.push((at, at + c));
            at += c;
        }
        let bus = SignalBus::new(cells, self.signals, self.directional);
        let inputs = vec![0.0; at + 4 * self.signals * cells.len()];
        Ok(DistributedController {
            feature_values: vec![0.0; features.len()],
            features,
            spans,
            nets,
            bus,
            inputs,
            actuation: vec![0.0; cells.len()],
        })
    }
}

/// The signals in flight between the voxels of one body: what each voxel sent at the last call, and
/// what it sends at this one. Used by [`DistributedController`] and by bodies driven per voxel from
/// outside ([`crate::stepping`]).
#[derive(Debug, Clone)]
pub struct SignalBus {
    signals: usize,
    directional: bool,
    /// Per voxel (grid order), its neighbour's index on each side N, E, S, W.
    neighbours: Vec<[Option<usize>; 4]>,
    /// What every voxel sent at the last delivered call (read now).
    delivered: Vec<f64>,
    /// What every voxel sends at this call (read at the next).
    outbox: Vec<f64>,
}

impl SignalBus {
    /// A bus between the voxels at `cells` (grid order), all signals 0.
    pub fn new(cells: &[Cell], signals: usize, directional: bool) -> SignalBus {
        let index: std::collections::HashMap<Cell, usize> = cells.iter().enumerate().map(|(i, c)| (*c, i)).collect();
        let neighbours = cells
            .iter()
            .map(|&[x, y]| {
                OFFSETS.map(|[dx, dy]| {
                    let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                    let cell = [u32::try_from(nx).ok()?, u32::try_from(ny).ok()?];
                    index.get(&cell).copied()
                })
            })
            .collect();
        let sent = if directional { 4 * signals } else { signals };
        SignalBus {
            signals,
            directional,
            neighbours,
            delivered: vec![0.0; sent * cells.len()],
            outbox: vec![0.0; sent * cells.len()],
        }
    }

    /// Signal values per direction.
    pub fn signals(&self) -> usize {
        self.signals
    }

    /// The signal values a voxel receives (4 × signals: from N, E, S, W).
    pub fn received_per_voxel(&self) -> usize {
        4 * self.signals
    }

    /// The signal values a voxel sends (4 × signals directional, else signals).
    pub fn sent_per_voxel(&self) -> usize {
        if self.directional {
            4 * self.signals
        } else {
            self.signals
        }
    }

    /// The values neighbour `from` last sent towards its side `side`.
    fn sent_by(&self, from: usize, side: usize) -> &[f64] {
        let s = self.signals;
        let k = self.sent_per_voxel();
        let start = from * k + if self.directional { side * s } else { 0 };
        &self.delivered[start..start + s]
    }

    /// Writes what voxel `v` receives into `out` (4 × signals values: from its N, E, S and W neighbour,
    /// 0 where it has none).
    pub(crate) fn receive(&self, v: usize, out: &mut [f64]) {
        let s = self.signals;
        for (side, chunk) in out.chunks_exact_mut(s.max(1)).take(4).enumerate() {
            match self.neighbours[v][side] {
                // The neighbour on my N side sent towards its S side.
                Some(u) => chunk.copy_from_slice(self.sent_by(u, opposite(side))),
                None => chunk.fill(0.0),
            }
        }
    }

    /// Sets what voxel `v` sends at this call ([`SignalBus::sent_per_voxel`] values).
    pub fn send(&mut self, v: usize, values: &[f64]) {
        let k = self.sent_per_voxel();
        self.outbox[v * k..(v + 1) * k].copy_from_slice(&values[..k]);
    }

    /// Ends a call: what was sent becomes what the next call receives.
    pub(crate) fn deliver(&mut self) {
        std::mem::swap(&mut self.delivered, &mut self.outbox);
    }

    /// What each voxel sent at the last delivered call towards each side, for snapshots.
    pub fn io(&self) -> SignalsIo {
        let s = self.signals;
        let mut sent = Vec::with_capacity(4 * s * self.neighbours.len());
        for v in 0..self.neighbours.len() {
            for side in 0..4 {
                sent.extend_from_slice(self.sent_by(v, side));
            }
        }
        SignalsIo { per_side: s, sent }
    }
}

/// The runtime form of [`DistributedSpec`]; all buffers are allocated at build time.
#[derive(Debug, Clone)]
pub struct DistributedController {
    features: SensorFeatures,
    /// Every voxel's features, voxels in grid order.
    feature_values: Vec<f64>,
    /// Per voxel, its range in `feature_values`.
    spans: Vec<(usize, usize)>,
    /// One network shared by every voxel, or one per voxel.
    nets: Vec<Mlp>,
    bus: SignalBus,
    /// The last call's network inputs of every voxel (bias excluded), voxels in grid order.
    inputs: Vec<f64>,
    actuation: Vec<f64>,
}

impl DistributedController {
    /// Whether one network is shared by every voxel.
    pub fn is_homogeneous(&self) -> bool {
        self.nets.len() == 1
    }

    pub fn bus(&self) -> &SignalBus {
        &self.bus
    }
}

impl Controller for DistributedController {
    fn control(&mut self, _t: f64, readings: &[SensorReadings], outputs: &mut [f64]) {
        self.features.push(readings);
        self.features.write(&mut self.feature_values);
        let shared = self.nets.len() == 1;
        let mut at = 0;
        for (v, &(a, b)) in self.spans.iter().enumerate() {
            let net = &mut self.nets[if shared { 0 } else { v }];
            let slots = net.inputs_mut();
            let f = b - a;
            slots[..f].copy_from_slice(&self.feature_values[a..b]);
            self.bus.receive(v, &mut slots[f..]);
            self.inputs[at..at + slots.len()].copy_from_slice(slots);
            at += slots.len();
            let y = net.forward();
            self.actuation[v] = y[0];
            if let Some(out) = outputs.get_mut(v) {
                *out = y[0];
            }
            self.bus.send(v, &y[1..]);
        }
        self.bus.deliver();
    }

    fn io(&self) -> Option<ControllerIo> {
        Some(ControllerIo {
            inputs: self.inputs.clone(),
            outputs: self.actuation.clone(),
            signals: Some(self.bus.io()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::ControllerSpec;
    use super::*;

    fn spec(json: &str) -> DistributedSpec {
        match serde_json::from_str::<ControllerSpec>(json).unwrap_or_else(|e| panic!("{e}\n{json}")) {
            ControllerSpec::Distributed(d) => d,
            other => panic!("not distributed: {other:?}"),
        }
    }

    fn area(a: f64) -> SensorReadings {
        SensorReadings { area_ratio: a, ..SensorReadings::default() }
    }

    /// Two voxels side by side, one feature (area ratio), 1 signal, no hidden layer: sizes [6, 5].
    /// Weights source-major: row i = input i (a, N, E, S, W, bias) to the 5 outputs (u, N, E, S, W).
    #[test]
    fn two_voxels_by_hand() {
        #[rustfmt::skip]
        let w = [
            // u     N     E     S     W
            0.5,  0.0,  1.0,  0.0, -1.0, // area ratio
            0.0,  0.0,  0.0,  0.0,  0.0, // from N
            0.3,  0.0,  0.0,  0.0,  0.0, // from E
            0.0,  0.0,  0.0,  0.0,  0.0, // from S
           -0.7,  0.0,  0.0,  0.0,  0.0, // from W
            0.1,  0.2,  0.0,  0.0,  0.0, // bias
        ];
        let json =
            format!(r#"{{"type":"distributed","sensors":{{"default":[{{"sensor":"area_ratio"}}]}},"weights":{w:?}}}"#);
        let cells = [[0, 0], [1, 0]];
        let mut c = spec(&json).build(&cells, [2, 1]).unwrap();
        let mut out = [0.0; 2];
        // Call 1: nothing received yet.
        c.control(0.0, &[area(1.2), area(0.8)], &mut out);
        assert_eq!(out, [(0.5 * 1.2 + 0.1f64).tanh(), (0.5 * 0.8 + 0.1f64).tanh()]);
        let sent = c.bus.io().sent;
        // Voxel 0 sends N = tanh(0.2), E = tanh(1.2), S = 0, W = tanh(−1.2); voxel 1 likewise with 0.8.
        assert_eq!(&sent[..4], &[0.2f64.tanh(), 1.2f64.tanh(), 0.0, (-1.2f64).tanh()]);
        assert_eq!(&sent[4..], &[0.2f64.tanh(), 0.8f64.tanh(), 0.0, (-0.8f64).tanh()]);
        // Call 2: voxel 0 hears voxel 1's W signal from its E side; voxel 1 hears voxel 0's E from its W.
        c.control(0.0, &[area(1.0), area(1.0)], &mut out);
        let from_east_0 = (-0.8f64).tanh();
        let from_west_1 = 1.2f64.tanh();
        assert_eq!(out[0], (0.5 + 0.3 * from_east_0 + 0.1).tanh());
        assert_eq!(out[1], (0.5 - 0.7 * from_west_1 + 0.1).tanh());
        let io = c.io().unwrap();
        // Inputs: (a, N, E, S, W) per voxel; borders read 0.
        assert_eq!(io.inputs, vec![1.0, 0.0, from_east_0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, from_west_1]);
        assert_eq!(io.outputs, out.to_vec());
    }

    /// A 1×5 chain whose voxels relay what they hear from the W to the E: a signal injected at the
    /// west end reaches voxel k exactly k calls later.
    #[test]
    fn a_signal_travels_one_voxel_per_call() {
        // Inputs (touching, N, E, S, W, bias) → outputs (u, N, E, S, W); u = E-out = tanh(5·touching + 5·W-in).
        let mut w = vec![0.0; 6 * 5];
        for (input, gain) in [(0, 5.0), (4, 5.0)] {
            w[input * 5] = gain;
            w[input * 5 + 2] = gain;
        }
        let json =
            format!(r#"{{"type":"distributed","sensors":{{"default":[{{"sensor":"touching"}}]}},"weights":{w:?}}}"#);
        let cells: Vec<Cell> = (0..5).map(|x| [x, 0]).collect();
        let mut c = spec(&json).build(&cells, [5, 1]).unwrap();
        let mut first_active = [None; 5];
        let mut out = [0.0; 5];
        for call in 0..8 {
            let mut r = [SensorReadings::default(); 5];
            r[0].touching = if call == 0 { 1.0 } else { 0.0 };
            c.control(0.0, &r, &mut out);
            for (k, o) in out.iter().enumerate() {
                if *o > 0.5 && first_active[k].is_none() {
                    first_active[k] = Some(call);
                }
            }
            if call > 0 {
                // Only the voxel the pulse has reached is active: it moves on, it does not linger.
                assert_eq!(out.iter().filter(|o| **o > 0.5).count(), usize::from(call < 5), "call {call}: {out:?}");
            }
        }
        assert_eq!(first_active, [Some(0), Some(1), Some(2), Some(3), Some(4)]);
    }

    /// Empty cells and the grid's border give 0: a voxel of an L-shaped body hears only its real
    /// neighbours, whatever the others send.
    #[test]
    fn empty_cells_and_borders_give_zero() {
        // Body: (0,0), (1,0), (0,1); every voxel sends 1 on all sides (bias → tanh(10) on every side).
        let mut w = vec![0.0; 5 * 5];
        for k in 1..5 {
            w[4 * 5 + k] = 10.0;
        }
        let json = format!(r#"{{"type":"distributed","weights":{w:?}}}"#);
        let cells = [[0, 0], [1, 0], [0, 1]];
        let mut c = spec(&json).build(&cells, [2, 2]).unwrap();
        let mut out = [0.0; 3];
        c.control(0.0, &[SensorReadings::default(); 3], &mut out);
        c.control(0.0, &[SensorReadings::default(); 3], &mut out);
        let one = 10f64.tanh();
        // Inputs per voxel: N, E, S, W (no features).
        let io = c.io().unwrap().inputs;
        assert_eq!(&io[0..4], &[one, one, 0.0, 0.0], "(0,0): N and E neighbours");
        assert_eq!(&io[4..8], &[0.0, 0.0, 0.0, one], "(1,0): only W; (1,1) is empty");
        assert_eq!(&io[8..12], &[0.0, 0.0, one, 0.0], "(0,1): only S");
    }

    /// One network shared by a left–right symmetric body with mirrored readings gives mirrored
    /// actuation when its weights treat E and W alike (the mirror of a homogeneous controller).
    #[test]
    fn mirror_symmetric_body_gives_symmetric_actuation() {
        // Biped-like body: top row 4 voxels, legs at x = 0 and x = 3.
        let cells = [[0, 0], [3, 0], [0, 1], [1, 1], [2, 1], [3, 1]];
        let sizes = distributed_layer_sizes(2, 1, true, &[3]);
        let count = weight_count(&sizes);
        // Random weights, then E and W made mirror images: input E ↔ W and output E ↔ W swapped.
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut w: Vec<f64> = (0..count).map(|_| 2.0 * rng.uniform() - 1.0).collect();
        let (n0, n1, n2) = (sizes[0], sizes[1], sizes[2]);
        // Layer 0 → 1: rows are inputs (2 features, N, E, S, W, bias); make row W equal row E.
        let (e_in, w_in) = (3, 5);
        for j in 0..n1 {
            w[w_in * n1 + j] = w[e_in * n1 + j];
        }
        // Layer 1 → 2: columns are outputs (u, N, E, S, W); make column W equal column E.
        let base = n0 * n1;
        for i in 0..n1 {
            w[base + i * n2 + 4] = w[base + i * n2 + 2];
        }
        let json = format!(
            r#"{{"type":"distributed","sensors":{{"default":[{{"sensor":"area_ratio"}},{{"sensor":"x_velocity"}}]}},
                "hidden":[3],"weights":{w:?}}}"#
        );
        let mut c = spec(&json).build(&cells, [4, 2]).unwrap();
        let mirror = [1, 0, 5, 4, 3, 2]; // voxel index of each voxel's mirror image
        let mut out = [0.0; 6];
        let mut rng = crate::rng::SplitMix64::new(11);
        let mut any_nonzero = false;
        for _ in 0..6 {
            // Symmetric readings: a voxel and its mirror image read the same.
            let mut r = [SensorReadings::default(); 6];
            for v in 0..6 {
                if mirror[v] > v {
                    let (a, vx) = (0.8 + 0.4 * rng.uniform(), rng.uniform() - 0.5);
                    r[v] = SensorReadings { area_ratio: a, x_velocity: vx, ..Default::default() };
                    r[mirror[v]] = SensorReadings { area_ratio: a, x_velocity: vx, ..Default::default() };
                }
            }
            c.control(0.0, &r, &mut out);
            // Equal up to rounding: a voxel and its mirror sum their E and W terms in the other order.
            for v in 0..6 {
                assert!((out[v] - out[mirror[v]]).abs() < 1e-12, "voxel {v}: {out:?}");
            }
            any_nonzero |= out.iter().any(|o| o.abs() > 1e-3);
        }
        assert!(any_nonzero);
        // With the x velocity flipped on one side only, symmetry is broken: the test can fail.
        let mut r = [area(1.0); 6];
        r[0].x_velocity = 0.4;
        c.control(0.0, &r, &mut out);
        assert!((out[0] - out[1]).abs() > 1e-6, "{out:?}");
    }

    #[test]
    fn non_directional_sends_one_vector_to_all() {
        // 2 signals, not directional: sizes [1 + 8 + 1, 1 + 2] for one feature.
        let sizes = distributed_layer_sizes(1, 2, false, &[]);
        assert_eq!(sizes, vec![10, 3]);
        let mut w = vec![0.0; 30];
        w[9 * 3 + 1] = 0.5; // bias → signal 0
        w[9 * 3 + 2] = -0.25; // bias → signal 1
        w[3] = 1.0; // from N, signal 0 → u (inputs: a, N0, N1, E0, ...)
        let json = format!(
            r#"{{"type":"distributed","sensors":{{"default":[{{"sensor":"area_ratio"}}]}},"signals":2,
                "directional":false,"weights":{w:?}}}"#
        );
        let cells = [[0, 0], [0, 1]];
        let mut c = spec(&json).build(&cells, [1, 2]).unwrap();
        let mut out = [0.0; 2];
        c.control(0.0, &[area(1.0); 2], &mut out);
        c.control(0.0, &[area(1.0); 2], &mut out);
        let (s0, s1) = (0.5f64.tanh(), (-0.25f64).tanh());
        // The bottom voxel hears the top one's vector from N; the top one hears from S.
        assert_eq!(
            c.io().unwrap().inputs,
            vec![1.0, s0, s1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, s0, s1, 0.0, 0.0]
        );
        assert_eq!(out, [s0.tanh(), 0.0]);
        // Snapshots list the vector on every side.
        assert_eq!(c.io().unwrap().signals.unwrap().sent[..8], [s0, s1, s0, s1, s0, s1, s0, s1]);
    }

    #[test]
    fn heterogeneous_networks_per_voxel() {
        // No features, no signals: u = tanh(bias weight) per voxel.
        let json = r#"{"type":"distributed","signals":0,
            "cells":[{"cell":[1,0],"weights":[0.5]},{"cell":[0,0],"weights":[-0.25]}]}"#;
        let mut c = spec(json).build(&[[0, 0], [1, 0]], [2, 1]).unwrap();
        assert!(!c.is_homogeneous());
        let mut out = [0.0; 2];
        c.control(0.0, &[SensorReadings::default(); 2], &mut out);
        assert_eq!(out, [(-0.25f64).tanh(), 0.5f64.tanh()]);
    }

    #[test]
    fn bad_specs_name_the_place_and_the_fix() {
        let cells = [[0, 0], [1, 0]];
        let err = |json: &str| {
            let s: ControllerSpec = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"));
            s.build(&cells, [2, 1]).err().expect(json).to_string()
        };
        // Homogeneous, no features, 1 signal: sizes [5, 5] = 25 weights.
        let msg = err(&format!(r#"{{"type":"distributed","weights":{:?}}}"#, vec![0.0; 24]));
        assert!(
            msg.starts_with("weights: expected 25 weights for layer sizes [5, 5], got 24 (5×5; the input layer is 0"),
            "{msg}"
        );
        let msg = err(&format!(
            r#"{{"type":"distributed","cells":[{{"cell":[0,0],"weights":{:?}}},{{"cell":[1,0],"weights":{:?}}}]}}"#,
            vec![0.0; 25],
            vec![0.0; 26]
        ));
        assert!(msg.starts_with("cells[1].weights: expected 25 weights"), "{msg}");
        let w25 = format!("{:?}", vec![0.0; 25]);
        assert_eq!(
            err(&format!(
                r#"{{"type":"distributed","cells":[{{"cell":[0,0],"weights":{w25}}},{{"cell":[0,1],"weights":{w25}}}]}}"#
            )),
            "cells[1]: cell [0, 1] holds no voxel"
        );
        assert_eq!(
            err(&format!(r#"{{"type":"distributed","cells":[{{"cell":[0,0],"weights":{w25}}}]}}"#)),
            "cells: cell [1, 0] holds a voxel but has no weights: add {\"cell\": [1, 0], \"weights\": [...]} with 25 \
             weights (every voxel needs its network)"
        );
        assert!(err(r#"{"type":"distributed"}"#).starts_with("weights: is missing: give `weights`"));
        assert!(err(&format!(
            r#"{{"type":"distributed","weights":{w25},"cells":[{{"cell":[0,0],"weights":{w25}}}]}}"#
        ))
        .starts_with("cells: is given together with `weights`"));
        assert_eq!(
            err(r#"{"type":"distributed","hidden":[0],"weights":[]}"#),
            "hidden[0]: a hidden layer needs at least 1 neuron"
        );
        let msg = err(r#"{"type":"distributed","sensors":{"cells":[{"cell":[1,0],"features":[{"sensor":"angle"}]}]},
                         "weights":[]}"#);
        assert!(msg.starts_with("sensors: gives cell [0, 0] 0 features but cell [1, 0] 1"), "{msg}");
        // signals < 0 is refused by the reader, naming the field.
        let e = serde_json::from_str::<ControllerSpec>(r#"{"type":"distributed","signals":-1,"weights":[]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("signals") && e.contains("whole number from 0"), "{e}");
    }
}
