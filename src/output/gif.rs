//! Animated GIF: for short clips in slides and web pages, where an mp4 will not play. Each frame is
//! quantized to its own 256-colour palette (NeuQuant, through `image`); GIF delays are whole
//! centiseconds, so 30 fps plays at 100/3 ≈ 33 fps (a delay of 3 cs). The file appears under its final
//! name only when finished.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tiny_skia::Pixmap;

use super::atomic::{self, Temp};
use super::{FrameError, FrameSink};

/// NeuQuant sampling factor, 1 (best, slowest) to 30: 10 is the usual default, good for flat colours.
const QUANTIZER_SPEED: i32 = 10;

/// Writes frames as one looping animated GIF at `fps` frames per second.
pub struct GifSink {
    path: PathBuf,
    /// Created at the first frame (a GIF header carries the size); `None` again after a failure.
    encoder: Option<::gif::Encoder<BufWriter<Temp>>>,
    tmp: Option<Temp>,
    /// Frame delay in centiseconds.
    delay_cs: u16,
    size: Option<(u32, u32)>,
    frames: u64,
    failed: bool,
}

impl GifSink {
    /// Starts `path` (written to a hidden sibling until [`FrameSink::finish`]).
    pub fn create(path: impl AsRef<Path>, fps: u32) -> Result<GifSink, FrameError> {
        let path = path.as_ref().to_owned();
        let tmp =
            atomic::sibling_temp(&path, ".gif").map_err(|source| FrameError::Io { path: path.clone(), source })?;
        let delay_cs = (100.0 / f64::from(fps.max(1))).round().clamp(1.0, f64::from(u16::MAX)) as u16;
        Ok(GifSink { path, encoder: None, tmp: Some(tmp), delay_cs, size: None, frames: 0, failed: false })
    }

    fn encode_error(&self, e: impl std::error::Error + Send + Sync + 'static) -> FrameError {
        FrameError::Encode { path: self.path.clone(), source: Box::new(e) }
    }

    fn push_inner(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        let (w, h) = (frame.width(), frame.height());
        let (width, height) = *self.size.get_or_insert((w, h));
        if (w, h) != (width, height) {
            return Err(FrameError::SizeChanged { index: self.frames, width, height, got_width: w, got_height: h });
        }
        let (gw, gh) = match (u16::try_from(w), u16::try_from(h)) {
            (Ok(gw), Ok(gh)) => (gw, gh),
            _ => return Err(self.encode_error(std::io::Error::other(format!("{w}×{h} exceeds GIF's 65535 pixels")))),
        };
        if self.encoder.is_none() {
            let tmp = self.tmp.take().expect("the file is kept until the first frame");
            let mut encoder =
                ::gif::Encoder::new(BufWriter::new(tmp), gw, gh, &[]).map_err(|e| self.encode_error(e))?;
            encoder.set_repeat(::gif::Repeat::Infinite).map_err(|e| self.encode_error(e))?;
            self.encoder = Some(encoder);
        }
        // Premultiplied pixels with alpha forced opaque: a translucent pixel shows over black.
        let mut rgba = frame.data().to_vec();
        rgba.chunks_exact_mut(4).for_each(|p| p[3] = 255);
        let mut gif_frame = ::gif::Frame::from_rgba_speed(gw, gh, &mut rgba, QUANTIZER_SPEED);
        gif_frame.delay = self.delay_cs;
        let encoder = self.encoder.as_mut().expect("created above");
        encoder
            .write_frame(&gif_frame)
            .map_err(|e| FrameError::Encode { path: self.path.clone(), source: Box::new(e) })?;
        self.frames += 1;
        Ok(())
    }
}

impl FrameSink for GifSink {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        if self.failed {
            return Err(FrameError::Aborted { path: self.path.clone() });
        }
        let result = self.push_inner(frame);
        self.failed = result.is_err();
        result
    }

    fn frame_count(&self) -> u64 {
        self.frames
    }

    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        let this = *self;
        let path = this.path.clone();
        let io = |source: std::io::Error| FrameError::Io { path: path.clone(), source };
        match (this.failed, this.encoder) {
            (false, Some(encoder)) => {
                // into_inner writes the GIF trailer.
                let mut writer =
                    encoder.into_inner().map_err(|e| FrameError::Encode { path: path.clone(), source: Box::new(e) })?;
                writer.flush().map_err(io)?;
                let tmp = writer.into_inner().map_err(|e| io(e.into_error()))?;
                atomic::publish(tmp.into_temp_path(), &path).map_err(io)?;
                Ok(())
            }
            (false, None) => Err(FrameError::Encode {
                path,
                source: Box::new(std::io::Error::other("no frames to write; a GIF needs at least one")),
            }),
            (true, _) => Err(FrameError::Aborted { path }),
        }
    }
}
