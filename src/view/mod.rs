//! The interactive HTML viewer (`vsr2d view`): one self-contained page (its script, style and data
//! inline, no network) that replays runs side by side, one grid cell per run as in the videos, with play,
//! seek, zoom and pan, layer toggles and linked plots (docs/viewer.md).
//!
//! Sits on top of [`crate::movie`]: the runs are walked frame by frame by the same [`Movie`] the
//! videos come from, so every frame shows the snapshot, the follow camera's view and the overlay's Δx and
//! speed of the video's frame at the same time; the page's script only draws them. The numbers go into
//! the page compactly ([`encode`]): voxel masses as centre and angle (a mass is a rigid square), every
//! series rounded to a stated quantum, differenced along time, deflated and base64'd.
//!
//! Size rule: a page holds at most [`MAX_VALUES`] numbers; a longer or larger run keeps every n-th frame,
//! n the smallest that fits, and the page and [`PageStats::note`] say so.

pub mod encode;

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::geom::Vec2;
use crate::model::cell::connector::ConnectorState;
use crate::movie::{Movie, MovieError, MovieSettings, MovieSource};
use crate::render::{style_json, CellFrame, CellView};
use crate::snapshot::{BodySnapshot, CellSnapshot, Snapshot, VoxelRobotSnapshot};

use encode::{Blob, Channel};

/// The most numbers a page holds (about 8 MB of page for noisy data, far less for smooth motion):
/// beyond it every n-th frame is kept.
pub const MAX_VALUES: usize = 12_000_000;

/// Quanta of the stored series (positions have their own per-run quantum, see [`position_quantum`]).
const Q_TIME: f64 = 1.0 / 1_048_576.0;
const Q_RATIO: f64 = 1.0 / 2048.0;
const Q_SIGNAL: f64 = 1.0 / 4096.0;
const Q_ANGLE: f64 = 1.0 / 1024.0;
const Q_SPEED: f64 = 1.0 / 4096.0;

/// Why a page could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error(transparent)]
    Movie(#[from] MovieError),
    #[error(
        "run `{run}` changes shape at t = {t} s ({what}); the viewer needs the bodies of a run to keep their \
         voxels, membrane bodies, connectors, muscles, springs and ropes"
    )]
    ShapeChanged { run: String, t: f64, what: String },
    #[error("the viewer template failed: {0}")]
    Template(#[from] minijinja::Error),
}

impl ViewError {
    /// Whether the caller's input is at fault (a scenario or recording) rather than the run.
    pub fn is_input(&self) -> bool {
        match self {
            ViewError::Movie(e) => e.is_input(),
            ViewError::ShapeChanged { .. } => true,
            ViewError::Template(_) => false,
        }
    }
}

/// How a page looks: the movie's settings (frame size, fps, layout, cameras, the initial layers) and a title.
#[derive(Debug, Clone)]
pub struct ViewSettings {
    pub movie: MovieSettings,
    pub title: String,
    /// At most this many numbers ([`MAX_VALUES`] by default).
    pub max_values: usize,
}

impl Default for ViewSettings {
    fn default() -> Self {
        ViewSettings { movie: MovieSettings::default(), title: "vsr2d viewer".into(), max_values: MAX_VALUES }
    }
}

/// What a page holds, for the command's summary and the tests.
#[derive(Debug, Clone, Serialize)]
pub struct PageStats {
    /// Frames of the movie at the asked frame rate, and how many the page keeps (every `keep_every`-th).
    pub movie_frames: u64,
    pub frames: usize,
    pub keep_every: u64,
    /// Frames per simulated second in the page.
    pub fps: f64,
    /// Numbers stored, their varint bytes before deflate, and the page's size in bytes.
    pub values: usize,
    pub raw_bytes: usize,
    pub page_bytes: usize,
}

impl PageStats {
    /// The downsampling note, if frames were dropped.
    pub fn note(&self) -> Option<String> {
        (self.keep_every > 1).then(|| {
            format!(
                "the page keeps 1 frame in {} of {} ({} fps): all of them would be more than {} numbers",
                self.keep_every,
                self.movie_frames,
                crate::geom::compact(self.fps),
                crate::geom::compact(MAX_VALUES as f64)
            )
        })
    }
}

/// A finished page.
#[derive(Debug, Clone)]
pub struct Page {
    pub html: String,
    pub stats: PageStats,
}

