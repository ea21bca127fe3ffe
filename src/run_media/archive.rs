//! A MAP-Elites archive in pictures: `archive.png` (the heatmap: fitness per bin on the descriptor
//! grid, empty bins visibly empty, a colour bar) and the grid of elites `vsr2d render --archive`
//! draws (one cell per filled bin on the same grid, each elite moving, labelled with its fitness).
//!
//! Both put the first descriptor on x and the second on y (row 0 at the bottom); one descriptor gives
//! a single row; with more than two, each (x, y) bin shows the best elite over the others.

use std::path::PathBuf;

use image::RgbImage;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{run_file, RunCell, RunPictureError};
use crate::chart::look::ramp_color;
use crate::chart::{label_style, tick_style, title_style, PlotError};
use crate::evolve::algorithm::map_elites::{Descriptor, MapElitesParams};
use crate::evolve::reader::{Elite, RunDirectory, ARCHIVE};
use crate::evolve::{AlgorithmSpec, Goal};
use crate::format::{compact, sig};
use crate::movie::board::{BoardAxis, BoardSpec};
use crate::scenario::Scenario;

/// The heatmap's file name in the run directory.
pub(crate) const ARCHIVE_PNG: &str = "archive.png";
/// The heatmap's empty bins: a light grey no fitness colour comes near (the ramp's lightest is a
/// saturated yellow-green).
pub const EMPTY_RGB: [u8; 3] = [232, 232, 232];

/// The number of bins of the archive of `params`.
pub(crate) fn bin_count(params: &MapElitesParams) -> usize {
    params.descriptors.iter().map(|d| d.bins).product()
}

/// One axis of the pictures: a descriptor's metric and bins.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveAxis {
    pub metric: String,
    pub min: f64,
    pub max: f64,
    pub bins: usize,
}

impl ArchiveAxis {
    fn of(d: &Descriptor) -> ArchiveAxis {
        ArchiveAxis { metric: d.metric.clone(), min: d.min, max: d.max, bins: d.bins }
    }

    /// The value at edge `k` (0 ..= bins).
    pub fn edge(&self, k: usize) -> f64 {
        self.min + (self.max - self.min) * k as f64 / self.bins as f64
    }

    /// The labels of the bin edges.
    pub(crate) fn edge_labels(&self) -> Vec<String> {
        (0..=self.bins).map(|k| compact(self.edge(k)).replace('-', "−")).collect()
    }

    /// "x_distance: 8 bins of 0.5" (values outside [min, max] are in the edge bins).
    pub fn title(&self) -> String {
        let width = (self.max - self.min) / self.bins as f64;
        let bins = if self.bins == 1 { "1 bin".to_string() } else { format!("{} bins", self.bins) };
        format!("{}: {bins} of {} (outside values in the edge bins)", self.metric, compact(width))
    }
}

/// One bin of the pictures' grid and the elite shown in it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveCell {
    /// Column (first descriptor's bin) and row (second's, 0 at the bottom; 0 with one descriptor).
    pub col: usize,
    pub row: usize,
    /// Index into [`ArchiveView::elites`].
    pub elite: usize,
}

/// An archive as the pictures show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveView {
    /// The experiment's name.
    pub name: String,
    pub goal: Goal,
    pub x: ArchiveAxis,
    pub y: Option<ArchiveAxis>,
    /// The metrics of the descriptors beyond the second, over which each bin shows the best.
    pub collapsed: Vec<String>,
    /// `archive.jsonl`'s lines.
    pub elites: Vec<Elite>,
    /// The shown bins, in `archive.jsonl`'s order of their elites (flat bin order).
    pub cells: Vec<ArchiveCell>,
    /// `archive.jsonl`.
    pub path: PathBuf,
}

