//! Batch lookups: [`Store::check_batch`], and the staged lookup it shares
//! with [`StoreSet::check_batch`](crate::StoreSet::check_batch).

use super::{HostKey, Store};
use crate::answer::Verdict;
use crate::load::LoadError;
use crate::policy::{same_length, Policy};
use crate::url::path_parts_after;

impl Store {
    /// The verdicts of many URLs: `out[i]` becomes what
    /// [`Store::check`]`(urls[i])` answers (`None`: host not in the store,
    /// or no host in the URL). A run of
    /// URLs of the same host (as frontiers are often grouped) looks the host
    /// up once and goes through [`Policy::check_batch`]. Never allocates
    /// unless it fails.
    ///
    /// Faster than a loop over [`Store::check`] when the hosts are many:
    /// the lookups of up to 32 runs go stage by stage (home slots; keys,
    /// then the policies' records and first lines; the policies), so their
    /// memory reads overlap instead of waiting for each other
    /// (docs/PERFORMANCE.md, "Host lookup at a million hosts").
    ///
    /// # Errors
    ///
    /// The first URL whose host's record or policy is corrupted: its index
    /// and the error; the URLs before it are answered, the rest are not.
    ///
    /// # Panics
    ///
    /// When `urls` and `out` differ in length (a caller's mistake, as for
    /// [`slice::copy_from_slice`]; nothing is answered then).
    #[track_caller]
    pub fn check_batch(
        &self,
        urls: &[&[u8]],
        out: &mut [Option<Verdict>],
    ) -> Result<(), BatchError> {
        same_length(urls.len(), out.len());
        check_batch_in(urls, out, |_| Ok(self))
    }
}

/// [`Store::check_batch`] over the stores `store_of(key)` names (one
/// store, or the shards of a set): up to 32 runs of one host each are
/// looked up stage by stage. Each stage reads what the one before asked the
/// CPU to fetch and asks for what the next one reads, so the memory reads
/// of different hosts overlap instead of waiting for each other.
pub(crate) fn check_batch_in<'s>(
    urls: &[&[u8]],
    out: &mut [Option<Verdict>],
    store_of: impl Fn(&HostKey<'_>) -> Result<&'s Store, LoadError>,
) -> Result<(), BatchError> {
    /// Runs looked up together.
    const RUNS: usize = 32;
    /// A run's lookup, stage by stage.
    #[derive(Clone, Copy)]
    enum Lane<'s, 'u> {
        /// No host, or not in the store.
        Absent,
        /// Store, key, hash, and where the first URL's path starts.
        Hashed(&'s Store, HostKey<'u>, u64, usize),
        /// The host's slot is found: its store, key (for an error's host),
        /// policy number, and path.
        Slot(&'s Store, HostKey<'u>, u32, usize),
        Found(Policy<'s>, usize),
    }
    /// Keeps the error of the first run that failed.
    fn fail(r: usize, e: LoadError, failed: &mut Option<(usize, LoadError)>) {
        if failed.as_ref().is_none_or(|f| r < f.0) {
            *failed = Some((r, e));
        }
    }
    debug_assert_eq!(urls.len(), out.len(), "checked by the callers");
    let n = urls.len();
    let mut verdicts = [Verdict {
        allowed: true,
        rule: None,
    }; 64];
    let mut lanes = [(0, 0, Lane::Absent); RUNS];
    let mut next = 0;
    // Each URL's key is read once: the one that ends a run starts the next.
    let mut key = urls[..n].first().and_then(|u| HostKey::of_url_and_path(u));
    while next < n {
        // The first run whose lookup failed: nothing from it on is answered.
        let mut failed: Option<(usize, LoadError)> = None;
        let mut count = 0;
        while next < n && count < RUNS {
            let start = next;
            let mut end = start + 1;
            let mut following = None;
            if let Some((k, _)) = key {
                while end < n && end - start < verdicts.len() {
                    following = HostKey::of_url_and_path(urls[end]);
                    if following.map(|f| f.0) != Some(k) {
                        break;
                    }
                    following = None;
                    end += 1;
                }
            }
            let lane = match key {
                None => Lane::Absent,
                Some((k, path)) => match store_of(&k) {
                    Ok(store) => {
                        let h = store.slot_hash(&k);
                        store.prefetch_home(h);
                        Lane::Hashed(store, k, h, path)
                    }
                    Err(e) => {
                        fail(count, e, &mut failed);
                        Lane::Absent
                    }
                },
            };
            lanes[count] = (start, end, lane);
            count += 1;
            next = end;
            key = match following {
                Some(f) => Some(f),
                None if next < n => HostKey::of_url_and_path(urls[next]),
                None => None,
            };
        }
        let lanes = &mut lanes[..count];
        // The slots, whose lines were asked for above; ask for the policy
        // records and, as the slots' hints say, the policies' first lines.
        for (r, lane) in lanes.iter_mut().enumerate() {
            if let Lane::Hashed(store, k, h, path) = lane.2 {
                // `false`: the policy's lines are asked for here, once the
                // key matched.
                match store.find::<false>(&k, h) {
                    Ok(None) => lane.2 = Lane::Absent,
                    Ok(Some((i, policy))) => {
                        store.prefetch_policy(store.slot_bytes(i), policy as usize);
                        lane.2 = Lane::Slot(store, k, policy, path);
                    }
                    Err(e) => fail(r, e.with_host(k.host), &mut failed),
                }
            }
        }
        // Views of the policies (validated on their first use).
        for (r, lane) in lanes.iter_mut().enumerate() {
            if let Lane::Slot(store, k, policy, path) = lane.2 {
                match store.policy_at(policy as usize) {
                    Ok(p) => lane.2 = Lane::Found(p, path),
                    Err(e) => fail(r, e.with_host(k.host), &mut failed),
                }
            }
        }
        for (r, &(start, end, lane)) in lanes.iter().enumerate() {
            if failed.as_ref().is_some_and(|f| f.0 == r) {
                let (_, error) = failed.take().expect("checked");
                return Err(BatchError {
                    index: start,
                    error,
                });
            }
            match lane {
                // A run of one URL (hosts interleaved): its path is known,
                // and a batch's setup would cost more.
                Lane::Found(p, path) if end - start == 1 => {
                    out[start] = Some(p.check_parts(path_parts_after(urls[start], path)));
                }
                Lane::Found(p, _) => {
                    let v = &mut verdicts[..end - start];
                    p.check_batch(&urls[start..end], v);
                    for (o, v) in out[start..end].iter_mut().zip(v.iter()) {
                        *o = Some(*v);
                    }
                }
                Lane::Absent => out[start..end].fill(None),
                // Only a lane that failed stops short of `Found`, and the
                // first failed one returned above.
                Lane::Hashed(..) | Lane::Slot(..) => {
                    debug_assert!(false, "lane {r} left unfinished");
                    out[start..end].fill(None);
                }
            }
        }
    }
    Ok(())
}

/// Why [`Store::check_batch`] stopped: the URL at `index` has a corrupted
/// record or policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchError {
    /// Index of the URL in the batch.
    pub index: usize,
    /// What was wrong (it names the host).
    pub error: LoadError,
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "URL {} of the batch: {}", self.index, self.error)
    }
}

impl std::error::Error for BatchError {}
