//! A report directory, written so that a failure leaves the previous report intact: every file first goes
//! into a hidden staging directory inside the report directory (`.vsr2d-report-XXXXXX/`, registered for
//! signal cleanup, deleted on drop). [`ReportDir::finish`] then checks every destination, renames the
//! new files into place, and renames `index.html` last, over the old one. Until `finish`, nothing in the
//! report directory changes; a run that fails or is interrupted before it leaves the old report as it
//! was, and a failure while publishing never removes the old `index.html`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use vsr2d::output::atomic::{self, Registration};

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
    #[error("report file name {name:?} must be a plain file name (no directory, not `{INDEX_HTML}`)")]
    Name { name: String },
}

/// A report directory being written.
#[derive(Debug)]
pub struct ReportDir {
    dir: PathBuf,
    // Field order: the registration drops before the staging directory is deleted.
    _registration: Registration,
    staging: tempfile::TempDir,
    /// Files staged so far, in order.
    names: std::cell::RefCell<Vec<String>>,
}

impl ReportDir {
    /// Creates `dir` (and its parents) if missing, and the staging directory inside it.
    pub fn create(dir: &Path) -> Result<ReportDir, DirError> {
        let io = |source| DirError::Io { path: dir.to_path_buf(), source };
        std::fs::create_dir_all(dir).map_err(io)?;
        let (staging, registration) = atomic::staging_dir(dir).map_err(io)?;
        Ok(ReportDir { dir: dir.to_path_buf(), _registration: registration, staging, names: Default::default() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Stages `bytes` as `name` and returns the path the file will have once the report is finished.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, DirError> {
        let plain = Path::new(name).file_name().is_some_and(|n| n == name);
        if !plain || name == INDEX_HTML {
            return Err(DirError::Name { name: name.to_string() });
        }
        let path = self.dir.join(name);
        std::fs::write(self.staging.path().join(name), bytes)
            .map_err(|source| DirError::Io { path: path.clone(), source })?;
        let mut names = self.names.borrow_mut();
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        Ok(path)
    }

    /// Registers `name` and returns where to create it inside the staging directory, for writers that
    /// create their file themselves (a video encoder); it is published with the others by [`finish`].
    ///
    /// [`finish`]: ReportDir::finish
    pub fn staged_path(&self, name: &str) -> Result<PathBuf, DirError> {
        let plain = Path::new(name).file_name().is_some_and(|n| n == name);
        if !plain || name == INDEX_HTML {
            return Err(DirError::Name { name: name.to_string() });
        }
        let mut names = self.names.borrow_mut();
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        Ok(self.staging.path().join(name))
    }

    /// Encodes `img` as PNG and stages it as `name`.
    pub fn write_png(&self, name: &str, img: &image::DynamicImage) -> Result<PathBuf, DirError> {
        let mut bytes = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
            .map_err(|source| DirError::Image { path: self.dir.join(name), source })?;
        self.write(name, &bytes)
    }

    /// Stages `value` as pretty-printed JSON named `name`.
    pub fn write_json(&self, name: &str, value: &impl Serialize) -> Result<PathBuf, DirError> {
        let json = serde_json::to_string_pretty(value)
            .map_err(|source| DirError::Json { path: self.dir.join(name), source })?;
        self.write(name, json.as_bytes())
    }

    /// Stages `index.html`, then publishes the report: every destination is checked first (a failure
    /// there changes nothing), the staged files are renamed into place, and the new `index.html` last,
    /// over the old one (a rename: the old page stays until the new one replaces it, also when
    /// publishing fails half-way). Returns the path of `index.html`.
    pub fn finish(self, index_html: &str) -> Result<PathBuf, DirError> {
        let index = self.dir.join(INDEX_HTML);
        let staged_index = self.staging.path().join(INDEX_HTML);
        std::fs::write(&staged_index, index_html).map_err(|source| DirError::Io { path: index.clone(), source })?;
        let names = self.names.borrow();
        for name in names.iter().map(String::as_str).chain([INDEX_HTML]) {
            let path = self.dir.join(name);
            atomic::target(&path).map_err(|source| DirError::Io { path, source })?;
        }
        for name in names.iter() {
            let path = self.dir.join(name);
            publish(&self.staging.path().join(name), &path).map_err(|source| DirError::Io { path, source })?;
        }
        publish(&staged_index, &index).map_err(|source| DirError::Io { path: index.clone(), source })?;
        Ok(index)
    }
}

/// Moves a staged file to its place in the report (a rename; a device or FIFO there is written into).
fn publish(staged: &Path, path: &Path) -> std::io::Result<()> {
    match atomic::target(path)? {
        atomic::Target::Replace(p) => std::fs::rename(staged, p),
        atomic::Target::Direct(_) => atomic::write(path, &std::fs::read(staged)?),
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
        assert!(!csv.exists(), "staged, not published yet");
        let json = dir.write_json("x.json", &[1, 2]).unwrap();
        let index = dir.finish("<html></html>").unwrap();
        assert_eq!(std::fs::read_to_string(json).unwrap(), "[\n  1,\n  2\n]");
        assert_eq!(index, tmp.path().join("a/b").join(INDEX_HTML));
        assert_eq!(std::fs::read(&csv).unwrap(), b"1,2\n");
        let names: Vec<_> =
            std::fs::read_dir(tmp.path().join("a/b")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 3, "no staging directory left: {names:?}");

        let blocker = tmp.path().join("not-a-dir");
        std::fs::write(&blocker, "x").unwrap();
        let err = ReportDir::create(&blocker.join("report")).unwrap_err();
        assert!(err.to_string().contains("not-a-dir"), "{err}");
    }

    #[test]
    fn a_report_that_fails_before_finishing_leaves_the_old_one_intact() {
        let tmp = tempfile::tempdir().unwrap();
        let old = ReportDir::create(tmp.path()).unwrap();
        old.write("data.csv", b"old").unwrap();
        old.finish("old index").unwrap();

        let new = ReportDir::create(tmp.path()).unwrap();
        new.write("data.csv", b"new").unwrap();
        assert!(new.write("../escape.csv", b"x").is_err());
        drop(new); // e.g. a later file failed: the report is never finished
        assert_eq!(std::fs::read(tmp.path().join("data.csv")).unwrap(), b"old");
        assert_eq!(std::fs::read(tmp.path().join(INDEX_HTML)).unwrap(), b"old index");
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_report_that_fails_while_publishing_keeps_the_old_index() {
        let tmp = tempfile::tempdir().unwrap();
        let old = ReportDir::create(tmp.path()).unwrap();
        old.write("a.csv", b"old a").unwrap();
        old.finish("old index").unwrap();
        // A directory where a new file goes: publishing fails.
        std::fs::create_dir(tmp.path().join("b.csv")).unwrap();
        let new = ReportDir::create(tmp.path()).unwrap();
        new.write("a.csv", b"new a").unwrap();
        new.write("b.csv", b"new b").unwrap();
        let err = new.finish("new index").unwrap_err();
        assert!(err.to_string().contains("b.csv"), "{err}");
        assert_eq!(std::fs::read(tmp.path().join(INDEX_HTML)).unwrap(), b"old index");
        assert_eq!(std::fs::read(tmp.path().join("a.csv")).unwrap(), b"old a", "checked before anything moved");
    }

    #[test]
    fn staging_directories_of_dead_processes_are_removed_by_the_next_report() {
        let tmp = tempfile::tempdir().unwrap();
        // A pid no process has (above the kernel's pid_max), and an untagged one (kept: owner unknown).
        let dead = tmp.path().join(".vsr2d-report-~4294967295~AbCdEf");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("curves.png"), "x").unwrap();
        let untagged = tmp.path().join(".vsr2d-report-AbCdEf");
        std::fs::create_dir(&untagged).unwrap();
        let report = ReportDir::create(tmp.path()).unwrap();
        assert!(!dead.exists() && untagged.exists());
        report.finish("index").unwrap();
    }
}
