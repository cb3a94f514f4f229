//! `robocc check`: URLs → `allow`/`disallow` lines (or JSON objects).

use crate::artifacts::Stores;
use crate::compile::{
    compile_each_reading, compile_error, compile_reading, read_source, read_source_each, report,
};
use crate::diagnostics::{error, printable};
use crate::options::{
    parse_usage_arg, CompileFlags, Format, Given, Input, PolicyInput, ShowDiagnostics, UrlArgs,
    UrlWording, UsageArg,
};
use crate::EXIT_USAGE;
use clap::{Args, ValueEnum};
use robocc_compiler::Checker;
use robocc_engine::{
    Dialect, HostSource, Policy, PolicyFile, RuleId, RuleRef, Store, StoreSet, Usage, Verdict,
};
use robocc_page::tdmrep::Tdmrep;
use std::io::{BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten, next_help_heading = "Input (one of)")]
    input: Input,
    /// With --store: the verdict for hosts the store does not have. A URL
    /// without a host (a.ex/p, /p) is unknown whatever this says.
    #[arg(
        long,
        value_enum,
        default_value = "unknown",
        help_heading = "Input (one of)"
    )]
    missing: Missing,
    #[command(flatten)]
    urls: UrlArgs<CheckUrls>,
    /// Output: `text` (verdict<TAB>URL) or `json` (one object per line).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    /// The usage to answer for: crawl; an AI-usage preference channel
    /// (search, train-ai, ai-input: allow, disallow or unknown); an ACAP
    /// usage type (follow, index, preserve, present, present-snippet, …,
    /// other: --dialect acap only; other dialects refuse them); or
    /// `all`: then each URL gets one line per usage the policy's dialect
    /// speaks of, `VERDICT<TAB>USAGE<TAB>URL` (JSON: a `usages` object).
    #[arg(long, value_name = "USAGE", default_value = "crawl", value_parser = parse_usage_arg,
          help_heading = "Output")]
    usage: UsageArg,
    /// The site's `/.well-known/tdmrep.json` (TDMRep): for `--usage
    /// train-ai` (or `all`), the first rule matching each URL is one more
    /// statement (tdm-reservation 1: disallow, 0: allow; any disallow wins).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    tdmrep: Option<PathBuf>,
    /// Exit with 1 when any URL is disallowed.
    #[arg(long, help_heading = "Output")]
    fail_on_disallow: bool,
    /// At the end, say on stderr how many verdicts were allow, disallow and
    /// unknown (one per URL, or per URL and usage with `--usage all`).
    #[arg(long, help_heading = "Output")]
    summary: bool,
    #[command(flatten)]
    diagnostics: ShowDiagnostics,
    #[command(flatten)]
    flags: CompileFlags,
}

/// `check`'s URLs: any bytes, a line of `--urls` as it is but for its line
/// break; standard input by default.
struct CheckUrls;

impl UrlWording for CheckUrls {
    const URL: &'static str = "URLs to check (echoed byte for byte in the text output; one \
                               with a line break needs --format json)";
    const URLS: &'static str = "Read URLs from FILE (- for stdin), one per line; blank lines \
                                and lines whose first non-blank character is # are skipped. \
                                Only the line break (LF or CRLF) is removed: other whitespace \
                                is part of the URL, as in an argument. Default: the URL \
                                arguments, else stdin";
    const REQUIRED_UNLESS: &'static [&'static str] = &[];
}

#[derive(Clone, Copy, ValueEnum)]
enum Missing {
    /// Hosts not in the store are allowed.
    Allow,
    /// Hosts not in the store are disallowed.
    Disallow,
    /// Print `unknown` for them.
    Unknown,
}

/// Where verdicts come from.
enum Source {
    Policy(PolicyFile),
    /// `--robots`: the rules answer at once, the compiled policy once the
    /// checks have paid for compiling (a few URLs never pay for it).
    Robots(Box<Checker>),
    Store(Store),
    /// A store set: each URL is judged by the shard of its host.
    Set(StoreSet),
}

impl Source {
    /// The dialect its policies answer in.
    fn dialect(&self) -> Dialect {
        match self {
            Source::Policy(p) => p.policy().header().dialect,
            Source::Robots(c) => c.dialect(),
            Source::Store(s) => s.dialect(),
            Source::Set(s) => s.dialect(),
        }
    }

    /// One site's policy (`--robots`, `--policy`), not a store's.
    fn is_site(&self) -> bool {
        matches!(self, Source::Policy(_) | Source::Robots(_))
    }
}

/// Does the checker's rule set hold AI-usage preference statements (its
/// channels are crawl and the preferences)? Only those can be dropped by a
/// compile.
fn states_preferences(c: &Checker) -> bool {
    c.dialect() == Dialect::Rfc9309 && c.channels().len() > 1
}

