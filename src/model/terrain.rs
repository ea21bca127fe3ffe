//! Terrain profiles (spec §10): flat, uneven (SplitMix64), the `legacy-1.0` uneven terrain (Java LCG),
//! and the locomotion courses `hilly`, `steppy`, `slope`, `stairs`, `gaps` and `hurdles`
//! ([`features`]); any of them but `none` may have a ceiling (a cave of constant height).
//!
//! Every terrain spans x ∈ [0, 2000] m: a 100 m ramp up to each end (x < 10 and x > 1990, so nothing
//! walks off the world) and the ground between. The courses are flat at y = 0 from x = 10 m to their
//! `start` (the run-up: robots without a `position` stand from x = 11 m on), then their feature repeats
//! up to x = 1990 m.

use serde::{Deserialize, Serialize};

use crate::rng::SplitMix64;

use crate::geom::{Polygon, Vec2};

pub mod features;

/// Where the ground begins (the foot of the left ramp), m.
pub(crate) const GROUND_START: f64 = 10.0;
/// Where the ground ends (the foot of the right ramp), m.
pub(crate) const GROUND_END: f64 = 1990.0;
/// How far the end ramps rise above the ground at their foot, m.
pub(crate) const RAMP_RISE: f64 = 100.0;
/// Where a course's feature begins by default, m: robots without a `position` stand from x = 11 m, so
/// the 12 m biped and worm of the fixtures end at 23 m and get a 7 m flat run-up.
pub(crate) const DEFAULT_START: f64 = 30.0;

/// Up or down (slopes, stairs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Up,
    Down,
}

impl Direction {
    /// +1 up, −1 down.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Up => 1.0,
            Direction::Down => -1.0,
        }
    }
}

