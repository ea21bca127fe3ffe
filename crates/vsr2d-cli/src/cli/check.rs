//! `vsr2d check`: a repository's golden images and numbers against its baselines (the library's
//! `vsr2d::check`, also behind `vsr2d.testing` in Python).

use std::path::{Path, PathBuf};

use clap::Args;

use vsr2d::check::{self, CheckOptions, Plan, Status};

use super::{classified, input, Failure};

#[derive(Args)]
pub struct CheckArgs {
    /// The manifest (JSON; `vsr2d schema --manifest` prints its schema). Paths in it are relative to it.
    pub manifest: PathBuf,
    /// The baseline directory: CASE.png (or CASE@Ts.png per time) and CASE.json per case.
    #[arg(long, value_name = "DIR")]
    pub baseline: PathBuf,
    /// Write missing baselines and replace those beyond tolerance (only these files), then pass.
    #[arg(long)]
    pub update: bool,
    /// Write expected.png, actual.png, diff.png and one CASE-compare.png per failing image, and the numbers
    /// table, here (created if missing; not inside --baseline).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write a JUnit XML report here (one test case per case).
    #[arg(long, value_name = "FILE.xml")]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary here (e.g. "$GITHUB_STEP_SUMMARY"; kept under 1 MiB).
    #[arg(long, value_name = "FILE.md")]
    pub summary: Option<PathBuf>,
    /// Cases run at once (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
}

fn failure(e: check::CheckError) -> Failure {
    classified(e.is_input(), e)
}

/// Exit 0: every case passes (or was updated); 1: a picture or number differs beyond its tolerance;
/// 2: bad input or a missing baseline.
pub fn run(args: CheckArgs) -> Result<(), Failure> {
    let plan = Plan::load(&args.manifest, &super::limits()).map_err(failure)?;
    let options = CheckOptions {
        baseline: args.baseline.clone(),
        update: args.update,
        out: args.out.clone(),
        jobs: args.jobs.map(|n| n as usize),
        limits: super::limits(),
    };
    let mut files: Vec<(&'static str, &Path)> = Vec::new();
    files.extend(args.junit.iter().map(|p| ("--junit", p.as_path())));
    files.extend(args.summary.iter().map(|p| ("--summary", p.as_path())));
    check::check_outputs(&plan, &options, &files).map_err(failure)?;
    for path in args.junit.iter().chain(&args.summary) {
        vsr2d::output::check_output_writable(path).map_err(input)?;
    }
    if let Some(out) = &args.out {
        super::check_dir_creatable(out).map_err(input)?;
    }

    let report = check::run(&plan, &options).map_err(failure)?;

    for c in &report.cases {
        let line = match c.status {
            Status::Pass => format!("pass  {}", c.name),
            Status::Updated => format!("updated {}: {}", c.name, c.updated.join("; ")),
            Status::Fail | Status::MissingBaseline => format!("FAIL  {}: {}", c.name, c.failure_message()),
        };
        super::outln(&line)?;
        for n in &c.notes {
            super::outln(&format!("      note: {n}"))?;
        }
    }
    let suite = args.manifest.display().to_string();
    check::report::write_files(&report, &suite, args.junit.as_deref(), args.summary.as_deref(), args.out.as_deref())
        .map_err(failure)?;
    let (failed, total) = (
        report.cases.iter().filter(|c| c.status != Status::Pass && c.status != Status::Updated).count(),
        report.cases.len(),
    );
    let tail = match (&args.out, failed) {
        (Some(out), 1..) => format!("; artefacts in {}", out.display()),
        _ => String::new(),
    };
    super::note(&format!("check: {} of {total} cases pass in {:.1} s{tail}", total - failed, report.seconds))?;
    match report.exit_code() {
        0 => Ok(()),
        1 => Err(Failure::Runtime(anyhow::anyhow!("{failed} of {total} cases differ from their baselines"))),
        _ => Err(input(anyhow::anyhow!(
            "a baseline is missing: run `vsr2d check {} --baseline {} --update`, look at the files it writes and \
             commit them",
            args.manifest.display(),
            args.baseline.display()
        ))),
    }
}
