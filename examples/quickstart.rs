//! The library's front door in one file: a scenario stepped with a listener of our own, its result, and
//! the same run filmed as an mp4. It uses only what `vsr2d` re-exports at its root.
//!
//! ```sh
//! cargo run --release --example quickstart -- [SCENARIO.json] [OUT.mp4]
//! ```
//!
//! Without a scenario it runs the worm of `fixtures/scenarios/worm.json`; any scenario is cut to its
//! first 2 s. The video goes to OUT.mp4, by default `quickstart.mp4` in the system's temporary
//! directory. The suite runs this file's `quickstart` (tests/integration/examples.rs).

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use vsr2d::{
    Flow, Hooks, Limits, ListenerError, OutputFile, Outputs, RenderJob, RenderSettings, RunInput, RunKind, RunResult,
    Scenario, Snapshot, SnapshotListener, Sources,
};

/// The default scenario: the paper's 4×1 worm on flat ground.
pub const WORM: &str = include_str!("../fixtures/scenarios/worm.json");
/// Simulated seconds: short, so that the suite can run the whole example.
pub const SECONDS: f64 = 2.0;
/// The video's size in pixels (even, as H.264 wants).
pub const SIZE: (u32, u32) = (320, 180);

/// A listener of our own: the first voxel robot's centre x in every snapshot, and how many snapshots
/// after t = 0 find it touching the ground.
#[derive(Debug, Default)]
pub struct Track {
    pub xs: Vec<f64>,
    pub steps_on_ground: u64,
}

impl SnapshotListener for Track {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        if let Some(robot) = snapshot.voxel_robots().next() {
            self.xs.push(robot.center.x);
            if snapshot.step > 0 && robot.touching_ground {
                self.steps_on_ground += 1;
            }
        }
        Ok(Flow::Continue)
    }
}

/// What one round gives.
#[derive(Debug)]
pub struct Summary {
    /// Steps taken, and what our listener saw of them.
    pub steps: u64,
    pub track: Track,
    /// The task's result of the stepped run, and of the run the render simulated.
    pub result: RunResult,
    pub rendered: RunResult,
    pub frames: u64,
    pub video: PathBuf,
}

/// Runs the first [`SECONDS`] of `scenario_json` step by step with a [`Track`], then renders the same
/// scenario to `video` (an `.mp4`).
pub fn quickstart(scenario_json: &str, video: &Path) -> Result<Summary, Box<dyn Error>> {
    let mut scenario = Scenario::from_json(scenario_json)?;
    scenario.world.duration = SECONDS;

    // Stepping by hand: the t = 0 snapshot goes out at the start, one more after every step.
    let mut track = Track::default();
    let mut run = scenario.build()?.start_with(&mut [&mut track])?;
    let mut steps = 0;
    while !run.finished() && !run.stopped() {
        run.step(&mut [&mut track])?;
        steps += 1;
    }
    let result = run.result();

    // Filming: the job checks everything (sizes, the output's directory, the cost) before it simulates.
    let job = RenderJob {
        sources: Sources::Runs(vec![RunInput {
            given_as: "quickstart".into(),
            kind: RunKind::Scenario { name: "quickstart".into(), scenario: Box::new(scenario), file: None },
        }]),
        settings: RenderSettings { size: SIZE, ..RenderSettings::default() },
        outputs: Outputs { video: Some(OutputFile::new(video, "OUT.mp4")), metrics: true, ..Outputs::default() },
        limits: Limits::DEFAULT,
    };
    let report = job.preflight()?.run(&mut Hooks { progress: &mut |_, _| {}, keep_going: &|| true })?;
    let rendered = report.metrics.into_iter().next().ok_or("the render ran no simulation")?.result;
    Ok(Summary { steps, track, result, rendered, frames: report.frames_drawn, video: video.to_path_buf() })
}

/// The summary as the example prints it.
pub fn describe(s: &Summary) -> String {
    let mut lines = vec![format!("{} steps, {} snapshots seen by the listener", s.steps, s.track.xs.len())];
    if let (Some(first), Some(last), Some(robot)) = (s.track.xs.first(), s.track.xs.last(), s.result.robots.first()) {
        lines.push(format!(
            "{}: centre x {first:.4} → {last:.4} m ({:+.4} m; the task measured {:+.4} m), on the ground after {} of {} steps",
            robot.label,
            last - first,
            robot.x_distance,
            s.track.steps_on_ground,
            s.steps,
        ));
    }
    lines.push(format!("the render's own run gives the same result: {}", s.rendered == s.result));
    lines.push(format!("{} frames of {}×{} written to {}", s.frames, SIZE.0, SIZE.1, s.video.display()));
    lines.join("\n")
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let scenario = match args.next() {
        None => WORM.to_string(),
        Some(path) => match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("quickstart: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let video = args.next().map_or_else(|| std::env::temp_dir().join("quickstart.mp4"), PathBuf::from);
    match quickstart(&scenario, &video) {
        Ok(summary) => {
            println!("{}", describe(&summary));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("quickstart: {e}");
            ExitCode::FAILURE
        }
    }
}