/// 2^⌊log₂(d/500)⌋ m, d the smallest mass side or membrane body diameter of the first snapshot (2 mm
/// without either): positions are kept to a 500th of the smallest part drawn.
pub(crate) fn position_quantum(snapshot: &Snapshot) -> f64 {
    let mut d = f64::INFINITY;
    for body in &snapshot.bodies {
        match body {
            BodySnapshot::VoxelRobot(r) => {
                for m in r.voxels.iter().flat_map(|v| &v.masses) {
                    d = d.min((m[1] - m[0]).length());
                }
            }
            BodySnapshot::Cell(c) => d = d.min(2.0 * c.body_radius),
            // Objects are drawn at the quantum of the smallest robot part or cell body.
            BodySnapshot::Object(_) => {}
        }
    }
    let d = if d.is_finite() && d > 0.0 { d } else { 1.0 };
    (d / 500.0).log2().floor().exp2()
}

/// A voxel's mass square as (centre, angle of its first edge, half side): its vertices are
/// centre + R(angle)·(∓h, ∓h) in the snapshot's order SW, SE, NE, NW of the square.
fn mass_pose(m: &[Vec2; 4]) -> (Vec2, f64, f64) {
    let c = (m[0] + m[1] + m[2] + m[3]) * 0.25;
    let e = m[1] - m[0];
    (c, e.y.atan2(e.x), e.length() * 0.5)
}

/// The series of one voxel robot.
struct RobotSeries {
    /// Position quantum.
    qp: f64,
    /// Per frame, per mass (voxel-major): centre x, y and angle, exact; clustered and quantised at the end.
    poses: Vec<[f64; 3]>,
    masses: usize,
    area_ratio: Channel,
    control: Channel,
    /// Per voxel: vx, vy.
    velocity: Channel,
    angle: Channel,
    /// Per voxel: x_rot_velocity, y_rot_velocity.
    rot_velocity: Channel,
    /// Which of the sensors' angle definitions the recorded angles follow in every frame so far (the
    /// page then computes angle and rotated velocities itself); `None`: neither, they are stored.
    angle_rule: Option<AngleRule>,
    touching: Channel,
    springs: Option<Points>,
    ropes: Option<(Points, Channel)>,
    welds: Option<Points>,
    controller: Option<(Channel, Channel)>,
}

/// The two definitions of a voxel's angle in [`crate::model::voxel::sensors`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum AngleRule {
    Standard,
    Legacy,
}

/// Coarser than the overlay's speeds: a voxel's velocity only colours it (256 levels over ±1.5·l m/s)
/// and draws its arrow.
const Q_VOXEL_SPEED: f64 = 1.0 / 32.0;

/// Wraps an angle difference into (−π, π].
fn wrap(a: f64) -> f64 {
    let t = std::f64::consts::TAU;
    let w = a - t * (a / t).round();
    if w <= -std::f64::consts::PI {
        w + t
    } else {
        w
    }
}

impl RobotSeries {
    fn new(r: &VoxelRobotSnapshot, qp: f64) -> RobotSeries {
        let n = r.voxels.len();
        RobotSeries {
            qp,
            poses: Vec::new(),
            masses: 4 * n,
            area_ratio: Channel::new(n, Q_RATIO),
            control: Channel::new(n, Q_SIGNAL),
            velocity: Channel::new(2 * n, Q_VOXEL_SPEED),
            angle: Channel::new(n, Q_ANGLE),
            rot_velocity: Channel::new(2 * n, Q_VOXEL_SPEED),
            angle_rule: [AngleRule::Standard, AngleRule::Legacy].into_iter().find(|&rule| follows(r, rule)),
            touching: Channel::new(n, 1.0),
            springs: r.springs.as_ref().map(|s| Points::new(2 * s.len())),
            ropes: r.ropes.as_ref().map(|s| (Points::new(2 * s.len()), Channel::new(s.len(), 1.0))),
            welds: r.welds.as_ref().map(|s| Points::new(2 * s.len())),
            controller: r
                .controller
                .as_ref()
                .map(|c| (Channel::new(c.inputs.len(), Q_SIGNAL), Channel::new(c.outputs.len(), Q_SIGNAL))),
        }
    }

