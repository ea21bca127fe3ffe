//! Outputs appear under their final name only when complete: the bytes go to a hidden sibling temporary
//! file (`.NAME.XXXXXX<suffix>`, in the same directory so the rename cannot cross file systems), which is
//! then renamed over the final path. The one implementation every writer uses.
//!
//! Renaming *replaces* what the final path names, so it is used only for a regular file (or a path that
//! does not exist yet). What else a path may name is decided by [`target`]:
//!
//! - a symbolic link is followed: the temporary file goes next to the file it points at, which is
//!   replaced, and the link stays;
//! - a character device (`/dev/null`, a terminal) or a FIFO is **written directly**, never replaced (the
//!   documented direct-write path: [`Output`] opens it for writing, [`publish`] copies a finished
//!   temporary file into it);
//! - a block device, a socket or a dangling link is refused: nothing is written.
//!
//! Every temporary file (and temporary directory) is listed in a process-wide registry while it exists,
//! so that a SIGINT/SIGTERM handler can delete them all before the process dies
//! ([`remove_temporaries`]).

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

/// The directory a path's file lives in (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// How an output path is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file or nothing yet (this path, with links resolved): written to a sibling temporary
    /// file renamed over it.
    Replace(PathBuf),
    /// An existing character device or FIFO: opened and written directly, never replaced.
    Direct(PathBuf),
}

impl Target {
    pub fn path(&self) -> &Path {
        match self {
            Target::Replace(p) | Target::Direct(p) => p,
        }
    }
}

fn refuse(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("`{}` is {what}; vsr2d writes only regular files, character devices (e.g. /dev/null) and FIFOs: choose another path", path.display()),
    )
}

/// Decides how `path` is written (see the module docs). Fails for a directory, a block device, a socket
/// or a dangling symbolic link.
pub fn target(path: &Path) -> io::Result<Target> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::Replace(path.to_path_buf())),
        Err(e) => return Err(e),
    };
    let (path, meta) = if meta.file_type().is_symlink() {
        match fs::canonicalize(path) {
            Ok(resolved) => {
                let meta = fs::metadata(&resolved)?;
                (resolved, meta)
            }
            // `/dev/stdout` → `/proc/self/fd/1` → `pipe:[…]`: a link the kernel follows although no path
            // names its end. A pipe or a character device behind it is written directly (through the link).
            Err(_) => match fs::metadata(path) {
                Ok(meta) if is_direct(&meta) => return Ok(Target::Direct(path.to_path_buf())),
                _ => return Err(refuse(path, "a symbolic link to nothing")),
            },
        }
    } else {
        (path.to_path_buf(), meta)
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Target::Replace(path));
    }
    if kind.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("`{}` is a directory; give a file name inside it", path.display()),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(Target::Direct(path));
        }
        if kind.is_block_device() {
            return Err(refuse(&path, "a block device"));
        }
        if kind.is_socket() {
            return Err(refuse(&path, "a socket"));
        }
    }
    Err(refuse(&path, "not a regular file"))
}

/// Whether a file is a character device or a FIFO (written directly).
fn is_direct(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_char_device() || meta.file_type().is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Opens an existing character device or FIFO for writing (no truncation, no replacement).
pub(crate) fn open_direct(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).open(path)
}

// ---------------------------------------------------------------------------------------------------
// The registry of temporary files, for the signal handler.

static TEMPORARIES: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn registry() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Keeps `path` in the registry of temporaries while it lives.
#[derive(Debug)]
pub struct Registration {
    path: PathBuf,
}

impl Registration {
    /// Lists `path` (a temporary file or directory) until the registration drops.
    pub fn new(path: &Path) -> Registration {
        registry().insert(path.to_path_buf());
        Registration { path: path.to_path_buf() }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        registry().remove(&self.path);
    }
}

/// Deletes every registered temporary file and directory (what a SIGINT/SIGTERM handler calls before
/// the process exits); returns how many were removed.
pub fn remove_temporaries() -> usize {
    let paths: Vec<PathBuf> = std::mem::take(&mut *registry()).into_iter().collect();
    let mut removed = 0;
    for path in paths {
        let ok = if path.is_dir() { fs::remove_dir_all(&path).is_ok() } else { fs::remove_file(&path).is_ok() };
        removed += usize::from(ok);
    }
    removed
}

