//! Where rendered frames go.
//!
//! A [`FrameSink`] takes frames one at a time, in display order, so a long run never holds its frames in
//! memory. [`PngSequence`] needs no native libraries and is always available; the mp4 encoder lives in
//! `crate::output::video` behind the `video` feature. Every file is written to a hidden temporary file in the
//! destination directory and renamed into place, so a reader never sees a half-written file under the final
//! name.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use tiny_skia::Pixmap;

use crate::output::atomic::{self, parent_dir};

/// A destination for rendered frames (a PNG sequence, an mp4 file, ...).
///
/// Frames are premultiplied RGBA pixmaps of one fixed size. Frames are expected to be opaque; a sink treats a
/// translucent pixel as composited over black.
pub trait FrameSink {
    /// Takes the next frame. After an error the sink is unusable: later calls fail too.
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError>;

    /// How many frames were accepted so far.
    fn frame_count(&self) -> u64;

    /// Flushes everything and publishes the output. An mp4 appears under its final name only here; a PNG
    /// sequence publishes each frame as it is pushed.
    fn finish(self: Box<Self>) -> Result<(), FrameError>;
}

/// Why an output location cannot be used. Returned by [`check_output_writable`] before any work starts.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("output directory `{dir}` does not exist; create it first (mkdir -p {dir}) or choose another path")]
    DirMissing { dir: PathBuf },
    #[error("`{path}` is not a directory, so nothing can be written under it; check the output path")]
    NotADirectory { path: PathBuf },
    #[error("output path `{path}` is a directory; give a file name inside it instead (e.g. `{path}/run.mp4`)")]
    IsADirectory { path: PathBuf },
    #[error("output path `{path}` has no file name; give a file name such as `run.mp4`")]
    NoFileName { path: PathBuf },
    #[error("cannot write in `{dir}`: {source}; choose a directory you can write to or fix its permissions")]
    NotWritable {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Errors of the frame sinks. Each message names the file involved and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("could not encode PNG for `{path}`: {source}")]
    PngEncode {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("could not write `{path}`: {source}; check free disk space and permissions")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "frame {index} is {got_width}×{got_height} but earlier frames are {width}×{height}; \
         every frame of a sequence must have the same size"
    )]
    SizeChanged { index: u64, width: u32, height: u32, got_width: u32, got_height: u32 },
    #[error(
        "`{dir}` already holds {count} frame_NNNNNN.png files from an earlier run; mixing runs would leave \
         stale frames behind. Delete them or choose an empty directory"
    )]
    StaleFrames { dir: PathBuf, count: usize },
    #[error("the frame sink for `{path}` already failed and takes no more frames; start a new one")]
    Aborted { path: PathBuf },
    #[cfg(feature = "video")]
    #[error(transparent)]
    Video(#[from] crate::output::video::VideoError),
}

/// Checks, before a long simulation starts, that a file can be created at `path`: its directory exists and
/// is writable (by creating and removing a temporary file there), and `path` itself is not a directory.
/// An existing file at `path` is fine; it will be replaced.
pub fn check_output_writable(path: impl AsRef<Path>) -> Result<(), OutputError> {
    let path = path.as_ref();
    if path.file_name().is_none() {
        return Err(OutputError::NoFileName { path: path.to_owned() });
    }
    if path.is_dir() {
        return Err(OutputError::IsADirectory { path: path.to_owned() });
    }
    check_dir_writable(parent_dir(path))
}

/// Checks that `dir` exists, is a directory, and that a file can be created and removed in it.
pub fn check_dir_writable(dir: impl AsRef<Path>) -> Result<(), OutputError> {
    let dir = dir.as_ref();
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(OutputError::NotADirectory { path: dir.to_owned() }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(OutputError::DirMissing { dir: dir.to_owned() }),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            return Err(OutputError::NotADirectory { path: dir.to_owned() })
        }
        Err(source) => return Err(OutputError::NotWritable { dir: dir.to_owned(), source }),
    }
    // Permission bits do not tell the whole story (root, ACLs, read-only mounts): actually try.
    let probe = tempfile::Builder::new()
        .prefix(".vsr2d-write-check-")
        .tempfile_in(dir)
        .map_err(|source| OutputError::NotWritable { dir: dir.to_owned(), source })?;
    probe.close().map_err(|source| OutputError::NotWritable { dir: dir.to_owned(), source })
}

/// Writes `pixmap` as a straight-alpha RGBA PNG at `path`, atomically: the bytes go to a hidden temporary
/// file in the same directory, which is then renamed over `path`.
pub fn write_png(pixmap: &Pixmap, path: impl AsRef<Path>) -> Result<(), FrameError> {
    let path = path.as_ref();
    // tiny-skia demultiplies while encoding, so translucent pixels come out right.
    let bytes =
        pixmap.encode_png().map_err(|e| FrameError::PngEncode { path: path.to_owned(), source: Box::new(e) })?;
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
