//! What each dialect means: one table, consulted by every stage.
//!
//! A dialect is a parsing mode (how records are grouped, which record an
//! agent obeys, how a pattern is read) plus a **rank** for every rule: among
//! the rules a path matches, the one with the highest rank decides (equal
//! ranks: the first in file order). Longest match (rfc9309), first match
//! (draft1996, robots2 1.0 rule sets) and robots2's precedence classes are
//! all of this form. Because the winner is a maximum, the lowering can forget
//! every rule that ranks below a rule already matched for good — which is
//! what keeps the automata small — and the fallback path can combine the
//! outcomes of several automata by rank. docs/dialects.md gives each choice
//! with the spec sentence it rests on.
//!
//! Each dialect's choices are one `const` [`Semantics`] ([`RFC9309`],
//! [`DRAFT1996`], [`ROBOTS2`], [`ACAP`]); [`semantics`] picks it. The parser
//! options, the group selection, the rule set, the lint and the explainer
//! read the table rather than match on [`Dialect`] themselves. Every rule
//! keeps the [`RankClass`] that gave it its rank, so the explainer says why
//! it won without working it out again.

use crate::agent::{select, select_first_record, Agents, Selection, TokenRule};
use crate::glob::Glob;
use crate::parse::keys::KeyKind;
pub use crate::parse::LineGrammar;
use crate::parse::RobotsTxt;
use robocc_engine::artifact::PatternSyntax;
pub use robocc_engine::Dialect;
use robocc_engine::{UrlMode, Usage};

/// Which groups of a file apply to an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordSelection {
    /// RFC 9309 §2.2.1 as Google implements it: every group naming the
    /// agent, merged; else every `*` group ([`select`]).
    GoogleGroups,
    /// The 1996 draft's §3.2.1: the first record whose user-agent contains
    /// the agent; else the first `*` record; one record only
    /// ([`select_first_record`]).
    FirstRecord,
}

impl RecordSelection {
    /// The groups of `robots` that apply to `agents`. The first record is
    /// one robot's, by its one name: given several agents (which
    /// [`Semantics::several_agents`] refuses before), it is the first's.
    pub fn select(self, robots: &RobotsTxt<'_>, agents: &Agents) -> Selection {
        match self {
            RecordSelection::GoogleGroups => select(robots, agents),
            RecordSelection::FirstRecord => {
                select_first_record(robots, agents.iter().next().unwrap_or_default())
            }
        }
    }
}

/// How a rule's value becomes a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatternRule {
    /// RFC 9309's glob over the encoded value (Google's escaping, or the
    /// RFC's normalisation): `*` any run of bytes, a final `$` the end.
    GoogleGlob,
    /// The value as written, a plain prefix: every byte literal.
    Prefix,
    /// robots2: 1.0 rule sets read values as prefixes; a 2.0 rule set
    /// (Robot-version 2.0, see [`robots2_version`]) reads a value with `*`,
    /// `?` or `[` as a /bin/sh wildcard over the whole path, any other as
    /// the exact path.
    Robots2Versioned,
}

impl PatternRule {
    /// How a rule value `raw` is read (`robots2_v2`: the rule set declared
    /// 2.0; only [`PatternRule::Robots2Versioned`] looks at it).
    pub fn syntax(self, robots2_v2: bool, raw: &[u8]) -> PatternSyntax {
        match self {
            PatternRule::GoogleGlob => PatternSyntax::Glob,
            PatternRule::Prefix => PatternSyntax::Prefix,
            PatternRule::Robots2Versioned if !robots2_v2 => PatternSyntax::Prefix,
            PatternRule::Robots2Versioned => {
                if raw.iter().any(|b| matches!(b, b'*' | b'?' | b'[')) {
                    PatternSyntax::Shell
                } else {
                    PatternSyntax::Exact
                }
            }
        }
    }

    /// Does the chosen rule set's Robot-version decide how it is read?
    pub fn reads_robot_version(self) -> bool {
        self == PatternRule::Robots2Versioned
    }
}

pub use robocc_engine::RankClass;

