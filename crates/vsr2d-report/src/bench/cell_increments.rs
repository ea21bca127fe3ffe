//! The soft cells' incremental costs (spec `cells.md` §15 item 3a, §16 row "cost ordering"): what one
//! more membrane, inactive connector, active connector pair or actuator adds to a step. Each is the
//! difference of two worlds of the same resting grid of `scs-paper` cells that differ only in that
//! element, divided by how many of it the world holds:
//!
//! - membrane: the bare grid's time per cell;
//! - inactive connector (switched on, in no pair: spec §4's *inactive*): connectors spread over every
//!   membrane with an interaction radius (5 cm) too short to reach another cell;
//! - active pair: facing connectors of neighbouring cells switched on (in range, so they pair),
//!   against the same connectors switched off (*passive*);
//! - actuator: `spring` muscles across every cell at ℓ = 1.
//!
//! The connectors are weak (A = 10⁻³ N·m², ours) so that the pairs stay as built while timed. The five
//! worlds are timed in turns, one run of each per round, so that a slow spell of a shared machine
//! falls on all of them alike instead of on one difference.

use serde::Serialize;

use super::cells::{mean_sd, time_steps, CellBenchError, CellBenchOptions};
use vsr2d::geom::Vec2;
use vsr2d::model::cell::connector::ConnectorParams;
use vsr2d::model::cell::muscle::MuscleKind;
use vsr2d::model::cell::{CellParams, CellPreset};
use vsr2d::sim::{ConnectorType, MuscleSpec, Stepping, World, WorldSettings};
use vsr2d::snapshot::BodyId;

/// What an increment adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    Membrane,
    InactiveConnector,
    ActivePair,
    Actuator,
}

impl Element {
    pub fn name(self) -> &'static str {
        match self {
            Element::Membrane => "membrane (with pressure)",
            Element::InactiveConnector => "inactive connector",
            Element::ActivePair => "active connector pair",
            Element::Actuator => "actuator (spring muscle)",
        }
    }
}

/// One increment: the two worlds' times and the cost per element.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncrementRow {
    pub element: Element,
    /// How many of the element the world holds.
    pub count: usize,
    /// ms per step with and without the elements (mean ± σ over the repeats).
    pub ms_with: f64,
    pub ms_with_sd: f64,
    pub ms_without: f64,
    pub ms_without_sd: f64,
    /// (with − without) / count, µs per step, of each round: mean and σ over the rounds.
    pub us_per_element: f64,
    pub us_per_element_sd: f64,
}

/// The worlds compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Bare,
    Spread,
    FacingOff,
    FacingOn,
    Muscles,
}

/// Connectors per cell: enough that a connector's fraction of a microsecond stands out of the timing
/// noise of a 100-cell step (10 per cell left active vs inactive within σ).
const CONNECTORS_PER_CELL: usize = 40;
/// Muscles per cell.
const MUSCLES_PER_CELL: usize = 10;
/// Connector types of the worlds: 0 reaches a neighbour 1 m away, 1 reaches no other cell.
const REACHING: usize = 0;
const SHORT: usize = 1;

/// A resting square grid of `cells` cells, 1 m between membranes, with `variant`'s extra elements.
fn world(params: &CellParams, cells: usize, stepping: Stepping, variant: Variant) -> World {
    let mut w = World::new(WorldSettings {
        dt: CellPreset::ScsPaper.dt(),
        gravity: Vec2::ZERO,
        solver_iterations: stepping.solver_iterations.max(1),
        force_substeps: stepping.force_substeps.max(1),
        ..WorldSettings::default()
    });
    let weak = ConnectorParams { strength: 1e-3, radius: 1.0, near_cap: None, hidden_mass: 0.0 };
    let short = ConnectorParams { radius: 0.05, ..weak };
    w.set_connector_types(
        vec![
            ConnectorType { name: "bench".into(), params: weak },
            ConnectorType { name: "bench-short".into(), params: short },
        ],
        vec![vec![weak.strength; 2]; 2],
    );
    let side = (cells as f64).sqrt().ceil().max(1.0) as usize;
    let pitch = 2.0 * (params.radius + params.body_radius()) + 1.0;
    let n = params.bodies;
    for i in 0..cells {
        let (col, row) = (i % side, i / side);
        let id = w.add_cell(format!("c{i}"), "bench", *params, Vec2::new(col as f64 * pitch, row as f64 * pitch), 0.0);
        match variant {
            Variant::Bare => {}
            Variant::Spread => {
                for k in 0..CONNECTORS_PER_CELL {
                    w.add_connector(format!("s{k}"), id, k * n / CONNECTORS_PER_CELL, SHORT, true);
                }
            }
            Variant::FacingOff | Variant::FacingOn => {
                // Even columns face right (body N/4), odd columns left (3N/4), pairing with their
                // neighbour; a last odd-one-out column faces nobody.
                let face = if col % 2 == 0 { n / 4 } else { 3 * n / 4 };
                for k in 0..CONNECTORS_PER_CELL {
                    let body = (face + n + k - CONNECTORS_PER_CELL / 2) % n;
                    w.add_connector(format!("f{k}"), id, body, REACHING, variant == Variant::FacingOn);
                }
            }
            Variant::Muscles => {
                for k in 0..MUSCLES_PER_CELL {
                    w.add_muscle(MuscleSpec {
                        cell: id,
                        name: format!("m{k}"),
                        kind: MuscleKind::Spring,
                        from: k * n / (2 * MUSCLES_PER_CELL),
                        to: k * n / (2 * MUSCLES_PER_CELL) + n / 2,
                        hz: 5.0,
                        damping_ratio: 1.0,
                        min_length: 0.2,
                        length_factor: 1.0,
                        command: 1.0,
                    });
                }
            }
        }
    }
    w
}

