//! Files out: atomic writes, frame sinks (PNG sequences, mp4 behind the `video` feature), snapshot
//! recordings.

pub mod atomic;
pub mod frames;
pub mod record;
#[cfg(feature = "video")]
pub mod video;
