//! Writing a file that readers may have memory-mapped: a new file beside
//! it, synced, then renamed over it, so that a process that maps the old
//! file keeps a consistent (old) view and never sees a half-written one.
//! The command line's `-o` and the Python binding's `save` and
//! `build_store` decide with [`destination`] what may be written, and
//! write through [`replace_file`].

use std::io::Write;
use std::path::{Path, PathBuf};

/// What is at a path an output is to be written to.
#[derive(Debug)]
pub enum Destination {
    /// Nothing: a new file is created.
    New,
    /// A regular file, or a link to one: `target` (links followed) is
    /// replaced, with its `permissions` (read-only ones included: the
    /// caller refuses those, after its own checks).
    Replace {
        target: PathBuf,
        permissions: std::fs::Permissions,
    },
    /// A FIFO or a character device: written through, never replaced.
    Stream,
}

/// Why nothing may be written at a path.
#[derive(Debug)]
pub enum Refusal {
    /// A directory.
    Directory,
    /// A symbolic link to nothing (not followed).
    DanglingLink,
    /// Not a regular file, FIFO or character device (a socket, a block
    /// device).
    Other,
    /// The path could not be examined.
    Io(std::io::Error),
}

/// What is at `path`, as [`Destination`]; links are followed to the file
/// they name.
///
/// # Errors
///
/// A [`Refusal`]: a directory, a link to nothing, another kind of file, or
/// an I/O error.
pub fn destination(path: &Path) -> Result<Destination, Refusal> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(Refusal::Directory),
        Ok(meta) if is_stream(&meta.file_type()) => Ok(Destination::Stream),
        Ok(meta) if !meta.is_file() => Err(Refusal::Other),
        Ok(meta) => Ok(Destination::Replace {
            target: std::fs::canonicalize(path).map_err(Refusal::Io)?,
            permissions: meta.permissions(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                Err(Refusal::DanglingLink)
            } else {
                Ok(Destination::New)
            }
        }
        Err(e) => Err(Refusal::Io(e)),
    }
}

#[cfg(unix)]
fn is_stream(ty: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    ty.is_fifo() || ty.is_char_device()
}

#[cfg(not(unix))]
fn is_stream(_: &std::fs::FileType) -> bool {
    false
}

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

/// What a store build's destination holds that an empty build would lose:
/// a store or store set with hosts, or a file that is no store (`None`:
/// nothing, an empty file or store, a FIFO or device, standard output).
/// A build that read no host refuses to replace it unless told to: an
/// empty manifest is what a failed fetch stage leaves (issue 41, item 8).
pub fn hosts_held(path: &Path) -> Option<String> {
    if path.as_os_str() == "-" {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return robocc_engine::StoreSet::open(path)
            .ok()
            .filter(|s| s.host_count() > 0)
            .map(|s| format!("a store set of {} hosts", s.host_count()));
    }
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    match robocc_engine::Store::open(path) {
        Ok(s) if s.host_count() == 0 => None,
        Ok(s) => Some(format!("a store of {} hosts", s.host_count())),
        Err(_) => Some(format!("a file of {} bytes", meta.len())),
    }
}

/// The refusal of an empty build over `path`, which holds `held`
/// ([`hosts_held`]); `flag` names the option that allows it.
pub fn emptying_refused(path: &Path, held: &str, flag: &str) -> String {
    format!(
        "{}: not written: the build read no host, and {} holds {held} (did the fetch stage \
         fail?); give {flag} to replace it with an empty store",
        path.display(),
        path.display()
    )
}
