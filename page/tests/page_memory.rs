//! The page reader's memory is bounded by the token being read, not by the
//! page: peak heap growth while reading, measured by a counting allocator
//! (one test in this binary, so nothing else allocates meanwhile).

use robocc_page::{PageOptions, PageRules};
use robocc_testkit::heap::{self, PeakHeap};

#[global_allocator]
static ALLOC: PeakHeap = PeakHeap;

/// Peak heap growth (bytes) while reading `html` (and dropping what was
/// read), with a past `now` and a declared purpose so that dated and
/// purposed statements are made.
fn peak_growth(html: &[u8]) -> usize {
    peak_growth_with(html, &[])
}

/// [`peak_growth`] with response headers.
fn peak_growth_with(html: &[u8], headers: &[(&str, &str)]) -> usize {
    let purposes = ["news".to_string(), "x".repeat(64)];
    let ((), peak) = heap::peak_growth(|| {
        let page = PageRules::read(
            html,
            headers.iter().copied(),
            &PageOptions {
                agent: "bot",
                url: "http://a/",
                purposes: &purposes,
                now: Some(2_000_000_000),
                head_only: false,
                tdmrep: None,
            },
        );
        std::hint::black_box(&page);
    });
    peak
}

/// One META whose content is `token` repeated to about `size` bytes
/// (`i` in a token numbered: `{i}` replaced by the repetition's number).
fn meta(head: &str, token: &str, size: usize) -> Vec<u8> {
    let mut tag = format!("<meta name=robots content=\"{head}").into_bytes();
    let mut i = 0usize;
    while tag.len() < size {
        tag.extend_from_slice(token.replace("{i}", &format!("{i:x}")).as_bytes());
        i += 1;
    }
    tag.extend_from_slice(b"\">");
    tag
}