/// How many temporaries are registered now (for tests).
pub fn temporaries_count() -> usize {
    registry().len()
}

// ---------------------------------------------------------------------------------------------------

/// A hidden temporary sibling of `final_path`, registered for signal cleanup, deleted when dropped.
/// Plain temporary files are private (`0600`); these are created `0666 & !umask`, like any other file a
/// program writes, since they become published outputs.
#[derive(Debug)]
pub struct Temp {
    file: NamedTempFile,
    _registration: Registration,
}

impl Temp {
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Renames the file over `final_path` (which [`target`] classified as [`Target::Replace`]).
    pub(crate) fn persist(self, final_path: &Path) -> io::Result<()> {
        let Temp { file, _registration } = self;
        file.persist(final_path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Gives the file up as a path (closed, still deleted on drop, still registered).
    pub(crate) fn into_temp_path(self) -> TempPath {
        TempPath { path: self.file.into_temp_path(), _registration: self._registration }
    }
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A closed temporary file (for writers that need a path, e.g. FFmpeg), deleted when dropped.
#[derive(Debug)]
pub struct TempPath {
    path: tempfile::TempPath,
    _registration: Registration,
}

impl std::ops::Deref for TempPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// Publishes a finished temporary file at `final_path`: renamed over it, or, for a character device or
/// FIFO, copied into it (and then deleted).
pub fn publish(temp: TempPath, final_path: &Path) -> io::Result<()> {
    match target(final_path)? {
        Target::Replace(p) => {
            let TempPath { path, _registration } = temp;
            path.persist(p).map_err(|e| e.error)?;
            Ok(())
        }
        Target::Direct(p) => {
            let mut from = File::open(&*temp)?;
            let mut to = open_direct(&p)?;
            io::copy(&mut from, &mut to)?;
            to.flush()
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Temporaries left by dead processes. Every temporary name carries its process id as `~PID~`, so the
// next writer of the same output can tell a dead process's leftovers from a live writer's.

/// The prefix of a report's staging directory (`.vsr2d-report-~PID~XXXXXX`).
pub(crate) const REPORT_STAGING_PREFIX: &str = ".vsr2d-report-";

fn pid_tag() -> String {
    format!("~{}~", std::process::id())
}

/// The process id a temporary's name carries (`…~PID~…`), if any.
pub(crate) fn temporary_pid(name: &str) -> Option<u32> {
    let parts: Vec<&str> = name.split('~').collect();
    (1..parts.len().saturating_sub(1)).rev().find_map(|i| {
        (!parts[i].is_empty() && parts[i].bytes().all(|b| b.is_ascii_digit())).then(|| parts[i].parse().ok()).flatten()
    })
}

/// Whether `path` is a temporary this process is writing now.
pub(crate) fn is_live_temporary(path: &Path) -> bool {
    registry().contains(path)
}

/// Whether the process `pid` is gone (known only where `/proc` exists; elsewhere never assumed).
fn process_is_dead(pid: u32) -> bool {
    if pid == std::process::id() {
        return false; // ours: live ones are in the registry, checked by the caller
    }
    Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the entries of `dir` whose name starts with `prefix` and carries the id of a dead process (or
/// of this one, but no live temporary of it): what a killed writer of the same output left. Returns how
/// many were removed.
pub(crate) fn remove_dead_temporaries(dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(prefix) else { continue };
        let Some(pid) = temporary_pid(rest) else { continue };
        let path = e.path();
        let stale = if pid == std::process::id() { !is_live_temporary(&path) } else { process_is_dead(pid) };
        if stale {
            let ok = if e.file_type().is_ok_and(|t| t.is_dir()) {
                fs::remove_dir_all(&path)
            } else {
                fs::remove_file(&path)
            };
            removed += usize::from(ok.is_ok());
        }
    }
    removed
}

/// A temporary directory for a report's files inside `dir` (`.vsr2d-report-~PID~XXXXXX`), registered for
/// signal cleanup; staging directories of dead processes there are removed first.
pub fn staging_dir(dir: &Path) -> io::Result<(tempfile::TempDir, Registration)> {
    remove_dead_temporaries(dir, REPORT_STAGING_PREFIX);
    let staging = tempfile::Builder::new().prefix(&format!("{REPORT_STAGING_PREFIX}{}", pid_tag())).tempdir_in(dir)?;
    let registration = Registration::new(staging.path());
    Ok((staging, registration))
}

/// A new hidden temporary sibling of `final_path` (see [`Temp`]); the same output's temporaries left by
/// dead processes are removed first.
pub(crate) fn sibling_temp(final_path: &Path, suffix: &str) -> io::Result<Temp> {
    let name = final_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    remove_dead_temporaries(parent_dir(final_path), &format!(".{name}."));
    let prefix = format!(".{name}.{}", pid_tag());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let file = builder.tempfile_in(parent_dir(final_path))?;
    let registration = Registration::new(file.path());
    Ok(Temp { file, _registration: registration })
}

/// A temporary file to be [`publish`]ed at `final_path`: a sibling of the file it will replace, or, when
/// `final_path` is a device or FIFO (the bytes are copied into it), one in the system's temporary
/// directory.
pub(crate) fn staging_temp(final_path: &Path, suffix: &str) -> io::Result<Temp> {
    match target(final_path)? {
        Target::Replace(p) => sibling_temp(&p, suffix),
        Target::Direct(_) => sibling_temp(&std::env::temp_dir().join("vsr2d-output"), suffix),
    }
}

/// An output being written: a temporary file renamed into place by [`Output::commit`], or a device /
/// FIFO written directly.
#[derive(Debug)]
pub enum Output {
    Temp { temp: Temp, final_path: PathBuf },
    Direct { file: File, path: PathBuf },
}

impl Output {
    /// Opens the output for `path` now (see [`target`]).
    pub fn create(path: &Path, suffix: &str) -> io::Result<Output> {
        Ok(match target(path)? {
            Target::Replace(p) => Output::Temp { temp: sibling_temp(&p, suffix)?, final_path: p },
            Target::Direct(p) => Output::Direct { file: open_direct(&p)?, path: p },
        })
    }

    /// Flushes and publishes: renames the temporary file over the final path.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Output::Temp { mut temp, final_path } => {
                temp.flush()?;
                temp.persist(&final_path)
            }
            Output::Direct { mut file, .. } => file.flush(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Temp { temp, .. } => temp.write(buf),
            Output::Direct { file, .. } => file.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Temp { temp, .. } => temp.flush(),
            Output::Direct { file, .. } => file.flush(),
        }
    }
}

/// Writes `bytes` to `path` atomically (or directly, for a device or FIFO).
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut out = Output::create(path, ".tmp")?;
    out.write_all(bytes)?;
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_of_a_bare_name_is_the_current_directory() {
        assert_eq!(parent_dir(Path::new("out.mp4")), Path::new("."));
        assert_eq!(parent_dir(Path::new("a/out.mp4")), Path::new("a"));
    }

    #[test]
    fn writes_replace_atomically_and_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write(&path, b"first").unwrap();
        write(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "only the final file: {names:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Readable by others unless the umask forbids it: not the 0600 of a plain temporary file.
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_ne!(mode, 0o600, "mode {mode:o}");
            assert!(mode & 0o400 != 0);
        }
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_directly_and_links_followed() {
        assert_eq!(target(Path::new("/dev/null")).unwrap(), Target::Direct(PathBuf::from("/dev/null")));
        write(Path::new("/dev/null"), b"gone").unwrap();
        let meta = fs::symlink_metadata("/dev/null").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(meta.file_type().is_char_device(), "/dev/null is still a device");

        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(fs::read(&real).unwrap(), b"new");
        std::os::unix::fs::symlink(dir.path().join("nothing"), dir.path().join("dangling")).unwrap();
        assert!(write(&dir.path().join("dangling"), b"x").is_err());
    }

    #[test]
    fn temporaries_are_registered_until_published_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let temp = sibling_temp(&dir.path().join("a.txt"), ".tmp").unwrap();
        let path = temp.path().to_path_buf();
        assert!(registry().contains(&path));
        temp.persist(&dir.path().join("a.txt")).unwrap();
        assert!(!registry().contains(&path));
        let temp = sibling_temp(&dir.path().join("b.txt"), ".tmp").unwrap();
        let path = temp.path().to_path_buf();
        drop(temp);
        assert!(!registry().contains(&path) && !path.exists());
    }
}
