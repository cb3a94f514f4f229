use super::*;
use Channel::{AiInput, Search, TrainAi};
use Pref::{Allow, Disallow, Unknown};

fn oracle(body: &str, agent: &str) -> SignalsOracle {
    SignalsOracle::new(body.as_bytes(), agent, &[])
}

fn trained(body: &str, agent: &str, tokens: &[&str]) -> SignalsOracle {
    let tokens: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    SignalsOracle::new(body.as_bytes(), agent, &tokens)
}

fn at(o: &SignalsOracle, url: &str, channel: Channel) -> (Pref, Option<u32>) {
    let a = o.check(url.as_bytes(), channel);
    (a.pref, a.line)
}

fn pref(value: &str, channel: Channel) -> Pref {
    usage_pref(value.as_bytes(), channel)
}

// --- RFC 9651 Dictionary -------------------------------------------------

#[test]
fn dictionary_members_and_types() {
    let d = parse_dictionary(b"a=1, b=-2.5, c=\"x\\\"y\", d=tok/x:1, e=:aGk=:, f=?0, g").unwrap();
    let v: Vec<&Member> = d.iter().map(|(_, m)| m).collect();
    assert_eq!(v[0], &Member::Item(BareItem::Integer(1), vec![]));
    assert_eq!(
        v[1],
        &Member::Item(BareItem::Decimal("-2.5".into()), vec![])
    );
    assert_eq!(
        v[2],
        &Member::Item(BareItem::String(b"x\"y".to_vec()), vec![])
    );
    assert_eq!(
        v[3],
        &Member::Item(BareItem::Token(b"tok/x:1".to_vec()), vec![])
    );
    assert_eq!(
        v[4],
        &Member::Item(BareItem::Bytes(b"aGk=".to_vec()), vec![])
    );
    assert_eq!(v[5], &Member::Item(BareItem::Boolean(false), vec![]));
    assert_eq!(v[6], &Member::Item(BareItem::Boolean(true), vec![]));
    let d = parse_dictionary(b"l=(a \"b\" 1);p, m;q=2").unwrap();
    assert!(
        matches!(&d[0].1, Member::InnerList(items, params) if items.len() == 3 && params.len() == 1)
    );
    assert_eq!(
        d[1].1,
        Member::Item(
            BareItem::Boolean(true),
            vec![(b"q".to_vec(), BareItem::Integer(2))]
        )
    );
    assert_eq!(parse_dictionary(b"").unwrap(), vec![]);
}

#[test]
fn dictionary_failures() {
    for bad in [
        "Train-ai=n",  // uppercase key (vocab-07 §6.5.1)
        "train-ai=n,", // trailing comma
        "train-ai=n,,search=y",
        "train-ai=n search=y", // no comma
        "train-ai=\"n",        // unterminated string
        "train-ai=\"a\\b\"",   // bad escape
        "train-ai=n;",         // `;` with no key
        "train-ai;has;parameters=\"?\";",
        "train-ai=(n",     // unterminated inner list
        "train-ai=(n\ty)", // HTAB inside an inner list
        "train-ai=n;\tp",  // HTAB after `;`
        "train-ai=?2",
        "train-ai=1.",
        "train-ai=1.2345",
        "train-ai=1234567890123456",
        "train-ai=@1.5", // a Date is an Integer (RFC 9651 §4.2.9)
        "train-ai=@",
        "train-ai=@x",
        "train-ai=%x",           // a Display String is quoted (§4.2.10)
        "train-ai=%\"x",         // unterminated
        "train-ai=%\"f%C3%BC\"", // uppercase hex
        "train-ai=%\"%c3\"",     // not UTF-8
        "train-ai=%\"%c\"",      // half an octet
        "train-ai=%\"a\tb\"",    // HTAB
        "train-ai=:a!:",
        "train-ai=:abc",
        "train-ai=",
        "=n",
        "1a=n",
        "train-ai=n, search=y\u{e9}",
        "train-ai=-",
    ] {
        assert_eq!(
            parse_dictionary(bad.as_bytes()),
            Err(ParseFailure),
            "{bad:?}"
        );
    }
    for good in [
        "train-ai=n,\tsearch=y", // OWS after a comma
        "train-ai=n\t, search=y",
        "train-ai=n; p", // SP after `;`
        "*x=y",
        "a=123456789012345",
        "a=123456789012.123",
        "a=( )",
        "a=:aGk:",
    ] {
        assert!(parse_dictionary(good.as_bytes()).is_ok(), "{good:?}");
    }
    // RFC 9651's Date and Display String (the drafts cite RFC 9651 as
    // FIELDS), as values and as parameters.
    let d = parse_dictionary(b"a=@-1659578233, b=%\"f%c3%bc \\ %22\", c=n;d=@1;t=%\"\"").unwrap();
    assert_eq!(d[0].1, Member::Item(BareItem::Date(-1659578233), vec![]));
    assert_eq!(
        d[1].1,
        Member::Item(BareItem::DisplayString("f\u{fc} \\ \"".into()), vec![])
    );
    assert_eq!(
        d[2].1,
        Member::Item(
            BareItem::Token(b"n".to_vec()),
            vec![
                (b"d".to_vec(), BareItem::Date(1)),
                (b"t".to_vec(), BareItem::DisplayString(String::new()))
            ]
        )
    );
}

