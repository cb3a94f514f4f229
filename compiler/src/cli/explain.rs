//! `robocc explain`: why a URL is allowed or not.

use super::compile::compile_source;
use super::SourceArgs;
use clap::Args;
use robocc_compiler::reference::matched_path;
use robocc_engine::artifact::{ArchivedRuleOrigin, ArchivedUrlMode};
use robocc_engine::{Policy, UrlMode};
use std::path::PathBuf;

#[derive(Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// A compiled policy (instead of --robots).
    #[arg(long, value_name = "FILE", conflicts_with = "robots")]
    policy: Option<PathBuf>,
    /// URLs to explain.
    #[arg(value_name = "URL", required = true)]
    url: Vec<String>,
}

pub fn run(args: &ExplainArgs) -> Result<i32, String> {
    let bytes;
    let compiled;
    let policy = match &args.policy {
        Some(p) => Policy::open(p).map_err(|e| e.to_string())?,
        None => {
            compiled = compile_source(&args.source)?.0;
            bytes = compiled.to_bytes();
            Policy::from_bytes(&bytes).map_err(|e| e.to_string())?
        }
    };
    let h = policy.header();
    let mode = match h.url_mode {
        ArchivedUrlMode::Google => UrlMode::Google,
        ArchivedUrlMode::Rfc => UrlMode::Rfc,
    };
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
            "  matched path: {} ({} mode)",
            String::from_utf8_lossy(&matched_path(url.as_bytes(), mode)),
            if mode == UrlMode::Google {
                "google: as given"
            } else {
                "rfc: normalised"
            }
        );
        match v.rule.and_then(|r| policy.rule(r)) {
            Some(r) => {
                let kind = if r.allow { "Allow" } else { "Disallow" };
                let why = match r.origin {
                    ArchivedRuleOrigin::Line => format!("line {}: {kind}: {}", r.line, r.pattern),
                    ArchivedRuleOrigin::IndexHtm => format!(
                        "line {}: Allow of an index.htm page also allows its directory: {}",
                        r.line, r.pattern
                    ),
                    ArchivedRuleOrigin::RobotsTxt => {
                        "/robots.txt is always allowed (RFC 9309 §2.2.2)".to_string()
                    }
                };
                println!("  deciding rule: {why} (priority {})", r.priority);
            }
            None => println!("  deciding rule: none matched; allowed by default"),
        }
        println!("  groups: {groups}");
        if let Some(ms) = policy.metadata().crawl_delay_ms.as_ref() {
            println!("  crawl-delay: {} s", ms.to_native() as f64 / 1000.0);
        }
    }
    Ok(0)
}
