use super::*;

fn google(body: &str, agent: &str, url: &str) -> bool {
    check(
        body.as_bytes(),
        agent,
        &Rfc9309Options::google(),
        url.as_bytes(),
    )
    .allowed
}

/// Google's `TestGetPathParamsQuery`, row by row.
#[test]
fn path_params_query_is_googles() {
    let rows = [
        ("", "/"),
        ("http://www.example.com", "/"),
        ("http://www.example.com/", "/"),
        ("http://www.example.com/a", "/a"),
        ("http://www.example.com/a/", "/a/"),
        (
            "http://www.example.com/a/b?c=http://d.e/",
            "/a/b?c=http://d.e/",
        ),
        (
            "http://www.example.com/a/b?c=d&e=f#fragment",
            "/a/b?c=d&e=f",
        ),
        ("example.com", "/"),
        ("example.com/", "/"),
        ("example.com/a", "/a"),
        ("example.com/a/", "/a/"),
        ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("a", "/"),
        ("a/", "/"),
        ("/a", "/a"),
        ("a/b", "/b"),
        ("example.com?a", "/?a"),
        ("example.com/a;b#c", "/a;b"),
        ("//a/b/c", "/b/c"),
        // A fragment before the path leaves nothing of it; `://` after a
        // path character is no scheme.
        ("http://a#b/c", "/"),
        ("a#b://c/d", "/"),
        ("http#://a.com/x", "/"),
        ("a/b://c/d", "/b://c/d"),
        ("ab:?//x", "/?//x"),
        ("x?y://h/p", "/?y://h/p"),
        ("x://h/p", "/p"),
        ("://h/p", "/p"),
        ("//x://h/p", "/p"),
        ("http://a.com;x", "/;x"),
        ("/", "/"),
        ("//", "/"),
    ];
    for (url, path) in rows {
        assert_eq!(
            String::from_utf8(path_params_query(url.as_bytes())).unwrap(),
            path,
            "{url:?}"
        );
    }
}

/// Google's `TestMaybeEscapePattern`, and the cases around an escape.
#[test]
fn google_pattern_is_maybe_escape_pattern() {
    let rows: [(&[u8], &str); 7] = [
        (b"http://www.example.com", "http://www.example.com"),
        (b"/a/b/c", "/a/b/c"),
        ("á".as_bytes(), "%C3%A1"),
        (b"%aa", "%AA"),
        (b"/a%2fb%", "/a%2Fb%"),
        (b"/%zz%4", "/%zz%4"),
        (b"/caf\xe9", "/caf%E9"),
    ];
    for (value, want) in rows {
        assert_eq!(google_pattern(value), want.as_bytes(), "{value:?}");
    }
}

#[test]
fn rfc_forms() {
    let p = |s: &str| String::from_utf8(rfc_pattern(s.as_bytes())).unwrap();
    let u = |s: &str| String::from_utf8(rfc_path(s.as_bytes())).unwrap();
    assert_eq!(p("/foo/bar/%62%61%7A"), "/foo/bar/baz");
    assert_eq!(p("/foo/bar/ツ"), "/foo/bar/%E3%83%84");
    assert_eq!(p("/a%2fb"), "/a%2Fb");
    assert_eq!(p("/*.php$"), "/*.php$");
    assert_eq!(p("/a$b"), "/a%24b");
    assert_eq!(p("/100%"), "/100%25");
    assert_eq!(u("/file-*.html"), "/file-%2A.html");
    assert_eq!(u("/foo-$"), "/foo-%24");
    assert_eq!(u("/a b\0"), "/a%20b%00");
    assert_eq!(u("/%7ejoe?q=%3a"), "/~joe?q=%3A");
}

/// Google's `ID_LinesNumbersAreCountedCorrectly`: four directives, the
/// last on line 6, whatever ends the lines.
#[test]
fn line_numbers_are_googles() {
    let files: [&[u8]; 5] = [
        b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
        b"User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
        b"User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
        b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
        b"User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
    ];
    for file in files {
        let read = read(file, &Rfc9309Options::default());
        let numbers: Vec<u32> = read.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [1, 2, 3, 6], "{file:?}");
    }
}

