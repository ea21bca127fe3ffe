//! `vsr2d render`: scenarios (or recordings) simulated in lockstep and tiled into one video, a PNG
//! sequence or a single PNG. Every output is checked before anything is simulated.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::anyhow;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use vsr2d::geom::Aabb;
use vsr2d::model::voxel::sensors::SensorKind;
use vsr2d::movie::board::Board;
use vsr2d::movie::{frame_index_at, showcase_sources, Movie, MovieSettings, MovieSource, DEFAULT_X264_THREADS};
use vsr2d::output::figure::{write_figure, FigureFormat};
use vsr2d::output::gif::GifSink;
use vsr2d::output::pipeline::Overlap;
use vsr2d::output::png::{write_png, PngSequence};
use vsr2d::output::sinks::Tee;
use vsr2d::output::{check_output_writable, FrameSink, VideoFormat};
use vsr2d::render::scene::{Scene, FILMSTRIP_GAP_PX};
use vsr2d::render::{GridLayout, Rasterizer, RenderOptions, Style};
use vsr2d::report::run_media::{self, RunCell};

use super::picture::{classify, parse_sensor, parse_size, parse_view};
use super::{input, is_stdin, load_scenario, Failure};

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
    /// Also write the run as an interactive HTML page (`vsr2d view`; the same cells, cameras and layers;
    /// simulated again after the video).
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
    #[arg(long, value_name = "screen|paper", value_parser = parse_style)]
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

/// Refuses a render whose pixels × frames, or pixels × frames × bodies, are over the limits (stills and
/// filmstrips draw only their frames), before anything is simulated or drawn.
fn check_frame_cost(frames: u64, drawn: u64, width: u32, height: u32, bodies: usize) -> Result<(), Failure> {
    super::limits().check_render(drawn, width, height, bodies as u64).map_err(|e| {
        input(anyhow!(
            "the render of {} frames of {width}×{height} pixels showing {bodies} bodies (robots and cells) {} \
             (--duration, --fps, --size; fewer scenarios, --from recordings or --top K)",
            vsr2d::geom::compact(frames as f64),
            e.to_string().replacen("`frames`: ", "", 1)
        ))
    })
}

