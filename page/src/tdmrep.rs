//! TDMRep's site-wide file, `/.well-known/tdmrep.json` (W3C TDM
//! Reservation Protocol, Final Community Group Report, "TDM File on the
//! Origin Server"): an array of rules `{location, tdm-reservation,
//! tdm-policy}`; for a URL the first rule whose `location` matches is the
//! one that counts ("The most specific match is the first in sequence").
//! What it means for the `train-ai` channel, and how the header and META
//! levels supersede it, is the page stage's (docs/dialects.md, "AI-usage
//! preferences at page level").
//!
//! Locations are matched as RFC 9309 patterns in URL mode `rfc` (`*`, a
//! final `$`, case-sensitive, percent-encoded unreserved characters decoded
//! on both sides before comparing): the report borrows robots.txt's
//! matching and its percent-decoding rule is RFC 9309 §2.2.2's.

use memchr::memmem;
use robocc_compiler::normalize::{normalize_path, normalize_pattern};
use std::fmt;

/// Largest file read (bytes); larger files are refused, not cut: a cut
/// would drop rules and change answers silently.
pub const MAX_TDMREP_BYTES: usize = 256 << 10;
/// Most rules read; past it the file is refused for the same reason.
pub const MAX_TDMREP_RULES: usize = 10_000;
/// Longest `location` kept as a pattern (bytes); a longer one is a finding
/// and its rule matches nothing (its matching would cost time per URL).
pub const MAX_LOCATION_BYTES: usize = 2_048;

/// One rule of the file.
#[derive(Clone, Debug)]
pub struct TdmRule {
    /// Position in the file's array, from 0.
    pub index: usize,
    /// `location` as written.
    pub location: String,
    /// `tdm-reservation`: `Some(true)` for 1 (rights reserved), `Some(false)`
    /// for 0, `None` for any other value (a protocol error: "TDM Agents MUST
    /// consider that `tdm-reservation` is unset").
    pub reservation: Option<bool>,
    /// `tdm-policy`, when a string.
    pub policy: Option<String>,
    /// `None`: the location cannot match (too long, not a path pattern)
    /// or cannot match first (an earlier rule has the same one).
    pattern: Option<Location>,
}

/// A location pattern, normalised: its literal runs between `*`s, and
/// whether a final `$` anchors it at the end.
#[derive(Clone, Debug)]
struct Location {
    runs: Vec<Vec<u8>>,
    anchored: bool,
    /// The bytes its runs have: a path without one of them cannot match
    /// (tested per rule in O(1) against the path's bytes, found once).
    bytes: ByteSet,
}

/// A set of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn of(s: &[u8]) -> ByteSet {
        let mut set = ByteSet::default();
        for &b in s {
            set.0[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        set
    }

    fn within(self, other: ByteSet) -> bool {
        self.0.iter().zip(other.0).all(|(a, b)| a & !b == 0)
    }
}

impl Location {
    fn new(normalised: &[u8]) -> Location {
        let (body, anchored) = match normalised.strip_suffix(b"$") {
            Some(b) => (b, true),
            None => (normalised, false),
        };
        Location {
            runs: body.split(|&b| b == b'*').map(<[u8]>::to_vec).collect(),
            anchored,
            bytes: ByteSet::of(
                &body
                    .iter()
                    .copied()
                    .filter(|&b| b != b'*')
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// Greedy: the first run at the start, each next run at its leftmost
    /// place after the previous one (leftmost leaves the most room for
    /// the rest), the last at the end when anchored. Linear in the path
    /// per run, however many wildcards a hostile file writes.
    fn matches(&self, path: &[u8]) -> bool {
        let (first, rest) = self.runs.split_first().expect("split yields a run");
        let Some(mut at) = path.starts_with(first).then_some(first.len()) else {
            return false;
        };
        let Some((last, middle)) = rest.split_last() else {
            return !self.anchored || at == path.len();
        };
        for run in middle {
            match memmem::find(&path[at..], run) {
                Some(i) => at += i + run.len(),
                None => return false,
            }
        }
        if self.anchored {
            path.len() - at >= last.len() && path.ends_with(last)
        } else {
            memmem::find(&path[at..], last).is_some()
        }
    }
}

/// A parsed `tdmrep.json`.
#[derive(Clone, Debug, Default)]
pub struct Tdmrep {
    rules: Vec<TdmRule>,
    /// What was read with a problem (rules skipped, values not 0 or 1),
    /// said for a site owner.
    pub findings: Vec<String>,
}

/// Why a `tdmrep.json` was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TdmrepError {
    /// Larger than [`MAX_TDMREP_BYTES`].
    TooLarge(usize),
    /// Not JSON (the parser's message).
    NotJson(String),
    /// JSON, but not an array of rules.
    NotArray,
    /// More than [`MAX_TDMREP_RULES`] rules.
    TooManyRules(usize),
}

impl fmt::Display for TdmrepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TdmrepError::TooLarge(n) => write!(
                f,
                "{n} bytes: larger than the {MAX_TDMREP_BYTES} bytes a tdmrep.json is read up to"
            ),
            TdmrepError::NotJson(e) => write!(f, "not JSON: {e}"),
            TdmrepError::NotArray => write!(
                f,
                "not a JSON array of rules (TDMRep: \"This file contains an array of JSON objects\")"
            ),
            TdmrepError::TooManyRules(n) => write!(
                f,
                "{n} rules: more than the {MAX_TDMREP_RULES} a tdmrep.json is read up to"
            ),
        }
    }
}

