//! Writing a file that readers may have memory-mapped: a new file beside
//! it, synced, then renamed over it, so that a process that maps the old
//! file keeps a consistent (old) view and never sees a half-written one.
//! The command line's `-o` and the Python binding's `save` and
//! `build_store` write through it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes a new file beside `path` and renames it over `path`, with
/// `permissions` (the old file's, when it had some to keep). On failure the
/// temporary file is removed and `path` is untouched.
///
/// # Errors
///
/// Creating, writing, syncing or renaming the temporary file failed.
pub fn replace_file(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("out"),
        std::ffi::OsStr::to_os_string,
    );
    let (tmp, mut file) = create_temp(path, &name)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| match permissions {
            Some(p) => std::fs::set_permissions(&tmp, p),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new temporary file in `path`'s directory (never an existing one).
fn create_temp(path: &Path, name: &std::ffi::OsStr) -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut attempt = 0u32;
    loop {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{}-{attempt}.tmp", std::process::id()));
        let tmp = path.with_file_name(tmp_name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}