#[test]
fn vocab_examples() {
    // §6: "train-ai=y, search=n".
    assert_eq!(pref("train-ai=y, search=n", TrainAi), Allow);
    assert_eq!(pref("train-ai=y, search=n", Search), Disallow);
    assert_eq!(pref("train-ai=y, search=n", AiInput), Unknown);
    // §6.5.1: the last value counts; a boolean and a string are unknown.
    let all_unknown = "train-ai=y, train-ai, search=n, search=\"n\"";
    assert_eq!(pref(all_unknown, TrainAi), Unknown);
    assert_eq!(pref(all_unknown, Search), Unknown);
    // §6.5.1: uppercase keys make the parse fail.
    assert_eq!(pref("Train-AI=n", TrainAi), Unknown);
    assert_eq!(pref("search=n, TRAIN-AI=y", Search), Unknown);
    // §6.5.2: parameters of the overwritten value do not count.
    assert_eq!(pref("train-ai;allow=n, train-ai=y", TrainAi), Allow);
    assert_eq!(pref("train-ai=n;allow=y", TrainAi), Disallow);
    // §6.5.2's last example: unknown either way.
    assert_eq!(pref("train-ai;has;parameters=\"?\";", TrainAi), Unknown);
    assert_eq!(pref("train-ai;has;parameters=\"?\"", TrainAi), Unknown);
}

#[test]
fn usage_values() {
    assert_eq!(pref("train-ai=Y", TrainAi), Unknown);
    assert_eq!(pref("train-ai=yes", TrainAi), Unknown);
    assert_eq!(pref("train-ai=1", TrainAi), Unknown);
    assert_eq!(pref("train-ai=?1", TrainAi), Unknown);
    assert_eq!(pref("train-ai=(n)", TrainAi), Unknown);
    assert_eq!(pref("train-ai=\"n\"", TrainAi), Unknown);
    assert_eq!(pref("ai-input=n, search=y", AiInput), Unknown);
    assert_eq!(pref("ai-input=n, search=y", Search), Allow);
    assert_eq!(pref("train-ai=n, train-ai=y", TrainAi), Allow);
    assert_eq!(pref("  train-ai=n", TrainAi), Disallow);
}

#[test]
fn usage_value_split() {
    assert_eq!(
        split_usage_value(b"/a b=c"),
        (Some(&b"/a"[..]), &b"b=c"[..])
    );
    assert_eq!(
        split_usage_value(b"/a\t \tb=c"),
        (Some(&b"/a"[..]), &b"b=c"[..])
    );
    assert_eq!(split_usage_value(b"/a"), (Some(&b"/a"[..]), &b""[..]));
    assert_eq!(split_usage_value(b"train-ai=n"), (None, &b"train-ai=n"[..]));
    assert_eq!(
        split_usage_value(b"*/a train-ai=n"),
        (None, &b"*/a train-ai=n"[..])
    );
}

// --- Content-Signal ---------------------------------------------------------

