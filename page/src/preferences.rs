//! Stage 2b: AI-usage preferences at page level, beside robots.txt's
//! (docs/dialects.md, "AI-usage preferences at page level"): the
//! `Content-Usage` response header (aipref attach-05 §2, vocab-07 §6),
//! `noai` / `noimageai` (read by [`super::meta`] with the other
//! directives), and TDMRep's three levels — the site's `tdmrep.json`, the
//! `tdm-reservation` header, the `tdm-reservation` META tag — of which the
//! latest level that sets a value supersedes the others (TDMRep,
//! "Processing priority").

use super::Source;
use robocc_compiler::signals::{self, Syntax};
use robocc_engine::Usage;

/// What said a page-level preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalKind {
    /// A `Content-Usage` response header.
    ContentUsage,
    /// `noai` or `noimageai` in a Robots META tag or `X-Robots-Tag`.
    NoAi,
    /// TDMRep `tdm-reservation` (file, header or META).
    Tdmrep,
}

impl SignalKind {
    /// `content-usage`, `noai`, `tdmrep`.
    pub fn name(self) -> &'static str {
        match self {
            SignalKind::ContentUsage => "content-usage",
            SignalKind::NoAi => "noai",
            SignalKind::Tdmrep => "tdmrep",
        }
    }
}

/// One page-level statement of preference: every one read is kept, so that
/// a caller (and `robocc page --format json`) can list all that spoke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageSignal {
    /// `search`, `train-ai` or `ai-input`.
    pub usage: Usage,
    /// Allow or disallow.
    pub allowed: bool,
    /// What said it.
    pub kind: SignalKind,
    /// As written (`train-ai=n`, `noai`, `tdm-reservation: 1`).
    pub written: String,
    /// Where.
    pub source: Source,
    /// A TDMRep value that a later level replaced (file < header < META):
    /// listed, but it does not count.
    pub superseded: bool,
}

/// `tdm-reservation` as text: `1` reserved, `0` not; anything else is a
/// protocol error (`None`: unset).
pub(crate) fn tdm_reservation(value: &str) -> Option<bool> {
    match value.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// A `Content-Usage` field's statements `(usage, allowed, written)` and
/// notes on what states nothing.
pub(crate) type ContentUsage = (Vec<(Usage, bool, String)>, Vec<String>);

/// The statements of a `Content-Usage` field value (its lines joined with
/// `, ` first, as RFC 9651 §4.2 combines field lines): `(usage, allowed,
/// written)` per vocabulary label whose value is `y` or `n`, and the notes
/// for what states nothing. `Err` when the value is not a Dictionary: then
/// the field states nothing (vocab-07 §6.5.1).
pub(crate) fn content_usage(value: &str) -> Result<ContentUsage, ()> {
    let dict = signals::parse_dictionary(value.as_bytes()).ok_or(())?;
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (key, token) in dict {
        let Some(usage) = signals::label(Syntax::ContentUsage, key.as_bytes()) else {
            notes.push(format!(
                "label {key:?} is not in the vocabulary ({}): ignored (vocab-07 §6.4)",
                signals::labels(Syntax::ContentUsage)
            ));
            continue;
        };
        match token.as_deref() {
            Some("y") => out.push((usage, true, format!("{key}=y"))),
            Some("n") => out.push((usage, false, format!("{key}=n"))),
            _ => notes.push(format!(
                "{key}: the value is not y or n, so the preference is unknown (vocab-07 §6.5)"
            )),
        }
    }
    Ok((out, notes))
}

/// TDMRep's level of a statement's source, in processing order: the
/// site's file, then the response header, then the HTML META tag.
pub(crate) fn tdm_level(source: &Source) -> u8 {
    match source {
        Source::TdmrepFile { .. } => 0,
        Source::Header { .. } => 1,
        Source::Meta { .. } | Source::Class { .. } => 2,
    }
}

/// Marks the TDMRep statements that a later level supersedes: the latest
/// level with a value is the one that counts ("At every step, the absence
/// of `tdm-reservation` … MUST not reset current values").
pub(crate) fn supersede(signals: &mut [PageSignal]) {
    let tdm = |s: &PageSignal| s.kind == SignalKind::Tdmrep;
    let Some(last) = signals
        .iter()
        .filter(|s| tdm(s))
        .map(|s| tdm_level(&s.source))
        .max()
    else {
        return;
    };
    for s in signals.iter_mut().filter(|s| tdm(s)) {
        s.superseded = tdm_level(&s.source) < last;
    }
}

/// Keeps the `tdm-policy` qualifiers that count: those of the latest level
/// that gives one ("the values of `tdm-reservation` and `tdm-policy` found
/// [at a level] supercede previous values"), and none when the reservation
/// that counts is 0 ("TDM Agents SHOULD NOT process `tdm-policy` in this
/// case"). Run after [`supersede`].
pub(crate) fn tdm_policies(signals: &[PageSignal], qualifiers: &mut Vec<super::Qualifier>) {
    let level = |q: &super::Qualifier| q.source.as_ref().map_or(0, tdm_level);
    let is_policy = |q: &super::Qualifier| q.name == "tdm-policy";
    let not_reserved = signals
        .iter()
        .any(|s| s.kind == SignalKind::Tdmrep && !s.superseded && s.allowed);
    let latest = qualifiers.iter().filter(|q| is_policy(q)).map(level).max();
    qualifiers.retain(|q| !is_policy(q) || (!not_reserved && Some(level(q)) == latest));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_usage_values() {
        let (st, notes) = content_usage("train-ai=n, search=y, foo=n, search=?1").unwrap();
        // The last `search` counts: a boolean is no preference.
        assert_eq!(st, vec![(Usage::TrainAi, false, "train-ai=n".to_string())]);
        assert_eq!(notes.len(), 2);
        assert!(content_usage("Train-AI=n").is_err());
        assert_eq!(tdm_reservation(" 1 "), Some(true));
        assert_eq!(tdm_reservation("yes"), None);
    }
}
