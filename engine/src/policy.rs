//! [`Policy`]: a validated artifact and the check path.

use crate::artifact::{
    ArchivedAutomaton, ArchivedChannelOutcome, ArchivedHeader, ArchivedMetadata,
    ArchivedPolicyData, ArchivedRuleInfo, ArchivedUrlMode, NO_RULE,
};
use crate::load::{self, LoadError};
use crate::normalize::{feed_decoded, feed_rfc};
use crate::url::{path_parts, PathParts};
use std::path::Path;

/// The answer to one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// May the URL be fetched?
    pub allowed: bool,
    /// Index of the deciding rule (see [`Policy::rule`]); `None` when no rule
    /// matched and the default applies.
    pub rule: Option<u32>,
}

/// A check's verdict with the number of path bytes the automata read before
/// the verdict could no longer change (for early-exit statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traced {
    /// The verdict.
    pub verdict: Verdict,
    /// Path bytes fed to the automata (summed over automata on the fallback path).
    pub bytes_read: usize,
}

/// A compiled robots.txt policy for one agent, read in place from artifact
/// bytes.
///
/// Checks never allocate. Construction validates every table once, so no
/// artifact, however corrupted, can make a check read out of bounds or panic.
pub struct Policy<'a> {
    data: &'a ArchivedPolicyData,
    // Keeps the mapping alive when the policy was opened from a file; `data`
    // points into it (see `open`). Never read directly.
    _map: Option<memmap2::Mmap>,
}

impl std::fmt::Debug for Policy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("agent", &self.data.header.agent.as_str())
            .field("dialect", &self.data.header.dialect)
            .field("automata", &self.data.automata.len())
            .field("rules", &self.data.rules.len())
            .finish()
    }
}

