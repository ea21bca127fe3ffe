//! Immutable, engine-free snapshots of a simulation, and the listener trait that receives them.
//!
//! A snapshot is plain data (f64, vectors, strings): everything downstream of the physics (metrics,
//! recorders, renderers, reports) sees only this module, so it can be recorded to JSON Lines, rendered
//! later, or built by hand in tests without touching the engine. The bodies of a world are a closed set
//! of kinds ([`BodySnapshot`]): a consumer matches on the kind it draws or measures.

mod cell;
mod listener;
mod object;
mod progress;
mod voxel;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::geom::{Aabb, Polygon, Vec2};

pub use cell::{CellConnectorSnapshot, CellLinkSnapshot, CellMuscleSnapshot, CellPairSnapshot, CellSnapshot};
pub use listener::{Flow, ListenerError, SnapshotListener, SnapshotRecorder};
pub use object::ObjectSnapshot;
pub use progress::{ObjectState, Progress};
pub use voxel::{RopeSegment, SpringSegment, VoxelRobotSnapshot, VoxelSnapshot};

/// A body of a world: its index in creation order (serialised as that number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BodyId(pub usize);

impl BodyId {
    pub fn index(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for BodyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One body of a world, by kind. Serialised with a `"kind"` field; a body without one (recordings
/// made before there were kinds) is a voxel robot.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BodySnapshot {
    VoxelRobot(VoxelRobotSnapshot),
    Cell(CellSnapshot),
    Object(ObjectSnapshot),
}

/// What [`BodySnapshot`] is read from: the same variants, externally tagged (see [`crate::tagged`]); a
/// body without a `"kind"` is a voxel robot of an older recording.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum BodyWire {
    VoxelRobot(VoxelRobotSnapshot),
    Cell(CellSnapshot),
    Object(ObjectSnapshot),
}

impl<'de> Deserialize<'de> for BodySnapshot {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match crate::tagged::deserialize(d, "kind", Some("voxel_robot"))? {
            BodyWire::VoxelRobot(r) => BodySnapshot::VoxelRobot(r),
            BodyWire::Cell(c) => BodySnapshot::Cell(c),
            BodyWire::Object(o) => BodySnapshot::Object(o),
        })
    }
}

impl BodySnapshot {
    pub fn id(&self) -> BodyId {
        match self {
            BodySnapshot::VoxelRobot(r) => r.id,
            BodySnapshot::Cell(c) => c.id,
            BodySnapshot::Object(o) => o.id,
        }
    }
    pub fn label(&self) -> &str {
        match self {
            BodySnapshot::VoxelRobot(r) => &r.label,
            BodySnapshot::Cell(c) => &c.label,
            BodySnapshot::Object(o) => &o.label,
        }
    }
    /// The point whose motion a task measures (a voxel robot's mean voxel centre).
    pub fn center(&self) -> Vec2 {
        match self {
            BodySnapshot::VoxelRobot(r) => r.center,
            BodySnapshot::Cell(c) => c.center,
            BodySnapshot::Object(o) => o.center,
        }
    }
    pub fn bbox(&self) -> Aabb {
        match self {
            BodySnapshot::VoxelRobot(r) => r.bbox,
            BodySnapshot::Cell(c) => c.bbox,
            BodySnapshot::Object(o) => o.bbox,
        }
    }
    pub fn as_voxel_robot(&self) -> Option<&VoxelRobotSnapshot> {
        match self {
            BodySnapshot::VoxelRobot(r) => Some(r),
            _ => None,
        }
    }
    pub(crate) fn as_cell(&self) -> Option<&CellSnapshot> {
        match self {
            BodySnapshot::Cell(c) => Some(c),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&ObjectSnapshot> {
        match self {
            BodySnapshot::Object(o) => Some(o),
            _ => None,
        }
    }
}

/// The state of a world after `step` steps, at `t = step·dt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub step: u64,
    pub t: f64,
    /// The bodies in creation order (`robots` in recordings made before there were body kinds).
    #[serde(alias = "robots")]
    pub bodies: Vec<BodySnapshot>,
    /// Terrain outline (closed downwards), if the world has a terrain. Shared, not copied, between the
    /// snapshots of a run: it never changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terrain: Option<Arc<Polygon>>,
    /// Other static bodies (walls), one polygon each (shared like the terrain).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statics: Vec<Arc<Polygon>>,
}

impl Snapshot {
    /// Union of the bounding boxes of the given bodies (when `ids` is `None`, of every robot and cell:
    /// objects are scenery, which a camera shows but does not follow).
    pub fn bodies_bbox(&self, ids: Option<&[BodyId]>) -> Aabb {
        self.framed(ids).fold(Aabb::EMPTY, |a, b| a.union(b.bbox()))
    }

