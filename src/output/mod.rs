//! Files out: where rendered frames go (PNG sequences, mp4 behind the `video` feature, stills), snapshot
//! recordings, the HTML pages' templates (reports and the viewer), and the one atomic write they all use.
//!
//! A [`FrameSink`] takes frames one at a time, in display order, so a long run never holds its frames in
//! memory. [`png::PngSequence`] needs no native libraries and is always available; the mp4 encoder lives in
//! `video` behind the `video` feature. Every file is written to a hidden temporary file in the
//! destination directory and renamed into place, so a reader never sees a half-written file under the final
//! name.

pub mod atomic;
pub mod figure;
pub mod gif;
pub mod pipeline;
pub mod png;
pub mod record;
pub mod run_dir;
pub mod sinks;
pub mod template;
#[cfg(feature = "video")]
pub mod video;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use tiny_skia::Pixmap;

use atomic::parent_dir;

/// The zlib stream (RFC 1950) of `bytes` at `level` (0–10), by miniz_oxide: the one deflate of the PNGs
/// and the HTML viewer's data. Called directly rather than through flate2, whose backend (and so whose
/// bytes) depends on the features other crates in the build turn on.
pub fn zlib(bytes: &[u8], level: u8) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(bytes, level)
}

/// The default x264 preset and rate factor, chosen by measurement (docs/benchmarks.md): on the 20 s
/// 1280×720 showcase `superfast` at crf 26 matches `veryfast` at crf 23 in quality (PSNR 42.5 against
/// 41.8 dB, SSIM 0.9932 against 0.9925) with 40 % less encoding time and a 32 % larger file; the
/// encoder, not the drawing, limited the showcase.
pub const DEFAULT_X264_PRESET: &str = "superfast";
pub const DEFAULT_X264_CRF: u8 = 26;
/// The default x264 tune, also chosen by measurement (docs/benchmarks.md): on the showcase's 601
/// frames `zerolatency` (no B-frames or lookahead, threads by slices) takes 37 % less encoding CPU
/// than no tune at the same preset and crf, for a 21 % larger file of slightly higher PSNR (42.8
/// against 42.5 dB); the encoder was what kept the showcase above 6 s on 2 cores. `none`: x264's own.
pub const DEFAULT_X264_TUNE: &str = "zerolatency";

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

/// The video formats a rendered run can be written to, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoFormat {
    /// H.264 in MP4 (the `video` feature).
    Mp4,
    /// Animated GIF ([`gif::GifSink`]).
    Gif,
}

impl VideoFormat {
    /// What to tell a user whose extension names no format.
    pub const CHOICES: &'static str = ".mp4 (H.264) or .gif (animated GIF)";

    /// The format `path`'s extension names (case-insensitive), if any.
    pub fn of(path: impl AsRef<Path>) -> Option<VideoFormat> {
        let ext = path.as_ref().extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("mp4") => Some(VideoFormat::Mp4),
            Some("gif") => Some(VideoFormat::Gif),
            _ => None,
        }
    }
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
    #[error("cannot use `{path}` as an output: {source}")]
    NotAFile {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write in `{dir}`: {source}; choose a directory you can write to or fix its permissions")]
    NotWritable {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{output} `{path}` is the file {input} reads{via}: writing it would replace that input; give the output \
         another path"
    )]
    NamesAnInput { output: String, input: String, path: PathBuf, via: String },
    #[error(
        "{first} and {second} both name `{path}`{via}: one output would replace the other; give them different paths"
    )]
    NamedTwice { first: String, second: String, path: PathBuf, via: String },
}

/// The file `path` names, links followed and `.`/`..` removed, whether or not it exists yet (then its
/// directory is resolved); `None` for `-` (stdin or stdout) and for a path whose directory is missing.
fn resolved(path: &Path) -> Option<PathBuf> {
    if path.as_os_str() == "-" {
        return None;
    }
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::canonicalize(dir).ok().map(|d| d.join(name))
}

