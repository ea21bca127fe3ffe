//! `vsr2d pom`: run a POM spec (or the built-in `pom-quadruped`), print J, the gait's phases and the
//! acceptance table, and write the report directory (CSVs, plots, stills, `pom.mp4`, `index.html`).
//! `vsr2d pom align DATA.csv` adds a motion-capture file, aligned by the paper's four steps.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};

use vsr2d::pom::align::{against_model, parse_tracks_csv, Units};
use vsr2d::pom::spec::Rescale;
use vsr2d::pom::{example, run as run_spec, tables, PomRun, PomSpec};
use vsr2d_report::checks::{Check, Verdict};
use vsr2d_report::pom::video::VideoOutcome;
use vsr2d_report::pom::{write, Mocap, ReportInput};

use super::{input, Failure};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PomArgs {
    #[command(subcommand)]
    pub command: Option<PomCommand>,
    /// POM spec JSON file (see `vsr2d pom --schema`); without it, the built-in `--example` runs.
    pub spec: Option<PathBuf>,
    /// Built-in example to run when no spec file is given.
    #[arg(long, default_value = example::QUADRUPED, conflicts_with = "spec")]
    pub example: String,
    /// Report directory: CSVs, plots, three-view stills, pom.mp4 and index.html.
    #[arg(long, short, default_value = "pom-report")]
    pub out: PathBuf,
    /// Skip pom.mp4 (the stills are still drawn).
    #[arg(long)]
    pub no_video: bool,
    /// Print the JSON Schema of POM spec files and exit.
    #[arg(long, exclusive = true)]
    pub schema: bool,
}

#[derive(Subcommand)]
pub enum PomCommand {
    /// Align a motion-capture CSV (`t,m1_x,m1_y,…`) onto the model's markers and report the RMS error.
    Align(AlignArgs),
}

