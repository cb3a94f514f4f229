//! robots.txt files built to hurt, for the tests and the benchmarks.
//!
//! Each input is generated (deterministically) rather than committed: several
//! are megabytes. `cargo run -p robocc-bench --release --bin hostile`
//! measures compile time and peak memory of each; `reference/tests/hostile.rs`
//! asserts generous bounds and engine/reference agreement; the small ones are
//! also written to `corpus/hostile/` (`--write`).

use crate::urlgen::Rng;
use robocc_compiler::dialect::Dialect;
use robocc_compiler::CompileOptions;

/// One hostile input.
pub struct Hostile {
    /// Short name (also the file name under corpus/hostile/).
    pub name: &'static str,
    /// What it attacks.
    pub what: &'static str,
    /// The bytes.
    pub body: Vec<u8>,
    /// Options it is compiled with (default, or no parse limit to let the
    /// whole file through).
    pub options: CompileOptions,
}

fn rfc(max_bytes: Option<usize>) -> CompileOptions {
    let mut o = CompileOptions::default();
    if let Some(m) = max_bytes {
        o.parse.max_bytes = m;
    }
    o
}

fn lines(head: &str, n: usize, mut line: impl FnMut(usize) -> String) -> Vec<u8> {
    let mut out = String::from(head);
    for i in 0..n {
        out.push_str(&line(i));
        out.push('\n');
    }
    out.into_bytes()
}

