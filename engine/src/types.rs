//! The plain robocc types that policies are described with. They are part of
//! the API promise; the archived layout ([`crate::artifact`]) is not.

macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $value:literal => $text:literal,)+ }
    ) => {
        $(#[$meta])*
        pub enum $name { $($(#[$vmeta])* $variant = $value,)+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The name used on the command line, in JSON and in docs.
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }

            /// The value with this number (as stored in an artifact).
            pub fn from_u8(v: u8) -> Option<$name> {
                match v { $($value => Some($name::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownName;
            /// Parses the name (case-insensitive).
            fn from_str(s: &str) -> Result<$name, UnknownName> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(s))
                    .ok_or(UnknownName {
                        what: stringify!($name),
                        expected: &[$($text,)+],
                    })
            }
        }
    };
}

/// A name that is not one of an enum's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// The type that was parsed.
    pub what: &'static str,
    /// Its valid names.
    pub expected: &'static [&'static str],
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} (expected one of: {})",
            self.what.to_ascii_lowercase(),
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownName {}

named_enum! {
    /// Which specification's semantics a policy was compiled with.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum Dialect {
        /// RFC 9309 with Google's robotstxt library as the reference behaviour.
        Rfc9309 = 0 => "rfc9309",
        /// Koster's 1996 draft (and /data.txt): first match in record order.
        Draft1996 = 1 => "draft1996",
        /// The proposed "robots.txt 2.0" extended standard.
        Robots2 = 2 => "robots2",
        /// ACAP 1.0 robots.txt extensions.
        Acap = 3 => "acap",
    }
}

named_enum! {
    /// How URLs (and patterns, at compile time) are encoded before matching.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum UrlMode {
        /// Google's behaviour: the URL is matched byte for byte as given;
        /// patterns only get bytes >= 0x80 percent-encoded and `%xx`
        /// upper-cased.
        Google = 0 => "google",
        /// RFC 9309 §2.2.2: URL and patterns are both normalised (unreserved
        /// escapes decoded, reserved ones kept, non-ASCII and unsafe bytes
        /// encoded, literal `*` and `$` in the URL compared as `%2A` and
        /// `%24`).
        Rfc = 1 => "rfc",
        /// The 1996 draft (draft1996, robots2): every `%xx` is decoded except
        /// `%2F`, on both sides. The canonical form keeps `%2F`, `%25`, `%23`
        /// and `%00` encoded (upper-case hex) so that no decoded byte can be
        /// read as a separator, an escape or an end of path; a `%` that
        /// starts no escape becomes `%25`.
        Decode = 2 => "decode",
    }
}

named_enum! {
    /// How the agent's groups were chosen.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum Selection {
        /// Groups naming the agent.
        Named = 0 => "named",
        /// No group names the agent: the `*` groups.
        Global = 1 => "global",
        /// Neither: no rules apply.
        None = 2 => "none",
    }
}

named_enum! {
    /// Where a rule came from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum RuleOrigin {
        /// An Allow or Disallow line of the file.
        Line = 0 => "line",
        /// Google's `index.htm` rule: an Allow of `<dir>/index.htm…` also
        /// allows `<dir>/` exactly.
        IndexHtm = 1 => "index-htm",
        /// The implicit allow of the file's own path (RFC 9309 §2.2.2).
        RobotsTxt = 2 => "robots-txt",
    }
}

named_enum! {
    /// How a rule's pattern is matched against a path.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum PatternSyntax {
        /// RFC 9309: a prefix; `*` any run of bytes, a final `$` the end.
        Glob = 0 => "glob",
        /// A plain prefix, every byte literal (draft1996; robots2 "general").
        Prefix = 1 => "prefix",
        /// The whole path exactly, every byte literal (robots2 "explicit").
        Exact = 2 => "exact",
        /// A /bin/sh pattern over the whole path: `*`, `?`, `[...]` (robots2
        /// "wildcard").
        Shell = 3 => "wildcard",
    }
}

named_enum! {
    /// Why a rule outranks another: the dialect's resolution, named.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum RankClass {
        /// rfc9309: the longest pattern wins, Allow on ties.
        LongestMatch = 0 => "longest-match",
        /// draft1996 and robots2 1.0 rule sets: the first matching rule wins.
        FirstMatch = 1 => "first-match",
        /// robots2 2.0: an explicit Allow, above everything else.
        ExplicitAllow = 2 => "explicit-allow",
        /// robots2 2.0: a Disallow, below explicit Allows.
        Disallow = 3 => "disallow",
        /// robots2 2.0: a wildcard Allow, below Disallows.
        WildcardAllow = 4 => "wildcard-allow",
        /// robots2 2.0: a Disallow matching every path, the rule set's
        /// default, below everything.
        CatchAllDisallow = 5 => "catch-all-disallow",
        /// The implicit allow of the file's own path, above every rule.
        SelfPath = 6 => "self-path",
        /// acap: no rank; the narrowest scope among the matching rules
        /// decides (ACAP 2.4.5), resolved per automaton state.
        NarrowestScope = 7 => "narrowest-scope",
    }
}