    /// Appends the robot's frame; `Err` names what changed shape.
    fn push(&mut self, r: &VoxelRobotSnapshot) -> Result<(), String> {
        if r.voxels.len() * 4 != self.masses {
            return Err(format!("robot `{}` has {} voxels", r.label, r.voxels.len()));
        }
        let same = |c: Option<usize>, have: Option<usize>, what: &str| match (c, have) {
            (Some(a), Some(b)) if a == b => Ok(()),
            (None, None) => Ok(()),
            _ => Err(format!("robot `{}`'s {what} changed", r.label)),
        };
        same(self.springs.as_ref().map(|c| c.cols() / 4), r.springs.as_ref().map(Vec::len), "springs")?;
        same(self.ropes.as_ref().map(|c| c.1.cols()), r.ropes.as_ref().map(Vec::len), "ropes")?;
        same(self.welds.as_ref().map(|c| c.cols() / 4), r.welds.as_ref().map(Vec::len), "welds")?;
        self.poses.extend(r.voxels.iter().flat_map(|v| v.masses.iter()).map(|m| {
            let (c, a, _) = mass_pose(m);
            [c.x, c.y, a]
        }));
        if self.angle_rule.is_some_and(|rule| !follows(r, rule)) {
            self.angle_rule = None;
        }
        self.area_ratio.push_row(r.voxels.iter().map(|v| v.area_ratio));
        self.control.push_row(r.voxels.iter().map(|v| v.control));
        self.velocity.push_row(r.voxels.iter().flat_map(|v| [v.velocity.x, v.velocity.y]));
        self.angle.push_row(r.voxels.iter().map(|v| v.sensors.angle));
        self.rot_velocity.push_row(r.voxels.iter().flat_map(|v| [v.sensors.x_rot_velocity, v.sensors.y_rot_velocity]));
        self.touching.push_row(r.voxels.iter().map(|v| f64::from(u8::from(v.touching))));
        if let (Some(ch), Some(s)) = (self.springs.as_mut(), r.springs.as_ref()) {
            ch.push_row(s.iter().flat_map(|s| [s.a.x, s.a.y, s.b.x, s.b.y]));
        }
        if let (Some((ch, active)), Some(s)) = (self.ropes.as_mut(), r.ropes.as_ref()) {
            ch.push_row(s.iter().flat_map(|s| [s.a.x, s.a.y, s.b.x, s.b.y]));
            active.push_row(s.iter().map(|s| f64::from(u8::from(s.active))));
        }
        if let (Some(ch), Some(w)) = (self.welds.as_mut(), r.welds.as_ref()) {
            ch.push_row(w.iter().flat_map(|[a, b]| [a.x, a.y, b.x, b.y]));
        }
        if let (Some((i, o)), Some(c)) = (self.controller.as_mut(), r.controller.as_ref()) {
            i.push_row(c.inputs.iter().copied());
            o.push_row(c.outputs.iter().copied());
        }
        Ok(())
    }

    fn values_per_frame(&self) -> usize {
        let mut n = 3 * self.masses + self.area_ratio.cols() * 5 + self.velocity.cols() * 2;
        n += self.springs.as_ref().map_or(0, Points::cols);
        n += self.ropes.as_ref().map_or(0, |(a, b)| a.cols() + b.cols());
        n += self.welds.as_ref().map_or(0, Points::cols);
        n + self.controller.as_ref().map_or(0, |(a, b)| a.cols() + b.cols())
    }

    /// Groups the masses into rigid clusters (welded masses are one rigid body in the engine): a mass
    /// whose centre and angle stay fixed, within a quarter quantum, in the frame of an earlier cluster's
    /// first mass through every frame is stored as that offset. Returns, per mass, (its cluster's first
    /// mass, offset x, offset y, angle offset), and the clusters' first masses in order.
    fn clusters(&self) -> (Vec<(usize, [f64; 3])>, Vec<usize>) {
        let (n, tol) = (self.masses, self.qp * 0.25);
        let frames = self.poses.len() / n.max(1);
        let local = |r: usize, m: usize, f: usize| {
            let (a, b) = (self.poses[f * n + r], self.poses[f * n + m]);
            let (s, c) = a[2].sin_cos();
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            [c * dx + s * dy, -s * dx + c * dy, wrap(b[2] - a[2])]
        };
        let mut of = Vec::with_capacity(n);
        let mut firsts: Vec<usize> = Vec::new();
        for m in 0..n {
            let found = firsts.iter().find_map(|&r| {
                let at0 = local(r, m, 0);
                (0..frames)
                    .all(|f| {
                        let l = local(r, m, f);
                        (l[0] - at0[0]).abs() < tol
                            && (l[1] - at0[1]).abs() < tol
                            && wrap(l[2] - at0[2]).abs() < tol * 0.25
                    })
                    .then_some((r, at0))
            });
            match found {
                Some(x) => of.push(x),
                None => {
                    of.push((m, [0.0; 3]));
                    firsts.push(m);
                }
            }
        }
        (of, firsts)
    }

