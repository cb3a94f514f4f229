//! A survey of a store of each-agent policies: one row per host with what
//! each agent may crawl (at probe paths, and its [`Class`] over the whole
//! site, exact from the automaton: [`robocc_compiler::reach`]), the AI-usage
//! preferences it meets, and what the file says beside its rules.
//!
//! Everything a row says about a policy is worked out once per distinct
//! policy of the store (hosts share policies), and kept as the CSV and
//! JSON text it writes; a row adds the host's own fields. The CLI and the
//! bindings write through [`Survey::write_header`] and [`Survey::write_row`],
//! so their bytes are the same. The columns are documented in
//! docs/survey.md.

use robocc_compiler::reach::{classes, Class, DEFAULT_MAX_STATES};
use robocc_engine::{HostInfo, HostSource, LoadError, Policy, PolicyId, Store, Usage, Verdict};
use std::fmt;
use std::io::{self, Write};

/// The AI-usage channels a row reports, in column order.
pub const CHANNELS: [Usage; 3] = [Usage::TrainAi, Usage::Search, Usage::AiInput];

/// The usages whose class a row reports, in column order.
pub const CLASS_USAGES: [Usage; 2] = [Usage::Crawl, Usage::TrainAi];

/// What to survey.
#[derive(Clone, Debug)]
pub struct SurveyOptions {
    /// The agents, in column order; each policy of the store must answer
    /// each of them (an each-agent store built for them, or more).
    pub agents: Vec<String>,
    /// The probe paths (each starting with `/`), in column order.
    pub paths: Vec<String>,
    /// The classes' budget of explored states per policy
    /// ([`robocc_compiler::reach::classes`]; 0: no limit). A policy over it
    /// gets the class `unknown`.
    pub max_states: usize,
}

impl SurveyOptions {
    /// A survey of `agents` at the path `/`, with the default budget.
    pub fn new<I>(agents: I) -> SurveyOptions
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        SurveyOptions {
            agents: agents.into_iter().map(Into::into).collect(),
            paths: vec!["/".into()],
            max_states: DEFAULT_MAX_STATES,
        }
    }
}

/// Why a survey could not be made.
#[derive(Debug)]
pub enum SurveyError {
    /// No agent was asked for.
    NoAgents,
    /// A probe path does not start with `/`.
    Path(String),
    /// A policy of the store does not answer an agent asked for.
    Agent {
        /// The agent.
        agent: String,
        /// The agents the policy answers.
        has: Vec<String>,
    },
    /// The store is damaged.
    Load(LoadError),
    /// A host names a policy the store does not have (a damaged store).
    Policy(PolicyId),
}

impl fmt::Display for SurveyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurveyError::NoAgents => f.write_str("no agent to survey"),
            SurveyError::Path(p) => write!(f, "probe path {p:?} does not start with '/'"),
            SurveyError::Agent { agent, has } => write!(
                f,
                "the store's policies do not answer agent {agent:?} (a policy answers {}): \
                 build the store with --each-agent naming every agent surveyed",
                has.join(", ")
            ),
            SurveyError::Load(e) => write!(f, "the store is damaged: {e}"),
            SurveyError::Policy(id) => write!(
                f,
                "the store is damaged: a host names policy {}, which it does not hold",
                id.index()
            ),
        }
    }
}

impl std::error::Error for SurveyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SurveyError::Load(e) => Some(e),
            _ => None,
        }
    }
}

impl From<LoadError> for SurveyError {
    fn from(e: LoadError) -> SurveyError {
        SurveyError::Load(e)
    }
}

/// An HTTP outcome, as the summary groups hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// 2xx.
    Success,
    /// 3xx.
    Redirect,
    /// 4xx.
    ClientError,
    /// 5xx.
    ServerError,
    /// No response (status 0).
    Unreachable,
    /// Any other status.
    Other,
}

impl Outcome {
    /// Every outcome, in the summary's order.
    pub const ALL: [Outcome; 6] = [
        Outcome::Success,
        Outcome::Redirect,
        Outcome::ClientError,
        Outcome::ServerError,
        Outcome::Unreachable,
        Outcome::Other,
    ];

