//! Compiling for each of several agents at once (`--each-agent`): one
//! policy whose outcomes answer every agent separately, in one walk.
//!
//! Each agent is read as a one-agent compile reads it (the same front);
//! agents whose rule sets come out equal share a column
//! ([`crate::outcome::columns`]). The columns' rules are lowered together
//! in set mode into one automaton (one walk answers every column), or,
//! where that automaton is over the quick budget or blown up, each column
//! alone as its one-agent compile lowers it (register automata, split
//! rules), walked in turn. The artifact is the each-agent variant of the
//! policy format (docs/artifact.md).

use crate::agent::Agents;
use crate::clock::Instant;
use crate::compile::{
    fingerprint_text, front, header_data, lower_rules, rule_table, sha256, signals_data,
    unread_summary, CompileError, CompileOptions,
};
use crate::diag::Diagnostic;
use crate::dialect::Dialect;
use crate::lower::{
    lower, Budget, BudgetExceeded, Lowered, BLOWUP_FACTOR, BLOWUP_FLOOR, QUICK_STATES,
    QUICK_THREADS,
};
use crate::outcome::columns::{push_column, Column, ColumnRules};
use crate::outcome::Resolution;
use crate::ruleset::{RuleSet, SetRule};
use crate::signals::{Family, Pref, SignalRule, SignalRules};
use robocc_engine::artifact::{
    AgentColumnData, Automaton, ColumnPartData, EachAgentData, HeaderData, MetaData, PolicyData,
    SignalsData,
};
use robocc_engine::{frame_version, AlignedBytes, FileKind, EACH_AGENT_FORMAT_VERSION, FRAME_LEN};
use std::collections::HashMap;

/// A policy answering each of several agents, before serialisation.
#[derive(Clone, Debug)]
pub struct CompiledEach {
    /// What the artifact will hold.
    pub data: EachAgentData,
    /// The shared rules, with each column's ([`Resolution::Columns`]).
    pub rule_set: RuleSet,
    /// Parser and compiler findings of every agent's reading, each once.
    pub diagnostics: Vec<Diagnostic>,
}

impl CompiledEach {
    /// The artifact bytes (16-byte aligned, ready for
    /// `Policy::from_bytes`).
    pub fn to_bytes(&self) -> AlignedBytes {
        let archive = rkyv::to_bytes::<rkyv::rancor::Error>(&self.data)
            .expect("serialising plain owned data cannot fail");
        let mut out = AlignedBytes::with_capacity(archive.len() + FRAME_LEN);
        out.extend_from_slice(&frame_version(
            FileKind::Policy,
            EACH_AGENT_FORMAT_VERSION,
            &archive,
        ));
        out.extend_from_slice(&archive);
        out
    }
}

/// What one agent's reading gives.
struct Reading {
    rule_set: RuleSet,
    channels: &'static [&'static str],
    header: HeaderData,
    meta: MetaData,
    selection: u8,
    diagnostics: Vec<Diagnostic>,
}

/// Compiles `robots_txt` answering each of `agents` separately (repeats
/// dropped, case-insensitively): agent `i` of the policy is answered as
/// [`compile`](crate::compile) for it alone answers, with the same
/// deciding line.
///
/// # Errors
///
/// No agent, an invalid product token, the acap dialect (which answers one
/// crawler), or a column's rules over the budget as they would be for one
/// of its agents alone (the budget is shared by the columns).
pub fn compile_each<I>(
    robots_txt: &[u8],
    agents: I,
    options: &CompileOptions,
) -> Result<CompiledEach, CompileError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    compile_each_source(robots_txt, None, &Agents::new(agents), options)
}

/// [`compile_each`] of a body of which `prefix` holds only the first bytes,
/// the whole being `len` bytes of SHA-256 `sha256`, as
/// [`compile_prefix`](crate::compile_prefix) compiles one (a store build
/// keeps only that much of a large body).
///
/// # Errors
///
/// As [`compile_each`].
pub fn compile_each_prefix<I>(
    prefix: &[u8],
    len: u64,
    sha256: [u8; 32],
    agents: I,
    options: &CompileOptions,
) -> Result<CompiledEach, CompileError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    compile_each_source(prefix, Some((len, sha256)), &Agents::new(agents), options)
}

/// The fingerprint an each-agent policy for `agents` records (and a store
/// of them): [`options_hash`](crate::options_hash)'s, of the agents marked
/// as answered each, so that no one-agent policy is reused for it.
pub fn each_options_hash(agents: &Agents, options: &CompileOptions) -> u64 {
    fingerprint_text(
        &format!("each-agent:{agents}"),
        options,
        crate::compile::READING,
    )
}