/// How the rule that decides is chosen among the rules a path matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranking {
    /// RFC 9309 §2.2.2 as Google implements it: the longest pattern wins,
    /// Allow wins ties.
    LongestMatch,
    /// The 1996 draft's §3.2.2: the first matching rule wins.
    FirstMatch,
    /// robots2: first match in 1.0 rule sets; in 2.0 rule sets explicit
    /// Allow over Disallow over wildcard Allow over a Disallow that matches
    /// every path, first in file order within a class.
    Robots2Precedence,
    /// ACAP 2.4.5: no rank; the narrowest scope among the matching rules,
    /// resolved over sets ([`crate::outcome::acap::outcome`]). Every rule gets the
    /// same rank, which nothing reads.
    NarrowestScope,
}

/// The rank of the implicit allow of the file's own path outside longest
/// match: above every rule.
const SELF_RANK: u32 = u32::MAX - 1;

impl Ranking {
    /// The class of a rule: `self_path` for the implicit allow of the
    /// file's own path; `syntax` as [`PatternRule::syntax`] gave it; `glob`
    /// the pattern (whether it matches every path matters to robots2).
    pub fn class(
        self,
        self_path: bool,
        allow: bool,
        syntax: PatternSyntax,
        glob: &Glob,
    ) -> RankClass {
        if self_path {
            return RankClass::SelfPath;
        }
        match (self, syntax) {
            (Ranking::NarrowestScope, _) => RankClass::NarrowestScope,
            (Ranking::LongestMatch, _) => RankClass::LongestMatch,
            (Ranking::FirstMatch, _) => RankClass::FirstMatch,
            // A robots2 1.0 rule set: its values are prefixes.
            (Ranking::Robots2Precedence, PatternSyntax::Prefix | PatternSyntax::Glob) => {
                RankClass::FirstMatch
            }
            (Ranking::Robots2Precedence, syntax) => match (allow, syntax) {
                (true, PatternSyntax::Exact) => RankClass::ExplicitAllow,
                (true, _) => RankClass::WildcardAllow,
                (false, _) if glob.is_universal() => RankClass::CatchAllDisallow,
                (false, _) => RankClass::Disallow,
            },
        }
    }

    /// The rank (> 0) of a rule of class `class`: `priority` is its pattern
    /// length (see `SetRule::priority`), `position` its index among the
    /// `count` rules of the set.
    ///
    /// * longest match: `priority * 2 + allow + 1`, so a longer pattern
    ///   wins and Allow wins ties; the own path's priority is above any
    ///   pattern's;
    /// * first match: `count - position`, so earlier rules rank higher;
    /// * robots2's precedence classes: 4 explicit Allow, 3 Disallow,
    ///   2 wildcard Allow, 1 catch-all Disallow;
    /// * the own path, outside longest match: above everything.
    pub fn rank(
        self,
        class: RankClass,
        allow: bool,
        priority: u32,
        position: usize,
        count: usize,
    ) -> u32 {
        let longest = |allow: bool| priority * 2 + u32::from(allow) + 1;
        match class {
            RankClass::LongestMatch => longest(allow),
            RankClass::FirstMatch => (count - position) as u32,
            RankClass::ExplicitAllow => 4,
            RankClass::Disallow => 3,
            RankClass::WildcardAllow => 2,
            RankClass::CatchAllDisallow | RankClass::NarrowestScope => 1,
            RankClass::SelfPath if self == Ranking::LongestMatch => longest(true),
            RankClass::SelfPath => SELF_RANK,
        }
    }
}

/// How URLs (and patterns) are encoded before they meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlModeRule {
    /// The caller chooses (rfc9309: Google's as given, or the RFC's
    /// normalisation).
    Requested,
    /// Part of the dialect (the draft's decoding for draft1996 and robots2;
    /// robots2 changes nothing in how URLs are compared).
    Fixed(UrlMode),
}

impl UrlModeRule {
    /// The mode in force when the caller asked for `requested`.
    pub fn resolve(self, requested: UrlMode) -> UrlMode {
        match self {
            UrlModeRule::Requested => requested,
            UrlModeRule::Fixed(mode) => mode,
        }
    }
}