    fn finish(self, r: &VoxelRobotSnapshot, blob: &mut Blob) -> Value {
        let groups: Option<Vec<_>> = r.springs.as_ref().map(|s| s.iter().map(|s| s.group).collect());
        let half: Vec<f64> =
            r.voxels.iter().flat_map(|v| v.masses.iter().map(|m| (mass_pose(m).2 * 1e7).round() / 1e7)).collect();
        let (of, firsts) = self.clusters();
        let index: HashMap<usize, usize> = firsts.iter().enumerate().map(|(i, &m)| (m, i)).collect();
        // Angles half a quantum fine: an offset of up to two metres turned by the angle's rounding
        // still lands within half a quantum.
        let (mut centres, mut angles) =
            (Channel::new(2 * firsts.len(), self.qp), Channel::new(firsts.len(), self.qp * 0.5));
        for frame in self.poses.chunks(self.masses.max(1)) {
            centres.push_row(firsts.iter().flat_map(|&m| [frame[m][0], frame[m][1]]));
            angles.push_row(firsts.iter().map(|&m| frame[m][2]));
        }
        let round = |x: f64| (x * 1e7).round() / 1e7;
        let mass_of: Vec<Value> =
            of.iter().map(|(r, o)| json!([index[r], round(o[0]), round(o[1]), round(o[2])])).collect();
        let stored = self.angle_rule.is_none();
        json!({
            "label": r.label,
            "grid": r.grid,
            "cells": r.voxels.iter().map(|v| v.cell).collect::<Vec<_>>(),
            "materials": r.materials,
            "material": r.voxels.iter().map(|v| v.material).collect::<Vec<_>>(),
            "mass_half": half,
            "mass_of": mass_of,
            "cluster_centres": blob.add(&centres),
            "cluster_angles": blob.add(&angles),
            "area_ratio": blob.add(&self.area_ratio),
            "control": blob.add(&self.control),
            "velocity": blob.add(&self.velocity),
            "angle_rule": self.angle_rule,
            "angle": stored.then(|| blob.add(&self.angle)),
            "rot_velocity": stored.then(|| blob.add(&self.rot_velocity)),
            "touching": blob.add(&self.touching),
            "springs": self.springs.map(|p| p.finish(&self.poses, &half, self.qp, blob)),
            "spring_groups": groups,
            "ropes": self.ropes.as_ref().map(|(p, _)| p.finish(&self.poses, &half, self.qp, blob)),
            "rope_active": self.ropes.as_ref().map(|(_, a)| blob.add(a)),
            "welds": self.welds.map(|p| p.finish(&self.poses, &half, self.qp, blob)),
            "controller_inputs": self.controller.as_ref().map(|(i, _)| blob.add(i)),
            "controller_outputs": self.controller.as_ref().map(|(_, o)| blob.add(o)),
        })
    }
}

/// End points of segments (springs, ropes, welds) in every frame, exact until [`Points::finish`]: a
/// segment's end sits at a fixed place on one mass (a corner, a centre), so where every point stays fixed,
/// within a quarter quantum, in the frame of a mass near it, the page gets that mass and the place and
/// computes the point itself; otherwise the points are stored like any series.
struct Points {
    cols: usize,
    raw: Vec<f64>,
}

impl Points {
    /// `points` points (two per segment).
    fn new(points: usize) -> Points {
        Points { cols: 2 * points, raw: Vec::new() }
    }

    fn cols(&self) -> usize {
        self.cols
    }

    fn push_row(&mut self, row: impl IntoIterator<Item = f64>) {
        let start = self.raw.len();
        self.raw.extend(row.into_iter().take(self.cols));
        self.raw.resize(start + self.cols, f64::NAN);
    }