impl RenderArgs {
    fn render_options(&self) -> RenderOptions {
        let mut o = match self.style {
            Some(Style::Paper) => RenderOptions::paper(),
            _ => RenderOptions::default(),
        };
        if self.all_layers {
            let all = RenderOptions::all_layers();
            (o.masses, o.springs, o.ropes, o.welds) = (all.masses, all.springs, all.ropes, all.welds);
            (o.sensor_values, o.velocity_arrows, o.touching_markers, o.signals) =
                (all.sensor_values, all.velocity_arrows, all.touching_markers, all.signals);
        }
        o.masses |= self.masses;
        o.springs |= self.springs;
        o.ropes |= self.ropes;
        o.welds |= self.welds;
        o.sensor_values |= self.sensor_values;
        o.velocity_arrows |= self.velocity;
        o.touching_markers |= self.touching;
        o.signals |= self.signals;
        if let Some(kind) = self.color_by {
            o.color_by = kind;
        }
        o.text &= !self.no_overlay;
        o.legend &= !self.no_key;
        o.materials &= !self.no_key;
        o.world_grid &= !self.no_grid;
        o.ground_ticks &= !self.no_ticks;
        o
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

/// `--style screen|paper`.
fn parse_style(text: &str) -> Result<Style, String> {
    match text {
        "screen" => Ok(Style::Screen),
        "paper" => Ok(Style::Paper),
        _ => Err(format!("unknown style {text:?}; use screen or paper")),
    }
}

/// The picture format of a --png or --filmstrip output, by its extension.
fn figure_format(flag: &str, path: &Path) -> Result<FigureFormat, Failure> {
    FigureFormat::of(path).ok_or_else(|| {
        input(anyhow!(
            "{flag} `{}`: unknown picture format; the extension chooses it: {}",
            path.display(),
            FigureFormat::CHOICES
        ))
    })
}

/// The video format `-o` names by its extension.
fn video_format(path: &Path) -> Result<VideoFormat, Failure> {
    VideoFormat::of(path).ok_or_else(|| {
        input(anyhow!(
            "`{}`: unknown video format; the output's extension chooses it: {}. For single frames use --png \
             FILE.png, --frames DIR or --filmstrip FILE.png",
            path.display(),
            VideoFormat::CHOICES
        ))
    })
}

pub fn run(args: RenderArgs) -> Result<(), Failure> {
    if args.bench {
        return bench(args.duration.unwrap_or(vsr2d::movie::showcase::DURATION_S));
    }
    let started = Instant::now();
    let (width, height) = args.size;
    let fps = args.fps.unwrap_or(30);
    if let Some(at) = args.at {
        if !(at.is_finite() && at >= 0.0) {
            return Err(input(anyhow!("--at {at} is invalid: give a simulated time in seconds ≥ 0")));
        }
    }
    if let Some(d) = args.duration {
        if !(d.is_finite() && (0.0..=vsr2d::scenario::MAX_DURATION).contains(&d)) {
            return Err(input(anyhow!(
                "--duration {} is invalid: give a number of seconds in [0, 1e6]",
                vsr2d::geom::compact(d)
            )));
        }
    }

    // Every output is checked before anything is loaded or simulated.
    let video_path = args.video_path();
    // No output may replace an input or another output (`-o same.mp4 --html same.mp4`),
    // checked first: whatever else is wrong with such an output, replacing an input is the worse mistake.
    let mut outputs: Vec<(&str, &Path)> = video_path.iter().map(|p| ("-o", p.as_path())).collect();
    outputs.extend(args.png.iter().map(|p| ("--png", p.as_path())));
    outputs.extend(args.filmstrip.iter().map(|p| ("--filmstrip", p.as_path())));
    outputs.extend(args.html.iter().map(|p| ("--html", p.as_path())));
    let inputs: Vec<(&str, &Path)> = args
        .scenarios
        .iter()
        .map(|p| ("SCENARIO", p.as_path()))
        .chain(args.from.iter().map(|p| ("--from", p.as_path())))
        .collect();
    vsr2d::output::check_distinct(&outputs, &inputs).map_err(input)?;
    let video_format = video_path.as_deref().map(video_format).transpose()?;
    let still_format = args.png.as_deref().map(|p| figure_format("--png", p)).transpose()?;
    let strip_format = args.filmstrip.as_deref().map(|p| figure_format("--filmstrip", p)).transpose()?;
    let vector = [still_format, strip_format].into_iter().flatten().any(FigureFormat::is_vector);
    if vector && args.archive.is_some() {
        return Err(input(anyhow!("--archive draws its grid and axes as pixels: write its picture as .png")));
    }
    if vector && args.fps.is_some() && video_path.is_none() && args.frames.is_none() {
        return Err(input(anyhow!(
            "--fps is a video's frame rate, and an SVG or PDF picture has none: leave it out (a still shows the \
             time --at, a filmstrip the times --times)"
        )));
    }
    // A filmstrip's --size is the whole picture: its frames share the width, 8 px apart.
    let strip_frames = if args.times.is_empty() { 5 } else { args.times.len() as u32 };
    let (width, height) = match &args.filmstrip {
        Some(_) => {
            let gaps = (strip_frames - 1).saturating_mul(FILMSTRIP_GAP_PX);
            let frame_w = width.saturating_sub(gaps) / strip_frames.max(1);
            if frame_w == 0 {
                return Err(input(anyhow!(
                    "--size {width}x{height} is too narrow for a filmstrip of {strip_frames} frames {FILMSTRIP_GAP_PX} \
                     px apart; give a wider --size"
                )));
            }
            (frame_w, height)
        }
        None => (width, height),
    };
    if let Some(t) = args.times.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
        return Err(input(anyhow!("--times {t} is invalid: give simulated times in seconds ≥ 0")));
    }
    #[cfg(feature = "video")]
    let video_settings = vsr2d::output::video::VideoSettings {
        width,
        height,
        fps,
        preset: args.preset.clone(),
        crf: args.crf,
        tune: args.tune.clone(),
        threads: args.threads,
    };
    match (&video_path, video_format) {
        #[cfg(feature = "video")]
        (Some(path), Some(VideoFormat::Mp4)) => {
            vsr2d::output::video::preflight(path, &video_settings).map_err(video_failure)?
        }
        #[cfg(not(feature = "video"))]
        (Some(_), Some(VideoFormat::Mp4)) => return Err(classify(vsr2d::movie::MovieError::VideoUnavailable)),
        (Some(path), _) => check_output_writable(path).map_err(input)?,
        (None, _) => {}
    }
    for path in args.png.iter().chain(&args.filmstrip).chain(&args.html) {
        check_output_writable(path).map_err(input)?;
    }
    if let Some(dir) = &args.frames {
        super::check_dir_creatable(dir).map_err(input)?;
    }

    let options = args.render_options();
    let (sources, board) = load_sources(&args, &options, (width, height))?;
    if args.html.is_some() && args.scenarios.iter().any(|p| is_stdin(p)) {
        return Err(input(anyhow!("--html simulates the scenarios again and cannot re-read `-` (stdin); give a file")));
    }
    let html_sources =
        args.html.as_ref().map(|_| load_sources(&args, &options, (width, height)).map(|(s, _)| s)).transpose()?;
    // A board (--archive) draws a movie of its cells alone and places them on its grid.
    let (movie_width, movie_height) = board.as_ref().map_or((width, height), Board::movie_size);
    let settings = MovieSettings {
        width: movie_width,
        height: movie_height,
        fps,
        layout: board.as_ref().map(Board::movie_layout).or(args.layout),
        options: board.as_ref().map_or(options.clone(), |b| b.cell_options(&options)),
        fixed_view: args.fixed_camera,
        shared_camera: args.shared_camera,
    };
    let mut movie = Movie::new(sources, &settings.clone()).map_err(classify)?;
    let total = movie.frame_count();
    let last = total.saturating_sub(1);
    let still_index = args.at.map(|t| frame_index_at(t, fps));
    if still_index.is_some_and(|k| k >= total) && !args.quiet {
        eprintln!(
            "note: --at {} s is after the last frame (t = {:.2} s); the picture shows the last frame",
            args.at.unwrap_or_default(),
            last as f64 / f64::from(fps)
        );
    }
    // The frames kept as scenes: the still's, then the filmstrip's (default: the start, the quarters
    // and the end of the run).
    let mut keep: Vec<u64> = Vec::new();
    if args.png.is_some() {
        keep.push(still_index.unwrap_or(u64::MAX));
    }
    if args.filmstrip.is_some() {
        if args.times.is_empty() {
            keep.extend((0..=4).map(|q| last * q / 4));
        } else {
            keep.extend(args.times.iter().map(|t| frame_index_at(*t, fps).min(last)));
        }
    }

    let mut sinks: Vec<Box<dyn FrameSink + Send>> = Vec::new();
    match (&video_path, video_format) {
        #[cfg(feature = "video")]
        (Some(path), Some(VideoFormat::Mp4)) => {
            let encoder = vsr2d::output::video::Mp4Encoder::new(path, video_settings.clone()).map_err(video_failure)?;
            sinks.push(Box::new(encoder));
        }
        #[cfg(not(feature = "video"))]
        (Some(_), Some(VideoFormat::Mp4)) => return Err(classify(vsr2d::movie::MovieError::VideoUnavailable)),
        (Some(path), Some(VideoFormat::Gif)) => sinks.push(Box::new(GifSink::create(path, fps)?)),
        (Some(_), None) | (None, Some(_)) | (None, None) => {}
    }
    if let Some(dir) = &args.frames {
        let sequence = if args.replace_frames { PngSequence::replace(dir) } else { PngSequence::create(dir) };
        sinks.push(Box::new(sequence.map_err(input)?));
    }
    let drawn = if sinks.is_empty() { keep.len() as u64 } else { total };
    check_frame_cost(total, drawn, width, height, movie.body_count())?;

    let progress = progress_bar(total, args.quiet);
    let (frames, scenes) = if sinks.is_empty() {
        // Only pictures (or only the HTML page): draw just their frames; the others only move the cameras.
        let scenes = movie.scenes_at(&keep, &|| true).map_err(classify)?;
        (scenes.len() as u64, scenes)
    } else {
        let mut sink: Box<dyn FrameSink + Send> =
            if sinks.len() == 1 { sinks.pop().expect("one sink") } else { Box::new(Tee::new(sinks)) };
        if let Some(board) = board.clone() {
            sink = Box::new(board.sink(sink));
        }
        let (pushed, scenes) = movie
            .run_with(&mut *sink, Overlap::Threaded, &keep, &mut |n| progress.set_position(n))
            .map_err(classify)?;
        progress.set_message("finishing");
        sink.finish()?;
        (pushed, scenes)
    };
    progress.finish_and_clear();
    let mut scenes = scenes.into_iter();
    if let (Some(path), Some(format)) = (&args.png, still_format) {
        let scene = scenes.next().expect("the still's scene was kept");
        match &board {
            Some(board) => {
                let pixmap = Rasterizer::new()
                    .render(&scene)
                    .ok_or_else(|| input(anyhow!("a {width}×{height} picture cannot be drawn")))?;
                write_png(&board.composed(&pixmap), path)?;
            }
            None => write_figure(&scene, path, format)?,
        }
    }
    if let (Some(path), Some(format)) = (&args.filmstrip, strip_format) {
        let frames: Vec<Scene> = scenes.collect();
        let strip = Scene::filmstrip(&frames, args.size.0)
            .ok_or_else(|| input(anyhow!("the filmstrip would be empty or too large")))?;
        write_figure(&strip, path, format)?;
    }
    let metrics = movie.finish_runs().map_err(classify)?;
    if let (Some(path), Some(sources)) = (&args.html, html_sources) {
        let view = vsr2d::view::ViewSettings {
            movie: settings.clone(),
            title: path.file_stem().map_or_else(|| "vsr2d".into(), |s| s.to_string_lossy().into_owned()),
            ..vsr2d::view::ViewSettings::default()
        };
        let page = super::view::write_page(path, sources, &view)?;
        if !args.quiet {
            eprintln!("{}", super::view::summary(path, &page, started.elapsed().as_secs_f64()));
        }
    }

    let mut outputs: Vec<String> = Vec::new();
    if !args.quiet {
        outputs.extend(video_path.iter().map(|p| p.display().to_string()));
        outputs.extend(args.frames.iter().map(|d| format!("{}/frame_NNNNNN.png", d.display())));
        outputs.extend(args.png.iter().chain(&args.filmstrip).map(|p| p.display().to_string()));
    }
    if !args.quiet && frames > 0 {
        eprintln!(
            "wrote {}: {frames} of {total} frames (0 to {:.2} s at {} fps), {width}×{height}, {} grid, in {:.1} s",
            outputs.join(", "),
            total.saturating_sub(1) as f64 / f64::from(fps),
            fps,
            board.as_ref().map_or(movie.layout(), |b| GridLayout::new(b.spec().cols, b.spec().rows)),
            started.elapsed().as_secs_f64(),
        );
    }
    println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "runs": metrics }))?);
    Ok(())
}

