//! `index.html` of the cells report: the context `templates/cells.html` renders, every number already
//! formatted for the reader.

use serde::Serialize;

use super::data::{CellsReportData, DEMOS_CSV, FD_CSV, FOLD_CSV, RESULTS_JSON, TIMING_CSV};
use crate::checks::{Check, Summary};
use crate::figure::Chart;
use vsr2d::format::{dt_text, short, sig, sig_or_dash};
use vsr2d::model::cell::{CellPreset, Normals, RestArea, Ring};

const TEMPLATE: &str = include_str!("../../../../templates/cells.html");

/// A filmstrip or video of a demonstration.
#[derive(Debug, Clone, Serialize)]
pub struct Media {
    pub demo: String,
    pub title: String,
    pub file: Option<String>,
    pub video: bool,
    pub note: String,
}

impl Media {
    pub fn strip(demo: &str, title: &str, file: String, times: &[f64]) -> Media {
        let times: Vec<String> = times.iter().map(|t| format!("{} s", short((t * 100.0).round() / 100.0))).collect();
        Media {
            demo: demo.into(),
            title: title.into(),
            file: Some(file),
            video: false,
            note: format!("frames at t = {}", times.join(", ")),
        }
    }

    pub fn video(demo: &str, title: &str, file: Option<String>, note: String) -> Media {
        Media { demo: demo.into(), title: title.into(), file, video: true, note }
    }
}

#[derive(Serialize)]
struct Row {
    cells: Vec<String>,
    class: String,
}

fn row(cells: Vec<String>) -> Row {
    Row { cells, class: String::new() }
}

#[derive(Serialize)]
struct ChartRef {
    file: String,
    title: String,
    caption: String,
}

fn charts_of(charts: &[Chart], files: &[&str]) -> Vec<ChartRef> {
    charts
        .iter()
        .filter(|c| files.contains(&c.file_name.as_str()))
        .map(|c| ChartRef { file: c.file_name.clone(), title: c.title.clone(), caption: c.caption.clone() })
        .collect()
}

