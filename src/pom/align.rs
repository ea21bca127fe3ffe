//! Motion-capture alignment (spec §9): the paper's four preprocessing steps move recorded 2-D marker
//! coordinates from the lab frame into a robot-centred frame, where they can be laid over POM's
//! prediction. POM has no contact dynamics, so the body's translation and turning must go first.
//!
//! 1. subtract the markers' mean (motion of the centre of mass);
//! 2. polar coordinates about it, minus the common rotation θ̄(t);
//! 3. back to Cartesian;
//! 4. rescale the amplitude by the variance before and after (`rescale: "variance"`).
//!
//! θ̄(t) is the circular mean of wrap(θ_i(t) − α_i), α_i being marker i's polar angle in the model's
//! rest layout (or at the first frame without one), so steps 1–3 are exactly invariant under any rigid
//! motion of the data and land in the model's frame.

use std::f64::consts::PI;

use super::error::PomError;
use super::model::{Model, Role};
use super::run::Solution;
use super::spec::Rescale;

/// A 2-D point or displacement, m.
pub(crate) type P2 = [f64; 2];

/// Length unit of a mocap CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    #[default]
    Mm,
    M,
}

impl Units {
    fn factor(self) -> f64 {
        match self {
            Units::Mm => 1e-3,
            Units::M => 1.0,
        }
    }
}

/// Marker tracks: per sample, one lab-frame point per marker, m.
#[derive(Debug, Clone, PartialEq)]
pub struct Tracks {
    /// Marker names from the header (`m1` for columns `m1_x,m1_y`).
    pub names: Vec<String>,
    pub times: Vec<f64>,
    pub frames: Vec<Vec<P2>>,
}

/// Reads `t,m1_x,m1_y,m2_x,m2_y,…`: times must increase, every cell must be a finite number.
pub fn parse_tracks_csv(text: &str, units: Units) -> Result<Tracks, PomError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(PomError::invalid("mocap CSV", "the file is empty: write a header `t,m1_x,m1_y,…` and rows"));
    };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    if cols.first() != Some(&"t") {
        return Err(PomError::invalid("mocap CSV line 1", "the first column must be `t` (time in s)"));
    }
    let pairs = &cols[1..];
    if pairs.len() < 4 || pairs.len() % 2 != 0 {
        return Err(PomError::invalid(
            "mocap CSV line 1",
            format!("after `t` give pairs `<marker>_x,<marker>_y` for at least 2 markers, got {} columns", pairs.len()),
        ));
    }
    let mut names = Vec::new();
    for (k, pair) in pairs.chunks(2).enumerate() {
        let (Some(a), Some(b)) = (pair[0].strip_suffix("_x"), pair[1].strip_suffix("_y")) else {
            return Err(PomError::invalid(
                "mocap CSV line 1",
                format!(
                    "columns {} and {} ({:?}, {:?}) must be `<marker>_x,<marker>_y`",
                    2 * k + 2,
                    2 * k + 3,
                    pair[0],
                    pair[1]
                ),
            ));
        };
        if a != b {
            return Err(PomError::invalid(
                "mocap CSV line 1",
                format!("columns {:?} and {:?} name different markers: write `{a}_x,{a}_y`", pair[0], pair[1]),
            ));
        }
        names.push(a.to_string());
    }
    let f = units.factor();
    let (mut times, mut frames) = (Vec::new(), Vec::<Vec<P2>>::new());
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let path = format!("mocap CSV line {}", n + 1);
        if cells.len() != cols.len() {
            return Err(PomError::invalid(
                path,
                format!("{} cells, the header has {}: give one value per column", cells.len(), cols.len()),
            ));
        }
        let number = |c: usize| -> Result<f64, PomError> {
            cells[c].parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                PomError::invalid(path.clone(), format!("column {} ({:?}) must be a finite number", c + 1, cols[c]))
            })
        };
        let t = number(0)?;
        if times.last().is_some_and(|&last| t <= last) {
            return Err(PomError::invalid(path, format!("time {t} must be greater than the previous row's")));
        }
        let frame =
            (0..names.len()).map(|k| Ok([number(1 + 2 * k)? * f, number(2 + 2 * k)? * f])).collect::<Result<_, _>>()?;
        times.push(t);
        frames.push(frame);
    }
    if frames.len() < 2 {
        return Err(PomError::invalid("mocap CSV", "give at least two data rows after the header"));
    }
    Ok(Tracks { names, times, frames })
}

