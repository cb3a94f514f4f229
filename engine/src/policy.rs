//! [`Policy`]: a view over a validated artifact, and the check path;
//! [`PolicyFile`]: the owner of the bytes a policy is read from.

use crate::answer::{self, verdict, Verdict};
use crate::artifact::{
    ArchivedAutomaton, ArchivedEachAgentData, ArchivedMetaData, ArchivedPolicyData,
    ArchivedRecordData, OUTCOME_RULE_MASK,
};
use crate::format::FileKind;
use crate::ids::{ChannelId, RuleId};
use crate::load::{self, LoadError, READ_SHARDS_BELOW};
use crate::normalize::{feed_decoded, feed_rfc};
use crate::program::{walk_bytes, Narrow, Walk, Wide, Width};
use crate::types::{
    Dialect, PatternSyntax, RankClass, Rate, RecordKind, RequestRate, RuleOrigin, Selection,
    TimeWindow, UrlMode, Usage, UsageSet, UsageStates,
};
use crate::url::{path_parts, PathParts};
use rkyv::Archived;
use std::path::Path;

/// The contract of the `check_batch` methods: one verdict slot per URL.
#[track_caller]
#[inline]
pub(crate) fn same_length(urls: usize, out: usize) {
    assert!(
        urls == out,
        "check_batch: {urls} URLs but {out} verdict slots (the slices must have the same length)"
    );
}

/// A check's verdict with the number of path bytes the automata read before
/// the verdict could no longer change (for early-exit statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traced {
    /// The verdict.
    pub verdict: Verdict,
    /// Path bytes fed to the automata (summed over automata when the rules
    /// were split over several).
    pub bytes_read: usize,
}

/// A compiled robots.txt policy for one agent: a view over validated
/// artifact bytes. It is `Copy`; it borrows the bytes and never owns them
/// (a [`PolicyFile`] owns a mapped or copied artifact and hands out views).
///
/// Checks never allocate. Every table was validated when the view was made,
/// so no artifact, however corrupted, can make a check read out of bounds or
/// panic.
#[derive(Clone, Copy)]
pub struct Policy<'a> {
    pub(crate) data: &'a ArchivedPolicyData,
    /// The agent table of an each-agent policy.
    each: Option<&'a ArchivedEachAgentData>,
    /// The automata and outcome table the one-answer methods read: the
    /// policy's, or a per-column each-agent policy's first agent's part.
    pub(crate) automata: &'a [ArchivedAutomaton],
    pub(crate) outcomes: &'a [Archived<u32>],
    /// Outcome words per outcome id: the channels, times the columns of an
    /// each-agent policy.
    pub(crate) stride: usize,
    /// Where the answered column starts in an outcome's words: 0, or for
    /// an each-agent policy the first agent's column × channels (the
    /// one-answer methods answer the first agent).
    pub(crate) base: usize,
}

impl std::fmt::Debug for Policy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let h = self.header();
        f.debug_struct("Policy")
            .field("agent", &h.agent)
            .field("dialect", &h.dialect)
            .field("automata", &h.automata)
            .field("rules", &self.rule_count())
            .finish()
    }
}

