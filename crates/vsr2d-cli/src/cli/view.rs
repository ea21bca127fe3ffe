//! `vsr2d view`: scenarios (simulated here) or recordings into one self-contained interactive HTML page,
//! one grid cell per run as in `vsr2d render` (docs/viewer.md): a render job whose only output is the page.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use vsr2d::geom::Aabb;
use vsr2d::model::voxel::sensors::SensorKind;
use vsr2d::render::{GridLayout, RenderOptions};
use vsr2d::render_job::{
    is_recording, Hooks, OutputFile, Outputs, RenderJob, RenderSettings, RunInput, RunKind, Sources,
};
use vsr2d::snapshot::SnapshotDetail;
use vsr2d::view::PageStats;

use super::picture::{job_failure, parse_sensor, parse_size, parse_view};
use super::Failure;

#[derive(Args)]
pub struct ViewArgs {
    /// Scenario JSON files (simulated here) and recordings (`*.jsonl`, from `vsr2d simulate --record`), one
    /// grid cell each (one per robot for multi-robot runs); `-` reads a scenario from stdin.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The page to write.
    #[arg(short, long, value_name = "OUT.html")]
    pub output: PathBuf,
    /// Frames per simulated second stored in the page (the frames of `vsr2d render --fps`).
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    /// Canvas size in pixels (the frame size of `vsr2d render --size`).
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Grid as ROWSxCOLS [default: near-square, never taller than wide].
    #[arg(long, value_name = "ROWSxCOLS")]
    pub layout: Option<GridLayout>,
    /// Override the scenarios' duration (and cut recordings), in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Optional content simulated scenarios record for the page's layers: springs, ropes, welds,
    /// controller (comma-separated), all or none. Recordings carry what they were recorded with.
    #[arg(long, value_name = "LIST", default_value = "all", value_parser = super::parse_detail)]
    pub detail: SnapshotDetail,
    /// The fill the page opens with (area_ratio, velocity_magnitude, …; the page offers all).
    #[arg(long, value_name = "SENSOR", value_parser = parse_sensor)]
    pub color_by: Option<SensorKind>,
    /// One cell per run even when it has several robots, its camera framing them all.
    #[arg(long)]
    pub shared_camera: bool,
    /// Show this world rectangle in every cell instead of following the robots.
    #[arg(long, value_name = "x0,y0,x1,y1", value_parser = parse_view, allow_hyphen_values = true)]
    pub fixed_camera: Option<Aabb>,
    /// The page's title [default: the inputs' names].
    #[arg(long)]
    pub title: Option<String>,
    /// No summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// One line about a written page, for stderr.
pub fn summary(path: &Path, s: &PageStats, seconds: f64) -> String {
    let mut line = format!(
        "wrote {}: {} frames at {} fps, {:.0} kB ({} numbers, {:.0} kB before deflate), in {seconds:.1} s",
        path.display(),
        s.frames,
        vsr2d::geom::compact(s.fps),
        s.page_bytes as f64 / 1000.0,
        s.values,
        s.raw_bytes as f64 / 1000.0,
    );
    if let Some(note) = s.note() {
        line.push_str(&format!("\nnote: {note}"));
    }
    line
}

impl ViewArgs {
    /// The render job these arguments describe: the page alone.
    fn job(&self) -> RenderJob {
        let runs = self
            .inputs
            .iter()
            .map(|p| RunInput {
                given_as: "INPUT".into(),
                kind: if is_recording(p) { RunKind::Recording(p.clone()) } else { RunKind::ScenarioFile(p.clone()) },
            })
            .collect();
        let mut options = RenderOptions::default();
        if let Some(kind) = self.color_by {
            options.color_by = kind;
        }
        let title = self
            .title
            .clone()
            .unwrap_or_else(|| self.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
        RenderJob {
            sources: Sources::Runs(runs),
            settings: RenderSettings {
                size: self.size,
                fps: Some(self.fps),
                duration: self.duration,
                layout: self.layout,
                options,
                fixed_camera: self.fixed_camera,
                shared_camera: self.shared_camera,
                detail: self.detail,
                title: Some(title),
                ..RenderSettings::default()
            },
            outputs: Outputs { html: Some(OutputFile::new(&self.output, "-o")), ..Outputs::default() },
            limits: super::limits(),
        }
    }
}

pub fn run(args: ViewArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let plan = args.job().preflight().map_err(job_failure)?;
    let report = plan.run(&mut Hooks { progress: &mut |_, _| {}, keep_going: &|| true }).map_err(job_failure)?;
    if let (false, Some(stats)) = (args.quiet, &report.page) {
        eprintln!("{}", summary(&args.output, stats, started.elapsed().as_secs_f64()));
    }
    Ok(())
}