named_enum! {
    /// What the compiler read a non-rule record's key as.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum RecordKind {
        /// `Sitemap` (global).
        Sitemap = 0 => "sitemap",
        /// `Crawl-delay`.
        CrawlDelay = 1 => "crawl-delay",
        /// `Request-rate` (robots 2.0).
        RequestRate = 2 => "request-rate",
        /// `Visit-time` (robots 2.0).
        VisitTime = 3 => "visit-time",
        /// `Robot-version` (robots 2.0).
        RobotVersion = 4 => "robot-version",
        /// `Comment` (robots 2.0).
        Comment = 5 => "comment",
        /// `Content-Signal` (AI usage preferences).
        ContentSignal = 6 => "content-signal",
        /// `Host` (Yandex, global).
        Host = 7 => "host",
        /// `Clean-param` (Yandex, global).
        CleanParam = 8 => "clean-param",
        /// Any other key.
        Unknown = 9 => "unknown",
        /// `License` (RSL 1.0, global: the site's license URL).
        License = 10 => "license",
    }
}

named_enum! {
    /// What a crawler wants to do with a resource: an ACAP 1.0 usage type
    /// (§2.5; the number is its channel in an `acap` policy), or an
    /// AI-usage preference channel (`search`, `train-ai`, `ai-input`:
    /// docs/dialects.md, "AI-usage preferences"), which is tri-state
    /// ([`crate::Policy::preference`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[repr(u8)]
    pub enum Usage {
        /// Fetch the resource (2.5.1); the only usage of the other dialects.
        Crawl = 0 => "crawl",
        /// Follow the links it contains (2.5.2).
        Follow = 1 => "follow",
        /// Create index entries for it (2.5.3).
        Index = 2 => "index",
        /// Preserve a copy (2.5.4).
        Preserve = 3 => "preserve",
        /// Present it in any way (2.5.5); a rule on `present` concerns every
        /// `present-*` usage too.
        Present = 4 => "present",
        /// Present the original, fetched at presentation time.
        PresentOriginal = 5 => "present-original",
        /// Present a preserved copy of the latest crawl.
        PresentCurrentcopy = 6 => "present-currentcopy",
        /// Present a preserved copy of an older crawl.
        PresentOldcopy = 7 => "present-oldcopy",
        /// Present a snippet of the latest crawl.
        PresentSnippet = 8 => "present-snippet",
        /// Present a thumbnail of the latest crawl.
        PresentThumbnail = 9 => "present-thumbnail",
        /// Present a snippet of an older crawl.
        PresentOldsnippet = 10 => "present-oldsnippet",
        /// Present a thumbnail of an older crawl.
        PresentOldthumbnail = 11 => "present-oldthumbnail",
        /// Present a link to the resource.
        PresentLink = 12 => "present-link",
        /// Any usage not explicitly permitted (2.5.6).
        Other = 13 => "other",
        /// AI-usage preferences: listing in search results with a link and
        /// excerpts (aipref vocab-07 `search`, Content-Signal `search`).
        Search = 14 => "search",
        /// AI-usage preferences: training or fine-tuning AI models (vocab-07
        /// `train-ai`, Content-Signal `ai-train`, training tokens).
        TrainAi = 15 => "train-ai",
        /// AI-usage preferences: input to an AI system at answer time
        /// (Content-Signal `ai-input`).
        AiInput = 16 => "ai-input",
    }
}

impl Usage {
    /// Number of ACAP usage types (the channels of an `acap` policy).
    pub const ACAP_COUNT: usize = 14;

    /// The ACAP 1.0 usage types, `crawl` to `other`, in channel order.
    pub const ACAP: &'static [Usage] = &[
        Usage::Crawl,
        Usage::Follow,
        Usage::Index,
        Usage::Preserve,
        Usage::Present,
        Usage::PresentOriginal,
        Usage::PresentCurrentcopy,
        Usage::PresentOldcopy,
        Usage::PresentSnippet,
        Usage::PresentThumbnail,
        Usage::PresentOldsnippet,
        Usage::PresentOldthumbnail,
        Usage::PresentLink,
        Usage::Other,
    ];

    /// The AI-usage preference channels, in channel order after `crawl`.
    pub const SIGNALS: &'static [Usage] = &[Usage::Search, Usage::TrainAi, Usage::AiInput];

    /// The channel names of a policy that answers crawl alone.
    pub const CRAWL_CHANNELS: &'static [&'static str] = &names::<1>(&[Usage::Crawl]);

    /// The channel names of an `acap` policy: [`Usage::ACAP`]'s.
    pub const ACAP_CHANNELS: &'static [&'static str] = &names::<{ Usage::ACAP_COUNT }>(Usage::ACAP);

    /// The channel names of a policy with AI-usage preference channels:
    /// crawl, then [`Usage::SIGNALS`]'.
    pub const SIGNAL_CHANNELS: &'static [&'static str] = &names::<4>(&[
        Usage::Crawl,
        Usage::SIGNALS[0],
        Usage::SIGNALS[1],
        Usage::SIGNALS[2],
    ]);

    /// Is this an AI-usage preference channel (tri-state)?
    pub fn is_signal(self) -> bool {
        self as u8 >= Usage::Search as u8
    }

    /// Is this `present` or one of its sub-types (a rule on `present`
    /// concerns all of them)?
    pub fn is_present(self) -> bool {
        (Usage::Present as u8..=Usage::PresentLink as u8).contains(&(self as u8))
    }
}

