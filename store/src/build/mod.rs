//! The build, in four steps: `collect` the inputs (each distinct body kept
//! once), `resolve` statuses and redirects, `compile` each distinct body
//! once (or reuse a base store's policy), and write the index (`Prepared`).
//! Compiled policies wait in a `spill` file until the index is written.

mod collect;
mod compile;
mod resolve;
mod spill;
#[cfg(test)]
mod tests;

use crate::host::{shard_of_key, HostNote};
use crate::inputs::{HostInput, InputError};
use crate::report::{StoreError, StoreReport};
use collect::{Collected, HostRows};
use compile::{compile_bodies, distinct_reused, reusable, Built};
use resolve::resolve;
use robocc_compiler::{compile, Agents, CompileOptions};
use robocc_engine::{write_store, HostEntry, HostKey, HostSource, PolicyId, Store, StoreMeta};
use spill::Spill;
use std::borrow::Cow;
use std::collections::HashMap;

/// Body standing for "everything allowed" (4xx but 429).
const ALLOW_ALL: &[u8] = b"";

/// Body standing for "everything disallowed" (5xx, 429, unreachable).
const DISALLOW_ALL: &[u8] = b"User-agent: *\nDisallow: /\n";

/// Was a policy compiled from [`ALLOW_ALL`] or [`DISALLOW_ALL`] (a status's
/// or a failure's stand-in: no group names an agent, so agents read
/// together get what each would alone), by the SHA-256 of its source?
pub(crate) fn is_stand_in(source_sha256: [u8; 32]) -> bool {
    [ALLOW_ALL, DISALLOW_ALL]
        .iter()
        .any(|b| robocc_compiler::sha256(b) == source_sha256)
}

/// What a failed body gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    /// Everything allowed.
    Allow,
    /// Everything disallowed (default).
    Disallow,
}

/// The body ids of [`ALLOW_ALL`] and [`DISALLOW_ALL`] (interned first).
const ALLOW_ID: u32 = 0;
const DISALLOW_ID: u32 = 1;

/// Body ids with this bit set stand for a broken input (`HostInput::failure`).
const FAILED_INPUT: u32 = 1 << 31;

/// Distinct body bytes collected before they are compiled (and dropped):
/// what bounds a build's bodies in memory however many distinct ones its
/// input holds.
const COMPILE_AFTER: usize = 64 << 20;

/// The inputs collected, resolved and compiled: what every store (or shard)
/// of a build indexes a part of.
struct Prepared {
    /// Why hosts were left out, for the report.
    duplicates: Vec<String>,
    self_redirects: usize,
    /// The hosts, sorted by key, one row each.
    hosts: HostRows,
    /// Per key: the body that applies, and why.
    resolved: Vec<(u32, HostSource)>,
    /// The bodies used, sorted; `built` is parallel to it.
    used: Vec<u32>,
    built: Vec<Built>,
    reused: usize,
    bodies_read: usize,
    bodies_skipped: usize,
    bodies_unreadable: usize,
    not_modified: usize,
    not_modified_lost: Vec<HostNote>,
    /// Where the policies in `built` are.
    spill: Spill,
}

