//! An NSGA-II run in pictures: `front.png` (the objective space: every generation's members from the
//! log, faded by generation, and the final front highlighted and connected) and the row of front
//! members `vsr2d render --front` draws (ordered along the front, each labelled with its objectives).

use std::path::PathBuf;

use image::RgbImage;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{run_file, RunCell, RunPictureError};
use crate::chart::draw::draw_legend;
use crate::chart::look::palette;
use crate::chart::{tick_style, title_style, PlotError, ReportMesh};
use crate::evolve::reader::{FrontMember, RunDirectory, FRONT};
use crate::evolve::{AlgorithmSpec, Goal, Objective};
use crate::format::{sig, tick};
use crate::scenario::Scenario;

/// The scatter's file name in the run directory.
pub(crate) const FRONT_PNG: &str = "front.png";

pub fn goal_name(goal: Goal) -> &'static str {
    match goal {
        Goal::Max => "max",
        Goal::Min => "min",
    }
}

/// "x_velocity (max), control_effort (min)".
pub fn objectives_text(objectives: &[Objective]) -> String {
    objectives.iter().map(|o| format!("{} ({})", o.metric, goal_name(o.goal))).collect::<Vec<_>>().join(", ")
}

/// One member's objective values, "x_velocity 0.3740 · control_effort 0.5000".
fn values_text(objectives: &[Objective], values: &[f64]) -> String {
    objectives.iter().zip(values).map(|(o, v)| format!("{} {}", o.metric, sig(*v, 4))).collect::<Vec<_>>().join(" · ")
}

/// The objectives and final front of an NSGA-II run, with every generation's members.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontView {
    pub name: String,
    pub objectives: Vec<Objective>,
    /// (generation, the objectives of its valid members) from `log.jsonl`.
    pub generations: Vec<(u32, Vec<Vec<f64>>)>,
    /// `front.jsonl`, along the front.
    pub front: Vec<FrontMember>,
    /// `front.jsonl`.
    pub path: PathBuf,
}

impl FrontView {
    /// The front of the NSGA-II run `run`.
    pub fn of(run: &RunDirectory) -> Result<FrontView, RunPictureError> {
        if !matches!(run.algorithm(), AlgorithmSpec::Nsga2(_)) {
            return Err(RunPictureError::WrongAlgorithm {
                dir: run.dir.clone(),
                algorithm: run.algorithm().name(),
                needed: "nsga2",
                what: "a Pareto front",
                hint: "for the best individuals of any run use `vsr2d render --top K RUN_DIR`",
            });
        }
        let fix = format!(
            "an NSGA-II run writes it after every generation; run or resume the experiment (`vsr2d evolve \
             {}/experiment.json -o {}`)",
            run.dir.display(),
            run.dir.display()
        );
        let front = run_file(run, FRONT, &fix, RunDirectory::front)?;
        let m = run.experiment.fitness.objectives.len();
        let generations = run
            .generations
            .iter()
            .map(|g| {
                let members = g.objectives.iter().flatten().flatten();
                let valid = members.filter(|o| o.len() == m && o.iter().all(|v| v.is_finite())).cloned().collect();
                (g.gen, valid)
            })
            .collect();
        Ok(FrontView {
            name: run.experiment.name.clone(),
            objectives: run.experiment.fitness.objectives.clone(),
            generations,
            front,
            path: run.dir.join(FRONT),
        })
    }

    /// The members of the front with `m` finite objectives.
    fn valid_front(&self) -> impl Iterator<Item = &FrontMember> {
        let m = self.objectives.len();
        self.front.iter().filter(move |f| f.objectives.len() == m && f.objectives.iter().all(|v| v.is_finite()))
    }
}

/// An axis range around `values`, padded 6 %; a constant (within rounding) gets ±10 % of its size
/// (at least ±0.05) and is reported, so a degenerate objective still gives a readable axis.
pub fn axis_range(values: impl Iterator<Item = f64>) -> ((f64, f64), Option<f64>) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    if !(lo.is_finite() && hi.is_finite()) {
        return ((0.0, 1.0), None);
    }
    let scale = lo.abs().max(hi.abs()).max(1e-12);
    if hi - lo <= 1e-9 * scale.max(1.0) {
        let mid = 0.5 * (lo + hi);
        let pad = (0.1 * mid.abs()).max(0.05);
        return ((mid - pad, mid + pad), Some(mid));
    }
    let pad = 0.06 * (hi - lo);
    ((lo - pad, hi + pad), None)
}

