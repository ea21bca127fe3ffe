//! `vsr2d render`: scenarios (or recordings) simulated in lockstep and tiled into one video, a PNG
//! sequence, a still, a filmstrip or a viewer page: the arguments mapped onto a
//! [`vsr2d::render_job::RenderJob`], whose preflight checks every output before anything is simulated.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use vsr2d::geom::Aabb;
use vsr2d::model::voxel::sensors::SensorKind;
use vsr2d::movie::DEFAULT_X264_THREADS;
use vsr2d::render::{GridLayout, Style};
use vsr2d::render_job::{
    Encoding, Hooks, Look, OutputFile, Outputs, RenderJob, RenderSettings, RunInput, RunKind, Sources,
};
use vsr2d::snapshot::SnapshotDetail;

use super::picture::{job_failure, parse_sensor, parse_size, parse_view};
use super::{input, Failure};

#[derive(Args)]
pub struct RenderArgs {
    /// Scenario JSON files, one grid cell each (one per robot for multi-robot scenarios); `-` reads one
    /// from stdin. With none and no --from: the bundled showcase (worm, biped, tripod, two-material; 2×2,
    /// 20 s).
    pub scenarios: Vec<PathBuf>,
    /// Output video, its format chosen by the extension: .mp4 (H.264) or .gif (animated GIF)
    /// [default: showcase.mp4 for the showcase, else render.mp4; no video when only --png, --frames or
    /// --filmstrip is given].
    #[arg(short, long, value_name = "OUT.mp4|OUT.gif")]
    pub output: Option<PathBuf>,
    /// Render the K best individuals of evolution runs instead: the positional arguments are then run
    /// directories of `vsr2d evolve` (or directories holding several runs, e.g. a study), ranked by
    /// fitness across all of them; one cell each, labelled with rank, fitness and run. At most 1024.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub top: Option<u64>,
    /// Render the archive of a MAP-Elites run instead: one cell per filled bin, laid out on the
    /// descriptor grid (first descriptor across, second up; empty bins left empty), each elite
    /// labelled with its fitness; the axes give the descriptors and their bin edges.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["top", "from", "front", "scenarios", "layout", "html"])]
    pub archive: Option<PathBuf>,
    /// Render the Pareto front of an NSGA-II run instead: its members side by side, in order along the
    /// front, each labelled with its objective values.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["top", "from", "archive", "scenarios"])]
    pub front: Option<PathBuf>,
    /// Render snapshots recorded by `vsr2d simulate --record` (repeatable; one cell per robot).
    #[arg(long, value_name = "RECORD.jsonl")]
    pub from: Vec<PathBuf>,
    /// Grid as ROWSxCOLS, e.g. 1x3 [default: near-square, never taller than wide].
    #[arg(long, value_name = "ROWSxCOLS")]
    pub layout: Option<GridLayout>,
    /// Image size in pixels: each frame of a video, a still, or the whole filmstrip (its frames side by
    /// side, 8 px apart); mp4 needs both even.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Frames per simulated second of a video [default: 30].
    #[arg(long)]
    pub fps: Option<u32>,
    /// x264 preset (ultrafast … placebo): slower presets give smaller files. OpenH264 (the portable
    /// wheel's encoder) has no presets and takes only the default.
    #[arg(long, default_value = vsr2d::output::DEFAULT_X264_PRESET)]
    pub preset: String,
    /// x264 constant rate factor, 0 (lossless) to 51 (smallest); with OpenH264 (the portable wheel's
    /// encoder) a constant quantiser, 1 to 51.
    #[arg(long, default_value_t = vsr2d::output::DEFAULT_X264_CRF)]
    pub crf: u8,
    /// x264 tune (none, film, animation, grain, stillimage, fastdecode, zerolatency, psnr, ssim): the
    /// default encodes fastest; `none` gives a smaller file more slowly. OpenH264 (the portable wheel's
    /// encoder) takes only the default.
    #[arg(long, default_value = vsr2d::output::DEFAULT_X264_TUNE)]
    pub tune: String,
    /// Encoder threads; the same value gives byte-identical files, 0 = auto (depends on the CPU count).
    #[arg(long, default_value_t = DEFAULT_X264_THREADS)]
    pub threads: u32,
    /// Override the scenarios' duration (and cut recordings), in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Also write every frame as DIR/frame_NNNNNN.png (DIR must hold no frames yet, see --replace-frames).
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,
    /// Delete the frame_NNNNNN.png files already in the --frames DIR (e.g. of an interrupted run) first.
    #[arg(long, requires = "frames")]
    pub replace_frames: bool,
    /// Also write the run as an interactive HTML page (`vsr2d view`; the same cells, cameras and layers,
    /// filled from the snapshots the video showed: the run is simulated once).
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
    /// Write one frame as a picture, its format chosen by the extension (.png, .svg or .pdf): the last
    /// frame, or the one shown at --at.
    #[arg(long, visible_alias = "still", value_name = "FILE.png|FILE.svg|FILE.pdf")]
    pub png: Option<PathBuf>,
    /// Simulated time of the --png frame, in seconds.
    #[arg(long, value_name = "SECONDS", requires = "png")]
    pub at: Option<f64>,
    /// Write frames side by side in one picture (.png, .svg or .pdf by the extension): the frames shown at
    /// --times; --size is the whole picture's. A filmstrip is written by a command of its own (no -o,
    /// --frames or --png).
    #[arg(long, value_name = "FILE.png|FILE.svg|FILE.pdf", conflicts_with_all = ["output", "frames", "png", "archive", "html"])]
    pub filmstrip: Option<PathBuf>,
    /// Simulated times of the --filmstrip frames, in seconds, comma-separated [default: 0, ¼, ½, ¾ and
    /// the end of the run].
    #[arg(long, value_name = "T1,T2,...", requires = "filmstrip", value_delimiter = ',')]
    pub times: Vec<f64>,
    /// Draw the four mass squares of each voxel.
    #[arg(long)]
    pub masses: bool,
    /// Draw the springs, coloured by group.
    #[arg(long)]
    pub springs: bool,
    /// Draw the ropes (dashed).
    #[arg(long)]
    pub ropes: bool,
    /// Draw the welds (red dots).
    #[arg(long)]
    pub welds: bool,
    /// Print the --color-by reading at each voxel centre.
    #[arg(long)]
    pub sensor_values: bool,
    /// Draw velocity arrows (v·0.5 s).
    #[arg(long)]
    pub velocity: bool,
    /// Ring the voxels that touch something outside their robot.
    #[arg(long)]
    pub touching: bool,
    /// Draw a distributed controller's signals: arrows across the voxels' inner edges (recordings need
    /// `--detail controller`).
    #[arg(long)]
    pub signals: bool,
    /// Every layer above.
    #[arg(long)]
    pub all_layers: bool,
    /// The look: `screen` (the default) or `paper` (figures for papers: white, thin dark lines, the
    /// print-safe viridis ramp, larger text, no overlay and no world grid).
    #[arg(long, value_name = "screen|paper", value_parser = vsr2d::render_job::parse_style)]
    pub style: Option<Style>,
    /// Leave out the overlay (label, time, distance and speed at the top left).
    #[arg(long)]
    pub no_overlay: bool,
    /// Leave out the keys (the colour key and the material key at the top right).
    #[arg(long)]
    pub no_key: bool,
    /// Leave out the world grid.
    #[arg(long)]
    pub no_grid: bool,
    /// Leave out the distance ticks on the ground.
    #[arg(long)]
    pub no_ticks: bool,
    /// Show TEXT in the overlay in place of the run's or robot's name (figure panels: "(a) worm"); once
    /// per cell, in order. The time and distance lines stay; the paper style shows the overlay for it.
    #[arg(long = "label", value_name = "TEXT", allow_hyphen_values = true)]
    pub labels: Vec<String>,
    /// Every text size (overlay, keys, tick and height labels) and the boxes around the text times F,
    /// from 0.5 to 4 (small filmstrip frames: below 1).
    #[arg(long, value_name = "F")]
    pub font_scale: Option<f32>,
    /// The sensor that drives the voxel fill (area_ratio, velocity_magnitude, x_velocity, y_velocity, angle,
    /// x_rot_velocity, y_rot_velocity, touching).
    #[arg(long, value_name = "SENSOR", value_parser = parse_sensor)]
    pub color_by: Option<SensorKind>,
    /// One cell per scenario even when it has several robots, its camera framing them all (default: one
    /// cell per robot, each following its robot and showing the others it sees).
    #[arg(long)]
    pub shared_camera: bool,
    /// Show this world rectangle in every cell instead of following the robots.
    #[arg(long, value_name = "x0,y0,x1,y1", value_parser = parse_view, allow_hyphen_values = true)]
    pub fixed_camera: Option<Aabb>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the showcase's frames per second at 640×360 and 1280×720 — drawing alone, the encoder's own
    /// rate and the whole pipeline — (--duration sets the length, default 20 s), and write nothing.
    #[arg(long)]
    pub bench: bool,
}

