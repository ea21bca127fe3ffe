//! The POM spec JSON (spec §10): serde types with `deny_unknown_fields`, the JSON Schema derived from the
//! same types, parsing with JSON-path errors, validation of every mode's block, and resolution into a
//! [`Model`].
//!
//! Errors follow the scenario files' style: the JSON path of the problem, then what to write instead.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::PomError;
use super::gait::TripodGait;
use super::geometry::{Lattice, Voxel};
use super::kinematics::Frame;
use super::limits::{DEFAULT_RANGE, MAX_LENGTH, MAX_TIME};
use super::model;
use super::model::{Control, Effector, Model, NodeRef, Push, Role};
use crate::geom::compact;
use crate::limits::Limits;

/// Most samples a spec may ask for (span / dt), so a typo in `dt` cannot exhaust memory.
const MAX_SAMPLES: f64 = 1e6;

/// A POM experiment: lattice, controls, effectors and what to compute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PomSpec {
    /// Set when the spec reconstructs a robot its source only draws; every output must repeat it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconstruction: Option<String>,
    pub lattice: LatticeSpec,
    /// Control nodes, at most one per plane of motion.
    pub controls: Vec<ControlSpec>,
    /// End-effector nodes (feet, markers, …).
    pub effectors: Vec<EffectorSpec>,
    /// `forward`, `inverse`, `lateral` or `gait`; only the block of that mode is read.
    pub mode: Mode,
    /// Sampling step of interpolated keyframes and of the gait, s (default 0.05).
    #[serde(default = "default_dt")]
    pub dt: f64,
    /// Clamp control displacements into their ranges instead of only reporting violations (default false).
    #[serde(default)]
    pub clip: bool,
    /// For `forward`: the control displacements, from a CSV log or keyframes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<ForwardSpec>,
    /// For `inverse` and `lateral`: effector targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<TargetsSpec>,
    /// For `gait`: the planner's parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gait: Option<GaitSpec>,
    /// Motion-capture alignment settings (read by `vsr2d pom align`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<AlignSpec>,
    /// Three-view video settings (read by the report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderSpec>,
}

fn default_dt() -> f64 {
    0.05
}

/// The voxels and everything attached to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatticeSpec {
    /// Distance between voxel centres, m (default 0.0762, PFEA's examples). Displacements do not depend on it.
    #[serde(default = "default_pitch")]
    pub pitch: f64,
    /// Node numbering; only `pfea` (0 = −x, 1 = −y, 2 = −z, 3 = +x, 4 = +y, 5 = +z).
    #[serde(default)]
    pub numbering: Numbering,
    /// Layers `z0`, `z1`, … from the bottom; each a list of rows, **the first row being the highest y**;
    /// `#` a voxel, `.` empty.
    pub layers: BTreeMap<String, Vec<String>>,
    /// Extra unit masses not in the kinematic lattice (e.g. the front voxels), for the stability check.
    #[serde(default)]
    pub mass_voxels: Vec<Voxel>,
    /// Points rigidly offset from a node, moving by that node's displacement (the paper's "geometric extensions").
    #[serde(default)]
    pub extensions: Vec<ExtensionSpec>,
}

fn default_pitch() -> f64 {
    0.0762
}

/// Node numbering conventions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Numbering {
    /// PFEA's: node n on axis n mod 3, negative side for n < 3.
    #[default]
    Pfea,
}

/// A point attached to a node with a fixed offset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtensionSpec {
    pub id: String,
    pub attach: NodeRef,
    /// Offset from the attach node at rest, m.
    pub offset: [f64; 3],
}

/// A control node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    pub id: String,
    /// Grid coordinate of a lattice voxel containing the node.
    pub voxel: Voxel,
    /// Node index 0–5.
    pub node: usize,
    /// Direction of positive q: one of `+x`, `-x`, `+y`, `-y`, `+z`, `-z`, not along the node's own axis.
    pub push: PushSpec,
    /// The node at the actuator's other end (same plane, moving opposite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partner: Option<NodeRef>,
    /// Allowed q, m (default [-0.005, 0.005], the prototype's ±5 mm per node).
    #[serde(default = "default_range")]
    pub range: [f64; 2],
}

fn default_range() -> [f64; 2] {
    DEFAULT_RANGE
}

