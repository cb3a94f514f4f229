//! The whole pipeline: bytes → parse → select → rule set → automata →
//! artifact.

use crate::agent::{validate_agent, validate_token, Agents, BadAgent, Selection};
use crate::diag::{DiagCode, Diagnostic};
use crate::dialect::{self, semantics, Dialect};
use crate::lower::{lower, Budget, Layout, LowerError, Lowered, Registers};
use crate::outcome::Resolution;
use crate::parse::keys::KeyKind;
use crate::parse::{parse, parse_grouped, LineGrammar, ParseOptions, RobotsTxt};
use crate::ruleset::{RuleSet, RuleSetOptions};
use crate::signals::{PreferenceGrouping, UsageGroups};
use robocc_engine::artifact::{
    fnv1a64, AcapData, AcapRuleData, HeaderData, MetaData, PolicyData, RateData, RecordData,
    RuleData, SignalRuleData, SignalsData, WindowData,
};
use robocc_engine::{frame, AlignedBytes, FileKind, RecordKind, TimeWindow, UrlMode, FRAME_LEN};
use std::fmt;
use std::time::Duration;

/// How to compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Semantics. Default: rfc9309.
    pub dialect: Dialect,
    /// URL and pattern encoding. Default: Google's (match as given).
    pub url_mode: UrlMode,
    /// Allow `/robots.txt` whatever the rules say (RFC 9309 §2.2.2: "The
    /// /robots.txt URI is implicitly allowed"). Default: true. Google's
    /// library does not special-case it; set false to match it exactly.
    pub robots_txt_allowed: bool,
    /// The file is a /data.txt (the 1996 draft's data-discovery variant): its
    /// own path `/data.txt` is the one always allowed.
    pub data_txt: bool,
    /// Parse limit and grouping.
    pub parse: ParseOptions,
    /// Automaton budget.
    pub budget: Budget,
    /// rfc9309: product tokens that AI operators use for training only
    /// (`Google-Extended`, …): where a group naming one disallows a URL, the
    /// `train-ai` channel is disallowed (docs/dialects.md, "AI-usage
    /// preferences").
    pub training_agents: Vec<String>,
    /// rfc9309: which groups the AI-usage preference lines belong to.
    /// Default [`PreferenceGrouping::Spec`]: each syntax as the text that
    /// defines it reads (a `Content-Usage` line is a rule of RFC 9309's
    /// grammar, attach-05 §3); crawl is Google's grouping either way
    /// (docs/dialects.md, "Which lines apply").
    pub preference_grouping: PreferenceGrouping,
    /// acap: the crawler's usage purposes (ACAP 2.3.3); sub-records whose
    /// purpose pattern matches one of them apply. Ignored by the other
    /// dialects.
    pub purposes: Vec<String>,
    /// acap: files named by `ACAP-permissions-reference` fields (ACAP
    /// 2.3.2), as (path as written in the field, body). A reference with no
    /// file here makes its record prohibit every usage.
    pub references: Vec<(String, Vec<u8>)>,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            dialect: Dialect::Rfc9309,
            url_mode: UrlMode::Google,
            robots_txt_allowed: true,
            data_txt: false,
            parse: ParseOptions::default(),
            budget: Budget::default(),
            training_agents: Vec::new(),
            preference_grouping: PreferenceGrouping::Spec,
            purposes: Vec::new(),
            references: Vec::new(),
        }
    }
}

impl CompileOptions {
    /// Checks that `agents` are product tokens of the dialect (RFC 9309's
    /// `[A-Za-z_-]+`; the 1996 draft's RFC 1945 token in draft1996 and
    /// robots2), at least one, and one only where the dialect gives several
    /// no meaning ([`dialect::Semantics::several_agents`]); and every
    /// training agent an RFC 9309 one: a training agent such as
    /// `Google-Extended/1.0` would otherwise match no group and leave
    /// `train-ai` unknown without a word.
    pub fn check_tokens(&self, agents: impl Into<Agents>) -> Result<(), CompileError> {
        let agents = agents.into();
        let sem = semantics(self.dialect);
        if agents.is_empty() {
            validate_agent("", sem.agent_token).map_err(CompileError::BadAgent)?;
        }
        for agent in agents.iter() {
            validate_agent(agent, sem.agent_token).map_err(CompileError::BadAgent)?;
        }
        if agents.len() > 1 && !sem.several_agents {
            return Err(CompileError::SeveralAgents {
                dialect: self.dialect,
                agents: agents.to_string(),
            });
        }
        for t in &self.training_agents {
            validate_token(t).map_err(CompileError::BadTrainingAgent)?;
        }
        Ok(())
    }

    /// The rule-set options these compile options imply.
    pub fn rule_set_options(&self) -> RuleSetOptions {
        RuleSetOptions {
            url_mode: self.url_mode,
            index_htm: semantics(self.dialect).index_htm,
            robots_txt_allowed: self.robots_txt_allowed,
            data_txt: self.data_txt,
            dialect: self.dialect,
        }
    }

    /// The parse options in force: the draft's dialects read its grammar
    /// (records separated by blank lines, any field line a rule line,
    /// whole field names), whatever `parse` says.
    pub fn effective_parse(&self) -> ParseOptions {
        let sem = semantics(self.dialect);
        ParseOptions {
            blank_lines_end_records: self.parse.blank_lines_end_records
                || sem.blank_lines_end_records,
            records_close_groups: self.parse.records_close_groups || sem.records_close_groups,
            line_grammar: sem.line_grammar,
            ..self.parse.clone()
        }
    }
}