impl<'a> Policy<'a> {
    /// Reads a policy from artifact bytes without copying them.
    ///
    /// # Errors
    ///
    /// Refuses bytes that are not a robocc policy, of another format version,
    /// truncated, not 16-byte aligned, or whose tables are inconsistent. It
    /// never panics.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Policy<'a>, LoadError> {
        Ok(Policy::from_validated(load::validate_policy(bytes)?))
    }

    /// Wraps an archive that passed [`load::validate_policy`].
    pub(crate) fn from_validated(v: load::Validated<'a>) -> Policy<'a> {
        let channels = v.data.header.channels.len();
        let (automata, outcomes) = (v.data.automata.as_slice(), v.data.outcomes.as_slice());
        // Validation: at least one agent, columns in range, one part per
        // column in the per-column form.
        let first = v
            .each
            .and_then(|e| e.agents.first())
            .map_or(0, |a| a.column.to_native() as usize);
        let (stride, base, automata, outcomes) = match v.each {
            Some(e) if e.parts.is_empty() => (
                e.columns.to_native() as usize * channels,
                first * channels,
                automata,
                outcomes,
            ),
            Some(e) => match e.parts.get(first) {
                Some(p) => (channels, 0, p.automata.as_slice(), p.outcomes.as_slice()),
                None => (channels, 0, automata, outcomes),
            },
            None => (channels, 0, automata, outcomes),
        };
        Policy {
            data: v.data,
            each: v.each,
            automata,
            outcomes,
            stride,
            base,
        }
    }

    /// Whether `url` may be fetched (an absolute URL or a path).
    #[inline]
    pub fn is_allowed(&self, url: &str) -> bool {
        self.check(url.as_bytes()).allowed
    }

    /// The verdict for `url` on the first usage channel (crawl), naming the
    /// deciding rule.
    #[inline]
    pub fn check(&self, url: &[u8]) -> Verdict {
        verdict(self.word(url, 0).0)
    }

    /// [`Policy::check`] of a path already found.
    #[inline(always)]
    pub(crate) fn check_parts(&self, parts: PathParts<'_>) -> Verdict {
        verdict(self.word_of(parts, 0).0)
    }

    /// The verdicts of many URLs: `out[i]` becomes `check(urls[i])`.
    ///
    /// Faster than a loop over [`Policy::check`] when crawlers check
    /// frontier batches: the automaton's shape is dispatched once per
    /// batch, and each path is found just before its walk, so that the CPU
    /// overlaps finding one URL's path with the walk before it (a policy of
    /// several automata is walked URL by URL, as `check` does). Never
    /// allocates. (Interleaving several walks to overlap their table loads,
    /// and finding a chunk's paths before its walks, were measured and
    /// dropped: docs/PERFORMANCE-notes.md.)
    ///
    /// # Panics
    ///
    /// When `urls` and `out` differ in length (a caller's mistake, as for
    /// [`slice::copy_from_slice`]; nothing is answered then).
    #[track_caller]
    pub fn check_batch(&self, urls: &[&[u8]], out: &mut [Verdict]) {
        same_length(urls.len(), out.len());
        let d = self.data;
        if let [a] = self.automata {
            let (stride, base) = (self.stride, self.base);
            let outcomes = self.outcomes;
            // As in `word`: validated ids are in bounds (and checked anyway).
            let word = |o: u32| outcomes[o as usize * stride + base].to_native();
            run_each(a, urls, d.header.url_mode, |j, o| out[j] = verdict(word(o)));
            return;
        }
        // Several automata: URL by URL, as `check` (running each automaton
        // over a chunk of URLs read fewer instructions but ran 0.89× as fast
        // on zillow's six: bench --bin batch).
        for (v, u) in out.iter_mut().zip(urls) {
            *v = verdict(self.word_of(path_parts(u), 0).0);
        }
    }

    /// The verdict for `url` on usage channel `channel` (see
    /// [`Policy::channels`]); `None` when the policy has no such channel.
    pub fn check_channel(&self, url: &[u8], channel: ChannelId) -> Option<Verdict> {
        let c = channel.index();
        (c < self.data.header.channels.len()).then(|| verdict(self.word(url, c).0))
    }

    /// The verdict for `url` on `usage`: an ACAP usage type or an AI-usage
    /// preference channel.
    ///
    /// * An `acap` policy answers its usage types from its channels
    ///   (`Verdict { allowed: false, rule: None }` is ACAP's undecidable
    ///   conflict: no single narrowest rule, so prohibited).
    /// * Every policy answers [`Usage::Crawl`] as [`Policy::check`] does.
    /// * A usage nothing in the file speaks of — an ACAP usage of another
    ///   dialect, a preference channel that is unknown for this URL or that
    ///   the policy does not have — is allowed by default (nothing
    ///   prohibits it). [`Policy::preference`] tells unknown apart.
    #[inline]
    pub fn check_usage(&self, url: &[u8], usage: Usage) -> Verdict {
        let (acap, channels) = self.channel_shape();
        if usage == Usage::Crawl {
            return self.check(url);
        }
        answer::usage_verdict(acap, channels, usage, |c| self.word(url, c.index()).0)
    }

    /// The tri-state answer for `url` on `usage`: `Some(verdict)` when
    /// something in the file decided it, `None` when nothing stated a
    /// preference (an AI-usage preference channel with no statement for
    /// this URL, a URL the agent may not crawl — which has no preferences —
    /// or a usage this policy has no channel for). Crawl, and the usage
    /// types of an `acap` policy, are always decided.
    #[inline]
    pub fn preference(&self, url: &[u8], usage: Usage) -> Option<Verdict> {
        let (acap, channels) = self.channel_shape();
        answer::preference(acap, channels, usage, |c| self.word(url, c.index()).0)
    }

    /// Is this an acap policy, and how many channels has it?
    #[inline]
    fn channel_shape(&self) -> (bool, usize) {
        let h = &self.data.header;
        (h.dialect == Dialect::Acap as u8, h.channels.len())
    }

    /// The usages [`Policy::check_usage`] allows for `url`, all from one
    /// walk (no allocation).
    pub fn usages(&self, url: &[u8]) -> UsageSet {
        let s = self.usage_states(url);
        UsageSet::from_bits(UsageSet::ALL.bits() & !s.disallowed.bits())
    }

    /// Every usage's tri-state answer for `url`, from one walk (no
    /// allocation): the usages allowed, the usages disallowed, and —
    /// neither — those nothing stated ([`Policy::preference`]).
    pub fn usage_states(&self, url: &[u8]) -> UsageStates {
        let d = self.data;
        let channels = d.header.channels.len();
        let (o, single) = match self.automata {
            [a] => (run(a, path_parts(url), d.header.url_mode).0, true),
            _ => (0, false),
        };
        if !single || channels == 1 {
            // Crawl only (several automata: crawl only, by validation).
            return answer::crawl_only(self.check(url).allowed);
        }
        let base = o as usize * self.stride + self.base;
        // Validation: `o` is a valid outcome id.
        let words = self.outcomes.get(base..base + channels).unwrap_or(&[]);
        let acap = d.header.dialect == Dialect::Acap as u8;
        answer::usage_states(acap, words.iter().map(|w| w.to_native()))
    }

    /// AI-usage preferences: what kind of statement rule `id` is (`None`
    /// for a policy without preference channels, or an unknown id).
    pub fn signal_source(&self, id: RuleId) -> Option<SignalSource<'a>> {
        let sg = self.data.meta.signals.as_ref()?;
        let r = sg.rules.get(id.index())?;
        Some(match r.family {
            1 => SignalSource::ContentUsage,
            2 => SignalSource::ContentSignal,
            // Validation checked the token index.
            3 => SignalSource::TrainingToken(
                sg.training_agents
                    .get(usize::from(r.token.to_native()))
                    .map_or("", |t| t.as_str()),
            ),
            _ => SignalSource::Rule,
        })
    }

    /// AI-usage preferences: what rule `id`, taken alone, states on the
    /// preference channel `usage` — `Some(true)` allow, `Some(false)`
    /// disallow, `None` nothing: the statement does not mention the
    /// channel or its value is unknown; an Allow/Disallow of the agent; a
    /// training token's Allow (a token only ever disallows `train-ai`,
    /// docs/dialects.md "Training tokens"); a usage that is no preference
    /// channel; a policy without preference channels; an unknown id.
    ///
    /// This is the statement, not the answer: whether it applies to a URL
    /// (its pattern matches, it is the longest Content-Usage path, its
    /// token's deciding rule) and how it combines with the others is
    /// [`Policy::preference`]'s business. For tools that explain an answer
    /// (`robocc explain`); no allocation.
    pub fn signal_says(&self, id: RuleId, usage: Usage) -> Option<bool> {
        if !usage.is_signal() {
            return None;
        }
        let r = self.data.meta.signals.as_ref()?.rules.get(id.index())?;
        let shift = 2 * (usage as u8 - Usage::Search as u8);
        match (r.prefs >> shift) & 3 {
            // Family 3: a training token's rule.
            1 if r.family == 3 => None,
            1 => Some(true),
            2 => Some(false),
            _ => None,
        }
    }

    /// acap: what rule `id` is about besides its pattern (`None` for other
    /// dialects or an unknown id).
    pub fn acap_rule(&self, id: RuleId) -> Option<AcapRuleRef<'a>> {
        let r = self.data.meta.acap.as_ref()?.rules.get(id.index())?;
        Some(AcapRuleRef {
            // Validation checked the usage code.
            usage: Usage::from_u8(r.usage).unwrap_or(Usage::Other),
            named: r.flags & 1 != 0,
            conventional: r.flags & 2 != 0,
            purposes: r.purposes.as_str(),
            qualifiers: r.qualifiers.as_str(),
            via: r.via.as_str(),
        })
    }

    /// The agents [`Policy::check_each`] answers, in order: those of an
    /// each-agent policy (`robocc compile --each-agent`), each answered
    /// separately; otherwise one, [`Header::agent`] (several agents read
    /// together get one answer).
    pub fn agents(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let p = *self;
        (0..self.agent_count()).map(move |i| match p.each {
            // `i < agents.len()`: the range is the count.
            Some(e) => e.agents[i].agent.as_str(),
            None => p.data.header.agent.as_str(),
        })
    }

    /// Was it compiled to answer each of several agents separately
    /// (`robocc compile --each-agent`, the artifact's each-agent variant)?
    pub fn is_each_agent(&self) -> bool {
        self.each.is_some()
    }

    /// How many agents [`Policy::check_each`] answers (1 unless each-agent).
    pub fn agent_count(&self) -> usize {
        self.each.map_or(1, |e| e.agents.len())
    }

    /// An each-agent policy's agent `i` ([`Policy::agents`] order): its
    /// token, how its groups were chosen, its Crawl-delay (ms). `None`
    /// for other policies or `i` out of range.
    pub fn each_agent(&self, i: usize) -> Option<(&'a str, Selection, Option<u64>)> {
        let a = self.each?.agents.get(i)?;
        Some((
            a.agent.as_str(),
            // Validation checked the code.
            Selection::from_u8(a.selection).unwrap_or(Selection::None),
            a.crawl_delay_ms.as_ref().map(|d| d.to_native()),
        ))
    }

    /// Agent `i`'s column (agents whose rule sets are equal share one) and
    /// the policy that answers that column alone: its `check`,
    /// `check_usage` and [`Policy::path_steps`] answer what
    /// [`Policy::check_each`] answers for agent `i`. A policy that is not
    /// each-agent is its own column 0. `None` for `i` out of range.
    pub fn agent_policy(&self, i: usize) -> Option<(usize, Policy<'a>)> {
        let Some(each) = self.each else {
            return (i == 0).then_some((0, *self));
        };
        let column = each.agents.get(i)?.column.to_native() as usize;
        let channels = self.data.header.channels.len();
        let policy = match each.parts.get(column) {
            // Per-column form: the column's own automata and words.
            Some(part) => Policy {
                automata: part.automata.as_slice(),
                outcomes: part.outcomes.as_slice(),
                stride: channels,
                base: 0,
                ..*self
            },
            // Joint form: the shared automaton, the column's words.
            None if each.parts.is_empty() => Policy {
                base: column * channels,
                ..*self
            },
            // Validation: one part per column in the per-column form.
            None => return None,
        };
        Some((column, policy))
    }

    /// The crawl verdict for `url` of each agent ([`Policy::agents`]
    /// order) from one walk: `out[i]` answers agent `i`. A policy that is
    /// not each-agent answers its one agent as [`Policy::check`]. Never
    /// allocates.
    ///
    /// # Panics
    ///
    /// When `out.len()` is not [`Policy::agent_count`] (a caller's
    /// mistake, as for [`Policy::check_batch`]).
    #[track_caller]
    pub fn check_each(&self, url: &[u8], out: &mut [Verdict]) {
        same_agents(self.agent_count(), out.len());
        self.each_word(url, ChannelId::CRAWL, |i, w| out[i] = verdict(w));
    }

    /// [`Policy::check_usage`] for each agent, from one walk (no
    /// allocation).
    ///
    /// # Panics
    ///
    /// As [`Policy::check_each`].
    #[track_caller]
    pub fn check_each_usage(&self, url: &[u8], usage: Usage, out: &mut [Verdict]) {
        same_agents(self.agent_count(), out.len());
        let (acap, channels) = self.channel_shape();
        match answer::channel_of(acap, channels, usage) {
            Some(c) => self.each_word(url, c, |i, w| out[i] = verdict(w)),
            None => out.fill(answer::usage_verdict(acap, channels, usage, |_| 0)),
        }
    }

    /// [`Policy::preference`] for each agent, from one walk (no
    /// allocation).
    ///
    /// # Panics
    ///
    /// As [`Policy::check_each`].
    #[track_caller]
    pub fn preference_each(&self, url: &[u8], usage: Usage, out: &mut [Option<Verdict>]) {
        same_agents(self.agent_count(), out.len());
        let (acap, channels) = self.channel_shape();
        match answer::channel_of(acap, channels, usage) {
            Some(c) => self.each_word(url, c, |i, w| {
                out[i] = answer::preference(acap, channels, usage, |_| w);
            }),
            None => out.fill(None),
        }
    }

    /// Calls `f(i, word)` with agent `i`'s outcome word on `channel` for
    /// `url` (which the caller checked), walking once.
    #[inline]
    fn each_word(&self, url: &[u8], channel: ChannelId, mut f: impl FnMut(usize, u32)) {
        let Some(each) = self.each else {
            return f(0, self.word(url, channel.index()).0);
        };
        let d = self.data;
        let channels = d.header.channels.len();
        if !each.parts.is_empty() {
            // Per column: each column's automata walked in turn, its word
            // given to the agents it answers.
            let parts = path_parts(url);
            for (c, part) in each.parts.iter().enumerate() {
                let column = Policy {
                    automata: part.automata.as_slice(),
                    outcomes: part.outcomes.as_slice(),
                    stride: channels,
                    base: 0,
                    ..*self
                };
                let w = column.word_of(parts, channel.index()).0;
                for (i, ag) in each.agents.iter().enumerate() {
                    if ag.column.to_native() as usize == c {
                        f(i, w);
                    }
                }
            }
            return;
        }
        // Validation: one automaton; every column below `columns`, every
        // outcome id below outcomes.len() / stride (and checked anyway).
        let Some(a) = d.automata.first() else { return };
        let (o, _) = run(a, path_parts(url), d.header.url_mode);
        let row = o as usize * self.stride + channel.index();
        let outcomes = d.outcomes.as_slice();
        for (i, ag) in each.agents.iter().enumerate() {
            let w = outcomes
                .get(row + ag.column.to_native() as usize * channels)
                .map_or(answer::DEFAULT_ALLOW, |w| w.to_native());
            f(i, w);
        }
    }

    /// Like [`Policy::check`], also reporting how many path bytes were read.
    pub fn check_traced(&self, url: &[u8]) -> Traced {
        let (word, bytes_read) = self.word(url, 0);
        Traced {
            verdict: verdict(word),
            bytes_read,
        }
    }

    /// The first automaton's outcome id for `url` (0 without automata):
    /// the walk alone, for `bench --bin layout`, which compares table
    /// layouts by the loop that reads them. With the `build` feature (for
    /// tools: an outcome id means something only next to the artifact's
    /// tables).
    #[cfg(feature = "build")]
    pub fn outcome_id(&self, url: &[u8]) -> crate::OutcomeId {
        crate::OutcomeId::new(match self.automata.first() {
            Some(a) => run(a, path_parts(url), self.data.header.url_mode).0,
            None => 0,
        })
    }

    /// The outcome word for `url` on `channel` (which the caller checked),
    /// and the path bytes read.
    #[inline(always)]
    fn word(&self, url: &[u8], channel: usize) -> (u32, usize) {
        self.word_of(path_parts(url), channel)
    }

    /// [`Policy::word`] of a path already found.
    #[inline(always)]
    fn word_of(&self, parts: PathParts<'_>, channel: usize) -> (u32, usize) {
        let mode = self.data.header.url_mode;
        let (stride, at) = (self.stride, self.base + channel);
        let outcomes = self.outcomes;
        // Validation: every outcome id is below outcomes.len() / stride,
        // so these indexes are in bounds (and checked anyway).
        let word = |o: u32| outcomes[o as usize * stride + at].to_native();
        if let [a] = self.automata {
            let (o, read) = run(a, parts, mode);
            return (word(o), read);
        }
        let mut best = NO_OUTCOME;
        let mut bytes_read = 0;
        for a in self.automata {
            // In non-increasing `max_rank` order (validated): once the best
            // outranks what an automaton can give, it outranks the rest.
            if best != NO_OUTCOME && a.max_rank.to_native() < self.rank(best) {
                break;
            }
            let (o, read) = run(a, parts, mode);
            bytes_read += read;
            let w = word(o);
            if best == NO_OUTCOME || self.outranks(w, best) {
                best = w;
            }
        }
        (best, bytes_read)
    }

    /// The rank of an outcome word's deciding rule (0: none).
    #[inline]
    pub(crate) fn rank(&self, w: u32) -> u32 {
        self.data
            .rules
            .get((w & OUTCOME_RULE_MASK) as usize)
            .map_or(0, |r| r.rank.to_native())
    }

    /// Does outcome word `a` beat `b` when combining several automata? The
    /// higher rank wins, then the lower rule id (the first in file order).
    #[inline]
    pub(crate) fn outranks(&self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.rank(a), self.rank(b));
        ra > rb || (ra == rb && (a & OUTCOME_RULE_MASK) < (b & OUTCOME_RULE_MASK))
    }

    /// The fixed facts of the policy.
    pub fn header(&self) -> Header<'a> {
        let h = &self.data.header;
        // Validation checked the three codes.
        Header {
            dialect: Dialect::from_u8(h.dialect).unwrap_or(Dialect::Rfc9309),
            url_mode: UrlMode::from_u8(h.url_mode).unwrap_or(UrlMode::Google),
            selection: Selection::from_u8(h.selection).unwrap_or(Selection::None),
            robots_txt_allowed: h.robots_txt_allowed,
            self_path: if h.data_txt {
                "/data.txt"
            } else {
                "/robots.txt"
            },
            agent: h.agent.as_str(),
            source_sha256: h.source_sha256,
            source_len: h.source_len.to_native(),
            unread: (!h.unread.is_empty()).then(|| h.unread.as_str()),
            options_hash: h.options_hash.to_native(),
            max_bytes: h.max_bytes.to_native(),
            expiry_secs: h.expiry_secs.to_native(),
            compiler_version: h.compiler_version.as_str(),
            automata: self.all_automata().count(),
            split_reason: (!h.split_reason.is_empty()).then(|| h.split_reason.as_str()),
        }
    }

    /// Names of the usage channels, in [`Policy::check_channel`] order.
    pub fn channels(&self) -> impl Iterator<Item = &'a str> {
        self.data.header.channels.iter().map(|c| c.as_str())
    }

    /// Non-rule records (Crawl-delay, Sitemap, …).
    pub fn meta(&self) -> Meta<'a> {
        Meta {
            data: &self.data.meta,
        }
    }

    /// The rule a verdict names.
    pub fn rule(&self, id: RuleId) -> Option<RuleRef<'a>> {
        self.data.rules.get(id.index()).map(|r| {
            // Validation checked the flag fields and the class.
            RuleRef {
                allow: r.flags & 1 != 0,
                pattern: r.pattern.as_slice(),
                line: r.line.to_native(),
                group: r.group.to_native(),
                rank: r.rank.to_native(),
                origin: RuleOrigin::from_u8((r.flags >> 1) & 3).unwrap_or(RuleOrigin::Line),
                syntax: PatternSyntax::from_u8((r.flags >> 3) & 7).unwrap_or(PatternSyntax::Glob),
                class: RankClass::from_u8(r.class).unwrap_or(RankClass::LongestMatch),
            }
        })
    }

    /// Every rule, in rule-id order.
    pub fn rules(&self) -> impl Iterator<Item = RuleRef<'a>> + 'a {
        let p = *self;
        self.rule_ids().filter_map(move |i| p.rule(i))
    }

    /// Every rule's id, in order: `0..rule_count()`.
    pub fn rule_ids(&self) -> impl Iterator<Item = RuleId> {
        // An artifact is under 4 GiB: fewer rules than `u32::MAX`.
        (0..self.rule_count() as u32).map(RuleId::new)
    }

    /// Number of rules in the rule table.
    pub fn rule_count(&self) -> usize {
        self.data.rules.len()
    }

    /// What the policy's parts cost, in bytes (a per-column each-agent
    /// policy: every column's automata and outcomes).
    pub fn sizes(&self) -> Sizes {
        let d = self.data;
        let automata = self
            .all_automata()
            .map(|a| std::mem::size_of_val(a) + a.classes.len() + a.prog.len())
            .sum();
        let rules = d
            .rules
            .iter()
            .map(|r| std::mem::size_of_val(r) + r.pattern.len())
            .sum();
        let parts = self.each.map(|e| e.parts.as_slice()).unwrap_or_default();
        let words = d.outcomes.len() + parts.iter().map(|p| p.outcomes.len()).sum::<usize>();
        Sizes {
            automata,
            program_bytes: self.all_automata().map(|a| a.prog.len()).sum(),
            outcomes: words * 4,
            rules,
            outcome_count: words / self.stride.max(1),
            register_automata: self.all_automata().filter(|a| !a.ranked.is_empty()).count(),
            rows_only_automata: self
                .all_automata()
                .filter(|a| a.dense_len.to_native() as usize == a.prog.len())
                .count(),
        }
    }

    /// Every automaton of the policy: its own, and a per-column each-agent
    /// policy's parts'.
    fn all_automata(&self) -> impl Iterator<Item = &'a ArchivedAutomaton> + 'a {
        let parts = self.each.map(|e| e.parts.as_slice()).unwrap_or_default();
        self.data
            .automata
            .iter()
            .chain(parts.iter().flat_map(|p| p.automata.iter()))
    }
}