/// The outcome of the four steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Aligned {
    /// Per sample, per marker: the robot-frame position about the markers' mean, m.
    pub frames: Vec<Vec<P2>>,
    /// The common rotation removed at each sample, rad.
    pub theta: Vec<f64>,
    /// Total variance after step 1 and after step 3, m² (sum over markers and axes of the variance over time).
    pub v1: f64,
    pub v3: f64,
    /// The amplitude factor of step 4 (1 without rescaling).
    pub scale: f64,
}

fn wrap(a: f64) -> f64 {
    (a + PI).rem_euclid(2.0 * PI) - PI
}

fn mean2(points: &[P2]) -> P2 {
    let n = points.len().max(1) as f64;
    [points.iter().map(|p| p[0]).sum::<f64>() / n, points.iter().map(|p| p[1]).sum::<f64>() / n]
}

/// Sum over markers and axes of the variance over time.
pub(crate) fn total_variance(frames: &[Vec<P2>]) -> f64 {
    let Some(first) = frames.first() else { return 0.0 };
    let n = frames.len() as f64;
    (0..first.len())
        .map(|i| {
            let m = mean2(&frames.iter().map(|f| f[i]).collect::<Vec<_>>());
            frames.iter().map(|f| (f[i][0] - m[0]).powi(2) + (f[i][1] - m[1]).powi(2)).sum::<f64>() / n
        })
        .sum()
}

/// Applies steps 1–4 to `frames` (per sample, per marker, lab frame). `layout` is the markers' rest
/// layout about their mean in the model's frame; without it the first frame is the reference.
pub fn align(frames: &[Vec<P2>], layout: Option<&[P2]>, rescale: Rescale) -> Result<Aligned, PomError> {
    let Some(first) = frames.first() else {
        return Err(PomError::invalid("mocap", "no samples to align"));
    };
    let k = first.len();
    if k < 2 || frames.iter().any(|f| f.len() != k) {
        return Err(PomError::invalid("mocap", "every sample needs the same number (≥ 2) of markers"));
    }
    if layout.is_some_and(|l| l.len() != k) {
        return Err(PomError::invalid(
            "mocap",
            format!(
                "the data has {k} markers but the model has {}: track every marker of the spec",
                layout.map_or(0, <[P2]>::len)
            ),
        ));
    }
    // Step 1.
    let centred: Vec<Vec<P2>> = frames
        .iter()
        .map(|f| {
            let m = mean2(f);
            f.iter().map(|p| [p[0] - m[0], p[1] - m[1]]).collect()
        })
        .collect();
    let alpha: Vec<f64> = match layout {
        Some(l) => l.iter().map(|p| p[1].atan2(p[0])).collect(),
        None => centred[0].iter().map(|p| p[1].atan2(p[0])).collect(),
    };
    // Steps 2 and 3: rotating every point by −θ̄ is the polar subtraction written in Cartesian form.
    let mut theta = Vec::with_capacity(centred.len());
    let rotated: Vec<Vec<P2>> = centred
        .iter()
        .map(|f| {
            let (mut s, mut c) = (0.0, 0.0);
            for (p, a) in f.iter().zip(&alpha) {
                // A marker on the mean has no angle; it cannot vote.
                if p[0].hypot(p[1]) > 1e-12 {
                    let d = wrap(p[1].atan2(p[0]) - a);
                    s += d.sin();
                    c += d.cos();
                }
            }
            let th = if s == 0.0 && c == 0.0 { 0.0 } else { s.atan2(c) };
            theta.push(th);
            let (sn, cs) = (-th).sin_cos();
            f.iter().map(|p| [cs * p[0] - sn * p[1], sn * p[0] + cs * p[1]]).collect()
        })
        .collect();
    let (v1, v3) = (total_variance(&centred), total_variance(&rotated));
    let scale = match rescale {
        Rescale::Variance if v3 > 0.0 => (v1 / v3).sqrt(),
        _ => 1.0,
    };
    let out = if scale == 1.0 {
        rotated
    } else {
        let means: Vec<P2> = (0..k).map(|i| mean2(&rotated.iter().map(|f| f[i]).collect::<Vec<_>>())).collect();
        rotated
            .iter()
            .map(|f| {
                f.iter()
                    .zip(&means)
                    .map(|(p, m)| [m[0] + scale * (p[0] - m[0]), m[1] + scale * (p[1] - m[1])])
                    .collect()
            })
            .collect()
    };
    Ok(Aligned { frames: out, theta, v1, v3, scale })
}