/// A limit as the command line and the Python binding take it: `0` means
/// none (`usize::MAX`). The library's fields take the number as it is,
/// except [`ParseOptions::max_bytes`], where 0 already means no limit.
pub fn zero_is_unlimited(n: usize) -> usize {
    if n == 0 {
        usize::MAX
    } else {
        n
    }
}

/// The lowering's deadline as the command line (`--compile-timeout 0.5`)
/// and the Python binding (`compile_timeout=0.5`) take it: seconds,
/// fractions allowed; `0`, and any value past the clock's range
/// (`inf` included), is no deadline ([`Duration::MAX`]). `None` for a
/// negative number or NaN, which both refuse.
pub fn timeout_from_secs(secs: f64) -> Option<Duration> {
    if secs == 0.0 || secs >= Duration::MAX.as_secs_f64() {
        return Some(Duration::MAX);
    }
    Duration::try_from_secs_f64(secs).ok()
}

/// Why a file could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The agent product token is not valid.
    BadAgent(BadAgent),
    /// A training agent ([`CompileOptions::training_agents`]) is not a
    /// valid product token.
    BadTrainingAgent(BadAgent),
    /// Several agents, in a dialect that gives them no meaning
    /// ([`dialect::Semantics::several_agents`]: only rfc9309 merges the
    /// groups naming any of them).
    SeveralAgents {
        /// The dialect.
        dialect: Dialect,
        /// The agents, joined by `,`.
        agents: String,
    },
    /// The automata do not fit the budget even on the fallback path.
    Budget(LowerError),
    /// The output would exceed a size limit.
    TooLarge(String),
    /// Each agent answered separately (`compile_each`) cannot be asked so
    /// (no agent, or a dialect that answers one): why.
    EachAgent(String),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::BadAgent(e) => e.fmt(f),
            CompileError::BadTrainingAgent(e) => write!(f, "training agent: {e}"),
            CompileError::SeveralAgents { dialect, agents } => write!(
                f,
                "several agents ({agents}) have no meaning in dialect {}: {}; compile once \
                 per agent, or read the file as rfc9309",
                dialect.name(),
                match dialect {
                    Dialect::Acap => "an ACAP record names one crawler",
                    _ =>
                        "the 1996 draft's robot has one name and obeys the one record naming \
                          it (§3.2.1)",
                }
            ),
            CompileError::Budget(e) => write!(f, "cannot compile within the budget: {e}"),
            CompileError::TooLarge(why) | CompileError::EachAgent(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for CompileError {}

/// A compiled policy, before serialisation.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// What the artifact will hold.
    pub data: PolicyData,
    /// The rules, in the form the reference matcher takes.
    pub rule_set: RuleSet,
    /// Which groups were chosen, and how.
    pub selection: Selection,
    /// Parser and compiler findings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compiled {
    /// The artifact bytes (16-byte aligned, ready for `Policy::from_bytes`).
    pub fn to_bytes(&self) -> AlignedBytes {
        let archive = rkyv::to_bytes::<rkyv::rancor::Error>(&self.data)
            .expect("serialising plain owned data cannot fail");
        let mut out = AlignedBytes::with_capacity(archive.len() + FRAME_LEN);
        out.extend_from_slice(&frame(FileKind::Policy, &archive));
        out.extend_from_slice(&archive);
        out
    }
}

/// Compiles `robots_txt` for `agents`: a product token (`"Googlebot"`), or
/// several a crawler obeys together (`["Googlebot-Image", "Googlebot"]`,
/// rfc9309 only: see [`Agents`]).
///
/// # Errors
///
/// An invalid product token, several agents in a dialect other than
/// rfc9309, or rules whose automata exceed the budget even when split
/// (hostile input far beyond real files).
pub fn compile(
    robots_txt: &[u8],
    agents: impl Into<Agents>,
    options: &CompileOptions,
) -> Result<Compiled, CompileError> {
    compile_source(robots_txt, None, &agents.into(), options, Degrade::Signals)
}

/// [`compile`], failing where it would drop the AI-usage preference
/// statements to fit the budget (`DiagCode::SignalsDropped`): the policy
/// answers every channel as the rules are written, or the budget error
/// says why it cannot. What a [`Checker`](crate::Checker) promotes to.
/// Lowering may take at most `time` (and the budget's time): a policy it
/// makes in less is the same bytes as [`compile`]'s, the options
/// fingerprint included.
pub(crate) fn compile_as_written(
    robots_txt: &[u8],
    agents: &Agents,
    options: &CompileOptions,
    time: Duration,
) -> Result<Compiled, CompileError> {
    compile_source(robots_txt, None, agents, options, Degrade::Never(time))
}

/// Whether lowering may give up part of the rules to fit the budget.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Degrade {
    /// The AI-usage preference statements, with a `SignalsDropped`
    /// finding ([`compile`]).
    Signals,
    /// Nothing: over the budget, or past this time, is an error.
    Never(Duration),
}

