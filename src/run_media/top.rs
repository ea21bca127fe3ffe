//! The K best individuals of evolution runs (`vsr2d render --top K DIR...`): every run directory at or
//! below the directories given, read through [`crate::evolve::reader`], ranked by fitness in each
//! run's own direction.

use std::path::{Path, PathBuf};

use super::{open_run, RunCell, RunPictureError};
use crate::evolve::reader::FINAL_POPULATION;
use crate::evolve::Goal;
use crate::scenario::Scenario;

/// How far below a given directory runs are looked for (a study: study / configuration / run).
pub(crate) const SEARCH_DEPTH: usize = 3;

/// The `k` best individuals over the finished runs under `dirs` (a run directory holds
/// `final_population.jsonl`; its experiment says whether fitness is maximised or minimised), best
/// first, each headed `#rank fitness F · run` (the run directory as given). Invalid individuals
/// (no fitness or no scenario) are skipped; ties keep run order, then population order.
pub(crate) fn top_individuals(dirs: &[PathBuf], k: usize) -> Result<Vec<RunCell>, RunPictureError> {
    let mut runs = Vec::new();
    for dir in dirs {
        find_runs(dir, SEARCH_DEPTH, &mut runs);
    }
    let given = || dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    if runs.is_empty() || k == 0 {
        return Err(RunPictureError::NoRuns { dirs: given() });
    }
    // (score to maximise, fitness, run, scenario, line)
    let mut all = Vec::new();
    for dir in &runs {
        let run = open_run(dir)?;
        let minimise = run.goal() == Goal::Min;
        for member in run.final_population()? {
            let (Some(fitness), false) = (member.fitness.filter(|f| f.is_finite()), member.scenario.is_null()) else {
                continue;
            };
            let score = if minimise { -fitness } else { fitness };
            all.push((score, fitness, dir.clone(), member.scenario, member.rank));
        }
    }
    if all.is_empty() {
        return Err(RunPictureError::NoneRanked { dirs: given() });
    }
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    all.into_iter()
        .take(k)
        .enumerate()
        .map(|(i, (_, fitness, dir, scenario, rank))| {
            let path = dir.join(FINAL_POPULATION);
            let scenario = Scenario::from_json(&scenario.to_string()).map_err(|e| RunPictureError::Invalid {
                path,
                message: format!("the scenario of rank {rank} is invalid: {e}"),
            })?;
            let heading = format!("#{} fitness {fitness:.4} · {}", i + 1, dir.display());
            Ok(RunCell { name: heading.clone(), heading: Some(heading), scenario })
        })
        .collect()
}

/// Run directories (holding `final_population.jsonl`) at or below `dir`, at most `depth` levels
/// down, in name order.
pub(crate) fn find_runs(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if dir.join(FINAL_POPULATION).is_file() {
        out.push(dir.to_owned());
        return;
    }
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut subdirs: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect();
    subdirs.sort();
    for sub in subdirs {
        find_runs(&sub, depth - 1, out);
    }
}
