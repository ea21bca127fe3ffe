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

/// NeuQuant sampling factor, 1 (best, slowest) to 30 (learns from every 30th pixel). Our frames are flat
/// colours and lines, so 30 gives the palette of 10 (the usual default): on 5 s of the showcase at
/// 1280×720, PSNR 25.41 against 25.43 dB over the frames and a 1 % smaller file, in half the time.
const QUANTIZER_SPEED: i32 = 30;

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
    /// Buffers reused from frame to frame: the opaque pixels, their palette indices, the colour memo.
    rgba: Vec<u8>,
    indices: Vec<u8>,
    memo: ColorMemo,
}

impl GifSink {
    /// Starts `path` (written to a hidden sibling until [`FrameSink::finish`]).
    pub fn create(path: impl AsRef<Path>, fps: u32) -> Result<GifSink, FrameError> {
        let path = path.as_ref().to_owned();
        let tmp =
            atomic::sibling_temp(&path, ".gif").map_err(|source| FrameError::Io { path: path.clone(), source })?;
        Ok(GifSink {
            path,
            encoder: None,
            tmp: Some(tmp),
            fps: fps.max(1),
            size: None,
            frames: 0,
            failed: false,
            rgba: Vec::new(),
            indices: Vec::new(),
            memo: ColorMemo::new(),
        })
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
        self.rgba.clear();
        self.rgba.extend_from_slice(frame.data());
        self.rgba.chunks_exact_mut(4).for_each(|p| p[3] = 255);
        let delay = self.delay_cs(self.frames);
        let mut gif_frame = quantize(gw, gh, &mut self.rgba, &mut self.indices, &mut self.memo);
        gif_frame.delay = delay;
        let encoder = self.encoder.as_mut().expect("created above");
        let written = encoder.write_frame(&gif_frame);
        if let std::borrow::Cow::Owned(indices) = gif_frame.buffer {
            self.indices = indices; // reused by the next frame
        }
        written.map_err(|e| FrameError::Encode { path: self.path.clone(), source: Box::new(e) })?;
        self.frames += 1;
        Ok(())
    }
}

/// Entries of the colour memo: a power of two, 1 MiB of entries.
const MEMO_SLOTS: usize = 1 << 17;

/// The palette index of recently seen colours (direct-mapped by a hash of the colour, tagged with the
/// whole colour, so a hit is exact). A frame has tens of thousands of distinct colours at most (flat
/// fills and their anti-aliased edges) among about a million pixels, so nearly every pixel is a hit and
/// the quantizer's nearest-colour search runs once per colour instead of once per pixel.
struct ColorMemo {
    /// (colour as 0x01RRGGBB, 0 when empty; palette index).
    slots: Vec<(u32, u8)>,
}

impl ColorMemo {
    fn new() -> Self {
        ColorMemo { slots: vec![(0, 0); MEMO_SLOTS] }
    }

    fn clear(&mut self) {
        self.slots.fill((0, 0));
    }

    fn index_of(&mut self, nq: &color_quant::NeuQuant, pixel: &[u8]) -> u8 {
        let key = 0x0100_0000 | u32::from(pixel[0]) << 16 | u32::from(pixel[1]) << 8 | u32::from(pixel[2]);
        let slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - MEMO_SLOTS.trailing_zeros())) as usize;
        let entry = &mut self.slots[slot];
        if entry.0 != key {
            // A palette has 256 entries: the index always fits a byte.
            *entry = (key, nq.index_of(pixel) as u8);
        }
        entry.1
    }
}

/// `::gif::Frame::from_rgba_speed` for opaque pixels, with the same result byte for byte: an exact
/// palette when the frame has at most 256 colours, else a NeuQuant palette learnt from this frame
/// ([`QUANTIZER_SPEED`]) and each pixel's nearest palette colour, looked up once per distinct colour
/// ([`ColorMemo`]) instead of once per pixel.
fn quantize<'a>(
    width: u16,
    height: u16,
    rgba: &'a mut [u8],
    indices: &mut Vec<u8>,
    memo: &mut ColorMemo,
) -> ::gif::Frame<'a> {
    let mut few = std::collections::HashSet::with_capacity(257);
    let many = rgba.chunks_exact(4).any(|p| few.insert([p[0], p[1], p[2]]) && few.len() > 256);
    if !many {
        return ::gif::Frame::from_rgba_speed(width, height, rgba, QUANTIZER_SPEED);
    }
    let nq = color_quant::NeuQuant::new(QUANTIZER_SPEED, 256, rgba);
    memo.clear();
    indices.clear();
    indices.extend(rgba.chunks_exact(4).map(|p| memo.index_of(&nq, p)));
    ::gif::Frame {
        width,
        height,
        buffer: std::borrow::Cow::Owned(std::mem::take(indices)),
        palette: Some(nq.color_map_rgb()),
        ..::gif::Frame::default()
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
    fn quantizing_with_the_colour_memo_gives_the_gif_crates_frame() {
        // A gradient with a few thousand colours plus flat areas, opaque, as frames are.
        let (w, h) = (160u16, 90u16);
        let mut rgba = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let flat = x < 40;
                let (r, g, b) = if flat {
                    (250, 250, 245)
                } else {
                    ((x * 3 % 256) as u8, (y * 5 % 256) as u8, ((x ^ y) % 256) as u8)
                };
                rgba.extend_from_slice(&[r, g, b, 255]);
            }
        }
        let mut reference_pixels = rgba.clone();
        let reference = ::gif::Frame::from_rgba_speed(w, h, &mut reference_pixels, QUANTIZER_SPEED);
        let (mut indices, mut memo) = (Vec::new(), ColorMemo::new());
        for _ in 0..2 {
            // Twice: the memo and buffers left by a frame must not change the next.
            let mut pixels = rgba.clone();
            let frame = quantize(w, h, &mut pixels, &mut indices, &mut memo);
            assert_eq!(frame.palette, reference.palette);
            assert!(frame.buffer == reference.buffer, "palette indices differ from the gif crate's");
            assert_eq!(frame.transparent, reference.transparent);
        }
        // Few colours: the exact palette, as the gif crate makes it.
        let mut few = vec![10u8, 20, 30, 255, 40, 50, 60, 255].repeat(8);
        let mut few_reference = few.clone();
        let frame = quantize(4, 4, &mut few, &mut indices, &mut memo);
        let reference = ::gif::Frame::from_rgba_speed(4, 4, &mut few_reference, QUANTIZER_SPEED);
        assert_eq!((frame.palette, frame.buffer), (reference.palette, reference.buffer));
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
