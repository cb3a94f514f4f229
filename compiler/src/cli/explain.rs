//! `robocc explain`: why a URL is allowed or not.

use super::compile::compile_source;
use super::SourceArgs;
use clap::Args;
use robocc_compiler::dialect::{semantics, RankClass};
use robocc_compiler::glob::Glob;
use robocc_compiler::reference::matched_path;
use robocc_compiler::ruleset::RuleSet;
use robocc_engine::artifact::{ArchivedRuleInfo, ArchivedRuleOrigin, ArchivedUrlMode};
use robocc_engine::{Dialect, Policy, UrlMode};
use std::path::PathBuf;

#[derive(Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// A compiled policy (instead of --robots).
    #[arg(long, value_name = "FILE", conflicts_with = "robots")]
    policy: Option<PathBuf>,
    /// Time of day (UTC, HH:MM) for Visit-time and Request-rate advice;
    /// default: now.
    #[arg(long, value_name = "HH:MM")]
    at: Option<String>,
    /// URLs to explain.
    #[arg(value_name = "URL", required = true)]
    url: Vec<String>,
}

/// Minutes after midnight UTC: `--at`, or the clock.
fn minute_of_day(at: Option<&str>) -> Result<u16, String> {
    match at {
        Some(t) => robocc_compiler::parse_window(format!("{t}-{t}").as_bytes())
            .map(|w| w.start)
            .ok_or_else(|| format!("--at {t:?}: expected HH:MM (UTC)")),
        None => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            Ok(((secs / 60) % 1440) as u16)
        }
    }
}

pub fn run(args: &ExplainArgs) -> Result<i32, String> {
    let bytes;
    // The rules with their rank classes, when compiled here.
    let mut rule_set = None;
    let policy = match &args.policy {
        Some(p) => Policy::open(p).map_err(|e| e.to_string())?,
        None => {
            let compiled = compile_source(&args.source)?.0;
            bytes = compiled.to_bytes();
            rule_set = Some(compiled.rule_set);
            Policy::from_bytes(&bytes).map_err(|e| e.to_string())?
        }
    };
    let h = policy.header();
    let mode = match h.url_mode {
        ArchivedUrlMode::Google => UrlMode::Google,
        ArchivedUrlMode::Rfc => UrlMode::Rfc,
        ArchivedUrlMode::Decode => UrlMode::Decode,
    };
    let minute = minute_of_day(args.at.as_deref())?;
    let lines: Vec<String> = policy
        .metadata()
        .group_lines
        .iter()
        .map(|l| l.to_string())
        .collect();
    let groups = match h.selection.as_str() {
        "named" => format!(
            "groups naming {} (starting at line {})",
            h.agent,
            lines.join(", ")
        ),
        "global" => format!(
            "the * group (starting at line {}): no group names {}",
            lines.join(", "),
            h.agent
        ),
        _ => format!(
            "none: no group names {} and there is no * group, so every URL is allowed",
            h.agent
        ),
    };
    for url in &args.url {
        let v = policy.check(url.as_bytes());
        println!("{url}");
        println!(
            "  verdict: {}",
            if v.allowed { "allow" } else { "disallow" }
        );
        println!(
            "  matched path: {} ({})",
            String::from_utf8_lossy(&matched_path(url.as_bytes(), mode)),
            match mode {
                UrlMode::Google => "google mode: as given",
                UrlMode::Rfc => "rfc mode: normalised",
                UrlMode::Decode => "draft mode: %xx decoded except %2F",
            }
        );
        match v.rule.and_then(|id| Some((id, policy.rule(id)?))) {
            Some((id, r)) => {
                let kind = if r.allow { "Allow" } else { "Disallow" };
                let why = match r.origin {
                    ArchivedRuleOrigin::Line => format!(
                        "line {}: {kind}: {} ({} pattern)",
                        r.line,
                        r.pattern,
                        r.syntax.to_native().name()
                    ),
                    ArchivedRuleOrigin::IndexHtm => format!(
                        "line {}: Allow of an index.htm page also allows its directory: {}",
                        r.line, r.pattern
                    ),
                    ArchivedRuleOrigin::RobotsTxt => {
                        format!("{} is always allowed", h.self_path)
                    }
                };
                let class = rank_class(rule_set.as_ref(), id, r, h.dialect.to_native(), mode);
                let strength = match class {
                    RankClass::LongestMatch => format!("priority {}", r.priority),
                    class => class_reason(class).to_string(),
                };
                println!("  deciding rule: {why} ({strength})");
            }
            None => println!("  deciding rule: none matched; allowed by default"),
        }
        println!("  groups: {groups}");
        if let Some(ms) = policy.metadata().crawl_delay_ms.as_ref() {
            println!("  crawl-delay: {} s", ms.to_native() as f64 / 1000.0);
        }
        let m = policy.metadata();
        if !m.visit_times.is_empty() || !m.request_rates.is_empty() {
            let advice = policy.visit_at_minute(minute);
            println!(
                "  at {:02}:{:02} UTC: {}{}",
                minute / 60,
                minute % 60,
                if advice.allowed_now {
                    "inside the visit window"
                } else {
                    "outside every Visit-time window: do not visit now"
                },
                match advice.rate {
                    Some(r) => format!(
                        "; request rate {}/{} s (one document every {:.0} s)",
                        r.documents,
                        r.seconds,
                        r.seconds_per_document()
                    ),
                    None => String::new(),
                }
            );
        }
        for c in m.comments.iter() {
            println!("  comment: {c}");
        }
    }
    Ok(0)
}

/// The deciding rule's rank class: as the compiler stored it on the rule;
/// for a policy file (whose rules keep no class), as the dialect's ranking
/// classifies the rule the file describes.
fn rank_class(
    rule_set: Option<&RuleSet>,
    id: u32,
    r: &ArchivedRuleInfo,
    dialect: Dialect,
    mode: UrlMode,
) -> RankClass {
    if let Some(rule) = rule_set.and_then(|s| s.rules.get(id as usize)) {
        return rule.class;
    }
    let syntax = r.syntax.to_native();
    let glob = Glob::parse(r.pattern.as_bytes(), syntax, mode);
    let self_path = r.origin == ArchivedRuleOrigin::RobotsTxt;
    semantics(dialect)
        .ranking
        .class(self_path, r.allow, syntax, &glob)
}

/// Why a rule of a first-match or robots2 policy won, in words.
fn class_reason(class: RankClass) -> &'static str {
    match class {
        RankClass::LongestMatch => "the longest matching pattern",
        RankClass::FirstMatch => "the first matching rule",
        RankClass::ExplicitAllow => "an explicit Allow: the strongest rule",
        RankClass::WildcardAllow => "a wildcard Allow: no Disallow matched",
        RankClass::CatchAllDisallow => "the catch-all Disallow: no other rule matched",
        RankClass::Disallow => "a Disallow: beats every wildcard Allow",
        RankClass::SelfPath => "the file's own path: above every rule",
    }
}