/// The names of the first `N` of `usages` (a channel list, at compile time).
const fn names<const N: usize>(usages: &[Usage]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = usages[i].name();
        i += 1;
    }
    out
}

/// A set of [`Usage`]s: one bit per usage (what [`crate::Policy::usages`]
/// answers: the usages allowed for a URL).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UsageSet(u32);

impl UsageSet {
    /// No usage.
    pub const EMPTY: UsageSet = UsageSet(0);
    /// Every usage.
    pub const ALL: UsageSet = UsageSet((1 << Usage::ALL.len()) - 1);

    /// The set with the bits of `bits` (bits past the last usage dropped).
    pub const fn from_bits(bits: u32) -> UsageSet {
        UsageSet(bits & UsageSet::ALL.0)
    }

    /// One bit per usage, bit `n` for the usage numbered `n`.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Does the set hold `usage`?
    pub const fn contains(self, usage: Usage) -> bool {
        self.0 & (1 << usage as u8) != 0
    }

    /// The set with `usage` added.
    #[must_use]
    pub const fn with(self, usage: Usage) -> UsageSet {
        UsageSet(self.0 | (1 << usage as u8))
    }

    /// Number of usages in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Is the set empty?
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The usages in the set, in channel order.
    pub fn iter(self) -> impl Iterator<Item = Usage> {
        Usage::ALL
            .iter()
            .copied()
            .filter(move |&u| self.contains(u))
    }
}

/// Every usage's answer for one URL, from one walk
/// ([`crate::Policy::usage_states`]): allowed, disallowed, or neither
/// (unknown: nothing stated; only the AI-usage preference channels, and
/// ACAP usages of a policy of another dialect, can be unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UsageStates {
    /// The usages allowed.
    pub allowed: UsageSet,
    /// The usages disallowed.
    pub disallowed: UsageSet,
}

impl UsageStates {
    /// The usages neither allowed nor disallowed.
    pub fn unknown(self) -> UsageSet {
        UsageSet(UsageSet::ALL.0 & !(self.allowed.0 | self.disallowed.0))
    }
}

impl FromIterator<Usage> for UsageSet {
    fn from_iter<I: IntoIterator<Item = Usage>>(iter: I) -> UsageSet {
        iter.into_iter().fold(UsageSet::EMPTY, UsageSet::with)
    }
}

/// A daily window in UTC minutes since midnight, both ends inclusive
/// (`0600-0845` is 360..=525). `start > end` wraps past midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    /// First minute of the window, `< 1440`.
    pub start: u16,
    /// Last minute of the window, `< 1440`.
    pub end: u16,
}

impl TimeWindow {
    /// Does the window contain `minute` (minutes since midnight UTC)?
    pub fn contains(&self, minute: u16) -> bool {
        if self.start <= self.end {
            (self.start..=self.end).contains(&minute)
        } else {
            minute >= self.start || minute <= self.end
        }
    }
}

/// A request rate: `documents` per `seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Documents per period.
    pub documents: u32,
    /// Period length in seconds.
    pub seconds: u32,
}

impl Rate {
    /// Is `self` slower (fewer documents per normalised second) than `other`?
    /// Compared exactly: `d1 / s1 < d2 / s2` ⇔ `d1 * s2 < d2 * s1`.
    pub fn is_slower_than(&self, other: &Rate) -> bool {
        u64::from(self.documents) * u64::from(other.seconds)
            < u64::from(other.documents) * u64::from(self.seconds)
    }

    /// Seconds to wait between two documents.
    pub fn seconds_per_document(&self) -> f64 {
        f64::from(self.seconds) / f64::from(self.documents.max(1))
    }
}

/// A robots 2.0 `Request-rate` record: a rate, optionally only within a
/// daily window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestRate {
    /// The rate.
    pub rate: Rate,
    /// When it applies; `None`: all day.
    pub window: Option<TimeWindow>,
    /// 1-based source line.
    pub line: u32,
}

#[cfg(test)]
mod tests {
    use super::Usage;

    /// The channel lists are the usages' names, in channel order.
    #[test]
    fn channel_lists_are_usage_names() {
        let names = |us: &[Usage]| us.iter().map(|u| u.name()).collect::<Vec<_>>();
        assert_eq!(Usage::CRAWL_CHANNELS, ["crawl"]);
        assert_eq!(Usage::ACAP_CHANNELS, names(Usage::ACAP));
        assert_eq!(Usage::ACAP_CHANNELS.len(), Usage::ACAP_COUNT);
        let (crawl, signals) = Usage::SIGNAL_CHANNELS.split_at(1);
        assert_eq!(
            (crawl, signals),
            (Usage::CRAWL_CHANNELS, &names(Usage::SIGNALS)[..])
        );
    }
}