/// [`compile`] of a body of which `prefix` holds only the first bytes, the
/// whole being `len` bytes of SHA-256 `sha256`: the policy compiling the
/// whole body makes, byte for byte, when `prefix` reads as the whole
/// (`robocc_store`'s `prefix_reads_as_whole`: the parse limit cuts both at
/// the same line). A store build keeps only that much of a large body.
pub fn compile_prefix(
    prefix: &[u8],
    len: u64,
    sha256: [u8; 32],
    agents: impl Into<Agents>,
    options: &CompileOptions,
) -> Result<Compiled, CompileError> {
    compile_source(
        prefix,
        Some((len, sha256)),
        &agents.into(),
        options,
        Degrade::Signals,
    )
}

/// What compiling reads before it lowers: the file parsed, the groups
/// selected, the rules made (the same for [`compile`] and the
/// [`Checker`](crate::Checker), which answers from the rules).
pub(crate) struct Front<'a> {
    pub(crate) sem: &'static dialect::Semantics,
    /// The ACAP records (acap only).
    pub(crate) acap_file: Option<&'a crate::parse::acap::AcapFile>,
    pub(crate) robots: &'a RobotsTxt<'a>,
    pub(crate) selection: Selection,
    pub(crate) rule_set: RuleSet,
    /// Findings so far (the input's, ACAP's and the signals'; the parser's
    /// are in `robots`).
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Reads `robots_txt` for `agents` up to its rules, and hands them to
/// `then` (the parse borrows the decoded text, which lives here).
pub(crate) fn front<R>(
    robots_txt: &[u8],
    whole: Option<(u64, [u8; 32])>,
    agents: &Agents,
    options: &CompileOptions,
    then: impl FnOnce(Front<'_>) -> Result<R, CompileError>,
) -> Result<R, CompileError> {
    options.check_tokens(agents)?;
    let source_len = whole.map_or(robots_txt.len(), |(len, _)| len as usize);
    let sem = semantics(options.dialect);
    let input = crate::input::read(robots_txt);
    let mut diagnostics = input.diagnostics.clone();
    // acap: ACAP records are read first (ACAP 2.9.2).
    let (acap_file, conventional_body) =
        crate::parse::acap::split(&input.text, sem.acap_records, options.parse.max_bytes);
    let effective = options.effective_parse();
    let mut robots = parse(&conventional_body, &effective);
    if whole.is_some() {
        // The parse limit's finding, of the whole body: the text is the
        // body's bytes (a prefix is never UTF-16), so its length is.
        let ignored = source_len.saturating_sub(robots.bytes_parsed);
        for d in &mut robots.diagnostics {
            if d.code == DiagCode::ParseLimit {
                d.message =
                    crate::parse::parse_limit_message(source_len, options.parse.max_bytes, ignored);
            }
        }
    }
    let selection = sem.selection.select(&robots, agents);
    let mut rule_set = RuleSet::build(&robots, &selection, options.rule_set_options());
    if let Some(f) = &acap_file {
        diagnostics.extend(f.diagnostics.iter().cloned());
        let input = crate::acap::AcapInput {
            // acap takes one agent (`check_tokens`).
            agent: agents.iter().next().unwrap_or_default(),
            purposes: &options.purposes,
            references: &options.references,
            max_bytes: options.parse.max_bytes,
        };
        let (rules, info) = crate::acap::rules(f, &robots, &selection, input, &mut diagnostics);
        rule_set.rules = rules;
        rule_set.resolution = Resolution::Acap(info);
    }
    // AI-usage preferences (rfc9309): their statements join the rule set,
    // which is then lowered in set mode with the dialect's signal channels.
    if sem.reads_signals() {
        // attach-05's grouping differs from crawl's only where a
        // Content-Usage line stands in a group: only then is it read again.
        let spec = options.preference_grouping == PreferenceGrouping::Spec
            && robots
                .groups
                .iter()
                .any(|g| g.records.iter().any(|r| r.is_content_usage()));
        let usage_robots = spec.then(|| parse_grouped(&conventional_body, &effective, true));
        let usage_selection = usage_robots
            .as_ref()
            .map(|r| sem.selection.select(r, agents));
        let usage = usage_robots
            .as_ref()
            .zip(usage_selection.as_ref())
            .map(|(robots, selection)| UsageGroups { robots, selection });
        crate::signals::add(
            &mut rule_set,
            &robots,
            &selection,
            usage,
            &options.training_agents,
            options.rule_set_options(),
            &mut diagnostics,
        );
    }
    then(Front {
        sem,
        acap_file: acap_file.as_ref(),
        robots: &robots,
        selection,
        rule_set,
        diagnostics,
    })
}

fn compile_source(
    robots_txt: &[u8],
    whole: Option<(u64, [u8; 32])>,
    agents: &Agents,
    options: &CompileOptions,
    degrade: Degrade,
) -> Result<Compiled, CompileError> {
    front(robots_txt, whole, agents, options, |f| {
        let whole = whole.unwrap_or_else(|| (robots_txt.len() as u64, sha256(robots_txt)));
        lower_front(f, whole, agents, options, degrade)
    })
}

/// The policy's non-rule records ([`MetaData`]) and the findings from the
/// front alone: what [`lower_front`] writes and reports when nothing was
/// dropped to fit the budget, but for the lowering's own findings
/// (`SplitPath`).
pub(crate) fn front_records(mut f: Front<'_>) -> (MetaData, Vec<Diagnostic>) {
    let meta = f.records();
    (meta, f.diagnostics)
}

/// The rest of compiling: lowers the rules and assembles the artifact of
/// a body of `whole`'s length and SHA-256.
fn lower_front(
    mut f: Front<'_>,
    whole: (u64, [u8; 32]),
    agents: &Agents,
    options: &CompileOptions,
    degrade: Degrade,
) -> Result<Compiled, CompileError> {
    let source_len = whole.0 as usize;
    let budget = match degrade {
        Degrade::Signals => options.budget,
        Degrade::Never(time) => Budget {
            time: options.budget.time.min(time),
            ..options.budget
        },
    };
    let lowered = lower_rules(
        &mut f.rule_set,
        &budget,
        source_len,
        degrade == Degrade::Signals,
        &mut f.diagnostics,
    )?;
    let meta = f.records();
    if lowered.split_reason.is_some() {
        // One plain sentence; the budget that forced it is in the header
        // (`split_reason`) for whoever wants the detail.
        f.diagnostics.push(Diagnostic::new(
            0,
            DiagCode::SplitPath,
            format!(
                "the rules take {} automata instead of one, so checks are slower: \
                 their wildcard patterns together would make one automaton too large",
                lowered.automata.len()
            ),
        ));
    }
    let split_reason = lowered.split_reason.map(|why| why.to_string());
    let data = PolicyData {
        header: header_data(&f, whole, agents, options, split_reason.unwrap_or_default()),
        automata: lowered.automata,
        outcomes: lowered.outcomes,
        rules: rule_table(&f.rule_set),
        meta,
    };
    Ok(Compiled {
        data,
        rule_set: f.rule_set,
        selection: f.selection,
        diagnostics: f.diagnostics,
    })
}

/// Lowers `rule_set` within `budget`. With `degrade_signals`, rules whose
/// AI-usage preference statements do not fit lose them (crawl as before,
/// every preference unknown; `rule_set` keeps the crawl rules), said in
/// `diagnostics`, rather than fail.
pub(crate) fn lower_rules(
    rule_set: &mut RuleSet,
    budget: &Budget,
    source_len: usize,
    degrade_signals: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Lowered, CompileError> {
    match lower(rule_set, budget, source_len) {
        Ok(l) => Ok(l),
        Err(e) if degrade_signals && rule_set.signals().is_some() => {
            let n = rule_set.signals().map_or(0, |s| {
                s.rules
                    .iter()
                    .filter(|r| r.family != crate::signals::Family::Crawl)
                    .count()
            });
            diagnostics.push(Diagnostic::new(
                0,
                DiagCode::SignalsDropped,
                format!(
                    "the {n} AI-usage preference statements do not fit the budget with the rules \
                     ({e}): the policy answers crawl only, every preference unknown"
                ),
            ));
            let crawl_rules = rule_set.rules.len() - n;
            rule_set.rules.truncate(crawl_rules);
            rule_set.resolution = Resolution::Ranked;
            lower(rule_set, budget, source_len).map_err(CompileError::Budget)
        }
        Err(e) => Err(CompileError::Budget(e)),
    }
}

/// The header of a policy compiled from `f` for `agents`, of a body of
/// `whole`'s length and SHA-256.
pub(crate) fn header_data(
    f: &Front<'_>,
    whole: (u64, [u8; 32]),
    agents: &Agents,
    options: &CompileOptions,
    split_reason: String,
) -> HeaderData {
    HeaderData {
        dialect: options.dialect as u8,
        url_mode: f.rule_set.url_mode as u8,
        robots_txt_allowed: options.robots_txt_allowed && f.acap_file.is_none(),
        data_txt: options.data_txt,
        selection: f.selection.via as u8,
        expiry_secs: f.sem.expiry_secs as u32,
        source_sha256: whole.1,
        source_len: whole.0,
        unread: unread_summary(&f.diagnostics).unwrap_or_default(),
        options_hash: fingerprint(agents, options, READING),
        max_bytes: options.parse.max_bytes as u64,
        compiler_version: env!("CARGO_PKG_VERSION").to_string(),
        agent: agents.to_string(),
        channels: f.channels().iter().map(|c| c.to_string()).collect(),
        split_reason,
    }
}

/// The artifact's rule table of `set`.
pub(crate) fn rule_table(set: &RuleSet) -> Vec<RuleData> {
    set.rules
        .iter()
        .map(|r| RuleData {
            pattern: r.pattern.clone(),
            line: r.line,
            group: r.group,
            rank: r.rank,
            flags: u8::from(r.allow) | (r.origin as u8) << 1 | (r.syntax as u8) << 3,
            class: r.class as u8,
        })
        .collect()
}

impl Front<'_> {
    /// The usage channels of the front's rules: the dialect's, or its
    /// signal channels when the file states AI-usage preferences.
    pub(crate) fn channels(&self) -> &'static [&'static str] {
        match self.rule_set.resolution {
            Resolution::Signals(_) => self.sem.signal_channels,
            _ => self.sem.channels,
        }
    }

    /// The artifact's metadata from the parse and the rules as lowered,
    /// after the parser's findings (and the records' own) join
    /// `self.diagnostics`.
    pub(crate) fn records(&mut self) -> MetaData {
        let (robots, selection) = (self.robots, &self.selection);
        // acap: a file of ACAP records only has no conventional group, and
        // that is no finding ("no rules apply" would be false).
        let acap_records = self.acap_file.is_some_and(|f| !f.records.is_empty());
        self.diagnostics.extend(
            robots
                .diagnostics
                .iter()
                .filter(|d| !(acap_records && d.code == DiagCode::NoGroup))
                .cloned(),
        );
        let mut meta = metadata(robots, selection, &mut self.diagnostics);
        meta.acap = self.rule_set.acap().map(acap_data);
        meta.signals = self.rule_set.signals().map(signals_data);
        if self.sem.patterns.reads_robot_version() {
            if let Some(&g) = selection.groups.first() {
                let version = dialect::robots2_version(robots, g);
                for (line, note) in version.notes {
                    self.diagnostics
                        .push(Diagnostic::new(line, DiagCode::Robots2Version, note));
                }
                meta.robot_version = version.written;
            }
        }
        meta
    }
}

