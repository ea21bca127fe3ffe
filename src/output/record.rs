//! Recording snapshots as JSON Lines (one snapshot per line) and reading them back.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::output::atomic::Output;

use crate::snapshot::{Flow, ListenerError, Snapshot, SnapshotListener};

/// A recording that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}: not a vsr2d snapshot ({source}); record one with `vsr2d simulate --record`")]
    Parse { path: PathBuf, line: usize, source: serde_json::Error },
    #[error("{path} holds no snapshot")]
    Empty { path: PathBuf },
    #[error("{path}:{line}: t = {t} s is not a recorded time: snapshots are at 0 … 1e6 s (the longest scenario)")]
    Time { path: PathBuf, line: usize, t: String },
}

/// Writes every `every`-th snapshot (always including the first) to a temporary file that becomes
/// `path` only on [`JsonlRecorder::finish`], so a failed run leaves no partial recording behind. A
/// character device or FIFO (`/dev/null`, a pipe) is written directly instead (see
/// [`crate::output::atomic`]).
pub struct JsonlRecorder {
    path: PathBuf,
    writer: BufWriter<Output>,
    every: u64,
    /// The destination is a pipe whose reader went away (`--record /dev/stdout | head -c 100`).
    closed: bool,
}

impl JsonlRecorder {
    /// Opens the temporary file now: an unwritable destination fails before any simulation runs.
    pub fn create(path: &Path, every: u64) -> Result<JsonlRecorder, RecordError> {
        let file =
            Output::create(path, ".tmp").map_err(|source| RecordError::Write { path: path.to_path_buf(), source })?;
        Ok(JsonlRecorder { path: path.to_path_buf(), writer: BufWriter::new(file), every: every.max(1), closed: false })
    }

    /// Whether the recording went to a pipe whose reader has gone (the run was stopped there).
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Flushes and moves the recording to its final name. After the reader of a pipe went away
    /// ([`closed`](JsonlRecorder::closed)), an error of kind [`std::io::ErrorKind::BrokenPipe`], which
    /// the command line ends quietly on, as on any closed pipe.
    pub fn finish(self) -> Result<(), RecordError> {
        let werr = |source| RecordError::Write { path: self.path.clone(), source };
        if self.closed {
            return Err(werr(std::io::ErrorKind::BrokenPipe.into()));
        }
        let file = self.writer.into_inner().map_err(|e| werr(e.into_error()))?;
        file.commit().map_err(werr)?;
        Ok(())
    }
}

impl SnapshotListener for JsonlRecorder {
    /// A write error stops the run at once (the unfinished file is deleted when the recorder drops); a
    /// pipe closed by its reader stops it too, without an error ([`JsonlRecorder::finish`] reports it).
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        if self.closed {
            return Ok(Flow::Stop);
        }
        if snapshot.step % self.every != 0 {
            return Ok(Flow::Continue);
        }
        let w = &mut self.writer;
        match serde_json::to_writer(&mut *w, &**snapshot).map_err(std::io::Error::from).and_then(|_| w.write_all(b"\n"))
        {
            Ok(()) => Ok(Flow::Continue),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(Flow::Stop)
            }
            Err(source) => Err(RecordError::Write { path: self.path.clone(), source }.into()),
        }
    }
}

/// Reads snapshots one line at a time (memory does not grow with the recording).
pub struct JsonlReader {
    path: PathBuf,
    lines: std::io::Lines<Box<dyn BufRead + Send>>,
    line: usize,
}

impl JsonlReader {
    pub fn open(path: &Path) -> Result<JsonlReader, RecordError> {
        let file =
            std::fs::File::open(path).map_err(|source| RecordError::Read { path: path.to_path_buf(), source })?;
        Ok(JsonlReader::from_reader(path, BufReader::new(file)))
    }

    /// Reads a recording from any source (`path` only names it in errors): what the fuzz target and the
    /// robustness tests feed bytes through.
    pub fn from_reader(path: &Path, reader: impl BufRead + Send + 'static) -> JsonlReader {
        JsonlReader { path: path.to_path_buf(), lines: (Box::new(reader) as Box<dyn BufRead + Send>).lines(), line: 0 }
    }
}

impl Iterator for JsonlReader {
    type Item = Result<Snapshot, RecordError>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let text = match self.lines.next()? {
                Ok(t) => t,
                Err(source) => return Some(Err(RecordError::Read { path: self.path.clone(), source })),
            };
            self.line += 1;
            if text.trim().is_empty() {
                continue;
            }
            let snapshot: Snapshot = match serde_json::from_str(&text) {
                Ok(s) => s,
                Err(source) => {
                    return Some(Err(RecordError::Parse { path: self.path.clone(), line: self.line, source }))
                }
            };
            // A time no scenario reaches would make a render of 10³⁰⁰ frames.
            if !(0.0..=crate::scenario::MAX_DURATION).contains(&snapshot.t) {
                let t = crate::geom::compact(snapshot.t);
                return Some(Err(RecordError::Time { path: self.path.clone(), line: self.line, t }));
            }
            return Some(Ok(snapshot));
        }
    }
}
