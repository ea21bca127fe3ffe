//! The `vsr2d` command line. Exit codes: 0 success (also when stdout or stderr is a pipe closed early),
//! 1 failure while running (I/O, unstable simulation, encoder), 2 bad input (command line, scenario,
//! recording, resource limits); killed by SIGINT/SIGTERM/SIGHUP after deleting its temporary files.

#![forbid(unsafe_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod cli;

use cli::{input, load_scene, Failure};
use vsr2d::output::record::JsonlRecorder;
use vsr2d::scenario::{Limits, Scenario};
use vsr2d::snapshot::{SnapshotDetail, SnapshotListener};

#[derive(Parser)]
#[command(name = "vsr2d", version, about = "Simulate, render and characterize 2-D voxel-based soft robots")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Lift the resource limits (per scenario 10 000 voxels, 2e8 voxel steps, 20 000 terrain points,
    /// 1e5 soft-cell bodies, 2e8 body steps, 1e4 objects, 2e8 object steps, 1e5 object contact pairs; 1e7 genes
    /// per population; 1e5 POM lattice voxels;
    /// 5e10 pixels × frames per render; docs/commands.md, "Limits") for a rare big job. The validation ranges still apply.
    #[arg(long, global = true)]
    allow_large: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print its metrics as JSON on stdout.
    Simulate {
        /// Scenario JSON file (see `vsr2d schema`); `-` reads it from stdin.
        scenario: PathBuf,
        /// Override the scenario's duration, in seconds.
        #[arg(long)]
        duration: Option<f64>,
        /// Write the snapshots to this file as JSON Lines.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Record every k-th snapshot only (the first is always recorded).
        #[arg(long, default_value_t = 1, requires = "record")]
        every: u64,
        /// Optional snapshot content to record, for `render --from` layers: springs, ropes, welds,
        /// controller (comma-separated) or all.
        #[arg(long, value_name = "LIST", requires = "record", value_parser = cli::parse_detail)]
        detail: Option<SnapshotDetail>,
    },
    /// Print the JSON Schema of scenario files (`--result`: of a run's result, what `simulate` prints,
    /// with every metric's definition and unit; `--manifest`: of `vsr2d check` manifests).
    Schema {
        #[arg(long, conflicts_with = "manifest")]
        result: bool,
        #[arg(long)]
        manifest: bool,
        /// Hidden: the global `--allow-large` means nothing here (see `compare`'s).
        #[arg(long, hide = true)]
        allow_large: bool,
    },
    /// Run the cantilever characterization sweeps and write an HTML report with plots and data.
    Cantilever(cli::cantilever::CantileverArgs),
    /// The soft cells' report: force–deflection against the stadium model, timing, demonstrations and
    /// the acceptance table (spec cells.md §15).
    CellsReport(cli::cells_report::CellsReportArgs),
    /// Evaluate a JSONL batch of scenarios in parallel (restartable, shardable; see docs/batch.md).
    Eval(cli::eval::EvalArgs),
    /// Measure simulated voxel steps per second (SVSPS) as in the paper.
    Bench(cli::bench::BenchArgs),
    /// Render scenarios, recordings or the bundled showcase to an mp4, PNG frames or one PNG.
    Render(cli::render::RenderArgs),
    /// Write scenarios or recordings as one self-contained interactive HTML page (play, seek, zoom, layers,
    /// plots; docs/viewer.md).
    View(cli::view::ViewArgs),
    /// Compare two images as the test suite's golden checks do (exit 0: match, 1: differ, 2: bad input).
    Compare(cli::compare::CompareArgs),
    /// Check golden images and numbers of the cases of a manifest against a baseline directory, for CI
    /// (exit 0: all pass, 1: some differ, 2: bad input or a missing baseline; docs/golden-images.md).
    Check(cli::check::CheckArgs),
    /// Evolve robots with the paper's μ+λ genetic algorithm (checkpointed; rerun to resume).
    Evolve(cli::evolve::EvolveArgs),
    /// The paper's three studies (body, evodevo, sensing), the distributed one and the optimizer studies (qd, energy) over several seeds, with a report.
    Study(cli::study::StudyArgs),
    /// Planes of Motion kinematics of 3-D voxel lattices: J, q(t), x(t) and the gait checks as CSV.
    Pom(cli::pom::PomArgs),
}

#[cfg(feature = "video")]
fn video_description() -> String {
    vsr2d::output::video::encoder_description()
}

#[cfg(not(feature = "video"))]
fn video_description() -> String {
    "mp4: not in this build (built without the `video` feature)".into()
}

fn main() -> ExitCode {
    clean_up_on_signals();
    quiet_print_failures();
    // `--version` (not `-V`) also says what mp4 files are made with: x264 in a source build on Debian's
    // FFmpeg, OpenH264 in the portable wheel.
    let long_version = format!("{}\n{}", env!("CARGO_PKG_VERSION"), video_description());
    let matches = Cli::command().long_version(&*Box::leak(long_version.into_boxed_str())).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli::set_limits(if cli.allow_large { Limits::NONE } else { Limits::DEFAULT });
    let (code, e) = match run(cli) {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Failure::Input(e)) => (2, e),
        Err(Failure::Runtime(e)) => (1, e),
    };
    if cli::is_broken_pipe(&e) {
        // `vsr2d schema | head`: the reader has all it wanted.
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(std::io::stderr(), "error: {}", describe(&e));
    ExitCode::from(code)
}