/// Collect, resolve and compile: everything but the index.
fn prepare<I>(
    builder: &StoreBuilder<'_>,
    inputs: I,
    wanted: impl Fn(&str) -> bool,
) -> Result<Prepared, StoreError>
where
    I: IntoIterator<Item = Result<HostInput, InputError>>,
{
    let (agent, options) = (&builder.agents, &builder.options);
    builder.check_tokens()?;
    // The whole base, before anything is taken from it: lookups verify the
    // slots they read, but a build copies policies and 304s' records into
    // a new store whose checksum would then vouch for them. O(base size),
    // about what reading it costs.
    if let Some(base) = builder.base {
        base.validate_all().map_err(StoreError::Base)?;
    }
    let reusable = reusable(builder.base, agent, builder.options_fingerprint());
    // Collect.
    let mut collected = Collected::new(options.parse.max_bytes);
    for input in inputs {
        collected
            .add(input.map_err(StoreError::Input)?, &reusable, builder.base)
            .map_err(StoreError::Input)?;
        // Bodies are compiled as they stream in, a batch at a time, and
        // only their policies kept: memory does not grow with the number of
        // distinct bodies (a body a later input of its host replaces is
        // compiled for nothing: the price of not holding it).
        if collected.pending_bytes > COMPILE_AFTER {
            collected.compile_pending(builder, &reusable);
        }
    }
    // Resolve: hosts sorted by key (redirect targets are found by binary
    // search), then split into what the index needs.
    let hosts = collected.hosts();
    let resolved: Vec<(u32, HostSource)> = hosts.rows.iter().map(|r| resolve(&hosts, r)).collect();
    // The 304s that stood once the duplicates were settled, of the hosts
    // written: kept, or lost and why.
    let (mut not_modified, mut not_modified_lost) = (0, Vec::new());
    for i in (0..hosts.len()).filter(|&i| hosts.rows[i].status == 304 && wanted(hosts.key(i))) {
        match hosts.rows[i].body {
            Some(b) if b & FAILED_INPUT == 0 => not_modified += 1,
            Some(_) => {}
            None => not_modified_lost.push(HostNote {
                host: hosts.key(i).to_string(),
                note: collected
                    .not_modified_lost
                    .get(hosts.key(i))
                    .cloned()
                    .unwrap_or_default(),
            }),
        }
    }
    // Only the bodies of the hosts written are compiled.
    let mut used: Vec<u32> = (0..hosts.len())
        .zip(&resolved)
        .filter(|&(i, _)| wanted(hosts.key(i)))
        .map(|(_, r)| r.0)
        .collect();
    used.sort_unstable();
    used.dedup();
    // Compile what is not compiled yet.
    let todo: Vec<u32> = used
        .iter()
        .copied()
        .filter(|&id| id & FAILED_INPUT == 0 && !collected.built.contains_key(&id))
        .collect();
    let done = collected.compiled;
    let fresh = compile_bodies(
        &collected.bodies,
        &todo,
        builder,
        &reusable,
        done,
        &mut collected.spill,
    );
    collected.built.extend(todo.into_iter().zip(fresh));
    let built: Vec<Built> = used
        .iter()
        .map(|&id| match id {
            _ if id & FAILED_INPUT != 0 => {
                Built::Failed(collected.failures[(id & !FAILED_INPUT) as usize].clone())
            }
            _ => collected
                .built
                .remove(&id)
                .unwrap_or_else(|| Built::Failed("the body was not compiled".into())),
        })
        .collect();
    let reused = distinct_reused(&built);
    drop(collected.built);
    release_freed_memory();
    Ok(Prepared {
        duplicates: collected.duplicates,
        self_redirects: collected.self_redirects,
        hosts,
        resolved,
        used,
        built,
        reused,
        bodies_read: collected.bodies_read,
        bodies_skipped: collected.bodies_skipped,
        bodies_unreadable: collected.bodies_unreadable,
        not_modified,
        not_modified_lost,
        spill: collected.spill,
    })
}

/// Gives the memory the parallel compile freed back to the system before
/// the index is written. glibc keeps what each compile thread freed in that
/// thread's arena, so the index's buffers came on top of it: at a million
/// hosts the build's peak went from 423 to 331 MB with this call (the store
/// byte-identical). Process-wide: it takes each arena's lock once. Elsewhere
/// than glibc, nothing.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: `malloc_trim` takes no pointer and only returns free
        // memory of glibc's arenas to the system; it may be called at any
        // time from any thread.
        unsafe { malloc_trim(0) };
    }
}

impl Prepared {
    /// A fresh report with what the whole build did.
    fn report(&mut self) -> StoreReport {
        StoreReport {
            compiled: self
                .used
                .iter()
                .zip(&self.built)
                .filter(|(&b, built)| {
                    b & FAILED_INPUT == 0 && matches!(built, Built::Ok { base: None, .. })
                })
                .count(),
            reused: self.reused,
            bodies_read: self.bodies_read,
            bodies_skipped: self.bodies_skipped,
            bodies_unreadable: self.bodies_unreadable,
            duplicates: std::mem::take(&mut self.duplicates),
            self_redirects: self.self_redirects,
            not_modified: self.not_modified,
            not_modified_lost: std::mem::take(&mut self.not_modified_lost),
            ..StoreReport::default()
        }
    }

