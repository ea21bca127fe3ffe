//! The soft cells' incremental costs (spec `cells.md` §15 item 3a, §16 row "cost ordering"): what one
//! more membrane, inactive connector, active connector pair or actuator adds to a step. Each is the
//! difference of two worlds of the same resting grid of `scs-paper` cells that differ only in that
//! element, divided by how many of it the world holds:
//!
//! - membrane: the bare grid's time per cell;
//! - inactive connector: connectors spread over every membrane, all switched off;
//! - active pair: facing connectors of neighbouring cells switched on (in range, so every pair is
//!   active), against the same connectors switched off;
//! - actuator: `spring` muscles across every cell at ℓ = 1.
//!
//! The connectors are weak (A = 10⁻³ N·m², ours) so that the pairs stay as built while timed.

use serde::Serialize;

use super::cells::{time_steps, CellBenchError, CellBenchOptions};
use crate::geom::Vec2;
use crate::model::cell::connector::ConnectorParams;
use crate::model::cell::muscle::MuscleKind;
use crate::model::cell::{CellParams, CellPreset};
use crate::sim::{ConnectorType, MuscleSpec, Stepping, World, WorldSettings};
use crate::snapshot::BodyId;

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
    /// (with − without) / count, µs per step, and its σ from the two σ.
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

/// Connectors or muscles per cell.
const PER_CELL: usize = 10;

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
    w.set_connector_types(vec![ConnectorType { name: "bench".into(), params: weak }], vec![vec![weak.strength]]);
    let side = (cells as f64).sqrt().ceil().max(1.0) as usize;
    let pitch = 2.0 * (params.radius + params.body_radius()) + 1.0;
    let n = params.bodies;
    for i in 0..cells {
        let (col, row) = (i % side, i / side);
        let id = w.add_cell(format!("c{i}"), "bench", *params, Vec2::new(col as f64 * pitch, row as f64 * pitch), 0.0);
        match variant {
            Variant::Bare => {}
            Variant::Spread => {
                for k in 0..PER_CELL {
                    w.add_connector(format!("s{k}"), id, k * n / PER_CELL, 0, false);
                }
            }
            Variant::FacingOff | Variant::FacingOn => {
                // Even columns face right (body N/4), odd columns left (3N/4), pairing with their
                // neighbour; a last odd-one-out column faces nobody.
                let face = if col % 2 == 0 { n / 4 } else { 3 * n / 4 };
                for k in 0..PER_CELL {
                    let body = (face + n + k - PER_CELL / 2) % n;
                    w.add_connector(format!("f{k}"), id, body, 0, variant == Variant::FacingOn);
                }
            }
            Variant::Muscles => {
                for k in 0..PER_CELL {
                    w.add_muscle(MuscleSpec {
                        cell: id,
                        name: format!("m{k}"),
                        kind: MuscleKind::Spring,
                        from: k * n / (2 * PER_CELL),
                        to: k * n / (2 * PER_CELL) + n / 2,
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

/// Mean ± σ ms per step of `variant`, after `options.warmup` steps; also the active pairs at the end.
fn time(
    params: &CellParams,
    cells: usize,
    steps: u64,
    options: &CellBenchOptions,
    variant: Variant,
) -> Result<(f64, f64, usize), CellBenchError> {
    let sim_err = |source| CellBenchError::Sim { cells, bodies: params.bodies, source };
    let mut w = world(params, cells, options.stepping.unwrap_or(Stepping::CELLS), variant);
    w.run(options.warmup, &mut []).map_err(sim_err)?;
    let (mean, sd) = time_steps(&mut w, steps, options.repeats).map_err(sim_err)?;
    // Each pair is counted by both of its cells.
    let pairs = (0..cells).map(|i| w.cell_pairs(BodyId(i))).sum::<usize>() / 2;
    Ok((mean, sd, pairs))
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
    let bare = time(&params, cells, steps, options, Variant::Bare)?;
    let spread = time(&params, cells, steps, options, Variant::Spread)?;
    let off = time(&params, cells, steps, options, Variant::FacingOff)?;
    let on = time(&params, cells, steps, options, Variant::FacingOn)?;
    let muscles = time(&params, cells, steps, options, Variant::Muscles)?;
    let row = |element, count: usize, with: (f64, f64, usize), without: (f64, f64, usize)| {
        let c = count.max(1) as f64;
        IncrementRow {
            element,
            count,
            ms_with: with.0,
            ms_with_sd: with.1,
            ms_without: without.0,
            ms_without_sd: without.1,
            us_per_element: 1e3 * (with.0 - without.0) / c,
            us_per_element_sd: 1e3 * (with.1.powi(2) + without.1.powi(2)).sqrt() / c,
        }
    };
    Ok(vec![
        row(Element::Membrane, cells, bare, (0.0, 0.0, 0)),
        row(Element::InactiveConnector, cells * PER_CELL, spread, bare),
        row(Element::ActivePair, on.2, on, off),
        row(Element::Actuator, cells * PER_CELL, muscles, bare),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facing_connectors_pair_only_when_on_and_only_with_their_neighbour() {
        let p = CellPreset::ScsPaper.params();
        let mut on = world(&p, 4, Stepping { force_substeps: 1, solver_iterations: 4 }, Variant::FacingOn);
        on.run(2, &mut []).unwrap();
        // 2×2 grid: cells 0–1 and 2–3 face each other; every connector reaches at least the one
        // opposite it, and a couple's two cells count the same pairs.
        let pairs: Vec<usize> = (0..4).map(|i| on.cell_pairs(BodyId(i))).collect();
        assert!(pairs.iter().all(|&p| (PER_CELL..=PER_CELL * PER_CELL).contains(&p)), "{pairs:?}");
        assert_eq!((pairs[0], pairs[2]), (pairs[1], pairs[3]));
        let mut off = world(&p, 4, Stepping { force_substeps: 1, solver_iterations: 4 }, Variant::FacingOff);
        off.run(2, &mut []).unwrap();
        assert!((0..4).all(|i| off.cell_pairs(BodyId(i)) == 0));
    }
}