/// What [`verdict_of`] reads: one site's compiled policy, or the checker
/// of its robots.txt while it interprets (they answer alike).
#[derive(Clone, Copy)]
enum Site<'a> {
    Compiled(Policy<'a>),
    Rules(&'a Checker),
}

impl<'a> Site<'a> {
    fn of(c: &'a Checker) -> Site<'a> {
        match c.compiled() {
            Some(file) => Site::Compiled(file.policy()),
            None => Site::Rules(c),
        }
    }

    fn dialect(self) -> Dialect {
        match self {
            Site::Compiled(p) => p.header().dialect,
            Site::Rules(c) => c.dialect(),
        }
    }

    fn check_usage(self, url: &[u8], usage: Usage) -> Verdict {
        match self {
            Site::Compiled(p) => p.check_usage(url, usage),
            Site::Rules(c) => c.check_usage(url, usage),
        }
    }

    fn preference(self, url: &[u8], usage: Usage) -> Option<Verdict> {
        match self {
            Site::Compiled(p) => p.preference(url, usage),
            Site::Rules(c) => c.preference(url, usage),
        }
    }

    fn rule(self, id: RuleId) -> Option<RuleRef<'a>> {
        match self {
            Site::Compiled(p) => p.rule(id),
            Site::Rules(c) => c.rule(id),
        }
    }

    /// acap: rule `id`'s qualifiers, a word each (as the artifact keeps
    /// them: joined by spaces).
    fn qualifiers(self, id: RuleId) -> Option<Vec<String>> {
        let words: Vec<&str> = match self {
            Site::Compiled(p) => p.acap_rule(id)?.qualifiers.split_whitespace().collect(),
            Site::Rules(c) => (c.acap_rule(id)?.qualifiers.iter())
                .flat_map(|q| q.split_whitespace())
                .collect(),
        };
        Some(words.into_iter().map(str::to_string).collect())
    }
}

/// With a store: what it says of a URL's host.
#[derive(Clone, Copy)]
enum HostOutcome {
    /// The host's record: why it has its policy, and the status given.
    Found(HostSource, u16),
    /// The store does not have the host (`--missing` decides).
    NotInStore,
    /// No host can be read from the URL (`a.ex/p`, `https:a.ex/p`, `/p`):
    /// unknown, whatever `--missing` says.
    NoHost,
}

impl HostOutcome {
    /// The JSON `source`.
    fn source(self) -> &'static str {
        match self {
            HostOutcome::Found(s, _) => s.name(),
            HostOutcome::NotInStore => "not in store",
            HostOutcome::NoHost => "no host",
        }
    }

    /// The JSON `status`.
    fn status(self) -> Option<u16> {
        match self {
            HostOutcome::Found(_, status) => Some(status),
            _ => None,
        }
    }
}