impl ArchiveView {
    /// The archive of the MAP-Elites run `run`.
    pub fn of(run: &RunDirectory) -> Result<ArchiveView, RunPictureError> {
        let AlgorithmSpec::MapElites(params) = run.algorithm() else {
            return Err(RunPictureError::WrongAlgorithm {
                dir: run.dir.clone(),
                algorithm: run.algorithm().name(),
                needed: "map_elites",
                what: "an archive",
                hint: "for the best individuals of any run use `vsr2d render --top K RUN_DIR`",
            });
        };
        let fix = format!(
            "a MAP-Elites run writes it after every generation; run or resume the experiment (`vsr2d evolve \
             {}/experiment.json -o {}`)",
            run.dir.display(),
            run.dir.display()
        );
        let elites = run_file(run, ARCHIVE, &fix, RunDirectory::archive)?;
        ArchiveView::new(&run.experiment.name, run.goal(), &params.descriptors, elites, run.dir.join(ARCHIVE))
    }

    /// The view of `elites` on the grid of `descriptors`; `path` names the file they came from in
    /// errors.
    pub fn new(
        name: &str,
        goal: Goal,
        descriptors: &[Descriptor],
        elites: Vec<Elite>,
        path: PathBuf,
    ) -> Result<ArchiveView, RunPictureError> {
        let Some(first) = descriptors.first() else {
            return Err(RunPictureError::Invalid { path, message: "the experiment gives no descriptors".into() });
        };
        let x = ArchiveAxis::of(first);
        let y = descriptors.get(1).map(ArchiveAxis::of);
        let collapsed = descriptors.iter().skip(2).map(|d| d.metric.clone()).collect();
        // The best elite of each shown bin, in the order its first elite comes.
        let mut cells: Vec<ArchiveCell> = Vec::new();
        let mut at = std::collections::HashMap::new();
        for (i, e) in elites.iter().enumerate() {
            let fits = e.bin.len() == descriptors.len() && e.bin.iter().zip(descriptors).all(|(b, d)| *b < d.bins);
            if !fits || !e.fitness.is_finite() {
                return Err(RunPictureError::Invalid {
                    path,
                    message: format!(
                        "line {}: bin {:?} with fitness {} is not a bin of the experiment's {} descriptor(s) with a \
                         fitness; was the file written by another experiment?",
                        i + 1,
                        e.bin,
                        e.fitness,
                        descriptors.len()
                    ),
                });
            }
            let (col, row) = (e.bin[0], e.bin.get(1).copied().unwrap_or(0));
            match at.get(&(col, row)) {
                None => {
                    at.insert((col, row), cells.len());
                    cells.push(ArchiveCell { col, row, elite: i });
                }
                Some(&k) => {
                    let shown: &mut ArchiveCell = &mut cells[k];
                    if better(goal, e.fitness, elites[shown.elite].fitness) {
                        shown.elite = i;
                    }
                }
            }
        }
        Ok(ArchiveView { name: name.to_string(), goal, x, y, collapsed, elites, cells, path })
    }

    pub fn cols(&self) -> usize {
        self.x.bins
    }

    pub fn rows(&self) -> usize {
        self.y.as_ref().map_or(1, |y| y.bins)
    }

    /// The elite shown in a cell.
    pub fn elite(&self, cell: &ArchiveCell) -> &Elite {
        &self.elites[cell.elite]
    }

    /// The range of the shown fitnesses, worst and best.
    pub(crate) fn fitness_range(&self) -> Option<(f64, f64)> {
        let values = self.cells.iter().map(|c| self.elite(c).fitness);
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
        (lo <= hi).then_some(match self.goal {
            Goal::Max => (lo, hi),
            Goal::Min => (hi, lo),
        })
    }

    /// The heatmap colour of a fitness: the ramp from the worst shown (dark) to the best (bright).
    pub fn color(&self, fitness: f64) -> [u8; 3] {
        let t = match self.fitness_range() {
            Some((worst, best)) if worst != best => (fitness - worst) / (best - worst),
            _ => 1.0,
        };
        let c = ramp_color(t);
        [c.0, c.1, c.2]
    }

