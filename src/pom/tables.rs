//! A run as text: the CSV files of spec §11 (`J.csv`, `q.csv`, `x.csv`, `residuals.csv`,
//! `violations.csv`, `support.csv`) and the plain-text J and phase tables the command line prints.
//! Formatting only; writing files is the caller's business.

use std::fmt::Write;

use super::geometry::AXIS_NAMES;
use super::run::PomRun;

/// Shortest text that reads back to the same f64.
fn num(v: f64) -> String {
    format!("{v}")
}

/// `J.csv`: rows `<effector>.<x|y|z>`, columns control ids, entries −1/0/1.
pub fn j_csv(run: &PomRun) -> String {
    let m = &run.model;
    let mut out = String::from("row");
    for c in m.controls() {
        out.push(',');
        out.push_str(&c.id);
    }
    out.push('\n');
    for r in 0..m.rows() {
        out.push_str(&m.row_name(r));
        for i in 0..m.cols() {
            let _ = write!(out, ",{}", m.j(r, i));
        }
        out.push('\n');
    }
    out
}

/// `q.csv`: `t,<control ids>` in m.
pub fn q_csv(run: &PomRun) -> String {
    let mut out = String::from("t");
    for c in run.model.controls() {
        out.push(',');
        out.push_str(&c.id);
    }
    out.push('\n');
    for (t, q) in run.solution.times.iter().zip(&run.solution.q) {
        out.push_str(&num(*t));
        for v in q {
            out.push(',');
            out.push_str(&num(*v));
        }
        out.push('\n');
    }
    out
}

/// `x.csv`: `t,<effector>_x,<effector>_y,<effector>_z,…` in m.
pub fn x_csv(run: &PomRun) -> String {
    let mut out = String::from("t");
    for e in run.model.effectors() {
        for a in AXIS_NAMES {
            let _ = write!(out, ",{}_{a}", e.id);
        }
    }
    out.push('\n');
    for (t, x) in run.solution.times.iter().zip(&run.solution.x) {
        out.push_str(&num(*t));
        for v in x {
            out.push(',');
            out.push_str(&num(*v));
        }
        out.push('\n');
    }
    out
}

/// `residuals.csv`: `t,row,residual_m` for every residual above rounding.
pub fn residuals_csv(run: &PomRun) -> String {
    let mut out = String::from("t,row,residual_m\n");
    for r in &run.solution.residuals {
        let _ = writeln!(out, "{},{},{}", num(r.t), run.model.row_name(r.row), num(r.r));
    }
    out
}

/// `violations.csv`: `t,control,q_m,excess_m` for every sample outside a control's range.
pub fn violations_csv(run: &PomRun) -> String {
    let mut out = String::from("t,control,q_m,excess_m\n");
    for v in &run.solution.violations {
        let _ = writeln!(out, "{},{},{},{}", num(v.t), run.model.controls()[v.control].id, num(v.q), num(v.excess));
    }
    out
}

/// `support.csv` (gait only): `t,feet_on_ground,margin_m`.
pub fn support_csv(run: &PomRun) -> Option<String> {
    let gait = run.gait.as_ref()?;
    let mut out = String::from("t,feet_on_ground,margin_m\n");
    for ((t, c), m) in run.solution.times.iter().zip(&gait.contact).zip(&gait.margin) {
        let _ = writeln!(out, "{},{},{}", num(*t), c.on_ground.len(), num(*m));
    }
    Some(out)
}

/// J as an aligned text table, preceded by each control's actuation dimension, plane and σ.
pub fn j_table(run: &PomRun) -> String {
    let m = &run.model;
    let mut out = String::new();
    for (c, a) in m.controls().iter().zip(m.actuations()) {
        let _ = writeln!(
            out,
            "control {:<10} {} pushed {}: d = {}, plane {}-layer {} ({} voxels), σ = {:+}",
            c.id,
            c.at,
            c.push,
            a.d,
            a.plane.axis_name(),
            a.plane.layer,
            a.plane.voxels.len(),
            a.sigma
        );
    }
    let width = (0..m.rows()).map(|r| m.row_name(r).len()).max().unwrap_or(3).max(3);
    let cols: Vec<usize> = m.controls().iter().map(|c| c.id.len().max(2)).collect();
    let _ = write!(out, "\n{:<width$}", "J");
    for (c, w) in m.controls().iter().zip(&cols) {
        let _ = write!(out, "  {:>w$}", c.id);
    }
    out.push('\n');
    for r in 0..m.rows() {
        let _ = write!(out, "{:<width$}", m.row_name(r));
        for (i, w) in cols.iter().enumerate() {
            let _ = write!(out, "  {:>w$}", m.j(r, i));
        }
        out.push('\n');
    }
    out
}

/// The gait's phases with their worst feet count, margin and lift (empty outside `gait` mode).
pub fn phase_table(run: &PomRun) -> String {
    let Some(gait) = &run.gait else { return String::new() };
    let mut out = String::from("cycle  swing        start_s   end_s  min_feet_down  min_margin_mm  peak_lift_mm\n");
    for p in &gait.phases {
        let swing = p.phase.swing.map_or("(stance)".to_string(), |f| run.model.effectors()[f].id.clone());
        let _ = writeln!(
            out,
            "{:>5}  {:<10} {:>8.3} {:>7.3} {:>14} {:>14.3} {:>13.3}",
            p.phase.cycle + 1,
            swing,
            p.phase.start,
            p.phase.end,
            p.min_feet_on_ground,
            p.min_margin * 1e3,
            p.peak_lift * 1e3
        );
    }
    out
}

/// Residuals, unreachable components, undetermined controls, violations and gait problems in words.
pub fn summary(run: &PomRun) -> String {
    let s = &run.solution;
    let mut out = String::new();
    match s.max_residual() {
        Some(r) => {
            let _ = writeln!(
                out,
                "residuals: RMS {:.3e} m, largest {:.3e} m at t = {} s on {}",
                s.residual_rms,
                r.r,
                r.t,
                run.model.row_name(r.row)
            );
        }
        None if s.targets.is_empty() => {}
        None => out.push_str("residuals: none (every target met)\n"),
    }
    if !s.unreachable.is_empty() {
        let _ = writeln!(out, "unreachable components (no control drives them): {}", s.unreachable.join(", "));
    }
    for (id, n) in &s.undetermined {
        let _ =
            writeln!(out, "undetermined control {id} (no target drives it) at {n} of {} samples: q = 0", s.times.len());
    }
    if !s.violations.is_empty() {
        let worst = s.violations.iter().max_by(|a, b| a.excess.total_cmp(&b.excess)).map(|v| (v.excess, v.t));
        let (excess, t) = worst.unwrap_or_default();
        let _ = writeln!(
            out,
            "range violations: {} (largest {:.3} mm outside at t = {t} s){}",
            s.violations.len(),
            excess * 1e3,
            if run.clipped { ", clipped" } else { "" }
        );
    }
    if let Some(g) = &run.gait {
        let problems = g.problems(&run.model, &s.times);
        if problems.is_empty() {
            out.push_str("gait: tripod-stable at every sample (≥ 3 feet down, positive static margin)\n");
        } else {
            let _ = writeln!(out, "gait problems ({}):", problems.len());
            for p in problems.iter().take(10) {
                let _ = writeln!(out, "  {p}");
            }
        }
    }
    out
}