/// Refuses, before anything runs, an output that names one of the inputs or another output (after
/// resolving links and relative parts: `./a.json`, `../x/a.json` and a link to `a.json` are all
/// `a.json`). `outputs` and `inputs` pair each path with the option or argument that gave it, for the
/// message (`-o`, `--html`, `SCENARIO`). A character device or FIFO (`/dev/null`, a pipe) may be named
/// more than once.
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), OutputError> {
    let via = |given: &Path, at: &Path| {
        if given == at {
            String::new()
        } else {
            format!(" (resolved: `{}`)", at.display())
        }
    };
    let is_stream = |p: &Path| {
        fs::metadata(p).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                m.file_type().is_char_device() || m.file_type().is_fifo()
            }
            #[cfg(not(unix))]
            {
                !m.is_file()
            }
        })
    };
    let inputs: Vec<(&str, PathBuf)> = inputs.iter().filter_map(|(what, p)| Some((*what, resolved(p)?))).collect();
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for (what, given) in outputs {
        let Some(at) = resolved(given) else { continue };
        if is_stream(&at) {
            continue;
        }
        if let Some((input, _)) = inputs.iter().find(|(_, p)| *p == at) {
            return Err(OutputError::NamesAnInput {
                output: what.to_string(),
                input: input.to_string(),
                path: given.to_path_buf(),
                via: via(given, &at),
            });
        }
        if let Some((first, _)) = seen.iter().find(|(_, p)| *p == at) {
            return Err(OutputError::NamedTwice {
                first: first.to_string(),
                second: what.to_string(),
                path: given.to_path_buf(),
                via: via(given, &at),
            });
        }
        seen.push((what, at));
    }
    Ok(())
}

/// Errors of the frame sinks. Each message names the file involved and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("could not encode `{path}`: {source}")]
    Encode {
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
         stale frames behind. Delete them, choose an empty directory, or pass --replace-frames to delete them \
         first"
    )]
    StaleFrames { dir: PathBuf, count: usize },
    #[error("the frame sink for `{path}` already failed and takes no more frames; start a new one")]
    Aborted { path: PathBuf },
    #[cfg(feature = "video")]
    #[error(transparent)]
    Video(#[from] video::VideoError),
}

/// Checks, before a long simulation starts, that a file can be created at `path`: its directory exists and
/// is writable (by creating and removing a temporary file there), and `path` itself is not a directory.
/// An existing regular file at `path` is fine; it will be replaced. An existing character device (e.g.
/// `/dev/null`) or FIFO is fine too: it will be written directly (a device must open for writing); a
/// block device, a socket or a dangling link is refused (see [`atomic::target`]).
pub fn check_output_writable(path: impl AsRef<Path>) -> Result<(), OutputError> {
    let path = path.as_ref();
    // `x.mp4/` names a directory to be: refused before anything is rendered, not when publishing.
    if path.file_name().is_none() || path.as_os_str().to_string_lossy().ends_with('/') {
        return Err(OutputError::NoFileName { path: path.to_owned() });
    }
    if path.is_dir() {
        return Err(OutputError::IsADirectory { path: path.to_owned() });
    }
    match atomic::target(path) {
        Ok(atomic::Target::Replace(p)) => check_dir_writable(parent_dir(&p)),
        Ok(atomic::Target::Direct(p)) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                // Opening a FIFO for writing would wait for a reader: only devices are probed.
                if fs::metadata(&p).is_ok_and(|m| m.file_type().is_fifo()) {
                    return Ok(());
                }
            }
            atomic::open_direct(&p).map(drop).map_err(|source| OutputError::NotWritable { dir: p, source })
        }
        // A file where a directory should be: the directory check names it.
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => check_dir_writable(parent_dir(path)),
        Err(source) => Err(OutputError::NotAFile { path: path.to_owned(), source }),
    }
}

/// An output directory (frames, a report) must be writable if it exists, or be creatable under its
/// nearest existing ancestor: checked before any work starts.
pub fn check_dir_creatable(dir: impl AsRef<Path>) -> Result<(), OutputError> {
    let mut probe = dir.as_ref();
    while !probe.exists() {
        match probe.parent() {
            Some(p) if !p.as_os_str().is_empty() => probe = p,
            _ => return check_dir_writable("."),
        }
    }
    check_dir_writable(probe)
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
