//! Subcommand implementations of the `vsr2d` binary, one module per command, sharing the
//! input-versus-runtime failure classification that decides the exit code.

pub mod cantilever;

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use anyhow::Context;

use vsr2d::scenario::{Limits, Scenario, Scene};
use vsr2d::snapshot::SnapshotDetail;

pub mod bench;
pub mod cells_report;
pub mod check;
pub mod compare;
pub mod eval;
pub mod evolve;
mod picture;
pub mod pom;
pub mod render;
pub mod study;
pub mod view;

/// A failure, classified for the exit code.
pub enum Failure {
    /// Bad command line, scenario or recording: exit code 2.
    Input(anyhow::Error),
    /// Anything else: exit code 1.
    Runtime(anyhow::Error),
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Runtime(e.into())
    }
}

pub fn input<E: Into<anyhow::Error>>(e: E) -> Failure {
    Failure::Input(e.into())
}

/// A library error, classified by its own `is_input()`.
pub fn classified<E: Into<anyhow::Error>>(is_input: bool, e: E) -> Failure {
    if is_input {
        input(e)
    } else {
        Failure::Runtime(e.into())
    }
}

/// Parses `WxH` (also `WXH` or `W×H`), both positive integers; `what` names the value in the error.
pub fn parse_wxh(text: &str, what: &str, example: &str) -> Result<(u32, u32), String> {
    let err = || format!("{what} {text:?} must look like WIDTHxHEIGHT with positive integers, e.g. {example}");
    let (w, h) = text.trim().split_once(['x', 'X', '×']).ok_or_else(err)?;
    let (w, h) = (w.trim().parse::<u32>().map_err(|_| err())?, h.trim().parse::<u32>().map_err(|_| err())?);
    if w == 0 || h == 0 {
        return Err(err());
    }
    Ok((w, h))
}

/// `springs,ropes` → the snapshot detail with those on; `all` → everything; `none` → nothing.
pub fn parse_detail(text: &str) -> Result<SnapshotDetail, String> {
    let mut d = SnapshotDetail::default();
    for part in text.split(',').map(str::trim) {
        match part {
            "springs" => d.springs = true,
            "ropes" => d.ropes = true,
            "welds" => d.welds = true,
            "controller" => d.controller = true,
            "all" => d = SnapshotDetail::ALL,
            "none" => d = SnapshotDetail::default(),
            _ => return Err(format!("unknown detail {part:?}; use springs, ropes, welds, controller, all or none")),
        }
    }
    Ok(d)
}

static LIMITS: OnceLock<Limits> = OnceLock::new();

/// Sets the resource limits of this run (`--allow-large`: none); called once by `main`.
pub fn set_limits(limits: Limits) {
    let _ = LIMITS.set(limits);
}

/// The resource limits of this run ([`Limits::DEFAULT`] unless `--allow-large`).
pub fn limits() -> Limits {
    LIMITS.get().copied().unwrap_or_default()
}

/// Writes `text` to stdout and flushes. A failure is returned (never a panic): a closed pipe ends the
/// program quietly with exit 0 (see `main`), anything else with exit 1.
pub fn out(text: &str) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush()).context("cannot write to stdout")?;
    Ok(())
}

/// [`out`] with a newline.
pub fn outln(text: &str) -> Result<(), Failure> {
    out(&format!("{text}\n"))
}

/// Writes a line to stderr (notes, summaries); a failure is returned like [`out`]'s.
pub fn note(text: &str) -> Result<(), Failure> {
    writeln!(std::io::stderr(), "{text}").context("cannot write to stderr")?;
    Ok(())
}

/// Whether a failure is a closed pipe on stdout or stderr (`vsr2d schema | head -c 10`).
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

pub use vsr2d::render_job::is_stdin;

/// Reads and validates a scenario file (`-`: stdin), applying `--duration` and the extra snapshot
/// `detail`, and resolves it for one run, checking the resource limits; every problem is bad input.
pub fn load_scene(path: &Path, duration: Option<f64>, detail: Option<SnapshotDetail>) -> Result<Scene, Failure> {
    let read = if is_stdin(path) {
        vsr2d::scenario::read_bounded(std::io::stdin().lock(), "scenario")
    } else {
        std::fs::File::open(path).and_then(|f| vsr2d::scenario::read_bounded(f, "scenario"))
    };
    let text = read
        .with_context(|| {
            format!(
                "cannot read scenario {}",
                if is_stdin(path) { "from stdin".to_string() } else { path.display().to_string() }
            )
        })
        .map_err(input)?;
    let mut scenario =
        Scenario::from_json(&text).with_context(|| format!("scenario {}", path.display())).map_err(input)?;
    if let Some(d) = duration {
        if !(d.is_finite() && (0.0..=vsr2d::scenario::MAX_DURATION).contains(&d)) {
            return Err(input(anyhow::anyhow!(
                "--duration {} is invalid: give a number of seconds in [0, 1e6]",
                vsr2d::geom::compact(d)
            )));
        }
        scenario.world.duration = d;
    }
    if let Some(extra) = detail {
        let d = &mut scenario.world.snapshot;
        (d.springs, d.ropes, d.welds, d.controller) =
            (d.springs | extra.springs, d.ropes | extra.ropes, d.welds | extra.welds, d.controller | extra.controller);
    }
    scenario.resolve(&limits()).with_context(|| format!("scenario {}", path.display())).map_err(input)
}

pub use vsr2d::output::check_dir_creatable;

/// The progress of one simulation on stderr (`vsr2d simulate` on a terminal): steps done, elapsed
/// time and an estimate; cleared when dropped.
pub struct StepProgress(indicatif::ProgressBar);

impl StepProgress {
    pub fn new(steps: u64) -> StepProgress {
        let bar = indicatif::ProgressBar::new(steps);
        bar.set_style(
            indicatif::ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len} steps, eta {eta}")
                .expect("the template is valid"),
        );
        StepProgress(bar)
    }
}

impl vsr2d::snapshot::SnapshotListener for StepProgress {
    fn on_snapshot(
        &mut self,
        snapshot: &std::sync::Arc<vsr2d::snapshot::Snapshot>,
    ) -> Result<vsr2d::snapshot::Flow, vsr2d::snapshot::ListenerError> {
        self.0.set_position(snapshot.step);
        Ok(vsr2d::snapshot::Flow::Continue)
    }
}

impl Drop for StepProgress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