/// A signed push axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum PushSpec {
    #[serde(rename = "+x")]
    PlusX,
    #[serde(rename = "-x")]
    MinusX,
    #[serde(rename = "+y")]
    PlusY,
    #[serde(rename = "-y")]
    MinusY,
    #[serde(rename = "+z")]
    PlusZ,
    #[serde(rename = "-z")]
    MinusZ,
}

impl From<PushSpec> for Push {
    fn from(p: PushSpec) -> Push {
        let (axis, sign) = match p {
            PushSpec::PlusX => (0, 1),
            PushSpec::MinusX => (0, -1),
            PushSpec::PlusY => (1, 1),
            PushSpec::MinusY => (1, -1),
            PushSpec::PlusZ => (2, 1),
            PushSpec::MinusZ => (2, -1),
        };
        Push { axis, sign }
    }
}

/// An end effector: `voxel` and `node`, or `extension`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EffectorSpec {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voxel: Option<Voxel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
    /// Id of an entry of `lattice.extensions`, instead of `voxel` and `node`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<String>,
    /// `foot`, `marker` or `other` (default).
    #[serde(default)]
    pub role: Role,
    /// In `lateral` mode: driven by the targets (true) or watched (false, default).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drive: bool,
}

/// What to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Control displacements → effector displacements.
    Forward,
    /// Effector targets → control displacements (least squares), with residuals.
    Inverse,
    /// Targets of the `drive` effectors → controls → every effector.
    Lateral,
    /// The tripod planner → inverse → range, ground and stability checks.
    Gait,
}

/// Control displacements for `forward`: exactly one of `csv` and `keyframes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForwardSpec {
    /// A CSV file `t,<control ids>` in m (e.g. an actuator log), relative to the spec file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
    /// Keyframes `{"t": 0, "<control id>": q, …}`, interpolated at `dt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyframes: Option<Vec<Keyframe<Option<f64>>>>,
}

/// Effector targets for `inverse` and `lateral`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetsSpec {
    /// Keyframes `{"t": 0, "<effector id>": [x, y, z], …}` in m, `null` = free; interpolated at `dt`.
    pub keyframes: Vec<Keyframe<[Option<f64>; 3]>>,
}

/// One keyframe: `t` and values keyed by id.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyframe<V> {
    pub t: f64,
    pub values: BTreeMap<String, V>,
}

impl<V: Serialize> Serialize for Keyframe<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.values.len() + 1))?;
        map.serialize_entry("t", &self.t)?;
        for (k, v) in &self.values {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Read as a map so that a bad value's JSON path names its key (`targets.keyframes[1].foot_bl[2]`).
impl<'de, V: Deserialize<'de>> Deserialize<'de> for Keyframe<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyframeVisitor<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for KeyframeVisitor<V> {
            type Value = Keyframe<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object with a time `t` and values keyed by id")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut t = None;
                let mut values = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "t" {
                        t = Some(map.next_value::<f64>()?);
                    } else {
                        let v = map.next_value::<V>()?;
                        if values.insert(key.clone(), v).is_some() {
                            return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
                        }
                    }
                }
                let t = t.ok_or_else(|| serde::de::Error::missing_field("t"))?;
                Ok(Keyframe { t, values })
            }
        }
        d.deserialize_map(KeyframeVisitor(PhantomData))
    }
}

impl<V: schemars::JsonSchema> schemars::JsonSchema for Keyframe<V> {
    fn schema_name() -> Cow<'static, str> {
        format!("Keyframe_{}", V::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let value = generator.subschema_for::<V>();
        schemars::json_schema!({
            "type": "object",
            "description": "A keyframe: time `t` in s, and values keyed by id (`null` = free).",
            "properties": { "t": { "type": "number" } },
            "required": ["t"],
            "additionalProperties": value
        })
    }
}

/// The tripod gait planner's parameters (spec §8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GaitSpec {
    /// Only `tripod`.
    #[serde(rename = "type")]
    pub kind: GaitKind,
    /// Front-foot bump height, m.
    pub lift: f64,
    /// Peak-to-peak back-foot shift, m.
    pub stride: f64,
    /// Cycle length, s.
    pub period: f64,
    /// Front-foot effector ids (role `foot`) in swing order.
    pub order: Vec<String>,
    /// Number of cycles (default 1).
    #[serde(default = "one")]
    pub cycles: u32,
    /// Ground contact tolerance, m (default 0.0001).
    #[serde(default = "default_ground_tol")]
    pub ground_tol: f64,
}

