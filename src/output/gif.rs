//! Animated GIF: for short clips in slides and web pages, where an mp4 will not play. Each frame is
//! quantized to its own 256-colour palette (NeuQuant, through `image`). GIF delays are whole
//! centiseconds: frame k shows for round(100·(k+1)/fps) − round(100·k/fps) cs (3, 4, 3, 3, 4, 3, … at
//! 30 fps), so the delays of n frames add up to n/fps s within half a centisecond and the clip plays in
//! real time (one delay of 3 cs for every frame played 30 fps clips 10 % fast). The file appears under
//! its final name only when finished.

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
    fps: u32,
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
        Ok(GifSink { path, encoder: None, tmp: Some(tmp), fps: fps.max(1), size: None, frames: 0, failed: false })
    }

    /// The delay of frame `k` in centiseconds: the whole centiseconds between its start and the next
    /// frame's, both rounded from the exact times (at least 1: a delay of 0 means "as fast as possible").
    fn delay_cs(&self, k: u64) -> u16 {
        let at = |k: u64| (100.0 * k as f64 / f64::from(self.fps)).round();
        (at(k + 1) - at(k)).clamp(1.0, f64::from(u16::MAX)) as u16
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
        gif_frame.delay = self.delay_cs(self.frames);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The delays of a written GIF, read back with the `gif` decoder.
    fn delays(path: &Path) -> Vec<u16> {
        let mut options = ::gif::DecodeOptions::new();
        options.set_color_output(::gif::ColorOutput::Indexed);
        let mut decoder = options.read_info(std::fs::File::open(path).unwrap()).unwrap();
        let mut out = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            out.push(frame.delay);
        }
        out
    }

    #[test]
    fn frame_delays_add_up_to_the_clips_duration() {
        let dir = tempfile::tempdir().unwrap();
        for (fps, frames) in [(30u32, 61u64), (60, 45), (25, 10), (24, 7)] {
            let path = dir.path().join(format!("clip{fps}.gif"));
            let mut sink: Box<dyn FrameSink> = Box::new(GifSink::create(&path, fps).unwrap());
            let pixmap = Pixmap::new(8, 6).unwrap();
            for _ in 0..frames {
                sink.push(&pixmap).unwrap();
            }
            sink.finish().unwrap();
            let d = delays(&path);
            assert_eq!(d.len() as u64, frames);
            // n frames last n/fps s; whole centiseconds keep the sum within half a centisecond of it.
            let total_cs: f64 = d.iter().map(|&x| f64::from(x)).sum();
            let exact_cs = 100.0 * frames as f64 / f64::from(fps);
            assert!((total_cs - exact_cs).abs() <= 0.5, "{fps} fps: {total_cs} cs for {exact_cs} cs");
            assert!(d.iter().all(|&x| x >= 1));
        }
    }
}