/// Everything that makes a dialect what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Semantics {
    /// The dialect described.
    pub dialect: Dialect,
    /// Which groups apply to an agent.
    pub selection: RecordSelection,
    /// Which names the caller's agent may have.
    pub agent_token: TokenRule,
    /// Whether a policy may answer for several agents at once
    /// ([`Agents`]): rfc9309's merged groups give them a meaning (Google's
    /// `AllowedByRobots` with a list); the 1996 draft's robot has one name
    /// and obeys one record, and ACAP names one crawler per record.
    pub several_agents: bool,
    /// Blank lines end records (the 1996 draft's grammar), whatever
    /// `ParseOptions` say.
    pub blank_lines_end_records: bool,
    /// Every line other than User-agent ends the user-agent lines of a
    /// record, whatever `ParseOptions` say: the draft's grammar makes any
    /// field line (an extension such as Crawl-delay too) a `ruleline`.
    pub records_close_groups: bool,
    /// How lines are split and keys read.
    pub line_grammar: LineGrammar,
    /// How a rule value is read.
    pub patterns: PatternRule,
    /// Which matching rule decides.
    pub ranking: Ranking,
    /// How URLs and patterns are encoded.
    pub url_mode: UrlModeRule,
    /// Default cache lifetime of a fetched file, in seconds.
    pub expiry_secs: u64,
    /// The dialect's text has a /data.txt variant (the 1996 draft's
    /// data-discovery file), whose own path `/data.txt` replaces
    /// `/robots.txt`: the command line infers it from a file named
    /// `data.txt` in this dialect only.
    pub data_txt_variant: bool,
    /// How the implicit allow of the file's own path is written:
    /// [`PatternSyntax::Glob`] as `/robots.txt$`, [`PatternSyntax::Exact`]
    /// as the path itself.
    pub self_path: PatternSyntax,
    /// Google's `index.htm` rule: an Allow of `<dir>/index.htm…` also allows
    /// `<dir>/`.
    pub index_htm: bool,
    /// ACAP 1.0's records are read ([`crate::acap`]): first, and the
    /// conventional records then with their lines blanked (ACAP 2.9.2).
    pub acap_records: bool,
    /// Usage channels the outcomes carry, in order (the engine's
    /// [`Usage`] lists, which are their only home).
    pub channels: &'static [&'static str],
    /// The channels when the rules carry AI-usage preference statements
    /// ([`crate::signals`]): crawl, then the preference channels in
    /// [`crate::signals::SignalRule::prefs`] order. Empty: the dialect
    /// reads no such statements.
    pub signal_channels: &'static [&'static str],
}

impl Semantics {
    /// Does the dialect read AI-usage preference statements (it has
    /// [`Semantics::signal_channels`])?
    pub fn reads_signals(&self) -> bool {
        !self.signal_channels.is_empty()
    }

    /// The pattern and syntax of the implicit allow of the file's own
    /// `path` (`/robots.txt`, or `/data.txt`).
    pub fn self_rule(&self, path: &[u8]) -> (Vec<u8>, PatternSyntax) {
        match self.self_path {
            PatternSyntax::Glob => ([path, b"$"].concat(), PatternSyntax::Glob),
            syntax => (path.to_vec(), syntax),
        }
    }
}

/// RFC 9309, with Google's robotstxt library as the reference behaviour.
/// Cache expiry: §2.4 ("SHOULD NOT use the cached version for more than
/// 24 hours").
pub const RFC9309: Semantics = Semantics {
    dialect: Dialect::Rfc9309,
    selection: RecordSelection::GoogleGroups,
    agent_token: TokenRule::Rfc9309,
    several_agents: true,
    blank_lines_end_records: false,
    records_close_groups: false,
    line_grammar: LineGrammar::Google,
    patterns: PatternRule::GoogleGlob,
    ranking: Ranking::LongestMatch,
    url_mode: UrlModeRule::Requested,
    expiry_secs: 24 * 3600,
    data_txt_variant: false,
    self_path: PatternSyntax::Glob,
    index_htm: true,
    acap_records: false,
    channels: Usage::CRAWL_CHANNELS,
    signal_channels: Usage::SIGNAL_CHANNELS,
};

/// Koster's 1996 draft (also /data.txt). Cache expiry: §3.4 ("default to an
/// expiry of 7 days").
pub const DRAFT1996: Semantics = Semantics {
    dialect: Dialect::Draft1996,
    selection: RecordSelection::FirstRecord,
    // §3.3: `agent = token`, RFC 1945's token.
    agent_token: TokenRule::Rfc1945,
    several_agents: false,
    blank_lines_end_records: true,
    records_close_groups: true,
    line_grammar: LineGrammar::Draft,
    patterns: PatternRule::Prefix,
    ranking: Ranking::FirstMatch,
    url_mode: UrlModeRule::Fixed(UrlMode::Decode),
    expiry_secs: 7 * 24 * 3600,
    data_txt_variant: true,
    self_path: PatternSyntax::Exact,
    index_htm: false,
    acap_records: false,
    channels: Usage::CRAWL_CHANNELS,
    signal_channels: &[],
};

