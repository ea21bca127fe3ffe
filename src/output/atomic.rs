//! Outputs appear under their final name only when complete: the bytes go to a hidden sibling temporary
//! file (`.NAME.XXXXXX<suffix>`, in the same directory so the rename cannot cross file systems), which is
//! then renamed over the final path. The one implementation every writer uses.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use tempfile::NamedTempFile;

/// The directory a path's file lives in (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new hidden temporary sibling of `final_path`. Plain temporary files are private (`0600`); these are
/// created `0666 & !umask`, like any other file a program writes, since they become published outputs.
pub fn sibling_temp(final_path: &Path, suffix: &str) -> io::Result<NamedTempFile> {
    let name = final_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(parent_dir(final_path))
}

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = sibling_temp(path, ".tmp")?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
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
}