/// Google's `ID_UTF8ByteOrderMarkIsSkipped`: a whole or partial mark at the
/// start is skipped; anywhere else it is data.
#[test]
fn byte_order_marks() {
    let keys = |body: &[u8]| -> Vec<Key> {
        read(body, &Rfc9309Options::default())
            .iter()
            .map(|l| l.key)
            .collect()
    };
    for bom in [&b"\xef\xbb\xbf"[..], b"\xef\xbb", b"\xef"] {
        let body = [bom, b"User-Agent: foo\nAllow: /AnyValue\n"].concat();
        assert_eq!(keys(&body), [Key::UserAgent, Key::Allow], "{bom:?}");
    }
    assert_eq!(
        keys(b"\xef\x11\xbfUser-Agent: foo\nAllow: /AnyValue\n"),
        [Key::Other, Key::Allow]
    );
    assert_eq!(
        keys(b"User-Agent: foo\n\xef\xbb\xbfAllow: /AnyValue\n"),
        [Key::UserAgent, Key::Other]
    );
}

#[test]
fn keys_and_values() {
    let kv = |s: &str| key_and_value(s.as_bytes()).map(|(k, v)| (k.to_vec(), v.to_vec()));
    let pair = |k: &str, v: &str| Some((k.as_bytes().to_vec(), v.as_bytes().to_vec()));
    assert_eq!(kv("  Disallow : /a # c"), pair("Disallow", "/a"));
    assert_eq!(kv("Disallow /x"), pair("Disallow", "/x"));
    assert_eq!(kv("Disallow \t /x"), pair("Disallow", "/x"));
    assert_eq!(kv("Disallow /x /y"), None);
    assert_eq!(kv("Disallow"), None);
    assert_eq!(kv(": /x"), None);
    assert_eq!(kv("# only"), None);
    assert_eq!(kv("Disallow:"), pair("Disallow", ""));
    assert_eq!(kv("Sitemap: http://x/y"), pair("Sitemap", "http://x/y"));
    assert_eq!(kv("Disallow:\x0b/a\x0c"), pair("Disallow", "/a"));
    let kinds = [
        ("Disallowed", Key::Disallow),
        ("DISSALOW", Key::Disallow),
        ("user agent", Key::UserAgent),
        ("useragent", Key::UserAgent),
        ("Site-map", Key::Sitemap),
        ("Allowance", Key::Allow),
        ("crawl-delay", Key::Other),
        ("noindex", Key::Other),
    ];
    for (key, kind) in kinds {
        assert_eq!(key_kind(key.as_bytes()), kind, "{key}");
    }
}

/// A line keeps `max_line_len` bytes and ends at a NUL.
#[test]
fn long_lines_and_nul() {
    let mut body = b"User-agent: *\nDisallow: /".to_vec();
    body.extend(std::iter::repeat_n(b'a', 20_000));
    body.extend_from_slice(b"\nDisallow: /b\0/c\n");
    let read = read(&body, &Rfc9309Options::default());
    assert_eq!(
        read[1].value.len(),
        DEFAULT_MAX_LINE_LEN - "Disallow: ".len()
    );
    assert_eq!(read[2].value, b"/b");
}

/// The parse limit keeps whole lines only.
#[test]
fn parse_limit_keeps_whole_lines() {
    let body = b"User-agent: *\nDisallow: /private\n";
    assert_eq!(within_limit(body, 0), body);
    assert_eq!(within_limit(body, body.len()), body);
    assert_eq!(within_limit(body, 20), b"User-agent: *\n");
    assert_eq!(within_limit(body, 5), b"");
    assert_eq!(within_limit(b"a\rbc", 3), b"a\r");
    let limited = Rfc9309Options {
        max_bytes: 24,
        ..Rfc9309Options::default()
    };
    assert_eq!(
        check(body, "x", &limited, b"/private"),
        OracleVerdict::DEFAULT
    );
}

#[test]
fn utf16_is_decoded() {
    let text = "User-agent: *\nDisallow: /private\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for body in [
        [&[0xff, 0xfe][..], &le].concat(),
        [&[0xfe, 0xff][..], &be].concat(),
        le.clone(),
        be.clone(),
    ] {
        assert_eq!(&*body_text(&body), text.as_bytes(), "{:?}", &body[..4]);
        let v = check(&body, "x", &Rfc9309Options::default(), b"/private/a");
        assert_eq!(v.line, Some(2));
    }
    // UTF-32's mark, too short a sample, a robocc file: as they are.
    let utf32 = [0xff, 0xfe, 0, 0, b'a', 0, 0, 0];
    assert_eq!(&*body_text(&utf32), &utf32);
    assert_eq!(&*body_text(&le[..14]), &le[..14]);
    let policy = [&b"ROBOCC\0P"[..], &le].concat();
    assert_eq!(&*body_text(&policy), &policy[..]);
    // An unpaired surrogate becomes U+FFFD.
    let bad = [0xff, 0xfe, b'a', 0, 0x00, 0xd8, b'b', 0];
    assert_eq!(&*body_text(&bad), "a\u{fffd}b".as_bytes());
}

