//! `-o`: writing an artifact without damaging what is at the path.
//!
//! A regular file (or a new path) is replaced through a temporary file in
//! the same directory and a rename, so that a process that has the old file
//! memory-mapped keeps a consistent (old) view and never sees a half-written
//! one; a symbolic link is followed, and the link kept. A FIFO or a
//! character device is written through, as a shell redirection would. `-`
//! is standard output. Anything else (a directory, a block device, a
//! socket) is refused, and so is a read-only file or the command's own
//! input.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` (a `what`: policy, store) to `path`; `inputs` are the
/// files the command read, which it must not overwrite.
pub fn write_output(path: &Path, bytes: &[u8], what: &str, inputs: &[&Path]) -> Result<(), String> {
    let shown = path.display();
    let fail = |e: std::io::Error| format!("cannot write {what} {shown}: {e}");
    if path.as_os_str() == "-" {
        let stdout = std::io::stdout();
        if std::io::IsTerminal::is_terminal(&stdout) {
            return Err(format!(
                "not writing a binary {what} to a terminal: redirect standard output \
                 (-o - > FILE) or give -o FILE"
            ));
        }
        let mut out = stdout.lock();
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write {what} to standard output: {e}"));
    }
    match std::fs::metadata(path) {
        Ok(meta) => {
            let ty = meta.file_type();
            if meta.is_dir() {
                return Err(format!(
                    "{shown} is a directory: give a file name for the {what}, e.g. -o {}",
                    path.join(format!("out.{what}")).display()
                ));
            }
            if is_stream(&ty) {
                // A FIFO or a device: open it as it is, never replace it.
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(fail)?;
                return f.write_all(bytes).and_then(|()| f.flush()).map_err(fail);
            }
            if !meta.is_file() {
                return Err(format!(
                    "{shown} is not a regular file, FIFO or character device: not written"
                ));
            }
            for input in inputs {
                if same_file(path, input) {
                    return Err(format!(
                        "{shown} is the command's input ({}): write the {what} elsewhere",
                        input.display()
                    ));
                }
            }
            if meta.permissions().readonly() {
                return Err(format!(
                    "{shown} is read-only: not replaced (make it writable or write elsewhere)"
                ));
            }
            // Replace the file a symbolic link points to, not the link.
            let target = std::fs::canonicalize(path).map_err(fail)?;
            replace(&target, bytes, Some(meta.permissions())).map_err(fail)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(format!(
                    "{shown} is a symbolic link to nothing: not followed"
                ));
            }
            replace(path, bytes, None).map_err(fail)
        }
        Err(e) => Err(fail(e)),
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

#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes a new file beside `path` and renames it over `path`, keeping the
/// old file's permissions.
fn replace(
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
