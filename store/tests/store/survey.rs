//! `survey`: rows of an each-agent store agree with one-agent compiles of
//! each host's body (an independent path to the same answers), statuses
//! get the classes their stand-in bodies mean, and the CSV and JSON lines
//! hold what the rows say.

use robocc_compiler::{compile, Class, CompileOptions};
use robocc_engine::{HostSource, Policy, Store, Usage};
use robocc_store::survey::{Format, Outcome, Summary, Survey, SurveyError, SurveyOptions};
use robocc_store::{HostInput, StoreBuilder};
use robocc_testkit::crawlers::CRAWLERS;
use robocc_testkit::paths::root;

fn input(host: &str, status: u16, body: Option<&str>) -> HostInput {
    HostInput {
        host: host.into(),
        status,
        body: body.map(|b| b.as_bytes().to_vec()),
        ..HostInput::default()
    }
}

fn hand_inputs() -> Vec<HostInput> {
    vec![
        input(
            "ai-out.example",
            200,
            Some(
                "User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\n\
                 Disallow: /private\nSitemap: https://ai-out.example/s.xml\n\
                 License: https://ai-out.example/license.xml\nContent-Signal: ai-train=no\n",
            ),
        ),
        input("gone.example", 404, None),
        input("down.example", 503, None),
        input("nowhere.example", 0, None),
        input("open.example", 200, Some("User-agent: *\nDisallow:\n")),
    ]
}

fn store_of(inputs: Vec<HostInput>, agents: &[&str]) -> Store {
    let (bytes, _) = StoreBuilder::new(agents)
        .each_agent(true)
        .build(inputs.into_iter().map(Ok))
        .expect("builds");
    Store::from_slice(&bytes).expect("loads")
}

fn options(agents: &[&str], paths: &[&str]) -> SurveyOptions {
    SurveyOptions {
        paths: paths.iter().map(|p| p.to_string()).collect(),
        ..SurveyOptions::new(agents.iter().copied())
    }
}

#[test]
fn hand_rows() {
    let store = store_of(hand_inputs(), &CRAWLERS);
    let survey = Survey::new(
        &store,
        options(&["GPTBot", "Googlebot"], &["/", "/private/x"]),
    )
    .expect("surveys");
    let mut summary = Summary::new(&survey.options().agents);
    let mut seen = 0;
    for row in survey.rows() {
        let row = row.expect("row");
        summary.add(&row);
        seen += 1;
        let [gpt, google] = [&row.facts.agents[0], &row.facts.agents[1]];
        let crawl = |a: &robocc_store::survey::AgentFacts| a.classes[0];
        match row.host {
            "ai-out.example" => {
                assert_eq!(crawl(gpt), Some(Class::AllDisallowed));
                assert_eq!(crawl(google), Some(Class::Partly));
                assert!(google.paths[0].crawl && !google.paths[1].crawl);
                assert_eq!(row.facts.sitemaps, 1);
                assert_eq!(row.facts.licenses, ["https://ai-out.example/license.xml"]);
                assert!(row.facts.read_whole);
                // Content-Signal: ai-train=no, for everyone.
                assert_eq!(google.paths[0].preferences[0], Some(false));
                assert_eq!(row.outcome(), Outcome::Success);
            }
            "gone.example" => {
                assert_eq!(row.source, HostSource::Unavailable);
                assert_eq!(row.outcome(), Outcome::ClientError);
                assert_eq!(crawl(gpt), Some(Class::AllAllowed));
            }
            "down.example" | "nowhere.example" => {
                assert_eq!(row.source, HostSource::Unreachable);
                assert_eq!(crawl(gpt), Some(Class::AllDisallowed));
                assert_eq!(crawl(google), Some(Class::AllDisallowed));
            }
            "open.example" => {
                assert_eq!(crawl(gpt), Some(Class::AllAllowed));
                assert_eq!(gpt.paths[1].preferences, [None; 3]);
            }
            other => panic!("unexpected host {other}"),
        }
    }
    assert_eq!(seen, 5);
    assert_eq!(summary.count(0, None, Some(Class::AllDisallowed)), 3);
    assert_eq!(
        summary.count(0, Some(Outcome::ServerError), Some(Class::AllDisallowed)),
        1
    );
    assert_eq!(summary.count(1, None, Some(Class::Partly)), 1);
    assert!(summary.to_string().contains("GPTBot\tall\t5\t60.0%"));
}