/// Google's `ID_LineSyntax_Groups`.
#[test]
fn groups_are_googles() {
    let body = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\n\
                user-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\n\
                user-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n";
    assert!(google(body, "FooBot", "http://foo.bar/x/b"));
    assert!(google(body, "FooBot", "http://foo.bar/z/d"));
    assert!(!google(body, "FooBot", "http://foo.bar/y/c"));
    assert!(google(body, "BarBot", "http://foo.bar/y/c"));
    assert!(google(body, "BarBot", "http://foo.bar/w/a"));
    assert!(!google(body, "BarBot", "http://foo.bar/z/d"));
    assert!(google(body, "BazBot", "http://foo.bar/z/d"));
    for agent in ["FooBot", "BarBot", "BazBot"] {
        assert!(!google(body, agent, "http://foo.bar/foo/bar/"), "{agent}");
    }
}

/// Google's `ID_LineSyntax_Groups_OtherRules`, and robocc's option that
/// reads other records as the end of the agent lines.
#[test]
fn other_records_and_records_close_groups() {
    let bodies = [
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
        "User-agent: BarBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
    ];
    let closing = Rfc9309Options {
        records_close_groups: true,
        ..Rfc9309Options::google()
    };
    for body in bodies {
        assert!(!google(body, "FooBot", "http://foo.bar/"));
        assert!(!google(body, "BarBot", "http://foo.bar/"));
        let o = Rfc9309Oracle::new(body.as_bytes(), "BarBot", &closing);
        assert_eq!(o.chosen(), Chosen::Named);
        assert!(o.check(b"/").allowed, "{body}");
    }
}

/// Agent values: `*` with trailing text is global, a value is read up to
/// its first character outside `[A-Za-z_-]`, equality not substring.
#[test]
fn agent_values() {
    let body = "User-agent: * crawlers\nDisallow: /a\n\nUser-agent: Foo Bar/2.1\nDisallow: /b\n\
                \nUser-agent: FooBot-Extra\nDisallow: /c\n\nUser-agent: *bot\nDisallow: /d\n";
    let o = |agent: &str| Rfc9309Oracle::new(body.as_bytes(), agent, &Rfc9309Options::google());
    let lines = |o: &Rfc9309Oracle| o.rules().iter().map(|r| r.line).collect::<Vec<_>>();
    assert_eq!(lines(&o("foo")), [5]);
    assert_eq!(lines(&o("FooBot")), [2]);
    assert_eq!(o("FooBot").chosen(), Chosen::Global);
    assert_eq!(lines(&o("fooBOT-extra")), [8]);
    let none = Rfc9309Oracle::new(
        b"User-agent: x\nDisallow: /\n",
        "y",
        &Rfc9309Options::google(),
    );
    assert_eq!(none.chosen(), Chosen::Nothing);
    assert_eq!(none.check(b"/"), OracleVerdict::DEFAULT);
}

/// A named group without rules still sets the `*` groups aside.
#[test]
fn named_group_without_rules() {
    let body = "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\nDisallow:\n";
    assert!(google(body, "FooBot", "/x"));
    assert!(!google(body, "BarBot", "/x"));
}

#[test]
fn longest_match_and_deciding_line() {
    let body = b"User-agent: *\nAllow: /a\nDisallow: /a\nDisallow: /*.gif$\nAllow: /b/c\n\
                 Disallow: /b/\n";
    let o = Rfc9309Oracle::new(body, "x", &Rfc9309Options::google());
    let v = |allowed, line| OracleVerdict {
        allowed,
        line: Some(line),
    };
    assert_eq!(o.check(b"/a"), v(true, 2), "Allow wins a tie");
    assert_eq!(o.check(b"/a.gif"), v(false, 4));
    assert_eq!(o.check(b"/b/c"), v(true, 5));
    assert_eq!(o.check(b"/b/d"), v(false, 6));
    assert_eq!(o.check(b"/c"), OracleVerdict::DEFAULT);
    // Among equals the first line is named.
    let twice = b"User-agent: *\nDisallow: /a\nDisallow: /a\n";
    let o = Rfc9309Oracle::new(twice, "x", &Rfc9309Options::google());
    assert_eq!(o.check(b"/ab"), v(false, 2));
}