    /// The title's note on collapsed descriptors, if any.
    fn collapsed_note(&self) -> String {
        if self.collapsed.is_empty() {
            String::new()
        } else {
            format!("; each bin: the best over {}", self.collapsed.join(", "))
        }
    }
}

fn better(goal: Goal, a: f64, b: f64) -> bool {
    match goal {
        Goal::Max => a > b,
        Goal::Min => a < b,
    }
}

/// Where the heatmap's bins are, in pixels of `archive.png`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeatmapLayout {
    pub width: u32,
    pub height: u32,
    /// The grid's top-left corner.
    pub left: u32,
    pub top: u32,
    pub cols: u32,
    pub rows: u32,
    pub cell_w: u32,
    pub cell_h: u32,
}

const LEFT: u32 = 120;
const RIGHT: u32 = 190;
const TOP: u32 = 60;
const BOTTOM: u32 = 90;
const PLOT_W: u32 = 640;

impl HeatmapLayout {
    /// Bins near square, the grid 640 px wide (wider for more than 640 columns), at most 480 px and
    /// at least 200 px tall (a 1-D archive is one tall row).
    pub fn of(view: &ArchiveView) -> HeatmapLayout {
        let cols = view.cols().min(u32::MAX as usize) as u32;
        let rows = view.rows().min(u32::MAX as usize) as u32;
        let cell_w = (PLOT_W / cols).max(1);
        let plot_h = (rows.saturating_mul(cell_w)).clamp(200, 480);
        let cell_h = (plot_h / rows).max(1);
        HeatmapLayout {
            width: LEFT + cols * cell_w + RIGHT,
            height: TOP + rows * cell_h + BOTTOM,
            left: LEFT,
            top: TOP,
            cols,
            rows,
            cell_w,
            cell_h,
        }
    }

    /// Bin (`col`, `row`)'s pixels [x0, x1) × [y0, y1), row 0 at the bottom.
    pub(crate) fn bin_rect(&self, col: u32, row: u32) -> (u32, u32, u32, u32) {
        let x0 = self.left + col * self.cell_w;
        let y0 = self.top + (self.rows - 1 - row) * self.cell_h;
        (x0, y0, x0 + self.cell_w, y0 + self.cell_h)
    }

    /// The pixel at a bin's centre.
    pub fn centre(&self, col: u32, row: u32) -> (u32, u32) {
        let (x0, y0, x1, y1) = self.bin_rect(col, row);
        ((x0 + x1) / 2, (y0 + y1) / 2)
    }

    fn grid_right(&self) -> u32 {
        self.left + self.cols * self.cell_w
    }

    fn grid_bottom(&self) -> u32 {
        self.top + self.rows * self.cell_h
    }
}

