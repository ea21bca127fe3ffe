//! PNG files: single frames and numbered frame sequences, each file published atomically.

use std::fs;
use std::path::{Path, PathBuf};

use tiny_skia::Pixmap;

use super::atomic;
use super::{check_dir_writable, FrameError, FrameSink, OutputError};

/// Writes `pixmap` as a straight-alpha RGBA PNG at `path`, atomically: the bytes go to a hidden temporary
/// file in the same directory, which is then renamed over `path`.
pub fn write_png(pixmap: &Pixmap, path: impl AsRef<Path>) -> Result<(), FrameError> {
    let path = path.as_ref();
    let bytes = encode_pixmap(pixmap).map_err(|e| FrameError::Encode { path: path.to_owned(), source: Box::new(e) })?;
    atomic::write(path, &bytes).map_err(|source| FrameError::Io { path: path.to_owned(), source })
}

/// Writes `image` (a comparison's diff or composite, read back through `image`) as a PNG at `path`,
/// atomically (nothing half-written under the final name).
pub fn write_rgba_image(path: &Path, image: &image::RgbaImage) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    image.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png).map_err(std::io::Error::other)?;
    atomic::write(path, &bytes)
}

/// The PNG bytes of `pixmap` (8-bit RGBA, demultiplied: tiny-skia keeps premultiplied alpha, so translucent
/// pixels come out right): every picture tiny-skia draws (frames, stills, filmstrips, the cells report's
/// strips) is encoded here. The report plots drawn by plotters go through `image` (fdeflate), unaffected.
///
/// The rows are filtered by the png crate (adaptive, its default) and deflated by [`super::zlib`] at
/// level 6, flate2's default: the bytes `Pixmap::encode_png` gave through flate2's miniz_oxide backend.
/// Calling miniz_oxide directly keeps them: flate2 picks its backend by the features the whole build turns
/// on, and krilla (the PDF writer) turns on zlib-rs, which compresses the same rows into other bytes.
pub fn encode_pixmap(pixmap: &Pixmap) -> Result<Vec<u8>, ::png::EncodingError> {
    let (width, height) = (pixmap.width(), pixmap.height());
    let straight = pixmap.to_owned().take_demultiplied();
    let mut stored = Vec::new();
    header(&mut stored, width, height)?.write_image_data(&straight)?;
    let rows = inflate_idat(&stored).ok_or_else(|| {
        ::png::EncodingError::IoError(std::io::Error::other("the png crate's stored image data does not inflate"))
    })?;
    let mut out = Vec::with_capacity(stored.len() / 4);
    let mut writer = header(&mut out, width, height)?;
    writer.write_chunk(::png::chunk::IDAT, &super::zlib(&rows, 6))?;
    writer.finish()?;
    Ok(out)
}

/// A PNG writer of 8-bit RGBA rows that stores them after the png crate's adaptive filter, unchanged by
/// deflate (level 0: stored blocks).
fn header(out: &mut Vec<u8>, width: u32, height: u32) -> Result<::png::Writer<&mut Vec<u8>>, ::png::EncodingError> {
    let mut encoder = ::png::Encoder::new(out, width, height);
    encoder.set_color(::png::ColorType::Rgba);
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_filter(::png::Filter::Adaptive);
    encoder.set_deflate_compression(::png::DeflateCompression::Level(0));
    encoder.write_header()
}

/// The inflated image data of the PNG `bytes` (its IDAT chunks joined); `None` if they are no PNG.
fn inflate_idat(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut zlib = Vec::new();
    let mut rest = bytes.get(8..)?;
    while rest.len() >= 12 {
        let len = u32::from_be_bytes(rest[..4].try_into().ok()?) as usize;
        let data = rest.get(8..8 + len)?;
        if &rest[4..8] == b"IDAT" {
            zlib.extend_from_slice(data);
        }
        rest = rest.get(12 + len..)?;
    }
    miniz_oxide::inflate::decompress_to_vec_zlib(&zlib).ok()
}

/// Writes each frame as `DIR/frame_000000.png`, `DIR/frame_000001.png`, ...
///
/// Each file is published atomically as soon as it is pushed, so an interrupted run keeps the frames
/// written so far. All frames must have the size of the first one.
#[derive(Debug)]
pub struct PngSequence {
    dir: PathBuf,
    next: u64,
    size: Option<(u32, u32)>,
    failed: bool,
}

impl PngSequence {
    /// Starts a sequence in `dir`, creating the directory if needed. Refuses a directory that already holds
    /// `frame_NNNNNN.png` files, so that frames of two runs never mix.
    pub fn create(dir: impl AsRef<Path>) -> Result<Self, FrameError> {
        let dir = dir.as_ref();
        Self::prepare_dir(dir)?;
        let stale = existing_frames(dir)?;
        if !stale.is_empty() {
            return Err(FrameError::StaleFrames { dir: dir.to_owned(), count: stale.len() });
        }
        Ok(Self::new_unchecked(dir))
    }