impl RenderArgs {
    /// The look and layers asked for.
    fn look(&self) -> Look {
        Look {
            style: self.style,
            color_by: self.color_by,
            masses: self.masses,
            springs: self.springs,
            ropes: self.ropes,
            welds: self.welds,
            sensor_values: self.sensor_values,
            velocity: self.velocity,
            touching: self.touching,
            signals: self.signals,
            all_layers: self.all_layers,
            no_overlay: self.no_overlay,
            no_key: self.no_key,
            no_grid: self.no_grid,
            no_ticks: self.no_ticks,
            labelled: !self.labels.is_empty(),
            font_scale: self.font_scale,
        }
    }

    /// The render job these arguments describe.
    fn job(&self) -> RenderJob {
        let sources = if self.is_showcase() {
            Sources::Showcase
        } else if let Some(k) = self.top {
            Sources::Top { dirs: self.scenarios.clone(), k: k as usize }
        } else if let Some(dir) = &self.archive {
            Sources::Archive(dir.clone())
        } else if let Some(dir) = &self.front {
            Sources::Front(dir.clone())
        } else {
            let scenarios = self
                .scenarios
                .iter()
                .map(|p| RunInput { given_as: "SCENARIO".into(), kind: RunKind::ScenarioFile(p.clone()) });
            let recordings =
                self.from.iter().map(|p| RunInput { given_as: "--from".into(), kind: RunKind::Recording(p.clone()) });
            Sources::Runs(scenarios.chain(recordings).collect())
        };
        let file = |flag: &str, path: &Option<PathBuf>| path.as_ref().map(|p| OutputFile::new(p, flag));
        RenderJob {
            sources,
            settings: RenderSettings {
                size: self.size,
                fps: self.fps,
                duration: self.duration,
                layout: self.layout,
                options: self.look().options(),
                fixed_camera: self.fixed_camera,
                shared_camera: self.shared_camera,
                detail: SnapshotDetail::default(),
                at: self.at,
                times: self.times.clone(),
                encoding: Encoding {
                    preset: self.preset.clone(),
                    crf: self.crf,
                    tune: self.tune.clone(),
                    threads: self.threads,
                },
                title: None,
                labels: self.labels.clone(),
            },
            outputs: Outputs {
                video: file("-o", &self.video_path()),
                frames: file("--frames", &self.frames),
                replace_frames: self.replace_frames,
                still: file("--png", &self.png),
                filmstrip: file("--filmstrip", &self.filmstrip),
                html: file("--html", &self.html),
                metrics: true,
            },
            limits: super::limits(),
        }
    }