    /// Per point, (mass, x, y in the mass's frame), if every point has such an anchor.
    fn anchors(&self, poses: &[[f64; 3]], half: &[f64], qp: f64) -> Option<Vec<[f64; 3]>> {
        let masses = half.len();
        let frames = self.raw.len() / self.cols.max(1);
        if masses == 0 || frames == 0 || poses.len() != masses * frames {
            return None;
        }
        let tol = qp * 0.25;
        let local = |m: usize, j: usize, f: usize| {
            let pose = poses[f * masses + m];
            let (x, y) = (self.raw[f * self.cols + 2 * j], self.raw[f * self.cols + 2 * j + 1]);
            let (s, c) = pose[2].sin_cos();
            let (dx, dy) = (x - pose[0], y - pose[1]);
            [c * dx + s * dy, -s * dx + c * dy]
        };
        (0..self.cols / 2)
            .map(|j| {
                (0..masses).find_map(|m| {
                    let at0 = local(m, j, 0);
                    // NaN is not inside either.
                    let inside = at0[0].hypot(at0[1]) <= half[m] * std::f64::consts::SQRT_2 + qp;
                    if !inside {
                        return None;
                    }
                    (1..frames)
                        .all(|f| {
                            let l = local(m, j, f);
                            (l[0] - at0[0]).abs() < tol && (l[1] - at0[1]).abs() < tol
                        })
                        .then_some([m as f64, (at0[0] * 1e7).round() / 1e7, (at0[1] * 1e7).round() / 1e7])
                })
            })
            .collect()
    }

    fn finish(&self, poses: &[[f64; 3]], half: &[f64], qp: f64, blob: &mut Blob) -> Value {
        match self.anchors(poses, half, qp) {
            Some(anchors) => json!({ "anchors": anchors }),
            None => {
                let mut channel = Channel::new(self.cols, qp);
                for row in self.raw.chunks(self.cols.max(1)) {
                    channel.push_row(row.iter().copied());
                }
                json!({ "channel": blob.add(&channel) })
            }
        }
    }
}

/// Whether every voxel's recorded angle is `rule`'s angle of its mass centres (to 1e−9 rad).
fn follows(r: &VoxelRobotSnapshot, rule: AngleRule) -> bool {
    use crate::model::voxel::sensors::{legacy_voxel_angle, voxel_angle};
    r.voxels.iter().all(|v| {
        let centres = v.masses.map(|m| mass_pose(&m).0);
        let a = match rule {
            AngleRule::Standard => voxel_angle(&centres),
            AngleRule::Legacy => legacy_voxel_angle(&centres),
        };
        (a - v.sensors.angle).abs() < 1e-9
    })
}

/// The series of one soft cell; pairs and links change in number, so they are kept as the frames where
/// the list changes.
struct CellSeries {
    bodies: Channel,
    area_ratio: Channel,
    connector_state: Channel,
    /// Per muscle: rest length, length.
    muscles: Channel,
    pairs: Vec<(usize, Vec<[usize; 4]>)>,
    links: Vec<(usize, Vec<[usize; 4]>)>,
}

/// A connector state as the number the page reads (0 inactive, 1 passive, 2 active).
fn state_code(s: ConnectorState) -> f64 {
    match s {
        ConnectorState::Inactive => 0.0,
        ConnectorState::Passive => 1.0,
        ConnectorState::Active => 2.0,
    }
}

impl CellSeries {
    fn new(c: &CellSnapshot, qp: f64) -> CellSeries {
        CellSeries {
            bodies: Channel::new(2 * c.bodies.len(), qp),
            area_ratio: Channel::new(1, Q_RATIO),
            connector_state: Channel::new(c.connectors.len(), 1.0),
            muscles: Channel::new(2 * c.muscles.len(), qp),
            pairs: Vec::new(),
            links: Vec::new(),
        }
    }

    /// `cells` indexes every cell of the snapshot by label, for the other ends of pairs and links.
    fn push(
        &mut self,
        frame: usize,
        c: &CellSnapshot,
        cells: &HashMap<&str, &CellSnapshot>,
        index: &HashMap<&str, usize>,
    ) -> Result<(), String> {
        if 2 * c.bodies.len() != self.bodies.cols()
            || c.connectors.len() != self.connector_state.cols()
            || 2 * c.muscles.len() != self.muscles.cols()
        {
            return Err(format!("cell `{}` changed its bodies, connectors or muscles", c.label));
        }
        self.bodies.push_row(c.bodies.iter().flat_map(|b| [b.x, b.y]));
        self.area_ratio.push_row([c.area_ratio]);
        self.connector_state.push_row(c.connectors.iter().map(|k| state_code(k.state)));
        self.muscles.push_row(c.muscles.iter().flat_map(|m| [m.rest_length, m.length]));
        let own = index.get(c.label.as_str()).copied().unwrap_or(usize::MAX);
        let connector = |cell: &str, id: &str| {
            let other = cells.get(cell)?;
            Some((index.get(cell).copied()?, other.connectors.iter().position(|k| k.id == id)?))
        };
        let pairs: Vec<[usize; 4]> = c
            .pairs
            .iter()
            .filter_map(|p| {
                let (_, a) = connector(&c.label, &p.connector)?;
                let (j, b) = connector(&p.other_cell, &p.other_connector)?;
                Some([own, c.connectors[a].body, j, cells[p.other_cell.as_str()].connectors[b].body])
            })
            .collect();
        let links: Vec<[usize; 4]> = c
            .links
            .iter()
            .filter_map(|l| Some([own, l.body, index.get(l.other_cell.as_str()).copied()?, l.other_body]))
            .collect();
        for (list, now) in [(&mut self.pairs, pairs), (&mut self.links, links)] {
            if list.last().is_none_or(|(_, last)| *last != now) {
                list.push((frame, now));
            }
        }
        Ok(())
    }

