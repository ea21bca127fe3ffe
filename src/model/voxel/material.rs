//! Voxel materials: the parameters of spec §2, their domains, and the `default` / `legacy-1.0` presets.

use serde::{Deserialize, Serialize};

use crate::model::voxel::scaffolding::Scaffolding;

/// How a control value acts on a voxel (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActuationMode {
    /// Changes the rest lengths of the springs: +1 shrinks the area by ρ_A, −1 enlarges it.
    #[default]
    Area,
    /// Pushes the masses towards (+) or away from (−) the voxel centre for one physics step.
    Force,
}

/// A named set of defaults and behaviours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Preset {
    /// The vsr2d model of the specification.
    #[default]
    #[serde(rename = "default")]
    Default,
    /// Reproduces the released 2D-VSR-Sim 1.0.0 where feasible (spec §15).
    #[serde(rename = "legacy-1.0")]
    Legacy10,
}

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::Legacy10 => "legacy-1.0",
        }
    }
    pub(crate) fn is_legacy(self) -> bool {
        self == Preset::Legacy10
    }
}

impl std::str::FromStr for Preset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "default" => Ok(Preset::Default),
            "legacy-1.0" => Ok(Preset::Legacy10),
            _ => Err(format!("unknown preset {s:?}: use `default` or `legacy-1.0`")),
        }
    }
}

/// Fully resolved parameters of one voxel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Material {
    pub preset: Preset,
    /// l, m.
    pub side: f64,
    /// ρ, the side of a corner mass over l.
    pub mass_side_ratio: f64,
    /// M, kg, for the whole voxel.
    pub mass: f64,
    /// d_l, 1/s.
    pub linear_damping: f64,
    /// d_ω, 1/s.
    pub angular_damping: f64,
    pub friction: f64,
    pub restitution: f64,
    /// f_s, Hz.
    pub spring_hz: f64,
    /// ζ.
    pub damping_ratio: f64,
    /// ρ_A.
    pub max_area_change: f64,
    /// f_max, N (force actuation only).
    pub max_force: f64,
    pub scaffolding: Scaffolding,
    pub ropes: bool,
    pub actuation: ActuationMode,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            preset: Preset::Default,
            side: 3.0,
            mass_side_ratio: 0.3,
            mass: 1.0,
            linear_damping: 1.0,
            angular_damping: 1.0,
            friction: 100.0,
            restitution: 0.1,
            spring_hz: 8.0,
            damping_ratio: 0.3,
            max_area_change: 0.2,
            max_force: 1000.0,
            scaffolding: Scaffolding::ALL,
            ropes: true,
            actuation: ActuationMode::Area,
        }
    }
}

/// A parameter outside its domain.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("material parameter `{parameter}` = {} is out of range: it must be in {domain}", crate::geom::compact(*.value))]
pub struct MaterialError {
    pub parameter: &'static str,
    pub value: f64,
    pub domain: String,
}

impl Material {
    pub fn with_preset(preset: Preset) -> Material {
        Material { preset, ..Material::default() }
    }

    /// Side of one corner mass, m = ρ·l.
    pub(crate) fn mass_side(&self) -> f64 {
        self.mass_side_ratio * self.side
    }

    /// Weight of one corner mass: M/4, or (M/4)·m² in `legacy-1.0` (the released code's density bug).
    pub(crate) fn corner_mass(&self) -> f64 {
        let m = self.mass_side();
        if self.preset.is_legacy() {
            self.mass / 4.0 * m * m
        } else {
            self.mass / 4.0
        }
    }

    /// Checks every parameter against its domain (spec §2).
    pub fn validate(&self) -> Result<(), MaterialError> {
        fn check(parameter: &'static str, value: f64, ok: bool, domain: &str) -> Result<(), MaterialError> {
            if value.is_finite() && ok {
                Ok(())
            } else {
                Err(MaterialError { parameter, value, domain: domain.to_string() })
            }
        }
        // Upper and lower bounds keep every derived quantity (masses, inertias, spring stiffnesses,
        // forces) well inside the f32 range of the engine, with room for the dynamics: outside them the
        // robot freezes or explodes instead of giving an error.
        check("side", self.side, (0.01..=100.0).contains(&self.side), "[0.01, 100] m")?;
        check("max_area_change", self.max_area_change, (0.0..1.0).contains(&self.max_area_change), "[0, 1)")?;
        let rho_max = 0.5 * (1.0 - self.max_area_change).sqrt();
        check(
            "mass_side_ratio",
            self.mass_side_ratio,
            self.mass_side_ratio >= 0.01 && self.mass_side_ratio < rho_max,
            &format!(
                "[0.01, {rho_max:.6}) = [0.01, ½·√(1 − max_area_change)), so masses never touch at full contraction"
            ),
        )?;
        check("mass", self.mass, (1e-4..=1e4).contains(&self.mass), "[0.0001, 10000] kg")?;
        check("linear_damping", self.linear_damping, (0.0..=1e4).contains(&self.linear_damping), "[0, 10000] 1/s")?;
        check("angular_damping", self.angular_damping, (0.0..=1e4).contains(&self.angular_damping), "[0, 10000] 1/s")?;
        check("friction", self.friction, (0.0..=1e4).contains(&self.friction), "[0, 10000]")?;
        check("restitution", self.restitution, (0.0..=1.0).contains(&self.restitution), "[0, 1]")?;
        // Measured (issue 52): below about 1e-19 Hz the springs' f32 stiffness (2π·f)²·m is 0 and the engine
        // locks them (a 1e-20 Hz robot stood as a rigid one); 1e-10 Hz still sags like a soft one.
        check("spring_hz", self.spring_hz, (1e-6..=1e4).contains(&self.spring_hz), "[1e-6, 10000] Hz")?;
        check("damping_ratio", self.damping_ratio, (0.0..=1.0).contains(&self.damping_ratio), "[0, 1]")?;
        check("max_force", self.max_force, (0.0..=1e9).contains(&self.max_force), "[0, 1e9] N")?;
        Ok(())
    }

