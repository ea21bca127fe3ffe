//! Section 5 of the cells report (spec `cells.md` §15 item 5, the paper's Fig. 5): the E, P, F, L
//! self-folding reconstructions. This build has no `fold` task, so the section says so; it is produced by
//! [`folding_section`] alone, which is where the fold runs, their filmstrips, errors and videos go.

use serde::Serialize;

/// The letters the section covers: all four, or L only with `--quick` (spec §15).
pub fn letters(quick: bool) -> Vec<&'static str> {
    if quick {
        vec!["L"]
    } else {
        vec!["E", "P", "F", "L"]
    }
}

/// One letter's reconstruction (empty until the `fold` task exists).
#[derive(Debug, Clone, Serialize)]
pub struct FoldRun {
    pub letter: String,
    /// Final RMS centre error after alignment, in units of D.
    pub rms_error_d: Option<f64>,
    pub unintended_pairs: Option<usize>,
    pub t95: Option<f64>,
    pub filmstrip: Option<String>,
    pub video: Option<String>,
}

/// What section 5 shows.
#[derive(Debug, Clone, Serialize)]
pub struct FoldingSection {
    pub available: bool,
    /// The sentence the page shows.
    pub text: String,
    pub letters: Vec<String>,
    pub runs: Vec<FoldRun>,
}

/// Section 5: today a plain statement that self-folding is not available in this build.
pub fn folding_section(quick: bool) -> FoldingSection {
    let letters: Vec<String> = letters(quick).into_iter().map(String::from).collect();
    FoldingSection {
        available: false,
        text: format!(
            "self-folding: not available in this build (no `fold` task); the letters this run would reconstruct: {}",
            letters.join(", ")
        ),
        letters,
        runs: Vec::new(),
    }
}
