//! The kinds of body a world simulates: a closed set behind one enum, each kind fulfilling the
//! [`SimBody`] contract. Adding a kind means a variant here and its module, not edits in every consumer.

use super::body::SimBody;
use super::cell::Cell;
use super::object::RigidObject;
use super::voxel_robot::VoxelRobot;

/// A body of the world, by kind.
pub(crate) enum BodyRuntime {
    VoxelRobot(VoxelRobot),
    Cell(Cell),
    Object(RigidObject),
}

impl BodyRuntime {
    pub fn get(&self) -> &dyn SimBody {
        match self {
            BodyRuntime::VoxelRobot(r) => r,
            BodyRuntime::Cell(c) => c,
            BodyRuntime::Object(o) => o,
        }
    }
    pub fn get_mut(&mut self) -> &mut dyn SimBody {
        match self {
            BodyRuntime::VoxelRobot(r) => r,
            BodyRuntime::Cell(c) => c,
            BodyRuntime::Object(o) => o,
        }
    }
}