/// On SIGINT, SIGTERM or SIGHUP, deletes every temporary file and staging directory still registered
/// (unfinished videos, recordings, report files; see `vsr2d::output::atomic`), then dies of the signal as
/// it would have without the handler (exit status 128 + signal for a shell).
fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
    let _ = std::thread::Builder::new().name("vsr2d-signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            vsr2d::output::atomic::remove_temporaries();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}

/// `println!`/`eprintln!` panic when the write fails. The commands write through `cli::out` and
/// `cli::note`, which return errors instead; this hook is the net for any print left elsewhere: a closed
/// pipe exits 0, another failed print exits 1 with a message, never a panic report (temporaries are
/// deleted first).
fn quiet_print_failures() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if text.starts_with("failed printing to std") {
            vsr2d::output::atomic::remove_temporaries();
            if text.contains("Broken pipe") {
                std::process::exit(0);
            }
            let _ = writeln!(std::io::stderr(), "error: {text}");
            std::process::exit(1);
        }
        default(info);
    }));
}

/// The error and its causes on one line. Library messages often quote their cause already, so a
/// cause whose text is already in the line is not repeated.
fn describe(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Simulate { scenario, duration, record, every, detail } => {
            simulate(&scenario, duration, record.as_deref(), every, detail)
        }
        Command::Eval(args) => cli::eval::run(args),
        Command::Bench(args) => cli::bench::run(args),
        Command::Render(args) => cli::render::run(args),
        Command::Pom(args) => cli::pom::run(args),
        Command::Compare(args) => cli::compare::run(args),
        Command::Check(args) => cli::check::run(args),
        Command::View(args) => cli::view::run(args),
        Command::Evolve(args) => cli::evolve::run_cli(args),
        Command::Study(args) => cli::study::run(args),
        Command::Cantilever(args) => cli::cantilever::run(args),
        Command::CellsReport(args) => cli::cells_report::run(args),
        Command::Schema { allow_large: true, .. } => Err(input(anyhow::anyhow!(
            "--allow-large lifts the resource limits of simulations and renders; schema runs neither: leave it out"
        ))),
        Command::Schema { result, manifest, .. } => {
            let schema = if result {
                schemars::schema_for!(vsr2d::task::RunResult)
            } else if manifest {
                schemars::schema_for!(vsr2d::check::Manifest)
            } else {
                schemars::schema_for!(Scenario)
            };
            cli::outln(&serde_json::to_string_pretty(&schema)?)
        }
    }
}

fn simulate(
    path: &Path,
    duration: Option<f64>,
    record: Option<&Path>,
    every: u64,
    detail: Option<SnapshotDetail>,
) -> Result<(), Failure> {
    if let Some(record) = record {
        vsr2d::output::check_distinct(&[("--record", record)], &[("SCENARIO", path)]).map_err(input)?;
    }
    let scene = load_scene(path, duration, detail)?;
    let steps = scene.steps();
    let simulation = scene.build().with_context(|| format!("scenario {}", path.display())).map_err(input)?;
    // Open the recording before simulating, so an unwritable path fails at once.
    let mut recorder = record.map(|p| JsonlRecorder::create(p, every)).transpose().map_err(input)?;
    let mut listeners: Vec<&mut dyn SnapshotListener> = Vec::new();
    if let Some(r) = recorder.as_mut() {
        listeners.push(r);
    }
    // A long run shows its progress and an estimate on a terminal (never in pipes or logs: there the
    // run takes the listener-free path).
    let mut progress = std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| cli::StepProgress::new(steps));
    if let Some(p) = progress.as_mut() {
        listeners.push(p);
    }
    let output = vsr2d::batch::simulate(simulation, &mut listeners).map_err(|e| match e {
        e @ vsr2d::task::RunError::NotOneRun => {
            input(anyhow::anyhow!(e).context(format!("scenario {}", path.display())))
        }
        e => anyhow::anyhow!(e).into(),
    })?;
    drop(listeners);
    drop(progress);
    if let Some(r) = recorder.take_if(|r| r.closed()) {
        // `--record /dev/stdout | head`: the recording's reader went away and the run stopped there.
        // Its metrics are those of a partial run: end quietly (a broken pipe, exit 0) without them.
        r.finish()?;
    }
    if let Some(pointer) = output.non_finite() {
        // NaN/inf is no result (and not JSON): fail before publishing the recording.
        return Err(anyhow::anyhow!(vsr2d::batch::EvalError::NonFinite { pointer }).into());
    }
    if let Some(r) = recorder {
        r.finish()?;
    }
    cli::outln(&serde_json::to_string_pretty(&output)?)
}
