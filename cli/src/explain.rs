//! `robocc explain`: why a URL is allowed or not.

use crate::artifacts::Stores;
use crate::compile::{compile_source, Source};
use crate::diagnostics::printable;
use crate::options::{
    CompileFlags, Format, Given, Input, PolicyInput, ShowDiagnostics, UrlArgs, UrlWording,
};
use clap::Args;
use robocc_compiler::dialect::{semantics, RecordSelection};
use robocc_compiler::normalize::matched_path;
use robocc_engine::{Policy, PolicyFile, RuleOrigin, RuleRef, Selection, UrlMode};

#[derive(Args)]
pub struct ExplainArgs {
    #[command(flatten, next_help_heading = "Input (one of)")]
    input: Input,
    #[command(flatten)]
    urls: UrlArgs<ExplainUrls>,
    /// Time of day (UTC, HH:MM) for Visit-time and Request-rate advice;
    /// default: now.
    #[arg(long, value_name = "HH:MM", help_heading = "Output")]
    at: Option<String>,
    #[command(flatten)]
    diagnostics: ShowDiagnostics,
    /// Output: `text` (for people) or `json`: one object per URL with the
    /// verdict, the path as matched, the deciding rule (line, kind,
    /// pattern, origin, why it wins), the groups read, what the limits did
    /// and the AI-usage preferences (rfc9309, draft1996 and robots2; acap's
    /// per-usage answers are `robocc check --usage all --format json`).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    format: Format,
    /// acap: the usage to explain (default: every usage type).
    #[arg(long, value_name = "USAGE", help_heading = "Output")]
    usage: Option<robocc_engine::Usage>,
    #[command(flatten)]
    flags: CompileFlags,
}

/// `explain`'s URLs: text, each line of `--urls` trimmed; required.
struct ExplainUrls;

impl UrlWording for ExplainUrls {
    const URL: &'static str = "URLs to explain. In the explanation, controls (C0, DEL, C1), \
                               bidirectional and zero-width characters and bytes that are not \
                               UTF-8 in URLs, paths (draft1996 and robots2 decode %xx) and \
                               patterns are shown as %XX";
    const URLS: &'static str = "A file of URLs to explain, one per line (`-`: standard input; \
                                blank lines and lines starting with `#` are skipped), instead \
                                of arguments";
    const REQUIRED_UNLESS: &'static [&'static str] = &["urls"];
}

/// The largest file `explain` compiles a second time, read whole, to say
/// whether the limits that cut it change an answer: 2 MiB, or four times
/// `--max-bytes` when that is larger. Past it the second compile would cost
/// memory in proportion to any size (a 39 MB file took 3 GB), so the answer
/// is "unknown" with the reason.
const WHOLE_MAX: usize = 2 << 20;

/// The same file read whole (no parse, line or rule limit), when limits cut
/// something: what would decide each URL then.
struct Whole {
    /// The policy read whole, or why it was not (did not compile, or the
    /// file is over [`WHOLE_MAX`]).
    policy: Result<PolicyFile, String>,
    /// What was cut, in words.
    cut: String,
}