fn name<T: Serialize>(v: T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// Every parameter with unit, value and source tag (spec §7).
fn parameter_rows(preset: CellPreset) -> Vec<Row> {
    let p = preset.params();
    let paper = preset == CellPreset::ScsPaper;
    let pick = |a: &str, b: &str| if paper { a.to_string() } else { b.to_string() };
    let _ = (Normals::Geometric, RestArea::Circle, Ring::Closed);
    vec![
        row(vec!["bodies per cell N".into(), "–".into(), p.bodies.to_string(), pick("paper", "code")]),
        row(vec!["radius R".into(), "m".into(), short(p.radius), pick("code comment", "code")]),
        row(vec![
            "pressure constant C (preset; the sweeps set their own)".into(),
            "N per body".into(),
            short(p.pressure),
            pick("code comment; paper max 450", "code"),
        ]),
        row(vec!["membrane damping c_d".into(), "N·s/m".into(), short(p.damping), pick("code comment", "code")]),
        row(vec![
            "density, friction, restitution".into(),
            "kg/m², –, –".into(),
            format!("{}, {}, {}", short(p.density), short(p.friction), short(p.restitution)),
            "code".into(),
        ]),
        row(vec!["body radius r_b = πR/N".into(), "m".into(), sig(p.body_radius(), 3), "code".into()]),
        row(vec!["body spacing s".into(), "m".into(), sig(p.spacing(), 6), "derived".into()]),
        row(vec!["rest area".into(), "–".into(), name(p.rest_area), "code".into()]),
        row(vec!["normals".into(), "–".into(), name(p.normals), pick("ours", "code")]),
        row(vec!["ring topology".into(), "–".into(), name(p.ring), pick("ours", "code")]),
        row(vec!["time step dt".into(), "s".into(), dt_text(preset.dt()), pick("paper", "code")]),
        row(vec!["gravity (force–deflection)".into(), "m/s²".into(), "(0, 0)".into(), "code".into()]),
        row(vec!["drag γ".into(), "N·s/m".into(), short(p.drag), "ours".into()]),
        row(vec!["connector radius r_int".into(), "m".into(), "2.0".into(), "code".into()]),
        row(vec!["connector strength A".into(), "N·m²".into(), "500".into(), "code".into()]),
        row(vec![
            "near cap L = 9R/N".into(),
            "m".into(),
            sig(vsr2d::model::cell::connector::near_cap_rule(p.radius, p.bodies), 3),
            "code".into(),
        ]),
        row(vec!["hidden connector mass".into(), "kg".into(), pick("0", "1"), pick("ours", "code")]),
        row(vec!["muscle frequency, ζ".into(), "Hz, –".into(), "50, 1".into(), "code (demo cell)".into()]),
        row(vec!["muscle min length, steps".into(), "–".into(), "0.2, 30".into(), "code".into()]),
        row(vec![
            "solver substeps".into(),
            "–".into(),
            vsr2d::sim::CELL_SOLVER_ITERATIONS.to_string(),
            "ours (probe, §8; paper/code: Box2D 200/100 iterations)".into(),
        ]),
    ]
}

#[derive(Serialize)]
struct Verdict {
    status: String,
    text: String,
}

/// The acceptance rows that measure this machine's speed rather than the physics (`cells.md` §16's
/// cost, scaling and real-time rows): reported as figures, never as a failed check.
pub fn is_timing_check(id: &str) -> bool {
    matches!(id, "cost_per_cell" | "linear_in_cells" | "real_time" | "membrane_resolution" | "cost_ordering")
}

/// Renders the page.
pub fn render_page(data: &CellsReportData, charts: &[Chart], media: &[Media]) -> Result<String, minijinja::Error> {
    // The banner's verdict is the physics rows'; the timing rows are this machine's figures, reported
    // beside it, so a correct run on a loaded machine does not turn orange.
    use crate::checks::Verdict as V;
    let (timing_rows, physics_rows): (Vec<Check>, Vec<Check>) =
        data.checks.iter().cloned().partition(|c| is_timing_check(&c.id));
    let summary = Summary::of(&physics_rows);
    let flagged: Vec<String> = physics_rows.iter().filter(|c| c.verdict == V::Flag).map(|c| c.name.clone()).collect();
    let outside: Vec<String> = timing_rows.iter().filter(|c| c.verdict == V::Flag).map(|c| c.name.clone()).collect();
    let measured = timing_rows.iter().filter(|c| c.verdict != V::NoData).count();
    let mut text = summary.line("Physics checks (spec §16)");
    if !flagged.is_empty() {
        text.push_str(&format!("; physics check failed: {}", flagged.join(", ")));
    }
    text.push_str(&format!(
        ". Timing on this machine (machine-dependent figures, not pass/fail): {} of {measured} within target",
        measured - outside.len()
    ));
    if !outside.is_empty() {
        text.push_str(&format!("; outside target on this machine: {}", outside.join(", ")));
    }
    let verdict = Verdict { status: summary.status().into(), text };
    let run = &data.run;
    let preset = match run.preset.as_str() {
        "scs-code" => CellPreset::ScsCode,
        _ => CellPreset::ScsPaper,
    };
    let run_rows = vec![
        row(vec!["vsr2d version".into(), run.version.clone()]),
        row(vec!["build profile".into(), run.profile.clone()]),
        row(vec!["machine".into(), format!("{} ({} hardware threads, {})", run.cpu, run.cores, run.os)]),
        row(vec!["mode".into(), if run.quick { "--quick".into() } else { "full".into() }]),
        row(vec!["sections run".into(), run.sections.clone()]),
        row(vec!["preset".into(), run.preset.clone()]),
        row(vec![
            "time of the simulations and benchmark (before charts and videos)".into(),
            format!("{} s", sig(run.seconds, 3)),
        ]),
    ];

    let fd = data.fd.as_ref().map(|fd| {
        let d = 2.0 * fd.params.radius;
        let runs: Vec<Row> = fd
            .runs
            .iter()
            .map(|r| match &r.result {
                Some(res) => {
                    let (lo, hi) = super::fd::model_ratio_range(res);
                    let top = res.loading().last();
                    row(vec![
                        short(r.pressure),
                        top.map_or("–".into(), |l| sig(l.bar_force, 4)),
                        top.and_then(|l| l.model_force).map_or("–".into(), |m| sig(m, 4)),
                        format!("{} … {}", sig_or_dash(lo, 3), sig_or_dash(hi, 3)),
                        format!("{} %", sig(100.0 * res.max_perimeter_error, 3)),
                        res.steps.to_string(),
                    ])
                }
                None => row(vec![
                    short(r.pressure),
                    "failed".into(),
                    "–".into(),
                    "–".into(),
                    "–".into(),
                    r.error.clone().unwrap_or_default(),
                ]),
            })
            .collect();
        let tangents: Vec<Row> = fd
            .tangents
            .iter()
            .map(|t| {
                let mut cells = vec![short(t.pressure)];
                for (_, m, model) in &t.points {
                    cells.push(sig_or_dash(*m, 3));
                    cells.push(sig_or_dash(*model, 3));
                    cells.push(match (m, model) {
                        (Some(m), Some(x)) if *x > 0.0 => sig(m / x, 3),
                        _ => "–".into(),
                    });
                }
                row(cells)
            })
            .collect();
        let convergence: Vec<Row> = fd
            .convergence
            .iter()
            .map(|c| {
                let ratio = |n: usize| {
                    fd.ratios
                        .iter()
                        .find(|r| r.substeps == n)
                        .map_or("–".into(), |r| format!("{} … {}", sig_or_dash(r.min, 3), sig_or_dash(r.max, 3)))
                };
                Row {
                    cells: vec![
                        c.substeps.to_string(),
                        c.doubled.to_string(),
                        format!("{} %", sig(100.0 * c.max_perimeter_error, 3)),
                        format!("{} %", sig(100.0 * c.max_perimeter_error_doubled, 3)),
                        format!("{} %", sig(100.0 * c.max_fd_change, 3)),
                        ratio(c.substeps),
                        ratio(c.doubled),
                        if c.passes { "yes".into() } else { "no".into() },
                    ],
                    class: if c.passes { String::new() } else { "flagged".into() },
                }
            })
            .collect();
        let mut normals: Vec<Row> = Vec::new();
        let main = fd.runs.iter().find(|r| r.pressure == fd.probe_pressure);
        for r in main.into_iter().chain(fd.normals_runs.iter()) {
            let cells = match &r.result {
                Some(res) => {
                    let at = |x: f64| {
                        res.loading().min_by(|a, b| (a.delta_over_d - x).abs().total_cmp(&(b.delta_over_d - x).abs()))
                    };
                    let l = at(0.3);
                    let max_tan = res.loading().map(|l| l.tangential_force.abs()).fold(0.0, f64::max);
                    let max_rot = res.levels.iter().map(|l| l.rotation.abs()).fold(0.0, f64::max);
                    vec![
                        name(r.normals),
                        l.map_or("–".into(), |l| sig(l.bar_force, 4)),
                        l.and_then(|l| l.model_force).map_or("–".into(), |m| sig(m, 4)),
                        sig(max_tan, 3),
                        sig(max_rot.to_degrees(), 3),
                        format!("{} %", sig(100.0 * res.max_perimeter_error, 3)),
                    ]
                }
                None => vec![
                    name(r.normals),
                    "failed".into(),
                    "–".into(),
                    "–".into(),
                    "–".into(),
                    r.error.clone().unwrap_or_default(),
                ],
            };
            normals.push(row(cells));
        }
        let stability: Vec<Row> = fd
            .stability
            .iter()
            .map(|s| {
                row(vec![
                    short(s.pressure),
                    if s.stable { "stable".into() } else { "unstable".into() },
                    s.max_perimeter_error.map_or("–".into(), |e| format!("{} %", sig(100.0 * e, 3))),
                    s.error.clone().unwrap_or_default(),
                ])
            })
            .collect();
        minijinja::context! {
            charts => charts_of(charts, &["fd_linear.png", "fd_loglog.png"]),
            runs => runs,
            tangents => tangents,
            convergence => convergence,
            probe_pressure => short(fd.probe_pressure),
            substeps => fd.substeps,
            force_substeps => fd.force_substeps,
            substeps_note => if fd.substeps == vsr2d::task::force_deflection::CONVERGED_STEPPING.solver_iterations {
                format!(
                    "the report's default, {}: the smallest solver substep count passing §8's criterion with the pressure recomputed 4 times per step (table above); other cell worlds use the project's default ({} for N 100)",
                    vsr2d::task::force_deflection::CONVERGED_STEPPING,
                    vsr2d::sim::Stepping::CELLS
                )
            } else {
                format!("set by --substeps; the report's default is {}", vsr2d::task::force_deflection::CONVERGED_STEPPING)
            },
            levels => fd.levels,
            step => sig(0.5 * d / fd.levels as f64, 3),
            d => short(d),
            settle => short(fd.spec.settle),
            average => short(fd.spec.average),
            ramp => short(fd.spec.ramp),
            pressures => fd.runs.iter().map(|r| short(r.pressure)).collect::<Vec<_>>().join(", "),
            normals => normals,
            stability => stability,
            first_unstable => fd.first_unstable.map_or("none up to C 2000".to_string(), |c| format!("C {}", short(c))),
            csv => FD_CSV,
        }
    });

    let timing = data.timing.as_ref().map(|t| {
        let rows: Vec<Row> = t
            .report
            .rows
            .iter()
            .map(|r| {
                row(vec![
                    match r.series {
                        crate::bench::cells::CellSeries::Cells => "cells".into(),
                        crate::bench::cells::CellSeries::Resolution => "resolution".into(),
                    },
                    r.cells.to_string(),
                    r.bodies_per_cell.to_string(),
                    format!("{} × {}", r.force_substeps, r.substeps),
                    format!("{} ± {}", sig(r.ms_per_step, 3), sig(r.ms_per_step_sd, 2)),
                    sig(r.ms_per_cell_step, 3),
                    r.steps_per_run.to_string(),
                    format!("{} %", sig(100.0 * r.max_perimeter_error, 3)),
                ])
            })
            .collect();
        minijinja::context! {
            charts => charts_of(charts, &["timing_cells.png", "timing_resolution.png"]),
            rows => rows,
            fit => t.report.fit.map(|f| format!("ms per step = {} + {}·cells, R² = {}", sig(f.intercept_ms, 3), sig(f.slope_ms_per_cell, 3), sig(f.r2, 4))),
            repeats => t.repeats,
            warmup => t.warmup,
            substeps => t.stepping.map_or("each point at the stepping a scenario of that cell type gets (column k × n: engine steps per step × solver substeps)".to_string(), |s| s.to_string()),
            unstable => t.report.unstable.clone(),
            increments => t.increments.iter().map(|r| row(vec![
                r.element.name().to_string(),
                r.count.to_string(),
                format!("{} ± {}", sig(r.ms_with, 4), sig(r.ms_with_sd, 2)),
                format!("{} ± {}", sig(r.ms_without, 4), sig(r.ms_without_sd, 2)),
                format!("{} ± {}", sig(r.us_per_element, 3), sig(r.us_per_element_sd, 2)),
            ])).collect::<Vec<_>>(),
            increments_text => format!(
                "A resting grid of {} scs-paper cells timed over {} steps per run ({} rounds after {} warm-up steps; in each round every world runs once, in turn), with and without the element; its cost is the difference of the two runs of a round divided by the count, averaged over the rounds, ± the σ of one round (membrane: the bare grid per cell). Inactive connectors: 40 per cell, switched on, weak (A = 10⁻³ N·m²) and reaching no other cell (r_int 5 cm), against the bare grid; pairs: 40 facing connectors (r_int 1 m) on each of two neighbouring cells, switched on against switched off (passive), the count being the pairs active at the end; actuators: 10 spring muscles per cell at ℓ = 1. Differences of wall times on a shared machine: read the σ.",
                t.increment_cells, t.increment_steps, t.repeats, t.warmup
            ),
            csv => TIMING_CSV,
        }
    });

    let demos = data.demos.as_ref().map(|d| {
        let bounce: Vec<Row> = d
            .bounce
            .iter()
            .map(|b| row(vec![short(b.pressure), sig(b.peak_flattening, 3), format!("{} s", sig(b.peak_t, 3)), format!("{} %", sig(100.0 * b.max_perimeter_error, 3))]))
            .collect();
        let c = &d.connect;
        let ch = &d.chain;
        minijinja::context! {
            charts_bounce => charts_of(charts, &["bounce_flattening.png"]),
            charts_connect => charts_of(charts, &["connect_distance.png"]),
            charts_chain => charts_of(charts, &["chain_angle.png"]),
            bounce => bounce,
            media_bounce => media.iter().filter(|m| m.demo == "bounce").cloned().collect::<Vec<_>>(),
            media_connect => media.iter().filter(|m| m.demo == "connect").cloned().collect::<Vec<_>>(),
            media_chain => media.iter().filter(|m| m.demo == "chain").cloned().collect::<Vec<_>>(),
            connect => format!(
                "Up to {} active pair(s) before the release at t = {}; {} at the end. Centre distance: smallest {} m, {} m at the release, {} m at t = {} s.",
                c.pairs_before_release,
                c.release_t.map_or("–".into(), |t| format!("{} s", short(t))),
                c.pairs_at_end,
                sig(c.min_distance, 4),
                sig_or_dash(c.distance_at_release, 4),
                sig(c.distance_at_end, 4),
                sig(c.t.last().copied().unwrap_or(0.0), 3)
            ),
            chain => format!(
                "{} cells; largest change of the end-to-end angle {}° (from {}° at t = 0 to {}° at the end); muscles commanded from t = {} (design: docs/muscle-chain.md). Idle muscle: the dropped cell's mean A/A₀ is {} without and {} with a spring muscle across it that is never commanded.",
                ch.cells,
                sig(ch.angle_change_deg, 3),
                sig(ch.angle_deg.first().copied().unwrap_or(f64::NAN), 3),
                sig(ch.angle_deg.last().copied().unwrap_or(f64::NAN), 3),
                ch.muscle_t.map_or("–".into(), |t| format!("{} s", short(t))),
                sig(d.idle.mean_without, 5),
                sig(d.idle.mean_with, 5)
            ),
            determinism => format!("{}: {} steps run twice, {}.", d.determinism.scenario, d.determinism.steps, if d.determinism.identical { "bit-identical" } else { "NOT identical" }),
            csv => DEMOS_CSV,
        }
    });

    let folding = data.folding.as_ref().map(|f| {
        let rows: Vec<Row> = f
            .runs
            .iter()
            .map(|r| {
                let m = &r.metrics;
                row(vec![
                    r.letter.clone(),
                    m.cells.to_string(),
                    sig(m.initial_rms / m.diameter, 3),
                    sig(m.final_error, 3),
                    if r.quarter_turn_cells.is_empty() {
                        "none".to_string()
                    } else {
                        r.quarter_turn_cells.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
                    },
                    sig(r.rigid_optimum, 3),
                    sig(m.min_rms / m.diameter, 3),
                    format!("{} s", sig(m.settle_time, 3)),
                    m.intended_pairs.to_string(),
                    format!("{} / {}", m.unintended_pairs, m.unintended_pairs_max),
                    format!("{} %", sig(100.0 * r.max_perimeter_error, 3)),
                ])
            })
            .collect();
        minijinja::context! {
            caption => f.caption,
            pressures => f.runs.first().map_or(String::new(), |r| {
                r.pressures.iter().map(|(t, c)| format!("{t} C {}", sig(*c, 3))).collect::<Vec<_>>().join(", ")
            }),
            rows => rows,
            duration => f.runs.first().map_or(String::new(), |r| sig(r.duration, 3)),
            quick => !f.complete(),
            charts => charts_of(charts, &["fold_error.png"]),
            media => media.iter().filter(|m| m.demo == "fold").cloned().collect::<Vec<_>>(),
            csv => FOLD_CSV,
        }
    });

    let checks: Vec<minijinja::Value> = data
        .checks
        .iter()
        .map(|c| {
            let (verdict, class) = match (is_timing_check(&c.id), c.verdict) {
                (true, V::Pass) => ("timing: within target".to_string(), "timing".to_string()),
                (true, V::Flag) => ("timing: outside target on this machine".to_string(), "timing".to_string()),
                (_, v) => (name(v).replace('_', " "), name(v)),
            };
            minijinja::context! {
                name => c.name.clone(), paper => c.runs.clone(), ours => c.predicted.clone(),
                measured => c.measured.clone(), verdict => verdict, class => class,
                explanation => c.explanation.clone(),
            }
        })
        .collect();

    vsr2d::output::template::render(
        "cells.html",
        TEMPLATE,
        minijinja::context! {
            verdict => verdict,
            run => run,
            run_rows => run_rows,
            parameters => parameter_rows(preset),
            fd => fd,
            timing => timing,
            demos => demos,
            folding => folding,
            checks => checks,
            results_json => RESULTS_JSON,
        },
    )
}
