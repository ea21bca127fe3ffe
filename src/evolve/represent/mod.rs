//! Genome → scenario mappers (spec §4): `gmm_body`, `phases`, `phases_devo`, `mlp_weights`,
//! `distributed_homogeneous`, `distributed_heterogeneous` and the generic `slots`. Voxel order is grid order throughout (x fastest, y = 0 the bottom row).

mod gmm;
mod slots;

use std::collections::BTreeMap;
use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

pub use gmm::{gmm_grid, largest_component, GmmFormula, GmmMaterial, GmmSpec};
pub use slots::{Slot, SlotsSpec};

use super::EvolveError;
use crate::controller::{
    distributed_layer_sizes, mlp_layer_sizes, weight_count, Aggregate, CellFunction, CellWeights, ControllerSpec,
    DistributedSpec, Feature, MlpSpec, SensorLayout, TimeFunction, TimeFunctionsSpec,
};
use crate::model::voxel::material::MaterialSpec;
use crate::model::voxel::sensors::SensorKind;
use crate::scenario::{RobotSpec, Scenario, ScenarioError, TaskSpec, WorldSpec};

/// The parts of a scenario a built-in representation does not generate.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaseScenario {
    #[serde(default)]
    pub world: WorldSpec,
    #[serde(default)]
    pub task: TaskSpec,
}

/// A representation as written in the experiment, tagged by `"type"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RepresentationSpec {
    /// The body from Gaussian mixtures of materials (§4.1): ℝ^(materials × gaussians × 4).
    GmmBody(GmmSpec),
    /// One phase per voxel of a fixed body: f_j(t) = sin(2π·frequency·t + φ_j) (§4.2); with
    /// `evolve_amplitude`, a phase and an amplitude per voxel: f_j(t) = A_j·sin(2π·frequency·t + φ_j).
    Phases(PhasesSpec),
    /// (φ, a, b) per voxel: f_j(t) = sin(2π·frequency·t + φ_j) + a_j + (t/t_final)(b_j − a_j) (§4.2).
    PhasesDevo(PhasesDevoSpec),
    /// The weights of a centralized MLP on a fixed body (§4.3; `mlp_sensing` is accepted too).
    #[serde(alias = "mlp_sensing")]
    MlpWeights(MlpWeightsSpec),
    /// The weights of one per-voxel network shared by every voxel of a fixed body (a distributed
    /// controller): ℝ^|θ|.
    DistributedHomogeneous(DistributedWeightsSpec),
    /// One per-voxel network per voxel of a fixed body: ℝ^(voxels × |θ|), voxels in grid order.
    DistributedHeterogeneous(DistributedWeightsSpec),
    /// Genes written into JSON pointers of a template scenario (§4.4).
    Slots(SlotsSpec),
}