/// Google's `index.htm` rule: `<dir>/` itself is allowed too.
#[test]
fn index_htm() {
    let body = b"User-agent: *\nDisallow: /\nAllow: /a/index.html\nAllow: /b/index.php\n";
    let o = Rfc9309Oracle::new(body, "x", &Rfc9309Options::google());
    assert_eq!(
        o.check(b"/a/"),
        OracleVerdict {
            allowed: true,
            line: Some(3)
        }
    );
    assert!(!o.check(b"/a/x").allowed);
    assert!(!o.check(b"/b/").allowed);
}

/// `/robots.txt` (exactly, as matched) is allowed with line 0 unless the
/// rules judge it.
#[test]
fn own_path() {
    let body = b"User-agent: *\nDisallow: /\n";
    let allowed = Rfc9309Oracle::new(body, "x", &Rfc9309Options::default());
    assert_eq!(allowed.check(b"/robots.txt"), OracleVerdict::SELF_PATH);
    assert!(!allowed.check(b"/robots.txt?x").allowed);
    assert!(!allowed.check(b"/%72obots.txt").allowed);
    let rfc = Rfc9309Options {
        url_mode: UrlMode::Rfc,
        ..Rfc9309Options::default()
    };
    let o = Rfc9309Oracle::new(body, "x", &rfc);
    assert_eq!(o.check(b"/%72obots.txt"), OracleVerdict::SELF_PATH);
    let data = Rfc9309Options {
        data_txt: true,
        ..Rfc9309Options::default()
    };
    let o = Rfc9309Oracle::new(body, "x", &data);
    assert_eq!(o.check(b"/data.txt"), OracleVerdict::SELF_PATH);
    assert!(!o.check(b"/robots.txt").allowed);
    assert!(!check(body, "x", &Rfc9309Options::google(), b"/robots.txt").allowed);
}

/// Rules past the per-group limit are dropped; the next group counts anew.
#[test]
fn rules_per_group_limit() {
    let body = b"User-agent: *\nDisallow: /a\nDisallow:\nDisallow: /b\n\
                 User-agent: *\nDisallow: /c\nDisallow: /d\nDisallow: /e\n";
    let two = Rfc9309Options {
        max_rules_per_group: 2,
        ..Rfc9309Options::google()
    };
    let o = Rfc9309Oracle::new(body, "x", &two);
    let lines: Vec<u32> = o.rules().iter().map(|r| r.line).collect();
    assert_eq!(lines, [2, 6, 7]);
}

/// In Google's mode the URL is matched as given and ends at a NUL; in the
/// RFC mode both sides are normalised.
#[test]
fn url_modes() {
    let body = "User-agent: *\nDisallow: /foo/bar/ツ\nDisallow: /a%2fb\nDisallow: /c$d\n";
    let g = Rfc9309Oracle::new(body.as_bytes(), "x", &Rfc9309Options::google());
    assert!(!g.check(b"/foo/bar/%E3%83%84").allowed);
    assert!(g.check("/foo/bar/ツ".as_bytes()).allowed);
    assert!(g.check(b"/a%2fb").allowed);
    assert!(!g.check(b"/c$d").allowed);
    assert!(g.check(b"/a\0%2Fb").allowed);
    let rfc = Rfc9309Options {
        url_mode: UrlMode::Rfc,
        ..Rfc9309Options::google()
    };
    let r = Rfc9309Oracle::new(body.as_bytes(), "x", &rfc);
    assert!(!r.check("/foo/bar/ツ".as_bytes()).allowed);
    assert!(!r.check(b"/foo/bar/%e3%83%84").allowed);
    assert!(!r.check(b"/a%2fb").allowed);
    assert!(r.check(b"/a/b").allowed);
    assert!(!r.check(b"/c$d").allowed);
    assert!(!r.check(b"/c%24d").allowed);
}