#[test]
fn agents_and_paths_are_checked() {
    let store = store_of(hand_inputs(), &["GPTBot"]);
    assert!(matches!(
        Survey::new(&store, options(&["ClaudeBot"], &["/"])),
        Err(SurveyError::Agent { .. })
    ));
    assert!(matches!(
        Survey::new(&store, options(&["GPTBot"], &["x"])),
        Err(SurveyError::Path(_))
    ));
    assert!(matches!(
        Survey::new(&store, options(&[], &["/"])),
        Err(SurveyError::NoAgents)
    ));
}

/// Splits a CSV line (RFC 4180 quoting).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// Corpus hosts × the 20 crawlers: each row's crawl cells are what a
/// one-agent compile of the host's body answers, and the CSV and JSON
/// lines say what the row says.
#[test]
fn corpus_rows_agree_with_one_agent_compiles() {
    let mut inputs = robocc_testkit::corpus::inputs(&root().join("corpus/real"));
    if std::env::var_os("ROBOCC_FULL").is_none() {
        inputs.truncate(12);
    }
    let bodies: std::collections::HashMap<String, Vec<u8>> = inputs
        .iter()
        .map(|i| (i.host.clone(), i.body.clone().unwrap_or_default()))
        .collect();
    let store = store_of(inputs, &CRAWLERS);
    let paths = ["/", "/search?q=x", "/wp-admin/"];
    let survey = Survey::new(&store, options(&CRAWLERS, &paths)).expect("surveys");
    let header = survey.csv_header();
    let columns = csv_fields(header.trim_end()).len();
    assert_eq!(columns, 8 + CRAWLERS.len() * (2 + paths.len() * 4));
    let (mut failures, mut rows) = (0, 0);
    for row in survey.rows() {
        let row = row.expect("row");
        let body = &bodies[row.host];
        // A body the build could not compile each-agent (over budget)
        // gets the disallow-all stand-in, for every agent.
        let failed = row.source == HostSource::Failed;
        failures += usize::from(failed);
        rows += 1;
        for (k, agent) in CRAWLERS.iter().enumerate() {
            if failed {
                assert_eq!(row.facts.agents[k].classes[0], Some(Class::AllDisallowed));
                continue;
            }
            let one = compile(body, *agent, &CompileOptions::default())
                .expect("compiles")
                .to_bytes();
            let one = Policy::from_bytes(&one).expect("loads");
            for (j, p) in paths.iter().enumerate() {
                assert_eq!(
                    row.facts.agents[k].paths[j].crawl,
                    one.check_usage(p.as_bytes(), Usage::Crawl).allowed,
                    "{} {agent} {p}",
                    row.host
                );
            }
        }
        let mut csv = Vec::new();
        survey
            .write_row(Format::Csv, &row, &mut csv)
            .expect("writes");
        let csv = String::from_utf8(csv).expect("utf-8");
        let fields = csv_fields(csv.trim_end());
        assert_eq!(fields.len(), columns, "{csv}");
        assert_eq!(fields[0], row.host);
        assert_eq!(
            fields[8],
            row.facts.agents[0].classes[0].map_or("unknown", Class::name)
        );
        let mut json = Vec::new();
        survey
            .write_row(Format::Jsonl, &row, &mut json)
            .expect("writes");
        let v: serde_json::Value = serde_json::from_slice(&json).expect("json");
        assert_eq!(v["host"], row.host);
        assert_eq!(v["sitemaps"], row.facts.sitemaps);
        assert_eq!(
            v["agents"][3]["paths"][0]["crawl"],
            if row.facts.agents[3].paths[0].crawl {
                "allow"
            } else {
                "disallow"
            }
        );
    }
    assert!(
        rows > 0 && failures < rows,
        "{failures} of {rows} hosts failed"
    );
}
