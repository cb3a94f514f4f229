//! Building a policy store: many hosts' robots.txt → one mmap-able file.
//!
//! Per host, the HTTP outcome decides which policy applies (RFC 9309 §2.3.1;
//! statuses are read by the fetch rules' [`robocc_compiler::fetch::classify`],
//! their one home, docs/fetch.md):
//!
//! | fetch result | policy |
//! | --- | --- |
//! | 2xx | the body, compiled |
//! | 3xx to a robots.txt ([`is_robots_txt_url`]) of a host in the input | the target's policy (up to 5 hops, §2.3.1.2) |
//! | more than 5 redirects | unavailable: allow all (§2.3.1.2) |
//! | 3xx whose target is not in the input: another host, another document than a robots.txt, the host itself when the redirect is its only input | unreachable: disallow all (robocc's choice: the rules are unknown) |
//! | 3xx without `location` | unreachable: disallow all (robocc's choice: a broken response) |
//! | 4xx but 429 | unavailable: allow all (§2.3.1.3) |
//! | 429 Too Many Requests | unreachable: disallow all (Google's reading; docs/dialects.md, "Fetch status") |
//! | 5xx, or status 0 (unreachable) | disallow all (§2.3.1.4) |
//! | 1xx and any other status | unreachable: disallow all (robocc's choice) |
//!
//! The build is four steps: **collect** (stream the inputs; each distinct
//! body is kept once, up to what the parser reads, each host as a small
//! record — memory grows with distinct bodies, not with hosts), **resolve** (status and redirects →
//! which body, and why), **compile** (each distinct body once, in parallel,
//! or reused from a base store when its source and options are unchanged),
//! **index** (hosts → policies, written by the engine's store writer). A
//! body that fails to compile never sinks the build: its hosts get the
//! fallback the caller chose, and the report says why.
//!
//! The crate's modules, one per concern: `inputs` (what a build reads),
//! `host` (host keys and redirects), `build` (collect → resolve → compile →
//! index), `report` (what a build did, and its errors), [`warc`] (Common
//! Crawl's WARC files), [`output`] (writing a store or set atomically) and
//! [`survey`] (a store's hosts as rows: each agent's classes and answers).
//! Everything but the last three is re-exported here.

mod build;
mod host;
mod inputs;
pub mod output;
mod report;
pub mod survey;
pub mod warc;

pub use build::{BuiltSet, OnFailure, StoreBuilder};
pub use host::{
    absolute_location, host_key, idna_lookup_url, is_robots_txt_url, is_self_redirect,
    redirect_dependencies, redirect_target, shard_of_key, url_host_key, HostKeyError, HostNote,
    MAX_REDIRECTS,
};
pub use inputs::{
    dir_inputs, hex, inputs_from_dir, manifest_inputs, manifest_inputs_from, manifest_line,
    DirInputs, HostInput, InputError, InputErrorKind,
};
pub use report::{SourceCounts, StoreError, StoreReport};

#[cfg(test)]
mod test_support {
    /// A temporary directory removed when dropped.
    pub(crate) struct TempDir(pub(crate) std::path::PathBuf);
    impl TempDir {
        pub(crate) fn new(name: &str) -> TempDir {
            let d = std::env::temp_dir().join(format!("robocc-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            TempDir(d)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
