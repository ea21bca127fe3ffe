//! Pictures of scenes (a still frame, a filmstrip): the format follows the file's extension, `.png`
//! (tiny-skia), `.svg` or `.pdf` (vector, text kept as text), one writer for each.

use std::path::Path;

use crate::render::{pdf, svg, Rasterizer, Scene};

use super::png::write_png;
use super::{atomic, FrameError};

/// The formats a still or a filmstrip can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FigureFormat {
    Png,
    Svg,
    Pdf,
}

impl FigureFormat {
    /// What to tell a user whose extension names no format.
    pub const CHOICES: &'static str = ".png, .svg or .pdf";

    /// The format `path`'s extension names (case-insensitive), if any; PNG without an extension
    /// (`/dev/null`, `/dev/stdout`).
    pub fn of(path: impl AsRef<Path>) -> Option<FigureFormat> {
        let ext = path.as_ref().extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            None | Some("png") => Some(FigureFormat::Png),
            Some("svg") => Some(FigureFormat::Svg),
            Some("pdf") => Some(FigureFormat::Pdf),
            _ => None,
        }
    }

    pub(crate) fn is_vector(self) -> bool {
        self != FigureFormat::Png
    }
}

/// Writes `scene` to `path` in `format`, atomically.
pub(crate) fn write_figure(scene: &Scene, path: &Path, format: FigureFormat) -> Result<(), FrameError> {
    let encode =
        |source: Box<dyn std::error::Error + Send + Sync>| FrameError::Encode { path: path.to_owned(), source };
    let bytes = match format {
        FigureFormat::Png => {
            let pixmap = Rasterizer::new()
                .render(scene)
                .ok_or_else(|| encode(format!("a {}×{} picture cannot be drawn", scene.width, scene.height).into()))?;
            return write_png(&pixmap, path);
        }
        FigureFormat::Svg => svg::to_svg(scene).map_err(|e| encode(Box::new(e)))?.into_bytes(),
        FigureFormat::Pdf => pdf::to_pdf(scene).map_err(|e| encode(Box::new(e)))?,
    };
    atomic::write(path, &bytes).map_err(|source| FrameError::Io { path: path.to_owned(), source })
}
