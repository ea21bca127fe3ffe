//! The `vsr2d` command line. Exit codes: 0 success, 1 failure while running (I/O, unstable simulation,
//! encoder), 2 bad input (command line, scenario, recording).

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

mod cli;

use cli::{input, load_scenario, Failure};
use vsr2d::output::record::JsonlRecorder;
use vsr2d::scenario::Scenario;
use vsr2d::snapshot::{SnapshotDetail, SnapshotListener};

#[derive(Parser)]
#[command(name = "vsr2d", version, about = "Simulate, render and characterize 2-D voxel-based soft robots")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
        #[arg(long, value_name = "LIST", requires = "record", value_parser = parse_detail)]
        detail: Option<SnapshotDetail>,
    },
    /// Print the JSON Schema of scenario files.
    Schema,
    /// Run the cantilever characterization sweeps and write an HTML report with plots and data.
    Cantilever(cli::cantilever::CantileverArgs),
    /// Evaluate a JSONL batch of scenarios in parallel (restartable, shardable; see docs/batch.md).
    Eval(cli::eval::EvalArgs),
    /// Measure simulated voxel steps per second (SVSPS) as in the paper.
    Bench(cli::bench::BenchArgs),
    /// Render scenarios, recordings or the bundled showcase to an mp4, PNG frames or one PNG.
    Render(cli::render::RenderArgs),
    /// Compare two images as the test suite's golden checks do (exit 0: match, 1: differ, 2: bad input).
    Compare(cli::compare::CompareArgs),
    /// Evolve robots with the paper's μ+λ genetic algorithm (checkpointed; rerun to resume).
    Evolve(cli::evolve::EvolveArgs),
    /// Planes of Motion kinematics of 3-D voxel lattices: J, q(t), x(t) and the gait checks as CSV.
    Pom(cli::pom::PomArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            eprintln!("error: {}", describe(&e));
            ExitCode::from(2)
        }
        Err(Failure::Runtime(e)) => {
            eprintln!("error: {}", describe(&e));
            ExitCode::from(1)
        }
    }
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
        Command::Evolve(args) => cli::evolve::run_cli(args),
        Command::Cantilever(args) => cli::cantilever::run(args),
        Command::Schema => {
            let schema = schemars::schema_for!(Scenario);
            println!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(())
        }
    }
}

/// `springs,ropes` → the snapshot detail with those on; `all` → everything.
fn parse_detail(text: &str) -> Result<SnapshotDetail, String> {
    let mut d = SnapshotDetail::default();
    for part in text.split(',').map(str::trim) {
        match part {
            "springs" => d.springs = true,
            "ropes" => d.ropes = true,
            "welds" => d.welds = true,
            "controller" => d.controller = true,
            "all" => d = SnapshotDetail::ALL,
            _ => return Err(format!("unknown detail {part:?}; use springs, ropes, welds, controller or all")),
        }
    }
    Ok(d)
}

fn simulate(
    path: &Path,
    duration: Option<f64>,
    record: Option<&Path>,
    every: u64,
    detail: Option<SnapshotDetail>,
) -> Result<(), Failure> {
    let mut scenario = load_scenario(path, duration)?;
    if let Some(extra) = detail {
        let d = &mut scenario.world.snapshot;
        (d.springs, d.ropes, d.welds, d.controller) =
            (d.springs | extra.springs, d.ropes | extra.ropes, d.welds | extra.welds, d.controller | extra.controller);
    }
    let simulation = scenario.build().with_context(|| format!("scenario {}", path.display())).map_err(input)?;
    // Open the recording before simulating, so an unwritable path fails at once.
    let mut recorder = record.map(|p| JsonlRecorder::create(p, every)).transpose().map_err(input)?;
    let mut listeners: Vec<&mut dyn SnapshotListener> = Vec::new();
    if let Some(r) = recorder.as_mut() {
        listeners.push(r);
    }
    // Without a recording no snapshot is needed: the metrics read the world directly.
    let metrics = if listeners.is_empty() { simulation.evaluate()? } else { simulation.run(&mut listeners)? };
    if let Some(r) = recorder {
        r.finish()?;
    }
    println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "robots": metrics }))?);
    Ok(())
}
