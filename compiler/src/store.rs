//! Building a policy store: many hosts' robots.txt → one mmap-able file.
//!
//! Per host, the HTTP outcome decides which policy applies (RFC 9309 §2.3.1):
//!
//! | fetch result | policy |
//! | --- | --- |
//! | 2xx | the body, compiled |
//! | 3xx with `location` in the input | the target's policy (up to 5 hops, §2.3.1.2) |
//! | more than 5 redirects | unavailable: allow all (§2.3.1.2) |
//! | 3xx whose target is not in the input | unreachable: disallow all (robocc's choice: the rules are unknown) |
//! | 3xx without `location` | unreachable: disallow all (robocc's choice: a broken response) |
//! | 4xx | unavailable: allow all (§2.3.1.3) |
//! | 5xx, or status 0 (unreachable) | disallow all (§2.3.1.4) |
//! | 1xx and any other status | unreachable: disallow all (robocc's choice) |
//!
//! Identical bodies compile once (the body bytes are the key). A body that
//! fails to compile never sinks the build: the host gets the fallback the
//! caller chose, and the report says why.

use crate::{compile, CompileOptions};
use rayon::prelude::*;
use robocc_engine::artifact::PolicyData;
use robocc_engine::frame;
use robocc_engine::store::{
    HostEntry, HostKey, HostSource, StoreData, STORE_FORMAT_VERSION, STORE_MAGIC,
};
use std::collections::HashMap;

/// Body standing for "everything allowed" (4xx).
const ALLOW_ALL: &[u8] = b"";
/// Body standing for "everything disallowed" (5xx, unreachable).
const DISALLOW_ALL: &[u8] = b"User-agent: *\nDisallow: /\n";
/// Redirect hops followed (RFC 9309 §2.3.1.2: at least five).
pub const MAX_REDIRECTS: usize = 5;

/// One host's fetch result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostInput {
    /// Host, optionally with `:port` (case is ignored).
    pub host: String,
    /// HTTP status; 0 when the host was unreachable.
    pub status: u16,
    /// The robots.txt body, for 2xx.
    pub body: Option<Vec<u8>>,
    /// Redirect target URL, for 3xx.
    pub location: Option<String>,
    /// When it was fetched (RFC 3339), kept in the index.
    pub fetched_at: Option<String>,
}

/// What a failed body gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    /// Everything allowed.
    Allow,
    /// Everything disallowed (default).
    Disallow,
}

/// A host whose body took the fallback path or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostNote {
    /// Host key.
    pub host: String,
    /// What happened.
    pub note: String,
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreReport {
    /// Hosts in the index.
    pub hosts: usize,
    /// Distinct policies compiled.
    pub unique_policies: usize,
    /// Store size in bytes.
    pub bytes: usize,
    /// Hosts per source: fetched, unavailable, unreachable, redirected, failed.
    pub by_source: [usize; 5],
    /// Bodies that compiled on the split (fallback) path.
    pub fallbacks: Vec<HostNote>,
    /// Bodies that failed to compile, with the reason.
    pub failures: Vec<HostNote>,
    /// Hosts given more than once (the last one wins).
    pub duplicates: Vec<String>,
}

impl StoreReport {
    /// Hosts per distinct policy.
    pub fn dedup_ratio(&self) -> f64 {
        self.hosts as f64 / self.unique_policies.max(1) as f64
    }
}

/// Normalises a host as the store keys it: lower case, default ports dropped.
pub fn host_key(host: &str) -> String {
    let url = format!("http://{host}/");
    let key = HostKey::of_url(url.as_bytes()).map(|k| k.to_key());
    let key = key.unwrap_or_else(|| host.to_ascii_lowercase());
    key.strip_suffix(":443").map(str::to_string).unwrap_or(key)
}