fn compile_each_source(
    robots_txt: &[u8],
    whole: Option<(u64, [u8; 32])>,
    agents: &Agents,
    options: &CompileOptions,
) -> Result<CompiledEach, CompileError> {
    if options.dialect == Dialect::Acap {
        return Err(CompileError::EachAgent(
            "--each-agent does not apply to acap: an ACAP record names one crawler and its \
             usages are answered for it; compile once per agent"
                .into(),
        ));
    }
    if agents.is_empty() {
        return Err(CompileError::EachAgent(
            "--each-agent needs at least one agent".into(),
        ));
    }
    let given = whole;
    let whole = whole.unwrap_or_else(|| (robots_txt.len() as u64, sha256(robots_txt)));
    let mut readings = Vec::with_capacity(agents.len());
    for agent in agents.iter() {
        let one = Agents::from(agent);
        readings.push(front(robots_txt, given, &one, options, |mut f| {
            let meta = f.records();
            Ok(Reading {
                header: header_data(&f, whole, &one, options, String::new()),
                channels: f.channels(),
                selection: f.selection.via as u8,
                meta,
                rule_set: f.rule_set,
                diagnostics: f.diagnostics,
            })
        })?);
    }
    // Columns: agents whose rule sets are equal share one.
    let mut distinct: Vec<usize> = Vec::new();
    let mut column_of = Vec::with_capacity(readings.len());
    for (i, r) in readings.iter().enumerate() {
        let c = match distinct
            .iter()
            .position(|&d| readings[d].rule_set == r.rule_set)
        {
            Some(c) => c,
            None => {
                distinct.push(i);
                distinct.len() - 1
            }
        };
        column_of.push(c as u32);
    }
    let channels = distinct
        .iter()
        .map(|&d| readings[d].channels.len())
        .max()
        .unwrap_or(1);
    let mut lowering_diagnostics = Vec::new();
    let lowered = lower_columns(
        &readings,
        &distinct,
        channels,
        &options.budget,
        whole.0 as usize,
        &mut lowering_diagnostics,
    )?;
    let rule_set = lowered.rule_set;
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    for d in readings
        .iter()
        .flat_map(|r| &r.diagnostics)
        .chain(&lowering_diagnostics)
    {
        if !diagnostics.contains(d) {
            diagnostics.push(d.clone());
        }
    }
    let first = &readings[0];
    let mut header = first.header.clone();
    header.split_reason = lowered.split_reason;
    header.agent = agents.to_string();
    header.options_hash = each_options_hash(agents, options);
    header.unread = unread_summary(&diagnostics).unwrap_or_default();
    if channels > first.channels.len() {
        if let Some(r) = readings.iter().find(|r| r.channels.len() == channels) {
            header.channels = r.channels.iter().map(|c| c.to_string()).collect();
        }
    }
    let agents_data = agents
        .iter()
        .zip(&readings)
        .zip(&column_of)
        .map(|((a, r), &column)| AgentColumnData {
            agent: a.to_string(),
            column,
            selection: r.selection,
            crawl_delay_ms: r.meta.crawl_delay_ms,
        })
        .collect();
    let (automata, outcomes, parts) = match lowered.form {
        Form::Joint(l) => (l.automata, l.outcomes, Vec::new()),
        Form::Parts(parts) => (Vec::new(), Vec::new(), parts),
    };
    let data = EachAgentData {
        policy: PolicyData {
            header,
            automata,
            outcomes,
            rules: rule_table(&rule_set),
            meta: MetaData {
                signals: shared_signals(&rule_set, channels),
                ..readings.swap_remove(0).meta
            },
        },
        columns: distinct.len() as u32,
        agents: agents_data,
        parts,
    };
    Ok(CompiledEach {
        data,
        rule_set,
        diagnostics,
    })
}

/// How the columns' rules became automata.
enum Form {
    /// One automaton of every column's rules, in set mode: one walk
    /// answers every column.
    Joint(Lowered),
    /// Each column's own automata, as a one-agent policy of its rules has
    /// them: a walk per column.
    Parts(Vec<ColumnPartData>),
}

/// The columns lowered: the shared rule table (resolved per column) and
/// its automata.
struct ColumnsLowered {
    rule_set: RuleSet,
    form: Form,
    /// Why the columns were not lowered into one automaton, or why a
    /// column's rules were split (empty: neither).
    split_reason: String,
}