impl std::error::Error for TdmrepError {}

impl Tdmrep {
    /// Reads the file's bytes. A rule without a string `location` is
    /// skipped with a finding; a rule whose `tdm-reservation` is not 0 or 1
    /// is kept (it still matches first) with the reservation unset.
    pub fn parse(bytes: &[u8]) -> Result<Tdmrep, TdmrepError> {
        if bytes.len() > MAX_TDMREP_BYTES {
            return Err(TdmrepError::TooLarge(bytes.len()));
        }
        // A UTF-8 byte order mark is common in hand-written files.
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| TdmrepError::NotJson(e.to_string()))?;
        let serde_json::Value::Array(items) = value else {
            return Err(TdmrepError::NotArray);
        };
        if items.len() > MAX_TDMREP_RULES {
            return Err(TdmrepError::TooManyRules(items.len()));
        }
        let mut out = Tdmrep::default();
        let mut locations = std::collections::HashSet::new();
        for (index, item) in items.iter().enumerate() {
            let rule = index + 1;
            let Some(obj) = item.as_object() else {
                out.findings
                    .push(format!("rule {rule} is not a JSON object: skipped"));
                continue;
            };
            let Some(location) = obj.get("location").and_then(|l| l.as_str()) else {
                out.findings.push(format!(
                    "rule {rule} has no string \"location\" (mandatory): skipped"
                ));
                continue;
            };
            let reservation = match obj.get("tdm-reservation") {
                Some(v) => {
                    let read = match v {
                        serde_json::Value::Number(n) => n.as_u64(),
                        // Written as a string by some sites; the header
                        // and META carry the same value as text.
                        serde_json::Value::String(s) => s.trim().parse::<u64>().ok(),
                        _ => None,
                    };
                    match read {
                        Some(1) => Some(true),
                        Some(0) => Some(false),
                        _ => {
                            out.findings.push(format!(
                                "rule {rule}: tdm-reservation {v} is not 0 or 1: a protocol \
                                 error, so the reservation is unset where this rule matches"
                            ));
                            None
                        }
                    }
                }
                None => {
                    out.findings.push(format!(
                        "rule {rule} has no \"tdm-reservation\" (mandatory): the reservation \
                         is unset where this rule matches"
                    ));
                    None
                }
            };
            let pattern = if location.len() > MAX_LOCATION_BYTES {
                out.findings.push(format!(
                    "rule {rule}: location longer than {MAX_LOCATION_BYTES} bytes: it matches \
                     nothing"
                ));
                None
            } else if !location.starts_with(['/', '*']) {
                out.findings.push(format!(
                    "rule {rule}: location {location:?} does not start with '/' or '*': it \
                     matches no path"
                ));
                None
            } else {
                let normalised = normalize_pattern(location.as_bytes());
                // A location an earlier rule has is never the first match:
                // not tried (a hostile file repeats one wildcard location
                // thousands of times, each a scan of a long path).
                locations
                    .insert(normalised.clone())
                    .then(|| Location::new(&normalised))
            };
            out.rules.push(TdmRule {
                index,
                location: location.to_string(),
                reservation,
                policy: obj
                    .get("tdm-policy")
                    .and_then(|p| p.as_str())
                    .map(str::to_string),
                pattern,
            });
        }
        Ok(out)
    }

    /// The rules read, in file order.
    pub fn rules(&self) -> &[TdmRule] {
        &self.rules
    }

    /// The first rule whose location matches `url` (absolute or a path;
    /// its path and query are matched), if any.
    pub fn lookup(&self, url: &[u8]) -> Option<&TdmRule> {
        let path = normalize_path(&robocc_engine::url::path_parts(url).to_vec());
        let bytes = ByteSet::of(&path);
        self.rules.iter().find(|r| {
            r.pattern
                .as_ref()
                .is_some_and(|p| p.bytes.within(bytes) && p.matches(&path))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_example_first_match() {
        // The report's example file.
        let t = Tdmrep::parse(
            br#"[
              {"location": "/directory-a/", "tdm-reservation": 1},
              {"location": "/directory-b/html/", "tdm-reservation": 1,
               "tdm-policy": "https://provider.com/policies/policy.json"},
              {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}
            ]"#,
        )
        .unwrap();
        let at = |u: &str| t.lookup(u.as_bytes()).map(|r| (r.index, r.reservation));
        assert_eq!(
            at("https://x.com/directory-a/p.html"),
            Some((0, Some(true)))
        );
        assert_eq!(
            at("https://x.com/directory-b/images/a.jpg"),
            Some((2, Some(false)))
        );
        assert_eq!(at("https://x.com/directory-b/other"), None);
        // Unreserved characters percent-encoded match their plain form.
        assert_eq!(at("https://x.com/%64irectory-a/"), Some((0, Some(true))));
        // Case-sensitive.
        assert_eq!(at("https://x.com/Directory-a/"), None);
    }

    /// The naive reading of a pattern (backtracking over every `*`), for
    /// the greedy matcher to agree with.
    fn naive(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => true,
            Some((b'$', [])) => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| naive(rest, &s[i..])),
            Some((c, rest)) => s.first() == Some(c) && naive(rest, &s[1..]),
        }
    }

    proptest::proptest! {
        #[test]
        fn greedy_agrees_with_backtracking(
            p in "/[ab*]{0,8}\\$?",
            s in "/[ab]{0,12}",
        ) {
            let got = Location::new(p.as_bytes()).matches(s.as_bytes());
            proptest::prop_assert_eq!(got, naive(p.as_bytes(), s.as_bytes()), "{} {}", p, s);
        }
    }

    /// A hostile file (thousands of wildcard rules, each a scan of the
    /// path) costs a few scans of a long path, not one per rule; answers
    /// are unchanged.
    #[test]
    fn hostile_rules_cost_few_scans() {
        let file = |rules: &[String]| {
            let items: Vec<String> = rules
                .iter()
                .map(|l| format!(r#"{{"location":"{l}","tdm-reservation":1}}"#))
                .collect();
            Tdmrep::parse(format!("[{}]", items.join(",")).as_bytes()).unwrap()
        };
        let mut hostile: Vec<String> = vec!["/*a*a*b".into(); 3_000];
        hostile.extend((0..3_000).map(|i| format!("/*a*{i}")));
        hostile.push("/*a$".into());
        let hostile = file(&hostile);
        let one = file(&["/*a$".into()]);
        let url = format!("https://x.com/{}", "a".repeat(2 << 20));
        let time = |t: &Tdmrep| {
            let at = std::time::Instant::now();
            let r = t.lookup(url.as_bytes()).map(|r| r.index);
            (r, at.elapsed())
        };
        let (r1, t1) = time(&one);
        let (r, t) = time(&hostile);
        assert_eq!((r1, r), (Some(0), Some(6_000)));
        // Only an orders-of-magnitude regression fails (it took 6,000
        // scans of the path).
        assert!(
            t < t1 * 50 + std::time::Duration::from_millis(50),
            "{t:?} against {t1:?} for one rule"
        );
        // A repeated location still answers as its first.
        let t = file(&["/a*".into(), "/a*".into()]);
        assert_eq!(t.lookup(b"/ab").map(|r| r.index), Some(0));
    }

    #[test]
    fn bad_input() {
        assert_eq!(Tdmrep::parse(b"{}").unwrap_err(), TdmrepError::NotArray);
        assert!(matches!(
            Tdmrep::parse(b"[").unwrap_err(),
            TdmrepError::NotJson(_)
        ));
        let t = Tdmrep::parse(
            br#"[{"tdm-reservation": 1}, {"location": "/", "tdm-reservation": 2}, 3]"#,
        )
        .unwrap();
        assert_eq!(t.rules().len(), 1);
        assert_eq!(t.rules()[0].reservation, None);
        assert_eq!(t.findings.len(), 3);
    }
}
