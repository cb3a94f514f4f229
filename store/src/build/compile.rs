//! Compile: each distinct body once, in parallel, or a base store's policy
//! reused when its source and options are unchanged.

use super::collect::Body;
use super::spill::{Artifact, Spill};
use super::{fixed_options, StoreBuilder, ALLOW_ID, DISALLOW_ID};
use rayon::prelude::*;
use robocc_compiler::{compile, Agents, CompileError, CompileOptions, Diagnostic};
use robocc_engine::{AlignedBytes, PolicyId, Store};
use std::collections::HashMap;

/// A compiled (or reused) distinct body.
pub(super) enum Built {
    Ok {
        bytes: Artifact,
        split: Option<String>,
        /// What was not read as written, when something was.
        unread: Option<String>,
        /// The base store's policy it is, when reused: bodies that reuse
        /// the same one (read, or named by their digest) share it.
        base: Option<PolicyId>,
    },
    Failed(String),
}

/// Compiles the bodies `ids` once each (in parallel), reusing the base
/// store's policies for unchanged sources; `done` bodies were compiled
/// before (for the progress callback). The policies go to `spill`.
pub(super) fn compile_bodies(
    bodies: &[Body],
    ids: &[u32],
    builder: &StoreBuilder<'_>,
    reusable: &Reusable,
    done: usize,
    spill: &mut Spill,
) -> Vec<Built> {
    let (agent, options) = (&builder.agents, &builder.options);
    let counter = std::sync::atomic::AtomicUsize::new(done);
    let total = done + ids.len();
    let fixed = fixed_options(options);
    let built: Vec<Built> = ids
        .par_iter()
        .map(|&id| {
            let body = &bodies[id as usize];
            let from_base = match builder.base {
                Some(base) if !reusable.is_empty() => {
                    let digest = body
                        .sha256
                        .unwrap_or_else(|| robocc_compiler::sha256(&body.bytes));
                    reusable.get(&digest).map(|&i| reuse(base, i))
                }
                _ => None,
            };
            let result = match from_base {
                Some(built) => built,
                // Collected only makes an unread body for a digest in
                // `reusable`: a body not read is never compiled as empty.
                None if body.from_base => {
                    Built::Failed("the base store's policy for this body is gone".into())
                }
                // The bodies that stand for a status (also any fetched body
                // with the same bytes) are robocc's own two lines: compiled
                // under limits they always fit, so that a budget too small
                // for anything cannot turn a 503 into the on-failure policy.
                None => {
                    let options = if id == ALLOW_ID || id == DISALLOW_ID {
                        &fixed
                    } else {
                        options
                    };
                    let compiled = if builder.each_agent {
                        compile_body_each(body, agent, options)
                    } else {
                        compile_body(body, agent, options).map(|c| {
                            let split = (c.data.automata.len() > 1)
                                .then(|| c.data.header.split_reason.clone());
                            (c.to_bytes(), split, c.diagnostics)
                        })
                    };
                    match compiled {
                        Ok((bytes, split, diagnostics)) => Built::Ok {
                            split,
                            unread: robocc_compiler::unread_summary(&diagnostics),
                            bytes: Artifact::Memory(bytes.to_vec()),
                            base: None,
                        },
                        Err(e) => Built::Failed(e.to_string()),
                    }
                }
            };
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if let Some(p) = builder.progress {
                p(n, total);
            }
            result
        })
        .collect();
    built
        .into_iter()
        .map(|mut b| {
            if let Built::Ok {
                bytes: slot @ Artifact::Memory(_),
                ..
            } = &mut b
            {
                if let Artifact::Memory(bytes) =
                    std::mem::replace(slot, Artifact::Memory(Vec::new()))
                {
                    *slot = spill.keep(bytes);
                }
            }
            b
        })
        .collect()
}

/// Distinct base policies among `built`: two bodies (one read, one named
/// by its digest) may reuse the same one.
pub(super) fn distinct_reused(built: &[Built]) -> usize {
    let mut reused: Vec<PolicyId> = built
        .iter()
        .filter_map(|b| match b {
            Built::Ok { base, .. } => *base,
            Built::Failed(_) => None,
        })
        .collect();
    reused.sort_unstable();
    reused.dedup();
    reused.len()
}

/// A distinct body compiled: a body kept as its first bytes as the whole.
pub(super) fn compile_body(
    body: &Body,
    agent: &Agents,
    options: &CompileOptions,
) -> Result<robocc_compiler::Compiled, CompileError> {
    match (body.len, body.sha256) {
        (Some(len), Some(digest)) => {
            robocc_compiler::compile_prefix(&body.bytes, len, digest, agent, options)
        }
        _ => compile(&body.bytes, agent, options),
    }
}

/// [`compile_body`] answering each agent separately: the artifact, never
/// split, and the findings.
fn compile_body_each(
    body: &Body,
    agents: &Agents,
    options: &CompileOptions,
) -> Result<(AlignedBytes, Option<String>, Vec<Diagnostic>), CompileError> {
    let c = match (body.len, body.sha256) {
        (Some(len), Some(digest)) => {
            robocc_compiler::compile_each_prefix(&body.bytes, len, digest, agents.iter(), options)
        }
        _ => robocc_compiler::compile_each(&body.bytes, agents.iter(), options),
    }?;
    Ok((c.to_bytes(), None, c.diagnostics))
}

/// The base store's policies that a build with these options may reuse:
/// the SHA-256 of their source → their index in the base store.
pub(super) type Reusable = HashMap<[u8; 32], PolicyId>;

pub(super) fn reusable(base: Option<&Store>, agent: &Agents, wanted: u64) -> Reusable {
    let Some(base) = base else {
        return Reusable::new();
    };
    let mut out = HashMap::new();
    for i in base.policy_ids() {
        // A policy that fails validation is simply not reused.
        if let Ok(p) = base.policy(i) {
            let h = p.header();
            if h.options_hash == wanted && h.agent.eq_ignore_ascii_case(agent.as_str()) {
                out.insert(h.source_sha256, i);
            }
        }
    }
    out
}

/// A base store's policy `i`, as a compile of its source would have built
/// it (the header keeps why it was split and what was not read whole).
pub(super) fn reuse(base: &Store, i: PolicyId) -> Built {
    match (base.policy(i), base.policy_artifact(i)) {
        (Ok(p), Ok(bytes)) => {
            let h = p.header();
            Built::Ok {
                bytes: Artifact::Memory(bytes.to_vec()),
                split: h.split_reason.map(str::to_string),
                unread: h.unread.map(str::to_string),
                base: Some(i),
            }
        }
        (Err(e), _) | (_, Err(e)) => Built::Failed(format!("the base store's policy: {e}")),
    }
}
