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
//!
//! Also how a command writes its whole output to standard output
//! ([`write_stdout`]) and names an output path in messages ([`output_name`]).

use std::io::Write;
use std::path::Path;

/// What `-o` does with a path, decided by [`plan_output`].
pub enum Plan {
    /// `-`: standard output (not a terminal).
    Stdout,
    /// A new file in an existing directory.
    New,
    /// A FIFO or a device: written through.
    Stream,
    /// A regular file (links followed): replaced, keeping its permissions.
    Replace {
        target: std::path::PathBuf,
        permissions: std::fs::Permissions,
    },
}

/// Checks that a `what` (policy, store) may be written to `path` without
/// writing anything: what [`write_output`] checks first, and what a
/// command that works long before it writes (`store build`) checks before
/// that work, so that a missing directory or `-o -` on a terminal is said
/// at once. `inputs` are the files the command reads, which it must not
/// overwrite.
pub fn plan_output(path: &Path, what: &str, inputs: &[&Path]) -> Result<Plan, String> {
    let shown = path.display();
    if path.as_os_str() == "-" {
        if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            return Err(format!(
                "not writing a binary {what} to a terminal: redirect standard output \
                 (-o - > FILE) or give -o FILE"
            ));
        }
        return Ok(Plan::Stdout);
    }
    use robocc_store::output::{destination, Destination, Refusal};
    let destination = destination(path);
    // A file of a store set's directory (its index, a shard, or a new
    // name there) is the set's: `--shards N -o DIR` rewrites it whole.
    let dir = match &destination {
        Ok(Destination::New) => path.parent().map(Path::to_path_buf),
        Ok(Destination::Replace { target, .. }) => target.parent().map(Path::to_path_buf),
        _ => None,
    };
    if let Some(dir) = dir {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".").to_path_buf()
        } else {
            dir
        };
        if holds_store_set(&dir) {
            return Err(format!(
                "{shown} is in the directory of the store set {} (it has a store set's {}): \
                 not written over the set's files; write the {what} elsewhere (a set is \
                 rebuilt with store build --shards N -o {})",
                dir.display(),
                robocc_engine::STORE_SET_INDEX,
                dir.display()
            ));
        }
        if matches!(destination, Ok(Destination::New)) && !dir.is_dir() {
            return Err(format!(
                "cannot write {what} {shown}: its directory {} does not exist (create it, \
                 or give another -o)",
                dir.display()
            ));
        }
    }
    match destination {
        Ok(Destination::New) => Ok(Plan::New),
        Ok(Destination::Stream) => Ok(Plan::Stream),
        Ok(Destination::Replace {
            target,
            permissions,
        }) => {
            for input in inputs {
                if same_file(path, input) {
                    return Err(format!(
                        "{shown} is the command's input ({}): write the {what} elsewhere",
                        input.display()
                    ));
                }
            }
            if permissions.readonly() {
                return Err(format!(
                    "{shown} is read-only: not replaced (make it writable or write elsewhere)"
                ));
            }
            Ok(Plan::Replace {
                target,
                permissions,
            })
        }
        Err(Refusal::Directory) => Err(format!(
            "{shown} is a directory: give a file name for the {what}, e.g. -o {}",
            path.join(format!("out.{what}")).display()
        )),
        Err(Refusal::DanglingLink) => Err(format!(
            "{shown} is a symbolic link to nothing: not followed"
        )),
        Err(Refusal::Other) => Err(format!(
            "{shown} is not a regular file, FIFO or character device: not written"
        )),
        Err(Refusal::Io(e)) => Err(format!("cannot write {what} {shown}: {e}")),
    }
}

/// Writes `bytes` (a `what`: policy, store) to `path`, checked again by
/// [`plan_output`] (what is at the path may have changed since a first
/// check); `inputs` are the files the command read, which it must not
/// overwrite.
pub fn write_output(path: &Path, bytes: &[u8], what: &str, inputs: &[&Path]) -> Result<(), String> {
    let shown = path.display();
    let fail = |e: std::io::Error| format!("cannot write {what} {shown}: {e}");
    match plan_output(path, what, inputs)? {
        Plan::Stdout => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write {what} to standard output: {e}"))
        }
        Plan::New => robocc_store::output::replace_file(path, bytes, None).map_err(fail),
        Plan::Stream => {
            // A FIFO or a device: open it as it is, never replace it.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(fail)?;
            f.write_all(bytes).and_then(|()| f.flush()).map_err(fail)
        }
        // The file a symbolic link points to is replaced, not the link.
        Plan::Replace {
            target,
            permissions,
        } => robocc_store::output::replace_file(&target, bytes, Some(permissions)).map_err(fail),
    }
}