/// A verdict as printed.
struct Judged {
    /// `Some(allowed)`, or unknown.
    allowed: Option<bool>,
    /// The deciding rule's line in the host's robots.txt.
    line: Option<u32>,
    /// The deciding rule's pattern as written and its origin (`line`, or
    /// one of robocc's implicit rules), as Python's `Verdict` has them.
    rule: Option<(String, &'static str)>,
    /// acap: the deciding rule's qualifiers (`None` for other dialects);
    /// whether no single narrowest rule existed (prohibited).
    qualifiers: Option<Vec<String>>,
    undecidable: bool,
    /// With a store: what it says of the URL's host.
    host: Option<HostOutcome>,
    /// `--tdmrep`: the rule (from 1) that decided, when the file decided.
    tdmrep_rule: Option<usize>,
}

/// `train-ai` with `--tdmrep`: the first tdmrep.json rule matching the URL
/// is a statement beside robots.txt's (docs/dialects.md, "AI-usage
/// preferences at page level"): any disallow wins (robots.txt's line named
/// first), else any allow. It speaks on a URL the agent may not crawl too:
/// the crawlability rule is robots.txt's own (attach-05 §3.1).
fn with_tdmrep(mut j: Judged, tdmrep: &Tdmrep, url: &[u8]) -> Judged {
    let Some((rule, reserved)) = tdmrep
        .lookup(url)
        .and_then(|r| Some((r.index + 1, r.reservation?)))
    else {
        return j;
    };
    let decides = match (j.allowed, reserved) {
        (Some(false), _) => false,
        (_, true) => true,
        (Some(true), false) => false,
        (None, false) => true,
    };
    if decides {
        j.allowed = Some(!reserved);
        j.line = None;
        j.rule = None;
        j.tdmrep_rule = Some(rule);
    }
    j
}

fn judge(src: &Source, url: &[u8], usage: Usage, missing: Missing) -> Result<Judged, String> {
    // A build stores a Unicode name only in its IDNA form: look that up.
    let key_url = robocc_store::idna_lookup_url(url);
    let lookup = key_url.as_deref().map_or(url, str::as_bytes);
    Ok(judge_at(src, lookup, url, usage)?.unwrap_or_else(|| absent(url, missing)))
}

/// What [`judge`] answers for a URL whose host a lookup as written did not
/// find (the batch's misses): the verdict by its host's IDNA form when the
/// host is a Unicode name, else [`absent`], without a second lookup.
fn judge_missed(
    src: &Source,
    url: &[u8],
    usage: Usage,
    missing: Missing,
) -> Result<Judged, String> {
    let found = match robocc_store::idna_lookup_url(url) {
        Some(key_url) => judge_at(src, key_url.as_bytes(), url, usage)?,
        None => None,
    };
    Ok(found.unwrap_or_else(|| absent(url, missing)))
}

/// The verdict for `url` by the policy of the host of `lookup` (`url`
/// itself, or its host's IDNA form); `None` when no store holds that host.
fn judge_at(
    src: &Source,
    lookup: &[u8],
    url: &[u8],
    usage: Usage,
) -> Result<Option<Judged>, String> {
    match src {
        Source::Policy(p) => Ok(Some(verdict_of(
            Site::Compiled(p.policy()),
            url,
            usage,
            true,
            None,
        ))),
        Source::Robots(c) => Ok(Some(verdict_of(Site::of(c), url, usage, true, None))),
        Source::Store(s) => judge_store(s, lookup, url, usage),
        Source::Set(set) => match set.store_for(lookup).map_err(|e| e.to_string())? {
            Some(s) => judge_store(s, lookup, url, usage),
            None => Ok(None),
        },
    }
}

/// Whether `url` names a host a store could hold: one `store build` would
/// accept (`a..example`, `[]` or port 0 it refuses, so no store has them,
/// and they are no host a store lacks).
fn has_host(url: &[u8]) -> bool {
    matches!(robocc_store::url_host_key(url), Some(Ok(_)))
}

/// A URL whose host the store does not have, or that has no host: never
/// read as a host the store lacks, so `--missing` does not apply to it.
fn absent(url: &[u8], missing: Missing) -> Judged {
    let (allowed, host) = if !has_host(url) {
        (None, HostOutcome::NoHost)
    } else {
        (self::missing(missing), HostOutcome::NotInStore)
    };
    Judged {
        allowed,
        line: None,
        rule: None,
        qualifiers: None,
        undecidable: false,
        host: Some(host),
        tdmrep_rule: None,
    }
}

fn judge_store(
    s: &Store,
    lookup: &[u8],
    url: &[u8],
    usage: Usage,
) -> Result<Option<Judged>, String> {
    let Some(host) = s.host(lookup).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let p = s.policy(host.policy).map_err(|e| e.to_string())?;
    let has_lines = host.source.has_lines();
    Ok(Some(verdict_of(
        Site::Compiled(p),
        url,
        usage,
        has_lines,
        Some((host.source, host.status)),
    )))
}

fn verdict_of(
    p: Site<'_>,
    url: &[u8],
    usage: Usage,
    has_lines: bool,
    host: Option<(HostSource, u16)>,
) -> Judged {
    let v = if usage.is_signal() {
        // Tri-state: nothing stated is `unknown`, not a default.
        p.preference(url, usage)
    } else {
        Some(p.check_usage(url, usage))
    };
    judged(p, v, usage, has_lines, host)
}

/// The verdict `v` on `usage` (`None`: a preference nothing stated) as
/// printed.
fn judged(
    p: Site<'_>,
    v: Option<Verdict>,
    usage: Usage,
    has_lines: bool,
    host: Option<(HostSource, u16)>,
) -> Judged {
    // acap's qualifiers and undecidable conflicts are its usage types'.
    let acap = p.dialect() == Dialect::Acap && !usage.is_signal();
    let id = v.and_then(|v| v.rule);
    let rule = id.and_then(|r| p.rule(r));
    Judged {
        allowed: v.map(|v| v.allowed),
        line: rule.and_then(|r| r.source_line()).filter(|_| has_lines),
        rule: rule.filter(|_| has_lines).map(deciding),
        qualifiers: acap.then(|| id.and_then(|r| p.qualifiers(r)).unwrap_or_default()),
        undecidable: acap && v.is_some_and(|v| !v.allowed && v.rule.is_none()),
        host: host.map(|(s, status)| HostOutcome::Found(s, status)),
        tdmrep_rule: None,
    }
}

/// Each agent's verdict on `usage` for `url` from `p`, walked once: the
/// agents `wanted` (all of the policy's when empty), in that order.
fn each_verdict_of(
    p: Policy<'_>,
    url: &[u8],
    usage: Usage,
    wanted: &[String],
    has_lines: bool,
    host: Option<(HostSource, u16)>,
) -> Result<Vec<(String, Judged)>, String> {
    let names: Vec<&str> = p.agents().collect();
    let n = names.len();
    let verdicts: Vec<Option<Verdict>> = if usage.is_signal() {
        let mut v = vec![None; n];
        p.preference_each(url, usage, &mut v);
        v
    } else {
        let mut v = vec![
            Verdict {
                allowed: true,
                rule: None
            };
            n
        ];
        p.check_each_usage(url, usage, &mut v);
        v.into_iter().map(Some).collect()
    };
    let picked: Vec<usize> = if wanted.is_empty() {
        (0..n).collect()
    } else {
        wanted
            .iter()
            .map(|w| {
                names
                    .iter()
                    .position(|a| a.eq_ignore_ascii_case(w))
                    .ok_or_else(|| {
                        format!(
                            "{}: the policy answers {}, not {w}",
                            String::from_utf8_lossy(url),
                            names.join(", ")
                        )
                    })
            })
            .collect::<Result<_, _>>()?
    };
    let site = Site::Compiled(p);
    Ok(picked
        .into_iter()
        .map(|i| {
            let j = judged(site, verdicts[i], usage, has_lines, host);
            (names[i].to_string(), j)
        })
        .collect())
}

/// A store's policy for the host of `lookup`, whether it has source lines,
/// and what the store says of the host; `None` when it lacks the host.
type Found<'s> = Option<(Policy<'s>, bool, Option<(HostSource, u16)>)>;

fn store_policy<'s>(s: &'s Store, lookup: &[u8]) -> Result<Found<'s>, String> {
    let Some(host) = s.host(lookup).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let p = s.policy(host.policy).map_err(|e| e.to_string())?;
    Ok(Some((
        p,
        host.source.has_lines(),
        Some((host.source, host.status)),
    )))
}