/// Every hostile input.
pub fn inputs() -> Vec<Hostile> {
    let mut rng = Rng::new(0x5eed_u64);
    let alpha = b"abcdefgh";
    let mut v = Vec::new();
    let mut push = |name, what, body, options| {
        v.push(Hostile {
            name,
            what,
            body,
            options,
        })
    };
    push(
        "ten-mb-rules",
        "10 MB of distinct literal rules, default 500 KiB parse limit",
        lines("User-agent: *\n", 330_000, |i| {
            format!("Disallow: /dir{}/page-{i}.html", i % 97)
        }),
        rfc(None),
    );
    push(
        "ten-mb-rules-unlimited",
        "the same 10 MB with no parse limit (100,000 rules per group kept)",
        lines("User-agent: *\n", 330_000, |i| {
            format!("Disallow: /dir{}/page-{i}.html", i % 97)
        }),
        rfc(Some(0)),
    );
    push(
        "one-mb-line",
        "one 1 MB line (cut at 16,663 bytes)",
        [
            &b"User-agent: *\nDisallow: /"[..],
            &vec![b'a'; 1 << 20],
            b"\n",
        ]
        .concat(),
        rfc(Some(0)),
    );
    push(
        "hundred-k-rules",
        "100,000 short rules, no parse limit",
        lines("User-agent: *\n", 100_000, |i| format!("Allow:/{i:x}")),
        rfc(Some(0)),
    );
    push(
        "thousands-of-stars",
        "patterns of 4,000 `*` (collapsed) and 2,000 `*x` segments",
        lines("User-agent: *\n", 4, |i| {
            if i % 2 == 0 {
                format!("Disallow: /{}end", "*".repeat(4000))
            } else {
                format!("Disallow: /{}$", "*x".repeat(2000))
            }
        }),
        rfc(None),
    );
    push(
        "star-family-blowup",
        "`/*ab*ca*…` families: subset construction blow-up, 500 KiB of them",
        lines("User-agent: *\n", 40_000, |_| {
            let k = 2 + rng.below(5);
            let mut p = String::from("Disallow: /");
            for _ in 0..k {
                p.push('*');
                for _ in 0..2 {
                    p.push(alpha[rng.below(alpha.len())] as char);
                }
            }
            p
        }),
        rfc(None),
    );
    push(
        "overlapping-star-dollar",
        "many overlapping `*x*y$` rules",
        lines("User-agent: *\n", 3000, |i| {
            let a = alpha[i % 8] as char;
            let b = alpha[(i / 8) % 8] as char;
            format!(
                "{}: /*{a}{}*{b}*{a}$",
                if i % 3 == 0 { "Allow" } else { "Disallow" },
                i % 13
            )
        }),
        rfc(None),
    );
    push(
        "nul-bytes",
        "NULs inside keys, values and agents",
        b"User-agent: *\0bot\nDisallow: /a\0/b\nDis\0allow: /c\n\0\0\0\nAllow: /\0\n".to_vec(),
        rfc(None),
    );
    let mut invalid = b"User-agent: \xff\xfebot\nUser-agent: *\nDisallow: /\xc3\x28\nDisallow: /\xe2\x82\nAllow: /\xf0\x90\x80\n".to_vec();
    invalid.extend((0..4000).map(|_| 0x80 + rng.below(0x80) as u8));
    push(
        "invalid-utf8",
        "invalid UTF-8 in agents and patterns, then 4,000 high bytes",
        invalid,
        rfc(None),
    );
    let utf16: Vec<u8> = [0xFFu8, 0xFE]
        .into_iter()
        .chain(
            "User-agent: *\r\nDisallow: /private\r\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    push(
        "utf16-bom",
        "UTF-16LE with a BOM (every other byte NUL: nothing parses)",
        utf16,
        rfc(None),
    );
    push(
        "bom-cr-only",
        "UTF-8 BOM and CR-only line ends",
        b"\xef\xbb\xbfUser-agent: *\rDisallow: /a\rAllow: /a/b\r\rUser-agent: x\rDisallow: /\r"
            .to_vec(),
        rfc(None),
    );
    push(
        "hundred-k-agents",
        "100,000 user-agent lines, then one rule",
        {
            let mut b = lines("", 100_000, |i| format!("User-agent: bot{i}"));
            b.extend_from_slice(b"Disallow: /\n");
            b
        },
        rfc(Some(0)),
    );
    push(
        "html-page",
        "an HTML error page served as robots.txt",
        b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>\n<h1>Not Found</h1>\n<p>The requested URL: /robots.txt was not found on this server.</p>\n<a href=\"/\">Disallow: /home</a>\n</body></html>\n".to_vec(),
        rfc(None),
    );
    push(
        "random-bytes",
        "1 MB of random bytes",
        (0..1 << 20).map(|_| rng.below(256) as u8).collect(),
        rfc(Some(0)),
    );
    push(
        "shell-class-blowup",
        "robots2 2.0 wildcards: 2,000 `*[ab]?*[!c]…` patterns",
        lines("User-agent: *\nRobot-version: 2.0\n", 2000, |i| {
            let mut p = String::from(if i % 2 == 0 { "Allow: " } else { "Disallow: " });
            for _ in 0..1 + rng.below(4) {
                p.push('*');
                p.push_str(["[ab]", "?", "[!c]", "d", "[a-f]"][rng.below(5)]);
            }
            p
        }),
        CompileOptions {
            dialect: Dialect::Robots2,
            ..CompileOptions::default()
        },
    );
    let usages = ["crawl", "index", "present", "present-snippet", "other"];
    push(
        "acap-star-families",
        "acap: 3,000 `/*ab*ca*…` rules over five usages, alternating allow and disallow \
         (set-mode states keep every matched rule)",
        lines("ACAP-crawler: *\n", 3000, |i| {
            let mut p = format!(
                "ACAP-{}-{}: /",
                if i % 2 == 0 { "allow" } else { "disallow" },
                usages[i % usages.len()]
            );
            for _ in 0..2 + rng.below(3) {
                p.push('*');
                p.push(alpha[rng.below(alpha.len())] as char);
                p.push(alpha[rng.below(alpha.len())] as char);
            }
            p
        }),
        CompileOptions {
            dialect: Dialect::Acap,
            ..CompileOptions::default()
        },
    );
    push(
        "acap-huge-conflict",
        "acap: 20,000 rules that all match every path, half allow, half disallow \
         (every state resolves a 20,000-rule conflict for each usage)",
        lines("ACAP-crawler: *\n", 20_000, |i| {
            format!(
                "ACAP-{}-{}: /*{}",
                if i % 2 == 0 { "allow" } else { "disallow" },
                usages[i % usages.len()],
                "*".repeat(i % 3)
            )
        }),
        CompileOptions {
            dialect: Dialect::Acap,
            ..CompileOptions::default()
        },
    );
    v
}
