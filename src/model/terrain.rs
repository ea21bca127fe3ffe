//! Terrain profiles (spec §10): flat, uneven (SplitMix64), and the `legacy-1.0` uneven terrain (Java LCG).

use serde::{Deserialize, Serialize};

use crate::rng::SplitMix64;

use crate::geom::{Polygon, Vec2};

/// Terrain as written in scenario JSON.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(from = "TerrainWire")]
#[derive(Default)]
pub enum TerrainSpec {
    /// 2 km of flat ground between two 100 m ramps.
    #[default]
    Flat,
    /// Gentle random hills: heights uniform in [0, height), one point every `spacing` m.
    Uneven {
        #[serde(default = "default_height")]
        height: f64,
        #[serde(default = "default_spacing")]
        spacing: f64,
        #[serde(default = "default_seed")]
        seed: u64,
    },
    /// No terrain at all (free fall, or gravity off).
    None,
}

/// What [`TerrainSpec`] is read from: serde's `deny_unknown_fields` does not reach the unit variants of
/// an internally tagged enum (`{"type": "flat", "x": 1}` would pass), so every variant is a struct here;
/// externally tagged for serde (see [`crate::tagged`]), internally tagged in the schema as in the JSON.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[schemars(tag = "type")]
enum TerrainWire {
    /// 2 km of flat ground between two 100 m ramps.
    Flat {},
    /// Gentle random hills: heights uniform in [0, height), one point every `spacing` m.
    Uneven {
        #[serde(default = "default_height")]
        height: f64,
        #[serde(default = "default_spacing")]
        spacing: f64,
        #[serde(default = "default_seed")]
        seed: u64,
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
            TerrainWire::Flat {} => TerrainSpec::Flat,
            TerrainWire::Uneven { height, spacing, seed } => TerrainSpec::Uneven { height, spacing, seed },
            TerrainWire::None {} => TerrainSpec::None,
        }
    }
}

fn default_height() -> f64 {
    5.0
}
fn default_spacing() -> f64 {
    40.0
}
fn default_seed() -> u64 {
    1
}

/// Why a terrain cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TerrainError {
    #[error("terrain `{field}` = {} is invalid: it must be {requirement}", crate::geom::compact(*.value))]
    Invalid { field: &'static str, value: f64, requirement: &'static str },
}

/// The highest hills accepted (m): the terrain is 2 km long between 100 m ramps; higher profiles only
/// strain the engine's f32 geometry.
pub const MAX_HEIGHT: f64 = 1000.0;
/// The smallest point spacing of the uneven terrain (m): at most 198 000 profile points.
pub const MIN_SPACING: f64 = 0.01;

/// Checks an uneven terrain's `height` (both presets).
pub fn check_height(height: f64) -> Result<(), TerrainError> {
    if height.is_finite() && (0.0..=MAX_HEIGHT).contains(&height) {
        Ok(())
    } else {
        Err(TerrainError::Invalid { field: "height", value: height, requirement: "in [0, 1000] m" })
    }
}

impl TerrainSpec {
    /// Checks the numbers of the terrain (for `legacy` the released code's terrain, which has no
    /// spacing); an uneven terrain's vertex count is [`TerrainSpec::vertices`].
    pub fn validate(&self, legacy: bool) -> Result<(), TerrainError> {
        if let TerrainSpec::Uneven { height, spacing, .. } = self {
            check_height(*height)?;
            let spacing_ok = spacing.is_finite() && (MIN_SPACING..=1980.0).contains(spacing);
            if !legacy && !spacing_ok {
                return Err(TerrainError::Invalid {
                    field: "spacing",
                    value: *spacing,
                    requirement: "in [0.01, 1980] m",
                });
            }
        }
        Ok(())
    }

    /// Profile points plus the two ramp tops (after [`TerrainSpec::validate`]).
    pub fn vertices(&self, legacy: bool) -> u64 {
        match self {
            TerrainSpec::Flat => 4,
            TerrainSpec::Uneven { .. } if legacy => 52,
            TerrainSpec::Uneven { spacing, .. } => ((1980.0 / spacing).round() as u64).max(1) + 3,
            TerrainSpec::None => 0,
        }
    }
}