/// Transition-table bytes of `automata` (what [`Budget::total_bytes`]
/// counts).
fn table_bytes(automata: &[Automaton]) -> usize {
    automata
        .iter()
        .map(|a| a.prog.len() + a.classes.len())
        .sum()
}

/// Lowers the columns (`distinct`: the reading of each column's first
/// agent) jointly, or each alone where that is the only way within the
/// budget or at most half the joint automaton's bytes (the joint one
/// blows up as a one-agent plain automaton does, [`BLOWUP_FACTOR`]: set
/// mode has no register automaton and no split). A single column is
/// lowered alone: exactly its one-agent policy's automata. Every lowering
/// shares the budget's time, automata and table bytes.
fn lower_columns(
    readings: &[Reading],
    distinct: &[usize],
    channels: usize,
    budget: &Budget,
    source_len: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<ColumnsLowered, CompileError> {
    let start = Instant::now();
    let columns = || distinct.iter().map(|&d| &readings[d]);
    let mut why = String::new();
    if distinct.len() > 1 {
        let joint = shared_rules(columns());
        // Past the quick budget of a one-agent lowering, the columns alone
        // (each with the register and split paths) are the better bet.
        let quick = Budget {
            max_states: budget.max_states.min(QUICK_STATES),
            max_threads: budget.max_threads.min(QUICK_THREADS),
            ..*budget
        };
        match lower(&joint, &quick, source_len) {
            Ok(l) => {
                let bytes = table_bytes(&l.automata);
                let patterns: usize = joint.rules.iter().map(|r| r.pattern.len()).sum();
                let alone = if bytes > BLOWUP_FLOOR && bytes > BLOWUP_FACTOR * patterns {
                    let mut said = Vec::new();
                    lower_parts(
                        columns(),
                        channels,
                        &spent(budget, start),
                        source_len,
                        &mut said,
                    )
                    .ok()
                    .filter(|p| 2 * p.bytes <= bytes)
                    .map(|p| (p, said))
                } else {
                    None
                };
                let Some((parts, said)) = alone else {
                    return Ok(ColumnsLowered {
                        rule_set: joint,
                        form: Form::Joint(l),
                        split_reason: String::new(),
                    });
                };
                diagnostics.extend(said);
                why = format!(
                    "one automaton of the {} columns' rules takes {bytes} table bytes, each \
                     column's own {} in all",
                    distinct.len(),
                    parts.bytes
                );
                return Ok(parts.done(why));
            }
            Err(e) if matches!(e.exceeded, BudgetExceeded::Time(_)) => {
                return Err(CompileError::Budget(e))
            }
            Err(e) => {
                why = format!(
                    "one automaton of the {} columns' rules: {e}",
                    distinct.len()
                );
            }
        }
    }
    let parts = lower_parts(
        columns(),
        channels,
        &spent(budget, start),
        source_len,
        diagnostics,
    )?;
    Ok(parts.done(why))
}

/// What is left of `budget`'s time since `start`.
fn spent(budget: &Budget, start: Instant) -> Budget {
    Budget {
        time: budget.time.saturating_sub(start.elapsed()),
        ..*budget
    }
}

/// Each column lowered alone.
struct Parts {
    rule_set: RuleSet,
    parts: Vec<ColumnPartData>,
    /// Their table bytes.
    bytes: usize,
    /// Why columns' rules were split, per column split.
    split: Vec<String>,
}

impl Parts {
    fn done(self, why: String) -> ColumnsLowered {
        let split_reason = std::iter::once(why)
            .chain(self.split)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        ColumnsLowered {
            rule_set: self.rule_set,
            form: Form::Parts(self.parts),
            split_reason,
        }
    }
}

/// Each column's rules lowered as a one-agent compile lowers them
/// (preference statements that do not fit dropped as it drops them, said
/// in `diagnostics`), within what is left of `budget` after the columns
/// before. The shared table is the columns' rules one after the other, so
/// that rule ids keep each column's order (the engine breaks ties between
/// a column's automata by rule id).
fn lower_parts<'r>(
    columns: impl Iterator<Item = &'r Reading>,
    channels: usize,
    budget: &Budget,
    source_len: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Parts, CompileError> {
    let start = Instant::now();
    let (mut rules, mut own, mut parts, mut split) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut bytes, mut automata) = (0usize, 0usize);
    let mut base: Option<RuleSet> = None;
    for (c, r) in columns.enumerate() {
        let mut set = r.rule_set.clone();
        let left = Budget {
            time: budget.time.saturating_sub(start.elapsed()),
            max_automata: budget.max_automata.saturating_sub(automata),
            total_bytes: budget.total_bytes.saturating_sub(bytes),
            ..*budget
        };
        let l = lower_rules(&mut set, &left, source_len, true, diagnostics)?;
        // Preferences dropped to fit: crawl only, as alone.
        let words = if set.signals().is_some() {
            r.channels.len()
        } else {
            1
        };
        let offset = rules.len();
        let mut outcomes = Vec::with_capacity(l.outcomes.len() / words * channels);
        for o in l.outcomes.chunks(words) {
            push_column(o, |rule| offset + rule, channels, &mut outcomes);
        }
        bytes += table_bytes(&l.automata);
        automata += l.automata.len();
        if let Some(why) = l.split_reason {
            split.push(format!("column {c} split: {why}"));
        }
        own.push(Column {
            rules: (offset..offset + set.rules.len()).collect(),
            resolution: set.resolution.clone(),
            channels: words,
        });
        rules.extend(set.rules.iter().cloned());
        base.get_or_insert(set);
        parts.push(ColumnPartData {
            automata: l.automata,
            outcomes,
        });
    }
    let rule_set = RuleSet {
        rules,
        resolution: Resolution::Columns(ColumnRules {
            columns: own,
            channels,
        }),
        ..base.unwrap_or_else(empty_rules)
    };
    Ok(Parts {
        rule_set,
        parts,
        bytes,
        split,
    })
}