#[test]
fn memory_is_bounded_by_the_token() {
    // 10 MB of ordinary markup (short tags and text runs), META at the end.
    let mut big = b"<html><head></head><body>".to_vec();
    while big.len() < 10_000_000 {
        big.extend_from_slice(b"<div class=\"c x\"><p>Lorem ipsum &amp; <a href=\"/x/y\">link</a></p><!-- c --></div>\n");
    }
    big.extend_from_slice(b"<meta name=robots content=noindex></body></html>");
    let grew = peak_growth(&big);
    assert!(grew < 256 * 1024, "10 MB page: heap grew by {grew} bytes");
    // One 4 MB attribute value: the tag being read is the bound.
    let mut tag = b"<meta name=robots content=\"".to_vec();
    tag.extend(std::iter::repeat_n(b'a', 4_000_000));
    tag.extend_from_slice(b"\">");
    let grew = peak_growth(&tag);
    // The tokenizer's buffer and ours grow by doubling (up to 2× each); the
    // content is read in place when it is UTF-8, and one unknown directive
    // is kept clipped.
    assert!(grew < 4 * 4_000_000, "4 MB tag: heap grew by {grew} bytes");
    eprintln!("ok: 10 MB page grew the heap by < 256 KB; a 4 MB tag by {grew} bytes");
    // A content of many tokens (audit F2: `none ` ×838,860 grew the heap
    // by 1.3 GB, one statement and a copy of its source per token): what a
    // tag makes is deduplicated as it is read, reported findings and
    // qualifiers are capped as they are read, and the statements kept share
    // their tag's source, so the content is the bound here too.
    const SIZE: usize = 4 << 20;
    for (head, token) in [
        ("", "none "),
        ("", "noindex,"),
        ("", "x "),
        ("", ","),
        ("", "max-snippet:0 "),
        ("", "noimageindex "),
        ("", "NoAi "),
        ("", "unavailable_after: 2020-01-01,"),
        // A date is looked for in a bounded run of the tokens after it
        // (audit F4); what follows it is read as directives.
        ("", "unavailable_after: 2020-01-01 nofollow "),
        ("", "unavailable_after: {i} "),
        ("ACAP ", "a "),
        ("ACAP ", "disallow-index "),
        ("ACAP ", "disallow-index-{i} "),
        ("ACAP ", "allow-index-{i} "),
        ("ACAP ", "allow-zz "),
        ("ACAP allow-present ", "q=1 "),
        ("ACAP allow-present ", "q "),
        ("ACAP disallow-present ", "q=1 "),
        ("ACAP news ", "disallow-index "),
        // What follows a version number is read as rules (audit F6).
        ("ACAP version 1.1 ", "disallow-index-{i} "),
        ("ACAP version 1.1 ", "allow-index-{i} q=1 "),
    ] {
        let html = meta(head, token, SIZE);
        let grew = peak_growth(&html);
        eprintln!("{head}{token:?} x {SIZE} bytes: heap grew by {grew} bytes");
        assert!(
            grew < 4 * SIZE,
            "{head}{token:?}: heap grew by {grew} bytes for a {SIZE}-byte tag"
        );
    }
    // An X-Robots-Tag of many agent prefixes (audit F5: a prefix starts at
    // any comma-separated element), addressed and not.
    for element in ["bot: noindex, ", "b{i}: noindex, "] {
        let mut value = String::new();
        let mut i = 0usize;
        while value.len() < SIZE {
            value.push_str(&element.replace("{i}", &format!("{i:x}")));
            i += 1;
        }
        let grew = peak_growth_with(b"", &[("X-Robots-Tag", &value)]);
        eprintln!("X-Robots-Tag {element:?} x {SIZE} bytes: heap grew by {grew} bytes");
        assert!(grew < 4 * SIZE, "{element:?}: heap grew by {grew} bytes");
    }
    // Many tags: each kept statement shares its tag's source.
    let mut tags = Vec::new();
    let mut i = 0;
    while tags.len() < SIZE {
        tags.extend_from_slice(
            format!("<meta name=robots content=\"ACAP disallow-index-{i}\">").as_bytes(),
        );
        i += 1;
    }
    let grew = peak_growth(&tags);
    eprintln!("{i} ACAP META tags: heap grew by {grew} bytes");
    assert!(grew < 4 * SIZE, "{i} tags: heap grew by {grew} bytes");
    // Many tags, each with its own purpose pattern that applies (`x`s and
    // `*`s, for the declared purpose of 64 `x`s): distinct statements.
    let mut tags = Vec::new();
    let mut i = 0u32;
    while tags.len() < SIZE {
        let pattern: String = (0..17)
            .map(|b| if i >> b & 1 == 1 { '*' } else { 'x' })
            .collect();
        tags.extend_from_slice(
            format!("<meta name=robots content=\"ACAP {pattern} disallow-index\">").as_bytes(),
        );
        i += 1;
    }
    let grew = peak_growth(&tags);
    eprintln!("{i} ACAP META tags with distinct purposes: heap grew by {grew} bytes");
    assert!(grew < 4 * SIZE, "{i} tags: heap grew by {grew} bytes");
    // One purpose pattern of 4 MiB (issue 41: a glob of it cost ~84 bytes
    // per byte, 3.4 GB for a 40 MB page): not matched past its cap.
    let mut tag = b"<meta name=robots content=\"ACAP ".to_vec();
    tag.extend(std::iter::repeat_n(b'x', SIZE));
    tag.extend_from_slice(b" disallow-index\">");
    let grew = peak_growth(&tag);
    eprintln!("a {SIZE}-byte purpose pattern: heap grew by {grew} bytes");
    assert!(
        grew < 4 * SIZE,
        "purpose pattern: heap grew by {grew} bytes"
    );
    // SVG nested 1.4 million deep: the open foreign elements kept are capped.
    let mut deep = b"<svg>".to_vec();
    while deep.len() < SIZE {
        deep.extend_from_slice(b"<g>");
    }
    let grew = peak_growth(&deep);
    eprintln!("{SIZE} bytes of nested SVG: heap grew by {grew} bytes");
    assert!(grew < 256 * 1024, "nested SVG: heap grew by {grew} bytes");
    // One start tag with a 100 KB name and many ACAP class values (valid,
    // and unknown ones, each a finding): the name is not copied per value.
    for value in ["the-acap:disallow-index", "the-acap:allow-foo"] {
        let mut tag = format!("<{}", "x".repeat(100_000)).into_bytes();
        tag.extend_from_slice(b" class=\"");
        while tag.len() < SIZE {
            tag.extend_from_slice(value.as_bytes());
            tag.push(b' ');
        }
        tag.extend_from_slice(b"\">");
        let grew = peak_growth(&tag);
        eprintln!("{value} values on a 100 KB tag name: heap grew by {grew} bytes");
        assert!(grew < 4 * SIZE, "{value}: heap grew by {grew} bytes");
    }
}
