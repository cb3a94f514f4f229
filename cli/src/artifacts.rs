//! Opening robocc files: policies, stores and store sets, refused with
//! what to type when the path is not the kind the flag reads or the file is
//! damaged; and, for `--policy` and `--store`, the compile flags held to
//! what the file was built with.

use crate::compile_flags::Built;
use crate::options::{CompileFlags, Given};
use robocc_engine::{PolicyFile, Store};
use std::path::Path;

impl CompileFlags {
    /// `--policy FILE`, opened, once the flags `given` agree with what it
    /// was compiled with ([`CompileFlags::check_against`]).
    pub fn open_policy(&self, path: &Path, given: &Given) -> Result<PolicyFile, String> {
        let file = open_policy(path)?;
        self.check_against(given, path, &Built::policy(file.policy().header()))?;
        Ok(file)
    }

    /// [`CompileFlags::open_policy`] for a command that reads one agent's
    /// policy (`diff`, `explain`, `page`): an each-agent one is refused
    /// rather than read as its first agent's.
    pub fn open_one_agent_policy(&self, path: &Path, given: &Given) -> Result<PolicyFile, String> {
        let file = self.open_policy(path, given)?;
        if file.policy().is_each_agent() {
            return Err(format!(
                "{} answers each of several agents (--each-agent): this command reads one \
                 agent's policy; compile one with --agent (or use check)",
                path.display()
            ));
        }
        Ok(file)
    }

    /// `--store STORE|DIR`, opened (a directory as a store set), once the
    /// flags `given` agree with what it was built with.
    pub fn open_stores(&self, path: &Path, given: &Given) -> Result<Stores, String> {
        let stores = if path.is_dir() {
            Stores::Set(open_store_set(path)?)
        } else {
            Stores::One(open_store(path)?)
        };
        let built = match &stores {
            Stores::One(s) => Built::store(s.agent(), s.dialect()),
            Stores::Set(s) => Built::store(s.agent(), s.dialect()),
        };
        self.check_against(given, path, &built)?;
        Ok(stores)
    }
}

/// What `--store` names: one store file, or a store set's directory.
pub enum Stores {
    One(Store),
    Set(robocc_engine::StoreSet),
}

/// Refuses an artifact path that is not a regular file, with what to type:
/// policies and stores are mapped, never read from a stream (a FIFO with no
/// writer would block the open forever). The check reads the file's type
/// without opening it; the engine checks the opened file again, so a swap
/// in between is refused too, not waited on.
fn regular_artifact(path: &Path, kind: robocc_engine::FileKind) -> Result<(), String> {
    let what = kind.name();
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {what} {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!(
            "{} is a directory, not a {what} file",
            path.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "{} is {}, not a regular file: a {what} is mapped from a file (save it to a file \
             first)",
            path.display(),
            robocc_engine::file_type_name(meta.file_type())
        ));
    }
    Ok(())
}

/// Opens a policy (a regular file, mapped); the error names the file, and
/// the flag that reads it when it is a store.
pub fn open_policy(path: &Path) -> Result<PolicyFile, String> {
    regular_artifact(path, robocc_engine::FileKind::Policy)?;
    PolicyFile::open(path).map_err(kind_hint)
}

/// Opens a store, as [`open_policy`] does a policy.
pub fn open_store(path: &Path) -> Result<Store, String> {
    open_store_hinted(path, kind_hint)
}

/// Opens the store given to `store build --base`: as [`open_store`], but a
/// store of another format says that it cannot be a base (every format
/// change breaks a daily rebuild once).
pub fn open_base_store(path: &Path) -> Result<Store, String> {
    use robocc_engine::{FileKind, LoadErrorKind};
    const SET: &str = "a store set cannot be a base yet: build without --base";
    if path.is_dir() {
        return Err(if path.join(robocc_engine::STORE_SET_INDEX).is_file() {
            format!(
                "--base {}: a store set's directory; --base takes a single store file ({SET})",
                path.display()
            )
        } else {
            format!(
                "--base {}: a directory; --base takes a store file that robocc store build wrote",
                path.display()
            )
        });
    }
    open_store_hinted(path, |e| match e.kind() {
        LoadErrorKind::Version { .. } => {
            format!("{e} (a store of another format cannot be a base: build once without --base)")
        }
        LoadErrorKind::BadMagic {
            other: None | Some(FileKind::Policy),
        } => {
            format!("{e} (--base takes a store that robocc store build wrote)")
        }
        LoadErrorKind::BadMagic {
            other: Some(FileKind::StoreSet),
        } => format!("{e} ({SET})"),
        _ => kind_hint(e),
    })
}

fn open_store_hinted(
    path: &Path,
    hint: impl Fn(robocc_engine::LoadError) -> String,
) -> Result<Store, String> {
    regular_artifact(path, robocc_engine::FileKind::Store)?;
    Store::open(path).map_err(&hint)
}

/// Opens the store set in directory `path`; the error says when the
/// directory is not one.
pub fn open_store_set(path: &Path) -> Result<robocc_engine::StoreSet, String> {
    if !path.join(robocc_engine::STORE_SET_INDEX).exists() {
        return Err(format!(
            "{} is a directory, not a store file, and not a store set (it has no {})",
            path.display(),
            robocc_engine::STORE_SET_INDEX
        ));
    }
    robocc_engine::StoreSet::open(path).map_err(|e| e.to_string())
}

/// A load error, with the flag that reads the file when it is the other
/// kind of robocc file, and what to do about a damaged one.
pub(crate) fn kind_hint(e: robocc_engine::LoadError) -> String {
    use robocc_engine::{FileKind, LoadErrorKind};
    match e.kind() {
        LoadErrorKind::BadMagic {
            other: Some(FileKind::Policy),
        } => format!("{e} (check it with --policy FILE)"),
        LoadErrorKind::BadMagic {
            other: Some(FileKind::Store),
        } => format!("{e} (check it with --store FILE)"),
        LoadErrorKind::BadMagic {
            other: Some(FileKind::StoreSet),
        } => format!("{e} (it is a store set's index: give its directory to --store DIR)"),
        // Most often a robots.txt given where its compiled form goes.
        LoadErrorKind::BadMagic { other: None } => match e.file_kind() {
            FileKind::Store => format!(
                "{e} (robocc store build writes stores; a robots.txt is read with --robots FILE)"
            ),
            _ => format!(
                "{e} (robocc compile writes policies; a robots.txt is read with --robots FILE)"
            ),
        },
        // Damaged or cut short (a copy that did not finish, a disk fault):
        // robocc never writes such a file.
        LoadErrorKind::Length { .. }
        | LoadErrorKind::TooShort(_)
        | LoadErrorKind::Archive(_)
        | LoadErrorKind::Checksum { .. }
        | LoadErrorKind::Invalid(_) => match e.file_kind() {
            FileKind::Policy => format!("{e} (recompile the policy or copy it again)"),
            _ => format!("{e} (rebuild the {} or copy it again)", e.file_kind().name()),
        },
        LoadErrorKind::BigEndian => {
            format!("{e} (robocc writes little-endian files: rebuild it with robocc)")
        }
        // Artifacts are cheap to rebuild and there is no migration: say how.
        LoadErrorKind::Version { .. } => match e.file_kind() {
            FileKind::Store => format!(
                "{e} (rebuild it with this robocc: robocc store build --agent AGENT --manifest FILE -o STORE)"
            ),
            _ => format!(
                "{e} (recompile it with this robocc: robocc compile --robots ROBOTS.TXT --agent AGENT -o POLICY)"
            ),
        },
        _ => e.to_string(),
    }
}