#[derive(Args)]
pub struct AlignArgs {
    /// Marker CSV: `t,<marker>_x,<marker>_y,…`, one pair per marker of the spec, in the spec's order.
    pub data: PathBuf,
    /// POM spec JSON whose markers the data tracks (default: the built-in pom-quadruped).
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Length unit of the CSV.
    #[arg(long, value_enum, default_value = "mm")]
    pub units: UnitsArg,
    /// Step 4 of the alignment; default: the spec's `align.rescale` (`variance` if absent).
    #[arg(long, value_enum)]
    pub rescale: Option<RescaleArg>,
    /// Report directory.
    #[arg(long, short, default_value = "pom-align-report")]
    pub out: PathBuf,
    /// Skip pom.mp4.
    #[arg(long)]
    pub no_video: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum UnitsArg {
    Mm,
    M,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum RescaleArg {
    Variance,
    None,
}

pub fn run(args: PomArgs) -> Result<(), Failure> {
    if args.schema {
        println!("{}", serde_json::to_string_pretty(&schemars::schema_for!(PomSpec))?);
        return Ok(());
    }
    let start = Instant::now();
    if let Some(PomCommand::Align(a)) = args.command {
        super::check_dir_creatable(&a.out).map_err(input)?;
        return align(a, start);
    }
    super::check_dir_creatable(&args.out).map_err(input)?;
    let (spec, csv, source) = match &args.spec {
        Some(path) => {
            let (s, c) = load(path)?;
            (s, c, path.display().to_string())
        }
        None => (example::by_name(&args.example).map_err(input)?, None, args.example.clone()),
    };
    let result = run_spec(&spec, csv.as_deref()).map_err(input)?;
    print_run(&result);
    report(&args.out, &source, &spec, &result, None, !args.no_video, start)
}

fn print_run(result: &PomRun) {
    if let Some(note) = &result.reconstruction {
        println!("NOTE: {note}\n");
    }
    println!("{}", tables::j_table(result));
    let phases = tables::phase_table(result);
    if !phases.is_empty() {
        println!("{phases}");
    }
    print!("{}", tables::summary(result));
}

/// The report's three-view stills, counted generously (the start, then one per swing of a gait's first cycle
/// or the largest displacement).
const STILLS: u64 = 8;

fn report(
    out: &Path,
    source: &str,
    spec: &PomSpec,
    result: &PomRun,
    mocap: Option<Mocap<'_>>,
    video: bool,
    start: Instant,
) -> Result<(), Failure> {
    // The video's frames (and a few stills) at the render size, before anything is drawn.
    let render = spec.render.clone().unwrap_or_default();
    let frames = if video { vsr2d_report::pom::video::frame_count(result, render.fps) } else { 0 };
    super::limits().check_render(frames.saturating_add(STILLS), render.size[0], render.size[1], 1).map_err(|e| {
        input(anyhow::anyhow!(
            "POM spec {source}: the report's {} frames of {}×{} pixels: {} (`render.size`, `render.fps`; \
                 --no-video draws the stills only)",
            vsr2d::geom::compact(frames as f64),
            render.size[0],
            render.size[1],
            e.to_string().replacen("`frames`: ", "", 1)
        ))
    })?;
    let input = ReportInput { source, spec, run: result, mocap, video };
    let written = write(out, &input).with_context(|| format!("cannot write the report in {}", out.display()))?;
    println!("\n{}", acceptance_text(&written.checks));
    println!("{}", written.summary.line("Acceptance checks of spec §13"));
    if let VideoOutcome::Skipped(why) = &written.video {
        eprintln!("note: {why}");
    }
    eprintln!(
        "wrote {} ({} data files, plots, stills{}) in {:.1} s",
        written.index.display(),
        written.files.len(),
        if matches!(written.video, VideoOutcome::Written { .. }) { ", pom.mp4" } else { "" },
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The acceptance table as plain text, one check per line.
fn acceptance_text(checks: &[Check]) -> String {
    let mut out = String::from("acceptance (spec §13)\n");
    for c in checks {
        let v = match c.verdict {
            Verdict::Pass => "pass",
            Verdict::Flag => "FAIL",
            Verdict::NoData => "n/a ",
        };
        out.push_str(&format!("{:>2}  {v}  {}\n      measured: {}\n", c.runs, c.name, c.measured));
    }
    out
}

fn align(a: AlignArgs, start: Instant) -> Result<(), Failure> {
    let (spec, csv, source) = match &a.spec {
        Some(path) => {
            let (s, c) = load(path)?;
            (s, c, path.display().to_string())
        }
        None => (example::quadruped().map_err(input)?, None, example::QUADRUPED.to_string()),
    };
    let result = run_spec(&spec, csv.as_deref()).map_err(input)?;
    let text = std::fs::read_to_string(&a.data)
        .with_context(|| format!("cannot read the mocap CSV {}", a.data.display()))
        .map_err(input)?;
    let units = match a.units {
        UnitsArg::Mm => Units::Mm,
        UnitsArg::M => Units::M,
    };
    let tracks =
        parse_tracks_csv(&text, units).with_context(|| format!("mocap CSV {}", a.data.display())).map_err(input)?;
    let rescale = match a.rescale {
        Some(RescaleArg::Variance) => Rescale::Variance,
        Some(RescaleArg::None) => Rescale::None,
        None => spec.align.as_ref().map_or(Rescale::Variance, |al| al.rescale),
    };
    let (aligned, comparison) = against_model(&result.model, &result.solution, &tracks, rescale)
        .with_context(|| format!("aligning {}", a.data.display()))
        .map_err(input)?;
    if !(comparison.rms.is_finite() && comparison.model_rms.is_finite()) {
        return Err(input(anyhow::anyhow!(
            "aligning {}: the RMS difference to POM's markers is {} (model {}), not a number: are the marker \
             coordinates in --units {}, and within the size of the robot?",
            a.data.display(),
            vsr2d::geom::compact(comparison.rms),
            vsr2d::geom::compact(comparison.model_rms),
            if matches!(units, Units::M) { "m" } else { "mm" }
        )));
    }
    if let Some(note) = &result.reconstruction {
        println!("NOTE: {note}\n");
    }
    println!(
        "aligned {} samples of {} markers ({} compared, {} outside the model's time span); rescale factor {:.4}",
        tracks.times.len(),
        tracks.names.len(),
        comparison.times.len(),
        comparison.skipped,
        aligned.scale
    );
    println!(
        "RMS difference to POM's markers: {:.3} mm (RMS model displacement {:.3} mm)",
        comparison.rms * 1e3,
        comparison.model_rms * 1e3
    );
    let file = a.data.display().to_string();
    let mocap = Mocap { file: &file, tracks: &tracks, aligned: &aligned, comparison: &comparison, rescale };
    report(&a.out, &source, &spec, &result, Some(mocap), !a.no_video, start)
}

/// Reads a spec and, for `forward` from a CSV log, the log (relative to the spec file).
fn load(path: &Path) -> Result<(PomSpec, Option<String>), Failure> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read POM spec {}", path.display()))
        .map_err(input)?;
    let spec = PomSpec::from_json_within(&text, &super::limits())
        .with_context(|| format!("POM spec {}", path.display()))
        .map_err(input)?;
    let csv = match spec.forward.as_ref().and_then(|f| f.csv.as_ref()) {
        Some(name) if spec.mode == vsr2d::pom::spec::Mode::Forward => {
            let log = path.parent().unwrap_or(Path::new(".")).join(name);
            let text = std::fs::read_to_string(&log)
                .with_context(|| format!("cannot read forward.csv {}", log.display()))
                .map_err(input)?;
            Some(text)
        }
        _ => None,
    };
    Ok((spec, csv))
}