/// SHA-256 of a source: what a policy records of the bytes it was compiled
/// from, and what a store rebuild matches a body against.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// The diagnostics that can change a verdict, in one line: the first, and
/// how many more (the header's `unread`, a store build's "not read whole").
pub fn unread_summary(diagnostics: &[Diagnostic]) -> Option<String> {
    let mut lossy = diagnostics.iter().filter(|d| d.code.can_change_verdict());
    let first = lossy.next()?;
    let more = lossy.count();
    Some(match more {
        0 => first.to_string(),
        n => format!("{first} (and {n} more findings)"),
    })
}

/// The signal side of the artifact.
pub(crate) fn signals_data(s: &crate::signals::SignalRules) -> SignalsData {
    use crate::signals::{Family, Pref};
    let bits = |p: Pref| match p {
        Pref::Unknown => 0u8,
        Pref::Allow => 1,
        Pref::Disallow => 2,
    };
    SignalsData {
        rules: s
            .rules
            .iter()
            .map(|r| {
                let (family, token) = match r.family {
                    Family::Crawl => (0, 0),
                    Family::ContentUsage => (1, 0),
                    Family::ContentSignal => (2, 0),
                    Family::Training(t) => (3, t),
                };
                SignalRuleData {
                    family,
                    prefs: bits(r.prefs[0]) | bits(r.prefs[1]) << 2 | bits(r.prefs[2]) << 4,
                    token,
                }
            })
            .collect(),
        training_agents: s.training_agents.clone(),
    }
}