    /// The outcome of an HTTP status (0: unreachable).
    pub fn of(status: u16) -> Outcome {
        match status {
            0 => Outcome::Unreachable,
            200..=299 => Outcome::Success,
            300..=399 => Outcome::Redirect,
            400..=499 => Outcome::ClientError,
            500..=599 => Outcome::ServerError,
            _ => Outcome::Other,
        }
    }

    /// `2xx`, `3xx`, `4xx`, `5xx`, `unreachable` or `other`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "2xx",
            Outcome::Redirect => "3xx",
            Outcome::ClientError => "4xx",
            Outcome::ServerError => "5xx",
            Outcome::Unreachable => "unreachable",
            Outcome::Other => "other",
        }
    }
}

/// One probe path's answers for one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathFacts {
    /// May the agent crawl the path?
    pub crawl: bool,
    /// The AI-usage preference stated for the path, per [`CHANNELS`]
    /// entry: `Some(allowed)`, or `None` when nothing states one.
    pub preferences: [Option<bool>; 3],
}

/// One agent's answers under one policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentFacts {
    /// The class per [`CLASS_USAGES`] entry; `None` when the policy was
    /// over the budget.
    pub classes: [Option<Class>; 2],
    /// Per probe path, in order.
    pub paths: Vec<PathFacts>,
}

/// What a row says of a policy (shared by the hosts that have it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyFacts {
    /// The whole file was read as written (the policy's header records
    /// nothing unread).
    pub read_whole: bool,
    /// `Sitemap` lines.
    pub sitemaps: usize,
    /// RSL `License` URLs, in file order.
    pub licenses: Vec<String>,
    /// Per agent surveyed, in order.
    pub agents: Vec<AgentFacts>,
    /// The policy's columns as CSV (each preceded by a comma).
    csv: String,
    /// The policy's fields as JSON members (each preceded by a comma).
    json: String,
}

/// One host's row ([`Survey::row`]).
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    /// The host key.
    pub host: &'a str,
    /// The HTTP status of its robots.txt fetch (0: unreachable).
    pub status: u16,
    /// Why the store gives it its policy.
    pub source: HostSource,
    /// When it was fetched, as the input said.
    pub fetched_at: Option<&'a str>,
    /// What its policy says.
    pub facts: &'a PolicyFacts,
}

impl Row<'_> {
    /// The HTTP outcome of [`Row::status`].
    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.status)
    }
}

/// The host columns, before the agents' ([`Survey::columns`]).
const HOST_COLUMNS: [&str; 8] = [
    "host",
    "status",
    "outcome",
    "source",
    "fetched_at",
    "read_whole",
    "sitemaps",
    "licenses",
];

/// A survey of one store: every distinct policy's [`PolicyFacts`], worked
/// out when the survey is made.
pub struct Survey<'s> {
    store: &'s Store,
    options: SurveyOptions,
    /// By policy id.
    facts: Vec<PolicyFacts>,
}

/// A class as the columns write it (`unknown`: over the budget).
pub fn class_name(c: Option<Class>) -> &'static str {
    c.map_or("unknown", Class::name)
}

fn verdict_name(allowed: bool) -> &'static str {
    if allowed {
        "allow"
    } else {
        "disallow"
    }
}

fn preference_name(p: Option<bool>) -> &'static str {
    p.map_or("", verdict_name)
}