    /// The bodies with the given ids in snapshot order, each once (when `ids` is `None`, every robot and
    /// cell). Bodies are stored in id order, so a follow camera's body is found directly, not by a scan
    /// of the whole world (which made a frame of N cells over N robots cost N²).
    pub fn framed<'a>(&'a self, ids: Option<&'a [BodyId]>) -> impl Iterator<Item = &'a BodySnapshot> + 'a {
        let direct = |id: BodyId| self.bodies.get(id.0).filter(|b| b.id() == id).map(|_| id.0);
        let found: Option<Vec<usize>> = match ids {
            None => None,
            Some(ids) => {
                let mut found: Vec<usize> = ids
                    .iter()
                    .filter_map(|&id| direct(id).or_else(|| self.bodies.iter().position(|b| b.id() == id)))
                    .collect();
                found.sort_unstable();
                found.dedup();
                Some(found)
            }
        };
        let all = found.is_none().then(|| self.bodies.iter().filter(|b| b.as_object().is_none()));
        let some = found.map(|f| f.into_iter().filter_map(|i| self.bodies.get(i)));
        all.into_iter().flatten().chain(some.into_iter().flatten())
    }

    /// The soft cells, in creation order.
    pub fn cells(&self) -> impl Iterator<Item = &CellSnapshot> {
        self.bodies.iter().filter_map(BodySnapshot::as_cell)
    }

    /// The rigid objects, in creation order.
    pub fn objects(&self) -> impl Iterator<Item = &ObjectSnapshot> {
        self.bodies.iter().filter_map(BodySnapshot::as_object)
    }

    /// The voxel robots, in creation order.
    pub fn voxel_robots(&self) -> impl Iterator<Item = &VoxelRobotSnapshot> {
        self.bodies.iter().filter_map(BodySnapshot::as_voxel_robot)
    }
}

/// Which optional content snapshots carry (all off by default: batch runs pay nothing for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SnapshotDetail {
    pub springs: bool,
    pub ropes: bool,
    pub welds: bool,
    pub controller: bool,
}

impl SnapshotDetail {
    pub const ALL: SnapshotDetail = SnapshotDetail { springs: true, ropes: true, welds: true, controller: true };

    /// What either carries.
    pub fn union(self, other: SnapshotDetail) -> SnapshotDetail {
        SnapshotDetail {
            springs: self.springs | other.springs,
            ropes: self.ropes | other.ropes,
            welds: self.welds | other.welds,
            controller: self.controller | other.controller,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_from_before_body_kinds_still_load() {
        let robot =
            r#"{"id":0,"label":"r","grid":[1,1],"center":[1.5,0.5],"bbox":{"min":[1,0],"max":[2,1]},"voxels":[]}"#;
        let old = format!(r#"{{"step":3,"t":0.05,"robots":[{robot}]}}"#);
        let new = format!(r#"{{"step":3,"t":0.05,"bodies":[{{"kind":"voxel_robot",{}]}}"#, &robot[1..]);
        let (old, new): (Snapshot, Snapshot) =
            (serde_json::from_str(&old).unwrap(), serde_json::from_str(&new).unwrap());
        assert_eq!(old, new);
        assert_eq!(old.bodies[0].id(), BodyId(0));
        assert_eq!(old.bodies[0].center(), Vec2::new(1.5, 0.5));
        // Written back, a snapshot names its kind.
        assert!(serde_json::to_string(&old).unwrap().contains(r#""bodies":[{"kind":"voxel_robot","id":0"#));
    }

    #[test]
    fn cell_snapshots_round_trip_next_to_voxel_robots() {
        let cell = CellSnapshot {
            id: BodyId(1),
            label: "c".into(),
            cell_type: "soft".into(),
            center: Vec2::new(0.0, 0.0),
            bbox: Aabb::from_points([Vec2::new(-1.0, -1.0), Vec2::new(1.0, 1.0)]),
            body_radius: 0.1,
            bodies: vec![Vec2::new(0.0, 1.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, -1.0)],
            area: 1.0,
            area_ratio: 0.9,
            pressure_force: 2.0,
            perimeter_error: 0.0,
            velocity: Vec2::ZERO,
            connectors: vec![],
            pairs: vec![],
            muscles: vec![],
            links: vec![],
        };
        let snap = Snapshot { step: 0, t: 0.0, bodies: vec![BodySnapshot::Cell(cell)], terrain: None, statics: vec![] };
        let text = serde_json::to_string(&snap).unwrap();
        assert!(text.contains(r#""kind":"cell""#));
        let back: Snapshot = serde_json::from_str(&text).unwrap();
        assert_eq!(back, snap);
        assert_eq!(back.cells().count(), 1);
        assert_eq!(back.voxel_robots().count(), 0);
    }
}