/// `archive.png`: the fitness of each bin's elite on the descriptor grid (empty bins light grey), the
/// bin edges on the axes, and a colour bar from the worst elite to the best.
pub fn heatmap(view: &ArchiveView) -> Result<(RgbImage, HeatmapLayout), PlotError> {
    let layout = HeatmapLayout::of(view);
    let total = view.cols() * view.rows();
    let title = format!(
        "{}: fitness per bin ({} of {} bins filled{})",
        view.name,
        view.cells.len(),
        total,
        view.collapsed_note()
    );
    let image = crate::chart::render("archive heatmap", (layout.width, layout.height), |root| {
        let px = |v: u32| v as i32;
        let centred = |style: TextStyle<'static>| style.pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(title.clone(), (px(layout.width / 2), 24), centred(title_style())))?;
        let empty = RGBColor(EMPTY_RGB[0], EMPTY_RGB[1], EMPTY_RGB[2]);
        // Every bin empty, then the filled ones over them; 1 px white lines between bins when they
        // are large enough to spare them.
        let gap = i32::from(layout.cell_w >= 8 && layout.cell_h >= 8);
        for row in 0..layout.rows {
            for col in 0..layout.cols {
                let (x0, y0, x1, y1) = layout.bin_rect(col, row);
                root.draw(&Rectangle::new([(px(x0), px(y0)), (px(x1) - 1 - gap, px(y1) - 1 - gap)], empty.filled()))?;
            }
        }
        let number_fits = layout.cell_w >= 56 && layout.cell_h >= 40;
        for cell in &view.cells {
            let fitness = view.elite(cell).fitness;
            let [r, g, b] = view.color(fitness);
            let (col, row) = (cell.col as u32, cell.row as u32);
            let (x0, y0, x1, y1) = layout.bin_rect(col, row);
            root.draw(&Rectangle::new(
                [(px(x0), px(y0)), (px(x1) - 1 - gap, px(y1) - 1 - gap)],
                RGBColor(r, g, b).filled(),
            ))?;
            if number_fits {
                // Below the centre, so the centre pixel stays the bin's colour; dark text on the bright
                // end of the ramp, white on the dark end.
                let light = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b) > 140.0;
                let ink = if light { BLACK } else { WHITE };
                let (cx, _) = layout.centre(col, row);
                let y = px(y1) - px(layout.cell_h / 4);
                let style = ("sans-serif", 13).into_font().color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
                root.draw(&Text::new(sig(fitness, 3), (px(cx), y), style))?;
            }
        }
        // The x axis: bin edges and the descriptor.
        let (left, right, top, bottom) =
            (px(layout.left), px(layout.grid_right()), px(layout.top), px(layout.grid_bottom()));
        let line = BLACK.stroke_width(1);
        root.draw(&PathElement::new(vec![(left, bottom), (right, bottom)], line))?;
        root.draw(&PathElement::new(vec![(left, top), (left, bottom)], line))?;
        let x_step = label_step(&view.x.edge_labels(), layout.cell_w as f64, 8.0);
        for (k, label) in view.x.edge_labels().iter().enumerate() {
            let x = left + (k as u32 * layout.cell_w) as i32;
            root.draw(&PathElement::new(vec![(x, bottom), (x, bottom + 5)], line))?;
            if k % x_step == 0 {
                let style = tick_style().pos(Pos::new(HPos::Center, VPos::Top));
                root.draw(&Text::new(label.clone(), (x, bottom + 8), style))?;
            }
        }
        let x_title = view.x.title();
        root.draw(&Text::new(x_title, ((left + right) / 2, bottom + 48), centred(label_style())))?;
        // The y axis: the second descriptor's edges, or nothing to read on a single row.
        let y_title = match &view.y {
            Some(y) => {
                let labels = y.edge_labels();
                let step = label_step(&["0".to_string()], layout.cell_h as f64, 14.0);
                for (k, label) in labels.iter().enumerate() {
                    let yy = bottom - (k as u32 * layout.cell_h) as i32;
                    root.draw(&PathElement::new(vec![(left - 5, yy), (left, yy)], line))?;
                    if k % step == 0 {
                        let style = tick_style().pos(Pos::new(HPos::Right, VPos::Center));
                        root.draw(&Text::new(label.clone(), (left - 8, yy), style))?;
                    }
                }
                y.title()
            }
            None => "(one descriptor: a single row)".to_string(),
        };
        let style = label_style().transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(y_title, (22, (top + bottom) / 2), style))?;
        // The colour bar: worst at the bottom, best at the top.
        let bar_x = right + 40;
        let (bar_top, bar_bottom) = (top, bottom);
        let h = (bar_bottom - bar_top).max(1);
        for i in 0..h {
            let c = ramp_color(1.0 - f64::from(i) / f64::from(h));
            root.draw(&Rectangle::new([(bar_x, bar_top + i), (bar_x + 20, bar_top + i + 1)], c.filled()))?;
        }
        root.draw(&Rectangle::new([(bar_x, bar_top), (bar_x + 20, bar_bottom)], BLACK.stroke_width(1)))?;
        match view.fitness_range() {
            Some((worst, best)) => {
                let ticks = 5;
                for i in 0..=ticks {
                    let t = f64::from(i) / f64::from(ticks);
                    let v = if worst == best { best } else { worst + t * (best - worst) };
                    let yy = bar_bottom - (t * f64::from(h)).round() as i32;
                    root.draw(&PathElement::new(vec![(bar_x + 20, yy), (bar_x + 25, yy)], line))?;
                    let style = tick_style().pos(Pos::new(HPos::Left, VPos::Center));
                    root.draw(&Text::new(sig(v, 3), (bar_x + 28, yy), style))?;
                    if worst == best {
                        break;
                    }
                }
            }
            None => {
                let style = tick_style().pos(Pos::new(HPos::Left, VPos::Center));
                root.draw(&Text::new("no elites", (bar_x + 28, (bar_top + bar_bottom) / 2), style))?;
            }
        }
        let goal = match view.goal {
            Goal::Max => "max",
            Goal::Min => "min",
        };
        let bar_title = format!("fitness ({goal}; best at the top)");
        let style = label_style().transform(FontTransform::Rotate90).pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(bar_title, (bar_x + 112, (bar_top + bar_bottom) / 2), style))?;
        // The empty bins' key under the bar.
        root.draw(&Rectangle::new([(bar_x, bottom + 14), (bar_x + 20, bottom + 30)], empty.filled()))?;
        let style = tick_style().pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new("empty bin", (bar_x + 28, bottom + 22), style))?;
        Ok(())
    })?;
    Ok((image, layout))
}

