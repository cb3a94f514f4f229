//! `robocc page`: one fetched page's permissions per usage, over the site's
//! robots.txt policy (docs/dialects.md, "Page level").

use crate::compile::compile_source;
use crate::compile_flags::COMPILE_ONLY;
use crate::diagnostics::printable;
use crate::options::{flag, parse_usage_arg, CompileFlags, Format, Given, PolicyInput, UsageArg};
use clap::Args;
use robocc_engine::{Policy, PolicyFile, Usage};
use robocc_page::{
    combine, parse_date, Combined, Final, FinalSource, PageOptions, PageRules, Source,
};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct PageArgs {
    /// The fetched page (HTML: UTF-16 by its byte-order mark or zero bytes
    /// is decoded; any other encoding is read as bytes, UTF-8 assumed).
    #[arg(long, value_name = "PAGE.html", help_heading = "Page")]
    html: PathBuf,
    /// The response headers, raw `Name: value` lines (X-Robots-Tag,
    /// Content-Usage, tdm-reservation and tdm-policy are read, the first
    /// 1,000 such lines; a status line and other headers are skipped).
    #[arg(long, value_name = "HEADERS.txt", help_heading = "Page")]
    headers: Option<PathBuf>,
    /// The page's URL (checked against the site policy and `location=`;
    /// one with a line break needs --format json).
    #[arg(long, value_name = "URL", help_heading = "Page")]
    url: String,
    /// The site's `/.well-known/tdmrep.json` (TDMRep): its first rule
    /// matching --url is the first level of `tdm-reservation`, which the
    /// page's header and META supersede.
    #[arg(long, value_name = "FILE", help_heading = "Page")]
    tdmrep: Option<PathBuf>,
    /// The time to judge `unavailable_after` at (RFC 3339, e.g.
    /// 2026-11-23T20:00:00Z). Without it no date is past.
    #[arg(long, value_name = "RFC3339", help_heading = "Page")]
    now: Option<String>,
    #[command(flatten, next_help_heading = "Site policy (one of, optional)")]
    site: PolicyInput,
    /// The usage to answer for (crawl, follow, index, preserve, present,
    /// present-snippet, …, other; search, train-ai, ai-input): prints
    /// `VERDICT<TAB>URL` (a preference channel may say `unknown`). Default
    /// `all`: one `USAGE<TAB>VERDICT` line per usage.
    #[arg(long, value_name = "USAGE", value_parser = parse_usage_arg, help_heading = "Output")]
    usage: Option<UsageArg>,
    /// Output: `text`, or `json` (one object: deciding sources, qualifiers,
    /// element spans, findings).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    /// Print the page's findings on stderr (else a count).
    #[arg(short, long, help_heading = "Output")]
    verbose: bool,
    #[command(flatten)]
    flags: CompileFlags,
}

/// Headers `page` reads (the others are skipped as they are read).
const READ_HEADERS: &[&str] = &[
    "x-robots-tag",
    "content-usage",
    "tdm-reservation",
    "tdm-policy",
];

/// Header lines kept at most (a warning says how many more were skipped):
/// memory stays bounded by what is read, not by the file.
const MAX_HEADERS: usize = 1_000;

/// Unreadable header lines named one by one at most (then counted).
const MAX_BAD_LINES_SHOWN: usize = 10;