    fn values_per_frame(&self) -> usize {
        self.bodies.cols() + 1 + self.connector_state.cols() + self.muscles.cols()
    }

    fn finish(self, c: &CellSnapshot, blob: &mut Blob) -> Value {
        json!({
            "label": c.label,
            "cell_type": c.cell_type,
            "body_radius": c.body_radius,
            "bodies": blob.add(&self.bodies),
            "area_ratio": blob.add(&self.area_ratio),
            "connectors": c.connectors.iter().map(|k| json!({"id": k.id, "body": k.body, "radius": k.radius, "type_index": k.type_index})).collect::<Vec<_>>(),
            "connector_state": blob.add(&self.connector_state),
            "muscles": c.muscles.iter().map(|m| json!({"id": m.id, "from": m.from, "to": m.to})).collect::<Vec<_>>(),
            "muscle_lengths": blob.add(&self.muscles),
            "pairs": self.pairs,
            "links": self.links,
        })
    }
}

/// Everything stored of one source (run).
struct RunSeries {
    name: String,
    first: Snapshot,
    t: Channel,
    robots: Vec<RobotSeries>,
    cells: Vec<CellSeries>,
    /// Per moving object, its outline's corners (x, y) in every frame; fixed objects are drawn with the
    /// terrain, from the first snapshot.
    objects: Vec<Channel>,
}

/// The objects that move (fixed ones are scenery like the terrain).
fn moving_objects(s: &Snapshot) -> impl Iterator<Item = &crate::snapshot::ObjectSnapshot> {
    s.objects().filter(|o| o.motion != crate::model::object::ObjectMotion::Fixed)
}

impl RunSeries {
    fn new(name: String, s: &Snapshot) -> RunSeries {
        let qp = position_quantum(s);
        RunSeries {
            name,
            first: s.clone(),
            t: Channel::new(1, Q_TIME),
            robots: s.voxel_robots().map(|r| RobotSeries::new(r, qp)).collect(),
            cells: s.cells().map(|c| CellSeries::new(c, qp)).collect(),
            objects: moving_objects(s).map(|o| Channel::new(2 * o.outline.len(), qp)).collect(),
        }
    }

    fn push(&mut self, frame: usize, s: &Snapshot) -> Result<(), ViewError> {
        let changed = |what: String| ViewError::ShapeChanged { run: self.name.clone(), t: s.t, what };
        if s.voxel_robots().count() != self.robots.len()
            || s.cells().count() != self.cells.len()
            || moving_objects(s).count() != self.objects.len()
        {
            return Err(changed("bodies came or went".into()));
        }
        for (series, o) in self.objects.iter_mut().zip(moving_objects(s)) {
            series.push_row(o.outline.iter().flat_map(|p| [p.x, p.y]));
        }
        self.t.push_row([s.t]);
        for (series, r) in self.robots.iter_mut().zip(s.voxel_robots()) {
            series.push(r).map_err(changed)?;
        }
        let by_label: HashMap<&str, &CellSnapshot> = s.cells().map(|c| (c.label.as_str(), c)).collect();
        let index: HashMap<&str, usize> = s.cells().enumerate().map(|(i, c)| (c.label.as_str(), i)).collect();
        for (series, c) in self.cells.iter_mut().zip(s.cells()) {
            series.push(frame, c, &by_label, &index).map_err(changed)?;
        }
        Ok(())
    }

    fn values_per_frame(&self) -> usize {
        1 + self.robots.iter().map(RobotSeries::values_per_frame).sum::<usize>()
            + self.cells.iter().map(CellSeries::values_per_frame).sum::<usize>()
            + self.objects.iter().map(Channel::cols).sum::<usize>()
    }

