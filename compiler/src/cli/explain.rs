//! `robocc explain`: why a URL is allowed or not.

use super::compile::compile_source;
use super::SourceArgs;
use clap::Args;
use robocc_compiler::reference::matched_path;
use robocc_engine::{PolicyFile, RankClass, RuleOrigin, RuleRef, Selection, UrlMode};
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
    let file = match &args.policy {
        Some(p) => PolicyFile::open(p).map_err(|e| e.to_string())?,
        None => {
            let compiled = compile_source(&args.source)?.0;
            PolicyFile::from_slice(&compiled.to_bytes()).map_err(|e| e.to_string())?
        }
    };
    let policy = file.policy();
    let h = policy.header();
    let mode = h.url_mode;
    let minute = minute_of_day(args.at.as_deref())?;
    let lines: Vec<String> = policy.meta().group_lines().map(|l| l.to_string()).collect();
    let groups = match h.selection {
        Selection::Named => format!(
            "groups naming {} (starting at line {})",
            h.agent,
            lines.join(", ")
        ),
        Selection::Global => format!(
            "the * group (starting at line {}): no group names {}",
            lines.join(", "),
            h.agent
        ),
        Selection::None => format!(
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
        match v.rule.and_then(|id| policy.rule(id)) {
            Some(r) => {
                let kind = if r.allow { "Allow" } else { "Disallow" };
                let why = match r.origin {
                    RuleOrigin::Line => format!(
                        "line {}: {kind}: {} ({} pattern)",
                        r.line,
                        r.pattern_text(),
                        r.syntax
                    ),
                    RuleOrigin::IndexHtm => format!(
                        "line {}: Allow of an index.htm page also allows its directory: {}",
                        r.line,
                        r.pattern_text()
                    ),
                    RuleOrigin::RobotsTxt => {
                        format!("{} is always allowed", h.self_path)
                    }
                };
                let strength = reason(&r);
                println!("  deciding rule: {why} ({strength})");
            }
            None => println!("  deciding rule: none matched; allowed by default"),
        }
        println!("  groups: {groups}");
        let m = policy.meta();
        if let Some(ms) = m.crawl_delay_ms() {
            println!("  crawl-delay: {} s", ms as f64 / 1000.0);
        }
        if m.visit_times().next().is_some() || m.request_rates().next().is_some() {
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
        for c in m.comments() {
            println!("  comment: {c}");
        }
    }
    Ok(0)
}

/// Why the deciding rule won, in words: the dialect's rank class, which
/// the compiler stored with the rule.
fn reason(r: &RuleRef<'_>) -> String {
    match r.class {
        RankClass::LongestMatch => {
            format!("priority {}: the longest matching pattern", r.pattern.len())
        }
        RankClass::FirstMatch => "the first matching rule".into(),
        RankClass::ExplicitAllow => "an explicit Allow: the strongest rule".into(),
        RankClass::Disallow => "a Disallow: beats every wildcard Allow".into(),
        RankClass::WildcardAllow => "a wildcard Allow: no Disallow matched".into(),
        RankClass::CatchAllDisallow => "the catch-all Disallow: no other rule matched".into(),
        RankClass::SelfPath => "the file's own path: above every rule".into(),
    }
}