/// `HEADERS.txt`: (file line, name, value) per header `page` reads
/// (`READ_HEADERS`, at most `MAX_HEADERS`); a status line, blank lines,
/// other headers and lines without `:` are skipped; a line starting with a
/// space or tab continues the previous value (obsolete line folding).
fn read_headers(path: &Path) -> Result<Vec<(usize, String, String)>, String> {
    let bytes = crate::input::read_file(path, "headers")?;
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<(usize, String, String)> = Vec::new();
    // Whether the last header line was kept (its continuations are).
    let mut kept = false;
    let (mut over, mut bad) = (0usize, 0usize);
    for (i, line) in text.lines().enumerate() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut().filter(|_| kept) {
                last.2.push(' ');
                last.2.push_str(line.trim());
            }
            continue;
        }
        kept = false;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with("HTTP/") {
            continue;
        }
        match line.split_once(':') {
            Some((n, v)) if !n.trim().is_empty() && !n.contains(' ') => {
                let n = n.trim();
                if !READ_HEADERS.iter().any(|h| n.eq_ignore_ascii_case(h)) {
                    continue;
                }
                if out.len() >= MAX_HEADERS {
                    over += 1;
                    continue;
                }
                out.push((i + 1, n.to_string(), v.trim().to_string()));
                kept = true;
            }
            _ => {
                bad += 1;
                if bad <= MAX_BAD_LINES_SHOWN {
                    diag!(
                        "{}:{}: warning: not a `Name: value` header line: skipped",
                        printable(path.as_os_str().as_encoded_bytes()),
                        i + 1
                    );
                }
            }
        }
    }
    if bad > MAX_BAD_LINES_SHOWN {
        diag!(
            "{}: warning: {} more lines that are not `Name: value` header lines skipped",
            printable(path.as_os_str().as_encoded_bytes()),
            bad - MAX_BAD_LINES_SHOWN
        );
    }
    if over > 0 {
        diag!(
            "{}: warning: more than {MAX_HEADERS} X-Robots-Tag, Content-Usage and TDMRep header \
             lines: the first {MAX_HEADERS} are read, {over} more are not (a prohibition among \
             them is not applied)",
            printable(path.as_os_str().as_encoded_bytes())
        );
    }
    Ok(out)
}

fn source_json(s: &Source, header_lines: &[usize]) -> serde_json::Value {
    match s {
        Source::Meta {
            offset,
            name,
            content,
        } => {
            serde_json::json!({"kind": "meta", "offset": offset, "name": name, "content": content})
        }
        Source::Header { index, name, value } => serde_json::json!({
            "kind": "header", "line": header_lines.get(*index), "name": name, "value": value
        }),
        Source::Class { offset, tag, token } => {
            serde_json::json!({"kind": "class", "offset": offset, "tag": tag, "class": token})
        }
        Source::TdmrepFile { rule, location } => {
            serde_json::json!({"kind": "tdmrep", "rule": rule + 1, "location": location})
        }
    }
}

fn word(allowed: bool) -> &'static str {
    if allowed {
        "allow"
    } else {
        "disallow"
    }
}

/// A final verdict's word: a preference channel nothing spoke of is
/// `unknown`.
fn final_word(f: &Final) -> &'static str {
    if f.known {
        word(f.allowed)
    } else {
        "unknown"
    }
}