    fn finish(self, blob: &mut Blob) -> Value {
        let qp = position_quantum(&self.first);
        let mut polygon = |p: &crate::geom::Polygon| {
            let mut c = Channel::new(2 * p.len(), qp);
            c.push_row(p.iter().flat_map(|v| [v.x, v.y]));
            blob.add(&c)
        };
        let terrain = self.first.terrain.as_deref().map(&mut polygon);
        let fixed = self.first.objects().filter(|o| o.motion == crate::model::object::ObjectMotion::Fixed);
        let outlines: Vec<&crate::geom::Polygon> =
            self.first.statics.iter().map(|p| &**p).chain(fixed.map(|o| &o.outline)).collect();
        let statics: Vec<usize> = outlines.into_iter().map(&mut polygon).collect();
        let labels: Vec<String> = moving_objects(&self.first).map(|o| o.label.clone()).collect();
        let objects: Vec<Value> =
            self.objects.iter().zip(labels).map(|(c, label)| json!({"label": label, "outline": blob.add(c)})).collect();
        let t = blob.add(&self.t);
        let robots: Vec<Value> =
            self.robots.into_iter().zip(self.first.voxel_robots()).map(|(s, r)| s.finish(r, blob)).collect();
        let cells: Vec<Value> =
            self.cells.into_iter().zip(self.first.cells()).map(|(s, c)| s.finish(c, blob)).collect();
        json!({"name": self.name, "t": t, "terrain": terrain, "statics": statics, "objects": objects, "robots": robots, "cells": cells, "position_quantum": qp})
    }
}

/// The per-frame series of one grid cell: the camera's view, the framed centre's x and the overlay's
/// Δx and speed (NaN where the video prints none).
struct CellTrack {
    view: Channel,
    x: Channel,
    progress: Channel,
}

/// Walks the sources through a [`Movie`] and writes the page.
pub fn build_page(sources: Vec<MovieSource>, settings: &ViewSettings) -> Result<Page, ViewError> {
    build_page_while(sources, settings, &|| true)
}

