//! A report directory: every file goes through [`crate::output::atomic`], so a reader never sees a
//! half-written one, and `index.html` is written last by [`ReportDir::finish`], so its presence means the
//! rest is there.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::output::atomic;

/// The page every report directory opens with.
pub const INDEX_HTML: &str = "index.html";

/// A file of the report that could not be written; every variant names the file (or the directory).
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("cannot write {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot encode the image {}: {source}", path.display())]
    Image { path: PathBuf, source: image::ImageError },
    #[error("cannot serialise {}: {source}", path.display())]
    Json { path: PathBuf, source: serde_json::Error },
}

/// A report directory being written.
#[derive(Debug)]
pub struct ReportDir {
    dir: PathBuf,
}

impl ReportDir {
    /// Creates `dir` (and its parents) if missing.
    pub fn create(dir: &Path) -> Result<ReportDir, DirError> {
        std::fs::create_dir_all(dir).map_err(|source| DirError::Io { path: dir.to_path_buf(), source })?;
        Ok(ReportDir { dir: dir.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `bytes` to `dir/name` atomically and returns the path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, DirError> {
        let path = self.dir.join(name);
        atomic::write(&path, bytes).map_err(|source| DirError::Io { path: path.clone(), source })?;
        Ok(path)
    }

    /// Encodes `img` as PNG and writes it to `dir/name`.
    pub fn write_png(&self, name: &str, img: &image::DynamicImage) -> Result<PathBuf, DirError> {
        let mut bytes = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
            .map_err(|source| DirError::Image { path: self.dir.join(name), source })?;
        self.write(name, &bytes)
    }

    /// Writes `value` as pretty-printed JSON to `dir/name`.
    pub fn write_json(&self, name: &str, value: &impl Serialize) -> Result<PathBuf, DirError> {
        let json = serde_json::to_string_pretty(value)
            .map_err(|source| DirError::Json { path: self.dir.join(name), source })?;
        self.write(name, json.as_bytes())
    }

    /// Writes `index.html`, the last file of the report.
    pub fn finish(self, index_html: &str) -> Result<PathBuf, DirError> {
        self.write(INDEX_HTML, index_html.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_land_in_the_directory_and_errors_name_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ReportDir::create(&tmp.path().join("a/b")).unwrap();
        let csv = dir.write("x.csv", b"1,2\n").unwrap();
        assert_eq!(std::fs::read(&csv).unwrap(), b"1,2\n");
        let json = dir.write_json("x.json", &[1, 2]).unwrap();
        assert_eq!(std::fs::read_to_string(json).unwrap(), "[\n  1,\n  2\n]");
        let index = dir.finish("<html></html>").unwrap();
        assert_eq!(index, tmp.path().join("a/b").join(INDEX_HTML));

        let blocker = tmp.path().join("not-a-dir");
        std::fs::write(&blocker, "x").unwrap();
        let err = ReportDir::create(&blocker.join("report")).unwrap_err();
        assert!(err.to_string().contains("not-a-dir"), "{err}");
    }
}
