//! Two stores compared host by host: the hosts one has and the other has
//! not, and the hosts whose policy gives some URL another verdict. Each
//! distinct pair of policies (old, new) is diffed once, however many hosts
//! share it, and a pair of byte-identical policies not at all.

use super::{diff, Diff, DiffError, DiffOptions};
use robocc_engine::{HostInfo, HostSource, LoadError, PolicyId, Store, Usage};
use std::collections::HashMap;

/// A host's entry in one store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostSide {
    /// Why the host has its policy.
    pub source: HostSource,
    /// The HTTP status the store's input gave (0: unreachable).
    pub status: u16,
    /// The host's policy in its store.
    pub policy: PolicyId,
}

impl HostSide {
    fn of(info: &HostInfo<'_>) -> HostSide {
        HostSide {
            source: info.source,
            status: info.status,
            policy: info.policy,
        }
    }
}

/// What happened to one host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostChange {
    /// Only NEW has the host.
    Added(HostSide),
    /// Only OLD has the host.
    Removed(HostSide),
    /// Both have it, and some URL changes verdict.
    Changed {
        /// Its entry in OLD.
        old: HostSide,
        /// Its entry in NEW.
        new: HostSide,
        /// Its policies' diff: an index into [`StoreDiff::pairs`].
        pair: usize,
    },
}

/// One host whose answers changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostDiff {
    /// The stored host key.
    pub key: String,
    /// What happened to it.
    pub change: HostChange,
}

/// The diff of one pair of policies, shared by every host that has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDiff {
    /// OLD's policy.
    pub old: PolicyId,
    /// NEW's policy.
    pub new: PolicyId,
    /// One diff per usage compared, in the order given.
    pub by_usage: Vec<(Usage, Diff)>,
}

/// What [`diff_stores`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreDiff {
    /// The hosts whose answers changed, by key.
    pub hosts: Vec<HostDiff>,
    /// The policy pairs that changed some verdict, named by
    /// [`HostChange::Changed`].
    pub pairs: Vec<PairDiff>,
    /// Hosts both stores have.
    pub common: usize,
    /// Distinct pairs of policies diffed (byte-identical pairs are not).
    pub diffed: usize,
}

/// Why two stores could not be compared.
#[derive(Debug)]
pub enum StoreDiffError {
    /// A store is damaged.
    Load(LoadError),
    /// The stores were built for other agents or dialects.
    Built {
        /// What OLD was built for (`agent (dialect)`).
        old: String,
        /// What NEW was built for.
        new: String,
    },
    /// A host's two policies could not be compared.
    Pair {
        /// The host (the first with this pair).
        host: String,
        /// Why.
        error: DiffError,
    },
}

impl std::fmt::Display for StoreDiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreDiffError::Load(e) => write!(f, "{e}"),
            StoreDiffError::Built { old, new } => write!(
                f,
                "the stores were built for {old} and {new}: compare stores of one agent and dialect"
            ),
            StoreDiffError::Pair { host, error } => write!(f, "host {host}: {error}"),
        }
    }
}

impl std::error::Error for StoreDiffError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreDiffError::Load(e) => Some(e),
            StoreDiffError::Pair { error, .. } => Some(error),
            StoreDiffError::Built { .. } => None,
        }
    }
}

impl From<LoadError> for StoreDiffError {
    fn from(e: LoadError) -> Self {
        StoreDiffError::Load(e)
    }
}

fn built(s: &Store) -> String {
    format!("{} ({})", s.agent(), s.dialect().name())
}

/// Every host of `old` and `new` whose answers on `usages` differ: added,
/// removed, or whose policies give some URL another verdict (a host whose
/// status changed but whose verdicts did not is not listed).
///
/// # Errors
///
/// A damaged store, stores built for other agents or dialects, or a pair
/// of policies [`diff`] cannot compare within `max_pairs` (nothing is
/// answered then).
pub fn diff_stores(
    old: &Store,
    new: &Store,
    usages: &[Usage],
    max_pairs: usize,
) -> Result<StoreDiff, StoreDiffError> {
    if (old.agent(), old.dialect()) != (new.agent(), new.dialect()) {
        return Err(StoreDiffError::Built {
            old: built(old),
            new: built(new),
        });
    }
    let mut out = StoreDiff {
        hosts: Vec::new(),
        pairs: Vec::new(),
        common: 0,
        diffed: 0,
    };
    // Each pair diffed: the index of its diff in `out.pairs`, if any
    // verdict changed.
    let mut done: HashMap<(PolicyId, PolicyId), Option<usize>> = HashMap::new();
    for info in old.hosts() {
        let info = info?;
        let was = HostSide::of(&info);
        let Some(now) = new.host_by_key(info.key)? else {
            out.hosts.push(HostDiff {
                key: info.key.to_string(),
                change: HostChange::Removed(was),
            });
            continue;
        };
        out.common += 1;
        let now = HostSide::of(&now);
        let pair = match done.get(&(was.policy, now.policy)) {
            Some(&pair) => pair,
            None => {
                let sides = (old, new, was.policy, now.policy);
                let pair = pair_diff(sides, usages, max_pairs, info.key)?;
                if pair.is_some() {
                    out.diffed += 1;
                }
                let at = pair.flatten().map(|p| {
                    out.pairs.push(p);
                    out.pairs.len() - 1
                });
                done.insert((was.policy, now.policy), at);
                at
            }
        };
        if let Some(pair) = pair {
            out.hosts.push(HostDiff {
                key: info.key.to_string(),
                change: HostChange::Changed {
                    old: was,
                    new: now,
                    pair,
                },
            });
        }
    }
    for info in new.hosts() {
        let info = info?;
        if old.host_by_key(info.key)?.is_none() {
            out.hosts.push(HostDiff {
                key: info.key.to_string(),
                change: HostChange::Added(HostSide::of(&info)),
            });
        }
    }
    out.hosts.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(out)
}

/// The diff of OLD's policy `o` and NEW's `n`: `None` when their bytes are
/// equal (not diffed), `Some(None)` when diffed and no verdict changes.
/// `host` is named by an error.
fn pair_diff(
    (old, new, o, n): (&Store, &Store, PolicyId, PolicyId),
    usages: &[Usage],
    max_pairs: usize,
    host: &str,
) -> Result<Option<Option<PairDiff>>, StoreDiffError> {
    if old.policy_artifact(o)? == new.policy_artifact(n)? {
        return Ok(None);
    }
    let (a, b) = (old.policy(o)?, new.policy(n)?);
    let mut by_usage = Vec::with_capacity(usages.len());
    for &usage in usages {
        let d = diff(&a, &b, &DiffOptions { usage, max_pairs }).map_err(|error| {
            StoreDiffError::Pair {
                host: host.to_string(),
                error,
            }
        })?;
        by_usage.push((usage, d));
    }
    let changed = by_usage.iter().any(|(_, d)| !d.changes.is_empty());
    Ok(Some(changed.then_some(PairDiff {
        old: o,
        new: n,
        by_usage,
    })))
}