pub(crate) const NO_OUTCOME: u32 = u32::MAX;

/// The contract of the `_each` methods: one slot per agent.
#[track_caller]
#[inline]
fn same_agents(agents: usize, out: usize) {
    assert!(
        agents == out,
        "check_each: {agents} agents but {out} verdict slots (see Policy::agent_count)"
    );
}

/// What kind of statement a rule of a policy with AI-usage preference
/// channels is ([`Policy::signal_source`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalSource<'a> {
    /// An Allow/Disallow of the agent (decides crawl).
    Rule,
    /// A `Content-Usage` line (aipref attach-05).
    ContentUsage,
    /// A `Content-Signal` line (Content Signals Policy).
    ContentSignal,
    /// An Allow/Disallow of this training token's group.
    TrainingToken(&'a str),
}

/// acap: what a rule is about besides its pattern ([`Policy::acap_rule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcapRuleRef<'a> {
    /// The usage the rule is on: `present` concerns its sub-types too,
    /// `other` every usage not explicitly permitted (ACAP 2.5).
    pub usage: Usage,
    /// From a record naming the crawler (else a `*` record).
    pub named: bool,
    /// A conventional Allow/Disallow, read as a rule on `crawl`.
    pub conventional: bool,
    /// Purpose patterns of its sub-record, space-separated (empty: a
    /// general rule).
    pub purposes: &'a str,
    /// Qualifiers as written, space-separated: they do not change the
    /// verdict, and an allowed crawler must honour them.
    pub qualifiers: &'a str,
    /// How the rule was written when not plainly: `(local-usage)`,
    /// `the-acap:resource-set:name`, a permissions reference.
    pub via: &'a str,
}

