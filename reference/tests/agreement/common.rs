//! Helpers shared by the integration tests.
#![allow(dead_code)]

use robocc_compiler::{compile, CompileOptions, Compiled};
use robocc_engine::{Dialect, Policy};
use robocc_reference::{
    Draft1996Oracle, Escapes, OracleOptions, OracleVerdict, Rfc9309Options, Rfc9309Oracle,
    Robots2Oracle,
};
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

/// Compiles and checks that the engine agrees on every URL with the
/// rule-set reference (`robocc_reference::check_url` over the compiler's
/// rule set: same verdict, same rule id) and with the independent oracle
/// of the dialect (rfc9309, draft1996, robots2: same verdict, same deciding
/// line; see [`DialectOracles`]); returns the number of URLs checked.
pub fn assert_agree(
    name: &str,
    body: &[u8],
    agent: &str,
    opts: &CompileOptions,
    urls: &[Vec<u8>],
) -> usize {
    assert_agree_for(name, body, &[agent], opts, urls)
}

/// [`assert_agree`] for a policy compiled for several agents at once
/// (rfc9309: the oracle reads them as Google's `AllowedByRobots` reads its
/// vector of user agents).
pub fn assert_agree_for(
    name: &str,
    body: &[u8],
    agents: &[&str],
    opts: &CompileOptions,
    urls: &[Vec<u8>],
) -> usize {
    let agent = agents.join(",");
    let compiled: Compiled = compile(body, agents, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bytes = compiled.to_bytes();
    let policy = Policy::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let oracles = DialectOracles::new(body, agents, opts)
        .unwrap_or_else(|| panic!("{name}: no independent oracle for {:?}", opts.dialect));
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
            rule: Some(robocc_engine::RuleId::new(u32::MAX)),
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
        let engine = OracleVerdict {
            allowed: got.allowed,
            line: got.rule.map(|id| compiled.rule_set.rules[id.index()].line),
        };
        if let Err(why) = oracles.judge(engine, url) {
            panic!(
                "{name} agent={agent} url={:?}: {why}\nrules (line, allow, pattern): {:#?}",
                String::from_utf8_lossy(url),
                rules()
            );
        }
    }
    urls.len()
}

/// The compile options' counterpart for the draft1996 and robots2 oracles.
pub fn oracle_options(opts: &CompileOptions) -> OracleOptions {
    OracleOptions {
        parse: opts.parse.clone(),
        self_allowed: opts.robots_txt_allowed,
        data_txt: opts.data_txt,
        ..OracleOptions::default()
    }
}

/// The compile options' counterpart for the rfc9309 oracle.
pub fn rfc9309_options(opts: &CompileOptions) -> Rfc9309Options {
    assert!(
        !opts.parse.blank_lines_end_records,
        "blank lines ending records is the drafts' grammar, not an rfc9309 option"
    );
    Rfc9309Options {
        url_mode: opts.url_mode,
        self_allowed: opts.robots_txt_allowed,
        data_txt: opts.data_txt,
        records_close_groups: opts.parse.records_close_groups,
        max_bytes: opts.parse.max_bytes,
        max_line_len: opts.parse.max_line_len,
        max_rules_per_group: opts.parse.max_rules_per_group,
    }
}

/// One of the independent oracles of `robocc_reference`.
pub enum Oracle {
    /// `reference::rfc9309`.
    Rfc9309(Rfc9309Oracle),
    /// `reference::draft1996`.
    Draft1996(Draft1996Oracle),
    /// `reference::robots2`.
    Robots2(Robots2Oracle),
}

impl Oracle {
    /// The oracle of `opts.dialect` (none for acap, whose oracle answers
    /// per usage), reading escapes as given (draft1996 and robots2, which
    /// take one agent).
    pub fn new(
        body: &[u8],
        agents: &[&str],
        opts: &CompileOptions,
        escapes: Escapes,
    ) -> Option<Oracle> {
        let one = || {
            assert_eq!(agents.len(), 1, "{:?} takes one agent", opts.dialect);
            agents[0]
        };
        let drafts = OracleOptions {
            escapes,
            ..oracle_options(opts)
        };
        match opts.dialect {
            Dialect::Rfc9309 => Some(Oracle::Rfc9309(Rfc9309Oracle::for_agents(
                body,
                agents,
                &rfc9309_options(opts),
            ))),
            Dialect::Draft1996 => Some(Oracle::Draft1996(Draft1996Oracle::new(
                body,
                one(),
                &drafts,
            ))),
            Dialect::Robots2 => Some(Oracle::Robots2(Robots2Oracle::new(body, one(), &drafts))),
            _ => None,
        }
    }

    /// The oracle's verdict.
    pub fn check(&self, url: &[u8]) -> OracleVerdict {
        match self {
            Oracle::Rfc9309(o) => o.check(url),
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

/// The oracles one rfc9309, draft1996 or robots2 compilation is judged by.
///
/// The engine must give the verdict and deciding line of the dialect's
/// oracle (for draft1996 and robots2 in its default reading: canonical
/// escapes; "a Disallow that matches every path" is the catch-all).
/// Counted, not failed: where the draft's literal octet reading of
/// escapes ([`Escapes::Octets`]: `%25` is one octet `%`, `%2F` one encoded
/// slash) gives another verdict than the canonical form. That can only
/// happen to robots2 2.0 wildcards (`?`, `[...]`, and `*` followed by hex
/// digits against `%2F`, `%25`, `%23`, `%00` or a stray `%`); for draft1996
/// and 1.0 rule sets the two readings must agree, as docs/dialects.md says.
pub struct DialectOracles {
    main: Oracle,
    /// The octet reading (draft1996 and robots2 only).
    octets: Option<Oracle>,
}

impl DialectOracles {
    /// The oracles for a compilation for `agents` with `opts`; none for
    /// acap.
    pub fn new(body: &[u8], agents: &[&str], opts: &CompileOptions) -> Option<DialectOracles> {
        let main = Oracle::new(body, agents, opts, Escapes::Canonical)?;
        let octets = match main {
            Oracle::Rfc9309(_) => None,
            _ => Oracle::new(body, agents, opts, Escapes::Octets),
        };
        Some(DialectOracles { main, octets })
    }

    /// The verdict of the dialect's oracle (in the canonical reading).
    pub fn check(&self, url: &[u8]) -> OracleVerdict {
        self.main.check(url)
    }

    /// Checks the engine's verdict for `url` (see the type's documentation).
    pub fn judge(&self, engine: OracleVerdict, url: &[u8]) -> Result<(), String> {
        let want = self.main.check(url);
        if engine != want {
            return Err(format!("engine {engine:?}, oracle {want:?}"));
        }
        let Some(octets) = &self.octets else {
            return Ok(());
        };
        let octets = octets.check(url);
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
    use robocc_reference::rfc9309::{body_text, extract_user_agent, read, Key};
    let text = body_text(body);
    let mut agents = vec!["UnlistedBot".to_string()];
    for line in read(&text, &Rfc9309Options::default()) {
        let t = extract_user_agent(line.value);
        if line.key == Key::UserAgent && !t.is_empty() {
            let t = String::from_utf8_lossy(t).into_owned();
            if !agents.iter().any(|x| x.eq_ignore_ascii_case(&t)) && agents.len() < max {
                agents.push(t);
            }
        }
    }
    agents
}