fn json(
    args: &PageArgs,
    agent: &str,
    page: &PageRules,
    combined: &Combined,
    policy: Option<&Policy<'_>>,
    usages: &[Usage],
    header_lines: &[usize],
) -> serde_json::Value {
    let src = |s: &Option<Source>| s.as_ref().map(|s| source_json(s, header_lines));
    let mut map = serde_json::Map::new();
    for &u in usages {
        let f = combined.get(u);
        let d = page.decision(u);
        let mut o = serde_json::json!({
            "verdict": final_word(f),
            "from": match f.source {
                FinalSource::Page => "page",
                FinalSource::Site(_) => "robots.txt",
                FinalSource::Default => "default",
            },
            "page": d.verdict.name(),
            "page_element_aware": d.element_aware.name(),
            "reason": d.reason.name(),
            "source": src(&d.source),
            "written": d.written,
            "qualifiers": d.qualifiers,
        });
        if f.other_set_aside {
            // The page's `other` does not concern a usage robots.txt
            // permits explicitly: its verdict above is the page's alone.
            o["page_other_set_aside"] = serde_json::json!(true);
        }
        if let (Some(v), Some(p)) = (f.site, policy) {
            let line = v.rule.and_then(|r| p.rule(r)).and_then(|r| r.source_line());
            let mut r = serde_json::json!({"verdict": word(v.allowed), "rule_line": line});
            if let Some(a) = v.rule.and_then(|r| p.acap_rule(r)) {
                r["qualifiers"] =
                    serde_json::json!(a.qualifiers.split_whitespace().collect::<Vec<_>>());
            }
            if p.header().dialect == robocc_engine::Dialect::Acap && !v.allowed && v.rule.is_none()
            {
                r["undecidable"] = serde_json::json!(true);
            }
            o["robots_txt"] = r;
        } else if policy.is_some() && u.is_signal() {
            o["robots_txt"] = serde_json::json!({"verdict": "unknown"});
        }
        if u.is_signal() {
            // Every statement that spoke, the superseded TDMRep levels too.
            o["signals"] = serde_json::Value::Array(
                page.signals
                    .iter()
                    .filter(|s| s.usage == u)
                    .map(|s| {
                        serde_json::json!({
                            "kind": s.kind.name(), "verdict": word(s.allowed),
                            "written": s.written, "source": source_json(&s.source, header_lines),
                            "superseded": s.superseded
                        })
                    })
                    .collect(),
            );
        }
        map.insert(u.name().to_string(), o);
    }
    serde_json::json!({
        "url": args.url,
        "agent": agent,
        "crawl_prohibited_by_site": combined.crawl_prohibited_by_site,
        "acap_version": page.acap_version.map(|(n, m)| format!("{n}.{m}")),
        "usages": map,
        "qualifiers": page.qualifiers.iter().map(|q| serde_json::json!({
            "name": q.name, "value": q.value, "source": src(&q.source)
        })).collect::<Vec<_>>(),
        "elements": page.elements.iter().map(|e| serde_json::json!({
            "tag": e.tag, "start": e.start, "end": e.end, "closed": e.closed,
            "usage": e.usage.name(), "verdict": word(e.allowed)
        })).collect::<Vec<_>>(),
        "findings": page.diagnostics.iter().map(|d| serde_json::json!({
            "code": d.kind.name(), "message": d.message, "source": src(&d.source)
        })).collect::<Vec<_>>(),
    })
}