    /// Writes the store of the hosts `which` (indices into `keys`, in
    /// order) and adds them to `report`. Policies are numbered in the order
    /// hosts (sorted by key) first use them, then the fallback if any host
    /// needs it: the bytes depend on the hosts and bodies, not on the order
    /// of the inputs. Returns the bytes and the body ids stored (the
    /// fallback as `u32::MAX`).
    fn write(
        &self,
        which: impl IntoIterator<Item = usize>,
        builder: &StoreBuilder<'_>,
        report: &mut StoreReport,
    ) -> Result<(robocc_engine::AlignedBytes, Vec<u32>), StoreError> {
        let (agent, options) = (&builder.agents, &builder.options);
        // A policy is stored once per body, or per base policy reused.
        let mut stored_as: HashMap<(Option<PolicyId>, u32), PolicyId> = HashMap::new();
        let mut policies: Vec<Cow<'_, [u8]>> = Vec::new();
        let mut stored: Vec<u32> = Vec::new();
        let mut failed_hosts: Vec<usize> = Vec::new();
        let mut entries = Vec::new();
        for k in which {
            let key = self.hosts.key(k);
            let (body, mut source) = self.resolved[k];
            let built = &self.built[self.used.binary_search(&body).unwrap_or(0)];
            let policy = match built {
                Built::Ok {
                    bytes,
                    split,
                    unread,
                    base,
                } => {
                    if let Some(why) = split {
                        report.split.push(HostNote {
                            host: key.to_string(),
                            note: why.clone(),
                        });
                    }
                    if let Some(note) = unread {
                        report.unread.push(HostNote {
                            host: key.to_string(),
                            note: note.clone(),
                        });
                    }
                    let slot = match base {
                        Some(i) => (Some(*i), 0),
                        None => (None, body),
                    };
                    match stored_as.get(&slot) {
                        Some(&i) => i,
                        None => {
                            policies.push(self.spill.load(bytes)?);
                            stored.push(body);
                            let i = PolicyId::new((policies.len() - 1) as u32);
                            stored_as.insert(slot, i);
                            i
                        }
                    }
                }
                Built::Failed(why) => {
                    source = HostSource::Failed;
                    report.failures.push(HostNote {
                        host: key.to_string(),
                        note: why.clone(),
                    });
                    failed_hosts.push(entries.len());
                    // Numbered once every compiled policy is known.
                    PolicyId::new(u32::MAX)
                }
            };
            report.by_source.add(source);
            entries.push(HostEntry {
                key,
                policy,
                source,
                status: self.hosts.status(k),
                fetched_at: self.hosts.fetched_at(k),
            });
        }
        if !failed_hosts.is_empty() {
            let index = PolicyId::new(policies.len() as u32);
            for &i in &failed_hosts {
                entries[i].policy = index;
            }
            policies.push(Cow::Owned(fallback_policy(
                agent,
                options,
                builder.on_failure,
            )));
            stored.push(u32::MAX);
        }
        let policies: Vec<&[u8]> = policies.iter().map(|p| &p[..]).collect();
        report.hosts += entries.len();
        let meta = StoreMeta {
            agent: agent.to_string(),
            dialect: options.dialect,
            compiler_version: env!("CARGO_PKG_VERSION").to_string(),
            options_hash: builder.options_fingerprint(),
        };
        let bytes = write_store(&meta, entries, &policies).map_err(StoreError::Write)?;
        Ok((bytes, stored))
    }

    /// Counts the distinct policies (and those on the split path) among
    /// the body ids stored.
    fn count_policies(&self, stored: &[u32], report: &mut StoreReport) {
        let mut distinct: Vec<u32> = stored.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        report.unique_policies = distinct.len();
        report.split_policies = distinct
            .iter()
            .filter(|&&b| {
                b != u32::MAX
                    && matches!(
                        self.built[self.used.binary_search(&b).unwrap_or(0)],
                        Built::Ok { split: Some(_), .. }
                    )
            })
            .count();
    }
}