impl<'a> Policy<'a> {
    /// Reads a policy from artifact bytes without copying them.
    ///
    /// # Errors
    ///
    /// Refuses bytes that are not a robocc policy, of another format version,
    /// truncated, not 16-byte aligned, or whose tables are inconsistent. It
    /// never panics.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Policy<'a>, LoadError> {
        let data = load::validate(bytes)?;
        Ok(Policy { data, _map: None })
    }

    /// Wraps an archived policy that has passed `load::check_semantics`
    /// (a store validates all of its policies when it is opened).
    pub(crate) fn from_validated(data: &'a ArchivedPolicyData) -> Policy<'a> {
        Policy { data, _map: None }
    }

    /// Whether `url` may be fetched (an absolute URL or a path).
    #[inline]
    pub fn is_allowed(&self, url: &str) -> bool {
        self.check(url.as_bytes()).allowed
    }

    /// The verdict for `url` on the first usage channel (crawl), naming the
    /// deciding rule.
    #[inline]
    pub fn check(&self, url: &[u8]) -> Verdict {
        self.check_traced_channel(url, 0).verdict
    }

    /// The verdict for `url` on usage channel `channel` (see
    /// [`Policy::channels`]); `None` when the policy has no such channel.
    pub fn check_channel(&self, url: &[u8], channel: usize) -> Option<Verdict> {
        (channel < self.data.header.channels.len())
            .then(|| self.check_traced_channel(url, channel).verdict)
    }

    /// Like [`Policy::check`], also reporting how many path bytes were read.
    pub fn check_traced(&self, url: &[u8]) -> Traced {
        self.check_traced_channel(url, 0)
    }

    #[inline]
    fn check_traced_channel(&self, url: &[u8], channel: usize) -> Traced {
        let channels = self.data.header.channels.len();
        let parts = path_parts(url);
        let automata = self.data.automata.as_slice();
        let (first, rest) = match automata.split_first() {
            Some(x) => x,
            // Validation guarantees at least one automaton.
            None => return self.traced(&self.data.outcomes[channel], 0),
        };
        let (outcome, mut bytes_read) = self.run(first, parts);
        let mut best = &self.data.outcomes[outcome as usize * channels + channel];
        // The fallback path: several automata, combined by rank.
        for a in rest {
            let (outcome, read) = self.run(a, parts);
            bytes_read += read;
            let o = &self.data.outcomes[outcome as usize * channels + channel];
            if outranks(o, best) {
                best = o;
            }
        }
        self.traced(best, bytes_read)
    }

    #[inline]
    fn traced(&self, o: &ArchivedChannelOutcome, bytes_read: usize) -> Traced {
        let rule = o.rule.to_native();
        Traced {
            verdict: Verdict {
                allowed: o.allowed,
                rule: (rule != NO_RULE).then_some(rule),
            },
            bytes_read,
        }
    }

    /// Runs one automaton over a path; returns its outcome id and the number
    /// of path bytes read.
    #[inline(always)]
    fn run(&self, a: &ArchivedAutomaton, parts: PathParts<'_>) -> (u32, usize) {
        let trans = a.trans.as_slice();
        // Validation checked there are exactly 256 classes.
        let classes: &[u8; 256] = a.classes.as_slice().try_into().unwrap_or(&[0; 256]);
        let first_decided = a.first_decided.to_native();
        let next = |s: u32, b: u8| -> u32 {
            let i = s as usize + usize::from(classes[usize::from(b)]);
            debug_assert!(i < trans.len());
            // SAFETY: `load::check_semantics` verified, before this policy
            // could be built, that `start` and every transition is a
            // multiple of `stride` below `trans.len()`, and that every
            // class is below `stride - 1`. So `s + class < s + stride <=
            // trans.len()` for every state `s` this loop can reach.
            unsafe { trans.get_unchecked(i) }.to_native()
        };
        let mut s = a.start.to_native();
        let mut read = 0usize;
        if parts.slash {
            s = next(s, b'/');
            read = 1;
        }
        if s < first_decided {
            match self.data.header.url_mode {
                ArchivedUrlMode::Google => {
                    // '#' and NUL end the path: the compiler routes their
                    // class to a decided state keeping the current outcome.
                    let mut i = 0;
                    while i < parts.rest.len() {
                        s = next(s, parts.rest[i]);
                        i += 1;
                        if s >= first_decided {
                            break;
                        }
                    }
                    read += i;
                }
                ArchivedUrlMode::Rfc => {
                    feed_rfc(parts.rest, |b| {
                        read += 1;
                        s = next(s, b);
                        s >= first_decided
                    });
                }
                ArchivedUrlMode::Decode => {
                    feed_decoded(parts.rest, |b| {
                        read += 1;
                        s = next(s, b);
                        s >= first_decided
                    });
                }
            }
        }
        let stride = a.stride.to_native();
        // SAFETY: as above, `s + stride - 1 < trans.len()`.
        let outcome = unsafe { trans.get_unchecked((s + stride - 1) as usize) }.to_native();
        (outcome, read)
    }

    /// The fixed facts of the policy.
    pub fn header(&self) -> &ArchivedHeader {
        &self.data.header
    }

    /// Names of the usage channels, in [`Policy::check_channel`] order.
    pub fn channels(&self) -> impl Iterator<Item = &str> {
        self.data.header.channels.iter().map(|c| c.as_str())
    }

    /// Non-rule records (Crawl-delay, Sitemap, …).
    pub fn metadata(&self) -> &ArchivedMetadata {
        &self.data.meta
    }

    /// The rule a verdict names.
    pub fn rule(&self, id: u32) -> Option<&ArchivedRuleInfo> {
        self.data.rules.get(id as usize)
    }

    /// Number of rules in the rule table.
    pub fn rule_count(&self) -> usize {
        self.data.rules.len()
    }

    /// The automata (one unless the compiler had to split the rules).
    pub fn automata(&self) -> &[ArchivedAutomaton] {
        self.data.automata.as_slice()
    }

    /// The whole archived policy, for tools that show everything.
    pub fn data(&self) -> &ArchivedPolicyData {
        self.data
    }
}

impl Policy<'static> {
    /// Memory-maps the artifact at `path` and validates it.
    ///
    /// # Errors
    ///
    /// As [`Policy::from_bytes`], plus I/O errors; every message names `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Policy<'static>, LoadError> {
        // The mapping moves into the `Policy` next to `data`; accessors only
        // re-borrow `data` through `&self`, so it never outlives the mapping.
        let (map, data) = load::open_mapped(path.as_ref(), load::validate)?;
        Ok(Policy {
            data,
            _map: Some(map),
        })
    }
}

/// Does `a` beat `b` when combining the outcomes of several automata?
#[inline]
fn outranks(a: &ArchivedChannelOutcome, b: &ArchivedChannelOutcome) -> bool {
    let (ra, rb) = (a.rank.to_native(), b.rank.to_native());
    ra > rb || (ra == rb && a.rule.to_native() < b.rule.to_native())
}
