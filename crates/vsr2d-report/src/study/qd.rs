//! What `vsr2d study qd` adds to the study report: the diversity of the bodies each run ends with (the
//! GA's final population, MAP-Elites' archive) on the MAP-Elites configuration's descriptor grid. Per
//! run: the coverage of that grid and the mean body distance; the two configurations compared with
//! the Mann–Whitney test; and one run of each drawn side by side on the same grid (`qd_bodies.png`:
//! the robots; `qd_heatmaps.png`: fitness per bin).
//!
//! Every descriptor is recomputed from the body in each member's scenario ([`Morphology`]), the same
//! way for both algorithms, so the GA's population and the archive are measured alike.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use super::ComparisonRow;
use crate::stats::{mann_whitney, median};
use vsr2d::evolve::algorithm::map_elites::{Descriptor, GridArchive};
use vsr2d::evolve::reader::{Elite, RunDirectory};
use vsr2d::evolve::study::{RunResult, Study};
use vsr2d::evolve::{AlgorithmSpec, Goal};
use vsr2d::model::voxel::morphology::Morphology;
use vsr2d::run_media::archive::{heatmap, ArchiveView};
use vsr2d::run_media::RunPictureError;
use vsr2d::scenario::Scenario;

/// The pictures' file names.
pub const BODIES_PNG: &str = "qd_bodies.png";
pub const HEATMAPS_PNG: &str = "qd_heatmaps.png";
pub const QD_CSV: &str = "qd.csv";

/// One run's final bodies, measured.
#[derive(Debug, Clone, Serialize)]
pub struct QdRun {
    pub config: String,
    pub k: u32,
    /// How many bodies the run ends with (the GA's population, the archive's elites).
    pub bodies: usize,
    /// Filled bins of the descriptor grid over its bins.
    pub coverage: f64,
    /// Mean over pairs of the final bodies of [`body_distance`].
    pub diversity: f64,
}

/// The medians of one configuration.
#[derive(Debug, Clone, Serialize)]
pub struct QdConfig {
    pub name: String,
    pub coverage_median: Option<f64>,
    pub diversity_median: Option<f64>,
}

/// Everything the report's quality-diversity section states.
#[derive(Debug, Clone, Serialize)]
pub struct QdStats {
    /// The descriptor grid, e.g. "voxels (10 bins in [0.5, 25.5]) × elongation (10 bins in [0, 1])".
    pub grid: String,
    pub bins: usize,
    pub runs: Vec<QdRun>,
    pub configs: Vec<QdConfig>,
    /// Coverage and diversity, configuration against configuration as the study compares them.
    pub comparisons: Vec<ComparisonRow>,
    pub distance: &'static str,
}

pub const DISTANCE: &str = "the fraction of cells in which two bodies differ (a voxel against an empty cell, or two \
                            materials), each body moved to the lower-left corner of its bounding box, over the \
                            smallest window holding both";

/// A body as the distance sees it: each voxel's cell (from its bounding box's lower-left corner) and
/// material key.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub width: u32,
    pub height: u32,
    pub cells: BTreeMap<[u32; 2], String>,
}

impl Shape {
    pub fn new(voxels: &[([u32; 2], String)]) -> Shape {
        let x0 = voxels.iter().map(|(c, _)| c[0]).min().unwrap_or(0);
        let y0 = voxels.iter().map(|(c, _)| c[1]).min().unwrap_or(0);
        let cells: BTreeMap<[u32; 2], String> =
            voxels.iter().map(|(c, m)| ([c[0] - x0, c[1] - y0], m.clone())).collect();
        let width = cells.keys().map(|c| c[0] + 1).max().unwrap_or(0);
        let height = cells.keys().map(|c| c[1] + 1).max().unwrap_or(0);
        Shape { width, height, cells }
    }
}

/// See [`DISTANCE`]: 0 for equal bodies, 1 for bodies that share no voxel of the same material.
pub fn body_distance(a: &Shape, b: &Shape) -> f64 {
    let (w, h) = (a.width.max(b.width), a.height.max(b.height));
    if w == 0 || h == 0 {
        return 0.0;
    }
    let differ = (0..w).flat_map(|x| (0..h).map(move |y| [x, y])).filter(|c| a.cells.get(c) != b.cells.get(c)).count();
    differ as f64 / f64::from(w * h)
}