/// Terrain as written in scenario JSON. `ceiling` (every type but `none`): a roof that height in m
/// above the ground (above its hills, slopes and steps; gaps and hurdles do not move it), a cave.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(from = "TerrainWire")]
pub enum TerrainSpec {
    /// 1980 m of flat ground between two 100 m ramps.
    Flat {
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// Gentle random hills: heights uniform in [0, height), one point every `spacing` m.
    Uneven {
        height: f64,
        spacing: f64,
        seed: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// Smooth random hills one after another (see [`features::hills`]).
    Hilly {
        height: f64,
        width: f64,
        seed: u64,
        start: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// Flat steps of random levels (see [`features::steppy_steps`]).
    Steppy {
        height: f64,
        width: f64,
        seed: u64,
        start: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// An incline (see [`features`]).
    Slope {
        direction: Direction,
        degrees: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        length: Option<f64>,
        start: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// A staircase (see [`features`]).
    Stairs {
        direction: Direction,
        step_height: f64,
        step_width: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        steps: Option<u32>,
        start: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// Flat ground with holes (see [`features`]).
    Gaps {
        width: f64,
        spacing: f64,
        depth: f64,
        start: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// Flat ground with bars across it (see [`features`]).
    Hurdles {
        height: f64,
        spacing: f64,
        thickness: f64,
        start: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        ceiling: Option<f64>,
    },
    /// No terrain at all (free fall, or gravity off).
    None,
}

impl Default for TerrainSpec {
    fn default() -> Self {
        TerrainSpec::Flat { ceiling: None }
    }
}

/// What [`TerrainSpec`] is read from: serde's `deny_unknown_fields` does not reach the unit variants of
/// an internally tagged enum (`{"type": "none", "x": 1}` would pass), so every variant is a struct here;
/// externally tagged for serde (see [`crate::tagged`]), internally tagged in the schema as in the JSON.
/// The doc comments are the schema's (`vsr2d schema`).
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[schemars(tag = "type")]
enum TerrainWire {
    /// 1980 m of flat ground at y = 0 between two 100 m ramps.
    Flat {
        /// A roof this many m above the ground (a cave); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// Gentle random hills: one point every `spacing` m from x = 10 m, its height uniform in [0, height)
    /// (SplitMix64 of `seed`), straight lines between them.
    Uneven {
        /// Highest point, m (default 5).
        #[serde(default = "default_uneven_height")]
        height: f64,
        /// Distance between profile points, m (default 40).
        #[serde(default = "default_spacing")]
        spacing: f64,
        /// Seed of the heights (default 1).
        #[serde(default = "default_seed")]
        seed: u64,
        /// A roof this many m above the ground, following it (a cave); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// Smooth random hills one after another from `start`: hill k is one period of a raised cosine,
    /// h_k·(1 − cos 2π(x − a_k)/w_k)/2, with w_k uniform in [0.5, 1.5)·width and h_k uniform in
    /// [0.5, 1)·height (two SplitMix64 draws of `seed` per hill, width first); sampled 32 times per mean
    /// width.
    Hilly {
        /// The highest hill, m (default 1).
        #[serde(default = "features::default_hill_height")]
        height: f64,
        /// Mean width of a hill, m (default 15).
        #[serde(default = "features::default_hill_width")]
        width: f64,
        /// Seed of the hills (default 1).
        #[serde(default = "default_seed")]
        seed: u64,
        /// x where the hills begin, m; flat ground at y = 0 before (default 30).
        #[serde(default = "default_start")]
        start: f64,
        /// A roof this many m above the ground, following the hills (a cave); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// Flat steps of random levels from `start`: step k spans [start + k·width, start + (k+1)·width)
    /// at a height uniform in [0, height) (SplitMix64 of `seed`), so neighbours differ by less than
    /// `height`, up or down.
    Steppy {
        /// The highest step, m (default 0.75).
        #[serde(default = "features::default_step_level")]
        height: f64,
        /// Width of every step, m (default 6).
        #[serde(default = "features::default_steppy_width")]
        width: f64,
        /// Seed of the levels (default 1).
        #[serde(default = "default_seed")]
        seed: u64,
        /// x where the steps begin, m; flat ground at y = 0 before (default 30).
        #[serde(default = "default_start")]
        start: f64,
        /// A roof this many m above the ground, following the steps (a cave); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// An incline from `start`: y = ±(x − start)·tan(degrees) over `length`, flat after.
    Slope {
        /// `up` (default) or `down`.
        #[serde(default)]
        direction: Direction,
        /// The incline, in degrees (default 10).
        #[serde(default = "features::default_degrees")]
        degrees: f64,
        /// Horizontal length of the incline, m (default: up to x = 1990 m); the rise may not exceed
        /// 1000 m.
        #[serde(default)]
        length: Option<f64>,
        /// x where the incline begins, m; flat ground at y = 0 before (default 30).
        #[serde(default = "default_start")]
        start: f64,
        /// A roof this many m above the ground, following the incline (a cave); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// A staircase from `start`: a riser of `step_height` at start + k·step_width, k = 0, 1, …, up or
    /// down; flat after the last step.
    Stairs {
        /// `up` (default) or `down`.
        #[serde(default)]
        direction: Direction,
        /// Height of every riser, m (default 0.5).
        #[serde(default = "features::default_step_height")]
        step_height: f64,
        /// Depth of every tread, m (default 6).
        #[serde(default = "features::default_step_width")]
        step_width: f64,
        /// Number of steps (default: as many as fit before x = 1990 m); the rise may not exceed 1000 m.
        #[serde(default)]
        steps: Option<u32>,
        /// x of the first riser, m; flat ground at y = 0 before (default 30).
        #[serde(default = "default_start")]
        start: f64,
        /// A roof this many m above the ground, following the stairs (a cave); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// Flat ground at y = 0 with holes from `start`: each `width` wide and `depth` deep, `spacing` m of
    /// ground between two.
    Gaps {
        /// Width of every hole, m (default 4).
        #[serde(default = "features::default_gap_width")]
        width: f64,
        /// Ground between two holes, m (default 15).
        #[serde(default = "features::default_feature_spacing")]
        spacing: f64,
        /// Depth of the holes, m (default 20: whatever falls in stays there).
        #[serde(default = "features::default_gap_depth")]
        depth: f64,
        /// x where the first hole begins, m (default 30).
        #[serde(default = "default_start")]
        start: f64,
        /// A roof this many m above the ground (y = ceiling; the holes do not move it); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// Flat ground at y = 0 with bars across it from `start`: each `height` high and `thickness` wide,
    /// `spacing` m of ground between two.
    Hurdles {
        /// Height of every bar, m (default 1).
        #[serde(default = "features::default_hurdle_height")]
        height: f64,
        /// Ground between two bars, m (default 15).
        #[serde(default = "features::default_feature_spacing")]
        spacing: f64,
        /// Width of every bar, m (default 0.3).
        #[serde(default = "features::default_hurdle_thickness")]
        thickness: f64,
        /// x where the first bar begins, m (default 30).
        #[serde(default = "default_start")]
        start: f64,
        /// A roof this many m above the ground (y = ceiling; the bars do not move it, and must stay
        /// below it); none by default.
        #[serde(default)]
        ceiling: Option<f64>,
    },
    /// No terrain at all (free fall, or gravity off).
    None {},
}

impl<'de> Deserialize<'de> for TerrainSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::tagged::deserialize::<D, TerrainWire>(d, "type", None).map(TerrainSpec::from)
    }
}

impl From<TerrainWire> for TerrainSpec {
    fn from(wire: TerrainWire) -> Self {
        match wire {
            TerrainWire::Flat { ceiling } => TerrainSpec::Flat { ceiling },
            TerrainWire::Uneven { height, spacing, seed, ceiling } => {
                TerrainSpec::Uneven { height, spacing, seed, ceiling }
            }
            TerrainWire::Hilly { height, width, seed, start, ceiling } => {
                TerrainSpec::Hilly { height, width, seed, start, ceiling }
            }
            TerrainWire::Steppy { height, width, seed, start, ceiling } => {
                TerrainSpec::Steppy { height, width, seed, start, ceiling }
            }
            TerrainWire::Slope { direction, degrees, length, start, ceiling } => {
                TerrainSpec::Slope { direction, degrees, length, start, ceiling }
            }
            TerrainWire::Stairs { direction, step_height, step_width, steps, start, ceiling } => {
                TerrainSpec::Stairs { direction, step_height, step_width, steps, start, ceiling }
            }
            TerrainWire::Gaps { width, spacing, depth, start, ceiling } => {
                TerrainSpec::Gaps { width, spacing, depth, start, ceiling }
            }
            TerrainWire::Hurdles { height, spacing, thickness, start, ceiling } => {
                TerrainSpec::Hurdles { height, spacing, thickness, start, ceiling }
            }
            TerrainWire::None {} => TerrainSpec::None,
        }
    }
}

fn default_uneven_height() -> f64 {
    5.0
}
fn default_spacing() -> f64 {
    40.0
}
fn default_seed() -> u64 {
    1
}
fn default_start() -> f64 {
    DEFAULT_START
}

/// Why a terrain cannot be built: the field of `world.terrain` at fault, its value and what it must be.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TerrainError {
    #[error("terrain `{field}` = {} is invalid: it must be {requirement}", crate::geom::compact(*.value))]
    Invalid { field: &'static str, value: f64, requirement: String },
}

impl TerrainError {
    /// The field of `world.terrain` at fault.
    pub fn field(&self) -> &'static str {
        match self {
            TerrainError::Invalid { field, .. } => field,
        }
    }

    /// What is wrong and how to fix it, without the field's name.
    pub fn reason(&self) -> String {
        match self {
            TerrainError::Invalid { value, requirement, .. } => {
                format!("{} is invalid: it must be {requirement}", crate::geom::compact(*value))
            }
        }
    }
}

/// The highest hills accepted (m): the terrain is 2 km long between 100 m ramps; higher profiles only
/// strain the engine's f32 geometry. Also the most a slope or stairs may rise or fall, and the deepest
/// gap or highest ceiling.
pub(crate) const MAX_HEIGHT: f64 = 1000.0;
/// The smallest point spacing of the uneven terrain (m): at most 198 000 profile points. Also the
/// smallest width, spacing or size of any feature.
pub(crate) const MIN_SPACING: f64 = 0.01;

/// Checks an uneven terrain's `height` (both presets).
pub(crate) fn check_height(height: f64) -> Result<(), TerrainError> {
    check("height", height, 0.0, MAX_HEIGHT, "in [0, 1000] m")
}

/// `Ok` when `value` is finite and in [lo, hi], else the error for `field` saying `requirement`.
fn check(field: &'static str, value: f64, lo: f64, hi: f64, requirement: &str) -> Result<(), TerrainError> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(TerrainError::Invalid { field, value, requirement: requirement.to_string() })
    }
}

impl TerrainSpec {
    /// Checks the numbers of the terrain (for `legacy` the released code's terrain, which has no
    /// spacing); the vertex count is [`TerrainSpec::vertices`].
    pub fn validate(&self, legacy: bool) -> Result<(), TerrainError> {
        if let TerrainSpec::Uneven { height, spacing, .. } = self {
            check_height(*height)?;
            if !legacy {
                check("spacing", *spacing, MIN_SPACING, 1980.0, "in [0.01, 1980] m")?;
            }
        }
        if let Some(start) = self.start() {
            check(
                "start",
                start,
                GROUND_START,
                GROUND_END - 10.0,
                "in [10, 1980] m (the ground's x range, less 10 m)",
            )?;
        }
        features::validate(self)?;
        if let Some(c) = self.ceiling() {
            check("ceiling", c, MIN_SPACING, MAX_HEIGHT, "in [0.01, 1000] m (the cave's height above the ground)")?;
            if let TerrainSpec::Hurdles { height, .. } = self {
                if c <= *height {
                    return Err(TerrainError::Invalid {
                        field: "ceiling",
                        value: c,
                        requirement: format!(
                            "higher than the hurdles ({} m), or they close the cave: raise it or lower `height`",
                            crate::geom::compact(*height)
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Profile points plus the two ramp tops, and the ceiling's points (after [`TerrainSpec::validate`]).
    pub fn vertices(&self, legacy: bool) -> u64 {
        let ground = match self {
            TerrainSpec::Flat { .. } => 4,
            TerrainSpec::Uneven { .. } if legacy => 52,
            TerrainSpec::Uneven { spacing, .. } => uneven_intervals(*spacing) as u64 + 3,
            TerrainSpec::None => 0,
            course => features::vertices(course),
        };
        let ceiling = match self {
            _ if self.ceiling().is_none() => 0,
            TerrainSpec::Gaps { .. } | TerrainSpec::Hurdles { .. } | TerrainSpec::Flat { .. } => 2,
            // The ceiling follows the profile between the ramps.
            _ => ground - 2,
        };
        ground + ceiling
    }

    /// The JSON path that sets how many points the terrain has, and the hint to give fewer.
    pub(crate) fn vertex_knob(&self) -> (&'static str, &'static str) {
        match self {
            TerrainSpec::Hilly { .. } => ("world.terrain.width", "use wider hills"),
            TerrainSpec::Steppy { .. } => ("world.terrain.width", "use wider steps"),
            TerrainSpec::Stairs { .. } => ("world.terrain.step_width", "use wider steps or fewer `steps`"),
            TerrainSpec::Gaps { .. } => ("world.terrain.spacing", "use a larger spacing or wider gaps"),
            TerrainSpec::Hurdles { .. } => ("world.terrain.spacing", "use a larger spacing"),
            _ => ("world.terrain.spacing", "use a larger spacing"),
        }
    }

    /// The ceiling's height above the ground, if any.
    pub fn ceiling(&self) -> Option<f64> {
        match self {
            TerrainSpec::Flat { ceiling }
            | TerrainSpec::Uneven { ceiling, .. }
            | TerrainSpec::Hilly { ceiling, .. }
            | TerrainSpec::Steppy { ceiling, .. }
            | TerrainSpec::Slope { ceiling, .. }
            | TerrainSpec::Stairs { ceiling, .. }
            | TerrainSpec::Gaps { ceiling, .. }
            | TerrainSpec::Hurdles { ceiling, .. } => *ceiling,
            TerrainSpec::None => None,
        }
    }

    /// Where a course's feature begins (x, m); `None` for flat, uneven and none.
    pub fn start(&self) -> Option<f64> {
        match self {
            TerrainSpec::Hilly { start, .. }
            | TerrainSpec::Steppy { start, .. }
            | TerrainSpec::Slope { start, .. }
            | TerrainSpec::Stairs { start, .. }
            | TerrainSpec::Gaps { start, .. }
            | TerrainSpec::Hurdles { start, .. } => Some(*start),
            _ => None,
        }
    }

    /// The seed of a random terrain (uneven, hilly, steppy), to draw a new terrain per episode.
    pub(crate) fn seed_mut(&mut self) -> Option<&mut u64> {
        match self {
            TerrainSpec::Uneven { seed, .. } | TerrainSpec::Hilly { seed, .. } | TerrainSpec::Steppy { seed, .. } => {
                Some(seed)
            }
            _ => None,
        }
    }

    /// The terrain (`None` for `none`), its ceiling included; for `legacy` the released code's uneven
    /// terrain. Validates first.
    pub fn build(&self, legacy: bool) -> Result<Option<Terrain>, TerrainError> {
        self.validate(legacy)?;
        let mut terrain = match self {
            TerrainSpec::None => return Ok(None),
            TerrainSpec::Flat { .. } => Terrain::flat(),
            TerrainSpec::Uneven { height, seed, .. } if legacy => Terrain::legacy_uneven(*height, *seed),
            TerrainSpec::Uneven { height, spacing, seed, .. } => Terrain::uneven(*height, *spacing, *seed)?,
            course => Terrain::from_ground(features::ground(course)),
        };
        if let Some(c) = self.ceiling() {
            let guide = match self {
                // The roof follows the ground's level, not into the holes or over the bars.
                TerrainSpec::Flat { .. } | TerrainSpec::Gaps { .. } | TerrainSpec::Hurdles { .. } => {
                    vec![Vec2::new(GROUND_START, 0.0), Vec2::new(GROUND_END, 0.0)]
                }
                _ => terrain.profile[1..terrain.profile.len() - 1].to_vec(),
            };
            terrain.ceiling = Some(guide.iter().map(|p| Vec2::new(p.x, p.y + c)).collect());
        }
        Ok(Some(terrain))
    }
}

/// Intervals of the uneven terrain: N = round(1980/spacing), at least 1.
fn uneven_intervals(spacing: f64) -> usize {
    ((1980.0 / spacing).round() as usize).max(1)
}

/// A terrain profile (x₀, y₀) … (x_P, y_P), closed downwards, and an optional ceiling.
#[derive(Debug, Clone, PartialEq)]
pub struct Terrain {
    /// The surface from the left ramp's top to the right one's, x non-decreasing (a vertical edge is two
    /// points at the same x).
    pub profile: Vec<Vec2>,
    /// The underside of the roof from x = 10 m to x = 1990 m, closed upwards; `None` without a ceiling.
    pub ceiling: Option<Vec<Vec2>>,
    /// `legacy-1.0`: the unshifted heights of the first two points and the x of the second, which the
    /// released code's placement rule uses.
    pub legacy_placement: Option<([f64; 2], f64)>,
}

/// Java's `java.util.Random` LCG, for the `legacy-1.0` uneven terrain.
#[derive(Debug, Clone)]
pub(crate) struct JavaRandom {
    state: u64,
}

impl JavaRandom {
    const MULT: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;
    pub fn new(seed: u64) -> Self {
        JavaRandom { state: (seed ^ Self::MULT) & Self::MASK }
    }
    fn next(&mut self, bits: u32) -> u64 {
        self.state = (self.state.wrapping_mul(Self::MULT).wrapping_add(11)) & Self::MASK;
        self.state >> (48 - bits)
    }
    pub(crate) fn next_f64(&mut self) -> f64 {
        ((self.next(26) << 27) + self.next(27)) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl Terrain {
    fn new(profile: Vec<Vec2>) -> Terrain {
        Terrain { profile, ceiling: None, legacy_placement: None }
    }

    /// The flat terrain: (0, 100), (10, 0), (1990, 0), (2000, 100).
    pub fn flat() -> Terrain {
        Terrain::new(vec![
            Vec2::new(0.0, 100.0),
            Vec2::new(GROUND_START, 0.0),
            Vec2::new(GROUND_END, 0.0),
            Vec2::new(2000.0, 100.0),
        ])
    }

    /// A course's ground from x = 10 m to x = 1990 m, with a ramp at each end rising 100 m above the
    /// ground at its foot.
    fn from_ground(ground: Vec<Vec2>) -> Terrain {
        let (first, last) = (ground[0], ground[ground.len() - 1]);
        let mut profile = Vec::with_capacity(ground.len() + 2);
        profile.push(Vec2::new(0.0, first.y + RAMP_RISE));
        profile.extend(ground);
        profile.push(Vec2::new(2000.0, last.y + RAMP_RISE));
        Terrain::new(profile)
    }

    /// vsr2d's uneven terrain: N = round(1980/spacing) intervals, heights h·u with SplitMix64(seed).
    pub fn uneven(height: f64, spacing: f64, seed: u64) -> Result<Terrain, TerrainError> {
        TerrainSpec::Uneven { height, spacing, seed, ceiling: None }.validate(false)?;
        let n = uneven_intervals(spacing);
        let delta = 1980.0 / n as f64;
        let mut rng = SplitMix64::new(seed);
        let mut profile = vec![Vec2::new(0.0, 100.0)];
        profile.extend((0..=n).map(|j| Vec2::new(10.0 + j as f64 * delta, height * rng.uniform())));
        profile.push(Vec2::new(2000.0, 100.0));
        Ok(Terrain::new(profile))
    }

    /// The released code's uneven terrain, shifted so its lowest point is 0 (spec §15 row 13), with the
    /// unshifted (y₁, y₂) and x₂ needed by the legacy placement rule.
    pub(crate) fn legacy_uneven(height: f64, seed: u64) -> Terrain {
        let mut rng = JavaRandom::new(seed);
        let ys: Vec<f64> = (0..50).map(|_| height * rng.next_f64()).collect();
        let min = ys.iter().cloned().fold(f64::INFINITY, f64::min);
        let mut profile = vec![Vec2::new(0.0, 100.0 - min)];
        profile.extend(ys.iter().enumerate().map(|(j, &y)| Vec2::new(1.0 + 39.96 * j as f64, y - min)));
        profile.push(Vec2::new(2000.0, 100.0 - min));
        Terrain { legacy_placement: Some(([ys[0], ys[1]], 1.0 + 39.96)), ..Terrain::new(profile) }
    }

    /// The bottom of the closed outline: 10 m below the lowest profile point.
    pub fn bottom(&self) -> f64 {
        self.profile.iter().map(|p| p.y).fold(f64::INFINITY, f64::min) - 10.0
    }

    /// Outline polygon (x₀, y_b), profile…, (x_P, y_b), counter-clockwise.
    pub fn outline(&self) -> Polygon {
        let yb = self.bottom();
        let first = self.profile[0];
        let last = *self.profile.last().unwrap();
        let mut ccw = Vec::with_capacity(self.profile.len() + 2);
        ccw.push(Vec2::new(first.x, yb));
        ccw.push(Vec2::new(last.x, yb));
        ccw.extend(self.profile.iter().rev().copied());
        ccw
    }

    /// One convex quadrilateral per segment, down to the bottom (the colliders). A vertical edge (two
    /// points at the same x) needs none: the quadrilaterals on either side give it its wall.
    pub fn segments(&self) -> Vec<[Vec2; 4]> {
        let yb = self.bottom();
        self.profile
            .windows(2)
            .filter(|w| w[1].x > w[0].x)
            .map(|w| [Vec2::new(w[0].x, yb), Vec2::new(w[1].x, yb), w[1], w[0]])
            .collect()
    }

    /// The top of the roof: 10 m above the highest ceiling point.
    fn ceiling_top(ceiling: &[Vec2]) -> f64 {
        ceiling.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max) + 10.0
    }

    /// The roof's outline, counter-clockwise: its underside left to right, then its top.
    pub(crate) fn ceiling_outline(&self) -> Option<Polygon> {
        let ceiling = self.ceiling.as_ref()?;
        let top = Self::ceiling_top(ceiling);
        let mut ccw = ceiling.clone();
        ccw.push(Vec2::new(ceiling[ceiling.len() - 1].x, top));
        ccw.push(Vec2::new(ceiling[0].x, top));
        Some(ccw)
    }

    /// One convex quadrilateral per ceiling segment, up to the roof's top (the ceiling's colliders).
    pub(crate) fn ceiling_segments(&self) -> Vec<[Vec2; 4]> {
        let Some(ceiling) = &self.ceiling else { return Vec::new() };
        let top = Self::ceiling_top(ceiling);
        ceiling
            .windows(2)
            .filter(|w| w[1].x > w[0].x)
            .map(|w| [w[0], w[1], Vec2::new(w[1].x, top), Vec2::new(w[0].x, top)])
            .collect()
    }

    /// Highest terrain point over [x0, x1]: profile vertices inside plus interpolated ends.
    pub fn max_height(&self, x0: f64, x1: f64) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for p in &self.profile {
            if p.x >= x0 && p.x <= x1 {
                best = best.max(p.y);
            }
        }
        for x in [x0, x1] {
            if let Some(y) = self.height_at(x) {
                best = best.max(y);
            }
        }
        best
    }

    /// Lowest point of the ceiling's underside over [x0, x1], if there is a ceiling above that range.
    pub(crate) fn ceiling_min(&self, x0: f64, x1: f64) -> Option<f64> {
        let ceiling = self.ceiling.as_ref()?;
        let inside = ceiling.iter().filter(|p| p.x >= x0 && p.x <= x1).map(|p| p.y);
        let ends = [x0, x1].into_iter().filter_map(|x| surface(ceiling, x, f64::min));
        inside.chain(ends).reduce(f64::min)
    }

    /// The surface height at x, if x is within the profile: what the world's colliders present to a
    /// body above x. On a vertical edge at x (a riser, a gap's rim, a hurdle's side) it is the edge's top.
    pub fn height_at(&self, x: f64) -> Option<f64> {
        surface(&self.profile, x, f64::max)
    }

    /// The height of the ceiling's underside at x, if there is a ceiling above x; on a vertical edge its
    /// bottom.
    pub fn ceiling_at(&self, x: f64) -> Option<f64> {
        surface(self.ceiling.as_ref()?, x, f64::min)
    }
}

/// The height of polyline `line` at x: the first segment over x, interpolated; where a vertical edge
/// starts at x, `pick` (max for ground, min for a roof) of that value and the edge's points.
fn surface(line: &[Vec2], x: f64, pick: fn(f64, f64) -> f64) -> Option<f64> {
    let i = line.windows(2).position(|w| w[0].x <= x && x <= w[1].x)?;
    let (a, b) = (line[i], line[i + 1]);
    let span = b.x - a.x;
    let y = if span <= 0.0 { pick(a.y, b.y) } else { a.y + (b.y - a.y) * (x - a.x) / span };
    // Points at the same x after the segment's end form a vertical edge at x (never in a profile whose
    // x only increases, so those keep their interpolated value bit for bit).
    let edge = if x == b.x { line[i + 2..].iter().take_while(|p| p.x == x).map(|p| p.y).collect() } else { vec![] };
    Some(edge.into_iter().fold(y, pick))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_random_test_vector() {
        let mut r = JavaRandom::new(1);
        assert_eq!(r.next_f64(), 0.7308781907032909);
        assert_eq!(r.next_f64(), 0.41008081149220166);
        assert_eq!(r.next_f64(), 0.20771484130971707);
    }

    #[test]
    fn uneven_default_layout() {
        let t = Terrain::uneven(5.0, 40.0, 1).unwrap();
        assert_eq!(t.profile.len(), 51 + 2);
        assert!((t.profile[2].x - 49.6).abs() < 1e-9);
        assert!(t.profile[1..52].iter().all(|p| (0.0..5.0).contains(&p.y)));
        assert_eq!(Terrain::uneven(0.0, 40.0, 1).unwrap().max_height(11.0, 50.0), 0.0);
        assert!(Terrain::uneven(5.0, 0.0, 1).is_err());
        assert!(Terrain::uneven(5.0, 1e-9, 1).is_err());
        assert!(Terrain::uneven(1e308, 40.0, 1).is_err());
        let uneven = |height| TerrainSpec::Uneven { height, spacing: 40.0, seed: 1, ceiling: None };
        assert!(uneven(1e308).validate(true).is_err());
        assert_eq!(uneven(5.0).vertices(false), 53);
    }

    #[test]
    fn outline_is_counter_clockwise() {
        let area =
            |poly: &Polygon| (0..poly.len()).map(|i| poly[i].cross(poly[(i + 1) % poly.len()])).sum::<f64>() / 2.0;
        assert!(area(&Terrain::flat().outline()) > 0.0);
        let cave = TerrainSpec::Flat { ceiling: Some(8.0) }.build(false).unwrap().unwrap();
        // 1980 m long, 10 m thick.
        assert_eq!(area(&cave.ceiling_outline().unwrap()), 1980.0 * 10.0);
    }
}