impl Whole {
    fn of(src: &Source) -> Option<Whole> {
        let cut: Vec<&str> = src
            .compiled
            .diagnostics
            .iter()
            .filter(|d| d.code.is_limit())
            .map(|d| match d.code {
                robocc_compiler::DiagCode::ParseLimit => "the parse limit (--max-bytes)",
                robocc_compiler::DiagCode::LineTooLong => "the line limit (--max-line-len)",
                _ => "the rules-per-group limit (--max-rules)",
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if cut.is_empty() {
            return None;
        }
        let mut options = src.options.clone();
        let budget = WHOLE_MAX.max(options.parse.max_bytes.saturating_mul(4));
        let policy = if src.body.len() > budget {
            Err(format!(
                "it is {} bytes, and explain reads at most {budget} whole",
                src.body.len()
            ))
        } else {
            options.parse.max_bytes = 0;
            options.parse.max_line_len = usize::MAX;
            options.parse.max_rules_per_group = usize::MAX;
            robocc_compiler::compile(&src.body, &src.agent, &options)
                .map_err(|e| format!("read whole it does not compile ({e})"))
                .and_then(|c| PolicyFile::from_slice(&c.to_bytes()).map_err(|e| e.to_string()))
        };
        Some(Whole {
            policy,
            cut: cut.join(" and "),
        })
    }

    /// One line: whether reading the whole file changes this URL's answer.
    fn line(&self, url: &[u8], allowed: bool, line: Option<u32>) -> String {
        let file = match &self.policy {
            Ok(file) => file,
            Err(why) => {
                return format!(
                    "{} cut the file; {why}, so whether the cut rules decide this URL \
                     is unknown",
                    self.cut
                )
            }
        };
        let p = file.policy();
        let v = p.check(url);
        let whole = v.rule.and_then(|id| p.rule(id));
        let whole_line = whole.and_then(|r| r.source_line());
        if v.allowed == allowed && whole_line == line {
            return format!(
                "{} cut the file; read whole, the answer is the same",
                self.cut
            );
        }
        format!(
            "{} cut the file, and that changes this answer: read whole, {} decides: {}",
            self.cut,
            match whole {
                Some(r) if r.line > 0 => format!(
                    "line {} ({}: {})",
                    r.line,
                    if r.allow { "Allow" } else { "Disallow" },
                    printable(r.pattern)
                ),
                Some(_) => "the file's own path".into(),
                None => "no rule".into(),
            },
            if v.allowed { "allow" } else { "disallow" }
        )
    }
}

/// `explain --store`: each URL by the policy of its host, after a line
/// that says which host record was read (a Unicode host is looked up in
/// its IDNA form, as `check --store` does).
fn explain_store(
    path: &std::path::Path,
    urls: &[String],
    args: &ExplainArgs,
    given: &Given,
) -> Result<i32, String> {
    let opened = args.flags.open_stores(path, given)?;
    for url in urls {
        let key_url = robocc_store::idna_lookup_url(url.as_bytes());
        let lookup = key_url.as_deref().unwrap_or(url).as_bytes();
        let store = match &opened {
            Stores::One(s) => Some(s),
            Stores::Set(set) => set.store_for(lookup).map_err(|e| e.to_string())?,
        };
        let host = match store {
            Some(s) => s.host(lookup).map_err(|e| e.to_string())?,
            None => None,
        };
        let (Some(s), Some(host)) = (store, host) else {
            let has_host = robocc_engine::HostKey::of_url(url.as_bytes()).is_some();
            if args.format == Format::Json {
                println!(
                    "{}",
                    serde_json::json!({
                        "url": url,
                        "verdict": "unknown",
                        "host": serde_json::Value::Null,
                        "source": if has_host { "not in store" } else { "no host" },
                    })
                );
                continue;
            }
            println!("{}", printable(url.as_bytes()));
            println!("  verdict: unknown");
            if !has_host {
                println!(
                    "  host: none can be read (an absolute URL whose authority URL parsers \
                     agree on is needed: docs/artifact.md, \"Which host a URL names\")"
                );
            } else {
                println!(
                    "  host: not in the store (robocc check --store answers it as --missing \
                     says)"
                );
            }
            continue;
        };
        let policy = s
            .policy(host.policy)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // JSON carries the host record in each URL's object.
        if args.format == Format::Text {
            println!(
                "host {}: {} (status {}); its policy explains {}:",
                host.key,
                host.source.name(),
                host.status,
                printable(url.as_bytes())
            );
        }
        let note = cut_policy_note(&policy);
        explain_urls(
            policy,
            None,
            note.as_deref(),
            false,
            std::slice::from_ref(url),
            args,
            Some(&host),
        )?;
    }
    Ok(0)
}

/// Explains `urls` by one policy: what the file it came from (`whole`,
/// `cut_note`) and its compile (`signals_dropped`) add.
fn explain_urls(
    policy: Policy<'_>,
    whole: Option<&Whole>,
    cut_note: Option<&str>,
    signals_dropped: bool,
    urls: &[String],
    args: &ExplainArgs,
    host: Option<&robocc_engine::HostInfo<'_>>,
) -> Result<(), String> {
    let h = policy.header();
    let mode = h.url_mode;
    let minute = minute_of_day(args.at.as_deref())?;
    let lines: Vec<String> = policy.meta().group_lines().map(|l| l.to_string()).collect();
    let first_record = semantics(h.dialect).selection == RecordSelection::FirstRecord;
    // Several agents (rfc9309): a group is theirs when it names any.
    let agents = h.agents().collect::<Vec<_>>().join(" or ");
    let groups = match (h.selection, first_record) {
        (Selection::Named, false) => format!(
            "groups naming {agents} (starting at line {})",
            lines.join(", ")
        ),
        // The 1996 draft picks one record, by substring (§3.2.1): the
        // record may name `newchives` for agent `chives`.
        (Selection::Named, true) => format!(
            "the record at line {}: the first whose User-agent value contains {} (1996 draft \
             §3.2.1: a substring, case ignored)",
            lines.join(", "),
            h.agent
        ),
        (Selection::Global, false) => format!(
            "the * group (starting at line {}): no group names {agents}",
            lines.join(", ")
        ),
        (Selection::Global, true) => format!(
            "the first * record (line {}): no record's User-agent value contains {}",
            lines.join(", "),
            h.agent
        ),
        (Selection::None, false) => format!(
            "none: no group names {agents} and there is no * group, so every URL is allowed"
        ),
        (Selection::None, true) => format!(
            "none: no record's User-agent value contains {} and there is no * record, so \
             every URL is allowed",
            h.agent
        ),
    };
    let acap = robocc_compiler::acap::from_policy(&policy);
    if acap.is_none()
        && args
            .usage
            .is_some_and(|u| u != robocc_engine::Usage::Crawl && !u.is_signal())
    {
        return Err(format!(
            "--usage {}: a {} policy speaks of crawl and the AI-usage preferences (shown for \
             every URL); explain ACAP usages with --dialect acap",
            args.usage.map_or("", |u| u.name()),
            h.dialect.name()
        ));
    }
    if acap.is_some() && args.format == Format::Json {
        return Err(
            "explain --format json speaks of the ranked dialects (rfc9309, draft1996, robots2): \
             for an acap policy's usages use robocc check --usage all --format json, or \
             explain's text"
                .into(),
        );
    }
    for url in urls {
        if let Some((rules, info)) = &acap {
            explain_acap(&policy, rules, info, url, args.usage);
            continue;
        }
        if args.format == Format::Json {
            let limits = match (whole, cut_note) {
                (Some(w), _) => {
                    let v = policy.check(url.as_bytes());
                    let line = v
                        .rule
                        .and_then(|id| policy.rule(id))
                        .and_then(|r| r.source_line());
                    Some(w.line(url.as_bytes(), v.allowed, line))
                }
                (None, Some(note)) => Some(note.to_string()),
                (None, None) => None,
            };
            println!(
                "{}",
                explanation_json(&policy, url, &groups, limits, host, signals_dropped)
            );
            continue;
        }
        let v = policy.check(url.as_bytes());
        println!("{}", printable(url.as_bytes()));
        println!(
            "  verdict: {}",
            if v.allowed { "allow" } else { "disallow" }
        );
        println!(
            "  matched path: {} ({})",
            printable(&matched_path(url.as_bytes(), mode)),
            match mode {
                UrlMode::Google => "google mode: as given",
                UrlMode::Rfc => "rfc mode: normalised",
                UrlMode::Decode => "draft mode: %xx decoded except %2F",
            }
        );
        let raw = robocc_engine::url::path_parts(url.as_bytes())
            .rest
            .iter()
            .any(|&b| b >= 0x80);
        if raw && mode == UrlMode::Google {
            println!(
                "  note: the path holds raw non-ASCII bytes, matched byte for byte, while the \
                 rules' non-ASCII bytes are matched as %XX (Google's reading): a rule written \
                 with them decides the percent-encoded URL (as clients send it), not this form"
            );
        }
        match v.rule.and_then(|id| policy.rule(id)) {
            Some(r) => {
                let kind = if r.allow { "Allow" } else { "Disallow" };
                let why = match r.origin {
                    RuleOrigin::Line => format!(
                        "line {}: {kind}: {} ({} pattern)",
                        r.line,
                        printable(r.pattern),
                        r.syntax
                    ),
                    RuleOrigin::IndexHtm => format!(
                        "line {}: Allow of an index.htm page also allows its directory: {}",
                        r.line,
                        printable(r.pattern)
                    ),
                    RuleOrigin::RobotsTxt => {
                        format!("{} is always allowed", h.self_path)
                    }
                };
                let strength = reason(&policy, &r);
                println!("  deciding rule: {why} ({strength})");
            }
            None => println!("  deciding rule: none matched; allowed by default"),
        }
        let line = v
            .rule
            .and_then(|id| policy.rule(id))
            .and_then(|r| r.source_line());
        if let Some(w) = &whole {
            println!("  limits: {}", w.line(url.as_bytes(), v.allowed, line));
        }
        if let Some(note) = &cut_note {
            println!("  limits: {note}");
        }
        println!("  groups: {groups}");
        explain_signals(&policy, url.as_bytes(), v.allowed, signals_dropped);
        let m = policy.meta();
        if let Some(ms) = m.crawl_delay_ms() {
            println!("  crawl-delay: {} s", ms as f64 / 1000.0);
        }
        let timed = m.visit_times().next().is_some() || m.request_rates().next().is_some();
        if !timed && args.at.is_some() {
            println!("  at: no Visit-time or Request-rate applies to {}", h.agent);
        }
        if timed {
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
            println!("  comment: {}", printable(c.as_bytes()));
        }
    }
    Ok(())
}

/// `explain --format json` of one URL by a ranked dialect's policy.
fn explanation_json(
    policy: &Policy<'_>,
    url: &str,
    groups: &str,
    limits: Option<String>,
    host: Option<&robocc_engine::HostInfo<'_>>,
    signals_dropped: bool,
) -> serde_json::Value {
    use robocc_engine::Usage;
    let h = policy.header();
    let v = policy.check(url.as_bytes());
    let rule = v.rule.and_then(|id| policy.rule(id)).map(|r| {
        serde_json::json!({
            "line": r.source_line(),
            "kind": if r.allow { "allow" } else { "disallow" },
            "pattern": r.pattern_text(),
            "origin": r.origin.name(),
            "why": reason(policy, &r),
        })
    });
    let mut obj = serde_json::json!({
        "url": url,
        "verdict": if v.allowed { "allow" } else { "disallow" },
        "matched_path": String::from_utf8_lossy(&matched_path(url.as_bytes(), h.url_mode)),
        "url_mode": h.url_mode.name(),
        "rule": rule,
        "groups": groups,
        "limits": limits,
    });
    if h.dialect == robocc_engine::Dialect::Rfc9309 {
        let mut prefs = serde_json::Map::new();
        for u in [Usage::Search, Usage::TrainAi, Usage::AiInput] {
            let p = if signals_dropped {
                None
            } else {
                policy.preference(url.as_bytes(), u)
            };
            prefs.insert(
                u.name().to_string(),
                serde_json::json!(match p.map(|p| p.allowed) {
                    Some(true) => "allow",
                    Some(false) => "disallow",
                    None => "unknown",
                }),
            );
        }
        obj["preferences"] = serde_json::Value::Object(prefs);
    }
    if let Some(host) = host {
        obj["host"] = serde_json::json!(host.key);
        obj["source"] = serde_json::json!(host.source.name());
        obj["status"] = serde_json::json!(host.status);
    }
    obj
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

/// The URLs of `--urls FILE`: its lines that are not blank or comments,
/// each UTF-8 (explain is read by people; `check` takes any bytes).
fn url_list(path: &std::path::Path) -> Result<Vec<String>, String> {
    let bytes = crate::input::read_file(path, "URL list")?;
    let mut urls = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line).trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let url = std::str::from_utf8(line).map_err(|_| {
            format!(
                "{}, line {}: not UTF-8 (explain reads text; robocc check takes any bytes)",
                path.display(),
                i + 1
            )
        })?;
        urls.push(url.to_string());
    }
    Ok(urls)
}

pub fn run(args: &ExplainArgs, given: &Given) -> Result<i32, String> {
    args.urls.refuse_empty()?;
    let Input {
        site: PolicyInput { robots, policy },
        store,
    } = &args.input;
    let list = args.urls.file.as_deref();
    if list.is_some_and(|u| u.as_os_str() == "-")
        && robots.as_deref().is_some_and(|r| r.as_os_str() == "-")
    {
        return Err("--urls - and --robots - cannot both read standard input".into());
    }
    let listed = list.map(url_list).transpose()?;
    let urls = listed.as_ref().unwrap_or(&args.urls.args);
    // Whether the compile dropped the file's preference statements for the
    // budget (known when compiling here, not from an artifact).
    let mut signals_dropped = false;
    if let Some(path) = store {
        return explain_store(path, urls, args, given);
    }
    let (file, whole, cut_note) = match (robots, policy) {
        (_, Some(p)) => {
            let file = args.flags.open_one_agent_policy(p, given)?;
            let note = cut_policy_note(&file.policy());
            (file, None, note)
        }
        (Some(path), None) => {
            let src = compile_source(path, &args.flags, given)?;
            src.report(false, args.diagnostics.verbose);
            signals_dropped = src
                .compiled
                .diagnostics
                .iter()
                .any(|d| d.code == robocc_compiler::DiagCode::SignalsDropped);
            let whole = Whole::of(&src);
            (src.policy_file()?, whole, None)
        }
        (None, None) => {
            return Err(
                "nothing to explain against: give --robots FILE (with --agent), --policy \
                 FILE or --store STORE"
                    .into(),
            )
        }
    };
    explain_urls(
        file.policy(),
        whole.as_ref(),
        cut_note.as_deref(),
        signals_dropped,
        urls,
        args,
        None,
    )?;
    Ok(0)
}

/// acap: every usage's verdict for `url`, with the rules that competed, the
/// tier that spoke and the narrowest-scope comparison that decided.
fn explain_acap(
    policy: &Policy<'_>,
    rules: &[robocc_compiler::ruleset::SetRule],
    info: &robocc_compiler::acap::AcapRules,
    url: &str,
    only: Option<robocc_engine::Usage>,
) {
    use robocc_compiler::acap::{resolve, Decision};
    let path = matched_path(url.as_bytes(), UrlMode::Google);
    let matched: Vec<usize> = (0..rules.len())
        .filter(|&i| rules[i].glob.matches(&path))
        .collect();
    println!("{}", printable(url.as_bytes()));
    println!(
        "  matched path: {} (as given; ACAP patterns ignore ASCII case)",
        printable(&path)
    );
    let m = policy.meta();
    if !info.purposes.is_empty() {
        println!(
            "  purposes: {}",
            printable(info.purposes.join(", ").as_bytes())
        );
    }
    if m.acap_ignores_conventional() {
        println!("  conventional records: ignored (ACAP-ignore-conventional-records)");
    }
    let describe = |i: usize| {
        let r = &rules[i];
        let a = &info.rules[i];
        let mut s = format!(
            "line {}: {} {} `{}`",
            r.line,
            if r.allow { "allow" } else { "disallow" },
            a.usage,
            printable(&r.pattern)
        );
        if a.conventional {
            s.push_str(" (conventional record, read as crawl)");
        }
        s.push_str(if a.named {
            ", record naming the crawler"
        } else {
            ", * record"
        });
        if !a.purposes.is_empty() {
            s.push_str(&format!(
                ", purpose {}",
                printable(a.purposes.join(" ").as_bytes())
            ));
        }
        if !a.via.is_empty() {
            s.push_str(&format!(", via {}", printable(a.via.as_bytes())));
        }
        if !a.qualifiers.is_empty() {
            s.push_str(&format!(
                "; qualifiers {}",
                printable(a.qualifiers.join(" ").as_bytes())
            ));
        }
        s
    };
    for &u in robocc_engine::Usage::ACAP {
        if only.is_some_and(|o| o != u) {
            continue;
        }
        let engine = policy.check_usage(url.as_bytes(), u);
        let r = resolve(rules, info, &matched, u);
        let word = if engine.allowed { "allow" } else { "disallow" };
        let how = match r.decision {
            Decision::Default => "no rule concerns it here: allowed by default".to_string(),
            Decision::Agreed(i) if r.settled.is_empty() => {
                format!("{} (every matching rule agrees)", describe(i))
            }
            Decision::Agreed(i) => format!("{} (every rule left agrees)", describe(i)),
            Decision::Narrowest(i) => format!(
                "{} (narrowest scope among {} conflicting rules, ACAP 2.4.5)",
                describe(i),
                r.competing.len()
            ),
            Decision::Undecidable(a, b) => format!(
                "undecidable: `{}` (line {}) is not narrower than `{}` (line {}), so no single \
                 narrowest rule exists and the usage is prohibited (ACAP 2.4.5)",
                printable(&rules[a].pattern),
                rules[a].line,
                printable(&rules[b].pattern),
                rules[b].line
            ),
        };
        println!("  {u}: {word}: {how}");
        for &i in &r.settled {
            println!(
                "      lost first: {} (conventional lines settle among themselves as rfc9309 \
                 does: longest match, Allow on a tie; ACAP 2.9.2: \"interpreted as normal\")",
                describe(i)
            );
        }
        if r.decision != Decision::Default && r.competing.len() > 1 {
            for &i in &r.competing {
                println!("      competing: {}", describe(i));
            }
        }
        if engine.allowed != r.allowed {
            println!(
                "      note: the compiled automaton says {}; please report this mismatch",
                if engine.allowed { "allow" } else { "disallow" }
            );
        }
    }
    for q in m.acap_requests() {
        println!(
            "  request: line {}: {} {}",
            q.line,
            printable(q.key.as_bytes()),
            printable(q.value.as_bytes())
        );
    }
}

/// AI-usage preferences: each channel's answer, the statement that decided
/// it, and every statement that spoke for the URL on that channel
/// (docs/dialects.md, "AI-usage preferences"): the Content-Usage lines of
/// the longest matching path (shorter matching ones shown as shadowed),
/// every Content-Signal line, each training token's deciding rule. A
/// policy without preference channels says they are unknown, and why when
/// the compile dropped them.
fn explain_signals(policy: &Policy<'_>, url: &[u8], crawlable: bool, dropped: bool) {
    use robocc_engine::Usage;
    if dropped {
        println!(
            "  preferences: not compiled: the file's statements did not fit the budget with \
             the rules (signals-dropped), so search, train-ai and ai-input are unknown"
        );
        return;
    }
    let dialect = policy.header().dialect;
    if !robocc_compiler::dialect::semantics(dialect).reads_signals() {
        // docs/dialects.md: the preference lines are read under rfc9309 only.
        println!(
            "  preferences: not read under the {} dialect (search, train-ai, ai-input unknown)",
            dialect.name()
        );
        return;
    }
    if policy.channels().count() == 1 {
        println!("  preferences: none stated (search, train-ai, ai-input unknown)");
        return;
    }
    let statements = robocc_compiler::explain::statements(policy, url);
    for &u in Usage::SIGNALS {
        let v = policy.preference(url, u);
        let decider = v.and_then(|v| v.rule);
        let text = match v {
            None if !crawlable => "unknown: the agent may not crawl this URL, so no \
                                   preference applies (aipref attach-05 §3.1)"
                .to_string(),
            None => "unknown: nothing stated".to_string(),
            Some(v) => {
                let word = if v.allowed { "allow" } else { "disallow" };
                match v.rule.and_then(|id| statement(policy, id)) {
                    Some(what) => {
                        format!("{word}: {what} (any disallow wins, then any allow)")
                    }
                    None => word.to_string(),
                }
            }
        };
        println!("  {u}: {text}");
        let mut listed_decider = false;
        for s in &statements {
            let says = if s.is_token_allow() && u == Usage::TrainAi {
                "nothing (a training token's Allow states nothing)"
            } else {
                match policy.signal_says(s.id, u) {
                    Some(true) => "allow",
                    Some(false) => "disallow",
                    None => continue,
                }
            };
            let mut marks = String::new();
            if let Some(longer) = s.shadowed_by.and_then(|id| policy.rule(id)) {
                marks.push_str(&format!(
                    " (shadowed by the longer path {} (line {}): does not apply)",
                    printable(longer.pattern),
                    longer.line
                ));
            } else if !crawlable {
                marks.push_str(" (would apply; does not: crawl is disallowed)");
            }
            if decider == Some(s.id) {
                marks.push_str("   <- decides");
                listed_decider = true;
            }
            let what = statement(policy, s.id).unwrap_or_default();
            println!("    {what}: {says}{marks}");
        }
        if let (Some(id), false) = (decider, listed_decider) {
            println!(
                "    note: the compiled policy names rule {id}, which explain did not find \
                 applying here; please report this mismatch"
            );
        }
    }
}

/// A signal statement in words: `line N: Content-Usage /path`, `line N:
/// Content-Signal`, `line N: training token T: Disallow /p`.
fn statement(policy: &Policy<'_>, id: robocc_engine::RuleId) -> Option<String> {
    use robocc_engine::SignalSource;
    let r = policy.rule(id)?;
    let what = match policy.signal_source(id)? {
        SignalSource::ContentUsage => format!(
            "Content-Usage{}",
            if r.pattern.is_empty() {
                String::new()
            } else {
                format!(" {}", printable(r.pattern))
            }
        ),
        SignalSource::ContentSignal if r.group == u32::MAX => {
            "Content-Signal (file level)".to_string()
        }
        SignalSource::ContentSignal => "Content-Signal".to_string(),
        SignalSource::TrainingToken(t) => format!(
            "training token {t}: {} {}",
            if r.allow { "Allow" } else { "Disallow" },
            printable(r.pattern)
        ),
        SignalSource::Rule => "a rule".to_string(),
    };
    Some(if r.line > 0 {
        format!("line {}: {what}", r.line)
    } else {
        what
    })
}

/// A policy compiled from part of its robots.txt says so: the rules past
/// the parse limit were not read.
fn cut_policy_note(p: &Policy<'_>) -> Option<String> {
    let h = p.header();
    (h.max_bytes != 0 && h.source_len > h.max_bytes).then(|| {
        format!(
            "compiled from the first {} of {} bytes (the parse limit): rules past that were \
             not read; compile with --max-bytes 0 to see whether they decide",
            h.max_bytes, h.source_len
        )
    })
}

/// Why the deciding rule won, in words ([`robocc_compiler::explain::why`]:
/// the dialect's rank class, which the compiler stored with the rule).
fn reason(policy: &Policy<'_>, r: &RuleRef<'_>) -> String {
    use robocc_compiler::explain::{why, Why};
    match why(policy, r) {
        Why::LongestMatch { length } => {
            format!("priority {length}: the longest matching pattern")
        }
        Why::FirstMatch => "the first matching rule".into(),
        Why::ExplicitAllow => "an explicit Allow: the strongest rule".into(),
        Why::Disallow => "a Disallow: beats every wildcard Allow".into(),
        Why::WildcardAllow { catch_all } => match catch_all.and_then(|id| policy.rule(id)) {
            Some(c) => format!(
                "a wildcard Allow: no Disallow other than the catch-all matched; the \
                 catch-all (line {}: Disallow: {}) ranks below wildcard Allows",
                c.line,
                printable(c.pattern)
            ),
            None => "a wildcard Allow: no Disallow matched".into(),
        },
        Why::CatchAllDisallow => "the catch-all Disallow: no other rule matched".into(),
        Why::SelfPath => "the file's own path: above every rule".into(),
        Why::NarrowestScope => "the narrowest scope (ACAP 2.4.5)".into(),
    }
}