    /// Like [`create`](Self::create), but first deletes the `frame_NNNNNN.png` files already in `dir`
    /// (and nothing else).
    pub fn replace(dir: impl AsRef<Path>) -> Result<Self, FrameError> {
        let dir = dir.as_ref();
        Self::prepare_dir(dir)?;
        for path in existing_frames(dir)? {
            fs::remove_file(&path).map_err(|source| FrameError::Io { path, source })?;
        }
        Ok(Self::new_unchecked(dir))
    }

    fn prepare_dir(dir: &Path) -> Result<(), FrameError> {
        if dir.exists() && !dir.is_dir() {
            return Err(OutputError::NotADirectory { path: dir.to_owned() }.into());
        }
        fs::create_dir_all(dir).map_err(|source| FrameError::Io { path: dir.to_owned(), source })?;
        check_dir_writable(dir)?;
        Ok(())
    }

    fn new_unchecked(dir: &Path) -> Self {
        PngSequence { dir: dir.to_owned(), next: 0, size: None, failed: false }
    }

    /// The directory the frames go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of frame `index` in this sequence.
    pub(crate) fn frame_path(&self, index: u64) -> PathBuf {
        self.dir.join(frame_file_name(index))
    }

    fn push_inner(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        let got = (frame.width(), frame.height());
        match self.size {
            None => self.size = Some(got),
            Some((width, height)) if (width, height) != got => {
                return Err(FrameError::SizeChanged {
                    index: self.next,
                    width,
                    height,
                    got_width: got.0,
                    got_height: got.1,
                })
            }
            Some(_) => {}
        }
        write_png(frame, self.frame_path(self.next))?;
        self.next += 1;
        Ok(())
    }
}

impl FrameSink for PngSequence {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        if self.failed {
            return Err(FrameError::Aborted { path: self.dir.clone() });
        }
        let result = self.push_inner(frame);
        self.failed = result.is_err();
        result
    }

    fn frame_count(&self) -> u64 {
        self.next
    }

    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        if self.failed {
            return Err(FrameError::Aborted { path: self.dir.clone() });
        }
        Ok(())
    }
}

/// `frame_000042.png`: zero-padded so that a plain sort gives display order (up to a million frames).
pub(crate) fn frame_file_name(index: u64) -> String {
    format!("frame_{index:06}.png")
}

fn is_frame_file_name(name: &str) -> bool {
    name.strip_prefix("frame_")
        .and_then(|rest| rest.strip_suffix(".png"))
        .is_some_and(|digits| digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit()))
}

fn existing_frames(dir: &Path) -> Result<Vec<PathBuf>, FrameError> {
    let io_err = |source| FrameError::Io { path: dir.to_owned(), source };
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err)? {
        let entry = entry.map_err(io_err)?;
        if entry.file_name().to_str().is_some_and(is_frame_file_name) {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_names_sort_in_display_order() {
        assert_eq!(frame_file_name(0), "frame_000000.png");
        assert_eq!(frame_file_name(123456), "frame_123456.png");
        assert!(is_frame_file_name("frame_000001.png"));
        assert!(is_frame_file_name("frame_1000000.png"));
        assert!(!is_frame_file_name("frame_01.png"));
        assert!(!is_frame_file_name("frame_00000a.png"));
        assert!(!is_frame_file_name(".frame_000001.png.abc.tmp"));
    }

    /// The encoder writes the bytes tiny-skia's `encode_png` wrote through flate2's miniz_oxide backend
    /// (vsr2d up to 142af7d): tests/golden/png/encoder-reference.png is that encoder's PNG of this
    /// translucent gradient (tiny-skia 0.12.0, png 0.18.1, flate2 1.1.11 without zlib-rs), and a build in
    /// which some crate switches flate2's backend must still match it byte for byte.
    #[test]
    fn pngs_keep_the_bytes_of_the_miniz_encoder() {
        let (w, h) = (64u32, 32u32);
        let mut pixmap = Pixmap::new(w, h).unwrap();
        for (i, px) in pixmap.pixels_mut().iter_mut().enumerate() {
            let (x, y) = (i as u32 % w, i as u32 / w);
            let a = ((x * 4 + y * 3) % 256) as u8;
            let c = |v: u32| ((v % 256) * a as u32 / 255) as u8;
            *px = tiny_skia::PremultipliedColorU8::from_rgba(c(x * 7), c(y * 11), c(x * y), a).unwrap();
        }
        let reference = include_bytes!("../../tests/golden/png/encoder-reference.png");
        let ours = encode_pixmap(&pixmap).unwrap();
        assert_eq!(ours.len(), reference.len());
        assert!(ours == reference, "the PNG bytes differ from the miniz_oxide encoder's");
        // And they decode to the demultiplied pixels.
        let decoded = image::load_from_memory(&ours).unwrap().to_rgba8();
        assert_eq!(decoded.as_raw(), &pixmap.to_owned().take_demultiplied());
    }
}
