//! Run directories are owned: a directory that `evolve` or `study` writes into carries a marker file
//! naming its owner (the kind of run, an identifier such as the experiment's hash, a format version),
//! and a process writing into it holds an advisory lock on it. The rules:
//!
//! - a missing or empty directory is claimed: the marker is written;
//! - a directory whose marker names the same run is resumed;
//! - a directory whose marker names another run, or that holds anything without a marker (a user's
//!   files, another program's output) is refused **untouched** — nothing is created, deleted or changed;
//!   a caller may *adopt* a marker-less directory it recognises (a run written before markers existed);
//! - a directory another process holds is refused while that process lives: the lock is the operating
//!   system's advisory file lock (`flock`), released when the process exits, also after `kill -9`;
//! - the process that holds a directory exclusively removes what dead processes left there: temporary
//!   files and report staging directories.
//!
//! The same lock guards a single results file ([`lock_file`], `eval --output`).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::atomic;

/// The marker file: `{"vsr2d_run": kind, "id": …, "format": …}`.
pub(crate) const MARKER: &str = ".vsr2d-run.json";
/// The lock file (empty; only its advisory lock matters).
pub(crate) const LOCK: &str = ".vsr2d-run.lock";
/// The marker's format version.
pub(crate) const FORMAT: u64 = 1;

/// Who owns a directory.
pub struct Owner<'a> {
    /// What writes it: `"evolve"`, `"study"`.
    pub kind: &'a str,
    /// Which run: e.g. the experiment's hash.
    pub id: &'a str,
    /// Recognises a marker-less directory as this owner's (a run written before markers existed).
    pub adopt: &'a dyn Fn(&Path) -> bool,
}

/// How a directory is held: one writer, or several cooperating ones (the shards of a study, each of
/// which then holds its own run directory exclusively).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Exclusive,
    Shared,
}

/// Why a directory (or a results file) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    #[error(
        "{} is in use by another vsr2d process (it holds the lock on {}); wait until that process ends, or give \
         another directory",
        path.display(), lock.display()
    )]
    Busy { path: PathBuf, lock: PathBuf },
    #[error("{} holds {what}; it was left untouched: give another directory (or a new, empty one)", path.display())]
    Foreign { path: PathBuf, what: String },
    #[error("cannot use {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
}

impl RunDirError {
    /// Every refusal is the caller's input (exit 2) but an I/O failure.
    pub fn is_input(&self) -> bool {
        !matches!(self, RunDirError::Io { .. })
    }
}

/// A directory held by this process (the lock is released when it drops).
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    _lock: File,
}

impl RunDir {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> RunDirError + '_ {
    move |source| RunDirError::Io { path: path.to_path_buf(), source }
}

/// What the directory is, read only: Ok(true) when the marker names `owner`, Ok(false) when it may be
/// claimed (missing, empty or adopted), Err when it must be refused.
fn inspect(dir: &Path, owner: &Owner) -> Result<bool, RunDirError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            return Err(RunDirError::Foreign { path: dir.to_path_buf(), what: "no directory (it is a file)".into() })
        }
        Err(source) => return Err(RunDirError::Io { path: dir.to_path_buf(), source }),
    };
    let mut others: Vec<String> = Vec::new();
    let mut has_marker = false;
    for e in entries {
        let name = e.map_err(io_err(dir))?.file_name().to_string_lossy().into_owned();
        match name.as_str() {
            MARKER => has_marker = true,
            LOCK => {}
            // Another process writing the marker now (two shards starting together), or one killed
            // while writing it: its temporary says nothing about who owns the directory.
            _ if name.starts_with(&format!(".{MARKER}.")) && atomic::temporary_pid(&name).is_some() => {}
            _ => others.push(name),
        }
    }
    if has_marker {
        let path = dir.join(MARKER);
        let text = fs::read_to_string(&path).map_err(io_err(&path))?;
        let marker: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let (kind, id, format) = (marker["vsr2d_run"].as_str(), marker["id"].as_str(), marker["format"].as_u64());
        return match (kind, id, format) {
            (Some(k), Some(i), Some(FORMAT)) if k == owner.kind && i == owner.id => Ok(true),
            (Some(k), Some(_), Some(FORMAT)) if k == owner.kind => Err(RunDirError::Foreign {
                path: dir.to_path_buf(),
                what: format!("another {k} run (its {MARKER} names another experiment or other settings)"),
            }),
            (Some(k), _, Some(FORMAT)) => Err(RunDirError::Foreign {
                path: dir.to_path_buf(),
                what: format!(
                    "a vsr2d {k} run, not a{} {} run",
                    if owner.kind.starts_with('e') { "n" } else { "" },
                    owner.kind
                ),
            }),
            (_, _, Some(f)) if f > FORMAT => Err(RunDirError::Foreign {
                path: dir.to_path_buf(),
                what: format!("a run of a newer vsr2d ({MARKER} format {f}; this one reads {FORMAT})"),
            }),
            _ => Err(RunDirError::Foreign { path: dir.to_path_buf(), what: format!("an unreadable {MARKER}") }),
        };
    }
    if others.is_empty() || (owner.adopt)(dir) {
        return Ok(false);
    }
    others.sort();
    let shown: Vec<&str> = others.iter().take(3).map(String::as_str).collect();
    Err(RunDirError::Foreign {
        path: dir.to_path_buf(),
        what: format!(
            "files that are not a vsr2d {} run ({}{})",
            owner.kind,
            shown.join(", "),
            if others.len() > 3 { ", …" } else { "" }
        ),
    })
}