pub fn run(args: &PageArgs, given: &Given) -> Result<i32, String> {
    let purposes = args.flags.dialect.purpose.clone();
    let now = match &args.now {
        Some(s) => Some(parse_date(s).filter(|_| s.len() > 10).ok_or_else(|| {
            format!("--now {s:?} is not an RFC 3339 date-time (e.g. --now 2026-11-23T20:00:00Z)")
        })?),
        None => None,
    };
    if args.url.trim().is_empty() {
        return Err(
            "--url is empty: give the page's URL (e.g. --url https://example.com/a.html)".into(),
        );
    }
    // The text output is one line per answer, the URL echoed as given
    // (`--usage`): a line break would add a line of its own (as `check`).
    if args.format == Format::Text && args.url.contains(['\n', '\r']) {
        return Err(
            "--url contains a line break, which the text output (one line per answer, the \
             URL echoed as given) cannot hold: percent-encode it (%0A), or use --format json"
                .into(),
        );
    }
    // --purpose serves the page's ACAP purpose patterns too: with a policy
    // it is checked against the purposes the policy was compiled for.
    let mut site_given = given.clone();
    site_given.remove("purpose");
    let PolicyInput { robots, policy } = &args.site;
    let file: Option<PolicyFile> = match (robots, policy) {
        (Some(path), _) => {
            let src = compile_source(path, &args.flags, given)?;
            src.report(false, args.verbose);
            Some(src.policy_file()?)
        }
        (None, Some(path)) => {
            let file = args.flags.open_one_agent_policy(path, &site_given)?;
            let p = file.policy();
            let h = p.header();
            if given.has("purpose") && h.dialect == robocc_engine::Dialect::Acap {
                let compiled: Vec<&str> = p.meta().acap_purposes().collect();
                let mut want: Vec<&str> = purposes.iter().map(String::as_str).collect();
                let mut have = compiled.clone();
                want.sort_unstable();
                have.sort_unstable();
                if want != have {
                    return Err(format!(
                        "{} was compiled for purposes [{}], not [{}]: compile from the \
                         robots.txt (--robots FILE --dialect acap --purpose …), or give the \
                         policy's purposes",
                        path.display(),
                        compiled.join(", "),
                        purposes.join(", ")
                    ));
                }
            }
            Some(file)
        }
        (None, None) => {
            let site_only = COMPILE_ONLY
                .iter()
                .chain(&["dialect", "url_mode", "robots_txt", "data_txt", "max_bytes"])
                .find(|id| **id != "purpose" && given.has(id));
            if let Some(id) = site_only {
                return Err(format!(
                    "{} applies to the site's robots.txt: give it with --robots FILE, or drop {}",
                    flag(id),
                    flag(id)
                ));
            }
            None
        }
    };
    // A policy's dialect says which names its agent may have (MJ12bot in
    // draft1996); otherwise the flags' dialect does.
    let agent = match (robots, &file) {
        (None, Some(f)) => args.flags.agent_in(f.policy().header().dialect)?,
        _ => args.flags.agent()?,
    };
    let agent = CompileFlags::one_agent(agent, "a page's META tags and headers are")?;
    let html = crate::input::read_file(&args.html, "HTML")?;
    let headers = match &args.headers {
        Some(p) => read_headers(p)?,
        None => Vec::new(),
    };
    let header_lines: Vec<usize> = headers.iter().map(|h| h.0).collect();
    let tdmrep = match &args.tdmrep {
        Some(path) => Some(crate::input::read_tdmrep(path)?),
        None => None,
    };
    let page = PageRules::read(
        &html,
        headers.iter().map(|(_, n, v)| (n.as_str(), v.as_str())),
        &PageOptions {
            agent: &agent,
            url: &args.url,
            purposes: &purposes,
            now,
            head_only: false,
            tdmrep: tdmrep.as_ref(),
        },
    );
    let policy = file.as_ref().map(PolicyFile::policy);
    let combined = combine(&page, policy.as_ref(), args.url.as_bytes());
    let name = args.html.display();
    if combined.crawl_prohibited_by_site {
        let line = combined
            .get(Usage::Crawl)
            .site
            .and_then(|v| v.rule)
            .and_then(|r| policy.as_ref().and_then(|p| p.rule(r)))
            .map(|r| format!(" (robots.txt line {})", r.line))
            .unwrap_or_default();
        diag!(
            "robocc: {}: the site policy prohibits crawling this URL{line}: the page should \
             not have been fetched; crawl stays disallowed, the other usages are answered",
            printable(args.url.as_bytes())
        );
    }
    if args.verbose {
        for d in &page.diagnostics {
            let at = d
                .source
                .as_ref()
                .map(|s| format!(" [{}]", s.describe()))
                .unwrap_or_default();
            diag!("{name}: {}: {}{at}", d.kind.name(), d.message);
        }
    } else if !page.diagnostics.is_empty() && args.format == Format::Text {
        diag!(
            "{name}: {} findings (-v shows them; robocc lint --html {name} explains them)",
            page.diagnostics.len()
        );
    }
    let usage = args.usage.unwrap_or(UsageArg::All);
    let usages: Vec<Usage> = match usage {
        UsageArg::One(u) => vec![u],
        UsageArg::All => Usage::ALL.to_vec(),
    };
    if args.format == Format::Json {
        println!(
            "{}",
            json(
                args,
                &agent,
                &page,
                &combined,
                policy.as_ref(),
                &usages,
                &header_lines
            )
        );
        return Ok(0);
    }
    let mut out = String::new();
    match usage {
        UsageArg::One(u) => {
            out.push_str(final_word(combined.get(u)));
            out.push('\t');
            out.push_str(&args.url);
            out.push('\n');
        }
        UsageArg::All => {
            for &u in &usages {
                out.push_str(u.name());
                out.push('\t');
                out.push_str(final_word(combined.get(u)));
                out.push('\n');
            }
        }
    }
    crate::output::write_stdout(out.as_bytes())?;
    Ok(0)
}