/// Builds policy stores for one agent (or several read together, as
/// [`robocc_compiler::compile`] reads them): one store, a store set of N
/// shards, or one shard of a set alone.
///
/// The settings are the agents (given to [`StoreBuilder::new`]), the compile
/// options every body is compiled with, what hosts whose body fails get, a
/// base store to reuse policies from, and a progress callback; each setter
/// takes `&mut self` and returns it, so they chain. A builder is not used
/// up by a build: the same one can build a set and then its index.
///
/// The bytes depend on the set of hosts and their inputs, not on the order
/// the inputs come in (except that of a host given twice the last one
/// wins, unless it is a redirect to the host itself and the earlier one is
/// not — [`is_self_redirect`](crate::is_self_redirect)): hosts are sorted
/// by hash and key, policies numbered in the order hosts sorted by key
/// first use them.
///
/// # Example: a store of two hosts
///
/// ```
/// use robocc_store::{HostInput, OnFailure, StoreBuilder};
///
/// let inputs = vec![
///     HostInput {
///         host: "example.com".into(),
///         status: 200,
///         body: Some(b"User-agent: *\nDisallow: /private\n".to_vec()),
///         ..HostInput::default()
///     },
///     HostInput { host: "gone.example".into(), status: 404, ..HostInput::default() },
/// ];
/// let (bytes, report) = StoreBuilder::new("Googlebot")
///     .on_failure(OnFailure::Allow)
///     .build(inputs.into_iter().map(Ok))?;
/// assert_eq!(report.hosts, 2);
/// let store = robocc_engine::Store::from_slice(&bytes)?;
/// assert!(!store.check(b"https://example.com/private/x")?.unwrap().allowed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct StoreBuilder<'a> {
    agents: Agents,
    /// Each agent answered separately (each-agent policies), rather than
    /// the agents read together.
    each_agent: bool,
    options: CompileOptions,
    on_failure: OnFailure,
    base: Option<&'a Store>,
    progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
}

