//! The locomotion courses: `hilly`, `steppy`, `slope`, `stairs`, `gaps`, `hurdles`. Each is flat at
//! y = 0 from x = 10 m to its `start`, then its feature up to x = 1990 m; `ground` gives that
//! polyline (the ramps are added by [`Terrain`](super::Terrain)). Every feature is laid out from `start`
//! by multiplication (start + k·pitch), never by accumulation, so its edges are where the definition
//! says, to the last bit a test can compute by hand.

use std::f64::consts::PI;

use super::{check, TerrainError, TerrainSpec, GROUND_END, GROUND_START, MAX_HEIGHT, MIN_SPACING};
use crate::geom::{compact, Vec2};
use crate::rng::SplitMix64;

// Defaults, in m, for the fixtures' robots (voxels of side 3 m; the biped and the worm are 12 m long,
// 6 and 3 m high). 2dmrsim's hilly and steppy use 5 m chunks ±0.75 m for its 1 m voxels.

/// The highest hill: a third of a voxel side (the biped walks them at 96 % of its speed on flat
/// ground; at 1.5 m it stalls on the first).
pub(super) fn default_hill_height() -> f64 {
    1.0
}
/// A hill's mean width: five voxel sides, a little longer than the robots.
pub(super) fn default_hill_width() -> f64 {
    15.0
}
/// The highest step of `steppy`: a quarter of a voxel side.
pub(super) fn default_step_level() -> f64 {
    0.75
}
/// The width of `steppy`'s steps: two voxel sides, half a robot.
pub(super) fn default_steppy_width() -> f64 {
    6.0
}
/// The incline of `slope` (2dmrsim's uphill and downhill).
pub(super) fn default_degrees() -> f64 {
    10.0
}
/// A stair's riser: a sixth of a voxel side.
pub(super) fn default_step_height() -> f64 {
    0.5
}
/// A stair's tread: two voxel sides.
pub(super) fn default_step_width() -> f64 {
    6.0
}
/// A hole: wider than a voxel, narrower than the robots' 12 m.
pub(super) fn default_gap_width() -> f64 {
    4.0
}
/// A hole's depth: more than six voxel sides, so a robot that falls in cannot climb out.
pub(super) fn default_gap_depth() -> f64 {
    20.0
}
/// Ground between two holes or two hurdles: more than a robot's length.
pub(super) fn default_feature_spacing() -> f64 {
    15.0
}
/// A hurdle's height: a third of a voxel side.
pub(super) fn default_hurdle_height() -> f64 {
    1.0
}
/// A hurdle's width: a tenth of a voxel side.
pub(super) fn default_hurdle_thickness() -> f64 {
    0.3
}

/// Profile samples per mean hill width: the chords then miss a hill's crest by less than 1 % of its
/// height (at the narrowest hills, half the mean width: (1 − cos(π/16))/2 of it) and turn by at most
/// 0.5 rad of slope from one to the next at the default hills.
pub(crate) const HILL_SAMPLES: f64 = 32.0;

/// One hill of `hilly`: the raised cosine h·(1 − cos 2π(x − a)/w)/2 over [a, a + w).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hill {
    pub a: f64,
    pub w: f64,
    pub h: f64,
}

impl Hill {
    pub fn height_at(&self, x: f64) -> f64 {
        self.h * (1.0 - (2.0 * PI * (x - self.a) / self.w).cos()) / 2.0
    }
}

/// The hills of `hilly` from `start` on, left to right: per hill, w uniform in [0.5, 1.5)·width then h
/// uniform in [0.5, 1)·height, both from SplitMix64(seed).
pub fn hills(height: f64, width: f64, seed: u64, start: f64) -> impl Iterator<Item = Hill> {
    let mut rng = SplitMix64::new(seed);
    let mut a = start;
    std::iter::from_fn(move || {
        let w = width * (0.5 + rng.uniform());
        let h = height * (0.5 + 0.5 * rng.uniform());
        let hill = Hill { a, w, h };
        a += w;
        Some(hill)
    })
}

/// Sample intervals of `hilly` between `start` and 1990 m: the length over width/32, rounded.
fn hill_intervals(width: f64, start: f64) -> usize {
    ((GROUND_END - start) / (width / HILL_SAMPLES)).round().max(1.0) as usize
}

/// The x of feature k (k = 0, 1, …) laid out from `start` every `pitch` m while it ends, `size` m
/// later, before x = 1990 m.
fn layout(start: f64, pitch: f64, size: f64) -> impl Iterator<Item = f64> {
    (0u64..).map(move |k| start + k as f64 * pitch).take_while(move |x| x + size < GROUND_END)
}