/// [`build_page`] that asks `keep_going` before each frame and stops with [`MovieError::Stopped`] when
/// it says no (Ctrl-C in Python).
pub(crate) fn build_page_while(
    sources: Vec<MovieSource>,
    settings: &ViewSettings,
    keep_going: &dyn Fn() -> bool,
) -> Result<Page, ViewError> {
    let mut movie = Movie::new(sources, &settings.movie)?;
    let cells = movie.cells();
    let movie_frames = movie.frame_count();
    let fps = movie.fps();
    let sources = cells.iter().map(|c| c.source).max().map_or(0, |m| m + 1);
    // The first cell showing each source.
    let first_cell: Vec<usize> = (0..sources).map(|s| cells.iter().position(|c| c.source == s).unwrap_or(0)).collect();
    let mut runs: Vec<RunSeries> = Vec::new();
    let mut tracks: Vec<CellTrack> = Vec::new();
    let mut keep_every = 1u64;
    let mut kept = 0usize;
    let mut failure: Option<ViewError> = None;
    let mut visit = |k: u64, frames: &[CellFrame<'_>], views: &[CellView]| -> Result<(), MovieError> {
        if !keep_going() {
            return Err(MovieError::Stopped { frame: k });
        }
        if failure.is_some() {
            return Ok(());
        }
        if k == 0 {
            runs =
                first_cell.iter().map(|&c| RunSeries::new(cells[c].source_name.clone(), frames[c].snapshot)).collect();
            let qp: Vec<f64> = cells.iter().map(|c| position_quantum(frames[first_cell[c.source]].snapshot)).collect();
            tracks = qp
                .iter()
                .map(|&q| CellTrack {
                    view: Channel::new(4, q),
                    x: Channel::new(1, q),
                    progress: Channel::new(2, Q_SPEED),
                })
                .collect();
            let per_frame = runs.iter().map(RunSeries::values_per_frame).sum::<usize>() + 7 * cells.len();
            // The smallest n whose ⌈frames / n⌉ kept frames hold at most max_values numbers.
            let max = settings.max_values.max(1) as u128;
            let (per_frame, frames) = (per_frame.max(1) as u128, u128::from(movie_frames));
            let mut n = (per_frame * frames).div_ceil(max).max(1);
            while n < frames && per_frame * frames.div_ceil(n) > max {
                n += 1;
            }
            keep_every = u64::try_from(n).unwrap_or(u64::MAX);
        }
        if k % keep_every != 0 {
            return Ok(());
        }
        for (s, run) in runs.iter_mut().enumerate() {
            if let Err(e) = run.push(kept, frames[first_cell[s]].snapshot) {
                failure = Some(e);
                return Ok(());
            }
        }
        for (track, v) in tracks.iter_mut().zip(views) {
            track.view.push_row([v.view.min.x, v.view.min.y, v.view.max.x, v.view.max.y]);
            track.x.push_row([v.centre.x]);
            let (dx, speed) = v.progress.map_or((f64::NAN, None), |(d, s)| (d, s));
            track.progress.push_row([dx, speed.unwrap_or(f64::NAN)]);
        }
        kept += 1;
        Ok(())
    };
    movie.replay(&mut visit)?;
    if let Some(e) = failure {
        return Err(e);
    }
    let values = runs.iter().map(|r| r.values_per_frame()).sum::<usize>() * kept + 7 * cells.len() * kept;
    let mut blob = Blob::default();
    let runs: Vec<Value> = runs.into_iter().map(|r| r.finish(&mut blob)).collect();
    let grid: Vec<Value> = cells
        .iter()
        .zip(tracks)
        .map(|(c, t)| {
            json!({
                "run": c.source,
                "label": c.label,
                "rect": [c.rect.x, c.rect.y, c.rect.width, c.rect.height],
                "view": blob.add(&t.view),
                "x": blob.add(&t.x),
                "progress": blob.add(&t.progress),
            })
        })
        .collect();
    let (width, height) = movie.size();
    let page_fps = fps / keep_every as f64;
    let mut stats = PageStats {
        movie_frames,
        frames: kept,
        keep_every,
        fps: page_fps,
        values,
        raw_bytes: blob.raw_len(),
        page_bytes: 0,
    };
    let o = &settings.movie.options;
    let data = json!({
        "version": 1,
        "title": settings.title,
        "width": width,
        "height": height,
        "fps": page_fps,
        "frames": kept,
        "note": stats.note(),
        "style": style_json(),
        "options": {
            "color_by": o.color_by.id(),
            "area_ratio_range": o.area_ratio_range,
            "voxel_side": o.voxel_side,
            "masses": o.masses, "springs": o.springs, "ropes": o.ropes, "welds": o.welds,
            "sensor_values": o.sensor_values, "velocity_arrows": o.velocity_arrows,
            "touching_markers": o.touching_markers, "world_grid": o.world_grid, "text": o.text,
            "progress": o.progress, "legend": o.legend, "ground_ticks": o.ground_ticks, "materials": o.materials,
        },
        "fixed_view": settings.movie.fixed_view.map(|v| [v.min.x, v.min.y, v.max.x, v.max.y]),
        "runs": runs,
        "cells": grid,
        "channels": blob.channels,
    });
    let data = script_json(&data);
    let context = minijinja::context! {
        title => settings.title,
        // Safe to leave unescaped: `script_json` holds no `<`, `>` or `&`, and base64 only [A-Za-z0-9+/=].
        data => minijinja::Value::from_safe_string(data),
        blob => minijinja::Value::from_safe_string(blob.to_base64()),
    };
    let html = crate::output::template::render("viewer.html", TEMPLATE, context)?;
    stats.page_bytes = html.len();
    Ok(Page { html, stats })
}

/// `value` as JSON text that can stand inside a `<script>` element whatever its strings hold: `<`, `>` and
/// `&` become `\u003c`, `\u003e`, `\u0026`, so no `</script`, `<!--` or `<script` (whose "double escaped"
/// state would swallow the rest of the page) can appear, and U+2028/U+2029 become `\u2028`/`\u2029`
/// (line ends to JavaScript before ES2019). These characters occur only inside JSON strings, where the
/// escapes mean the same characters, so `JSON.parse` gives back exactly `value`.
pub fn script_json(value: &Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The page: style, markup and script, with the data filled in.
const TEMPLATE: &str = include_str!("../../templates/viewer.html");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_holds_no_markup_and_parses_back_to_the_same_value() {
        let hostile =
            ["<!--<script>", "</script><script>alert(1)</script>", "\"><img src=x>", "\u{2028}\u{2029}", "&amp;"];
        let value = json!({ "title": hostile, "<key>": { "a&b": "x" } });
        let text = script_json(&value);
        for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!text.contains(c), "{c:?} in {text}");
        }
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
}