/// `s` as one CSV field (RFC 4180: quoted when it holds a comma, quote
/// or line break).
fn csv_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// `s` as a JSON string.
fn json_string(out: &mut String, s: &str) {
    // Serialising a str cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

impl<'s> Survey<'s> {
    /// Works out every policy of `store` for `options`.
    ///
    /// # Errors
    ///
    /// [`SurveyError::NoAgents`], [`SurveyError::Path`]; a policy that does
    /// not answer an agent ([`SurveyError::Agent`]); a damaged store.
    pub fn new(store: &'s Store, options: SurveyOptions) -> Result<Survey<'s>, SurveyError> {
        if options.agents.is_empty() {
            return Err(SurveyError::NoAgents);
        }
        if let Some(p) = options.paths.iter().find(|p| !p.starts_with('/')) {
            return Err(SurveyError::Path(p.clone()));
        }
        let mut facts = Vec::with_capacity(store.policy_count());
        for id in store.policy_ids() {
            facts.push(policy_facts(&store.policy(id)?, &options)?);
        }
        Ok(Survey {
            store,
            options,
            facts,
        })
    }

    /// The options surveyed.
    pub fn options(&self) -> &SurveyOptions {
        &self.options
    }

    /// The facts of policy `id`.
    pub fn facts(&self, id: PolicyId) -> Option<&PolicyFacts> {
        self.facts.get(id.index())
    }

    /// The row of a host of the store.
    pub fn row<'a>(&'a self, host: &HostInfo<'a>) -> Option<Row<'a>> {
        Some(Row {
            host: host.key,
            status: host.status,
            source: host.source,
            fetched_at: host.fetched_at,
            facts: self.facts(host.policy)?,
        })
    }

    /// Every host's row, in the store's index order.
    pub fn rows(&self) -> impl Iterator<Item = Result<Row<'_>, SurveyError>> + '_ {
        self.store.hosts().map(move |h| {
            let h = h?;
            self.row(&h).ok_or(SurveyError::Policy(h.policy))
        })
    }

    /// The column names, in order (the CSV header's fields; the Spark
    /// survey's Parquet columns).
    pub fn columns(&self) -> Vec<String> {
        let mut c: Vec<String> = HOST_COLUMNS.iter().map(|s| s.to_string()).collect();
        for a in &self.options.agents {
            for u in CLASS_USAGES {
                c.push(format!("{a}:{}-class", u.name()));
            }
            for p in &self.options.paths {
                for u in std::iter::once(Usage::Crawl).chain(CHANNELS) {
                    c.push(format!("{a}:{}:{p}", u.name()));
                }
            }
        }
        c
    }

    /// The CSV header line (with its `\n`).
    pub fn csv_header(&self) -> String {
        let mut s = String::new();
        for (i, c) in self.columns().iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            csv_field(&mut s, c);
        }
        s.push('\n');
        s
    }

    /// Writes the header of `format` (CSV's header line; nothing for JSON
    /// lines).
    ///
    /// # Errors
    ///
    /// The writer's.
    pub fn write_header(&self, format: Format, out: &mut impl Write) -> io::Result<()> {
        match format {
            Format::Csv => out.write_all(self.csv_header().as_bytes()),
            Format::Jsonl => Ok(()),
        }
    }

    /// Writes `row` as a CSV line or a JSON line.
    ///
    /// # Errors
    ///
    /// The writer's.
    pub fn write_row(&self, format: Format, row: &Row<'_>, out: &mut impl Write) -> io::Result<()> {
        let mut s = String::with_capacity(64);
        match format {
            Format::Csv => {
                csv_field(&mut s, row.host);
                s.push(',');
                s.push_str(&row.status.to_string());
                s.push(',');
                s.push_str(row.outcome().name());
                s.push(',');
                s.push_str(row.source.name());
                s.push(',');
                csv_field(&mut s, row.fetched_at.unwrap_or(""));
                out.write_all(s.as_bytes())?;
                out.write_all(row.facts.csv.as_bytes())?;
                out.write_all(b"\n")
            }
            Format::Jsonl => {
                s.push_str("{\"host\":");
                json_string(&mut s, row.host);
                s.push_str(",\"status\":");
                s.push_str(&row.status.to_string());
                s.push_str(",\"outcome\":\"");
                s.push_str(row.outcome().name());
                s.push_str("\",\"source\":\"");
                s.push_str(row.source.name());
                s.push_str("\",\"fetched_at\":");
                match row.fetched_at {
                    Some(t) => json_string(&mut s, t),
                    None => s.push_str("null"),
                }
                out.write_all(s.as_bytes())?;
                out.write_all(row.facts.json.as_bytes())?;
                out.write_all(b"}\n")
            }
        }
    }
}

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A header line, then a line per host (RFC 4180 quoting).
    Csv,
    /// A JSON object per line.
    Jsonl,
}

