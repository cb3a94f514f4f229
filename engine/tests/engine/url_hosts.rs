//! A store looks a URL up by its host: that host must be the one clients
//! fetch. Differential against the `url` crate (the WHATWG URL standard, as
//! browsers read URLs); Python's suite does the same against
//! `urllib.parse` (RFC 3986), python/tests/test_url_hosts.py. Where robocc
//! reads a host, the parser reads the same host and port; where parsers
//! could disagree, robocc reads none (the lookup answers "no host").

use robocc_engine::HostKey;

/// The host and port `url` (WHATWG) fetches for `u`, as a store keys them:
/// lower case, one trailing dot dropped, no default port; a `//host`
/// reference resolved against an `http:` or an `https:` page (robocc does
/// not know which, so either port reading is the parser's).
fn whatwg_keys(u: &str) -> Vec<String> {
    if u.starts_with("//") {
        ["http://base.invalid/", "https://base.invalid/"]
            .iter()
            .filter_map(|base| url::Url::parse(base).ok()?.join(u).ok())
            .filter_map(|parsed| key_of(&parsed))
            .collect()
    } else {
        url::Url::parse(u)
            .ok()
            .and_then(|p| key_of(&p))
            .into_iter()
            .collect()
    }
}

fn key_of(parsed: &url::Url) -> Option<String> {
    let host = match parsed.host()? {
        url::Host::Domain(d) => {
            let d = d.to_ascii_lowercase();
            d.strip_suffix('.').map(str::to_string).unwrap_or(d)
        }
        url::Host::Ipv4(a) => a.to_string(),
        url::Host::Ipv6(a) => format!("[{a}]"),
    };
    Some(match parsed.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

fn robocc_key(u: &str) -> Option<String> {
    HostKey::of_url(u.as_bytes()).map(|k| k.to_key())
}

/// What robocc reads must be what the parser reads; `true` when robocc
/// read a host.
fn agree(u: &str) -> bool {
    let Some(ours) = robocc_key(u) else {
        return false;
    };
    let theirs = whatwg_keys(u);
    assert!(
        theirs.contains(&ours),
        "{u:?}: robocc looks up {ours:?}, a browser fetches {theirs:?}"
    );
    true
}

const SCHEMES: [&str; 4] = ["http://", "https://", "HTTPS://", "//"];

/// The attacks of issue 41 and their siblings, one by one.
#[test]
fn hostile_authorities_name_the_host_a_client_fetches_or_none() {
    for (authority, read) in [
        ("allowed.example;@victim.example", false),
        ("[::1];@victim.example", false),
        ("allowed.example\\@victim.example", false),
        ("allowed.example@victim.example", true),
        ("allowed.example:x@victim.example", true),
        ("a@b@victim.example", true),
        ("[::1]@victim.example", false),
        ("a]@victim.example", false),
        ("%61@victim.example", true),
        ("vic\ttim.example", false),
        ("victim.example\n", false),
        ("victim%2Eexample", false),
        ("1.2.3", false),
        ("0x7f.0.0.1", false),
        ("127.000.0.1", false),
        ("127.0.0.1", true),
        ("victim.example:0443", true),
        ("victim.example:65536", false),
        ("[2001:DB8::1]:8080", true),
        ("[::1", false),
        ("victim.example.", true),
    ] {
        for scheme in SCHEMES {
            for rest in ["/private", "", "?q", "#f", "/a;b"] {
                let u = format!("{scheme}{authority}{rest}");
                assert_eq!(agree(&u), read, "{u:?}");
            }
        }
    }
}

/// Authorities put together from the pieces URL parsers treat specially,
/// 200,000 of them: wherever robocc reads a host, WHATWG reads the same.
#[test]
fn generated_authorities_agree_with_whatwg() {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "A",
        "z9",
        ".",
        ".",
        "0",
        "9",
        "255",
        "256",
        "0x",
        "@",
        "@",
        ":",
        ":",
        "80",
        "443",
        "8080",
        "[",
        "]",
        "[::1]",
        "[::ffff:1.2.3.4]",
        "%",
        "%41",
        "\\",
        ";",
        " ",
        "\t",
        "\r",
        "_",
        "-",
        "~",
        "!",
        "$",
        "&",
        "'",
        "(",
        "*",
        "+",
        ",",
        "=",
        "{",
        "|",
        "^",
        "<",
        "\"",
        "\u{7f}",
        "\u{0}",
    ];
    const ENDS: &[&str] = &["/p", "", "?q", "#f", ";x", "/;@a/", "?@b/"];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |n: usize| {
        // xorshift64*: deterministic, no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    };
    let (mut read, mut cases) = (0, 0);
    for _ in 0..200_000 {
        let mut authority = String::new();
        for _ in 0..1 + next(7) {
            authority.push_str(PIECES[next(PIECES.len())]);
        }
        let u = format!(
            "{}{authority}{}",
            SCHEMES[next(SCHEMES.len())],
            ENDS[next(ENDS.len())]
        );
        cases += 1;
        read += usize::from(agree(&u));
    }
    // Not a reader that refuses everything: plenty of these are hosts.
    assert!(read > cases / 10, "{read} of {cases}");
}

/// Plain hosts (what crawlers fetch) are read, with every port form.
#[test]
fn plain_hosts_are_read() {
    for host in [
        "example.com",
        "WWW.Example.COM",
        "my_blog.example",
        "1.2.3.4",
        "[::1]",
    ] {
        for port in ["", ":", ":80", ":443", ":8080", ":008080"] {
            for scheme in SCHEMES {
                let u = format!("{scheme}{host}{port}/robots.txt");
                assert!(agree(&u), "{u:?}");
            }
        }
    }
}