fn one() -> u32 {
    1
}

fn default_ground_tol() -> f64 {
    1e-4
}

/// Gait planners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GaitKind {
    /// Front feet lift in turn, three feet on the ground at any time.
    Tripod,
}

/// Motion-capture alignment settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AlignSpec {
    /// `variance` (default) rescales the amplitude as the paper's step 4; `none` skips it.
    pub rescale: Rescale,
}

/// Step 4 of the alignment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rescale {
    #[default]
    Variance,
    None,
}

/// Three-view video settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RenderSpec {
    /// Panels, from `top`, `side`, `iso` (default all three).
    pub views: Vec<View>,
    /// Drawn displacement = exaggerate × displacement (default 5).
    pub exaggerate: f64,
    /// Frames per second (default 30).
    pub fps: u32,
    /// Width and height in pixels, both even (default [1280, 720]).
    pub size: [u32; 2],
}

impl Default for RenderSpec {
    fn default() -> Self {
        RenderSpec { views: vec![View::Top, View::Side, View::Iso], exaggerate: 5.0, fps: 30, size: [1280, 720] }
    }
}

/// A panel of the three-view video.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// x–y, seen from +z.
    Top,
    /// x–z, seen from −y.
    Side,
    /// Isometric.
    Iso,
}

impl PomSpec {
    /// Parses and validates JSON within the default [`Limits`]; errors name the JSON path of the problem
    /// and how to fix it.
    pub fn from_json(text: &str) -> Result<PomSpec, PomError> {
        PomSpec::from_json_within(text, &Limits::DEFAULT)
    }