/// Runs automaton `a` over the path of each of `urls`, calling `f(index,
/// outcome id)`: one dispatch on the automaton's shape for all of them.
#[inline(always)]
fn run_each(a: &ArchivedAutomaton, urls: &[&[u8]], mode: u8, f: impl FnMut(usize, u32)) {
    // Validation checked there are exactly 256 classes.
    let classes: &[u8; 256] = a.classes.as_slice().try_into().unwrap_or(&[0; 256]);
    match (a.wide, a.ranked.is_empty()) {
        (false, true) => each::<Narrow, false>(a, classes, urls, mode, f),
        (true, true) => each::<Wide, false>(a, classes, urls, mode, f),
        (false, false) => each::<Narrow, true>(a, classes, urls, mode, f),
        (true, false) => each::<Wide, true>(a, classes, urls, mode, f),
    }
}

#[inline(never)]
fn each<W: Width, const REG: bool>(
    a: &ArchivedAutomaton,
    classes: &[u8; 256],
    urls: &[&[u8]],
    mode: u8,
    mut f: impl FnMut(usize, u32),
) {
    for (j, u) in urls.iter().enumerate() {
        f(j, walk::<W, REG>(a, classes, path_parts(u), mode).0);
    }
}

/// Runs one automaton over a path; returns its outcome id and the number of
/// path bytes read.
#[inline(always)]
fn run(a: &ArchivedAutomaton, parts: PathParts<'_>, mode: u8) -> (u32, usize) {
    // Validation checked there are exactly 256 classes.
    let classes: &[u8; 256] = a.classes.as_slice().try_into().unwrap_or(&[0; 256]);
    match (a.wide, a.ranked.is_empty()) {
        (false, true) => walk::<Narrow, false>(a, classes, parts, mode),
        (true, true) => walk::<Wide, false>(a, classes, parts, mode),
        (false, false) => walk::<Narrow, true>(a, classes, parts, mode),
        (true, false) => walk::<Wide, true>(a, classes, parts, mode),
    }
}