/// A terrain profile (x₀, y₀) … (x_P, y_P), closed downwards.
#[derive(Debug, Clone, PartialEq)]
pub struct Terrain {
    pub profile: Vec<Vec2>,
}

/// Java's `java.util.Random` LCG, for the `legacy-1.0` uneven terrain.
#[derive(Debug, Clone)]
pub struct JavaRandom {
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
    pub fn next_f64(&mut self) -> f64 {
        ((self.next(26) << 27) + self.next(27)) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl Terrain {
    /// The flat terrain: (0, 100), (10, 0), (1990, 0), (2000, 100).
    pub fn flat() -> Terrain {
        Terrain {
            profile: vec![
                Vec2::new(0.0, 100.0),
                Vec2::new(10.0, 0.0),
                Vec2::new(1990.0, 0.0),
                Vec2::new(2000.0, 100.0),
            ],
        }
    }

    /// vsr2d's uneven terrain: N = round(1980/spacing) intervals, heights h·u with SplitMix64(seed).
    pub fn uneven(height: f64, spacing: f64, seed: u64) -> Result<Terrain, TerrainError> {
        check_height(height)?;
        if !(spacing.is_finite() && (MIN_SPACING..=1980.0).contains(&spacing)) {
            return Err(TerrainError::Invalid { field: "spacing", value: spacing, requirement: "in [0.01, 1980] m" });
        }
        let n = ((1980.0 / spacing).round() as usize).max(1);
        let delta = 1980.0 / n as f64;
        let mut rng = SplitMix64::new(seed);
        let mut profile = vec![Vec2::new(0.0, 100.0)];
        profile.extend((0..=n).map(|j| Vec2::new(10.0 + j as f64 * delta, height * rng.uniform())));
        profile.push(Vec2::new(2000.0, 100.0));
        Ok(Terrain { profile })
    }

    /// The released code's uneven terrain, shifted so its lowest point is 0 (spec §15 row 13).
    /// Also returns the unshifted (y₁, y₂) needed by the legacy placement rule.
    pub fn legacy_uneven(height: f64, seed: u64) -> (Terrain, [f64; 2], f64) {
        let mut rng = JavaRandom::new(seed);
        let ys: Vec<f64> = (0..50).map(|_| height * rng.next_f64()).collect();
        let min = ys.iter().cloned().fold(f64::INFINITY, f64::min);
        let mut profile = vec![Vec2::new(0.0, 100.0 - min)];
        profile.extend(ys.iter().enumerate().map(|(j, &y)| Vec2::new(1.0 + 39.96 * j as f64, y - min)));
        profile.push(Vec2::new(2000.0, 100.0 - min));
        (Terrain { profile }, [ys[0], ys[1]], 1.0 + 39.96)
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

    /// One convex quadrilateral per segment, down to the bottom (the colliders).
    pub fn segments(&self) -> Vec<[Vec2; 4]> {
        let yb = self.bottom();
        self.profile.windows(2).map(|w| [Vec2::new(w[0].x, yb), Vec2::new(w[1].x, yb), w[1], w[0]]).collect()
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

    /// Interpolated profile height at x, if x is within the profile.
    pub fn height_at(&self, x: f64) -> Option<f64> {
        self.profile.windows(2).find(|w| w[0].x <= x && x <= w[1].x).map(|w| {
            let span = w[1].x - w[0].x;
            if span <= 0.0 {
                w[0].y.max(w[1].y)
            } else {
                w[0].y + (w[1].y - w[0].y) * (x - w[0].x) / span
            }
        })
    }
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
        assert!(TerrainSpec::Uneven { height: 1e308, spacing: 40.0, seed: 1 }.validate(true).is_err());
        assert_eq!(TerrainSpec::Uneven { height: 5.0, spacing: 40.0, seed: 1 }.vertices(false), 53);
    }

    #[test]
    fn outline_is_counter_clockwise() {
        let poly = Terrain::flat().outline();
        let area: f64 = (0..poly.len()).map(|i| poly[i].cross(poly[(i + 1) % poly.len()])).sum::<f64>() / 2.0;
        assert!(area > 0.0);
    }
}