/// The acap side of the artifact.
fn acap_data(a: &crate::acap::AcapRules) -> AcapData {
    AcapData {
        version: a.version.clone().unwrap_or_default(),
        ignore_conventional: a.ignore_conventional,
        purposes: a.purposes.clone(),
        rules: a
            .rules
            .iter()
            .map(|r| AcapRuleData {
                usage: r.usage as u8,
                flags: u8::from(r.named) | u8::from(r.conventional) << 1,
                purposes: r.purposes.join(" "),
                qualifiers: r.qualifiers.join(" "),
                via: r.via.clone(),
            })
            .collect(),
        requests: a
            .requests
            .iter()
            .map(|q| RecordData {
                kind: RecordKind::Unknown as u8,
                key: format!("ACAP-request-{}", q.action),
                value: q.path.clone(),
                line: q.line,
            })
            .collect(),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn metadata(
    robots: &RobotsTxt<'_>,
    selection: &Selection,
    diagnostics: &mut Vec<Diagnostic>,
) -> MetaData {
    let records = || {
        selection
            .groups
            .iter()
            .flat_map(|&g| robots.groups[g].records.iter())
    };
    let of_kind = |kind| records().filter(move |r: &&crate::parse::Record<'_>| r.kind == kind);
    let crawl_delay_ms = of_kind(KeyKind::CrawlDelay).find_map(|r| parse_delay_ms(r.value));
    // robots2's timing records are read in every dialect (they are data, not
    // rules); one that does not parse is reported and left out.
    let mut visit_times = Vec::new();
    for r in of_kind(KeyKind::VisitTime) {
        match parse_window(r.value) {
            Some(w) => visit_times.push(WindowData {
                start: w.start,
                end: w.end,
            }),
            None => diagnostics.push(Diagnostic::new(
                r.line,
                DiagCode::TimingValue,
                format!(
                    "Visit-time {:?} is not HHMM-HHMM (UTC): ignored",
                    text(r.value)
                ),
            )),
        }
    }
    let mut request_rates = Vec::new();
    for r in of_kind(KeyKind::RequestRate) {
        match parse_rate(r.value) {
            Some((documents, seconds, window)) => request_rates.push(RateData {
                documents,
                seconds,
                window: window.map(|w| WindowData {
                    start: w.start,
                    end: w.end,
                }),
                line: r.line,
            }),
            None => diagnostics.push(Diagnostic::new(
                r.line,
                DiagCode::TimingValue,
                format!(
                    "Request-rate {:?} is not n/t[smhd] [HHMM-HHMM]: ignored",
                    text(r.value)
                ),
            )),
        }
    }
    MetaData {
        crawl_delay_ms,
        agent_records: records().map(record_data).collect(),
        global_records: robots.global.iter().map(record_data).collect(),
        group_lines: selection
            .groups
            .iter()
            .filter_map(|&g| robots.groups[g].agents.first().map(|a| a.line))
            .collect(),
        robot_version: None,
        visit_times,
        request_rates,
        acap: None,
        signals: None,
    }
}

fn record_data(r: &crate::parse::Record<'_>) -> RecordData {
    let kind = match r.kind {
        KeyKind::Sitemap => RecordKind::Sitemap,
        KeyKind::CrawlDelay => RecordKind::CrawlDelay,
        KeyKind::RequestRate => RecordKind::RequestRate,
        KeyKind::VisitTime => RecordKind::VisitTime,
        KeyKind::RobotVersion => RecordKind::RobotVersion,
        KeyKind::Comment => RecordKind::Comment,
        KeyKind::ContentSignal => RecordKind::ContentSignal,
        KeyKind::Host => RecordKind::Host,
        KeyKind::CleanParam => RecordKind::CleanParam,
        KeyKind::License => RecordKind::License,
        KeyKind::UserAgent | KeyKind::Allow | KeyKind::Disallow | KeyKind::Unknown => {
            RecordKind::Unknown
        }
    };
    RecordData {
        kind: kind as u8,
        key: text(r.key),
        value: text(r.value),
        line: r.line,
    }
}

/// What the fingerprint calls the compiler's version: the crate's, and the
/// revision of its reading, bumped whenever some input compiles to another
/// answer than before (a fix, a changed default). A store rebuilt with
/// `--base` then compiles again instead of reusing a policy this compiler
/// would not write: an upgrade never changes an answer silently.
/// Revision 2: Content-Usage grouped as attach-05 reads it, training tokens
/// obeying `*`, `License` records, vocab's `ai-use` (issue 46).
pub(crate) const READING: &str = concat!(env!("CARGO_PKG_VERSION"), "+reading.2");

/// Fingerprint of everything besides the source bytes that a compiled
/// policy depends on: the agents (as the header writes them), every
/// compile option and the compiler version (`READING`). A store build reuses a policy of its `--base` when this and
/// the source's SHA-256 match, so it is computed from the fields one by
/// one in a fixed order and encoding (`fingerprint`), never from a
/// `Debug` form, and pinned by a test.
pub fn options_hash(agents: impl Into<Agents>, options: &CompileOptions) -> u64 {
    fingerprint(&agents.into(), options, READING)
}

/// FNV-1a 64 of `agents` (their header form: one agent is its token),
/// `options` and `version`, written in this order:
/// integers (`usize` too) as 8 bytes little-endian, flags as one byte 0 or
/// 1, enums as one byte (their artifact numbers, or the numbers written
/// here), a duration as its seconds (8 bytes) and nanoseconds (4 bytes),
/// strings and byte strings as their length then their bytes, lists as
/// their length then their items. A new option fails to compile here
/// until it is written too (the destructuring is exhaustive).
fn fingerprint(agents: &Agents, options: &CompileOptions, version: &str) -> u64 {
    fingerprint_text(agents.as_str(), options, version)
}

/// [`fingerprint`] of the agents' text as given (an each-agent policy's
/// marks its kind).
pub(crate) fn fingerprint_text(agents: &str, options: &CompileOptions, version: &str) -> u64 {
    let CompileOptions {
        dialect,
        url_mode,
        robots_txt_allowed,
        data_txt,
        parse,
        budget,
        training_agents,
        preference_grouping,
        purposes,
        references,
    } = options;
    let ParseOptions {
        max_bytes,
        records_close_groups,
        blank_lines_end_records,
        max_line_len,
        max_rules_per_group,
        line_grammar,
    } = parse;
    let Budget {
        max_states,
        max_threads,
        total_bytes,
        time,
        max_automata,
        registers,
        layout,
    } = budget;
    let mut out = Vec::with_capacity(256);
    let int = |out: &mut Vec<u8>, n: u64| out.extend_from_slice(&n.to_le_bytes());
    let bytes = |out: &mut Vec<u8>, b: &[u8]| {
        int(out, b.len() as u64);
        out.extend_from_slice(b);
    };
    bytes(&mut out, agents.as_bytes());
    out.push(*dialect as u8);
    out.push(*url_mode as u8);
    out.push(u8::from(*robots_txt_allowed));
    out.push(u8::from(*data_txt));
    int(&mut out, *max_bytes as u64);
    out.push(u8::from(*records_close_groups));
    out.push(u8::from(*blank_lines_end_records));
    int(&mut out, *max_line_len as u64);
    int(&mut out, *max_rules_per_group as u64);
    out.push(match line_grammar {
        LineGrammar::Google => 0,
        LineGrammar::Draft => 1,
        LineGrammar::Robots2 => 2,
    });
    int(&mut out, *max_states as u64);
    int(&mut out, *max_threads as u64);
    int(&mut out, *total_bytes as u64);
    int(&mut out, time.as_secs());
    out.extend_from_slice(&time.subsec_nanos().to_le_bytes());
    int(&mut out, *max_automata as u64);
    out.push(match registers {
        Registers::Auto => 0,
        Registers::Always => 1,
        Registers::Never => 2,
    });
    out.push(match layout {
        Layout::Auto => 0,
        Layout::Compact => 1,
        Layout::Dense => 2,
    });
    int(&mut out, training_agents.len() as u64);
    for t in training_agents {
        bytes(&mut out, t.as_bytes());
    }
    int(&mut out, purposes.len() as u64);
    for p in purposes {
        bytes(&mut out, p.as_bytes());
    }
    int(&mut out, references.len() as u64);
    for (path, body) in references {
        bytes(&mut out, path.as_bytes());
        bytes(&mut out, body);
    }
    // Written only when not the default, so that the fingerprints (and
    // the artifacts that carry them) of policies compiled before the option
    // existed stay what they were.
    if *preference_grouping != PreferenceGrouping::Spec {
        out.push(b'g');
        out.push(*preference_grouping as u8);
    }
    bytes(&mut out, version.as_bytes());
    fnv1a64(&out)
}

/// `HHMM-HHMM` (also `HH:MM-HH:MM`, and `HHMM HHMM`: two times apart, as
/// Protego reads a Visit-time), UTC, both ends inclusive.
pub fn parse_window(value: &[u8]) -> Option<TimeWindow> {
    let s = std::str::from_utf8(value).ok()?.trim();
    let (a, b) = s
        .split_once('-')
        .or_else(|| s.split_once(|c: char| c.is_ascii_whitespace()))?;
    Some(TimeWindow {
        start: parse_hhmm(a)?,
        end: parse_hhmm(b)?,
    })
}

fn parse_hhmm(s: &str) -> Option<u16> {
    let digits: String = s.trim().chars().filter(|&c| c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m): (u16, u16) = (digits[..2].parse().ok()?, digits[2..].parse().ok()?);
    (h < 24 && m < 60).then_some(h * 60 + m)
}

/// `n/t[smhd] [HHMM-HHMM]`: `n` documents per `t` units (seconds by default).
pub fn parse_rate(value: &[u8]) -> Option<(u32, u32, Option<TimeWindow>)> {
    let s = std::str::from_utf8(value).ok()?.trim();
    let mut parts = s.split_whitespace();
    let (n, t) = parts.next()?.split_once('/')?;
    let documents: u32 = n.trim().parse().ok().filter(|&d| d > 0)?;
    let t = t.trim();
    let (num, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let scale = match unit.to_ascii_lowercase().as_str() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    let seconds = num
        .parse::<u32>()
        .ok()?
        .checked_mul(scale)
        .filter(|&x| x > 0)?;
    let window = match parts.next() {
        Some(w) => Some(parse_window(w.as_bytes())?),
        None => None,
    };
    parts
        .next()
        .is_none()
        .then_some((documents, seconds, window))
}

/// Crawl-delay in seconds (fractions allowed) → milliseconds.
pub fn parse_delay_ms(value: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(value).ok()?.trim();
    let secs: f64 = s.parse().ok()?;
    (0.0..1e9)
        .contains(&secs)
        .then(|| (secs * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::{
        compile, fingerprint, parse_rate, parse_window, Agents, CompileError, CompileOptions,
    };
    use crate::lower::{Layout, Registers};
    use robocc_engine::{Dialect, TimeWindow, UrlMode};
    use std::time::Duration;

    /// The options fingerprint decides what a store rebuild reuses: it must
    /// not move unless the options (or the compiler version) do. If this
    /// fails, every store's `--base` reuse is lost: change the encoding only
    /// on purpose, and update the pinned values.
    #[test]
    fn options_fingerprint_is_pinned() {
        let defaults = CompileOptions::default();
        let mut other = CompileOptions {
            dialect: Dialect::Acap,
            url_mode: UrlMode::Rfc,
            robots_txt_allowed: false,
            data_txt: true,
            training_agents: vec!["Google-Extended".into(), "CCBot".into()],
            purposes: vec!["news".into()],
            references: vec![("/acap.txt".into(), b"ACAP-crawler: *\n".to_vec())],
            ..CompileOptions::default()
        };
        other.parse.max_bytes = 1 << 20;
        other.parse.records_close_groups = true;
        other.budget.time = Duration::from_millis(1500);
        other.budget.registers = Registers::Never;
        other.budget.layout = Layout::Dense;
        assert_eq!(
            (
                fingerprint(&"Googlebot".into(), &defaults, "0.1.0"),
                fingerprint(&"ExampleBot".into(), &other, "0.1.0")
            ),
            (PINNED_DEFAULT, PINNED_OTHER)
        );
        // Every part counts: agent, options, version.
        let h = |agent: &str, o: &CompileOptions, v| fingerprint(&agent.into(), o, v);
        assert_ne!(h("googlebot", &defaults, "0.1.0"), PINNED_DEFAULT);
        assert_ne!(h("Googlebot", &defaults, "0.1.1"), PINNED_DEFAULT);
        // Several agents: their header form, order kept, repeats dropped.
        let several = |a: &[&str]| fingerprint(&a.into(), &defaults, "0.1.0");
        assert_eq!(several(&["Googlebot", "GOOGLEBOT"]), PINNED_DEFAULT);
        assert_ne!(several(&["Googlebot", "Bingbot"]), PINNED_DEFAULT);
        assert_ne!(
            several(&["Googlebot", "Bingbot"]),
            several(&["Bingbot", "Googlebot"])
        );
        for change in [
            |o: &mut CompileOptions| o.budget.max_automata += 1,
            |o: &mut CompileOptions| o.parse.max_line_len -= 1,
            |o: &mut CompileOptions| o.purposes.push(String::new()),
            |o: &mut CompileOptions| o.budget.time += Duration::from_nanos(1),
        ] {
            let mut o = defaults.clone();
            change(&mut o);
            assert_ne!(h("Googlebot", &o, "0.1.0"), PINNED_DEFAULT);
        }
        // A list's items cannot shift between its neighbours.
        let split = |t: &[&str], p: &[&str]| CompileOptions {
            training_agents: t.iter().map(|s| s.to_string()).collect(),
            purposes: p.iter().map(|s| s.to_string()).collect(),
            ..CompileOptions::default()
        };
        assert_ne!(
            h("a", &split(&["x"], &[]), "0.1.0"),
            h("a", &split(&[], &["x"]), "0.1.0")
        );
    }

    /// `fingerprint` of the default options for `Googlebot`, and of the
    /// other set above for `ExampleBot`, at version 0.1.0.
    const PINNED_DEFAULT: u64 = 0x57d602ab08faa195;
    const PINNED_OTHER: u64 = 0x3eea1d2be5ad127f;

    /// A training agent that is not a product token is refused, as the
    /// agent is: it would match no group, and train-ai would stay unknown.
    #[test]
    fn training_agents_are_product_tokens() {
        let body = b"User-agent: Google-Extended\nDisallow: /\n";
        for bad in ["Google-Extended/1.0", "Google Extended", "", "*"] {
            let options = CompileOptions {
                training_agents: vec!["CCBot".into(), bad.into()],
                ..CompileOptions::default()
            };
            let e = compile(body, "ExampleBot", &options).unwrap_err();
            assert!(
                matches!(e, CompileError::BadTrainingAgent(_)),
                "{bad:?}: {e}"
            );
            assert!(e.to_string().starts_with("training agent: "), "{e}");
        }
        let options = CompileOptions {
            training_agents: vec!["Google-Extended".into()],
            ..CompileOptions::default()
        };
        assert!(compile(body, "ExampleBot", &options).is_ok());
    }

    /// Several agents: the header names them as given (repeats dropped),
    /// a repeat of one agent compiles to that agent's bytes, and the
    /// dialects that take one agent refuse several with a typed error.
    #[test]
    fn several_agents() {
        let body = b"User-agent: a\nDisallow: /a\n\nUser-agent: B\nDisallow: /b\n\n\
                     User-agent: *\nDisallow: /\n";
        let options = CompileOptions::default();
        let c = compile(body, ["a", "b", "A"], &options).unwrap();
        assert_eq!(c.data.header.agent, "a,b");
        assert_eq!(c.selection.groups, [0, 1]);
        let one = compile(body, "a", &options).unwrap().to_bytes();
        assert_eq!(compile(body, ["a", "A"], &options).unwrap().to_bytes(), one);
        // A caller's list, borrowed and kept.
        let tokens = vec!["a".to_string()];
        assert_eq!(compile(body, &tokens, &options).unwrap().to_bytes(), one);
        assert_eq!(Agents::from(&tokens[..]).as_str(), "a");
        for dialect in [Dialect::Draft1996, Dialect::Robots2, Dialect::Acap] {
            let options = CompileOptions {
                dialect,
                ..CompileOptions::default()
            };
            let e = compile(body, ["a", "b"], &options).unwrap_err();
            assert!(
                matches!(&e, CompileError::SeveralAgents { dialect: d, agents } if *d == dialect && agents == "a,b"),
                "{dialect:?}: {e:?}"
            );
            assert!(e.to_string().contains("several agents (a,b)"), "{e}");
            assert!(compile(body, ["a", "A"], &options).is_ok(), "{dialect:?}");
        }
        let none: [&str; 0] = [];
        let e = compile(body, none, &options).unwrap_err();
        assert!(matches!(e, CompileError::BadAgent(_)), "{e:?}");
        // Each token is checked; `,` is no separator inside one.
        for bad in [&["a", "b/2"][..], &["a,b"]] {
            let e = compile(body, bad, &options).unwrap_err();
            assert!(matches!(e, CompileError::BadAgent(_)), "{bad:?}: {e:?}");
        }
    }

    #[test]
    fn robots2_timing_values() {
        let w = |a, b| Some(TimeWindow { start: a, end: b });
        assert_eq!(parse_window(b"0600-0845"), w(360, 525));
        assert_eq!(parse_window(b"06:00-08:45"), w(360, 525));
        assert_eq!(parse_window(b"2400-0100"), None);
        assert_eq!(parse_window(b"0400 0845"), w(240, 525));
        assert_eq!(parse_window(b"04:00\t 08:45"), w(240, 525));
        assert_eq!(parse_window(b"0400 08 45"), None);
        assert_eq!(parse_window(b"0400"), None);
        assert_eq!(parse_rate(b"1/30m"), Some((1, 1800, None)));
        assert_eq!(parse_rate(b"10/60"), Some((10, 60, None)));
        assert_eq!(parse_rate(b"20/1h"), Some((20, 3600, None)));
        assert_eq!(parse_rate(b"1/10m 1300-1659"), Some((1, 600, w(780, 1019))));
        assert_eq!(parse_rate(b"0/1m"), None);
        assert_eq!(parse_rate(b"5/1y"), None);
    }
}
