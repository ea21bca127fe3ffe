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
    // tiny-skia demultiplies while encoding, so translucent pixels come out right.
    let bytes = pixmap.encode_png().map_err(|e| FrameError::Encode { path: path.to_owned(), source: Box::new(e) })?;
    atomic::write(path, &bytes).map_err(|source| FrameError::Io { path: path.to_owned(), source })
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
    pub fn frame_path(&self, index: u64) -> PathBuf {
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
pub fn frame_file_name(index: u64) -> String {
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
}