impl<'a> StoreBuilder<'a> {
    /// A builder for the policies of `agents` (a product token, or
    /// several: [`Agents`]; checked when a build starts), with the default
    /// compile options, the disallow-all fallback, no base store and no
    /// progress callback.
    pub fn new(agents: impl Into<Agents>) -> StoreBuilder<'a> {
        StoreBuilder {
            agents: agents.into(),
            each_agent: false,
            options: CompileOptions::default(),
            on_failure: OnFailure::Disallow,
            base: None,
            progress: None,
        }
    }

    /// Answer each of the agents separately: every policy is an
    /// each-agent one ([`robocc_compiler::compile_each`]), walked once per
    /// URL for all the agents, instead of one policy reading the agents
    /// together.
    ///
    /// By default, off.
    pub fn each_agent(&mut self, each: bool) -> &mut StoreBuilder<'a> {
        self.each_agent = each;
        self
    }

    /// Are the agents valid for the options: each alone when answered
    /// each, else together.
    fn check_tokens(&self) -> Result<(), StoreError> {
        let check = |a: &Agents| self.options.check_tokens(a).map_err(StoreError::Compile);
        if self.each_agent {
            if self.agents.is_empty() {
                return check(&self.agents);
            }
            self.agents.iter().try_for_each(|a| check(&Agents::from(a)))
        } else {
            check(&self.agents)
        }
    }

    /// The options every body is compiled with (the status policies, allow
    /// all and disallow all, are compiled with the default parse options
    /// and budget, which they always fit). They are recorded in the store:
    /// a base store built with other options has nothing to reuse.
    ///
    /// By default, [`CompileOptions::default`].
    pub fn compile_options(&mut self, options: CompileOptions) -> &mut StoreBuilder<'a> {
        self.options = options;
        self
    }

    /// What hosts get whose body fails to compile, or whose input is known
    /// to be broken ([`HostInput::failure`], a body file that cannot be
    /// read): such a host never sinks the build, and the report lists it.
    ///
    /// By default, [`OnFailure::Disallow`].
    pub fn on_failure(&mut self, on_failure: OnFailure) -> &mut StoreBuilder<'a> {
        self.on_failure = on_failure;
        self
    }

    /// A previous store of the same agent and options: policies whose
    /// source bytes are unchanged (same SHA-256) are copied from it instead
    /// of compiled, a body file whose input states such a digest is not
    /// even read, and a host that answered 304 Not Modified keeps its
    /// policy from it. A build first validates the whole base
    /// ([`Store::validate_all`], about what reading it costs) and refuses a
    /// damaged one ([`StoreError::Base`]).
    ///
    /// By default, none.
    pub fn base(&mut self, base: Option<&'a Store>) -> &mut StoreBuilder<'a> {
        self.base = base;
        self
    }

    /// Called after each distinct body is compiled or reused, with (done,
    /// total), from the threads that compile.
    ///
    /// By default, none.
    pub fn progress(
        &mut self,
        progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
    ) -> &mut StoreBuilder<'a> {
        self.progress = progress;
        self
    }

    /// Builds a store from host inputs, streamed. Returns its bytes and
    /// what the build did.
    ///
    /// # Errors
    ///
    /// An invalid agent token, an input that cannot be read, a damaged
    /// base store, or a store over the format's size. Bodies that fail to
    /// compile are not errors: they are in the report.
    pub fn build<I>(
        &self,
        inputs: I,
    ) -> Result<(robocc_engine::AlignedBytes, StoreReport), StoreError>
    where
        I: IntoIterator<Item = Result<HostInput, InputError>>,
    {
        let mut prepared = prepare(self, inputs, |_| true)?;
        let mut report = prepared.report();
        let (bytes, stored) = prepared.write(0..prepared.hosts.len(), self, &mut report)?;
        prepared.count_policies(&stored, &mut report);
        report.bytes = bytes.len();
        Ok((bytes, report))
    }

    /// Builds a store set of `shards` shards: hosts are partitioned by
    /// [`robocc_engine::shard_of_hash`] of their key's hash; redirects are
    /// resolved over all the inputs; each distinct body is compiled once for
    /// the whole set. Shard `i` is exactly the store [`StoreBuilder::build`]
    /// writes for the hosts of shard `i` with those resolutions:
    /// deterministic, and independent of the order of the inputs. In the
    /// report, `bytes` is the size of every shard and the index, and
    /// `unique_policies` counts a policy stored in several shards once.
    ///
    /// # Errors
    ///
    /// As [`StoreBuilder::build`]; `shards` outside 1 to
    /// [`robocc_engine::MAX_SHARDS`].
    pub fn build_set<I>(
        &self,
        inputs: I,
        shards: usize,
    ) -> Result<(BuiltSet, StoreReport), StoreError>
    where
        I: IntoIterator<Item = Result<HostInput, InputError>>,
    {
        if shards == 0 || shards > robocc_engine::MAX_SHARDS {
            return Err(StoreError::Shard {
                which: None,
                shards,
            });
        }
        let mut prepared = prepare(self, inputs, |_| true)?;
        let mut report = prepared.report();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); shards];
        for i in 0..prepared.hosts.len() {
            let hash = HostKey::of_key(prepared.hosts.key(i)).map_or(0, |k| k.hash());
            members[robocc_engine::shard_of_hash(hash, shards)].push(i);
        }
        let mut out = Vec::with_capacity(shards);
        let mut infos = Vec::with_capacity(shards);
        let mut stored_all = Vec::new();
        for which in members {
            let hosts = which.len() as u64;
            let (bytes, stored) = prepared.write(which, self, &mut report)?;
            stored_all.extend(stored);
            infos.push(robocc_engine::ShardInfo {
                bytes: bytes.len() as u64,
                hosts,
                checksum: robocc_engine::artifact::fnv1a64(&bytes),
            });
            report.bytes += bytes.len();
            out.push(bytes);
        }
        prepared.count_policies(&stored_all, &mut report);
        let index = self.index_text(infos)?;
        report.bytes += index.len();
        Ok((BuiltSet { shards: out, index }, report))
    }

    /// Builds shard `which` of a store set of `shards` shards, alone:
    /// exactly the bytes [`StoreBuilder::build_set`] writes as that shard
    /// for the same inputs, as long as `inputs` holds every host of the
    /// shard and every host their redirects read
    /// ([`redirect_dependencies`](crate::redirect_dependencies)); hosts of
    /// other shards among the inputs are read for redirects only. Only the
    /// bodies of the shard's hosts are compiled (each distinct one once).
    /// This is what a per-partition job (the Spark job of `robocc.spark`)
    /// calls. Returns the shard's bytes, its index line's figures, and the
    /// report of its hosts.
    ///
    /// # Errors
    ///
    /// As [`StoreBuilder::build_set`]; `which` not below `shards`.
    #[allow(clippy::type_complexity)]
    pub fn build_shard<I>(
        &self,
        inputs: I,
        shards: usize,
        which: usize,
    ) -> Result<
        (
            robocc_engine::AlignedBytes,
            robocc_engine::ShardInfo,
            StoreReport,
        ),
        StoreError,
    >
    where
        I: IntoIterator<Item = Result<HostInput, InputError>>,
    {
        if shards == 0 || shards > robocc_engine::MAX_SHARDS || which >= shards {
            return Err(StoreError::Shard {
                which: Some(which),
                shards,
            });
        }
        let mine = |k: &str| shard_of_key(k, shards) == which;
        let mut prepared = prepare(self, inputs, mine)?;
        let mut report = prepared.report();
        let members: Vec<usize> = (0..prepared.hosts.len())
            .filter(|&i| mine(prepared.hosts.key(i)))
            .collect();
        let hosts = members.len() as u64;
        let (bytes, stored) = prepared.write(members, self, &mut report)?;
        prepared.count_policies(&stored, &mut report);
        report.bytes = bytes.len();
        let info = robocc_engine::ShardInfo {
            bytes: bytes.len() as u64,
            hosts,
            checksum: robocc_engine::artifact::fnv1a64(&bytes),
        };
        Ok((bytes, info, report))
    }

    /// The text of a store set's `index.txt` for shards with these
    /// figures, in order, as [`StoreBuilder::build_set`] writes it (what a
    /// job that built the shards alone writes last).
    ///
    /// # Errors
    ///
    /// An agent or training agent that is not a product token; no shard, or
    /// more than [`robocc_engine::MAX_SHARDS`].
    pub fn set_index(&self, shards: Vec<robocc_engine::ShardInfo>) -> Result<String, StoreError> {
        self.check_tokens()?;
        self.index_text(shards)
    }

    /// The fingerprint of agent and compile options that a store records
    /// ([`robocc_engine::Store::options_hash`]): a base store with another
    /// one has no policy this builder can reuse.
    pub fn options_fingerprint(&self) -> u64 {
        if self.each_agent {
            robocc_compiler::each_options_hash(&self.agents, &self.options)
        } else {
            robocc_compiler::options_hash(&self.agents, &self.options)
        }
    }

    /// `index.txt` for these shards (the tokens checked already).
    fn index_text(&self, shards: Vec<robocc_engine::ShardInfo>) -> Result<String, StoreError> {
        robocc_engine::SetIndex {
            agent: self.agents.to_string(),
            dialect: self.options.dialect,
            options_hash: self.options_fingerprint(),
            compiler_version: env!("CARGO_PKG_VERSION").to_string(),
            shards,
        }
        .to_text()
        .map_err(StoreError::SetIndex)
    }
}