/// [`judge`] for each agent (`--each-agent`, or an each-agent policy or
/// store): a host the store lacks, or a URL without one, is answered alike
/// for every agent wanted (`*` when none was named).
fn judge_each(
    src: &Source,
    url: &[u8],
    usage: Usage,
    missing: Missing,
    wanted: &[String],
) -> Result<Vec<(String, Judged)>, String> {
    let key_url = robocc_store::idna_lookup_url(url);
    let lookup = key_url.as_deref().map_or(url, str::as_bytes);
    let found = match src {
        Source::Policy(p) => Some((p.policy(), true, None)),
        // `--robots` with --each-agent is compiled first (`run`).
        Source::Robots(c) => match c.compiled() {
            Some(f) => return each_verdict_of(f.policy(), url, usage, wanted, true, None),
            None => return Err("--each-agent needs a compiled policy".into()),
        },
        Source::Store(s) => store_policy(s, lookup)?,
        Source::Set(set) => match set.store_for(lookup).map_err(|e| e.to_string())? {
            Some(s) => store_policy(s, lookup)?,
            None => None,
        },
    };
    match found {
        Some((p, has_lines, host)) => each_verdict_of(p, url, usage, wanted, has_lines, host),
        None => {
            let star = ["*".to_string()];
            let names = if wanted.is_empty() { &star[..] } else { wanted };
            Ok(names
                .iter()
                .map(|a| (a.clone(), absent(url, missing)))
                .collect())
        }
    }
}

/// The deciding rule's pattern as written and its origin's name.
fn deciding(r: robocc_engine::RuleRef<'_>) -> (String, &'static str) {
    (r.pattern_text().into_owned(), r.origin.name())
}

/// One JSON object per URL; a URL that is not UTF-8 also comes as its exact
/// bytes (`url_bytes`), since a JSON string cannot hold them.
fn json_line(url: &[u8], word: &str, j: &Judged) -> serde_json::Value {
    let mut obj = serde_json::json!({
        "url": String::from_utf8_lossy(url),
        "verdict": word,
        "rule_line": j.line,
    });
    rule_fields(&mut obj, j);
    usage_fields(&mut obj, j);
    if std::str::from_utf8(url).is_err() {
        obj["url_bytes"] = serde_json::json!(url);
    }
    if let Some(host) = j.host {
        obj["source"] = serde_json::json!(host.source());
        obj["status"] = serde_json::json!(host.status());
    }
    obj
}

/// One JSON object for a URL answered several times (`key`: `usages` or
/// `agents`, each answer under its name), with the URL's exact bytes when
/// it is not UTF-8 and what a store says of its host.
fn url_object(
    url: &[u8],
    key: &str,
    answers: serde_json::Map<String, serde_json::Value>,
    host: Option<HostOutcome>,
) -> serde_json::Value {
    let mut obj = serde_json::json!({ "url": String::from_utf8_lossy(url) });
    obj[key] = serde_json::Value::Object(answers);
    if std::str::from_utf8(url).is_err() {
        obj["url_bytes"] = serde_json::json!(url);
    }
    if let Some(host) = host {
        obj["source"] = serde_json::json!(host.source());
        obj["status"] = serde_json::json!(host.status());
    }
    obj
}

/// A URL's JSON object whose `key` entry, when `answers` is given, keeps
/// their order (serde_json's maps sort their keys).
struct InOrder<'a> {
    obj: &'a serde_json::Value,
    key: &'a str,
    answers: Option<&'a [(&'a str, serde_json::Value)]>,
}