/// Mean [`body_distance`] over the pairs of `shapes` (0 with fewer than two).
pub fn mean_distance(shapes: &[Shape]) -> f64 {
    let mut sum = 0.0;
    let mut pairs = 0usize;
    for (i, a) in shapes.iter().enumerate() {
        for b in &shapes[i + 1..] {
            sum += body_distance(a, b);
            pairs += 1;
        }
    }
    if pairs == 0 {
        0.0
    } else {
        sum / pairs as f64
    }
}

/// One final body: its scenario, fitness, descriptors on the grid and shape.
struct Body {
    scenario: Value,
    fitness: f64,
    descriptors: Vec<f64>,
    shape: Shape,
}

/// The bodies a run ends with: MAP-Elites' archive, any other algorithm's final population.
fn final_bodies(dir: &std::path::Path, descriptors: &[Descriptor]) -> Result<Vec<Body>, RunPictureError> {
    let run = RunDirectory::open(dir).map_err(|source| RunPictureError::NotARun { dir: dir.to_path_buf(), source })?;
    let (file, members): (PathBuf, Vec<(Value, f64)>) = match run.algorithm() {
        AlgorithmSpec::MapElites(_) => {
            let elites = run.archive()?;
            (dir.join(vsr2d::evolve::reader::ARCHIVE), elites.into_iter().map(|e| (e.scenario, e.fitness)).collect())
        }
        _ => {
            let population = run.final_population()?;
            let valid = population.into_iter().filter_map(|m| Some((m.scenario, m.fitness?)));
            (dir.join(vsr2d::evolve::reader::FINAL_POPULATION), valid.collect())
        }
    };
    let invalid = |line: usize, message: String| RunPictureError::Invalid {
        path: file.clone(),
        message: format!("member {line}: {message}"),
    };
    let mut bodies = Vec::with_capacity(members.len());
    for (i, (scenario, fitness)) in members.into_iter().enumerate() {
        if scenario.is_null() || !fitness.is_finite() {
            continue;
        }
        let parsed = Scenario::from_json(&scenario.to_string()).map_err(|e| invalid(i + 1, e.to_string()))?;
        let grid = parsed.body(0).map_err(|e| invalid(i + 1, e.to_string()))?;
        let morphology = serde_json::to_value(Morphology::of(&grid)).expect("morphology serialises");
        let values = descriptors
            .iter()
            .map(|d| {
                morphology.get(&d.metric).and_then(Value::as_f64).ok_or_else(|| {
                    invalid(i + 1, format!("descriptor {:?} is not a morphology descriptor of the body", d.metric))
                })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        let (keys, of_voxel) = grid.material_keys();
        let voxels: Vec<([u32; 2], String)> =
            grid.voxels().zip(of_voxel).map(|((c, _), m)| (c, keys[m as usize].clone())).collect();
        bodies.push(Body { scenario, fitness, descriptors: values, shape: Shape::new(&voxels) });
    }
    Ok(bodies)
}

/// The best body of each filled bin (ties: the first), as archive lines, by flat bin index.
fn binned(bodies: &[Body], grid: &GridArchive) -> Vec<Elite> {
    let mut best: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, b) in bodies.iter().enumerate() {
        let flat = grid.flat_index(&grid.bin_of(&b.descriptors));
        if best.get(&flat).is_none_or(|&j| b.fitness > bodies[j].fitness) {
            best.insert(flat, i);
        }
    }
    best.values()
        .map(|&i| Elite {
            bin: grid.bin_of(&bodies[i].descriptors),
            descriptors: bodies[i].descriptors.clone(),
            fitness: bodies[i].fitness,
            genome: vec![],
            scenario: bodies[i].scenario.clone(),
        })
        .collect()
}

/// The descriptors of the study's MAP-Elites configuration.
pub fn grid_descriptors(study: &Study) -> Option<Vec<Descriptor>> {
    study.configs.iter().find_map(|c| match c.experiment.algorithm() {
        AlgorithmSpec::MapElites(p) => Some(p.descriptors),
        _ => None,
    })
}

/// One run's bodies on the grid, as the pictures show them.
pub struct RunGrid {
    pub run: QdRun,
    pub view: ArchiveView,
}

/// Measures every finished run; `None` when the study has no MAP-Elites configuration.
pub fn measure(study: &Study, results: &[RunResult]) -> Result<Option<(QdStats, Vec<RunGrid>)>, RunPictureError> {
    let Some(descriptors) = grid_descriptors(study) else { return Ok(None) };
    let grid = GridArchive::new(descriptors.iter().map(Descriptor::axis).collect())
        .expect("the MAP-Elites experiment's descriptors were validated");
    let mut grids = Vec::new();
    for r in results {
        let config = &study.configs[r.config];
        let bodies = final_bodies(&r.dir, &descriptors)?;
        let elites = binned(&bodies, &grid);
        let shapes: Vec<Shape> = bodies.iter().map(|b| b.shape.clone()).collect();
        let run = QdRun {
            config: config.name.clone(),
            k: r.k,
            bodies: bodies.len(),
            coverage: elites.len() as f64 / grid.bins() as f64,
            diversity: mean_distance(&shapes),
        };
        let what = if matches!(config.experiment.algorithm(), AlgorithmSpec::MapElites(_)) {
            "archive"
        } else {
            "final population"
        };
        let name = format!("{} run {} ({what})", config.label, r.k);
        let view = ArchiveView::new(&name, Goal::Max, &descriptors, elites, r.dir.clone())?;
        grids.push(RunGrid { run, view });
    }
    let of = |c: &str, f: fn(&QdRun) -> f64| -> Vec<f64> {
        grids.iter().filter(|g| g.run.config == c).map(|g| f(&g.run)).collect()
    };
    let configs = study
        .configs
        .iter()
        .map(|c| QdConfig {
            name: c.name.clone(),
            coverage_median: median(&of(&c.name, |r| r.coverage)),
            diversity_median: median(&of(&c.name, |r| r.diversity)),
        })
        .collect();
    let mut comparisons = Vec::new();
    for (measure, f) in [("coverage", (|r: &QdRun| r.coverage) as fn(&QdRun) -> f64), ("diversity", |r| r.diversity)] {
        for &(a, b) in &study.comparisons {
            let (a, b) = (&study.configs[a].name, &study.configs[b].name);
            comparisons.push(ComparisonRow {
                measure: Some(measure.to_string()),
                a: a.clone(),
                b: b.clone(),
                test: mann_whitney(&of(a, f), &of(b, f)),
            });
        }
    }
    let axis = |d: &Descriptor| {
        format!("{} ({} bins in [{}, {}])", d.metric, d.bins, vsr2d::format::short(d.min), vsr2d::format::short(d.max))
    };
    let stats = QdStats {
        grid: descriptors.iter().map(axis).collect::<Vec<_>>().join(" × "),
        bins: grid.bins(),
        runs: grids.iter().map(|g| g.run.clone()).collect(),
        configs,
        comparisons,
        distance: DISTANCE,
    };
    Ok(Some((stats, grids)))
}

/// The fitness heatmaps of `views`, side by side.
pub fn heatmaps(views: &[&ArchiveView]) -> Result<image::RgbImage, vsr2d::chart::PlotError> {
    let images = views.iter().map(|v| heatmap(v).map(|(image, _)| image)).collect::<Result<Vec<_>, _>>()?;
    let width = images.iter().map(|i| i.width()).sum();
    let height = images.iter().map(|i| i.height()).max().unwrap_or(0);
    let mut out = image::RgbImage::from_pixel(width, height, image::Rgb([255, 255, 255]));
    let mut x = 0;
    for image in &images {
        image::imageops::replace(&mut out, image, i64::from(x), 0);
        x += image.width();
    }
    Ok(out)
}

/// The size of one board of `qd_bodies.png`.
pub const BOARD_W: u32 = 960;
pub const BOARD_H: u32 = 720;
pub const QD_COMPARISONS_CSV: &str = "qd_comparisons.csv";

/// Writes the section's data and pictures into `out` (the best run of each configuration, `shown`,
/// drawn side by side); `None` when the study has no MAP-Elites configuration.
pub fn write_section(
    out: &crate::dir::ReportDir,
    study: &Study,
    results: &[RunResult],
    shown: &[&RunResult],
    files: &mut Vec<String>,
) -> Result<Option<QdStats>, super::StudyReportError> {
    use crate::csv::{f64_field, Csv};
    let Some((stats, grids)) = measure(study, results)? else { return Ok(None) };
    let mut runs = Csv::new(&["config", "run", "bodies", "coverage", "diversity"]);
    for r in &stats.runs {
        runs.row([
            r.config.clone(),
            r.k.to_string(),
            r.bodies.to_string(),
            f64_field(r.coverage),
            f64_field(r.diversity),
        ]);
    }
    let mut tests = Csv::new(&["measure", "a", "b", "n_a", "n_b", "U", "U_a", "p", "A12", "r"]);
    for row in &stats.comparisons {
        let t = row.test.as_ref();
        let field = |f: fn(&crate::stats::MannWhitney) -> f64| t.map_or(String::new(), |t| f64_field(f(t)));
        tests.row([
            row.measure.clone().unwrap_or_default(),
            row.a.clone(),
            row.b.clone(),
            t.map_or(String::new(), |t| t.n_a.to_string()),
            t.map_or(String::new(), |t| t.n_b.to_string()),
            field(|t| t.u),
            field(|t| t.u_a),
            field(|t| t.p),
            field(|t| t.a12),
            field(|t| t.r),
        ]);
    }
    for (name, csv) in [(QD_CSV, runs), (QD_COMPARISONS_CSV, tests)] {
        out.write(name, csv.finish().as_bytes())?;
        files.push(name.to_string());
    }
    let shown_grids: Vec<&RunGrid> = shown
        .iter()
        .filter_map(|r| grids.iter().find(|g| g.run.config == study.configs[r.config].name && g.run.k == r.k))
        .collect();
    let views: Vec<&ArchiveView> = shown_grids.iter().map(|g| &g.view).filter(|v| !v.cells.is_empty()).collect();
    if views.is_empty() {
        return Ok(Some(stats));
    }
    out.write_png(HEATMAPS_PNG, &image::DynamicImage::ImageRgb8(heatmaps(&views)?))?;
    files.push(HEATMAPS_PNG.to_string());
    let at = bodies_time(study);
    let mut boards = Vec::new();
    for view in &views {
        let grid = view.grid(BOARD_W, BOARD_H)?;
        boards.push(vsr2d::run_media::media::board_still(
            &format!("the bodies of {}", view.name),
            grid.cells,
            grid.board,
            at,
        )?);
    }
    let refs: Vec<&tiny_skia::Pixmap> = boards.iter().collect();
    let side_by_side =
        vsr2d::output::sinks::Filmstrip::compose_rows(&refs, refs.len()).ok_or(super::MediaError::Compose)?;
    out.write_png(BODIES_PNG, &image::DynamicImage::ImageRgba8(vsr2d::render::pixmap_to_rgba_image(&side_by_side)))?;
    files.push(BODIES_PNG.to_string());
    Ok(Some(stats))
}

/// When `qd_bodies.png` shows the robots: mid-run, at most 10 s in.
pub fn bodies_time(study: &Study) -> f64 {
    let duration = study.configs[0].experiment.scenario.as_ref().map_or(60.0, |s| s.world.duration);
    (duration / 2.0).min(10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(rows_top_first: &[&str]) -> Shape {
        let h = rows_top_first.len() as u32;
        let mut voxels = Vec::new();
        for (r, row) in rows_top_first.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                if ch != '.' {
                    voxels.push(([x as u32 + 3, h - 1 - r as u32 + 2], ch.to_string()));
                }
            }
        }
        Shape::new(&voxels)
    }

    #[test]
    fn body_distance_counts_differing_cells_of_the_common_window() {
        let worm = shape(&["####"]);
        let biped = shape(&["####", "#..#"]);
        // Placed at their lower-left corners: the worm's row is the biped's legs row; window 4 × 2.
        // Cells differ: legs row (1,0), (2,0) are worm voxels vs empty; top row all 4 are biped only.
        assert_eq!(body_distance(&worm, &biped), 6.0 / 8.0);
        assert_eq!(body_distance(&biped, &biped), 0.0);
        assert_eq!(body_distance(&shape(&["#h"]), &shape(&["#s"])), 0.5, "a material differs in 1 of 2 cells");
        // Translation does not count.
        assert_eq!(shape(&["..#", "..#"]), shape(&["#", "#"]));
        assert_eq!(mean_distance(&[worm.clone(), worm.clone(), worm]), 0.0);
        let three = [shape(&["#"]), shape(&["##"]), shape(&["#", "#"])];
        // Pairs: 1 cell of 2, 1 of 2, and in the 2 × 2 window cells (1, 0) and (0, 1): 2 of 4; 0.5 each.
        assert!((mean_distance(&three) - 0.5).abs() < 1e-15);
    }
}