/// Claims `dir` for `owner` (see the module docs): refuses a foreign or busy directory before changing
/// anything, then creates it if missing, takes the lock, writes the marker if absent and, with exclusive
/// access, removes dead processes' temporaries.
pub fn claim(dir: &Path, owner: &Owner, access: Access) -> Result<RunDir, RunDirError> {
    inspect(dir, owner)?;
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let lock_path = dir.join(LOCK);
    let lock =
        OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(io_err(&lock_path))?;
    let locked = match access {
        Access::Exclusive => lock.try_lock(),
        Access::Shared => lock.try_lock_shared(),
    };
    match locked {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            return Err(RunDirError::Busy { path: dir.to_path_buf(), lock: lock_path });
        }
        Err(fs::TryLockError::Error(source)) => return Err(RunDirError::Io { path: lock_path, source }),
    }
    // Again under the lock: another process may have claimed the directory in between.
    if !inspect(dir, owner)? {
        let marker =
            json!({ "vsr2d_run": owner.kind, "id": owner.id, "format": FORMAT, "vsr2d": env!("CARGO_PKG_VERSION") });
        let path = dir.join(MARKER);
        atomic::write(&path, format!("{marker}\n").as_bytes()).map_err(io_err(&path))?;
    }
    let held = RunDir { path: dir.to_path_buf(), _lock: lock };
    if access == Access::Exclusive {
        remove_stale(dir);
    }
    Ok(held)
}

/// Locks a results file for this process (`eval --output`): refused while another process holds it.
pub fn lock_file(file: &File, path: &Path) -> Result<(), RunDirError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(fs::TryLockError::WouldBlock) => {
            Err(RunDirError::Busy { path: path.to_path_buf(), lock: path.to_path_buf() })
        }
        Err(fs::TryLockError::Error(source)) => Err(RunDirError::Io { path: path.to_path_buf(), source }),
    }
}