/// `dir` holds a store set's index (a regular file that starts with the
/// set magic; a FIFO there is not waited on).
fn holds_store_set(dir: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(8);
    robocc_engine::open_regular(&dir.join(robocc_engine::STORE_SET_INDEX))
        .and_then(|f| f.take(8).read_to_end(&mut head))
        .is_ok_and(|_| {
            robocc_engine::FileKind::sniff(&head) == Some(robocc_engine::FileKind::StoreSet)
        })
}

/// `a` and `b` name the same file (following links).
#[cfg(unix)]
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// What a store set's output directory holds before it is written.
pub enum SetDir {
    /// Nothing there yet: the directory is created.
    New,
    /// An empty directory.
    Empty,
    /// A store set of this many shards: its shard files and index are
    /// replaced, shards past the new count removed, nothing else touched.
    Set(usize),
}

/// Checks that `dir` may receive a store set of `shards` shards: a new
/// path, an empty directory or an existing store set whose files are
/// regular files. Anything else is refused untouched, with what to type.
pub fn check_set_dir(dir: &Path, shards: usize, inputs: &[&Path]) -> Result<SetDir, String> {
    let shown = dir.display();
    // `link/` or `link/.` resolves through the link: the checks below look
    // at the path without them, so a link is refused however it is written.
    let dir: &Path = &dir.components().collect::<std::path::PathBuf>();
    let fresh = "give a new or empty directory";
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let name = dir.extension().and_then(|e| e.to_str());
            if matches!(name, Some("store" | "policy")) {
                return Err(format!(
                    "-o {shown} names a file, but --shards writes a directory of shard stores: \
                     give a directory, e.g. -o {}",
                    dir.with_extension("set").display()
                ));
            }
            return Ok(SetDir::New);
        }
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{shown} is a symbolic link: not followed; {fresh}, or the link's target itself"
        ));
    }
    if !meta.is_dir() {
        return Err(format!(
            "{shown} exists and is not a directory: --shards writes a directory of shard \
             stores; {fresh}, e.g. -o {}",
            dir.with_extension("set").display()
        ));
    }
    for input in inputs {
        if same_file(dir, input) {
            return Err(format!(
                "{shown} is the command's input: write the store set elsewhere"
            ));
        }
    }
    let mut entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if entries.next().is_none() {
        return Ok(SetDir::Empty);
    }
    let index = dir.join(robocc_engine::STORE_SET_INDEX);
    let not_ours = |why: String| {
        format!(
            "{shown} is not empty and {why}: nothing written or removed; {fresh} (e.g. -o {}), \
             or empty it first",
            dir.join("set").display()
        )
    };
    match std::fs::symlink_metadata(&index) {
        Ok(m) if m.is_file() => {}
        Ok(_) => {
            return Err(not_ours(format!(
                "its {} is not a regular file",
                robocc_engine::STORE_SET_INDEX
            )))
        }
        Err(_) => return Err(not_ours("is not a robocc store set (no index.txt)".into())),
    }
    let old = robocc_engine::StoreSet::open(dir)
        .map_err(|e| not_ours(format!("its index is not a store set's ({e})")))?;
    let old_n = old.shard_count();
    for i in 0..shards.max(old_n) {
        let path = old.shard_path(i);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.is_file() => {
                return Err(format!(
                    "{} is not a regular file: not replaced; {fresh}",
                    path.display()
                ))
            }
            Ok(m) if m.permissions().readonly() => {
                return Err(format!(
                    "{} is read-only: not replaced (make it writable or {fresh})",
                    path.display()
                ))
            }
            _ => {}
        }
    }
    Ok(SetDir::Set(old_n))
}

/// Writes a store set checked by [`check_set_dir`]: each shard through a
/// temporary file and a rename, the index last, then removes the shards of
/// the old set past the new count.
pub fn write_set(dir: &Path, was: &SetDir, shards: &[&[u8]], index: &str) -> Result<(), String> {
    let shown = dir.display();
    if matches!(was, SetDir::New) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {shown}: {e}"))?;
    }
    for (i, bytes) in shards.iter().enumerate() {
        let path = dir.join(robocc_engine::shard_file_name(i));
        robocc_store::output::replace_file(&path, bytes, None)
            .map_err(|e| format!("cannot write shard {}: {e}", path.display()))?;
    }
    let path = dir.join(robocc_engine::STORE_SET_INDEX);
    robocc_store::output::replace_file(&path, index.as_bytes(), None)
        .map_err(|e| format!("cannot write the index {}: {e}", path.display()))?;
    if let SetDir::Set(old_n) = *was {
        for i in shards.len()..old_n {
            let path = dir.join(robocc_engine::shard_file_name(i));
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&path)
                    .map_err(|e| format!("cannot remove the old shard {}: {e}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// An output path as messages name it (`-` is standard output).
pub fn output_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard output".into()
    } else {
        path.display().to_string()
    }
}

/// Writes a command's whole output to stdout. A closed pipe (`| head`) is
/// not an error, and leaves the command's exit code as it is.
pub fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}