#[test]
fn content_signal_values() {
    let v = "search=yes, ai-train=no, ai-input=yes";
    assert_eq!(signal_pref(v.as_bytes(), Search), Allow);
    assert_eq!(signal_pref(v.as_bytes(), TrainAi), Disallow);
    assert_eq!(signal_pref(v.as_bytes(), AiInput), Allow);
    assert_eq!(signal_pref(b"AI-Train = NO ,search=Yes", TrainAi), Disallow);
    assert_eq!(signal_pref(b"AI-Train = NO ,search=Yes", Search), Allow);
    assert_eq!(signal_pref(b"ai-train=n", TrainAi), Unknown);
    assert_eq!(signal_pref(b"train-ai=no", TrainAi), Unknown);
    assert_eq!(signal_pref(b"ai-train", TrainAi), Unknown);
    assert_eq!(signal_pref(b"ai-train=no, ai-train=yes", TrainAi), Allow);
    assert_eq!(
        signal_pref(b"ai-train=no, ai-train=maybe", TrainAi),
        Unknown
    );
    assert_eq!(signal_pref(b"ai-train=no, ai-train", TrainAi), Disallow);
    assert_eq!(signal_pref(b"ai-train=no;, search=yes", Search), Allow);
    assert_eq!(signal_pref(b"ai-train=no;, search=yes", TrainAi), Unknown);
    assert_eq!(signal_pref(b"", Search), Unknown);
}

// --- The attach-05 §3.4 example --------------------------------------------

const ATTACH_EXAMPLE: &str = "User-Agent: *\n\
Allow: /\n\
Disallow: /never/\n\
Content-Usage: train-ai=n\n\
Content-Usage: /ai-ok/ train-ai=y\n\
\n\
User-Agent: ExampleBot\n\
Allow: /\n\
Content-Usage: train-ai=y\n";

#[test]
fn attach_example_table() {
    let o = oracle(ATTACH_EXAMPLE, "OtherBot");
    assert!(o.crawl_allowed(b"/test"));
    assert_eq!(at(&o, "/test", TrainAi), (Disallow, Some(4)));
    assert!(!o.crawl_allowed(b"/never/test"));
    assert_eq!(at(&o, "/never/test", TrainAi), (Unknown, None));
    assert!(o.crawl_allowed(b"/ai-ok/test"));
    assert_eq!(at(&o, "/ai-ok/test", TrainAi), (Allow, Some(5)));
    assert_eq!(at(&o, "/ai-ok/test", Search), (Unknown, None));
}

#[test]
fn attach_example_bot() {
    let o = oracle(ATTACH_EXAMPLE, "ExampleBot");
    for url in ["/test", "/never/test", "/ai-ok/test"] {
        assert!(o.crawl_allowed(url.as_bytes()));
        assert_eq!(at(&o, url, TrainAi), (Allow, Some(9)));
        assert_eq!(at(&o, url, Search), (Unknown, None));
    }
}

// --- Longest match and ties --------------------------------------------------

#[test]
fn longest_match_speaks_alone() {
    let o = oracle(
        "User-agent: *\nContent-Usage: search=n, train-ai=n\nContent-Usage: /a search=y\n",
        "x",
    );
    assert_eq!(at(&o, "/a/b", Search), (Allow, Some(3)));
    // The longest line does not mention train-ai: unknown.
    assert_eq!(at(&o, "/a/b", TrainAi), (Unknown, None));
    assert_eq!(at(&o, "/b", TrainAi), (Disallow, Some(2)));
}

#[test]
fn ties_combine() {
    let body = "User-agent: *\nContent-Usage: /a train-ai=y\nContent-Usage: /a search=y\nContent-Usage: /a train-ai=n\nContent-Usage: /b* train-ai=y\nContent-Usage: /ba train-ai=n\n";
    let o = oracle(body, "x");
    assert_eq!(at(&o, "/a", TrainAi), (Disallow, Some(4)));
    assert_eq!(at(&o, "/a", Search), (Allow, Some(3)));
    // Different patterns of the same encoded length tie too.
    assert_eq!(at(&o, "/bar", TrainAi), (Disallow, Some(6)));
    assert_eq!(at(&o, "/bxr", TrainAi), (Allow, Some(5)));
}