    fn is_showcase(&self) -> bool {
        self.scenarios.is_empty()
            && self.from.is_empty()
            && self.top.is_none()
            && self.archive.is_none()
            && self.front.is_none()
    }

    /// The video to write: `-o`, or the default mp4 unless only PNG or HTML outputs were asked for.
    fn video_path(&self) -> Option<PathBuf> {
        let default = if self.is_showcase() { "showcase.mp4" } else { "render.mp4" };
        match (&self.output, &self.png, &self.frames, &self.filmstrip) {
            (Some(p), ..) => Some(p.clone()),
            (None, None, None, None) if self.html.is_none() => Some(PathBuf::from(default)),
            _ => None,
        }
    }
}

/// `vsr2d render` as a render job: the arguments mapped onto it, its notes, progress and summary printed.
pub fn run(args: RenderArgs) -> Result<(), Failure> {
    if args.bench {
        return bench(args.duration.unwrap_or(vsr2d::movie::showcase::DURATION_S));
    }
    let started = Instant::now();
    let quiet = args.quiet;
    let plan = args.job().preflight().map_err(job_failure)?;
    if !quiet {
        for note in plan.notes() {
            eprintln!("{note}");
        }
    }
    let bar = progress_bar(plan.total_frames(), quiet);
    let written = plan.job().outputs.clone();
    let report = plan
        .run(&mut Hooks { progress: &mut |n, _| bar.set_position(n), keep_going: &|| true })
        .map_err(job_failure)?;
    bar.finish_and_clear();
    if quiet {
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "runs": report.metrics }))?);
        return Ok(());
    }
    if let (Some(page), Some(stats)) = (&written.html, &report.page) {
        eprintln!("{}", super::view::summary(&page.path, stats, started.elapsed().as_secs_f64()));
    }
    let mut outputs: Vec<String> = Vec::new();
    outputs.extend(written.video.iter().map(|f| f.path.display().to_string()));
    outputs.extend(written.frames.iter().map(|d| format!("{}/frame_NNNNNN.png", d.path.display())));
    outputs.extend(written.still.iter().chain(&written.filmstrip).map(|f| f.path.display().to_string()));
    if report.frames_drawn > 0 {
        let (width, height) = report.frame_size;
        eprintln!(
            "wrote {}: {} of {} frames (0 to {:.2} s at {} fps), {width}×{height}, {} grid, in {:.1} s",
            outputs.join(", "),
            report.frames_drawn,
            report.total_frames,
            report.total_frames.saturating_sub(1) as f64 / f64::from(report.fps),
            report.fps,
            report.layout,
            started.elapsed().as_secs_f64(),
        );
    }
    println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "runs": report.metrics }))?);
    Ok(())
}

fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    // indicatif draws nothing when stderr is not a terminal.
    let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} frames, eta {eta} {msg}")
            .expect("the template is valid"),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

fn bench(seconds: f64) -> Result<(), Failure> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(input(anyhow!("--duration {seconds} is invalid for --bench: give a positive number of seconds")));
    }
    println!("{}", super::bench::render_table(seconds)?);
    Ok(())
}