/// The proposed "robots.txt 2.0": the draft's records, agent choice, URL
/// decoding and expiry, with versioned rule sets.
pub const ROBOTS2: Semantics = Semantics {
    dialect: Dialect::Robots2,
    selection: RecordSelection::FirstRecord,
    // §3.3: `agent = token`, RFC 1945's token.
    agent_token: TokenRule::Rfc1945,
    several_agents: false,
    blank_lines_end_records: true,
    records_close_groups: true,
    line_grammar: LineGrammar::Robots2,
    patterns: PatternRule::Robots2Versioned,
    ranking: Ranking::Robots2Precedence,
    url_mode: UrlModeRule::Fixed(UrlMode::Decode),
    expiry_secs: 7 * 24 * 3600,
    // The robots2 text has no /data.txt.
    data_txt_variant: false,
    self_path: PatternSyntax::Exact,
    index_htm: false,
    acap_records: false,
    channels: Usage::CRAWL_CHANNELS,
    signal_channels: &[],
};

/// ACAP 1.0 robots.txt extensions: RFC 9309's reading of the conventional
/// records (Google's grouping and selection) plus ACAP records
/// ([`crate::acap`]), resolved by narrowest scope, one channel per usage
/// type. URLs are matched as given (ACAP 2.8 adds `*`, `$` and case
/// insensitivity, no encoding rules). Cache expiry: RFC 9309's (ACAP says
/// nothing). No implicit rules (no `index.htm`, no own-path allow).
pub const ACAP: Semantics = Semantics {
    dialect: Dialect::Acap,
    several_agents: false,
    ranking: Ranking::NarrowestScope,
    url_mode: UrlModeRule::Fixed(UrlMode::Google),
    index_htm: false,
    acap_records: true,
    channels: Usage::ACAP_CHANNELS,
    signal_channels: &[],
    ..RFC9309
};

/// The semantics of `dialect`.
pub fn semantics(dialect: Dialect) -> &'static Semantics {
    match dialect {
        Dialect::Rfc9309 => &RFC9309,
        Dialect::Draft1996 => &DRAFT1996,
        Dialect::Robots2 => &ROBOTS2,
        Dialect::Acap => &ACAP,
    }
}

/// Parses a dialect name as used on the command line.
pub fn from_name(name: &str) -> Option<Dialect> {
    [
        Dialect::Rfc9309,
        Dialect::Draft1996,
        Dialect::Robots2,
        Dialect::Acap,
    ]
    .into_iter()
    .find(|d| d.name().eq_ignore_ascii_case(name))
}

/// A robots2 rule set's version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Robots2Version {
    /// The Robot-version value that counts, as written.
    pub written: Option<String>,
    /// Read with the 2.0 rules.
    pub is_v2: bool,
    /// Why a Robot-version line was not taken as written.
    pub notes: Vec<(u32, String)>,
}