/// Every `step`-th of `labels` so they keep `pad` pixels apart at `spacing` pixels per edge.
fn label_step(labels: &[String], spacing: f64, pad: f64) -> usize {
    // Tick labels are 14 px: about 8 px per character.
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64 * 8.0;
    if spacing <= 0.0 {
        return 1;
    }
    ((widest + pad) / spacing).ceil().max(1.0) as usize
}

/// The elites of an archive as the cells of `render --archive`, and the board that places them on
/// the descriptor grid of a `width` × `height` frame. Each cell's robot is labelled with its fitness.
#[derive(Debug, Clone)]
pub struct ArchiveGrid {
    /// Each shown bin's elite, in the board's cell order.
    pub cells: Vec<RunCell>,
    pub board: BoardSpec,
}

/// The grid of the MAP-Elites run in `dir`: refuses a run of another algorithm, a missing
/// `archive.jsonl` and an empty archive, each naming the file and the fix.
pub fn archive_grid(run: &RunDirectory, width: u32, height: u32) -> Result<ArchiveGrid, RunPictureError> {
    ArchiveView::of(run)?.grid(width, height)
}

impl ArchiveView {
    /// The view's shown elites as the cells of a board of `width` × `height` on its descriptor grid;
    /// refuses an empty view and an elite without a valid scenario.
    pub fn grid(&self, width: u32, height: u32) -> Result<ArchiveGrid, RunPictureError> {
        let view = self;
        if view.cells.is_empty() {
            return Err(RunPictureError::Invalid {
                path: view.path.clone(),
                message:
                    "has no elites (every individual of the run was invalid): there is nothing to draw; check the \
                          run's log.jsonl (`invalid`) and its fitness metric"
                        .into(),
            });
        }
        let mut cells = Vec::with_capacity(view.cells.len());
        for cell in &view.cells {
            let elite = view.elite(cell);
            let line = view.elites.iter().position(|e| std::ptr::eq(e, elite)).unwrap_or(0) + 1;
            if elite.scenario.is_null() {
                return Err(RunPictureError::Invalid {
                    path: view.path.clone(),
                    message: format!("line {line}: the elite has no scenario (its genome maps to none)"),
                });
            }
            let mut scenario =
                Scenario::from_json(&elite.scenario.to_string()).map_err(|e| RunPictureError::Invalid {
                    path: view.path.clone(),
                    message: format!("line {line}: the elite's scenario is invalid: {e}"),
                })?;
            let label = format!("fitness {}", sig(elite.fitness, 4));
            if let Some(robot) = scenario.robots.first_mut() {
                robot.label = Some(label.clone());
            }
            let bin = elite.bin.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ");
            cells.push(RunCell { name: format!("bin ({bin}) {label}"), heading: None, scenario });
        }
        let x_axis = Some(BoardAxis { title: view.x.title(), edges: view.x.edge_labels() });
        let y_axis = view.y.as_ref().map(|y| BoardAxis { title: y.title(), edges: y.edge_labels() });
        let board = BoardSpec {
            width,
            height,
            cols: view.cols() as u32,
            rows: view.rows() as u32,
            title: Some(format!(
                "{}: {} elites of {} bins{}",
                view.name,
                view.cells.len(),
                view.cols() * view.rows(),
                view.collapsed_note()
            )),
            x_axis,
            y_axis,
            bins: view.cells.iter().map(|c| (c.col as u32, c.row as u32)).collect(),
        };
        Ok(ArchiveGrid { cells, board })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(metric: &str, bins: usize) -> Descriptor {
        Descriptor { metric: metric.into(), min: 0.0, max: 1.0, bins }
    }

    fn elite(bin: &[usize], fitness: f64) -> Elite {
        Elite { bin: bin.to_vec(), descriptors: vec![0.0; bin.len()], fitness, genome: vec![], scenario: Value::Null }
    }

    use serde_json::Value;

    /// One coloured bin per elite (its colour on the ramp), every other bin empty.
    #[test]
    fn the_heatmap_colours_one_bin_per_elite() {
        let elites = vec![elite(&[0, 0], 1.0), elite(&[2, 1], 3.0), elite(&[3, 2], 2.0)];
        let d = [descriptor("a", 4), descriptor("b", 3)];
        let view = ArchiveView::new("t", Goal::Max, &d, elites, "archive.jsonl".into()).unwrap();
        let (image, layout) = heatmap(&view).unwrap();
        assert_eq!(image.dimensions(), (layout.width, layout.height));
        let filled: std::collections::HashMap<(u32, u32), f64> =
            view.cells.iter().map(|c| ((c.col as u32, c.row as u32), view.elite(c).fitness)).collect();
        for row in 0..3 {
            for col in 0..4 {
                let (x, y) = layout.centre(col, row);
                let want = filled.get(&(col, row)).map_or(EMPTY_RGB, |f| view.color(*f));
                assert_eq!(image.get_pixel(x, y).0, want, "bin ({col}, {row})");
            }
        }
        // The best is the bright end, the worst the dark end.
        assert_eq!(view.color(3.0), {
            let c = ramp_color(1.0);
            [c.0, c.1, c.2]
        });
        assert_eq!(view.color(1.0), {
            let c = ramp_color(0.0);
            [c.0, c.1, c.2]
        });
    }

    /// One descriptor: one row; three: the best over the third per (first, second) bin; minimised
    /// fitness: the lowest is the best.
    #[test]
    fn one_and_three_descriptors_and_a_minimised_fitness() {
        let one = ArchiveView::new("t", Goal::Max, &[descriptor("a", 5)], vec![elite(&[4], 1.0)], "p".into()).unwrap();
        assert_eq!((one.cols(), one.rows()), (5, 1));
        heatmap(&one).unwrap();
        let d = [descriptor("a", 2), descriptor("b", 2), descriptor("c", 3)];
        let elites = vec![elite(&[0, 1, 0], 1.0), elite(&[0, 1, 2], 0.5), elite(&[1, 0, 1], 2.0)];
        let three = ArchiveView::new("t", Goal::Min, &d, elites, "p".into()).unwrap();
        assert_eq!(three.cells.len(), 2);
        assert_eq!(three.elite(&three.cells[0]).fitness, 0.5);
        assert_eq!(three.fitness_range(), Some((2.0, 0.5)));
        heatmap(&three).unwrap();
        // A bin outside the grid is refused, naming the line.
        let bad = ArchiveView::new("t", Goal::Max, &d, vec![elite(&[0, 2, 0], 1.0)], "p".into()).unwrap_err();
        assert!(bad.to_string().contains("line 1"), "{bad}");
    }
}