/// How a host's policy is found before compiling.
enum Resolved {
    Body(Vec<u8>),
    Synthetic(&'static [u8]),
}

fn resolve(inputs: &HashMap<String, &HostInput>, input: &HostInput) -> (Resolved, HostSource) {
    let mut current = input;
    let mut hops = 0;
    loop {
        let source = if hops > 0 {
            HostSource::Redirected
        } else {
            HostSource::Fetched
        };
        match current.status {
            200..=299 => {
                return match &current.body {
                    Some(b) => (Resolved::Body(b.clone()), source),
                    None => (Resolved::Synthetic(ALLOW_ALL), HostSource::Unavailable),
                }
            }
            300..=399 => {
                let target = current
                    .location
                    .as_deref()
                    .and_then(|l| HostKey::of_url(l.as_bytes()))
                    .map(|k| k.to_key())
                    .and_then(|k| inputs.get(&k).copied());
                match target {
                    None => return (Resolved::Synthetic(DISALLOW_ALL), HostSource::Unreachable),
                    Some(_) if hops >= MAX_REDIRECTS => {
                        return (Resolved::Synthetic(ALLOW_ALL), HostSource::Unavailable)
                    }
                    Some(t) => {
                        current = t;
                        hops += 1;
                    }
                }
            }
            400..=499 => return (Resolved::Synthetic(ALLOW_ALL), HostSource::Unavailable),
            _ => return (Resolved::Synthetic(DISALLOW_ALL), HostSource::Unreachable),
        }
    }
}

/// Builds a store for `agent`. `progress` is called once per compiled body.
///
/// # Errors
///
/// Only an invalid agent token; bodies that fail are recorded in the report.
pub fn build_store(
    inputs: &[HostInput],
    agent: &str,
    options: &CompileOptions,
    on_failure: OnFailure,
    progress: &(dyn Fn() + Sync),
) -> Result<(rkyv::util::AlignedVec<16>, StoreReport), crate::CompileError> {
    crate::agent::validate_token(agent).map_err(crate::CompileError::BadAgent)?;
    let mut report = StoreReport::default();
    let mut by_host: HashMap<String, &HostInput> = HashMap::new();
    for input in inputs {
        if by_host.insert(host_key(&input.host), input).is_some() {
            report.duplicates.push(host_key(&input.host));
        }
    }
    // Resolve every host to a body, then give each distinct body an index.
    let mut hosts: Vec<(String, Vec<u8>, HostSource, &HostInput)> = by_host
        .iter()
        .map(|(key, input)| {
            let (resolved, source) = resolve(&by_host, input);
            let body = match resolved {
                Resolved::Body(b) => b,
                Resolved::Synthetic(b) => b.to_vec(),
            };
            (key.clone(), body, source, *input)
        })
        .collect();
    hosts.sort_by(|a, b| a.0.cmp(&b.0));
    // Identical bodies compile once: `body_of_host[i]` indexes `bodies`.
    let mut body_index: HashMap<&[u8], usize> = HashMap::new();
    let mut bodies: Vec<&[u8]> = Vec::new();
    let body_of_host: Vec<usize> = hosts
        .iter()
        .map(|(_, body, _, _)| {
            *body_index.entry(body.as_slice()).or_insert_with(|| {
                bodies.push(body.as_slice());
                bodies.len() - 1
            })
        })
        .collect();
    let compiled: Vec<Result<PolicyData, String>> = bodies
        .par_iter()
        .map(|body| {
            let r = compile(body, agent, options)
                .map(|c| c.data)
                .map_err(|e| e.to_string());
            progress();
            r
        })
        .collect();
    let fallback_body = match on_failure {
        OnFailure::Allow => ALLOW_ALL,
        OnFailure::Disallow => DISALLOW_ALL,
    };
    let mut policies: Vec<PolicyData> = Vec::with_capacity(compiled.len() + 1);
    let mut failed_policy: Option<u32> = None;
    let mut index_of_body: Vec<Option<u32>> = vec![None; compiled.len()];
    let mut failure_of_body: Vec<Option<String>> = vec![None; compiled.len()];
    for (i, r) in compiled.into_iter().enumerate() {
        match r {
            Ok(p) => {
                index_of_body[i] = Some(policies.len() as u32);
                policies.push(p);
            }
            Err(e) => failure_of_body[i] = Some(e),
        }
    }
    let mut entries = Vec::with_capacity(hosts.len());
    drop(body_index);
    let hosts: Vec<(String, HostSource, &HostInput)> =
        hosts.into_iter().map(|(k, _, s, i)| (k, s, i)).collect();
    for ((key, mut source, input), &b) in hosts.into_iter().zip(&body_of_host) {
        let policy = match index_of_body[b] {
            Some(p) => {
                if policies[p as usize].automata.len() > 1 {
                    report.fallbacks.push(HostNote {
                        host: key.clone(),
                        note: policies[p as usize].header.build.clone(),
                    });
                }
                p
            }
            None => {
                source = HostSource::Failed;
                report.failures.push(HostNote {
                    host: key.clone(),
                    note: failure_of_body[b].clone().unwrap_or_default(),
                });
                *failed_policy.get_or_insert_with(|| {
                    // The caller's budget just failed; the fallback bodies are
                    // two lines and always fit the default one.
                    let opts = CompileOptions {
                        budget: crate::lower::Budget::default(),
                        parse: crate::ParseOptions::default(),
                        ..options.clone()
                    };
                    let p = compile(fallback_body, agent, &opts)
                        .expect("a one-rule policy fits the default budget")
                        .data;
                    policies.push(p);
                    policies.len() as u32 - 1
                })
            }
        };
        report.by_source[source as usize] += 1;
        entries.push(HostEntry {
            host: key,
            policy,
            source,
            status: input.status,
            fetched_at: input.fetched_at.clone(),
        });
    }
    report.hosts = entries.len();
    report.unique_policies = policies.len();
    let data = StoreData {
        agent: agent.to_string(),
        dialect: options.dialect,
        compiler_version: env!("CARGO_PKG_VERSION").to_string(),
        hosts: entries,
        policies,
    };
    // The format's offsets are 32-bit: a store is at most 2 GiB. rkyv
    // reports an offset that does not fit as an error.
    let archive = rkyv::to_bytes::<rkyv::rancor::Error>(&data)
        .ok()
        .filter(|a| a.len() <= MAX_STORE_BYTES)
        .ok_or_else(|| {
            crate::CompileError::TooLarge(format!(
                "the store of {} hosts and {} policies is over the format's {MAX_STORE_BYTES}-byte \
                 limit: split the hosts into several stores",
                data.hosts.len(),
                data.policies.len()
            ))
        })?;
    let mut out = rkyv::util::AlignedVec::<16>::with_capacity(archive.len() + 16);
    out.extend_from_slice(&frame(&STORE_MAGIC, STORE_FORMAT_VERSION, archive.len()));
    out.extend_from_slice(&archive);
    report.bytes = out.len();
    Ok((out, report))
}

/// Largest store archive the format can address (32-bit relative offsets).
pub const MAX_STORE_BYTES: usize = i32::MAX as usize;

/// [`build_store`] with the default compile options, disallow-all for bodies
/// that fail, and no progress reporting.
///
/// # Errors
///
/// Only an invalid agent token.
pub fn build_store_default(
    inputs: &[HostInput],
    agent: &str,
) -> Result<(rkyv::util::AlignedVec<16>, StoreReport), crate::CompileError> {
    build_store(
        inputs,
        agent,
        &CompileOptions::default(),
        OnFailure::Disallow,
        &|| {},
    )
}

/// Reads a directory of `<host>.txt` / `<host>_<port>.txt` files (status 200).
pub fn inputs_from_dir(dir: &std::path::Path) -> Result<Vec<HostInput>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".txt") else {
            continue;
        };
        let host = match stem.rsplit_once('_') {
            Some((h, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{h}:{port}")
            }
            _ => stem.to_string(),
        };
        let body =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        out.push(HostInput {
            host,
            status: 200,
            body: Some(body),
            ..HostInput::default()
        });
    }
    out.sort_by(|a, b| a.host.cmp(&b.host));
    Ok(out)
}

