//! Where a build keeps compiled policies until the index is written: in
//! memory, then in a temporary file.

use crate::inputs::{InputError, InputErrorKind};
use crate::report::StoreError;
use std::borrow::Cow;

/// Compiled policies bytes in memory before [`Spill`] writes them to a
/// temporary file instead.
pub(super) const SPILL_AFTER: usize = 256 << 20;

/// A compiled policy: in memory, or at a place of the spill file.
pub(super) enum Artifact {
    Memory(Vec<u8>),
    Spilled { at: u64, len: usize },
}

/// Where a build keeps its compiled policies until the index is written:
/// in memory up to [`SPILL_AFTER`] bytes, then appended to a temporary file
/// (in `std::env::temp_dir()`, removed as soon as it is created: it goes
/// with the process), so that memory does not grow with the number of
/// distinct bodies. If the file cannot be made or written, they stay in
/// memory (the store is the same).
pub(super) struct Spill {
    /// Bytes kept in memory before the file is used.
    pub(super) limit: usize,
    pub(super) file: Option<std::fs::File>,
    /// Bytes written to `file`.
    pub(super) len: u64,
    pub(super) in_memory: usize,
    /// No more writes to `file` (one failed, or it could not be made).
    pub(super) closed: bool,
}

impl Default for Spill {
    fn default() -> Spill {
        Spill {
            limit: SPILL_AFTER,
            file: None,
            len: 0,
            in_memory: 0,
            closed: false,
        }
    }
}

impl Spill {
    pub(super) fn keep(&mut self, bytes: Vec<u8>) -> Artifact {
        if !cfg!(unix) || self.closed || self.in_memory + bytes.len() <= self.limit {
            self.in_memory += bytes.len();
            return Artifact::Memory(bytes);
        }
        if self.file.is_none() {
            self.file = spill_file().ok();
        }
        let written = self.file.as_mut().map(|f| {
            use std::io::Write;
            f.write_all(&bytes)
        });
        match written {
            Some(Ok(())) => {
                let at = self.len;
                self.len += bytes.len() as u64;
                Artifact::Spilled {
                    at,
                    len: bytes.len(),
                }
            }
            _ => {
                // A part may have been written: nothing more is.
                self.closed = true;
                self.in_memory += bytes.len();
                Artifact::Memory(bytes)
            }
        }
    }

    /// The bytes of an artifact.
    pub(super) fn load<'a>(&self, a: &'a Artifact) -> Result<Cow<'a, [u8]>, StoreError> {
        match a {
            Artifact::Memory(b) => Ok(Cow::Borrowed(b)),
            #[cfg(unix)]
            Artifact::Spilled { at, len } => {
                use std::os::unix::fs::FileExt;
                let mut out = vec![0; *len];
                self.file
                    .as_ref()
                    .ok_or_else(|| std::io::Error::other("no spill file"))
                    .and_then(|f| f.read_exact_at(&mut out, *at))
                    .map_err(|e| {
                        StoreError::Input(InputError {
                            at: "the build's temporary file of compiled policies".into(),
                            kind: InputErrorKind::io("", e),
                        })
                    })?;
                Ok(Cow::Owned(out))
            }
            // `keep` spills nothing elsewhere than on Unix.
            #[cfg(not(unix))]
            Artifact::Spilled { .. } => Err(StoreError::Input(InputError {
                at: "the build's temporary file of compiled policies".into(),
                kind: InputErrorKind::io(
                    "",
                    std::io::Error::new(std::io::ErrorKind::Unsupported, "not kept on this system"),
                ),
            })),
        }
    }
}

/// A new temporary file, already unlinked.
pub(super) fn spill_file() -> std::io::Result<std::fs::File> {
    let dir = std::env::temp_dir();
    for attempt in 0..100 {
        let path = dir.join(format!(
            ".robocc-build-{}-{attempt}.tmp",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                std::fs::remove_file(&path)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary file name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "policies compiled" counts the compiles that gave a policy, not the
    /// failures (listed apart) (stores audit F25).
    /// Policies past the spill limit go to the temporary file and come
    /// back byte for byte.
    #[test]
    fn spilled_policies_read_back() {
        let mut spill = Spill {
            limit: 10,
            ..Spill::default()
        };
        let parts: Vec<Vec<u8>> = (0..5u8).map(|i| vec![i; 7 + i as usize]).collect();
        let kept: Vec<Artifact> = parts.iter().map(|p| spill.keep(p.clone())).collect();
        assert!(matches!(kept[0], Artifact::Memory(_)));
        if cfg!(unix) {
            assert!(matches!(kept[4], Artifact::Spilled { .. }));
        }
        for (p, a) in parts.iter().zip(&kept) {
            assert_eq!(&spill.load(a).unwrap()[..], &p[..]);
        }
    }
}
