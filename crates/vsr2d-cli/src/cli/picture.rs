//! The picture options `vsr2d render` and `vsr2d view` share (frame size, the sensor that colours
//! the voxels, the camera rectangle) and how a failed render job maps to an exit code.

use vsr2d::render_job::JobError;
use vsr2d::scenario::MAX_FRAME_SIDE;

use super::Failure;

/// `--size WxH`, each side at most [`MAX_FRAME_SIDE`] pixels.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = super::parse_wxh(text, "size", "1280x720")?;
    if w > MAX_FRAME_SIDE || h > MAX_FRAME_SIDE {
        return Err(format!("size {text:?} is too large: at most {MAX_FRAME_SIDE} pixels each way"));
    }
    Ok((w, h))
}

pub use vsr2d::render_job::{parse_camera as parse_view, parse_sensor};

/// A render job's error as a failure of the user's input or of the run.
pub fn job_failure(e: JobError) -> Failure {
    super::classified(e.is_input(), e)
}