#[inline(always)]
fn walk<W: Width, const REG: bool>(
    a: &ArchivedAutomaton,
    classes: &[u8; 256],
    parts: PathParts<'_>,
    mode: u8,
) -> (u32, usize) {
    if mode == UrlMode::Google as u8 && !parts.slash {
        // The common case: the path as given. '#' and NUL end it: their
        // class stops the walk.
        return walk_bytes::<W, REG>(a, classes, parts.rest);
    }
    let mut w = Walk::<W>::new(a, classes);
    if w.done() {
        return (w.outcome(), 0);
    }
    let mut read = 0usize;
    if parts.slash {
        read = 1;
        if w.feed(b'/') {
            return (w.outcome(), read);
        }
    }
    if mode == UrlMode::Google as u8 {
        for &b in parts.rest {
            read += 1;
            if w.feed(b) {
                break;
            }
        }
    } else if mode == UrlMode::Rfc as u8 {
        feed_rfc(parts.rest, |b| {
            read += 1;
            w.feed(b)
        });
    } else {
        feed_decoded(parts.rest, |b| {
            read += 1;
            w.feed(b)
        });
    }
    (w.outcome(), read)
}

/// What a policy's parts cost, in bytes ([`Policy::sizes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Automata: programs, class maps and their fixed fields.
    pub automata: usize,
    /// Of which program bytes.
    pub program_bytes: usize,
    /// Outcome table.
    pub outcomes: usize,
    /// Rule table, patterns included.
    pub rules: usize,
    /// Distinct outcomes.
    pub outcome_count: usize,
    /// Automata that keep the best match in a register (see
    /// docs/artifact.md): their walk reads one more field per node.
    pub register_automata: usize,
    /// Automata that are table rows only — the dense layout's, or compact
    /// ones that needed no other node: their walk never leaves the
    /// one-lookup loop.
    pub rows_only_automata: usize,
}