/// Reads a record's Robot-version: it counts only if it is the first line
/// after the user-agent lines ("If it does not immediately follow, or is
/// missing, then the robot is to assume the rule set follows the Version
/// 1.0 standard"); major 2 with an even minor reads as 2.0, an odd minor is
/// experimental ("should probably ignore that rule set and use the
/// default") and reads as 1.0, as does anything else.
pub fn robots2_version(robots: &RobotsTxt<'_>, g: usize) -> Robots2Version {
    let group = &robots.groups[g];
    let mut out = Robots2Version {
        written: None,
        is_v2: false,
        notes: Vec::new(),
    };
    // The first keyed line after the user-agent lines: the group's own
    // rules and records, and file-level records (a Sitemap line between the
    // user-agent lines and Robot-version also breaks "immediately").
    let last_agent = group.agents.iter().map(|a| a.line).max().unwrap_or(0);
    let first_line = group
        .rules
        .iter()
        .map(|r| r.line)
        .chain(group.records.iter().map(|r| r.line))
        .chain(
            robots
                .global
                .iter()
                .map(|r| r.line)
                .filter(|&l| l > last_agent),
        )
        .min();
    for (n, r) in group
        .records
        .iter()
        .filter(|r| r.kind == KeyKind::RobotVersion)
        .enumerate()
    {
        let value = String::from_utf8_lossy(r.value).into_owned();
        if n > 0 {
            out.notes.push((
                r.line,
                "a second Robot-version in the rule set: ignored (only one is allowed)".into(),
            ));
            continue;
        }
        if Some(r.line) != first_line {
            out.notes.push((
                r.line,
                "Robot-version does not immediately follow the user-agent lines: \
                 the rule set is read as version 1.0"
                    .into(),
            ));
            continue;
        }
        let mut parts = value.split('.').map(|p| p.trim().parse::<u32>().ok());
        match (parts.next().flatten(), parts.next().flatten()) {
            (Some(2), Some(minor)) if minor % 2 == 0 => out.is_v2 = true,
            (Some(2), Some(_)) => out.notes.push((
                r.line,
                format!("Robot-version {value} is experimental (odd minor): read as 1.0"),
            )),
            (Some(1), _) => {}
            _ => out.notes.push((
                r.line,
                format!("Robot-version {value:?} is not 1.x or 2.x: read as 1.0"),
            )),
        }
        out.written = Some(value);
    }
    out
}

/// `--dialect auto`: the dialect a robots.txt body is written in — acap
/// when a line's key starts with `ACAP-`, robots2 when one is
/// `Robot-version`, else rfc9309. The body is read as [`compile`](crate::compile())
/// reads it (a UTF-16 body decoded first).
pub fn detect(body: &[u8]) -> Dialect {
    use crate::parse::keys::{classify, split_line};
    let text = crate::input::read(body).text;
    let mut robots2 = false;
    for line in crate::parse::lines::Lines::new(&text) {
        let t = line.text.trim_ascii();
        if t.len() >= 5 && t[..5].eq_ignore_ascii_case(b"acap-") {
            return Dialect::Acap;
        }
        if let Ok((key, _)) = split_line(line.text) {
            robots2 |= classify(key).kind == KeyKind::RobotVersion;
        }
    }
    if robots2 {
        Dialect::Robots2
    } else {
        Dialect::Rfc9309
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_its_own_entry() {
        for d in [
            Dialect::Rfc9309,
            Dialect::Draft1996,
            Dialect::Robots2,
            Dialect::Acap,
        ] {
            assert_eq!(semantics(d).dialect, d);
            assert_eq!(from_name(d.name()), Some(d));
        }
        let names: Vec<&str> = robocc_engine::Usage::ACAP
            .iter()
            .map(|u| u.name())
            .collect();
        assert_eq!(semantics(Dialect::Acap).channels, names.as_slice());
        // The preference channels are the signal usages, in order, after
        // crawl.
        let signals: Vec<&str> = robocc_engine::Usage::SIGNALS
            .iter()
            .map(|u| u.name())
            .collect();
        let rfc = semantics(Dialect::Rfc9309).signal_channels;
        assert_eq!((rfc[0], &rfc[1..]), ("crawl", signals.as_slice()));
    }

    #[test]
    fn robots2_classes_order_as_documented() {
        let r = Ranking::Robots2Precedence;
        let rank = |c| r.rank(c, true, 0, 0, 1);
        let order = [
            RankClass::SelfPath,
            RankClass::ExplicitAllow,
            RankClass::Disallow,
            RankClass::WildcardAllow,
            RankClass::CatchAllDisallow,
        ];
        assert!(order.windows(2).all(|w| rank(w[0]) > rank(w[1])));
        let glob = |p: &str, s| Glob::parse(p.as_bytes(), s, UrlMode::Decode);
        let shell = PatternSyntax::Shell;
        assert_eq!(
            r.class(false, false, shell, &glob("/*", shell)),
            RankClass::CatchAllDisallow
        );
        assert_eq!(
            r.class(false, false, shell, &glob("*.gif", shell)),
            RankClass::Disallow
        );
        let prefix = PatternSyntax::Prefix;
        assert_eq!(
            r.class(false, true, prefix, &glob("/a", prefix)),
            RankClass::FirstMatch
        );
    }
}
