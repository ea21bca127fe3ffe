//! Section 5 of the cells report (spec `cells.md` §15 item 5, the paper's Fig. 5): the E, P, F, L
//! self-folding reconstructions, run from the fixtures `cells-fold-<letter>.json` as they are in this
//! checkout (`include_str!`), in parallel, through [`vsr2d::batch::simulate`] with the `fold` task's
//! own listener, which also keeps the error series for the chart.

use rayon::prelude::*;
use serde::Serialize;

use super::demos::DemoError;
use vsr2d::model::cell::fold::{Program, RECONSTRUCTION};
use vsr2d::scenario::Scenario;
use vsr2d::task::fold::{FoldListener, FoldMetrics};

/// The fixtures, as compiled in: (letter, JSON).
pub const FIXTURES: [(&str, &str); 4] = [
    ("E", include_str!("../../../../fixtures/scenarios/cells-fold-E.json")),
    ("P", include_str!("../../../../fixtures/scenarios/cells-fold-P.json")),
    ("F", include_str!("../../../../fixtures/scenarios/cells-fold-F.json")),
    ("L", include_str!("../../../../fixtures/scenarios/cells-fold-L.json")),
];

/// The acceptance bound on the final RMS centre error, in units of D (spec §16).
pub const MAX_ERROR_D: f64 = 0.25;

/// The letters the section covers: all four, or L only with `--quick` (spec §15).
pub fn letters(quick: bool) -> Vec<&'static str> {
    if quick {
        vec!["L"]
    } else {
        FIXTURES.iter().map(|(l, _)| *l).collect()
    }
}

/// The fold fixture of `letter`, parsed.
pub fn scenario(letter: &str) -> Result<Scenario, DemoError> {
    let name = format!("fold {letter}");
    let (_, json) = FIXTURES
        .iter()
        .find(|(l, _)| *l == letter)
        .ok_or_else(|| DemoError::Fixture { name: name.clone(), message: "no such letter".into() })?;
    Scenario::from_json(json).map_err(|source| DemoError::Scenario { name, source })
}

/// One letter's reconstruction.
#[derive(Debug, Clone, Serialize)]
pub struct FoldRun {
    pub letter: String,
    pub metrics: FoldMetrics,
    /// Largest membrane perimeter error of the chain's cells over the run.
    pub max_perimeter_error: f64,
    /// (t, RMS error / D) every 10 steps.
    pub series: Vec<(f64, f64)>,
    /// The error, in D, of the spec's touching chain (§6) with each cell rigid between its pins, at its
    /// best bends ([`Program::rigid_chain_optimum`]): what pins at opposite points allow before any
    /// softness, the reason the fixtures use stop chains.
    pub rigid_optimum: f64,
    /// The chain's cell types and their pressure constants C, N, in order of first use.
    pub pressures: Vec<(String, f64)>,
    /// The chain cells whose two pins sit a quarter turn apart (a stop chain's offsets), in chain order.
    pub quarter_turn_cells: Vec<usize>,
    /// The scenario's duration, s.
    pub duration: f64,
}

/// What section 5 shows.
#[derive(Debug, Clone, Serialize)]
pub struct FoldingSection {
    pub caption: &'static str,
    pub runs: Vec<FoldRun>,
}

impl FoldingSection {
    /// Folds the letters of `letters(quick)`, in parallel.
    pub fn run(quick: bool) -> Result<FoldingSection, DemoError> {
        let runs = letters(quick).into_par_iter().map(run_letter).collect::<Result<Vec<_>, _>>()?;
        Ok(FoldingSection { caption: RECONSTRUCTION, runs })
    }

    /// Whether every letter of the full set ran.
    pub fn complete(&self) -> bool {
        self.runs.len() == FIXTURES.len()
    }
}

fn run_letter(letter: &str) -> Result<FoldRun, DemoError> {
    let name = format!("fold {letter}");
    let s = scenario(letter)?;
    let goals = s.fold_goals().map_err(|source| DemoError::Scenario { name: name.clone(), source })?;
    let plan = s.cell_plan().map_err(|source| DemoError::Scenario { name: name.clone(), source })?;
    let mut pressures: Vec<(String, f64)> = Vec::new();
    for c in &plan.cells {
        if !pressures.iter().any(|(t, _)| *t == c.type_name) {
            pressures.push((c.type_name.clone(), c.params.pressure));
        }
    }
    let quarter_turn_cells = plan
        .folds
        .first()
        .and_then(|f| f.stops.as_ref())
        .map_or(Vec::new(), |c| c.offsets.iter().enumerate().filter(|(_, o)| **o != 0.0).map(|(k, _)| k).collect());
    let duration = s.world.duration;
    let sim = s.build().map_err(|source| DemoError::Scenario { name: name.clone(), source })?;
    // The chain's pitch d_c: the distance of its first two target points.
    let pitch = goals.first().and_then(|g| Some((*g.targets.get(1)? - *g.targets.first()?).length()));
    let mut listener = FoldListener::new(goals);
    let out = vsr2d::batch::simulate(sim, &mut [&mut listener])
        .map_err(|source| DemoError::Sim { name: name.clone(), source })?;
    let metrics = listener
        .metrics()
        .into_iter()
        .next()
        .ok_or_else(|| DemoError::Fixture { name, message: "the fixture has no programmed chain".into() })?;
    let max_perimeter_error = out.cells.iter().flatten().map(|c| c.max_perimeter_error).fold(0.0, f64::max);
    let series = listener.series()[0].iter().step_by(10).copied().collect();
    let program = Program::builtin(&metrics.program)
        .ok_or_else(|| DemoError::Fixture { name: format!("fold {letter}"), message: "not a builtin letter".into() })?;
    let rigid_optimum = program.rigid_chain_optimum().error * pitch.unwrap_or(metrics.diameter) / metrics.diameter;
    Ok(FoldRun {
        letter: letter.into(),
        metrics,
        max_perimeter_error,
        series,
        rigid_optimum,
        pressures,
        quarter_turn_cells,
        duration,
    })
}
