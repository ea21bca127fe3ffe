//! `vsr2d cells-report`: run the soft cells' sections and write the report directory (spec `cells.md` §15).

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{anyhow, Context};
use clap::Args;

use super::{input, Failure};
use vsr2d::model::cell::CellPreset;
use vsr2d_report::cells::report::{run as run_report, write_report, CellsReportOptions};
use vsr2d_report::cells::Sections;

#[derive(Args)]
pub struct CellsReportArgs {
    /// Report directory (created if missing).
    #[arg(short, long, default_value = "cells-report")]
    output: PathBuf,
    /// The reduced report: C ∈ {50, 450}, 10 load levels, up to 100 cells, N up to 300, fold L only.
    #[arg(long)]
    quick: bool,
    /// Cell preset of the settings and the force–deflection sweep.
    #[arg(long, default_value = "scs-paper", value_parser = ["scs-paper", "scs-code"])]
    preset: String,
    /// Only these sections, comma-separated: fd, timing, demos, folding (default: all).
    #[arg(long)]
    only: Option<String>,
    /// Solver substeps per engine step of the force–deflection sweep (default: the converged 64, at 4 engine
    /// steps per step); the convergence table shows what doubling them changes.
    #[arg(long)]
    substeps: Option<usize>,
    /// Parallel simulations (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// No progress lines.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: CellsReportArgs) -> Result<(), Failure> {
    let sections = match &args.only {
        Some(text) => text.parse::<Sections>().map_err(|e| input(anyhow!("--only: {e}")))?,
        None => Sections::ALL,
    };
    if let Some(n) = args.substeps.filter(|n| !(1..=256).contains(n)) {
        return Err(input(anyhow!("--substeps {n} is invalid: give 1 to 256")));
    }
    let preset = if args.preset == "scs-code" { CellPreset::ScsCode } else { CellPreset::ScsPaper };
    // Fail on an unwritable report directory before any simulation.
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create the report directory {}", args.output.display()))
        .map_err(input)?;
    vsr2d::output::check_dir_writable(&args.output).map_err(input)?;

    let options = CellsReportOptions { quick: args.quick, preset, sections, substeps: args.substeps };
    let verbose = !args.quiet && std::io::stderr().is_terminal();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build()?;
    let started = std::time::Instant::now();
    let data = pool.install(|| {
        run_report(&options, |what| {
            if verbose {
                let _ = super::note(&format!("cells-report: {what} …"));
            }
        })
    })?;
    let index = write_report(&args.output, &data)?;
    let (timing, physics): (Vec<_>, Vec<_>) =
        data.checks.iter().cloned().partition(|c| vsr2d_report::cells::page::is_timing_check(&c.id));
    let summary = vsr2d_report::checks::Summary::of(&physics);
    use vsr2d_report::checks::Verdict;
    let outside = timing.iter().filter(|c| c.verdict == Verdict::Flag).count();
    let measured = timing.iter().filter(|c| c.verdict != Verdict::NoData).count();
    super::note(&format!(
        "cells-report: {}; timing rows outside target on this machine: {outside} of {measured} measured \
         (machine-dependent figures); in {:.1} s; report in {}",
        summary.line("physics checks"),
        started.elapsed().as_secs_f64(),
        index.display()
    ))
}
