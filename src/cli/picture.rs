//! The picture options `vsr2d render` and `vsr2d view` share (frame size, the sensor that colours
//! the voxels, the camera rectangle) and how a failed movie maps to an exit code.

use vsr2d::geom::{Aabb, Vec2};
use vsr2d::model::voxel::sensors::SensorKind;
use vsr2d::movie::MovieError;
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

/// `--color-by SENSOR`: a sensor id.
pub fn parse_sensor(text: &str) -> Result<SensorKind, String> {
    SensorKind::from_id(text).ok_or_else(|| {
        let ids: Vec<&str> = SensorKind::ALL.iter().map(|k| k.id()).collect();
        format!("unknown sensor {text:?}; use one of {}", ids.join(", "))
    })
}

/// `--view x0,y0,x1,y1`: the camera rectangle in metres.
pub fn parse_view(text: &str) -> Result<Aabb, String> {
    let err = || format!("camera rectangle {text:?} must be x0,y0,x1,y1 in metres with x0 < x1 and y0 < y1");
    let v: Vec<f64> = text.split(',').map(|p| p.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| err())?;
    match v[..] {
        [x0, y0, x1, y1] if v.iter().all(|c| c.is_finite()) && x0 < x1 && y0 < y1 => {
            Ok(Aabb { min: Vec2::new(x0, y0), max: Vec2::new(x1, y1) })
        }
        _ => Err(err()),
    }
}

/// A movie's error as a failure of the user's input or of the run.
pub fn classify(e: MovieError) -> Failure {
    super::classified(e.is_input(), e)
}