/// Reads a JSONL manifest: one object per line with `host`, `status`, and
/// `body_path` (relative to the manifest) or `body` (inline text), plus
/// optional `fetched_at` and `location`.
pub fn inputs_from_manifest(path: &std::path::Path) -> Result<Vec<HostInput>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read manifest {}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(std::path::Path::new("."));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", path.display(), n + 1);
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}: not JSON: {e}", at()))?;
        let host = v["host"]
            .as_str()
            .ok_or_else(|| format!("{}: missing \"host\"", at()))?
            .to_string();
        let status = v["status"].as_u64().filter(|&s| s < 1000).ok_or_else(|| {
            format!(
                "{}: missing or invalid \"status\" (HTTP status, 0 for unreachable)",
                at()
            )
        })? as u16;
        let body = match (
            v.get("body").and_then(|b| b.as_str()),
            v.get("body_path").and_then(|b| b.as_str()),
        ) {
            (Some(inline), _) => Some(inline.as_bytes().to_vec()),
            (None, Some(rel)) => {
                let p = base.join(rel);
                Some(
                    std::fs::read(&p)
                        .map_err(|e| format!("{}: cannot read body {}: {e}", at(), p.display()))?,
                )
            }
            (None, None) if (200..300).contains(&status) => {
                return Err(format!(
                    "{}: status {status} needs \"body\" or \"body_path\"",
                    at()
                ))
            }
            (None, None) => None,
        };
        let location = v
            .get("location")
            .and_then(|l| l.as_str())
            .map(str::to_string);
        let fetched_at = v
            .get("fetched_at")
            .and_then(|l| l.as_str())
            .map(str::to_string);
        out.push(HostInput {
            host,
            status,
            body,
            location,
            fetched_at,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use robocc_engine::Store;

    fn input(host: &str, status: u16, body: Option<&str>, location: Option<&str>) -> HostInput {
        HostInput {
            host: host.to_string(),
            status,
            body: body.map(|b| b.as_bytes().to_vec()),
            location: location.map(str::to_string),
            fetched_at: None,
        }
    }

    #[test]
    fn statuses_and_redirects() {
        let blocked = "User-agent: *\nDisallow: /private\n";
        let mut inputs = vec![
            input("a.com", 200, Some(blocked), None),
            input("B.com", 200, Some(blocked), None),
            input("gone.com", 404, None, None),
            input("down.com", 503, None, None),
            input("dead.com", 0, None, None),
            input("moved.com", 301, None, Some("https://a.com/robots.txt")),
            input(
                "nowhere.com",
                302,
                None,
                Some("https://unknown.com/robots.txt"),
            ),
            input("broken.com", 302, None, None),
            input("odd.com", 102, None, None),
            input(
                "port.com:8080",
                200,
                Some("User-agent: *\nDisallow: /\n"),
                None,
            ),
        ];
        // A chain of 6 redirects ends unavailable (allow all).
        for i in 0..6 {
            inputs.push(input(
                &format!("r{i}.com"),
                301,
                None,
                Some(&format!("http://r{}.com/robots.txt", i + 1)),
            ));
        }
        inputs.push(input("r6.com", 200, Some(blocked), None));
        let (bytes, report) = build_store(
            &inputs,
            "Googlebot",
            &CompileOptions::default(),
            OnFailure::Disallow,
            &|| {},
        )
        .unwrap();
        let store = Store::from_bytes(&bytes).unwrap();
        let allowed = |u: &str| store.check(u.as_bytes()).map(|v| v.allowed);
        assert_eq!(allowed("https://a.com/private"), Some(false));
        assert_eq!(allowed("https://b.com/private"), Some(false));
        assert_eq!(allowed("https://A.COM/public"), Some(true));
        assert_eq!(allowed("https://gone.com/private"), Some(true));
        assert_eq!(allowed("https://down.com/x"), Some(false));
        assert_eq!(allowed("https://dead.com/x"), Some(false));
        assert_eq!(allowed("https://moved.com/private"), Some(false));
        assert_eq!(allowed("https://moved.com/public"), Some(true));
        assert_eq!(allowed("https://nowhere.com/x"), Some(false));
        assert_eq!(allowed("https://broken.com/x"), Some(false));
        assert_eq!(allowed("https://odd.com/x"), Some(false));
        assert_eq!(allowed("http://port.com:8080/x"), Some(false));
        assert_eq!(allowed("http://port.com/x"), None);
        assert_eq!(
            allowed("https://r1.com/private"),
            Some(false),
            "5 hops are followed"
        );
        assert_eq!(
            allowed("https://r0.com/private"),
            Some(true),
            "6 hops: unavailable"
        );
        assert_eq!(allowed("https://missing.com/"), None);
        // a.com, b.com and the redirects share one compiled body.
        assert!(report.unique_policies <= 4, "{report:?}");
        assert_eq!(report.hosts, inputs.len());
        assert!(report.dedup_ratio() > 3.0);
    }

    #[test]
    fn a_failing_body_gets_the_fallback_and_is_reported() {
        let hostile = "User-agent: *\nDisallow: /*a*b*c*d\nDisallow: /x\n";
        let inputs = vec![
            input("bad.com", 200, Some(hostile), None),
            input("good.com", 200, Some("User-agent: *\nDisallow: /x\n"), None),
        ];
        // A budget no automaton fits in.
        let mut opts = CompileOptions::default();
        opts.budget.max_states = 1;
        for (fallback, allowed) in [(OnFailure::Disallow, false), (OnFailure::Allow, true)] {
            let (bytes, report) =
                build_store(&inputs, "Googlebot", &opts, fallback, &|| {}).unwrap();
            assert_eq!(report.failures.len(), 2, "{report:?}");
            assert!(report.failures[0].note.contains("budget"), "{report:?}");
            let store = Store::from_bytes(&bytes).unwrap();
            let entry = store.host_entry(b"https://bad.com/").unwrap();
            assert_eq!(
                entry.source,
                robocc_engine::store::ArchivedHostSource::Failed
            );
            assert_eq!(
                store.check(b"https://bad.com/y").map(|v| v.allowed),
                Some(allowed)
            );
        }
    }
}