/// The fixed facts of a policy ([`Policy::header`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// Semantics the outcomes were resolved with.
    pub dialect: Dialect,
    /// Encoding applied to URLs before they meet the automata.
    pub url_mode: UrlMode,
    /// How the agent's groups were chosen.
    pub selection: Selection,
    /// Whether [`Header::self_path`] is allowed whatever the rules say.
    pub robots_txt_allowed: bool,
    /// The file's own path: `/robots.txt`, or `/data.txt`.
    pub self_path: &'static str,
    /// The product token the policy was compiled for; several (rfc9309,
    /// a crawler that obeys the groups naming any of them) joined by `,`
    /// ([`Header::agents`]).
    pub agent: &'a str,
    /// SHA-256 of the source bytes.
    pub source_sha256: [u8; 32],
    /// Length of the source bytes.
    pub source_len: u64,
    /// What was not read as written (the first finding that can change a
    /// verdict, and how many more), when something was.
    pub unread: Option<&'a str>,
    /// Fingerprint of the agent, dialect, options and compiler version.
    pub options_hash: u64,
    /// Parse limit in force (0: none).
    pub max_bytes: u64,
    /// Cache lifetime of the fetched file without a cache directive.
    pub expiry_secs: u32,
    /// `robocc-compiler` version that wrote the artifact.
    pub compiler_version: &'a str,
    /// Number of automata (1 unless the rules were split).
    pub automata: usize,
    /// Why the rules were split over several automata.
    pub split_reason: Option<&'a str>,
}