#[test]
fn parse_failure_still_matches() {
    let body = "User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /a Train-ai=y\nContent-Usage: /b\n";
    let o = oracle(body, "x");
    assert_eq!(at(&o, "/a", TrainAi), (Unknown, None));
    assert_eq!(at(&o, "/b", TrainAi), (Unknown, None));
    assert_eq!(at(&o, "/c", TrainAi), (Disallow, Some(2)));
}

#[test]
fn encoded_length() {
    // `/é` encodes to `/%C3%A9`: 7 bytes, longer than `/*` (2).
    let body = "User-agent: *\nContent-Usage: /* train-ai=y\nContent-Usage: /\u{e9} train-ai=n\nContent-Usage: /%c3%a9x search=n\n";
    let o = oracle(body, "x");
    assert_eq!(at(&o, "/%C3%A9", TrainAi), (Disallow, Some(3)));
    assert_eq!(at(&o, "/%C3%A9x", Search), (Disallow, Some(4)));
    assert_eq!(at(&o, "/z", TrainAi), (Allow, Some(2)));
}

#[test]
fn dollar_and_star() {
    let body = "User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\n";
    let o = oracle(body, "x");
    assert_eq!(at(&o, "/x.pdf", TrainAi).0, Disallow);
    assert_eq!(at(&o, "/x.pdf?y", TrainAi).0, Unknown);
    assert_eq!(at(&o, "http://example.com/a/b.pdf", TrainAi).0, Disallow);
}

// --- Groups ---------------------------------------------------------------

#[test]
fn group_selection() {
    let body = "Content-Usage: train-ai=n\nUser-agent: a\nContent-Usage: search=n\nUser-agent: b\nDisallow: /x\n\nUser-agent: *\nContent-Usage: train-ai=y\nDisallow: /z\n\nUser-agent: a\nContent-Usage: /p train-ai=n\n";
    let a = oracle(body, "a");
    assert_eq!(at(&a, "/", Search), (Disallow, Some(3)));
    assert_eq!(at(&a, "/", TrainAi), (Unknown, None));
    assert_eq!(at(&a, "/p", TrainAi), (Disallow, Some(12)));
    // attach-05: line 3 is a rule, so `User-agent: b` starts b's own group.
    let b = oracle(body, "B");
    assert_eq!(at(&b, "/", Search), (Unknown, None));
    assert!(!b.crawl_allowed(b"/x"));
    let b = SignalsOracle::grouped(body.as_bytes(), &["B"], &[], Grouping::Crawl);
    assert_eq!(at(&b, "/", Search), (Disallow, Some(3)));
    assert_eq!(at(&b, "/x", Search), (Unknown, None));
    let c = oracle(body, "c");
    assert_eq!(at(&c, "/", TrainAi), (Allow, Some(8)));
    assert_eq!(at(&c, "/", Search), (Unknown, None));
    assert_eq!(at(&c, "/p", TrainAi), (Allow, Some(8)));
}

#[test]
fn content_usage_ends_the_agent_lines() {
    // attach-05: the Content-Usage line is the `*` group's rule, so
    // `User-agent: a` starts a group of its own.
    let body =
        "User-agent: *\nContent-Usage: train-ai=y\n\nUser-agent: a\nContent-Usage: /p train-ai=n\n";
    assert_eq!(at(&oracle(body, "c"), "/p", TrainAi), (Allow, Some(2)));
    assert_eq!(at(&oracle(body, "a"), "/", TrainAi), (Unknown, None));
    assert_eq!(at(&oracle(body, "a"), "/p", TrainAi), (Disallow, Some(5)));
    // Google's grouping: no Allow/Disallow in the `*` group, so
    // `User-agent: a` joins it.
    let crawl = |agent| SignalsOracle::grouped(body.as_bytes(), &[agent], &[], Grouping::Crawl);
    assert_eq!(at(&crawl("c"), "/p", TrainAi), (Disallow, Some(5)));
    assert_eq!(at(&crawl("a"), "/", TrainAi), (Allow, Some(2)));
}