/// `front.png`: the first two objectives of every generation's members (faded: early light, late
/// dark) and the final front (red, connected along the front); each axis is an objective and its goal.
pub fn scatter(view: &FrontView) -> Result<RgbImage, PlotError> {
    let pairs = |v: &[f64]| (v.first().copied().unwrap_or(0.0), v.get(1).copied().unwrap_or(0.0));
    let everyone: Vec<(f64, f64)> = view
        .generations
        .iter()
        .flat_map(|(_, members)| members.iter().map(|o| pairs(o)))
        .chain(view.valid_front().map(|f| pairs(&f.objectives)))
        .collect();
    let ((x0, x1), x_constant) = axis_range(everyone.iter().map(|p| p.0));
    let ((y0, y1), y_constant) = axis_range(everyone.iter().map(|p| p.1));
    let axis = |k: usize| {
        view.objectives.get(k).map_or_else(
            || format!("objective {}", k + 1),
            |o| format!("{} (goal: {}{})", o.metric, goal_name(o.goal), if o.goal == Goal::Max { " ↑" } else { " ↓" }),
        )
    };
    let mut notes = Vec::new();
    for (k, constant) in [(0, x_constant), (1, y_constant)] {
        if let (Some(v), Some(o)) = (constant, view.objectives.get(k)) {
            notes.push(format!("{} is {} for every member: the front is degenerate", o.metric, sig(v, 4)));
        }
    }
    if view.objectives.len() > 2 {
        notes.push(format!("objectives 3 to {} not shown", view.objectives.len()));
    }
    let last_gen = view.generations.iter().map(|(g, _)| *g).max().unwrap_or(0);
    let shade = |g: u32| if last_gen == 0 { 1.0 } else { f64::from(g) / f64::from(last_gen) };
    // One hue, faded: generation 0 pale, the last one full.
    let faded = |g: u32| palette(0).mix(0.15 + 0.7 * shade(g));
    let title = format!("{}: objective space over generations (NSGA-II)", view.name);
    crate::chart::render("front", (900, 640), |root| {
        let (top, body) = root.split_vertically(40);
        top.titled(&title, title_style())?;
        let mut chart = ChartBuilder::on(&body)
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc(axis(0))
            .y_desc(axis(1))
            .x_labels(8)
            .y_labels(8)
            .x_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
            .y_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
            .draw()?;
        // Early generations first, so the later ones lie on top.
        for (g, members) in &view.generations {
            let color = faded(*g);
            chart.draw_series(members.iter().map(|o| Circle::new(pairs(o), 4, color.filled())))?;
        }
        // The legend's two ends of the fading.
        let anchor = everyone.first().copied().unwrap_or((x0, y0));
        for (g, text) in [(0, "members of generation 0"), (last_gen, "members of the last generation")] {
            let c = faded(g);
            if g == last_gen && last_gen == 0 {
                continue;
            }
            chart
                .draw_series(std::iter::once(EmptyElement::at(anchor)))?
                .label(if g == last_gen { format!("members of generation {last_gen}") } else { text.to_string() })
                .legend(move |(x, y)| Circle::new((x + 12, y), 4, c.filled()));
        }
        let front: Vec<(f64, f64)> = view.valid_front().map(|f| pairs(&f.objectives)).collect();
        let red = palette(3);
        if !front.is_empty() {
            chart.draw_series(LineSeries::new(front.iter().copied(), red.stroke_width(2)))?;
            chart.draw_series(front.iter().map(|p| {
                EmptyElement::at(*p)
                    + Circle::new((0, 0), 7, WHITE.filled())
                    + Circle::new((0, 0), 7, red.stroke_width(3))
            }))?;
            chart
                .draw_series(std::iter::once(EmptyElement::at(front[0])))?
                .label(format!("final front ({} members, front.jsonl)", front.len()))
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (24, 0)], red.stroke_width(2))
                        + Circle::new((12, 0), 6, WHITE.filled())
                        + Circle::new((12, 0), 6, red.stroke_width(3))
                });
        }
        draw_legend!(chart, SeriesLabelPosition::UpperLeft);
        // Notes (a degenerate objective, hidden objectives) under the legend's corner, lower left.
        let plot = chart.plotting_area();
        let (px0, py1) = plot.get_pixel_range();
        for (i, note) in notes.iter().enumerate() {
            let style = tick_style().pos(Pos::new(HPos::Left, VPos::Bottom));
            let y = py1.end - 8 - 18 * (notes.len() - 1 - i) as i32;
            root.draw(&Text::new(note.clone(), (px0.start + 8, y), style))?;
        }
        if front.is_empty() {
            let style = tick_style().pos(Pos::new(HPos::Center, VPos::Center));
            let at = ((px0.start + px0.end) / 2, (py1.start + py1.end) / 2);
            root.draw(&Text::new("no valid member on the front", at, style))?;
        }
        Ok(())
    })
}