    /// [`PomSpec::from_json`] with the lattice size checked against `limits` before the lattice is built.
    pub fn from_json_within(text: &str, limits: &Limits) -> Result<PomSpec, PomError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: PomSpec = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let mut message = inner.to_string();
            if message.contains("unknown field") {
                message.push_str(" (remove it or fix its spelling; `vsr2d pom --schema` prints every accepted field)");
            } else if inner.is_syntax() || inner.is_eof() {
                message.push_str(" (the file is not valid JSON)");
            }
            PomError::Json { path, message }
        })?;
        de.end().map_err(|e| PomError::Json {
            path: "the end of the object".into(),
            message: format!("{e} after the spec object (the file must hold exactly one JSON object)"),
        })?;
        spec.check_limits(limits)?;
        spec.validate()?;
        Ok(spec)
    }

    /// The lattice's voxels (the `#` of `lattice.layers`) against `limits`: checked before the lattice,
    /// its nodes and J are built.
    pub fn check_limits(&self, limits: &Limits) -> Result<(), PomError> {
        let voxels: u64 =
            self.lattice.layers.values().flatten().map(|row| row.chars().filter(|&c| c == '#').count() as u64).sum();
        crate::limits::check(
            "lattice.layers",
            "lattice voxels",
            voxels,
            limits.max_lattice_voxels,
            "use a smaller lattice",
        )
        .map_err(|e| PomError::invalid(e.path, e.to_string().replacen("`lattice.layers`: ", "", 1)))
    }

    /// Pretty JSON that [`PomSpec::from_json`] reads back.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The model and the block of the chosen mode must both be usable.
    pub fn validate(&self) -> Result<(), PomError> {
        let model = self.model()?;
        if !(self.dt.is_finite() && self.dt > 0.0 && self.dt <= MAX_TIME) {
            return Err(PomError::invalid(
                "dt",
                format!("{} must be a positive time step in s of at most {MAX_TIME:e}, e.g. 0.05", compact(self.dt)),
            ));
        }
        match self.mode {
            Mode::Forward => self.forward_frames(&model, None).map(|_| ()),
            Mode::Inverse | Mode::Lateral => {
                if self.mode == Mode::Lateral && !model.effectors().iter().any(|e| e.drive) {
                    return Err(PomError::invalid(
                        "effectors",
                        "lateral mode needs driven effectors: set `\"drive\": true` on those the targets move",
                    ));
                }
                self.target_frames(&model).map(|_| ())
            }
            Mode::Gait => self.tripod(&model).map(|_| ()),
        }?;
        if let Some(r) = &self.render {
            let ok = r.exaggerate.is_finite()
                && r.exaggerate >= 0.0
                && (1..=240).contains(&r.fps)
                && r.size.iter().all(|&s| s > 0 && s % 2 == 0 && s <= crate::limits::MAX_FRAME_SIDE as _)
                && !r.views.is_empty();
            if !ok {
                return Err(PomError::invalid(
                    "render",
                    "needs at least one view, exaggerate ≥ 0, fps in 1–240 and an even positive size of at most 16384 each way, e.g. [1280, 720]",
                ));
            }
        }
        Ok(())
    }

    /// The lattice, controls and effectors resolved and checked (spec §7 refusals).
    pub fn model(&self) -> Result<Model, PomError> {
        let l = &self.lattice;
        let mut layers = Vec::new();
        for k in 0..l.layers.len() {
            let Some(rows) = l.layers.get(&format!("z{k}")) else {
                let keys: Vec<&str> = l.layers.keys().map(String::as_str).collect();
                return Err(PomError::invalid(
                    "lattice.layers",
                    format!(
                        "keys {} must be z0, z1, … without gaps (z{k} is missing), one per layer from the bottom",
                        keys.join(", ")
                    ),
                ));
            };
            layers.push(rows.clone());
        }
        let lattice = Lattice::from_layers(l.pitch, &layers)?;
        model::ids(l.extensions.iter().map(|e| e.id.as_str()), "lattice.extensions")?;
        for (i, e) in l.extensions.iter().enumerate() {
            model::node_ref(&lattice, &format!("lattice.extensions[{i}].attach"), e.attach)?;
            if !e.offset.iter().all(|v| v.is_finite() && v.abs() <= MAX_LENGTH) {
                return Err(PomError::invalid(
                    format!("lattice.extensions[{i}].offset"),
                    format!("each component must be a finite length in m within ±{MAX_LENGTH}"),
                ));
            }
        }
        let controls = self
            .controls
            .iter()
            .map(|c| Control {
                id: c.id.clone(),
                at: NodeRef { voxel: c.voxel, node: c.node },
                push: c.push.into(),
                partner: c.partner,
                range: c.range,
            })
            .collect();
        let mut effectors = Vec::new();
        for (i, e) in self.effectors.iter().enumerate() {
            let path = format!("effectors[{i}]");
            let (at, offset) = match (&e.extension, e.voxel, e.node) {
                (Some(x), None, None) => {
                    let Some(ext) = l.extensions.iter().find(|ext| &ext.id == x) else {
                        let known: Vec<&str> = l.extensions.iter().map(|e| e.id.as_str()).collect();
                        return Err(PomError::invalid(
                            format!("{path}.extension"),
                            format!("no extension {x:?}: define it in `lattice.extensions` (known: {})", list(&known)),
                        ));
                    };
                    (ext.attach, ext.offset)
                }
                (None, Some(voxel), Some(node)) => (NodeRef { voxel, node }, [0.0; 3]),
                _ => {
                    return Err(PomError::invalid(
                        path,
                        "give either `voxel` and `node`, or `extension` (the id of an entry of `lattice.extensions`)",
                    ))
                }
            };
            effectors.push(Effector {
                id: e.id.clone(),
                at,
                offset,
                extension: e.extension.clone(),
                role: e.role,
                drive: e.drive,
            });
        }
        Model::new(lattice, controls, effectors, l.mass_voxels.clone())
    }

    /// The effector targets as frames over J's rows (`inverse`, `lateral`).
    pub(crate) fn target_frames(&self, model: &Model) -> Result<Vec<Frame>, PomError> {
        let Some(targets) = &self.targets else {
            return Err(PomError::invalid(
                "targets",
                "this mode needs a `targets` block: {\"keyframes\": [{\"t\": 0, \"<effector id>\": [x, y, z]}, …]}",
            ));
        };
        let mut frames = Vec::new();
        for (f, kf) in targets.keyframes.iter().enumerate() {
            let mut values = vec![None; model.rows()];
            for (id, xyz) in &kf.values {
                let path = format!("targets.keyframes[{f}].{id}");
                let Some(row) = model.row_of(id, 0) else {
                    let known: Vec<&str> = model.effectors().iter().map(|e| e.id.as_str()).collect();
                    return Err(PomError::invalid(path, format!("no effector {id:?}: use one of {}", list(&known))));
                };
                for (k, v) in xyz.iter().enumerate() {
                    values[row + k] = finite(*v, &format!("{path}[{k}]"))?;
                }
            }
            frames.push(Frame { t: kf.t, values });
        }
        self.check_times(&frames, "targets.keyframes")?;
        Ok(frames)
    }

    /// The control displacements for `forward`, as frames over the controls: from the CSV text when
    /// `forward.csv` names a file (read by the caller), else from `forward.keyframes`.
    pub(crate) fn forward_frames(&self, model: &Model, csv: Option<&str>) -> Result<Vec<Frame>, PomError> {
        let help = "this mode needs a `forward` block with either `csv` (a file `t,<control ids>`) or `keyframes`";
        let Some(fw) = &self.forward else { return Err(PomError::invalid("forward", help)) };
        match (&fw.csv, &fw.keyframes) {
            (Some(_), None) => match csv {
                Some(text) => parse_q_csv(model, text),
                None => Ok(Vec::new()),
            },
            (None, Some(keyframes)) => {
                let mut frames = Vec::new();
                for (f, kf) in keyframes.iter().enumerate() {
                    let mut values = vec![None; model.cols()];
                    for (id, q) in &kf.values {
                        let path = format!("forward.keyframes[{f}].{id}");
                        let Some(i) = model.control_index(id) else {
                            let known: Vec<&str> = model.controls().iter().map(|c| c.id.as_str()).collect();
                            return Err(PomError::invalid(
                                path,
                                format!("no control {id:?}: use one of {}", list(&known)),
                            ));
                        };
                        values[i] = finite(*q, &path)?;
                    }
                    frames.push(Frame { t: kf.t, values });
                }
                self.check_times(&frames, "forward.keyframes")?;
                Ok(frames)
            }
            _ => Err(PomError::invalid("forward", help)),
        }
    }

    /// The tripod planner of the `gait` block.
    pub fn tripod(&self, model: &Model) -> Result<TripodGait, PomError> {
        let Some(g) = &self.gait else {
            return Err(PomError::invalid(
                "gait",
                "this mode needs a `gait` block: {\"type\": \"tripod\", \"lift\": 0.004, \"stride\": 0.004, \"period\": 8, \"order\": [<front feet>]}",
            ));
        };
        let non_negative = |field: &str, v: f64, what: &str| {
            if v.is_finite() && v >= 0.0 && v <= MAX_LENGTH {
                Ok(())
            } else {
                Err(PomError::invalid(
                    format!("gait.{field}"),
                    format!("{} must be {what} of at most {MAX_LENGTH}", compact(v)),
                ))
            }
        };
        non_negative("lift", g.lift, "a height ≥ 0 in m")?;
        non_negative("stride", g.stride, "a length ≥ 0 in m")?;
        non_negative("ground_tol", g.ground_tol, "a tolerance ≥ 0 in m, e.g. 0.0001")?;
        if !(g.period.is_finite() && g.period > 0.0 && g.period <= MAX_TIME) {
            return Err(PomError::invalid(
                "gait.period",
                format!("{} must be a positive time in s of at most {MAX_TIME:e}", compact(g.period)),
            ));
        }
        if g.cycles == 0 {
            return Err(PomError::invalid("gait.cycles", "must be at least 1"));
        }
        if g.order.is_empty() {
            return Err(PomError::invalid("gait.order", "name at least one front foot (an effector with role `foot`)"));
        }
        let mut order = Vec::new();
        for (k, id) in g.order.iter().enumerate() {
            let path = format!("gait.order[{k}]");
            let feet: Vec<&str> =
                model.effectors().iter().filter(|e| e.role == Role::Foot).map(|e| e.id.as_str()).collect();
            match model.effectors().iter().position(|e| &e.id == id) {
                Some(j) if model.effectors()[j].role == Role::Foot && !order.contains(&j) => order.push(j),
                Some(j) if order.contains(&j) => {
                    return Err(PomError::invalid(
                        path,
                        format!("{id:?} is listed twice: each front foot swings once a cycle"),
                    ))
                }
                _ => {
                    return Err(PomError::invalid(path, format!("{id:?} is not a foot: use one of {}", list(&feet))));
                }
            }
        }
        let samples = g.period * f64::from(g.cycles) / self.dt;
        if samples > MAX_SAMPLES {
            return Err(PomError::invalid(
                "dt",
                format!(
                    "{} s gives {} samples, more than {MAX_SAMPLES:e}; use a larger step",
                    compact(self.dt),
                    compact(samples.round())
                ),
            ));
        }
        Ok(TripodGait {
            lift: g.lift,
            stride: g.stride,
            period: g.period,
            order,
            cycles: g.cycles,
            ground_tol: g.ground_tol,
        })
    }

    /// Keyframe times must be finite and strictly increasing, and not too many samples at `dt`.
    fn check_times(&self, frames: &[Frame], path: &str) -> Result<(), PomError> {
        if frames.is_empty() {
            return Err(PomError::invalid(path, "give at least one keyframe"));
        }
        for (f, w) in frames.iter().enumerate() {
            if !(w.t.is_finite() && w.t.abs() <= MAX_TIME) || (f > 0 && w.t <= frames[f - 1].t) {
                return Err(PomError::invalid(
                    format!("{path}[{f}].t"),
                    format!(
                        "{} must be a time in s within ±{MAX_TIME:e}, greater than the previous keyframe's",
                        compact(w.t)
                    ),
                ));
            }
        }
        let span = frames[frames.len() - 1].t - frames[0].t;
        if span / self.dt > MAX_SAMPLES {
            return Err(PomError::invalid(
                "dt",
                format!("{} s is too small for a {} s span; use a larger step", compact(self.dt), compact(span)),
            ));
        }
        Ok(())
    }
}