#[test]
fn content_signal_scopes() {
    let body = "Content-Signal: search=yes, ai-train=no\nUser-agent: *\nContent-Signal: ai-input=no\nDisallow: /private\n\nUser-agent: a\nAllow: /\nContent-signal: search=no\nContent-Usage: Content-Signal: ai-input=yes\n";
    let x = oracle(body, "x");
    assert_eq!(at(&x, "/q", Search), (Allow, Some(1)));
    assert_eq!(at(&x, "/q", TrainAi), (Disallow, Some(1)));
    assert_eq!(at(&x, "/q", AiInput), (Disallow, Some(3)));
    let a = oracle(body, "a");
    assert_eq!(at(&a, "/q", Search), (Disallow, Some(8)));
    assert_eq!(at(&a, "/q", TrainAi), (Disallow, Some(1)));
    assert_eq!(at(&a, "/q", AiInput), (Unknown, None));
}

#[test]
fn crawlability() {
    let body = "User-agent: *\nDisallow: /private\nContent-Signal: search=yes\nContent-Usage: train-ai=n\n";
    let t = trained(body, "x", &["Google-Extended"]);
    assert!(!t.crawl_allowed(b"/private/a"));
    for channel in Channel::ALL {
        assert_eq!(at(&t, "/private/a", channel), (Unknown, None));
    }
    assert_eq!(at(&t, "/public", Search), (Allow, Some(3)));
    assert!(t.crawl_allowed(b"/robots.txt"));
}

// --- Training tokens -------------------------------------------------------

#[test]
fn training_tokens() {
    let body = "User-agent: *\nDisallow: /star\n\nUser-agent: Googlebot\nAllow: /\n\nUser-agent: Google-Extended\nDisallow: /\nAllow: /open\n\nUser-agent: Applebot-Extended\nDisallow: /apple\n";
    let t = trained(body, "Googlebot", &["Google-Extended", "Applebot-Extended"]);
    assert_eq!(at(&t, "/a", TrainAi), (Disallow, Some(8)));
    assert_eq!(at(&t, "/a", Search), (Unknown, None));
    assert_eq!(at(&t, "/open", TrainAi), (Unknown, None));
    assert_eq!(at(&t, "/apple", TrainAi), (Disallow, Some(8)));
    assert_eq!(at(&t, "/open/apple", TrainAi), (Unknown, None));
    let t = trained(body, "Googlebot", &["Applebot-Extended"]);
    assert_eq!(at(&t, "/apple", TrainAi), (Disallow, Some(12)));
    // A token no group names obeys `*` (Google's common crawlers do).
    let t = trained(body, "Googlebot", &["CCBot"]);
    assert_eq!(at(&t, "/star", TrainAi), (Disallow, Some(2)));
    assert_eq!(at(&t, "/a", TrainAi), (Unknown, None));
}

#[test]
fn combination_order() {
    let body = "Content-Signal: ai-train=yes\nUser-agent: *\nAllow: /\nContent-Usage: train-ai=y\nContent-Signal: ai-train=no\n\nUser-agent: Google-Extended\nDisallow: /g\n";
    let t = trained(body, "x", &["Google-Extended"]);
    assert_eq!(at(&t, "/a", TrainAi), (Disallow, Some(5)));
    assert_eq!(at(&t, "/g", TrainAi), (Disallow, Some(5)));
    let body = "User-agent: *\nAllow: /\nContent-Usage: search=y\nContent-Signal: search=yes\n\nUser-agent: Google-Extended\nDisallow: /g\n";
    let t = trained(body, "x", &["Google-Extended"]);
    assert_eq!(at(&t, "/a", Search), (Allow, Some(3)));
    assert_eq!(at(&t, "/g", TrainAi), (Disallow, Some(7)));
    // Source order, not file order: Content-Usage names the line.
    let body = "Content-Signal: search=no\nUser-agent: *\nContent-Usage: search=n\n";
    assert_eq!(at(&oracle(body, "x"), "/", Search), (Disallow, Some(3)));
    let body = "Content-Signal: search=no\nUser-agent: *\nContent-Usage: search=y\n";
    assert_eq!(at(&oracle(body, "x"), "/", Search), (Disallow, Some(1)));
}