/// The members of the front of the NSGA-II run `run` as cells, along the front, each headed with its
/// place and its objective values; refuses a run of another algorithm, a missing `front.jsonl` and
/// an empty front, naming the file and the fix.
pub fn front_row(run: &RunDirectory) -> Result<Vec<RunCell>, RunPictureError> {
    let view = FrontView::of(run)?;
    if view.front.is_empty() {
        return Err(RunPictureError::Invalid {
            path: view.path.clone(),
            message: "is empty (no valid member on the front: every individual of the run was invalid?); check the \
                      run's log.jsonl (`invalid`) and its objectives"
                .into(),
        });
    }
    let n = view.front.len();
    view.front
        .iter()
        .enumerate()
        .map(|(i, member)| {
            let line = i + 1;
            if member.scenario.is_null() {
                return Err(RunPictureError::Invalid {
                    path: view.path.clone(),
                    message: format!("line {line}: the member has no scenario (its genome maps to none)"),
                });
            }
            let scenario = Scenario::from_json(&member.scenario.to_string()).map_err(|e| RunPictureError::Invalid {
                path: view.path.clone(),
                message: format!("line {line}: the member's scenario is invalid: {e}"),
            })?;
            let values: Vec<String> = view
                .objectives
                .iter()
                .zip(&member.objectives)
                .map(|(o, v)| format!("{} {} ({})", o.metric, sig(*v, 4), goal_name(o.goal)))
                .collect();
            let heading = format!("#{line} of {n} along the front\n{}", values.join("\n"));
            // The heading says it all: the robot's own label (the experiment's name) is left out.
            let mut scenario = scenario;
            if let Some(robot) = scenario.robots.first_mut() {
                robot.label = Some(String::new());
            }
            Ok(RunCell {
                name: format!("front #{line}: {}", values_text(&view.objectives, &member.objectives)),
                heading: Some(heading),
                scenario,
            })
        })
        .collect()
}

/// What the best individual of an NSGA-II run (`best.json`, the front member best in the first
/// objective) scores: its objective values, or "-" when the front is unreadable.
pub fn best_label(run: &RunDirectory) -> String {
    let Ok(front) = run.front() else { return "best of the front: -".into() };
    let objectives = &run.experiment.fitness.objectives;
    let goal = objectives.first().map_or(Goal::Max, |o| o.goal);
    let first = |m: &FrontMember| m.objectives.first().copied().unwrap_or(f64::NAN);
    let best = front.iter().filter(|m| first(m).is_finite()).fold(None::<&FrontMember>, |b, m| match b {
        Some(b) if (goal == Goal::Max && first(b) >= first(m)) || (goal == Goal::Min && first(b) <= first(m)) => {
            Some(b)
        }
        _ => Some(m),
    });
    match best {
        Some(m) => {
            let rest = values_text(objectives.get(1..).unwrap_or(&[]), m.objectives.get(1..).unwrap_or(&[]));
            let metric = objectives.first().map_or("objective 1", |o| o.metric.as_str());
            format!("the front's best in {metric} ({}), {rest}", sig(first(m), 4))
        }
        None => "best of the front: -".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objective(metric: &str, goal: Goal) -> Objective {
        Objective { metric: metric.into(), goal }
    }

    #[test]
    fn a_degenerate_front_and_an_empty_one_are_drawn() {
        let member =
            |x: f64| FrontMember { objectives: vec![x, 0.5], genome: vec![], scenario: serde_json::Value::Null };
        let view = FrontView {
            name: "t".into(),
            objectives: vec![objective("x_velocity", Goal::Max), objective("control_effort", Goal::Min)],
            generations: vec![(0, vec![vec![0.1, 0.5], vec![0.3, 0.5]]), (1, vec![vec![0.4, 0.5]])],
            front: vec![member(0.3), member(0.4)],
            path: "front.jsonl".into(),
        };
        assert_eq!(scatter(&view).unwrap().dimensions(), (900, 640));
        assert_eq!(axis_range([0.5, 0.5].into_iter()), ((0.45, 0.55), Some(0.5)));
        let empty = FrontView { generations: vec![], front: vec![], ..view };
        scatter(&empty).unwrap();
    }
}