/// A JSON object of `(name, value)` pairs, in their order.
struct Pairs<'a>(&'a [(&'a str, serde_json::Value)]);

impl serde::Serialize for Pairs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl serde::Serialize for InOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (Some(answers), Some(obj)) = (self.answers, self.obj.as_object()) else {
            return self.obj.serialize(s);
        };
        let mut m = s.serialize_map(Some(obj.len()))?;
        for (k, v) in obj {
            if k == self.key {
                m.serialize_entry(k, &Pairs(answers))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// `pattern` and `origin` of the deciding rule (`null` when none decided).
fn rule_fields(obj: &mut serde_json::Value, j: &Judged) {
    obj["pattern"] = serde_json::json!(j.rule.as_ref().map(|r| &r.0));
    obj["origin"] = serde_json::json!(j.rule.as_ref().map(|r| r.1));
}

/// acap: the deciding rule's qualifiers and the undecidable flag.
fn usage_fields(obj: &mut serde_json::Value, j: &Judged) {
    if let Some(q) = &j.qualifiers {
        obj["qualifiers"] = serde_json::json!(q);
    }
    if j.undecidable {
        obj["undecidable"] = serde_json::json!(true);
    }
    if let Some(rule) = j.tdmrep_rule {
        obj["tdmrep_rule"] = serde_json::json!(rule);
    }
}

fn word_of(allowed: Option<bool>) -> &'static str {
    match allowed {
        Some(true) => "allow",
        Some(false) => "disallow",
        None => "unknown",
    }
}

/// Says on stderr when a compiled policy did not read its whole robots.txt.
fn note_cut_policy(path: &std::path::Path, p: &Policy<'_>) {
    let h = p.header();
    if h.max_bytes != 0 && h.source_len > h.max_bytes {
        diag!(
            "{}: warning: compiled from the first {} of {} bytes of its robots.txt (the \
             parse limit): rules past that were not read",
            path.display(),
            h.max_bytes,
            h.source_len
        );
    }
}

/// The URL a `--urls` line holds: the line without its line break (`\n`
/// or `\r\n`), and nothing else removed, so that it is judged and echoed
/// as the same URL given as an argument (whitespace is part of a URL as
/// Google's `GetPathParamsQuery` reads it).
fn url_of_line(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(text) => text.strip_suffix(b"\r").unwrap_or(text),
        // The last line, without a break: a lone `\r` is not one.
        None => line,
    }
}

/// Whether `p` allows each of `urls` ([`Policy::check_batch`]).
fn batch_allowed(p: &Policy<'_>, urls: &[&[u8]]) -> Vec<Option<bool>> {
    let mut v = vec![
        Verdict {
            allowed: true,
            rule: None
        };
        urls.len()
    ];
    p.check_batch(urls, &mut v);
    v.iter().map(|v| Some(v.allowed)).collect()
}

/// URLs per [`Policy::check_batch`] / [`Store::check_batch`] call.
const BATCH: usize = 1024;

/// The longest line `--urls` reads (browsers take URLs of up to 2 MB): a
/// longer one ends the command instead of filling memory (`/dev/zero`).
const MAX_URL_LINE: u64 = 2 << 20;

/// Prints verdicts. Text output goes through the engine's batch API, a
/// frontier batch of URLs at a time; JSON names lines and host sources, so
/// it judges URL by URL.
struct Printer<'s, W: Write> {
    source: &'s Source,
    usage: UsageArg,
    missing: Missing,
    json: bool,
    out: W,
    any_disallowed: bool,
    /// A store policy refused (the run stops with it).
    failure: Option<String>,
    /// `--tdmrep`, for train-ai.
    tdmrep: Option<&'s Tdmrep>,
    /// The pending batch: URL bytes end to end, and where each ends.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// With a store: URLs without a host so far (the first few are named
    /// on stderr, the rest counted at the end).
    no_host: u64,
    /// Whether a URL with raw non-ASCII bytes in its path was said.
    raw_said: bool,
    /// Verdicts printed: allow, disallow, unknown.
    counts: [u64; 3],
    /// Each agent answered separately: the agents asked for (`--each-agent`;
    /// empty: every agent the policy answers), or `None`: one verdict.
    each: Option<Vec<String>>,
}

impl<W: Write> Printer<'_, W> {
    fn count(&mut self, allowed: Option<bool>) {
        self.any_disallowed |= allowed == Some(false);
        self.counts[match allowed {
            Some(true) => 0,
            Some(false) => 1,
            None => 2,
        }] += 1;
    }
}

/// URLs without a host named on stderr, one line each; the rest are
/// counted.
const NO_HOST_NAMED: u64 = 3;