/// The steps of `steppy`: (x where step k begins, its level), level uniform in [0, height) from
/// SplitMix64(seed), one draw per step.
pub fn steppy_steps(height: f64, width: f64, seed: u64, start: f64) -> impl Iterator<Item = (f64, f64)> {
    let mut rng = SplitMix64::new(seed);
    layout(start, width, 0.0).map(move |x| (x, height * rng.uniform()))
}

/// The number of stairs: `steps`, or as many risers as stand before x = 1990 m.
fn stair_count(step_width: f64, steps: Option<u32>, start: f64) -> u64 {
    steps.map_or_else(|| layout(start, step_width, 0.0).count() as u64, u64::from)
}

/// A slope's horizontal length: `length`, or up to x = 1990 m.
fn slope_length(length: Option<f64>, start: f64) -> f64 {
    length.unwrap_or(GROUND_END - start)
}

fn invalid(field: &'static str, value: f64, requirement: String) -> TerrainError {
    TerrainError::Invalid { field, value, requirement }
}

/// Checks a course's numbers (`start` and `ceiling` are checked by the caller, first).
pub(super) fn validate(spec: &TerrainSpec) -> Result<(), TerrainError> {
    let room = |start: f64| GROUND_END - start;
    let size = |field, value: f64, start: f64, what: &str| {
        let requirement = format!("in [0.01, {}] m ({what})", compact(room(start)));
        check(field, value, MIN_SPACING, room(start), &requirement)
    };
    let height = |field, value: f64| check(field, value, 0.0, MAX_HEIGHT, "in [0, 1000] m");
    match *spec {
        TerrainSpec::Hilly { height: h, width, start, .. } => {
            height("height", h)?;
            let requirement = format!("in [0.32, {}] m (32 points per width, 0.01 m apart at least)", room(start));
            check("width", width, HILL_SAMPLES * MIN_SPACING, room(start), &requirement)?;
        }
        TerrainSpec::Steppy { height: h, width, start, .. } => {
            height("height", h)?;
            size("width", width, start, "at most the ground from `start` to x = 1990 m")?;
        }
        TerrainSpec::Slope { degrees, length, start, .. } => {
            check("degrees", degrees, 0.0, 80.0, "in [0, 80]°")?;
            if let Some(length) = length {
                size("length", length, start, "at most the ground from `start` to x = 1990 m")?;
            }
            let run = slope_length(length, start);
            let rise = run * degrees.to_radians().tan();
            if rise > MAX_HEIGHT {
                let most = (MAX_HEIGHT / degrees.to_radians().tan()).floor();
                return Err(match length {
                    Some(length) => invalid(
                        "length",
                        length,
                        format!("at most {most} m at {}°: the rise may not exceed 1000 m", compact(degrees)),
                    ),
                    None => invalid(
                        "degrees",
                        degrees,
                        format!(
                            "gentler: {} m to x = 1990 m rise {} m, more than 1000 m; set `length` (at most \
                             {most} m at this angle) or lower `degrees`",
                            compact(run),
                            rise.round()
                        ),
                    ),
                });
            }
        }
        TerrainSpec::Stairs { step_height, step_width, steps, start, .. } => {
            height("step_height", step_height)?;
            size("step_width", step_width, start, "at most the ground from `start` to x = 1990 m")?;
            let fit = layout(start, step_width, 0.0).count() as u64;
            if let Some(n) = steps {
                if n == 0 || u64::from(n) > fit {
                    return Err(invalid(
                        "steps",
                        f64::from(n),
                        format!("between 1 and {fit} (the risers that stand before x = 1990 m)"),
                    ));
                }
            }
            let n = stair_count(step_width, steps, start);
            if n as f64 * step_height > MAX_HEIGHT {
                return Err(invalid(
                    "step_height",
                    step_height,
                    format!(
                        "lower: {n} steps of it rise {} m, more than 1000 m; set `steps` (at most {}) or lower it",
                        (n as f64 * step_height).round(),
                        (MAX_HEIGHT / step_height).floor()
                    ),
                ));
            }
        }
        TerrainSpec::Gaps { width, spacing, depth, start, .. } => {
            if !(width.is_finite() && width >= MIN_SPACING && width < room(start)) {
                return Err(invalid(
                    "width",
                    width,
                    format!(
                        "at least 0.01 m and narrower than the {} m of ground from `start` to x = 1990 m",
                        compact(room(start))
                    ),
                ));
            }
            check("spacing", spacing, MIN_SPACING, 1980.0, "in [0.01, 1980] m")?;
            check("depth", depth, MIN_SPACING, MAX_HEIGHT, "in [0.01, 1000] m")?;
        }
        TerrainSpec::Hurdles { height: h, spacing, thickness, start, .. } => {
            check("height", h, MIN_SPACING, MAX_HEIGHT, "in [0.01, 1000] m")?;
            check("spacing", spacing, MIN_SPACING, 1980.0, "in [0.01, 1980] m")?;
            if !(thickness.is_finite() && thickness >= MIN_SPACING && thickness < room(start)) {
                return Err(invalid(
                    "thickness",
                    thickness,
                    format!("at least 0.01 m and less than the {} m of ground after `start`", compact(room(start))),
                ));
            }
        }
        TerrainSpec::Flat { .. } | TerrainSpec::Uneven { .. } | TerrainSpec::None => {}
    }
    Ok(())
}