/// The movie's sources, and the board that places them (--archive).
fn load_sources(
    args: &RenderArgs,
    options: &RenderOptions,
    size: (u32, u32),
) -> Result<(Vec<MovieSource>, Option<Board>), Failure> {
    if args.is_showcase() {
        return Ok((showcase_sources(options, args.duration).map_err(classify)?, None));
    }
    let cells = |cells: Vec<RunCell>| -> Result<Vec<MovieSource>, Failure> {
        cells.into_iter().map(|c| c.source(options, args.duration).map_err(classify)).collect()
    };
    if let Some(k) = args.top {
        return Ok((cells(run_media::top::top_individuals(&args.scenarios, k as usize).map_err(run_failure)?)?, None));
    }
    if let Some(dir) = &args.archive {
        let run = run_media::open_run(dir).map_err(run_failure)?;
        let grid = run_media::archive::archive_grid(&run, size.0, size.1).map_err(run_failure)?;
        let board = Board::new(grid.board).map_err(input)?;
        return Ok((cells(grid.cells)?, Some(board)));
    }
    if let Some(dir) = &args.front {
        let run = run_media::open_run(dir).map_err(run_failure)?;
        return Ok((cells(run_media::front::front_row(&run).map_err(run_failure)?)?, None));
    }
    if args.scenarios.iter().filter(|p| is_stdin(p)).count() > 1 {
        return Err(input(anyhow!("`-` (a scenario from stdin) can be given only once")));
    }
    let mut sources = Vec::with_capacity(args.scenarios.len() + args.from.len());
    for path in &args.scenarios {
        let scenario = load_scenario(path, args.duration)?;
        let name = if is_stdin(path) { "stdin".to_string() } else { path.display().to_string() };
        sources.push(MovieSource::scenario(name, &scenario, options).map_err(classify)?);
    }
    for path in &args.from {
        let source = MovieSource::recording(path, args.duration).map_err(classify)?;
        let missing = source.missing_layers(options);
        if !missing.is_empty() && !args.quiet {
            eprintln!(
                "warning: {} has no {} to draw; record them with `vsr2d simulate SCENARIO --record {} --detail {}`",
                path.display(),
                missing.join(", "),
                path.display(),
                missing.join(",")
            );
        }
        sources.push(source);
    }
    Ok((sources, None))
}

fn run_failure(e: run_media::RunPictureError) -> Failure {
    super::classified(e.is_input(), e)
}

#[cfg(feature = "video")]
fn video_failure(e: vsr2d::output::video::VideoError) -> Failure {
    super::classified(e.is_input(), e)
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