impl<W: Write> Printer<'_, W> {
    /// One usage's verdict for one URL (`--tdmrep` applied).
    fn judge_with_tdmrep(&mut self, url: &[u8], usage: Usage) -> std::io::Result<Judged> {
        let judged = judge(self.source, url, usage, self.missing).map_err(|e| self.fail(e))?;
        Ok(match self.tdmrep {
            Some(t) if usage == Usage::TrainAi => with_tdmrep(judged, t, url),
            _ => judged,
        })
    }

    fn url(&mut self, url: &[u8]) -> std::io::Result<()> {
        if !self.raw_said
            && robocc_engine::url::path_parts(url)
                .rest
                .iter()
                .any(|&b| b >= 0x80)
        {
            self.raw_said = true;
            diag!(
                "robocc: warning: {}: its path holds raw non-ASCII bytes, which a policy that \
                 reads URLs as given (rfc9309's default, Google's reading; acap) matches byte \
                 for byte, while it matches a pattern's non-ASCII bytes as %XX: a rule written \
                 with them matches the URL percent-encoded, as clients send it, not this form \
                 (check the encoded URL, or compile with --url-mode rfc; said once)",
                printable(url)
            );
        }
        if !self.source.is_site() && !has_host(url) {
            self.no_host += 1;
            if self.no_host <= NO_HOST_NAMED {
                diag!(
                    "robocc: warning: {}: no valid host to look up in the store (a store is \
                     keyed by host: write the URL with its scheme and host, e.g. \
                     https://HOST/PATH): unknown",
                    String::from_utf8_lossy(url)
                );
            }
        }
        if let (Some(_), UsageArg::One(u)) = (&self.each, self.usage) {
            return self.each_agent(url, u);
        }
        match (self.usage, self.json) {
            (UsageArg::One(u), true) => {
                let judged = self.judge_with_tdmrep(url, u)?;
                return self.line(url, judged.allowed, Some(&judged));
            }
            (UsageArg::One(Usage::Crawl), false) => {}
            (UsageArg::One(u), false) => {
                let judged = self.judge_with_tdmrep(url, u)?;
                return self.line(url, judged.allowed, None);
            }
            (UsageArg::All, _) => return self.all_usages(url),
        }
        self.bytes.extend_from_slice(url);
        self.ends.push(self.bytes.len());
        if self.ends.len() == BATCH {
            self.flush_batch()
        } else {
            Ok(())
        }
    }

    /// Judges and prints the pending batch.
    fn flush_batch(&mut self) -> std::io::Result<()> {
        let bytes = std::mem::take(&mut self.bytes);
        let ends = std::mem::take(&mut self.ends);
        let mut start = 0;
        let urls: Vec<&[u8]> = ends
            .iter()
            .map(|&e| {
                let u = &bytes[start..e];
                start = e;
                u
            })
            .collect();
        let allowed: Vec<Option<bool>> = match self.source {
            Source::Policy(p) => batch_allowed(&p.policy(), &urls),
            Source::Robots(c) => match c.compiled() {
                Some(p) => batch_allowed(&p.policy(), &urls),
                // URL by URL: the checks may pay for compiling on the way.
                None => urls.iter().map(|u| Some(c.check(u).allowed)).collect(),
            },
            Source::Store(_) | Source::Set(_) => {
                let mut v = vec![None; urls.len()];
                let result = match self.source {
                    Source::Store(s) => s.check_batch(&urls, &mut v),
                    Source::Set(s) => s.check_batch(&urls, &mut v),
                    Source::Policy(_) | Source::Robots(_) => Ok(()),
                };
                // No verdict: a Unicode host is looked up in its IDNA form,
                // else --missing (not in the store) or unknown (no host).
                let (src, m) = (self.source, self.missing);
                let none = |u: &[u8]| judge_missed(src, u, Usage::Crawl, m).map(|j| j.allowed);
                let count = result.as_ref().map_or_else(|e| e.index, |()| urls.len());
                let mut allowed = Vec::with_capacity(count);
                for (u, v) in urls.iter().zip(&v).take(count) {
                    match v.map_or_else(|| none(u), |v| Ok(Some(v.allowed))) {
                        Ok(a) => allowed.push(a),
                        Err(e) => {
                            // What the URLs before this one get is printed.
                            for (u, a) in urls.iter().zip(allowed) {
                                self.line(u, a, None)?;
                            }
                            return Err(self.fail(e));
                        }
                    }
                }
                if let Err(e) = result {
                    // What the URLs before the failing one get is printed.
                    for (u, a) in urls.iter().zip(allowed) {
                        self.line(u, a, None)?;
                    }
                    return Err(self.fail(crate::artifacts::kind_hint(e.error)));
                }
                allowed
            }
        };
        for (u, a) in urls.iter().zip(allowed) {
            self.line(u, a, None)?;
        }
        // Keep the buffers' capacity for the next batch.
        self.bytes = bytes;
        self.bytes.clear();
        self.ends = ends;
        self.ends.clear();
        Ok(())
    }

    /// `--usage all`: every usage's verdict for one URL.
    fn all_usages(&mut self, url: &[u8]) -> std::io::Result<()> {
        let mut judged = Vec::with_capacity(Usage::ALL.len());
        for &u in UsageArg::All.usages(self.source.dialect()) {
            let j = self.judge_with_tdmrep(url, u)?;
            judged.push((u.name().to_string(), j));
        }
        self.named(url, "usages", &judged)
    }

    /// Each agent's verdict on `usage` for one URL (`--tdmrep` applied).
    fn each_agent(&mut self, url: &[u8], usage: Usage) -> std::io::Result<()> {
        let wanted = self.each.as_deref().unwrap_or_default();
        let mut judged =
            judge_each(self.source, url, usage, self.missing, wanted).map_err(|e| self.fail(e))?;
        if let (Some(t), Usage::TrainAi) = (self.tdmrep, usage) {
            judged = judged
                .into_iter()
                .map(|(a, j)| (a, with_tdmrep(j, t, url)))
                .collect();
        }
        self.named(url, "agents", &judged)
    }

    /// Several verdicts for one URL, each under its name (a usage or an
    /// agent): `VERDICT<TAB>NAME<TAB>URL` lines, or one JSON object whose
    /// `key` holds them.
    fn named(&mut self, url: &[u8], key: &str, judged: &[(String, Judged)]) -> std::io::Result<()> {
        for (_, j) in judged {
            self.count(j.allowed);
        }
        if self.json {
            let answers: Vec<(&str, serde_json::Value)> = judged
                .iter()
                .map(|(name, j)| {
                    let mut o = serde_json::json!({
                        "verdict": word_of(j.allowed),
                        "rule_line": j.line,
                    });
                    rule_fields(&mut o, j);
                    usage_fields(&mut o, j);
                    (name.as_str(), o)
                })
                .collect();
            let host = judged.first().and_then(|(_, j)| j.host);
            // Agents in the order given (`--each-agent`, or the policy's);
            // usages as ever, by name.
            let ordered = key == "agents";
            let sorted = if ordered {
                serde_json::Map::new()
            } else {
                answers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect()
            };
            let obj = url_object(url, key, sorted, host);
            let line = InOrder {
                obj: &obj,
                key,
                answers: ordered.then_some(&answers[..]),
            };
            let text = serde_json::to_string(&line).map_err(std::io::Error::other)?;
            return writeln!(self.out, "{text}");
        }
        for (name, j) in judged {
            self.out.write_all(word_of(j.allowed).as_bytes())?;
            self.out.write_all(b"\t")?;
            self.out.write_all(name.as_bytes())?;
            self.out.write_all(b"\t")?;
            self.out.write_all(url)?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn fail(&mut self, e: String) -> std::io::Error {
        self.failure = Some(e);
        std::io::Error::other("store policy refused")
    }

    fn line(
        &mut self,
        url: &[u8],
        allowed: Option<bool>,
        judged: Option<&Judged>,
    ) -> std::io::Result<()> {
        self.count(allowed);
        let word = word_of(allowed);
        match judged {
            Some(j) => writeln!(self.out, "{}", json_line(url, word, j)),
            None => {
                self.out.write_all(word.as_bytes())?;
                self.out.write_all(b"\t")?;
                self.out.write_all(url)?;
                self.out.write_all(b"\n")
            }
        }
    }
}

/// The verdict printed for a host the store does not have.
fn missing(m: Missing) -> Option<bool> {
    match m {
        Missing::Allow => Some(true),
        Missing::Disallow => Some(false),
        Missing::Unknown => None,
    }
}

/// `--tdmrep FILE`, refused where it cannot apply: it is one site's file
/// (not a store's), and it speaks of the `train-ai` channel of an rfc9309
/// policy only.
fn tdmrep_for(path: &std::path::Path, source: &Source, usage: UsageArg) -> Result<Tdmrep, String> {
    if !source.is_site() {
        return Err(
            "--tdmrep is one site's tdmrep.json: check that site with --robots FILE or \
                    --policy FILE, not --store"
                .into(),
        );
    }
    let dialect = source.dialect();
    if dialect != robocc_engine::Dialect::Rfc9309 {
        return Err(format!(
            "--tdmrep answers the train-ai channel, which a {} policy does not have: drop \
             --tdmrep, or check an rfc9309 policy",
            dialect.name()
        ));
    }
    if !matches!(usage, UsageArg::All | UsageArg::One(Usage::TrainAi)) {
        return Err(
            "--tdmrep speaks of train-ai only: add --usage train-ai (or --usage all)".into(),
        );
    }
    crate::input::read_tdmrep(path)
}

pub fn run(args: &CheckArgs, given: &Given) -> Result<i32, String> {
    let (url_args, list) = (&args.urls.args, args.urls.file.as_deref());
    let urls_from_stdin = url_args.is_empty() && list.is_none_or(|p| p.as_os_str() == "-");
    let Input {
        site: PolicyInput { robots, policy },
        store,
    } = &args.input;
    if urls_from_stdin && robots.as_deref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(
            "--robots - reads the robots.txt from standard input, which then cannot hold the \
             URLs too: give them as arguments or with --urls FILE"
                .into(),
        );
    }
    if given.has("missing") && store.is_none() {
        return Err("--missing applies to --store only (hosts the store does not have)".into());
    }
    let source = match (robots, policy, store) {
        (_, Some(path), _) => {
            let file = args.flags.open_policy(path, given)?;
            note_cut_policy(path, &file.policy());
            Source::Policy(file)
        }
        (_, None, Some(path)) => match args.flags.open_stores(path, given)? {
            Stores::One(store) => Source::Store(store),
            Stores::Set(set) => Source::Set(set),
        },
        (Some(path), None, None) if args.flags.each_agent_given() => {
            let reading = read_source_each(path, &args.flags, given)?;
            let compiled = compile_each_reading(path, &reading)?;
            report(path, &compiled.diagnostics, false, args.diagnostics.verbose);
            Source::Policy(PolicyFile::from_slice(&compiled.to_bytes()).map_err(|e| e.to_string())?)
        }
        (Some(path), None, None) => {
            let reading = read_source(path, &args.flags, given)?;
            let checker = Checker::new(&reading.body, &reading.agent, &reading.options)
                .map_err(|e| compile_error(path, &e))?;
            if states_preferences(&checker) {
                // Whether compiling keeps the AI-usage statements or drops
                // them to fit the budget (answering their channels
                // unknown, with a warning) only lowering tells: answered
                // as compiled, as ever.
                let src = compile_reading(path, reading)?;
                src.report(false, args.diagnostics.verbose);
                Source::Policy(src.policy_file()?)
            } else {
                // Answered from the rules: a few URLs do not pay for
                // compiling (the checker compiles once its checks have
                // cost as much), and answer as the compiled policy would.
                report(path, checker.diagnostics(), false, args.diagnostics.verbose);
                Source::Robots(Box::new(checker))
            }
        }
        (None, None, None) => {
            return Err(
                "nothing to check against: give --robots FILE (with --agent), --policy FILE \
                 or --store FILE|DIR"
                    .into(),
            )
        }
    };
    // An ACAP usage asked of a policy that has none would be "allowed by
    // default" for every URL: refused, with what to type.
    let dialect = source.dialect();
    if let UsageArg::One(u) = args.usage {
        if u != Usage::Crawl && !u.is_signal() && dialect != robocc_engine::Dialect::Acap {
            return Err(format!(
                "--usage {u} is an ACAP usage type, and this {} policy speaks of crawl and the \
                 AI-usage preferences (search, train-ai, ai-input) only: compile with \
                 --dialect acap (or --dialect auto) to read ACAP records",
                dialect.name()
            ));
        }
    }
    // A preference channel asked of a dialect that never carries one: every
    // answer is unknown; said once, so that it is not read as "nothing
    // stated in the file".
    if let UsageArg::One(u) = args.usage {
        if u.is_signal() && dialect != robocc_engine::Dialect::Rfc9309 {
            diag!(
                "robocc: note: AI-usage preferences (Content-Usage, Content-Signal, training \
                 tokens) are read for the rfc9309 dialect only: this {} policy answers \
                 unknown for {u} on every URL",
                dialect.name()
            );
        }
    }
    // Each agent answered separately: asked for, or what the policy is.
    let each = match &source {
        _ if args.flags.each_agent_given() => Some(
            args.flags
                .each_agents(Some(dialect))?
                .iter()
                .map(str::to_string)
                .collect(),
        ),
        Source::Policy(p) if p.policy().is_each_agent() => Some(Vec::new()),
        // A store's policies are all of one kind: its first says which.
        Source::Store(s)
            if s.policy_ids()
                .next()
                .and_then(|i| s.policy(i).ok())
                .is_some_and(|p| p.is_each_agent()) =>
        {
            Some(Vec::new())
        }
        _ => None,
    };
    if each.is_some() && matches!(args.usage, UsageArg::All) {
        return Err(
            "--usage all answers one agent: with several agents answered each, give one \
             usage (--usage crawl, train-ai, …)"
                .into(),
        );
    }
    let tdmrep = match &args.tdmrep {
        Some(path) => Some(tdmrep_for(path, &source, args.usage)?),
        None => None,
    };
    args.urls.refuse_empty()?;
    // The text output is one line per URL, the URL echoed as given: a line
    // break in an argument would split it (a --urls line cannot hold one).
    if args.format == Format::Text {
        if let Some(i) = url_args.iter().position(|u| u.contains('\n')) {
            return Err(format!(
                "URL argument {} contains a line break, which the text output (one line \
                 per URL, echoed as given) cannot hold: percent-encode it (%0A), or use \
                 --format json",
                i + 1
            ));
        }
    }
    let stdout = std::io::stdout();
    let mut printer = Printer {
        raw_said: false,
        counts: [0; 3],
        source: &source,
        usage: args.usage,
        missing: args.missing,
        json: args.format == Format::Json,
        out: BufWriter::with_capacity(1 << 16, stdout.lock()),
        any_disallowed: false,
        failure: None,
        tdmrep: tdmrep.as_ref(),
        bytes: Vec::new(),
        ends: Vec::new(),
        no_host: 0,
        each,
    };
    let from_stdin = list.is_none_or(|p| p.as_os_str() == "-");
    let io_result = if list.is_none() && !url_args.is_empty() {
        url_args
            .iter()
            .try_for_each(|u| printer.url(u.as_bytes()))
            .and_then(|()| printer.flush_batch())
    } else {
        let reader: Box<dyn Read> = match list {
            Some(path) if !from_stdin => Box::new(std::fs::File::open(path).map_err(|e| {
                // `--urls https://…` (as clap suggests for `--url`): say
                // where a URL goes.
                let shown = path.display().to_string();
                if shown.contains("://") && !path.exists() {
                    format!(
                        "--urls takes a file of URLs, one per line (or - for standard \
                         input), and {shown} is no file: give URLs as arguments instead \
                         (robocc check … {shown})"
                    )
                } else {
                    format!("cannot read URL list {shown}: {e}")
                }
            })?),
            _ => {
                let stdin = std::io::stdin();
                if stdin.is_terminal() {
                    diag!("robocc: reading URLs from stdin, one per line (Ctrl-D ends)");
                }
                Box::new(stdin)
            }
        };
        // Streams: a batch of lines in memory at a time, whatever the
        // file's size.
        let mut reader = BufReader::with_capacity(1 << 16, reader);
        let mut line = Vec::new();
        let mut number = 0u64;
        loop {
            number += 1;
            match robocc_compiler::input::read_line(&mut reader, MAX_URL_LINE, &mut line) {
                Ok(false) => break printer.flush_batch(),
                Ok(true) => {
                    let url = url_of_line(&line);
                    // Blank lines and comment lines (first non-blank
                    // character `#`) are skipped.
                    if url.trim_ascii_start().first().is_some_and(|&b| b != b'#') {
                        if let Err(e) = printer.url(url) {
                            break Err(e);
                        }
                    }
                    // No more input at hand (a terminal, or a program
                    // that waits for answers): answer what was read.
                    if reader.buffer().is_empty() {
                        if let Err(e) = printer.flush_batch().and_then(|()| printer.out.flush()) {
                            break Err(e);
                        }
                    }
                }
                Err(e) => {
                    // Answer what was read before the error.
                    let _ = printer.flush_batch().and_then(|()| printer.out.flush());
                    let from = match list {
                        Some(path) if !from_stdin => format!("URL list {}", path.display()),
                        _ => "URLs from standard input".to_string(),
                    };
                    if e.kind() == std::io::ErrorKind::FileTooLarge {
                        error(&format!(
                            "{from}, line {number}: {e} (not a list of URLs, one per line?)"
                        ));
                    } else {
                        error(&format!("cannot read {from}: {e}"));
                    }
                    return Ok(EXIT_USAGE);
                }
            }
        }
    };
    if printer.no_host > NO_HOST_NAMED {
        diag!(
            "robocc: warning: {} URLs without a host answered unknown (the first {NO_HOST_NAMED} \
             are named above)",
            printer.no_host
        );
    }
    if let Some(e) = printer.failure.take() {
        let _ = printer.out.flush();
        return Err(e);
    }
    if args.summary {
        let [allow, disallow, unknown] = printer.counts;
        diag!(
            "robocc: {} verdicts: {allow} allow, {disallow} disallow, {unknown} unknown",
            allow + disallow + unknown
        );
    }
    let code = i32::from(args.fail_on_disallow && printer.any_disallowed);
    match io_result.and_then(|()| printer.out.flush()) {
        Ok(()) => {}
        // A closed pipe (`| head`) is not an error: the URLs checked until
        // then still decide --fail-on-disallow.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(code),
        Err(e) => return Err(format!("cannot write to standard output: {e}")),
    }
    Ok(code)
}
