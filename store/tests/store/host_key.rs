//! The builder's host key and the engine's lookup agree: the key
//! `host_key` stores a host under is the key `HostKey::of_url` reads from
//! a URL of that host (docs/artifact.md, "Keys"), for generated hosts.

use proptest::prelude::*;
use robocc_engine::HostKey;
use robocc_store::host_key;

/// A label of letters (either case), digits, `-` and `_`, not starting or
/// ending with `-`.
fn label() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,6}[a-zA-Z0-9_])?"
}

/// A name of one to four labels, perhaps with a trailing dot; its last
/// label is sometimes a number (`a.123`, `1.2.3`, `a.0x1f`), which URL
/// parsers read as an IPv4 address (WHATWG) or a name (RFC 3986): the
/// engine reads no host in such a URL and the builder refuses it.
fn name() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(label(), 0..4),
        prop_oneof![
            3 => "[a-zA-Z0-9_-]{0,3}[a-zA-Z][a-zA-Z0-9_-]{0,3}",
            1 => "[0-9]{1,4}|0[xX][0-9a-fA-F]{0,3}",
        ],
        any::<bool>(),
    )
        .prop_filter_map(
            "a label starts or ends with '-'",
            |(mut labels, last, dot)| {
                if last.starts_with('-') || last.ends_with('-') {
                    return None;
                }
                labels.push(last);
                let mut n = labels.join(".");
                if dot {
                    n.push('.');
                }
                Some(n)
            },
        )
}

/// An IPv4 address, dotted decimal.
fn ipv4() -> impl Strategy<Value = String> {
    any::<[u8; 4]>().prop_map(|o| std::net::Ipv4Addr::from(o).to_string())
}

/// An IPv6 literal in brackets: canonical, every group written out in
/// upper case, or with an embedded IPv4 address.
fn ipv6() -> impl Strategy<Value = String> {
    (any::<[u16; 8]>(), 0..3u8, 0..4usize).prop_map(|(g, form, zeros)| {
        let mut g = g;
        // Runs of zeros, which the canonical form compresses.
        for x in g.iter_mut().skip(zeros).take(zeros * 2) {
            *x = 0;
        }
        let addr = std::net::Ipv6Addr::from(g);
        let inner = match form {
            0 => addr.to_string(),
            1 => g
                .iter()
                .map(|x| format!("{x:X}"))
                .collect::<Vec<_>>()
                .join(":"),
            _ => {
                let head: Vec<String> = g[..6].iter().map(|x| format!("{x:x}")).collect();
                let v4 = std::net::Ipv4Addr::from((u32::from(g[6]) << 16) | u32::from(g[7]));
                format!("{}:{v4}", head.join(":"))
            }
        };
        format!("[{inner}]")
    })
}

/// No port, an empty one, or a port with up to three leading zeros: 80,
/// 443, 8080 or any from 1 to 65535.
fn port() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some(String::new())),
        (
            0..4usize,
            prop_oneof![Just(80u16), Just(443), Just(8080), 1..=u16::MAX]
        )
            .prop_map(|(zeros, p)| Some(format!("{}{p}", "0".repeat(zeros)))),
    ]
}

fn host() -> impl Strategy<Value = String> {
    (prop_oneof![3 => name(), 1 => ipv4(), 1 => ipv6()], port()).prop_map(|(h, p)| match p {
        Some(p) => format!("{h}:{p}"),
        None => h,
    })
}

/// The key a lookup of `scheme://{host}/` reads, given the key a build
/// stores `host` under: the same, except that a build drops both default
/// ports (80 and 443) while a URL drops only its scheme's.
fn looked_up_as(stored: &str, host: &str, scheme: &str) -> String {
    let port: Option<u16> = host
        .rsplit_once(':')
        .filter(|(h, _)| !h.ends_with(':') && (h.starts_with('[') == h.ends_with(']')))
        .and_then(|(_, p)| p.parse().ok());
    let other_default = if scheme == "http" { 443 } else { 80 };
    match port {
        Some(p) if p == other_default => format!("{stored}:{p}"),
        _ => stored.to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Every host a build accepts is found by a URL of that host, under the
    /// key the build stored, with the partition hash a store set uses.
    #[test]
    fn a_stored_key_is_the_key_a_url_of_the_host_looks_up(host in host()) {
        for scheme in ["http", "https"] {
            let url = format!("{scheme}://{host}/");
            let k = HostKey::of_url(url.as_bytes());
            let stored = host_key(&host);
            // The builder refuses exactly the hosts no URL reaches.
            prop_assert_eq!(stored.is_ok(), k.is_some(), "{}: {:?}", url, stored);
            let (Ok(stored), Some(k)) = (stored, k) else { continue };
            let want = looked_up_as(&stored, &host, scheme);
            prop_assert_eq!(k.to_key(), want.clone(), "{}", url);
            prop_assert!(k.eq_stored(want.as_bytes()), "{url}");
            let of_key = HostKey::of_key(&want).map(|s| s.hash());
            prop_assert_eq!(of_key, Some(k.hash()), "{}", url);
        }
    }
}