/// A rule set of no rules (`compile_each` reads at least one agent: never
/// used).
fn empty_rules() -> RuleSet {
    RuleSet {
        rules: Vec::new(),
        url_mode: robocc_engine::UrlMode::Google,
        dialect: Dialect::Rfc9309,
        robots2_v2: false,
        resolution: Resolution::Ranked,
    }
}

/// The signal side of the shared rule table, when the policy has the
/// preference channels (`channels` words per column): each rule's entry as
/// the column holding it reads it (a column without preferences holds
/// crawl rules only).
fn shared_signals(set: &RuleSet, channels: usize) -> Option<SignalsData> {
    let Resolution::Columns(cols) = &set.resolution else {
        return None;
    };
    if channels == 1 {
        return None;
    }
    let crawl = SignalRule {
        family: Family::Crawl,
        prefs: [Pref::Unknown; 3],
    };
    let mut shared = SignalRules {
        rules: vec![crawl; set.rules.len()],
        training_agents: Vec::new(),
    };
    for c in &cols.columns {
        if let Resolution::Signals(s) = &c.resolution {
            for (&g, r) in c.rules.iter().zip(&s.rules) {
                shared.rules[g] = *r;
            }
            shared.training_agents.clone_from(&s.training_agents);
        }
    }
    Some(signals_data(&shared))
}

/// The union of the columns' rules (a rule equal in several columns is one
/// entry), resolved per column.
fn shared_rules<'r>(columns: impl Iterator<Item = &'r Reading>) -> RuleSet {
    let mut shared: Vec<SetRule> = Vec::new();
    let mut index: HashMap<(u32, u32, Vec<u8>), Vec<usize>> = HashMap::new();
    let mut out = Vec::new();
    let mut base: Option<RuleSet> = None;
    let mut channels = 1;
    // Shared ids a column already holds: two equal rules of one column (the
    // file's own path for crawl and again for a training token) stay two,
    // since each column maps a shared id back to one of its own.
    let mut taken: Vec<bool> = Vec::new();
    for r in columns {
        let mut ids = Vec::with_capacity(r.rule_set.rules.len());
        for rule in &r.rule_set.rules {
            let key = (rule.line, rule.group, rule.pattern.clone());
            let same = index.entry(key).or_default();
            let id = match same.iter().find(|&&s| !taken[s] && shared[s] == *rule) {
                Some(&s) => s,
                None => {
                    shared.push(rule.clone());
                    taken.push(false);
                    same.push(shared.len() - 1);
                    shared.len() - 1
                }
            };
            taken[id] = true;
            ids.push(id);
        }
        for &id in &ids {
            taken[id] = false;
        }
        channels = channels.max(r.channels.len());
        out.push(Column {
            rules: ids,
            resolution: r.rule_set.resolution.clone(),
            channels: r.channels.len(),
        });
        base.get_or_insert_with(|| r.rule_set.clone());
    }
    let base = base.unwrap_or_else(empty_rules);
    RuleSet {
        rules: shared,
        resolution: Resolution::Columns(ColumnRules {
            columns: out,
            channels,
        }),
        ..base
    }
}