fn finite(v: Option<f64>, path: &str) -> Result<Option<f64>, PomError> {
    match v {
        Some(x) if !(x.is_finite() && x.abs() <= MAX_LENGTH) => Err(PomError::invalid(
            path,
            format!("{} must be a finite length in m within ±{MAX_LENGTH}, or null", compact(x)),
        )),
        v => Ok(v),
    }
}

fn list(items: &[&str]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
    }
}

/// Reads an actuator log `t,<control ids>` (m): every control must have a column, times must increase.
pub(crate) fn parse_q_csv(model: &Model, text: &str) -> Result<Vec<Frame>, PomError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(PomError::invalid("forward.csv", "the file is empty: write a header `t,<control ids>` and rows"));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    if names.first() != Some(&"t") {
        return Err(PomError::invalid("forward.csv line 1", "the first column must be `t` (time in s)"));
    }
    let mut columns = vec![None; model.cols()];
    for (c, name) in names.iter().enumerate().skip(1) {
        match model.control_index(name) {
            Some(i) if columns[i].is_none() => columns[i] = Some(c),
            _ => {
                let known: Vec<&str> = model.controls().iter().map(|c| c.id.as_str()).collect();
                return Err(PomError::invalid(
                    "forward.csv line 1",
                    format!("column {name:?} is not a control or is repeated: use each of {} once", list(&known)),
                ));
            }
        }
    }
    if let Some(i) = columns.iter().position(Option::is_none) {
        return Err(PomError::invalid(
            "forward.csv line 1",
            format!("no column for control {:?}: add it (0 if it did not move)", model.controls()[i].id),
        ));
    }
    let mut frames: Vec<Frame> = Vec::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let path = format!("forward.csv line {}", n + 1);
        let number = |c: usize| -> Result<f64, PomError> {
            cells
                .get(c)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|v| v.is_finite() && v.abs() <= if c == 0 { MAX_TIME } else { MAX_LENGTH })
                .ok_or_else(|| {
                    let what = if c == 0 { "a time in s within ±1e6" } else { "a length in m within ±1e3" };
                    PomError::invalid(path.clone(), format!("column {} must be {what}", c + 1))
                })
        };
        let t = number(0)?;
        if frames.last().is_some_and(|f| t <= f.t) {
            return Err(PomError::invalid(
                path,
                format!("time {} must be greater than the previous row's", compact(t)),
            ));
        }
        let values = columns.iter().map(|c| c.map(number).transpose()).collect::<Result<Vec<_>, _>>()?;
        frames.push(Frame { t, values });
    }
    if frames.is_empty() {
        return Err(PomError::invalid("forward.csv", "no data rows after the header"));
    }
    Ok(frames)
}