impl Format {
    /// `csv` or `jsonl`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }
}

/// Where each surveyed agent sits in `policy`'s [`Policy::agents`]. A
/// status's or failure's stand-in policy of an each-agent store is compiled
/// for the agents together, and answers each as it would alone.
fn agent_indexes(policy: &Policy<'_>, agents: &[String]) -> Result<Vec<usize>, SurveyError> {
    let h = policy.header();
    if !policy.is_each_agent()
        && crate::build::is_stand_in(h.source_sha256)
        && agents
            .iter()
            .all(|a| h.agents().any(|p| p.eq_ignore_ascii_case(a)))
    {
        return Ok(vec![0; agents.len()]);
    }
    agents
        .iter()
        .map(|a| {
            policy
                .agents()
                .position(|p| p.eq_ignore_ascii_case(a))
                .ok_or_else(|| SurveyError::Agent {
                    agent: a.clone(),
                    has: policy.agents().map(str::to_string).collect(),
                })
        })
        .collect()
}

fn policy_facts(policy: &Policy<'_>, options: &SurveyOptions) -> Result<PolicyFacts, SurveyError> {
    let index = agent_indexes(policy, &options.agents)?;
    let n = policy.agent_count();
    // Over the budget: no class (`unknown`).
    let reach = classes(policy, &CLASS_USAGES, options.max_states).ok();
    let mut crawl = vec![
        Verdict {
            allowed: true,
            rule: None
        };
        n
    ];
    let mut prefs: Vec<Vec<Option<Verdict>>> = vec![vec![None; n]; CHANNELS.len()];
    // Per probe path, per agent of the policy.
    let mut at_paths: Vec<Vec<PathFacts>> = Vec::new();
    for p in &options.paths {
        let url = p.as_bytes();
        policy.check_each(url, &mut crawl);
        for (c, &u) in CHANNELS.iter().enumerate() {
            policy.preference_each(url, u, &mut prefs[c]);
        }
        at_paths.push(
            (0..n)
                .map(|i| PathFacts {
                    crawl: crawl[i].allowed,
                    preferences: [0, 1, 2].map(|c| prefs[c][i].map(|v| v.allowed)),
                })
                .collect(),
        );
    }
    let agents: Vec<AgentFacts> = index
        .iter()
        .map(|&i| AgentFacts {
            classes: CLASS_USAGES.map(|u| reach.as_ref().and_then(|r| r.get(i, u))),
            paths: at_paths.iter().map(|p| p[i].clone()).collect(),
        })
        .collect();
    let meta = policy.meta();
    let mut facts = PolicyFacts {
        read_whole: policy.header().unread.is_none(),
        sitemaps: meta.sitemaps().count(),
        licenses: meta.licenses().map(str::to_string).collect(),
        agents,
        csv: String::new(),
        json: String::new(),
    };
    facts.csv = facts_csv(&facts);
    facts.json = facts_json(&facts, options);
    Ok(facts)
}

fn facts_csv(f: &PolicyFacts) -> String {
    let mut s = String::new();
    s.push(',');
    s.push_str(if f.read_whole { "true" } else { "false" });
    s.push(',');
    s.push_str(&f.sitemaps.to_string());
    s.push(',');
    csv_field(&mut s, &f.licenses.join(" "));
    for a in &f.agents {
        for c in a.classes {
            s.push(',');
            s.push_str(class_name(c));
        }
        for p in &a.paths {
            s.push(',');
            s.push_str(verdict_name(p.crawl));
            for pref in p.preferences {
                s.push(',');
                s.push_str(preference_name(pref));
            }
        }
    }
    s
}