    /// The mass-normalised spring rates (ω², 2ζω) with ω = 2π·f_s, in s⁻² and s⁻¹. A spring's stiffness
    /// and damping are these times its effective mass (spec §3, [`crate::model::voxel::geometry::effective_mass`]).
    pub(crate) fn spring_rates(&self) -> (f64, f64) {
        let w = 2.0 * std::f64::consts::PI * self.spring_hz;
        (w * w, 2.0 * self.damping_ratio * w)
    }
}

/// Material as written in JSON: a preset plus any overridden parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// `default` (the spec) or `legacy-1.0` (the released 2D-VSR-Sim behaviour); default: the world's `compat`.
    pub preset: Option<Preset>,
    /// Voxel side l in m (default 3).
    pub side: Option<f64>,
    /// Mass side over voxel side, ρ (default 0.3).
    pub mass_side_ratio: Option<f64>,
    /// Mass of the whole voxel in kg (default 1).
    pub mass: Option<f64>,
    /// Linear damping of each mass in 1/s (default 1).
    pub linear_damping: Option<f64>,
    /// Angular damping of each mass in 1/s (default 1).
    pub angular_damping: Option<f64>,
    /// Friction coefficient of the masses (default 100).
    pub friction: Option<f64>,
    /// Restitution of the masses (default 0.1).
    pub restitution: Option<f64>,
    /// Spring frequency f_s in Hz (default 8).
    pub spring_hz: Option<f64>,
    /// Spring damping ratio ζ (default 0.3).
    pub damping_ratio: Option<f64>,
    /// Maximum area change ρ_A (default 0.2).
    pub max_area_change: Option<f64>,
    /// Maximum force in N, force actuation only (default 1000).
    pub max_force: Option<f64>,
    /// Spring groups (default `all`).
    pub scaffolding: Option<Scaffolding>,
    /// Ropes between adjacent masses (default true).
    pub ropes: Option<bool>,
    /// `area` (default) or `force`.
    pub actuation: Option<ActuationMode>,
}

impl MaterialSpec {
    /// The preset's defaults with this spec's overrides, validated.
    pub fn resolve(&self) -> Result<Material, MaterialError> {
        let preset = self.preset.unwrap_or_default();
        let d = Material::with_preset(preset);
        let m = Material {
            preset,
            side: self.side.unwrap_or(d.side),
            mass_side_ratio: self.mass_side_ratio.unwrap_or(d.mass_side_ratio),
            mass: self.mass.unwrap_or(d.mass),
            linear_damping: self.linear_damping.unwrap_or(d.linear_damping),
            angular_damping: self.angular_damping.unwrap_or(d.angular_damping),
            friction: self.friction.unwrap_or(d.friction),
            restitution: self.restitution.unwrap_or(d.restitution),
            spring_hz: self.spring_hz.unwrap_or(d.spring_hz),
            damping_ratio: self.damping_ratio.unwrap_or(d.damping_ratio),
            max_area_change: self.max_area_change.unwrap_or(d.max_area_change),
            max_force: self.max_force.unwrap_or(d.max_force),
            scaffolding: self.scaffolding.unwrap_or(d.scaffolding),
            ropes: self.ropes.unwrap_or(d.ropes),
            actuation: self.actuation.unwrap_or(d.actuation),
        };
        m.validate()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_table() {
        let m = Material::default();
        m.validate().unwrap();
        assert!((m.mass_side() - 0.9).abs() < 1e-12);
        assert_eq!(m.corner_mass(), 0.25);
        let (omega_sq, two_zeta_omega) = m.spring_rates();
        assert!((omega_sq - 2526.62).abs() < 0.01);
        assert!((two_zeta_omega - 30.1593).abs() < 1e-3);
        let legacy = Material::with_preset(Preset::Legacy10);
        assert!((legacy.corner_mass() - 0.2025).abs() < 1e-12);
    }

    #[test]
    fn out_of_domain_parameters_are_named() {
        for (spec, name) in [
            (MaterialSpec { spring_hz: Some(-1.0), ..Default::default() }, "spring_hz"),
            (MaterialSpec { mass: Some(f64::NAN), ..Default::default() }, "mass"),
            (MaterialSpec { mass_side_ratio: Some(0.45), ..Default::default() }, "mass_side_ratio"),
            (MaterialSpec { restitution: Some(2.0), ..Default::default() }, "restitution"),
        ] {
            let err = spec.resolve().unwrap_err();
            assert_eq!(err.parameter, name);
            assert!(err.to_string().contains(name));
        }
    }
}