/// Removes, in a directory held exclusively (and its `generations/`), every temporary file and report
/// staging directory that no live write of this process owns: nobody else can be writing there.
fn remove_stale(dir: &Path) -> usize {
    let mut removed = 0;
    for d in [dir.to_path_buf(), dir.join("generations")] {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if name == MARKER || name == LOCK || !name.starts_with('.') || atomic::is_live_temporary(&path) {
                continue;
            }
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let ok = if is_dir && name.starts_with(atomic::REPORT_STAGING_PREFIX) {
                fs::remove_dir_all(&path).is_ok()
            } else if !is_dir && (atomic::temporary_pid(&name).is_some() || name.ends_with(".tmp")) {
                fs::remove_file(&path).is_ok()
            } else {
                false
            };
            removed += usize::from(ok);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner<'a>(id: &'a str) -> Owner<'a> {
        Owner { kind: "evolve", id, adopt: &|_| false }
    }

    /// Two shards of a study start together into a new directory: one sees the other's temporary
    /// marker (written, then renamed into place) and must not take it for a foreign file.
    #[test]
    fn the_markers_temporary_of_another_process_is_not_a_foreign_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("study");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join(format!(".{MARKER}.~4194301~Ab12.tmp")), "{").unwrap();
        let study = Owner { kind: "study", id: "s", adopt: &|_| false };
        let held = claim(&dir, &study, Access::Shared).expect("a marker being written is no foreign file");
        drop(held);
        // Anything else still is.
        let other = tmp.path().join("other");
        fs::create_dir(&other).unwrap();
        fs::write(other.join(format!(".{MARKER}.~4194301~Ab12.tmp")), "{").unwrap();
        fs::write(other.join("notes.txt"), "mine").unwrap();
        assert!(matches!(claim(&other, &study, Access::Shared), Err(RunDirError::Foreign { .. })));
    }

    #[test]
    fn an_empty_or_missing_directory_is_claimed_and_the_same_owner_comes_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        let held = claim(&dir, &owner("a"), Access::Exclusive).unwrap();
        let marker: Value = serde_json::from_str(&fs::read_to_string(dir.join(MARKER)).unwrap()).unwrap();
        assert_eq!(
            (marker["vsr2d_run"].as_str(), marker["id"].as_str(), marker["format"].as_u64()),
            (Some("evolve"), Some("a"), Some(1))
        );
        drop(held);
        claim(&dir, &owner("a"), Access::Exclusive).unwrap();
    }

    #[test]
    fn foreign_directories_are_refused_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("user");
        fs::create_dir(&user).unwrap();
        fs::write(user.join("log.jsonl"), "mine").unwrap();
        let err = claim(&user, &owner("a"), Access::Exclusive).unwrap_err();
        assert!(matches!(err, RunDirError::Foreign { .. }) && err.to_string().contains("log.jsonl"), "{err}");
        let names: Vec<_> = fs::read_dir(&user).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("log.jsonl")], "nothing created");

        let other = tmp.path().join("other");
        drop(claim(&other, &owner("a"), Access::Exclusive).unwrap());
        let before = fs::read(other.join(MARKER)).unwrap();
        let err = claim(&other, &owner("b"), Access::Exclusive).unwrap_err();
        assert!(err.to_string().contains("another evolve run"), "{err}");
        assert_eq!(fs::read(other.join(MARKER)).unwrap(), before);
        let err = claim(&other, &Owner { kind: "study", id: "a", adopt: &|_| false }, Access::Exclusive).unwrap_err();
        assert!(err.to_string().contains("not a study run"), "{err}");
        // Adoption: a marker-less directory the owner recognises.
        claim(&user, &Owner { kind: "evolve", id: "a", adopt: &|d| d.join("log.jsonl").exists() }, Access::Exclusive)
            .unwrap();
        assert!(user.join(MARKER).exists());
    }

    #[test]
    fn a_held_directory_is_busy_until_released_and_shared_holders_coexist() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        let held = claim(&dir, &owner("a"), Access::Exclusive).unwrap();
        let err = claim(&dir, &owner("a"), Access::Exclusive).unwrap_err();
        assert!(matches!(err, RunDirError::Busy { .. }) && err.is_input(), "{err}");
        assert!(claim(&dir, &owner("a"), Access::Shared).is_err());
        drop(held);
        let s1 = claim(&dir, &owner("a"), Access::Shared).unwrap();
        let s2 = claim(&dir, &owner("a"), Access::Shared).unwrap();
        assert!(claim(&dir, &owner("a"), Access::Exclusive).is_err());
        drop((s1, s2));
        claim(&dir, &owner("a"), Access::Exclusive).unwrap();
    }

    #[test]
    fn an_exclusive_claim_removes_dead_temporaries_and_keeps_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        drop(claim(&dir, &owner("a"), Access::Exclusive).unwrap());
        fs::create_dir_all(dir.join("generations")).unwrap();
        fs::write(dir.join(".best.json.AbC123.tmp"), "x").unwrap();
        fs::write(dir.join("generations/.gen-0001.json.~999999999~Ab.tmp"), "x").unwrap();
        fs::create_dir(dir.join(".vsr2d-report-Xy12")).unwrap();
        fs::write(dir.join("best.json"), "{}").unwrap();
        fs::write(dir.join(".hidden-by-user"), "keep").unwrap();
        drop(claim(&dir, &owner("a"), Access::Exclusive).unwrap());
        let mut names: Vec<String> =
            fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, [".hidden-by-user", MARKER, LOCK, "best.json", "generations"]);
        assert_eq!(fs::read_dir(dir.join("generations")).unwrap().count(), 0);
    }
}