/// Points of a course's profile, ramp tops included (after [`validate`]); what [`ground`] gives plus 2.
pub(super) fn vertices(spec: &TerrainSpec) -> u64 {
    let inner = match *spec {
        TerrainSpec::Hilly { width, start, .. } => 1 + hill_intervals(width, start) as u64 + 1,
        TerrainSpec::Steppy { width, start, .. } => 2 + 2 * layout(start, width, 0.0).count() as u64,
        TerrainSpec::Slope { .. } => 4,
        TerrainSpec::Stairs { step_width, steps, start, .. } => 2 + 2 * stair_count(step_width, steps, start),
        TerrainSpec::Gaps { width, spacing, start, .. } => 2 + 4 * layout(start, width + spacing, width).count() as u64,
        TerrainSpec::Hurdles { spacing, thickness, start, .. } => {
            2 + 4 * layout(start, thickness + spacing, thickness).count() as u64
        }
        TerrainSpec::Flat { .. } | TerrainSpec::Uneven { .. } | TerrainSpec::None => 0,
    };
    inner + 2
}

/// A course's ground from x = 10 m to x = 1990 m, x non-decreasing (after [`validate`]).
pub(super) fn ground(spec: &TerrainSpec) -> Vec<Vec2> {
    let p = Vec2::new;
    let mut g = vec![p(GROUND_START, 0.0)];
    match *spec {
        TerrainSpec::Hilly { height, width, seed, start, .. } => {
            let n = hill_intervals(width, start);
            let dx = (GROUND_END - start) / n as f64;
            let mut hills = hills(height, width, seed, start).peekable();
            for j in 0..=n {
                let x = if j == n { GROUND_END } else { start + j as f64 * dx };
                while hills.peek().is_some_and(|hill| x >= hill.a + hill.w) {
                    hills.next();
                }
                g.push(p(x, hills.peek().map_or(0.0, |hill| hill.height_at(x))));
            }
        }
        TerrainSpec::Steppy { height, width, seed, start, .. } => {
            g.push(p(start, 0.0));
            for (x, level) in steppy_steps(height, width, seed, start) {
                g.push(p(x, level));
                g.push(p((x + width).min(GROUND_END), level));
            }
        }
        TerrainSpec::Slope { direction, degrees, length, start, .. } => {
            let run = slope_length(length, start);
            let y = direction.sign() * run * degrees.to_radians().tan();
            g.extend([p(start, 0.0), p(start + run, y), p(GROUND_END, y)]);
        }
        TerrainSpec::Stairs { direction, step_height, step_width, steps, start, .. } => {
            let n = stair_count(step_width, steps, start);
            let rise = direction.sign() * step_height;
            for k in 0..n {
                let x = start + k as f64 * step_width;
                g.push(p(x, k as f64 * rise));
                g.push(p(x, (k + 1) as f64 * rise));
            }
            g.push(p(GROUND_END, n as f64 * rise));
        }
        TerrainSpec::Gaps { width, spacing, depth, start, .. } => {
            for x in layout(start, width + spacing, width) {
                g.extend([p(x, 0.0), p(x, -depth), p(x + width, -depth), p(x + width, 0.0)]);
            }
            g.push(p(GROUND_END, 0.0));
        }
        TerrainSpec::Hurdles { height, spacing, thickness, start, .. } => {
            for x in layout(start, thickness + spacing, thickness) {
                g.extend([p(x, 0.0), p(x, height), p(x + thickness, height), p(x + thickness, 0.0)]);
            }
            g.push(p(GROUND_END, 0.0));
        }
        // Not courses (built by `Terrain` itself): flat ground.
        TerrainSpec::Flat { .. } | TerrainSpec::Uneven { .. } | TerrainSpec::None => g.push(p(GROUND_END, 0.0)),
    }
    g
}
