//! `vsr2d view`: scenarios (simulated here) or recordings into one self-contained interactive HTML page,
//! one grid cell per run as in `vsr2d render` (docs/viewer.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::anyhow;
use clap::Args;

use vsr2d::geom::Aabb;
use vsr2d::model::voxel::sensors::SensorKind;
use vsr2d::movie::{MovieSettings, MovieSource};
use vsr2d::output::{atomic, check_output_writable};
use vsr2d::render::{GridLayout, RenderOptions};
use vsr2d::snapshot::SnapshotDetail;
use vsr2d::view::{build_page, Page, ViewSettings};

use super::picture::{classify, parse_sensor, parse_size, parse_view};
use super::{input, is_stdin, load_scenario, Failure};

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
    #[arg(long, value_name = "LIST", default_value = "all", value_parser = crate::parse_detail)]
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

/// Whether an input names a recording rather than a scenario.
fn is_recording(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
}

/// The sources of the inputs, in order: scenarios built with `detail` added, recordings as they are.
pub fn sources(
    inputs: &[PathBuf],
    duration: Option<f64>,
    detail: SnapshotDetail,
    options: &RenderOptions,
) -> Result<Vec<MovieSource>, Failure> {
    if inputs.iter().filter(|p| is_stdin(p)).count() > 1 {
        return Err(input(anyhow!("`-` (a scenario from stdin) can be given only once")));
    }
    let mut sources = Vec::with_capacity(inputs.len());
    for path in inputs {
        if is_recording(path) {
            sources.push(MovieSource::recording(path, duration).map_err(classify)?);
            continue;
        }
        let mut scenario = load_scenario(path, duration)?;
        let d = &mut scenario.world.snapshot;
        (d.springs, d.ropes, d.welds, d.controller) = (
            d.springs | detail.springs,
            d.ropes | detail.ropes,
            d.welds | detail.welds,
            d.controller | detail.controller,
        );
        let name = if is_stdin(path) { "stdin".to_string() } else { path.display().to_string() };
        sources.push(MovieSource::scenario(name, &scenario, options).map_err(classify)?);
    }
    Ok(sources)
}

/// Builds the page and writes it atomically.
pub fn write_page(path: &Path, sources: Vec<MovieSource>, settings: &ViewSettings) -> Result<Page, Failure> {
    let page = build_page(sources, settings).map_err(|e| super::classified(e.is_input(), e))?;
    atomic::write(path, page.html.as_bytes()).map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(page)
}

/// One line about a written page, for stderr.
pub fn summary(path: &Path, page: &Page, seconds: f64) -> String {
    let s = &page.stats;
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

pub fn run(args: ViewArgs) -> Result<(), Failure> {
    let started = Instant::now();
    check_output_writable(&args.output).map_err(input)?;
    let inputs: Vec<(&str, &std::path::Path)> = args.inputs.iter().map(|p| ("INPUT", p.as_path())).collect();
    vsr2d::output::check_distinct(&[("-o", &args.output)], &inputs).map_err(input)?;
    // The page is HTML whatever its name: `-o x.mp4` would write a page named like a video.
    if let Some(ext) = args.output.extension().and_then(|e| e.to_str()) {
        if !["html", "htm"].contains(&ext.to_ascii_lowercase().as_str()) {
            return Err(input(anyhow!(
                "-o {} would be an HTML page named .{ext}: give a name ending in .html (for a video, use `vsr2d \
                 render -o {}`)",
                args.output.display(),
                args.output.display()
            )));
        }
    }
    if args.fps == 0 {
        return Err(input(anyhow!("--fps 0 is invalid; give a positive number of frames per second (e.g. 30)")));
    }
    let mut options = RenderOptions::default();
    if let Some(kind) = args.color_by {
        options.color_by = kind;
    }
    let sources = sources(&args.inputs, args.duration, args.detail, &options)?;
    let title = args
        .title
        .clone()
        .unwrap_or_else(|| args.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    let settings = ViewSettings {
        movie: MovieSettings {
            width: args.size.0,
            height: args.size.1,
            fps: args.fps,
            layout: args.layout,
            options,
            fixed_view: args.fixed_camera,
            shared_camera: args.shared_camera,
        },
        title,
        ..ViewSettings::default()
    };
    let page = write_page(&args.output, sources, &settings)?;
    if !args.quiet {
        eprintln!("{}", summary(&args.output, &page, started.elapsed().as_secs_f64()));
    }
    Ok(())
}