impl<'a> Header<'a> {
    /// The product tokens the policy was compiled for, in order: one, or
    /// several ([`Header::agent`] split at `,`).
    pub fn agents(&self) -> impl Iterator<Item = &'a str> {
        self.agent.split(',')
    }
}

/// A rule of a policy ([`Policy::rule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleRef<'a> {
    /// Allow (true) or Disallow.
    pub allow: bool,
    /// The pattern as matched (rfc9309: after encoding) or as written.
    pub pattern: &'a [u8],
    /// 1-based source line (0 for implicit rules).
    pub line: u32,
    /// Index of the group in the source file.
    pub group: u32,
    /// The dialect's rank: the matching rule of highest rank decides.
    pub rank: u32,
    /// Why the rule exists.
    pub origin: RuleOrigin,
    /// How the pattern is read.
    pub syntax: PatternSyntax,
    /// The resolution that ranked it.
    pub class: RankClass,
}

impl RuleRef<'_> {
    /// The robots.txt line that wrote the rule; `None` for a rule the
    /// compiler adds (the implicit `/robots.txt` allow), which no line wrote.
    pub fn source_line(&self) -> Option<u32> {
        (self.line > 0).then_some(self.line)
    }

    /// The pattern, lossily as text.
    pub fn pattern_text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.pattern)
    }
}

/// A non-rule record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordRef<'a> {
    /// What the key was read as.
    pub kind: RecordKind,
    /// Key as written.
    pub key: &'a str,
    /// Value as written.
    pub value: &'a str,
    /// 1-based source line.
    pub line: u32,
}

fn record(r: &ArchivedRecordData) -> RecordRef<'_> {
    RecordRef {
        // Validation checked the kind.
        kind: RecordKind::from_u8(r.kind).unwrap_or(RecordKind::Unknown),
        key: r.key.as_str(),
        value: r.value.as_str(),
        line: r.line.to_native(),
    }
}

/// Non-rule records of a policy ([`Policy::meta`]).
#[derive(Clone, Copy)]
pub struct Meta<'a> {
    data: &'a ArchivedMetaData,
}

impl<'a> Meta<'a> {
    /// Crawl-delay in milliseconds (the first valid one of the agent's
    /// groups).
    pub fn crawl_delay_ms(&self) -> Option<u64> {
        self.data.crawl_delay_ms.as_ref().map(|d| d.to_native())
    }

