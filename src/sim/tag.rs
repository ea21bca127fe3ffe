//! Which body, and which part of it, a collider belongs to: written into rapier's `user_data` when the
//! collider is built, read back by the contact filter and the touch sensors.

use crate::snapshot::BodyId;

/// Marks `user_data` as ours (terrain and walls carry none).
const TAGGED: u128 = 1 << 100;

/// A collider of a body: its part (a voxel) and the piece of that part (one of the voxel's masses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColliderTag {
    pub body: BodyId,
    pub part: usize,
    pub piece: usize,
}

impl ColliderTag {
    /// Bit 100 set, body in bits 64–95, part in bits 8–39, piece in bits 0–7.
    pub fn encode(self) -> u128 {
        TAGGED | ((self.body.0 as u128) << 64) | ((self.part as u128) << 8) | self.piece as u128
    }

    /// The tag of a body collider, or `None` for terrain and walls.
    pub fn decode(data: u128) -> Option<ColliderTag> {
        (data & TAGGED != 0).then_some(ColliderTag {
            body: BodyId(((data >> 64) & 0xFFFF_FFFF) as usize),
            part: ((data >> 8) & 0xFFFF_FFFF) as usize,
            piece: (data & 0xFF) as usize,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_untagged_data_is_static() {
        let tag = ColliderTag { body: BodyId(7), part: 1234, piece: 3 };
        assert_eq!(ColliderTag::decode(tag.encode()), Some(tag));
        assert_eq!(ColliderTag::decode(0), None);
    }
}
