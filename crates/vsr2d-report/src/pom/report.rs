//! Writes a POM report directory: CSVs, plots, stills, video, then `index.html` from `templates/pom.html`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::plots;
use super::video::{self, VideoFailure, VideoOutcome, VIDEO_FILE};
use crate::checks::{Check, Summary, Verdict};
use crate::dir::{DirError, ReportDir};
use crate::figure::Chart;
use vsr2d::chart::PlotError;
use vsr2d::pom::acceptance;
use vsr2d::pom::align::{self, Aligned, Comparison, Tracks};
use vsr2d::pom::spec::{Mode, Rescale};
use vsr2d::pom::{tables, PomRun, PomSpec};
use vsr2d::render::pixmap_to_rgba_image;

/// POM's markers in the format `vsr2d pom align` reads (mm).
pub const MARKERS_CSV: &str = "markers_mm.csv";

const TEMPLATE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates/pom.html"));

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PomReportError {
    #[error(transparent)]
    Dir(#[from] DirError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error(transparent)]
    Video(#[from] VideoFailure),
    #[error("cannot render the report page templates/pom.html: {0}")]
    Template(#[from] minijinja::Error),
}

/// Motion-capture data aligned against the run.
#[derive(Debug, Clone)]
pub struct Mocap<'a> {
    /// The CSV as the user named it.
    pub file: &'a str,
    pub tracks: &'a Tracks,
    pub aligned: &'a Aligned,
    pub comparison: &'a Comparison,
    pub rescale: Rescale,
}

/// What a report is about.
#[derive(Debug, Clone)]
pub struct ReportInput<'a> {
    /// The spec file name, or the built-in example's name.
    pub source: &'a str,
    pub spec: &'a PomSpec,
    pub run: &'a PomRun,
    pub mocap: Option<Mocap<'a>>,
    /// Write `pom.mp4` (when the `video` feature is on).
    pub video: bool,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct PomReport {
    pub index: PathBuf,
    pub checks: Vec<Check>,
    pub summary: Summary,
    pub video: VideoOutcome,
    pub files: Vec<String>,
}

fn check(number: u8, name: String, measured: String, threshold: String, pass: Option<bool>) -> Check {
    Check {
        id: format!("pom_{number}"),
        name,
        runs: format!("{number}"),
        measured,
        predicted: String::new(),
        tolerance: threshold,
        measured_value: None,
        predicted_value: None,
        verdict: match pass {
            Some(true) => Verdict::Pass,
            Some(false) => Verdict::Flag,
            None => Verdict::NoData,
        },
        explanation: String::new(),
    }
}

/// Checks 1–10 measured on the run, and check 11 from the written video (`None`: not written yet).
pub fn acceptance_table(run: &PomRun, spec: &PomSpec, video: Option<&VideoOutcome>) -> Vec<Check> {
    let mut out: Vec<Check> = acceptance::measure(run, spec)
        .into_iter()
        .map(|a| check(a.number, a.name, a.measured, a.threshold, a.pass))
        .collect();
    let fps = spec.render.clone().unwrap_or_default().fps;
    let (measured, pass) = match video {
        Some(VideoOutcome::Written { frames, width, height, fps: got, codec }) => (
            format!("{VIDEO_FILE}: {codec}, {got} fps, {width}×{height}, {frames} frames; goldens: tests/golden/pom (cargo test)"),
            Some(codec == "h264" && (*got - f64::from(fps)).abs() < 1e-9 && width % 2 == 0 && height % 2 == 0 && *frames > 0),
        ),
        Some(VideoOutcome::Skipped(why)) => (format!("no video: {why}"), None),
        None => ("not written".into(), None),
    };
    out.push(check(
        11,
        "3-view renderer goldens from hand-built fields (test suite); pom.mp4 is H.264 at the spec's fps, even size"
            .into(),
        measured,
        format!("h264, {fps} fps, even size"),
        pass,
    ));
    out
}

#[derive(Serialize)]
struct Row {
    name: String,
    value: String,
}

#[derive(Serialize)]
struct Figure {
    file: String,
    title: String,
    caption: String,
}

fn row(name: &str, value: impl Into<String>) -> Row {
    Row { name: name.into(), value: value.into() }
}

/// Times worth a still: the peak of each swing of the first cycle in a gait, else the sample with the
/// largest |q|, and always the start.
fn still_times(run: &PomRun) -> Vec<(String, f64)> {
    let s = &run.solution;
    let mut out = vec![("start".to_string(), s.times.first().copied().unwrap_or(0.0))];
    if let Some(g) = &run.gait {
        for p in g.phases.iter().filter(|p| p.phase.cycle == 0) {
            if let Some(f) = p.phase.swing {
                let best = s
                    .times
                    .iter()
                    .zip(&s.x)
                    .filter(|(t, _)| **t >= p.phase.start && **t <= p.phase.end)
                    .max_by(|a, b| a.1[3 * f + 2].total_cmp(&b.1[3 * f + 2]));
                if let Some((t, _)) = best {
                    out.push((format!("{} lifted", run.model.effectors()[f].id), *t));
                }
            }
        }
    } else if let Some((t, _)) =
        s.times.iter().zip(&s.q).max_by(|a, b| {
            a.1.iter().map(|v| v.abs()).sum::<f64>().total_cmp(&b.1.iter().map(|v| v.abs()).sum::<f64>())
        })
    {
        out.push(("largest q".into(), *t));
    }
    out
}

/// Writes the whole report into `dir`; `index.html` comes last.
pub fn write(dir: &Path, input: &ReportInput<'_>) -> Result<PomReport, PomReportError> {
    let out = ReportDir::create(dir)?;
    let run = input.run;
    let spec = input.spec;
    let render = spec.render.clone().unwrap_or_default();
    let mut files = Vec::new();
    let mut put = |name: &str, text: String| -> Result<(), DirError> {
        out.write(name, text.as_bytes())?;
        files.push(name.to_string());
        Ok(())
    };
    put("J.csv", tables::j_csv(run))?;
    put("q.csv", tables::q_csv(run))?;
    put("x.csv", tables::x_csv(run))?;
    put("residuals.csv", tables::residuals_csv(run))?;
    put("violations.csv", tables::violations_csv(run))?;
    if let Some(support) = tables::support_csv(run) {
        put("support.csv", support)?;
    }
    let predicted = align::predicted_tracks(&run.model, &run.solution);
    if predicted.names.len() >= 2 {
        put(MARKERS_CSV, align::tracks_csv(&predicted, align::Units::Mm))?;
    }
    if let Some(m) = &input.mocap {
        put("aligned.csv", align::aligned_csv(&m.tracks.names, &m.tracks.times, &m.aligned.frames))?;
    }
    let title = match &run.reconstruction {
        Some(_) => format!("{} — RECONSTRUCTION, not the paper's robot", input.source),
        None => input.source.to_string(),
    };

    let mut charts: Vec<Chart> = plots::charts(run)?;
    if let Some(m) = &input.mocap {
        if let Some(image) = plots::mocap_overlay(&m.tracks.names, m.comparison)? {
            charts.push(Chart {
                file_name: "fig7_mocap.png".into(),
                title: "Markers: POM prediction and aligned motion capture (cf. paper Fig. 7)".into(),
                caption: format!(
                    "The data after the paper's four preprocessing steps (rescale: {}), POM's markers after steps 1–3; \
                     both about their time means. RMS difference {:.3} mm against an RMS model displacement of {:.3} mm \
                     over {} samples.",
                    if m.rescale == Rescale::Variance { "variance" } else { "none" },
                    m.comparison.rms * 1e3,
                    m.comparison.model_rms * 1e3,
                    m.comparison.times.len()
                ),
                image,
            });
        }
    }
    let mut figures = Vec::new();
    for c in &charts {
        out.write_png(&c.file_name, &image::DynamicImage::ImageRgb8(c.image.clone()))?;
        figures.push(Figure { file: c.file_name.clone(), title: c.title.clone(), caption: c.caption.clone() });
    }
    let mut stills = Vec::new();
    let mut patterns = Vec::new();
    let mut r = video::renderer(run, &render, &title).map_err(VideoFailure::from)?;
    for (k, (label, t)) in still_times(run).into_iter().enumerate() {
        let name = format!("views_{k}.png");
        let img = pixmap_to_rgba_image(r.render(&run.model, &video::state_at(run, t)));
        out.write_png(&name, &image::DynamicImage::ImageRgba8(img))?;
        stills.push(Figure { file: name, title: format!("{label}, t = {t:.2} s"), caption: String::new() });
    }
    // Figs. 1–3 style: each control alone at the top of its range, the pattern it imposes on its plane.
    for (i, c) in run.model.controls().iter().enumerate() {
        let mut q = vec![0.0; run.model.cols()];
        q[i] = c.range[1];
        let name = format!("control_{i}.png");
        let state = vsr2d::render::lattice::LatticeState::from_q(&run.model, 0.0, &q);
        let img = pixmap_to_rgba_image(r.render(&run.model, &state));
        out.write_png(&name, &image::DynamicImage::ImageRgba8(img))?;
        patterns.push(Figure {
            file: name,
            title: format!("control {} alone at q = {} mm (cf. paper Figs. 1–3)", c.id, c.range[1] * 1e3),
            caption:
                "Every node of its plane moves by the same amount with alternating direction; nothing else translates."
                    .into(),
        });
    }
    let video = if input.video {
        video::write_video(dir, run, &render, &title)?
    } else {
        VideoOutcome::Skipped(format!("{VIDEO_FILE} not written (--no-video)"))
    };
    let checks = acceptance_table(run, spec, Some(&video));
    let summary = Summary::of(&checks);
    let html = page(input, &title, &checks, summary, &figures, &stills, &patterns, &video, &files)?;
    let index = out.finish(&html)?;
    Ok(PomReport { index, checks, summary, video, files })
}

#[allow(clippy::too_many_arguments)]
fn page(
    input: &ReportInput<'_>,
    title: &str,
    checks: &[Check],
    summary: Summary,
    figures: &[Figure],
    stills: &[Figure],
    patterns: &[Figure],
    video: &VideoOutcome,
    files: &[String],
) -> Result<String, minijinja::Error> {
    let run = input.run;
    let m = &run.model;
    let render = input.spec.render.clone().unwrap_or_default();
    let s = &run.solution;
    let mode = match run.mode {
        Mode::Forward => "forward",
        Mode::Inverse => "inverse",
        Mode::Lateral => "lateral",
        Mode::Gait => "gait",
    };
    let settings = vec![
        row("source", input.source),
        row("mode", mode),
        row("lattice", format!("{} voxels, pitch {} m, PFEA node numbering", m.lattice().len(), m.lattice().pitch())),
        row("controls / effectors", format!("{} / {}", m.cols(), m.effectors().len())),
        row(
            "samples",
            format!(
                "{} (dt {} s, t = {}–{} s)",
                s.times.len(),
                input.spec.dt,
                s.times.first().unwrap_or(&0.0),
                s.times.last().unwrap_or(&0.0)
            ),
        ),
        row(
            "drawing",
            format!(
                "{}×{} px, {} fps, displacements ×{}",
                render.size[0], render.size[1], render.fps, render.exaggerate
            ),
        ),
        row("vsr2d", env!("CARGO_PKG_VERSION")),
    ];
    let controls: Vec<Vec<String>> = m
        .controls()
        .iter()
        .zip(m.actuations())
        .map(|(c, a)| {
            vec![
                c.id.clone(),
                c.at.to_string(),
                c.push.to_string(),
                c.partner.map_or("–".into(), |p| p.to_string()),
                a.d.to_string(),
                format!("{}-layer {} ({} voxels)", a.plane.axis_name(), a.plane.layer, a.plane.voxels.len()),
                format!("{:+}", a.sigma),
                format!("{} … {} mm", c.range[0] * 1e3, c.range[1] * 1e3),
            ]
        })
        .collect();
    let j_rows: Vec<(String, Vec<i8>)> =
        (0..m.rows()).map(|r| (m.row_name(r), (0..m.cols()).map(|i| m.j(r, i)).collect())).collect();
    let phases: Vec<Vec<String>> = run
        .gait
        .iter()
        .flat_map(|g| g.phases.iter())
        .map(|p| {
            vec![
                (p.phase.cycle + 1).to_string(),
                p.phase.swing.map_or("(stance)".into(), |f| m.effectors()[f].id.clone()),
                format!("{:.2}–{:.2}", p.phase.start, p.phase.end),
                p.min_feet_on_ground.to_string(),
                format!("{:.2}", p.min_margin * 1e3),
                format!("{:.2}", p.peak_lift * 1e3),
            ]
        })
        .collect();
    let video_ctx = match video {
        VideoOutcome::Written { frames, width, height, fps, codec } => minijinja::context! {
            file => VIDEO_FILE, text => format!("{codec}, {width}×{height}, {fps} fps, {frames} frames"),
        },
        VideoOutcome::Skipped(why) => minijinja::context! { file => (), text => why },
    };
    let mocap = input.mocap.as_ref().map(|mc| {
        minijinja::context! {
            file => mc.file,
            markers => mc.tracks.names.join(", "),
            samples => mc.tracks.times.len(),
            compared => mc.comparison.times.len(),
            skipped => mc.comparison.skipped,
            rescale => if mc.rescale == Rescale::Variance { "variance" } else { "none" },
            scale => format!("{:.4}", mc.aligned.scale),
            rms_mm => format!("{:.3}", mc.comparison.rms * 1e3),
            model_rms_mm => format!("{:.3}", mc.comparison.model_rms * 1e3),
            theta_deg => format!("{:.1}", mc.aligned.theta.iter().map(|t| t.abs()).fold(0.0, f64::max).to_degrees()),
        }
    });
    vsr2d::output::template::render(
        "pom.html",
        TEMPLATE,
        minijinja::context! {
            title => title,
            reconstruction => run.reconstruction,
            verdict => summary.line("Acceptance checks of spec §13"),
            status => summary.status(),
            checks => checks,
            settings => settings,
            controls => controls,
            control_ids => m.controls().iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
            j_rows => j_rows,
            phases => phases,
            summary_text => tables::summary(run),
            figures => figures,
            stills => stills,
            patterns => patterns,
            video => video_ctx,
            files => files,
            mocap => mocap,
        },
    )
}