fn facts_json(f: &PolicyFacts, options: &SurveyOptions) -> String {
    let mut s = String::new();
    s.push_str(",\"read_whole\":");
    s.push_str(if f.read_whole { "true" } else { "false" });
    s.push_str(",\"sitemaps\":");
    s.push_str(&f.sitemaps.to_string());
    s.push_str(",\"licenses\":[");
    for (i, l) in f.licenses.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        json_string(&mut s, l);
    }
    s.push_str("],\"agents\":[");
    for (k, (a, name)) in f.agents.iter().zip(&options.agents).enumerate() {
        if k > 0 {
            s.push(',');
        }
        s.push_str("{\"agent\":");
        json_string(&mut s, name);
        for (u, c) in CLASS_USAGES.iter().zip(a.classes) {
            s.push_str(&format!(",\"{}-class\":\"{}\"", u.name(), class_name(c)));
        }
        s.push_str(",\"paths\":[");
        for (j, (p, path)) in a.paths.iter().zip(&options.paths).enumerate() {
            if j > 0 {
                s.push(',');
            }
            s.push_str("{\"path\":");
            json_string(&mut s, path);
            s.push_str(&format!(",\"crawl\":\"{}\"", verdict_name(p.crawl)));
            for (u, pref) in CHANNELS.iter().zip(p.preferences) {
                match pref {
                    Some(v) => s.push_str(&format!(",\"{}\":\"{}\"", u.name(), verdict_name(v))),
                    None => s.push_str(&format!(",\"{}\":null", u.name())),
                }
            }
            s.push('}');
        }
        s.push_str("]}");
    }
    s.push(']');
    s
}

/// Per agent, how many hosts fall in each class (crawl), overall and by
/// HTTP outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    agents: Vec<String>,
    /// `[agent][outcome][class]`, the class index 3 counting `unknown`.
    counts: Vec<[[usize; 4]; 6]>,
}

impl Summary {
    /// An empty summary of `agents`.
    pub fn new(agents: &[String]) -> Summary {
        Summary {
            agents: agents.to_vec(),
            counts: vec![[[0; 4]; 6]; agents.len()],
        }
    }

    /// Counts `row`.
    pub fn add(&mut self, row: &Row<'_>) {
        let o = Outcome::ALL
            .iter()
            .position(|&x| x == row.outcome())
            .unwrap_or(5);
        for (counts, a) in self.counts.iter_mut().zip(&row.facts.agents) {
            let c = match a.classes[0] {
                Some(c) => Class::ALL.iter().position(|&x| x == c).unwrap_or(3),
                None => 3,
            };
            counts[o][c] += 1;
        }
    }

    /// How many hosts of `outcome` (all: `None`) agent `agent` has in
    /// `class` (unknown: `None`).
    pub fn count(&self, agent: usize, outcome: Option<Outcome>, class: Option<Class>) -> usize {
        let Some(counts) = self.counts.get(agent) else {
            return 0;
        };
        let c = class.map_or(3, |c| Class::ALL.iter().position(|&x| x == c).unwrap_or(3));
        Outcome::ALL
            .iter()
            .enumerate()
            .filter(|(_, &o)| outcome.is_none_or(|x| x == o))
            .map(|(i, _)| counts[i][c])
            .sum()
    }
}

impl fmt::Display for Summary {
    /// A line per agent and outcome (`all` first) with hosts and the share
    /// of each class.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "agent\toutcome\thosts\tall-disallowed\tpartly\tall-allowed\tunknown"
        )?;
        for (i, a) in self.agents.iter().enumerate() {
            let groups = std::iter::once(None).chain(Outcome::ALL.map(Some));
            for o in groups {
                let per: Vec<usize> = Class::ALL
                    .iter()
                    .map(|&c| Some(c))
                    .chain([None])
                    .map(|c| self.count(i, o, c))
                    .collect();
                let hosts: usize = per.iter().sum();
                if hosts == 0 && o.is_some() {
                    continue;
                }
                write!(f, "{a}\t{}\t{hosts}", o.map_or("all", Outcome::name))?;
                for n in per {
                    let share = if hosts == 0 {
                        0.0
                    } else {
                        100.0 * n as f64 / hosts as f64
                    };
                    write!(f, "\t{share:.1}%")?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}
