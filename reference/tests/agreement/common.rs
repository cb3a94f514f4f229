//! Helpers shared by the integration tests.
#![allow(dead_code)]

use robocc_compiler::{compile, CompileOptions, Compiled};
use robocc_engine::{Dialect, Policy};
use robocc_reference::{Draft1996Oracle, Escapes, OracleOptions, OracleVerdict, Robots2Oracle};
use std::cell::Cell;
use std::path::PathBuf;

pub use robocc_testkit::paths::{root, shared_real};

#[allow(unused_imports)]
pub use robocc_testkit::corpus::txt_files;

/// The `*.txt` files of the shared corpus (when beside the checkout) and of
/// corpus/real, sorted by path.
pub fn all_real_files() -> Vec<PathBuf> {
    let mut files = shared_real().map(|d| txt_files(&d)).unwrap_or_default();
    files.extend(txt_files(&root().join("corpus/real")));
    files.sort();
    files
}

/// Compiles and checks that the engine and the reference agree on every URL,
/// and, for draft1996 and robots2, that the engine and the independent
/// oracle agree on the verdict and the deciding rule's line (see
/// [`DialectOracles`]); returns the number of URLs checked.
pub fn assert_agree(
    name: &str,
    body: &[u8],
    agent: &str,
    opts: &CompileOptions,
    urls: &[Vec<u8>],
) -> usize {
    let compiled: Compiled = compile(body, agent, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let oracles = DialectOracles::new(body, agent, opts);
    let rules = || {
        compiled
            .rule_set
            .rules
            .iter()
            .map(|r| {
                (
                    r.line,
                    r.allow,
                    String::from_utf8_lossy(&r.pattern).into_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    // The batch API answers exactly as `check`; batches of every size up
    // to and past its internal chunk, so chunk edges are crossed.
    let refs: Vec<&[u8]> = urls.iter().map(Vec::as_slice).collect();
    let mut batch = vec![
        robocc_engine::Verdict {
            allowed: false,
            rule: Some(u32::MAX),
        };
        refs.len()
    ];
    for size in [1, 7, 64, 65, 1000] {
        for (u, o) in refs.chunks(size).zip(batch.chunks_mut(size)) {
            policy.check_batch(u, o);
        }
        for (url, b) in refs.iter().zip(&batch) {
            assert_eq!(
                *b,
                policy.check(url),
                "{name} agent={agent} url={:?}: check_batch (batches of {size}) and check differ",
                String::from_utf8_lossy(url)
            );
        }
    }
    for url in urls {
        let got = policy.check(url);
        let want = robocc_reference::check_url(&compiled.rule_set, url);
        assert!(
            got.allowed == want.allowed && got.rule == want.rule,
            "{name} agent={agent} url={:?}: engine {got:?}, reference {want:?}\nrules: {:#?}",
            String::from_utf8_lossy(url),
            rules()
        );
        if let Some(oracles) = &oracles {
            let engine = OracleVerdict {
                allowed: got.allowed,
                line: got.rule.map(|id| compiled.rule_set.rules[id as usize].line),
            };
            if let Err(why) = oracles.judge(engine, url) {
                panic!(
                    "{name} agent={agent} url={:?}: {why}\nrules (line, allow, pattern): {:#?}",
                    String::from_utf8_lossy(url),
                    rules()
                );
            }
        }
    }
    urls.len()
}

/// The compile options' counterpart for the oracles.
pub fn oracle_options(opts: &CompileOptions) -> OracleOptions {
    OracleOptions {
        parse: opts.parse.clone(),
        self_allowed: opts.robots_txt_allowed,
        data_txt: opts.data_txt,
        ..OracleOptions::default()
    }
}

/// One of the independent oracles of `robocc_compiler::reference`.
pub enum Oracle {
    /// `reference::draft1996`.
    Draft1996(Draft1996Oracle),
    /// `reference::robots2`.
    Robots2(Robots2Oracle),
}

impl Oracle {
    /// The oracle of `opts.dialect` (none for rfc9309, whose reference is
    /// independent already), reading escapes and catch-alls as given.
    pub fn new(body: &[u8], agent: &str, opts: &OracleOptions, dialect: Dialect) -> Option<Oracle> {
        match dialect {
            Dialect::Draft1996 => Some(Oracle::Draft1996(Draft1996Oracle::new(body, agent, opts))),
            Dialect::Robots2 => Some(Oracle::Robots2(Robots2Oracle::new(body, agent, opts))),
            _ => None,
        }
    }

    /// The oracle's verdict.
    pub fn check(&self, url: &[u8]) -> OracleVerdict {
        match self {
            Oracle::Draft1996(o) => o.check(url),
            Oracle::Robots2(o) => o.check(url),
        }
    }

    /// A robots2 oracle whose chosen record is a 2.0 rule set.
    pub fn is_robots2_v2(&self) -> bool {
        matches!(self, Oracle::Robots2(o) if o.version2())
    }
}

thread_local! {
    static OCTET_READING_DIFFERENCES: Cell<usize> = const { Cell::new(0) };
}

/// Verdicts counted on this thread (one test) since the last call where the
/// draft's octet reading of escapes differs from the canonical form the
/// engine and the oracle compare (see [`DialectOracles`]).
pub fn take_known_differences() -> usize {
    OCTET_READING_DIFFERENCES.with(|c| c.replace(0))
}

/// The oracles one draft1996 or robots2 compilation is judged by.
///
/// The engine must give the verdict and deciding line of the oracle in its
/// default reading (canonical escapes; "a Disallow that matches every path"
/// is the catch-all). Counted, not failed: where the draft's literal octet reading of
/// escapes ([`Escapes::Octets`]: `%25` is one octet `%`, `%2F` one encoded
/// slash) gives another verdict than the canonical form. That can only
/// happen to robots2 2.0 wildcards (`?`, `[...]`, and `*` followed by hex
/// digits against `%2F`, `%25`, `%23`, `%00` or a stray `%`); for draft1996
/// and 1.0 rule sets the two readings must agree, as docs/dialects.md says.
pub struct DialectOracles {
    main: Oracle,
    octets: Oracle,
}

impl DialectOracles {
    /// The oracles for a compilation with `opts`; none for rfc9309.
    pub fn new(body: &[u8], agent: &str, opts: &CompileOptions) -> Option<DialectOracles> {
        let base = oracle_options(opts);
        let with = |escapes| {
            let o = OracleOptions {
                escapes,
                ..base.clone()
            };
            Oracle::new(body, agent, &o, opts.dialect)
        };
        Some(DialectOracles {
            main: with(Escapes::Canonical)?,
            octets: with(Escapes::Octets)?,
        })
    }

    /// Checks the engine's verdict for `url` (see the type's documentation).
    pub fn judge(&self, engine: OracleVerdict, url: &[u8]) -> Result<(), String> {
        let want = self.main.check(url);
        if engine != want {
            return Err(format!("engine {engine:?}, oracle {want:?}"));
        }
        let octets = self.octets.check(url);
        if octets != want {
            if !self.main.is_robots2_v2() {
                return Err(format!(
                    "the octet reading of escapes gives {octets:?}, the canonical form {want:?}, \
                     outside a robots2 2.0 rule set"
                ));
            }
            OCTET_READING_DIFFERENCES.with(|c| c.set(c.get() + 1));
        }
        Ok(())
    }
}

/// Agents worth checking a file for: the tokens it names (up to `max`) and
/// one it does not.
pub fn agents_of(body: &[u8], max: usize) -> Vec<String> {
    let text = robocc_compiler::input::read(body).text;
    let robots = robocc_compiler::parse::parse(&text, &Default::default());
    let mut agents = vec!["UnlistedBot".to_string()];
    for g in &robots.groups {
        for a in &g.agents {
            let t = robocc_compiler::agent::value_token(a.value);
            if !t.is_empty() {
                let t = String::from_utf8_lossy(t).into_owned();
                if !agents.iter().any(|x| x.eq_ignore_ascii_case(&t)) && agents.len() < max {
                    agents.push(t);
                }
            }
        }
    }
    agents
}