    /// The agent's records other than rules, in file order.
    pub fn records(&self) -> impl Iterator<Item = RecordRef<'a>> {
        self.data.agent_records.iter().map(record)
    }

    /// The file's global records (Sitemap, Host, Clean-param, License), in
    /// file order.
    pub fn global_records(&self) -> impl Iterator<Item = RecordRef<'a>> {
        self.data.global_records.iter().map(record)
    }

    fn values(
        records: impl Iterator<Item = RecordRef<'a>>,
        kind: RecordKind,
    ) -> impl Iterator<Item = &'a str> {
        records.filter(move |r| r.kind == kind).map(|r| r.value)
    }

    /// Sitemap URLs.
    pub fn sitemaps(&self) -> impl Iterator<Item = &'a str> {
        Self::values(self.global_records(), RecordKind::Sitemap)
    }

    /// Host records (Yandex).
    pub fn hosts(&self) -> impl Iterator<Item = &'a str> {
        Self::values(self.global_records(), RecordKind::Host)
    }

    /// Clean-param records (Yandex).
    pub fn clean_params(&self) -> impl Iterator<Item = &'a str> {
        Self::values(self.global_records(), RecordKind::CleanParam)
    }

    /// RSL 1.0 `License` values (rslstandard.org): the site's license
    /// files, for every crawler, in file order.
    pub fn licenses(&self) -> impl Iterator<Item = &'a str> {
        Self::values(self.global_records(), RecordKind::License)
    }

    /// Content-Signal values of the agent's groups.
    pub fn content_signals(&self) -> impl Iterator<Item = &'a str> {
        Self::values(self.records(), RecordKind::ContentSignal)
    }

    /// robots2 Comment records.
    pub fn comments(&self) -> impl Iterator<Item = &'a str> {
        Self::values(self.records(), RecordKind::Comment)
    }

    /// Source lines of the selected groups' first user-agent lines.
    pub fn group_lines(&self) -> impl Iterator<Item = u32> + 'a {
        self.data.group_lines.iter().map(|l| l.to_native())
    }

    /// acap: the `##ACAP version=` comment's version as written.
    pub fn acap_version(&self) -> Option<&'a str> {
        let v = self.data.acap.as_ref()?.version.as_str();
        (!v.is_empty()).then_some(v)
    }

    /// acap: whether the file says `ACAP-ignore-conventional-records`.
    pub fn acap_ignores_conventional(&self) -> bool {
        self.data
            .acap
            .as_ref()
            .is_some_and(|a| a.ignore_conventional)
    }

    /// acap: the usage purposes the policy was compiled for.
    pub fn acap_purposes(&self) -> impl Iterator<Item = &'a str> {
        self.data
            .acap
            .iter()
            .flat_map(|a| a.purposes.iter().map(|p| p.as_str()))
    }

    /// acap: action requests (`ACAP-request-take-down`, …) of the records
    /// that apply; they change no verdict (ACAP 2.6: not ready for
    /// implementation).
    pub fn acap_requests(&self) -> impl Iterator<Item = RecordRef<'a>> {
        self.data
            .acap
            .iter()
            .flat_map(|a| a.requests.iter().map(record))
    }

    /// robots2: the rule set's Robot-version as written.
    pub fn robot_version(&self) -> Option<&'a str> {
        self.data.robot_version.as_ref().map(|v| v.as_str())
    }

    /// robots2: Visit-time windows (none: any time).
    pub fn visit_times(&self) -> impl Iterator<Item = TimeWindow> + 'a {
        self.data.visit_times.iter().map(|w| TimeWindow {
            start: w.start.to_native(),
            end: w.end.to_native(),
        })
    }

    /// robots2: Request-rate records.
    pub fn request_rates(&self) -> impl Iterator<Item = RequestRate> + 'a {
        self.data.request_rates.iter().map(|r| RequestRate {
            rate: Rate {
                documents: r.documents.to_native(),
                seconds: r.seconds.to_native(),
            },
            window: r.window.as_ref().map(|w| TimeWindow {
                start: w.start.to_native(),
                end: w.end.to_native(),
            }),
            line: r.line.to_native(),
        })
    }
}

/// A policy artifact held in memory or mapped from a file: the owner that
/// [`Policy`] views borrow from.
///
/// ```no_run
/// use robocc_engine::PolicyFile;
/// let file = PolicyFile::open("example.policy")?;   // mmap + validation, once
/// let policy = file.policy();                         // a Copy view, free
/// assert!(policy.is_allowed("https://example.com/"));
/// # Ok::<(), robocc_engine::LoadError>(())
/// ```
pub struct PolicyFile {
    storage: load::Storage,
}

impl std::fmt::Debug for PolicyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.policy().fmt(f)
    }
}

impl PolicyFile {
    /// Reads the artifact at `path` into memory when it is shorter than
    /// [`READ_SHARDS_BELOW`] (64 KiB, most
    /// policies), else memory-maps it, and validates it. A read file is
    /// immune to the file being replaced in place afterwards (`cp new
    /// live`); a mapped one is not: replace a policy by writing a new file
    /// and renaming it over the old one (`mv`), never in place.
    ///
    /// # Errors
    ///
    /// As [`Policy::from_bytes`], plus I/O errors; every message names `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<PolicyFile, LoadError> {
        let path = path.as_ref();
        let storage = load::read_or_map(path, FileKind::Policy, READ_SHARDS_BELOW)?;
        load::validate_policy(storage.bytes())
            .map_err(|e| e.with_path(path.display().to_string()))?;
        Ok(PolicyFile { storage })
    }

    /// Copies artifact bytes (of any alignment) into an aligned buffer and
    /// validates them.
    ///
    /// # Errors
    ///
    /// As [`Policy::from_bytes`].
    pub fn from_slice(bytes: &[u8]) -> Result<PolicyFile, LoadError> {
        let copy = crate::AlignedBytes::copy_from_slice(bytes);
        load::validate_policy(&copy)?;
        Ok(PolicyFile {
            storage: load::Storage::Heap(copy),
        })
    }

    /// Takes aligned artifact bytes (what a compiler's `to_bytes` returns)
    /// without copying them, and validates them.
    ///
    /// # Errors
    ///
    /// As [`Policy::from_bytes`].
    pub fn from_aligned(bytes: crate::AlignedBytes) -> Result<PolicyFile, LoadError> {
        load::validate_policy(&bytes)?;
        Ok(PolicyFile {
            storage: load::Storage::Heap(bytes),
        })
    }

    /// The policy.
    #[inline]
    pub fn policy(&self) -> Policy<'_> {
        // SAFETY: the bytes passed `validate_policy` when `self` was made,
        // and `Storage` never changes or moves them while `self` lives.
        Policy::from_validated(unsafe { load::trusted_policy(self.storage.bytes()) })
    }

    /// The artifact bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.bytes()
    }
}

/// Hints the CPU to bring the cache line at `p` in; no effect where the
/// architecture has no stable prefetch instruction.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults and reads nothing the
    // program sees, whatever the address (SSE is part of x86_64).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