/// A store set as built: the shard stores in order, and the index that
/// names them (docs/artifact.md, "Store sets").
pub struct BuiltSet {
    /// Shard `i`'s store, to be written as `shard_file_name(i)`.
    pub shards: Vec<robocc_engine::AlignedBytes>,
    /// The text of `index.txt`.
    pub index: String,
}

/// `options` with the default parse options and budget, for robocc's own
/// policies (allow all, disallow all): their bodies are two lines and always
/// fit these, whatever limits the caller set for fetched bodies.
fn fixed_options(options: &CompileOptions) -> CompileOptions {
    CompileOptions {
        budget: robocc_compiler::Budget::default(),
        parse: robocc_compiler::ParseOptions::default(),
        ..options.clone()
    }
}

/// The policy hosts get when their body failed: compiled under
/// [`fixed_options`] (the caller's just failed).
fn fallback_policy(agent: &Agents, options: &CompileOptions, on_failure: OnFailure) -> Vec<u8> {
    let body = match on_failure {
        OnFailure::Allow => ALLOW_ALL,
        OnFailure::Disallow => DISALLOW_ALL,
    };
    match compile(body, agent, &fixed_options(options)) {
        Ok(c) => c.to_bytes().to_vec(),
        // The agent was validated and the body is two lines: unreachable,
        // but an empty policy list entry would be refused at use, not
        // answered wrongly.
        Err(_) => Vec::new(),
    }
}