/// The model's markers (effectors with role `marker`, in spec order) and their rest layout about their
/// mean, top view (x, y), m.
pub(crate) fn marker_layout(model: &Model) -> (Vec<usize>, Vec<P2>) {
    let idx: Vec<usize> =
        model.effectors().iter().enumerate().filter(|(_, e)| e.role == Role::Marker).map(|(j, _)| j).collect();
    let rest: Vec<P2> = idx.iter().map(|&j| model.effector_rest(j)).map(|p| [p[0], p[1]]).collect();
    let m = mean2(&rest);
    (idx, rest.iter().map(|p| [p[0] - m[0], p[1] - m[1]]).collect())
}

/// POM's template: per sample of `solution`, each marker's rest layout position plus its predicted
/// (x, y) displacement.
pub fn template(model: &Model, solution: &Solution) -> Vec<Vec<P2>> {
    let (idx, layout) = marker_layout(model);
    solution
        .x
        .iter()
        .map(|x| idx.iter().zip(&layout).map(|(&j, l)| [l[0] + x[3 * j], l[1] + x[3 * j + 1]]).collect())
        .collect()
}

/// Aligned data next to POM's aligned template.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Data times inside the prediction's time span (the ones compared).
    pub times: Vec<f64>,
    /// Per compared sample and marker: displacement about the time mean, m.
    pub data: Vec<Vec<P2>>,
    pub model: Vec<Vec<P2>>,
    /// RMS over samples, markers and axes of data − model, m.
    pub rms: f64,
    /// RMS of the model's displacements, m (the scale the error is read against).
    pub model_rms: f64,
    /// Data samples outside the prediction's time span, not compared.
    pub skipped: usize,
}

/// Linear interpolation of per-sample marker frames at time t (clamped to the ends).
fn sample_at(times: &[f64], frames: &[Vec<P2>], t: f64) -> Option<Vec<P2>> {
    let i = times.partition_point(|&s| s <= t);
    if i == 0 {
        return frames.first().cloned();
    }
    if i >= times.len() {
        return frames.last().cloned();
    }
    let (t0, t1) = (times[i - 1], times[i]);
    let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
    Some(
        frames[i - 1]
            .iter()
            .zip(&frames[i])
            .map(|(a, b)| [a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])])
            .collect(),
    )
}

/// Displacements about the time mean, per marker.
fn about_mean(frames: &[Vec<P2>]) -> Vec<Vec<P2>> {
    let Some(first) = frames.first() else { return Vec::new() };
    let means: Vec<P2> = (0..first.len()).map(|i| mean2(&frames.iter().map(|f| f[i]).collect::<Vec<_>>())).collect();
    frames.iter().map(|f| f.iter().zip(&means).map(|(p, m)| [p[0] - m[0], p[1] - m[1]]).collect()).collect()
}

/// Compares aligned data (at `data_times`) with the aligned template (at `model_times`, same clock).
/// Both are taken about their time means over the compared samples: where the markers sit on the nodes
/// is an offset POM does not predict, their motion is what it does.
pub fn compare(data_times: &[f64], data: &[Vec<P2>], model_times: &[f64], model: &[Vec<P2>]) -> Comparison {
    let (lo, hi) = (model_times.first().copied().unwrap_or(0.0), model_times.last().copied().unwrap_or(0.0));
    let eps = 1e-9;
    let mut times = Vec::new();
    let (mut d, mut m) = (Vec::new(), Vec::new());
    for (&t, f) in data_times.iter().zip(data) {
        if t >= lo - eps && t <= hi + eps {
            if let Some(p) = sample_at(model_times, model, t) {
                times.push(t);
                d.push(f.clone());
                m.push(p);
            }
        }
    }
    let skipped = data_times.len() - times.len();
    let (d, m) = (about_mean(&d), about_mean(&m));
    let (mut e2, mut m2, mut n) = (0.0, 0.0, 0usize);
    for (fd, fm) in d.iter().zip(&m) {
        for (a, b) in fd.iter().zip(fm) {
            for k in 0..2 {
                e2 += (a[k] - b[k]).powi(2);
                m2 += b[k].powi(2);
                n += 1;
            }
        }
    }
    let n = n.max(1) as f64;
    Comparison { times, data: d, model: m, rms: (e2 / n).sqrt(), model_rms: (m2 / n).sqrt(), skipped }
}