/// The ms per step of each run of each variant (after `options.warmup` steps), the worlds timed in
/// turns: one run of `steps` steps of each per round, `options.repeats` rounds; also each one's active
/// pairs at the end.
fn time_in_turns(
    params: &CellParams,
    cells: usize,
    steps: u64,
    options: &CellBenchOptions,
    variants: &[Variant],
) -> Result<Vec<(Vec<f64>, usize)>, CellBenchError> {
    let sim_err = |source| CellBenchError::Sim { cells, bodies: params.bodies, source };
    let mut worlds = Vec::with_capacity(variants.len());
    for &variant in variants {
        let mut w = world(params, cells, options.stepping.unwrap_or(Stepping::CELLS), variant);
        w.run(options.warmup, &mut []).map_err(sim_err)?;
        worlds.push(w);
    }
    let mut times = vec![Vec::with_capacity(options.repeats); variants.len()];
    for _ in 0..options.repeats {
        for (w, t) in worlds.iter_mut().zip(&mut times) {
            t.push(time_steps(w, steps, 1).map_err(sim_err)?.0);
        }
    }
    Ok(worlds
        .iter()
        .zip(times)
        .map(|(w, t)| {
            // Each pair is counted by both of its cells.
            let pairs = (0..cells).map(|i| w.cell_pairs(BodyId(i))).sum::<usize>() / 2;
            (t, pairs)
        })
        .collect())
}

/// Cells and steps per timed run of the increments: 100 cells (the paper's real-time scale), 100
/// steps, or 50 with `--quick`.
pub fn size(quick: bool) -> (usize, u64) {
    (100, if quick { 50 } else { 100 })
}

/// The four increments for a grid of `cells` cells timed over `steps` steps per run.
pub fn measure_increments(
    cells: usize,
    steps: u64,
    options: &CellBenchOptions,
) -> Result<Vec<IncrementRow>, CellBenchError> {
    if cells < 2 || options.repeats == 0 || steps == 0 {
        return Err(CellBenchError::Options("increments need ≥ 2 cells, ≥ 1 repeat and ≥ 1 step".into()));
    }
    let params = CellPreset::ScsPaper.params();
    let variants = [Variant::Bare, Variant::Spread, Variant::FacingOff, Variant::FacingOn, Variant::Muscles];
    let timed = time_in_turns(&params, cells, steps, options, &variants)?;
    let nothing = (vec![0.0; options.repeats], 0);
    let [bare, spread, off, on, muscles] = [0, 1, 2, 3, 4].map(|k| &timed[k]);
    // The cost per element of each round (the two runs a round apart in time at most), so what a slow
    // spell adds to both cancels; its mean and the σ of one round.
    let row = |element, count: usize, with: &(Vec<f64>, usize), without: &(Vec<f64>, usize)| {
        let c = count.max(1) as f64;
        let (ms_with, ms_with_sd) = mean_sd(&with.0);
        let (ms_without, ms_without_sd) = mean_sd(&without.0);
        let per_round: Vec<f64> = with.0.iter().zip(&without.0).map(|(a, b)| 1e3 * (a - b) / c).collect();
        let (us_per_element, us_per_element_sd) = mean_sd(&per_round);
        IncrementRow {
            element,
            count,
            ms_with,
            ms_with_sd,
            ms_without,
            ms_without_sd,
            us_per_element,
            us_per_element_sd,
        }
    };
    Ok(vec![
        row(Element::Membrane, cells, bare, &nothing),
        row(Element::InactiveConnector, cells * CONNECTORS_PER_CELL, spread, bare),
        row(Element::ActivePair, on.1, on, off),
        row(Element::Actuator, cells * MUSCLES_PER_CELL, muscles, bare),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use vsr2d::model::cell::connector::ConnectorState;

    #[test]
    fn facing_connectors_pair_only_when_on_and_only_with_their_neighbour() {
        let p = CellPreset::ScsPaper.params();
        let mut on = world(&p, 4, Stepping { force_substeps: 1, solver_iterations: 4 }, Variant::FacingOn);
        on.run(2, &mut []).unwrap();
        // 2×2 grid: cells 0–1 and 2–3 face each other; every connector reaches at least the one
        // opposite it, and a couple's two cells count the same pairs.
        let pairs: Vec<usize> = (0..4).map(|i| on.cell_pairs(BodyId(i))).collect();
        let per = CONNECTORS_PER_CELL;
        assert!(pairs.iter().all(|&p| (per..=per * per).contains(&p)), "{pairs:?}");
        assert_eq!((pairs[0], pairs[2]), (pairs[1], pairs[3]));
        // The spread connectors are all switched on and reach no other cell: inactive, none paired.
        let mut spread = world(&p, 4, Stepping { force_substeps: 1, solver_iterations: 4 }, Variant::Spread);
        spread.run(2, &mut []).unwrap();
        assert!((0..4).all(|i| spread.cell_pairs(BodyId(i)) == 0));
        let states: Vec<_> = spread.snapshot().cells().flat_map(|c| c.connectors.iter().map(|k| k.state)).collect();
        assert_eq!(states.len(), 4 * CONNECTORS_PER_CELL);
        assert!(states.iter().all(|s| *s == ConnectorState::Inactive), "{states:?}");
        let mut off = world(&p, 4, Stepping { force_substeps: 1, solver_iterations: 4 }, Variant::FacingOff);
        off.run(2, &mut []).unwrap();
        assert!((0..4).all(|i| off.cell_pairs(BodyId(i)) == 0));
    }
}