/// A fixed body: `"worm"` (4×1), `"biped"` (4×2, legs at the ends), `"tripod"` (5×2, three legs),
/// `"WxH"` (a full grid, e.g. `"11x4"`), or text rows as in a scenario (first row on top, `.` empty).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum BodySpec {
    Named(String),
    Rows(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhasesSpec {
    pub body: BodySpec,
    /// Driving frequency ν in Hz (default 1, the paper's sin(2πt + φ)).
    #[serde(default = "one")]
    pub frequency: f64,
    /// Evolve an amplitude per voxel besides its phase (default false: every amplitude is 1, the
    /// paper's). The genome is then (φ_j, g_j) per voxel, voxels in grid order (2 genes per voxel:
    /// φ_0, g_0, φ_1, g_1, …), and voxel j follows A_j·sin(2π·frequency·t + φ_j) with
    /// A_j = clamp((g_j − lo)/(hi − lo), 0, 1), [lo, hi] the init box: initial genomes, uniform in the
    /// box, give amplitudes uniform in [0, 1]. The control effort (mean of the squared control value)
    /// is then about the mean of A_j²/2 instead of always 1/2, so speed can be traded for energy.
    #[serde(default, skip_serializing_if = "is_false")]
    pub evolve_amplitude: bool,
    /// Initialisation box per gene (default [−π, π]); with `evolve_amplitude`, also the range mapped
    /// onto amplitudes [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<[f64; 2]>,
    /// The voxels' material (default: the default voxel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<MaterialSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhasesDevoSpec {
    pub body: BodySpec,
    #[serde(default = "one")]
    pub frequency: f64,
    /// The development horizon t_final in s (default 60, the paper's run length).
    #[serde(default = "sixty")]
    pub t_final: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<MaterialSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MlpWeightsSpec {
    pub body: BodySpec,
    /// `"paper6"` (mean(5) and diff(5) of area_ratio, x_rot_velocity, y_rot_velocity, in that order) or
    /// a list of features, the same for every voxel.
    #[serde(default = "paper6")]
    pub features: FeatureSet,
    /// The driving function (default sin(2πt)); `null` for none.
    #[serde(default = "default_driver")]
    pub driver: Option<TimeFunction>,
    /// Hidden layer sizes (default none).
    #[serde(default)]
    pub hidden: Vec<usize>,
    /// Initialisation box per gene (default [−1, 1]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<MaterialSpec>,
}

/// A distributed controller's networks on a fixed body (see `docs/controllers.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DistributedWeightsSpec {
    pub body: BodySpec,
    /// `"paper6"` or a list of features, the same for every voxel.
    #[serde(default = "paper6")]
    pub features: FeatureSet,
    /// Signal values per direction (default 1).
    #[serde(default = "one_signal")]
    pub signals: usize,
    /// One vector per neighbour (default) or one for all.
    #[serde(default = "yes")]
    pub directional: bool,
    /// Hidden layer sizes of every voxel's network (default none).
    #[serde(default)]
    pub hidden: Vec<usize>,
    /// Initialisation box per gene (default [−1, 1]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<MaterialSpec>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn one_signal() -> usize {
    1
}
fn yes() -> bool {
    true
}

impl DistributedWeightsSpec {
    /// The weights of one voxel's network.
    fn per_voxel(&self) -> usize {
        let features = feature_list(&self.features).map(|f| f.len()).unwrap_or(0);
        weight_count(&distributed_layer_sizes(features, self.signals, self.directional, &self.hidden))
    }

    /// The controller with `genome` as its weights: one network for all, or one per voxel.
    fn controller(&self, shape: &Shape, genome: &[f64], heterogeneous: bool) -> Result<ControllerSpec, MapError> {
        let features = feature_list(&self.features).map_err(|e| MapError::Scenario(e.to_string()))?;
        let k = self.per_voxel();
        let (weights, cells) = if heterogeneous {
            let cells = shape
                .cells
                .iter()
                .zip(genome.chunks_exact(k.max(1)))
                .map(|(&cell, w)| CellWeights { cell, weights: w.to_vec() })
                .collect();
            (None, cells)
        } else {
            (Some(genome.to_vec()), Vec::new())
        };
        Ok(ControllerSpec::Distributed(DistributedSpec {
            sensors: SensorLayout { default: features, cells: Vec::new() },
            signals: self.signals,
            directional: self.directional,
            hidden: self.hidden.clone(),
            weights,
            cells,
        }))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum FeatureSet {
    Named(String),
    List(Vec<Feature>),
}

fn one() -> f64 {
    1.0
}
fn sixty() -> f64 {
    60.0
}
fn paper6() -> FeatureSet {
    FeatureSet::Named("paper6".into())
}
fn default_driver() -> Option<TimeFunction> {
    Some(TimeFunction::Sin { amplitude: 1.0, frequency: 1.0, phase: 0.0, offset: 0.0 })
}

/// The six features of Talamini et al. in the paper's order.
pub fn paper6_features() -> Vec<Feature> {
    let mut v = Vec::new();
    for sensor in [SensorKind::AreaRatio, SensorKind::XRotVelocity, SensorKind::YRotVelocity] {
        for aggregate in [Aggregate::Mean, Aggregate::Diff] {
            v.push(Feature { sensor, aggregate, n: 5 });
        }
    }
    v
}

/// A body's voxel cells, in grid order, in its w × h grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub w: u32,
    pub h: u32,
    pub cells: Vec<[u32; 2]>,
}

impl Shape {
    pub fn full(w: u32, h: u32) -> Shape {
        Shape { w, h, cells: (0..h).flat_map(|y| (0..w).map(move |x| [x, y])).collect() }
    }

    /// Cells from text rows (first row on top).
    pub(crate) fn from_rows(rows: &[String]) -> Shape {
        let h = rows.len() as u32;
        let w = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0) as u32;
        let mut cells = Vec::new();
        for y in 0..h {
            let row: Vec<char> = rows[(h - 1 - y) as usize].chars().collect();
            for x in 0..w {
                if row.get(x as usize).is_some_and(|c| *c != '.' && *c != ' ') {
                    cells.push([x, y]);
                }
            }
        }
        Shape { w, h, cells }
    }

    /// Text rows (first row on top) with `c` on every voxel.
    pub fn rows(&self, c: impl Fn(usize) -> char) -> Vec<String> {
        let mut grid = vec![vec!['.'; self.w as usize]; self.h as usize];
        for (i, [x, y]) in self.cells.iter().enumerate() {
            grid[(self.h - 1 - y) as usize][*x as usize] = c(i);
        }
        grid.into_iter().map(|r| r.into_iter().collect()).collect()
    }
}

impl BodySpec {
    /// The shape, or a message saying what is accepted.
    pub fn shape(&self) -> Result<Shape, String> {
        let rows = |r: &[&str]| Shape::from_rows(&r.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let shape = match self {
            BodySpec::Named(name) => match name.as_str() {
                "worm" => Shape::full(4, 1),
                "biped" => rows(&["####", "#..#"]),
                "tripod" => rows(&["#####", "#.#.#"]),
                other => {
                    let err = || {
                        format!(
                            "{other:?} is not a body: give \"worm\", \"biped\", \"tripod\", a full grid \"WxH\" \
                             (e.g. \"11x4\") or text rows such as [\"####\", \"#..#\"]"
                        )
                    };
                    let (w, h) = other.split_once(['x', 'X', '×']).ok_or_else(err)?;
                    let (w, h): (u32, u32) =
                        (w.trim().parse().map_err(|_| err())?, h.trim().parse().map_err(|_| err())?);
                    if w == 0 || h == 0 || w > 1000 || h > 1000 {
                        return Err(err());
                    }
                    Shape::full(w, h)
                }
            },
            BodySpec::Rows(r) => Shape::from_rows(r),
        };
        if shape.cells.is_empty() {
            return Err("the body has no voxel: give at least one non-`.` cell".into());
        }
        Ok(shape)
    }
}

/// Why one genome gives no usable scenario. `EmptyBody` makes an invalid individual; the others are
/// configuration problems, found at load time by mapping a sample genome.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MapError {
    #[error("the genome has {got} genes but the representation needs {expected}")]
    GenomeSize { expected: usize, got: usize },
    #[error("empty body: no cell reaches the threshold")]
    EmptyBody,
    #[error("gene {gene} gives the non-finite value {value} at {pointer}")]
    NonFinite { gene: usize, pointer: String, value: f64 },
    #[error("the mapped scenario is invalid: {0}")]
    Scenario(String),
    #[error("gene {gene} is {value}, not a finite number")]
    NonFiniteGene { gene: usize, value: f64 },
}

impl From<ScenarioError> for MapError {
    fn from(e: ScenarioError) -> Self {
        MapError::Scenario(e.to_string())
    }
}

/// Hidden layers: at most 64 of at most 10⁶ neurons each, so weight counts cannot overflow (the
/// population limit then decides what fits).
fn check_hidden(hidden: &[usize]) -> Result<(), EvolveError> {
    let bad = |path: String, message: String| Err(EvolveError::Invalid { path, message });
    if hidden.len() > 64 {
        return bad("representation.hidden".into(), format!("has {} layers: give at most 64", hidden.len()));
    }
    if let Some(i) = hidden.iter().position(|n| *n > 1_000_000) {
        return bad(format!("representation.hidden[{i}]"), format!("is {}: give at most 1000000 neurons", hidden[i]));
    }
    Ok(())
}

/// Genes larger than this overflow (to ±∞) in a few generations of extended-segment crossover.
pub(crate) const MAX_INIT: f64 = 1e100;

/// An init box [lo, hi]: finite, lo ≤ hi, within ±[`MAX_INIT`] (so every drawn gene is finite).
pub(crate) fn check_init_box(path: &str, [lo, hi]: [f64; 2]) -> Result<(), EvolveError> {
    if !(lo.is_finite() && hi.is_finite() && lo <= hi && lo.abs() <= MAX_INIT && hi.abs() <= MAX_INIT) {
        return Err(EvolveError::Invalid {
            path: path.to_string(),
            message: format!(
                "is [{}, {}]: give [lo, hi] with lo ≤ hi, both within ±1e100 (larger genes overflow)",
                crate::geom::compact(lo),
                crate::geom::compact(hi)
            ),
        });
    }
    Ok(())
}

fn check_init(path: &str, init: Option<[f64; 2]>) -> Result<(), EvolveError> {
    if let Some([lo, hi]) = init {
        check_init_box(&format!("{path}.init"), [lo, hi])?;
    }
    Ok(())
}

impl RepresentationSpec {
    /// Checks the representation's own fields; `has_base` says whether the experiment has `scenario`.
    pub(crate) fn validate(&self, has_base: bool) -> Result<(), EvolveError> {
        let bad = |path: &str, message: String| Err(EvolveError::Invalid { path: path.into(), message });
        let body = |b: &BodySpec| b.shape().map(|_| ()).or_else(|m| bad("representation.body", m));
        match self {
            RepresentationSpec::GmmBody(g) => {
                g.validate()?;
                check_init("representation", g.init)?;
            }
            RepresentationSpec::Phases(p) => {
                body(&p.body)?;
                check_init("representation", p.init)?;
                if !p.frequency.is_finite() {
                    return bad("representation.frequency", "must be a finite number of Hz".into());
                }
                if let (true, Some([lo, hi])) = (p.evolve_amplitude, p.init) {
                    if lo >= hi {
                        return bad(
                            "representation.init",
                            format!(
                                "is [{}, {}]: with `evolve_amplitude` the box is mapped onto amplitudes [0, 1], so \
                                 give lo < hi (e.g. the default [-pi, pi])",
                                crate::geom::compact(lo),
                                crate::geom::compact(hi)
                            ),
                        );
                    }
                }
            }
            RepresentationSpec::PhasesDevo(p) => {
                body(&p.body)?;
                check_init("representation", p.init)?;
                if !(p.t_final.is_finite() && p.t_final > 0.0) {
                    return bad(
                        "representation.t_final",
                        format!("is {}: give a duration > 0 s (the paper: 60)", p.t_final),
                    );
                }
                if !p.frequency.is_finite() {
                    return bad("representation.frequency", "must be a finite number of Hz".into());
                }
            }
            RepresentationSpec::DistributedHomogeneous(d) | RepresentationSpec::DistributedHeterogeneous(d) => {
                body(&d.body)?;
                check_init("representation", d.init)?;
                feature_list(&d.features)?;
                check_hidden(&d.hidden)?;
                if let Some(i) = d.hidden.iter().position(|n| *n == 0) {
                    return bad(
                        &format!("representation.hidden[{i}]"),
                        "is 0: a hidden layer needs at least 1 neuron".into(),
                    );
                }
                if d.signals > crate::controller::distributed::MAX_SIGNALS {
                    return bad(
                        "representation.signals",
                        format!(
                            "is {}: give at most {} signal values per direction (e.g. 1)",
                            d.signals,
                            crate::controller::distributed::MAX_SIGNALS
                        ),
                    );
                }
            }
            RepresentationSpec::MlpWeights(m) => {
                body(&m.body)?;
                check_init("representation", m.init)?;
                m.features()?;
                check_hidden(&m.hidden)?;
                if let Some(i) = m.hidden.iter().position(|n| *n == 0) {
                    return bad(
                        &format!("representation.hidden[{i}]"),
                        "is 0: a hidden layer needs at least 1 neuron".into(),
                    );
                }
            }
            RepresentationSpec::Slots(s) => {
                if has_base {
                    return bad(
                        "scenario",
                        "is not used by `slots`: its `template` is the whole scenario; remove `scenario` and put \
                         world and task in `representation.template`"
                            .into(),
                    );
                }
                s.validate()?;
            }
        }
        Ok(())
    }

    /// The genome length.
    pub fn genome_size(&self) -> usize {
        let voxels = |b: &BodySpec| b.shape().map(|s| s.cells.len()).unwrap_or(0);
        match self {
            // Saturating, as `weight_count`: the size of an unvalidated spec is refused, never an overflow.
            RepresentationSpec::GmmBody(g) => g.materials.len().saturating_mul(g.gaussians).saturating_mul(4),
            RepresentationSpec::Phases(p) => (1 + usize::from(p.evolve_amplitude)) * voxels(&p.body),
            RepresentationSpec::PhasesDevo(p) => 3 * voxels(&p.body),
            RepresentationSpec::MlpWeights(m) => {
                let n = voxels(&m.body);
                let features = m.features().map(|f| f.len()).unwrap_or(0) * n;
                weight_count(&mlp_layer_sizes(features, m.driver.is_some(), &m.hidden, n))
            }
            RepresentationSpec::DistributedHomogeneous(d) => d.per_voxel(),
            RepresentationSpec::DistributedHeterogeneous(d) => voxels(&d.body).saturating_mul(d.per_voxel()),
            RepresentationSpec::Slots(s) => s.genome_size(),
        }
    }

    /// The box initial genomes are drawn from (spec §4's table unless `init` overrides it).
    pub fn init_box(&self) -> [f64; 2] {
        match self {
            RepresentationSpec::GmmBody(g) => g.init.unwrap_or([0.0, 1.0]),
            RepresentationSpec::Phases(p) => p.init.unwrap_or([-PI, PI]),
            RepresentationSpec::PhasesDevo(p) => p.init.unwrap_or([-PI, PI]),
            RepresentationSpec::MlpWeights(m) => m.init.unwrap_or([-1.0, 1.0]),
            RepresentationSpec::DistributedHomogeneous(d) | RepresentationSpec::DistributedHeterogeneous(d) => {
                d.init.unwrap_or([-1.0, 1.0])
            }
            RepresentationSpec::Slots(s) => s.init,
        }
    }

    /// The scenario of a genome (not yet validated: see [`Mapper::map`]).
    fn scenario(&self, genome: &[f64], label: &str, base: &BaseScenario) -> Result<Scenario, MapError> {
        let expected = self.genome_size();
        if genome.len() != expected {
            return Err(MapError::GenomeSize { expected, got: genome.len() });
        }
        let materials = |m: &Option<MaterialSpec>| m.clone().map(|m| BTreeMap::from([("#".to_string(), m)]));
        let robot = |body: Vec<String>, materials, controller| RobotSpec {
            label: Some(label.to_string()),
            materials,
            body,
            controller: Some(controller),
            self_collisions: true,
            position: None,
        };
        let time_functions = |shape: &Shape, f: &dyn Fn(usize) -> TimeFunction| {
            ControllerSpec::TimeFunctions(TimeFunctionsSpec {
                default: None,
                cells: shape.cells.iter().enumerate().map(|(j, c)| CellFunction { cell: *c, function: f(j) }).collect(),
            })
        };
        let robot = match self {
            RepresentationSpec::Slots(s) => return s.map(genome),
            RepresentationSpec::GmmBody(g) => g.robot(genome, label)?,
            RepresentationSpec::Phases(p) => {
                let shape = p.body.shape().map_err(MapError::Scenario)?;
                let [lo, hi] = self.init_box();
                let c = time_functions(&shape, &|j| {
                    let (phase, amplitude) = if p.evolve_amplitude {
                        (genome[2 * j], amplitude_of(genome[2 * j + 1], [lo, hi]))
                    } else {
                        (genome[j], 1.0)
                    };
                    TimeFunction::Sin { amplitude, frequency: p.frequency, phase, offset: 0.0 }
                });
                robot(shape.rows(|_| '#'), materials(&p.material), c)
            }
            RepresentationSpec::PhasesDevo(p) => {
                let shape = p.body.shape().map_err(MapError::Scenario)?;
                let c = time_functions(&shape, &|j| {
                    let (phi, a, b) = (genome[3 * j], genome[3 * j + 1], genome[3 * j + 2]);
                    // Rust prints f64 in shortest round-trip form without exponent, which the expression
                    // parser reads back exactly; parentheses keep negative values unary.
                    TimeFunction::Expr {
                        expr: format!(
                            "sin(2*pi*({f})*t + ({phi})) + ({a}) + t/({tf})*(({b}) - ({a}))",
                            f = p.frequency,
                            tf = p.t_final
                        ),
                    }
                });
                robot(shape.rows(|_| '#'), materials(&p.material), c)
            }
            RepresentationSpec::MlpWeights(m) => {
                let shape = m.body.shape().map_err(MapError::Scenario)?;
                let features = m.features().map_err(|e| MapError::Scenario(e.to_string()))?;
                let c = ControllerSpec::Mlp(MlpSpec {
                    sensors: SensorLayout { default: features, cells: Vec::new() },
                    driver: m.driver.clone(),
                    hidden: m.hidden.clone(),
                    weights: genome.to_vec(),
                });
                robot(shape.rows(|_| '#'), materials(&m.material), c)
            }
            RepresentationSpec::DistributedHomogeneous(d) | RepresentationSpec::DistributedHeterogeneous(d) => {
                let shape = d.body.shape().map_err(MapError::Scenario)?;
                let heterogeneous = matches!(self, RepresentationSpec::DistributedHeterogeneous(_));
                let c = d.controller(&shape, genome, heterogeneous)?;
                robot(shape.rows(|_| '#'), materials(&d.material), c)
            }
        };
        Ok(Scenario {
            world: base.world.clone(),
            robots: vec![robot],
            cell_types: Default::default(),
            cells: Vec::new(),
            connector_types: Default::default(),
            interactions: Vec::new(),
            links: Vec::new(),
            chains: Vec::new(),
            schedule: Vec::new(),
            objects: Vec::new(),
            task: base.task.clone(),
        })
    }
}

/// The amplitude of an amplitude gene of `phases` with `evolve_amplitude`: the init box [lo, hi]
/// mapped linearly onto [0, 1], clamped outside it.
pub(crate) fn amplitude_of(gene: f64, [lo, hi]: [f64; 2]) -> f64 {
    ((gene - lo) / (hi - lo)).clamp(0.0, 1.0)
}

impl MlpWeightsSpec {
    fn features(&self) -> Result<Vec<Feature>, EvolveError> {
        feature_list(&self.features)
    }
}

/// The features a `features` field names.
fn feature_list(set: &FeatureSet) -> Result<Vec<Feature>, EvolveError> {
    match set {
        FeatureSet::List(l) if !l.is_empty() => Ok(l.clone()),
        FeatureSet::Named(n) if n == "paper6" => Ok(paper6_features()),
        _ => Err(EvolveError::Invalid {
            path: "representation.features".into(),
            message: "give \"paper6\" or a non-empty list of {\"sensor\", \"aggregate\", \"n\"} features".into(),
        }),
    }
}

/// A representation ready to map genomes: the spec plus the run's label and base scenario.
#[derive(Debug, Clone)]
pub struct Mapper {
    pub spec: RepresentationSpec,
    label: String,
    base: BaseScenario,
}

impl Mapper {
    /// Builds the mapper and maps the centre of the init box once, so a representation that cannot
    /// give a valid scenario is refused before anything runs.
    pub fn new(spec: &RepresentationSpec, label: &str, base: Option<&BaseScenario>) -> Result<Mapper, EvolveError> {
        let mapper = Mapper { spec: spec.clone(), label: label.to_string(), base: base.cloned().unwrap_or_default() };
        let [lo, hi] = spec.init_box();
        let probe = vec![0.5 * (lo + hi); spec.genome_size()];
        match mapper.map(&probe) {
            Ok(_) | Err(MapError::EmptyBody) => Ok(mapper),
            Err(e) => Err(EvolveError::Invalid {
                path: "representation".into(),
                message: format!(
                    "the genome at the centre of the init box does not give a valid scenario: {e}; fix the \
                     representation or `scenario`"
                ),
            }),
        }
    }

    pub fn genome_size(&self) -> usize {
        self.spec.genome_size()
    }

    /// The validated scenario of a genome and its canonical JSON (the cache key's source): exactly the
    /// text `vsr2d simulate` would read.
    pub fn map(&self, genome: &[f64]) -> Result<(Scenario, String), MapError> {
        if let Some(gene) = genome.iter().position(|g| !g.is_finite()) {
            return Err(MapError::NonFiniteGene { gene, value: genome[gene] });
        }
        let scenario = self.spec.scenario(genome, &self.label, &self.base)?;
        let text = serde_json::to_string(&scenario).map_err(|e| MapError::Scenario(e.to_string()))?;
        let checked = Scenario::from_json(&text)?;
        Ok((checked, text))
    }
}

#[cfg(test)]
mod tests;