/// Aligns tracks against a model's prediction: the data through steps 1–4 with the model's rest layout,
/// POM's template through steps 1–3 (it has no dynamics to undo), then [`compare`].
pub fn against_model(
    model: &Model,
    solution: &Solution,
    tracks: &Tracks,
    rescale: Rescale,
) -> Result<(Aligned, Comparison), PomError> {
    let (idx, layout) = marker_layout(model);
    if idx.len() != tracks.names.len() {
        let ids: Vec<&str> = idx.iter().map(|&j| model.effectors()[j].id.as_str()).collect();
        return Err(PomError::invalid(
            "mocap CSV line 1",
            format!(
                "{} markers in the data ({}) but {} in the spec ({}): give one `_x,_y` pair per marker, in the spec's order",
                tracks.names.len(),
                tracks.names.join(", "),
                idx.len(),
                ids.join(", ")
            ),
        ));
    }
    let data = align(&tracks.frames, Some(&layout), rescale)?;
    let tmpl = align(&template(model, solution), Some(&layout), Rescale::None)?;
    let cmp = compare(&tracks.times, &data.frames, &solution.times, &tmpl.frames);
    Ok((data, cmp))
}

/// POM's markers as a lab would record them with the body standing still: rest position (top view)
/// plus predicted (x, y) displacement, named by effector id. Written as `markers_mm.csv`, it is both an
/// example of the file `vsr2d pom align` reads and a template that aligns with zero error.
pub fn predicted_tracks(model: &Model, solution: &Solution) -> Tracks {
    let (idx, _) = marker_layout(model);
    let frames = solution
        .x
        .iter()
        .map(|x| {
            idx.iter()
                .map(|&j| {
                    let r = model.effector_rest(j);
                    [r[0] + x[3 * j], r[1] + x[3 * j + 1]]
                })
                .collect()
        })
        .collect();
    Tracks {
        names: idx.iter().map(|&j| model.effectors()[j].id.clone()).collect(),
        times: solution.times.clone(),
        frames,
    }
}

/// Tracks as CSV `t,<marker>_x,<marker>_y,…` in `units`.
pub fn tracks_csv(tracks: &Tracks, units: Units) -> String {
    aligned_csv_in(&tracks.names, &tracks.times, &tracks.frames, 1.0 / units.factor())
}

/// The aligned tracks as CSV (`t,<marker>_x,<marker>_y,…`, m, robot frame).
pub fn aligned_csv(names: &[String], times: &[f64], frames: &[Vec<P2>]) -> String {
    aligned_csv_in(names, times, frames, 1.0)
}

fn aligned_csv_in(names: &[String], times: &[f64], frames: &[Vec<P2>], scale: f64) -> String {
    let mut out = String::from("t");
    for n in names {
        out.push_str(&format!(",{n}_x,{n}_y"));
    }
    out.push('\n');
    for (t, f) in times.iter().zip(frames) {
        out.push_str(&format!("{t}"));
        for p in f {
            out.push_str(&format!(",{},{}", p[0] * scale, p[1] * scale));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pom::{acceptance, example, run};

    /// Spec §13 check 10 on the quadruped's predicted markers: a rigid motion of the data changes nothing
    /// (rescale none), 0.5 % noise stays within 2 %, and variance rescaling restores V₁.
    #[test]
    fn alignment_is_invariant_under_rigid_motion_and_rescales_to_v1() {
        let out = run(&example::quadruped().unwrap(), None).unwrap();
        let (_, layout) = marker_layout(&out.model);
        let tmpl = template(&out.model, &out.solution);
        let data = acceptance::rigidly_moved(&tmpl, &out.solution.times);
        // The lab data really did move: the markers' mean travels and the body turns.
        assert!((data[0][0][0] - data[data.len() - 1][0][0]).abs() > 0.05);
        let a = align(&tmpl, Some(&layout), Rescale::None).unwrap();
        let b = align(&data, Some(&layout), Rescale::None).unwrap();
        for (x, y) in a.frames.iter().zip(&b.frames) {
            for (p, q) in x.iter().zip(y) {
                assert!((p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9, "{p:?} vs {q:?}");
            }
        }
        // Without the model's layout the first frame is the reference: the result is then the same up to
        // one constant rotation (the data's orientation at the first frame).
        let a0 = align(&tmpl, None, Rescale::None).unwrap();
        let b0 = align(&data, None, Rescale::None).unwrap();
        let turn = |p: &P2, q: &P2| wrap(q[1].atan2(q[0]) - p[1].atan2(p[0]));
        let first = turn(&a0.frames[0][0], &b0.frames[0][0]);
        for (x, y) in a0.frames.iter().zip(&b0.frames) {
            for (p, q) in x.iter().zip(y) {
                assert!((p[0].hypot(p[1]) - q[0].hypot(q[1])).abs() < 1e-9);
                assert!(wrap(turn(p, q) - first).abs() < 1e-9);
            }
        }
        // Variance rescaling: the output's total variance is V₁ (after step 1).
        let v = align(&data, Some(&layout), Rescale::Variance).unwrap();
        assert!(v.v1 > v.v3, "the turning adds variance that step 2 removes");
        assert!((total_variance(&v.frames) - v.v1).abs() <= 1e-9 * v.v1);
        // The same facts, as the report measures them.
        let rows = acceptance::measure(&out, &example::quadruped().unwrap());
        assert_eq!(rows[9].number, 10);
        assert_eq!(rows[9].pass, Some(true), "{}", rows[9].measured);
    }

    /// A synthetic mocap file generated from the model and moved rigidly aligns onto the model's
    /// prediction with ~0 RMS; read in mm, it is the same data.
    #[test]
    fn synthetic_mocap_from_the_model_aligns_with_zero_rms() {
        let out = run(&example::quadruped().unwrap(), None).unwrap();
        let tmpl = template(&out.model, &out.solution);
        let data = acceptance::rigidly_moved(&tmpl, &out.solution.times);
        let names: Vec<String> = (1..=4).map(|i| format!("m{i}")).collect();
        let mut csv = String::from("t,m1_x,m1_y,m2_x,m2_y,m3_x,m3_y,m4_x,m4_y\n");
        for (t, f) in out.solution.times.iter().zip(&data) {
            csv.push_str(&format!("{t}"));
            for p in f {
                csv.push_str(&format!(",{},{}", p[0] * 1e3, p[1] * 1e3));
            }
            csv.push('\n');
        }
        let tracks = parse_tracks_csv(&csv, Units::Mm).unwrap();
        assert_eq!(tracks.names, names);
        let (aligned, cmp) = against_model(&out.model, &out.solution, &tracks, Rescale::None).unwrap();
        assert_eq!(aligned.scale, 1.0);
        assert_eq!(cmp.skipped, 0);
        assert!(cmp.model_rms > 1e-4, "the markers move by about a millimetre: {}", cmp.model_rms);
        assert!(cmp.rms < 1e-9, "rms {}", cmp.rms);
    }

    #[test]
    fn bad_mocap_files_are_refused_with_the_line_and_the_fix() {
        let err = |text: &str| parse_tracks_csv(text, Units::Mm).unwrap_err().to_string();
        assert!(err("").contains("empty"));
        assert!(err("time,m1_x,m1_y,m2_x,m2_y\n").contains("first column must be `t`"));
        assert!(err("t,m1_x,m1_y,m2_x\n").contains("pairs"));
        assert!(err("t,m1_x,m1_y,m2_x,m3_y\n0,1,2,3,4\n1,1,2,3,4\n").contains("different markers"));
        let e = err("t,m1_x,m1_y,m2_x,m2_y\n0,1,2,3,4\n1,1,x,3,4\n");
        assert!(e.contains("line 3") && e.contains("m1_y"), "{e}");
        assert!(err("t,m1_x,m1_y,m2_x,m2_y\n1,1,2,3,4\n1,1,2,3,4\n").contains("greater"));
        let out = run(&example::quadruped().unwrap(), None).unwrap();
        let two = parse_tracks_csv("t,a_x,a_y,b_x,b_y\n0,0,0,1,1\n1,0,0,1,1\n", Units::M).unwrap();
        let e = against_model(&out.model, &out.solution, &two, Rescale::Variance).unwrap_err().to_string();
        assert!(e.contains("2 markers in the data") && e.contains("m1, m2, m3, m4"), "{e}");
    }
}
