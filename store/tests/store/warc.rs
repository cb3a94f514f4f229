//! The WARC reader (`store build --warc`): record framing, gzip members,
//! chunked and gzip payloads, truncated records.

use flate2::write::GzEncoder;
use flate2::Compression;
use robocc_engine::{HostSource, Store};
use robocc_store::warc::warc_inputs_from;
use robocc_store::{HostInput, StoreBuilder};
use std::io::Write;

fn record(kind: &str, uri: &str, block: &[u8], extra: &str) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Date: 2024-01-02T03:04:05Z\r\n{extra}Content-Type: application/http; msgtype={kind}\r\n\
         Content-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn response(uri: &str, head: &str, body: &[u8]) -> Vec<u8> {
    let mut block = format!("{head}\r\n\r\n").into_bytes();
    block.extend_from_slice(body);
    record("response", uri, &block, "")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

const RULES: &[u8] = b"User-agent: *\nDisallow: /private\n";

fn records() -> Vec<Vec<u8>> {
    let chunked = b"a\r\nUser-agent\r\n17\r\n: *\nDisallow: /private\n\r\n0\r\n\r\n";
    vec![
        record("warcinfo", "", b"software: test\r\n", ""),
        record(
            "request",
            "https://plain.example/robots.txt",
            b"GET /robots.txt HTTP/1.1\r\n\r\n",
            "",
        ),
        response(
            "https://plain.example/robots.txt",
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain",
            RULES,
        ),
        response(
            "http://Gone.Example:80/robots.txt",
            "HTTP/1.1 404 Not Found",
            b"<html>nope</html>",
        ),
        response(
            "http://moved.example/robots.txt",
            "HTTP/1.1 301 Moved\r\nLocation: https://plain.example/robots.txt",
            b"",
        ),
        response(
            "https://rel.example:8443/robots.txt",
            "HTTP/1.1 302 Found\r\nLocation: /elsewhere/robots.txt",
            b"",
        ),
        response(
            "https://chunked.example/robots.txt",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked",
            chunked,
        ),
        response(
            "https://gz.example/robots.txt",
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip",
            &gzip(RULES),
        ),
        response(
            "https://badgz.example/robots.txt",
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip",
            b"not gzip at all",
        ),
        record(
            "response",
            "https://cut.example/robots.txt",
            b"HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDis",
            "WARC-Truncated: length\r\n",
        ),
        response("https://down.example/robots.txt", "HTTP/1.1 503 Busy", b""),
    ]
}

fn read(bytes: Vec<u8>) -> Vec<Result<HostInput, String>> {
    warc_inputs_from(std::io::Cursor::new(bytes), "test.warc")
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
}

fn check_inputs(got: &[Result<HostInput, String>]) {
    let ok: Vec<&HostInput> = got.iter().map(|r| r.as_ref().unwrap()).collect();
    let hosts: Vec<&str> = ok.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(
        hosts,
        [
            "plain.example",
            "gone.example",
            "moved.example",
            "rel.example:8443",
            "chunked.example",
            "gz.example",
            "badgz.example",
            "cut.example",
            "down.example"
        ]
    );
    assert_eq!(ok[0].status, 200);
    assert_eq!(ok[0].body.as_deref(), Some(RULES));
    assert_eq!(ok[0].fetched_at.as_deref(), Some("2024-01-02T03:04:05Z"));
    assert_eq!((ok[1].status, ok[1].body.is_none()), (404, true));
    assert_eq!(
        ok[2].location.as_deref(),
        Some("https://plain.example/robots.txt")
    );
    assert_eq!(
        ok[3].location.as_deref(),
        Some("https://rel.example:8443/elsewhere/robots.txt")
    );
    assert_eq!(ok[4].body.as_deref(), Some(RULES), "de-chunked");
    assert_eq!(ok[5].body.as_deref(), Some(RULES), "gunzipped");
    assert!(ok[6].failure.as_deref().unwrap().contains("gzip"), "{ok:?}");
    assert!(ok[7].failure.as_deref().unwrap().contains("WARC-Truncated"));
    assert_eq!(ok[8].status, 503);
    for (i, h) in ok.iter().enumerate() {
        assert_eq!(h.failure.is_some(), i == 6 || i == 7, "{h:?}");
    }
}

#[test]
fn plain_and_gzip_member_files_read_alike() {
    let recs = records();
    check_inputs(&read(recs.concat()));
    // One gzip member per record, as Common Crawl writes them.
    let gz: Vec<u8> = recs.iter().flat_map(|r| gzip(r)).collect();
    check_inputs(&read(gz));
}

#[test]
fn a_file_cut_inside_a_record_makes_that_host_a_failure() {
    let mut recs = records();
    recs.push(response(
        "https://last.example/robots.txt",
        "HTTP/1.1 200 OK",
        RULES,
    ));
    let whole: Vec<u8> = recs.iter().flat_map(|r| gzip(r)).collect();
    // Cut inside the last gzip member, and inside the last plain record.
    for bytes in [
        whole[..whole.len() - 20].to_vec(),
        recs.concat()[..recs.concat().len() - 12].to_vec(),
    ] {
        let got = read(bytes);
        let last = got.last().unwrap().as_ref().unwrap();
        assert_eq!(last.host, "last.example");
        assert!(
            last.failure.as_deref().unwrap().contains("truncated"),
            "{last:?}"
        );
        check_inputs(&got[..got.len() - 1]);
    }
}

#[test]
fn broken_framing_is_an_error_naming_the_record() {
    let mut bytes = records().concat();
    bytes.extend_from_slice(b"HTTP/1.1 200 OK\r\n\r\n");
    let got = read(bytes);
    let err = got.last().unwrap().as_ref().unwrap_err();
    // Bytes after the last record are no record of their own.
    assert!(err.contains("test.warc: after record 11"), "{err}");
    assert!(err.contains("WARC/1.0"), "{err}");
    // A bad Content-Length.
    let bad = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: x\r\n\r\n".to_vec();
    assert!(read(bad)[0]
        .as_ref()
        .unwrap_err()
        .contains("Content-Length"));
    // An empty file has no records.
    assert!(read(Vec::new()).is_empty());
}

#[test]
fn a_store_from_a_warc_applies_the_status_rules() {
    let bytes: Vec<u8> = records().iter().flat_map(|r| gzip(r)).collect();
    let (store, report) = StoreBuilder::new("Googlebot")
        .build(warc_inputs_from(
            std::io::Cursor::new(bytes),
            "test.warc.gz",
        ))
        .unwrap();
    let store = Store::from_slice(&store).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://plain.example/private"), Some(false));
    assert_eq!(allowed("https://gone.example/private"), Some(true));
    assert_eq!(allowed("https://moved.example/private"), Some(false));
    assert_eq!(allowed("https://moved.example/public"), Some(true));
    // Its only capture redirects to another path: that document is not an
    // input (only robots.txt captures are), so unreachable.
    assert_eq!(allowed("https://rel.example:8443/x"), Some(false));
    assert_eq!(allowed("https://chunked.example/private"), Some(false));
    assert_eq!(allowed("https://gz.example/private"), Some(false));
    assert_eq!(allowed("https://down.example/x"), Some(false));
    // Failures: the disallow-all fallback, listed with the reason.
    assert_eq!(allowed("https://cut.example/x"), Some(false));
    let cut = store.host(b"https://cut.example/").unwrap().unwrap();
    assert_eq!(cut.source, HostSource::Failed);
    assert_eq!(report.failures.len(), 2, "{report:?}");
    assert_eq!(report.by_source.failed, 2);
}

#[test]
fn a_self_redirect_never_replaces_another_capture() {
    let recs = [
        response(
            "https://a.example/robots.txt",
            "HTTP/1.1 200 OK",
            b"User-agent: *\nDisallow: /x\n",
        ),
        response(
            "http://a.example/robots.txt",
            "HTTP/1.1 301 Moved\r\nLocation: https://a.example/robots.txt",
            b"",
        ),
    ];
    for bytes in [recs.concat(), [&recs[1][..], &recs[0][..]].concat()] {
        let (store, report) = StoreBuilder::new("Googlebot")
            .build(warc_inputs_from(std::io::Cursor::new(bytes), "t.warc"))
            .unwrap();
        let store = Store::from_slice(&store).unwrap();
        let v = store.check(b"https://a.example/x").unwrap().unwrap();
        assert!(!v.allowed);
        // The hop beside the capture it leads to is no duplicate.
        assert!(report.duplicates.is_empty(), "{report:?}");
        assert_eq!(report.self_redirects, 1);
    }
}

/// A read error (here an overlong header line) in a record that is not a
/// response is an error, not a silent end of the file: the captures after
/// it would be lost.
#[test]
fn a_read_error_is_never_a_silent_end() {
    let long = format!("X-Long: {}\r\n", "a".repeat(70 * 1024));
    let mut bytes = record(
        "request",
        "https://a.example/robots.txt",
        b"GET /\r\n\r\n",
        &long,
    );
    bytes.extend(response(
        "https://after.example/robots.txt",
        "HTTP/1.1 200 OK",
        RULES,
    ));
    let got = read(bytes);
    assert!(got.iter().any(Result::is_err), "{got:?}");
    // The same in a response: an error, and nothing read after it.
    let mut bytes = record("response", "https://a.example/robots.txt", b"", &long);
    bytes.extend(response(
        "https://after.example/robots.txt",
        "HTTP/1.1 200 OK",
        RULES,
    ));
    let got = read(bytes);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].as_ref().unwrap_err().contains("record 1"), "{got:?}");
}

/// HTTP headers end at the first blank line, whichever its spelling: an
/// LF-only head whose body holds CRLF CRLF keeps its rules.
#[test]
fn the_first_blank_line_ends_the_http_headers() {
    let body = b"User-agent: *\r\n\r\nUser-agent: *\nDisallow: /x\n";
    let mut block = b"HTTP/1.1 200 OK\nContent-Type: text/plain\n\n".to_vec();
    block.extend_from_slice(body);
    let got = read(record(
        "response",
        "https://lf.example/robots.txt",
        &block,
        "",
    ));
    match &got[0] {
        Ok(h) => assert_eq!(h.body.as_deref(), Some(&body[..])),
        Err(e) => panic!("{e}"),
    }
}

fn build_warc(bytes: Vec<u8>) -> (Vec<u8>, robocc_store::StoreReport) {
    let (store, report) = StoreBuilder::new("Googlebot")
        .build(warc_inputs_from(std::io::Cursor::new(bytes), "t.warc"))
        .unwrap();
    (store.to_vec(), report)
}

fn ok(got: &[Result<HostInput, String>]) -> Vec<&HostInput> {
    got.iter()
        .map(|r| r.as_ref().unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// Only a response of a `/robots.txt` is its host's capture: a home page,
/// or the page another host's robots.txt redirects to, never replaces it;
/// the records set aside are counted. A redirect to another path than
/// `/robots.txt` has no target in the input: unreachable.
#[test]
fn only_robots_txt_captures_are_hosts() {
    let recs = [
        response(
            "https://b.example/robots.txt",
            "HTTP/1.1 200 OK",
            b"User-agent: *\nDisallow: /\n",
        ),
        response(
            "http://a.example/robots.txt",
            "HTTP/1.1 301 Moved\r\nLocation: https://b.example/robots_a.txt",
            b"",
        ),
        response(
            "https://b.example/robots_a.txt",
            "HTTP/1.1 200 OK",
            b"User-agent: *\nDisallow: /a-only\n",
        ),
        response(
            "https://c.example/robots.txt?x=1",
            "HTTP/1.1 200 OK",
            b"User-agent: *\nDisallow: /private\n",
        ),
        response(
            "https://c.example/",
            "HTTP/1.1 200 OK\r\nContent-Type: text/html",
            b"<html><body>home</body></html>",
        ),
        response("dns:c.example", "HTTP/1.1 200 OK", b"1.2.3.4"),
    ];
    let mut inputs = warc_inputs_from(std::io::Cursor::new(recs.concat()), "t.warc");
    let hosts: Vec<String> = inputs.by_ref().map(|r| r.unwrap().host).collect();
    assert_eq!(hosts, ["b.example", "a.example", "c.example"]);
    let counts = inputs.counts();
    assert_eq!(
        (counts.records, counts.captures, counts.other_paths),
        (6, 3, 3)
    );
    assert!(counts
        .to_string()
        .contains("another path than /robots.txt 3"));
    let (store, report) = build_warc(recs.concat());
    let store = Store::from_slice(&store).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://b.example/x"), Some(false));
    assert_eq!(allowed("https://c.example/private"), Some(false));
    assert_eq!(allowed("https://a.example/x"), Some(false));
    let a = store.host(b"https://a.example/").unwrap().unwrap();
    assert_eq!(a.source, HostSource::Unreachable);
    assert!(report.duplicates.is_empty(), "{report:?}");
}

/// A capture cut short (`WARC-Truncated`, or the end of the file) is read
/// for what it holds: a status other than 2xx needs no body; a 2xx body
/// over the parse limit answers as the whole would (and is not read
/// whole); a shorter one is a failure that keeps the status read.
#[test]
fn truncated_captures_are_read_for_what_they_hold() {
    let truncated = "WARC-Truncated: length\r\n";
    let mut big = b"User-agent: *\nDisallow: /first\n".to_vec();
    while big.len() < 600_000 {
        big.extend_from_slice(b"# filler line of a long robots.txt\n");
    }
    // Past the default parse limit: never read, whole or cut.
    big.extend_from_slice(b"Disallow: /late\n");
    let block = |head: &str, body: &[u8]| {
        let mut b = format!("{head}\r\n\r\n").into_bytes();
        b.extend_from_slice(body);
        b
    };
    let recs = [
        record(
            "response",
            "http://t404.example/robots.txt",
            &block("HTTP/1.1 404 Not Found", b"<html>"),
            truncated,
        ),
        record(
            "response",
            "http://t301.example/robots.txt",
            &block(
                "HTTP/1.1 301 Moved\r\nLocation: http://ok.example/robots.txt",
                b"mov",
            ),
            "WARC-Truncated: time\r\n",
        ),
        response("http://ok.example/robots.txt", "HTTP/1.1 200 OK", RULES),
        record(
            "response",
            "http://tbig.example/robots.txt",
            &block("HTTP/1.1 200 OK", &big[..big.len() - 8]),
            truncated,
        ),
        record(
            "response",
            "http://tsmall.example/robots.txt",
            &block("HTTP/1.1 200 OK", b"User-agent: *\nDis"),
            truncated,
        ),
    ];
    let got = read(recs.concat());
    let got = ok(&got);
    assert_eq!((got[0].status, got[0].failure.as_deref()), (404, None));
    assert_eq!(
        (
            got[1].status,
            got[1].location.as_deref(),
            got[1].failure.as_deref()
        ),
        (301, Some("http://ok.example/robots.txt"), None)
    );
    assert_eq!(got[3].body.as_ref().map(Vec::len), Some(big.len() - 8));
    assert_eq!(got[3].failure, None);
    assert_eq!(got[4].status, 200, "the status read is kept");
    let why = got[4].failure.as_deref().unwrap();
    assert!(
        why.contains("WARC-Truncated: length") && why.contains("parse limit"),
        "{why}"
    );
    // Without a parse limit the whole body is needed.
    let unlimited: Vec<_> = warc_inputs_from(std::io::Cursor::new(recs.concat()), "t.warc")
        .parse_limit(0)
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(unlimited[3].failure.is_some(), "{:?}", unlimited[3].failure);
    // The same body whole answers alike.
    let (store, report) = build_warc(recs.concat());
    let store = Store::from_slice(&store).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://t404.example/x"), Some(true));
    assert_eq!(allowed("https://t301.example/private"), Some(false));
    assert_eq!(allowed("https://t301.example/x"), Some(true));
    assert_eq!(allowed("https://tbig.example/first"), Some(false));
    assert_eq!(allowed("https://tbig.example/late"), Some(true));
    assert_eq!(allowed("https://tsmall.example/x"), Some(false));
    let small = store.host(b"https://tsmall.example/").unwrap().unwrap();
    assert_eq!((small.source, small.status), (HostSource::Failed, 200));
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.unread.len(), 1, "{report:?}");
    assert_eq!(report.unread[0].host, "tbig.example");
    assert!(report.unread[0].note.contains("parse limit"), "{report:?}");
    // The end of the file inside a record is a cut as WARC-Truncated is.
    let mut cut = response("http://end.example/robots.txt", "HTTP/1.1 200 OK", &big);
    cut.truncate(cut.len() - 20);
    let got = read(cut);
    assert_eq!(ok(&got)[0].failure, None);
    let whole = response("http://end.example/robots.txt", "HTTP/1.1 503 Busy", b"");
    // In the record's end: the block is whole.
    let got = read(whole[..whole.len() - 3].to_vec());
    assert_eq!(
        (ok(&got)[0].status, ok(&got)[0].failure.is_none()),
        (503, true)
    );
    // In its HTTP headers: a failure, with the status of its status line.
    let got = read(whole[..whole.len() - 6].to_vec());
    assert_eq!(
        (ok(&got)[0].status, ok(&got)[0].failure.is_some()),
        (503, true)
    );
}

/// Transfer codings are undone, last applied first, then content codings;
/// one not understood is the host's failure, never bytes compiled as text.
#[test]
fn transfer_codings_are_undone_or_refused() {
    let mut chunked_gz = Vec::new();
    let gz = gzip(b"User-agent: *\nDisallow: /\n");
    for part in gz.chunks(7) {
        chunked_gz.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        chunked_gz.extend_from_slice(part);
        chunked_gz.extend_from_slice(b"\r\n");
    }
    chunked_gz.extend_from_slice(b"0\r\n\r\n");
    let recs = [
        response(
            "https://tegz.example/robots.txt",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked",
            &chunked_gz,
        ),
        response(
            "https://split.example/robots.txt",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked",
            &chunked_gz,
        ),
        response(
            "https://cegz.example/robots.txt",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: identity, gzip",
            &chunked_gz,
        ),
        response(
            "https://br.example/robots.txt",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: br, chunked",
            &chunked_gz,
        ),
    ];
    let got = read(recs.concat());
    let got = ok(&got);
    for h in &got[..3] {
        assert_eq!(
            h.body.as_deref(),
            Some(&b"User-agent: *\nDisallow: /\n"[..]),
            "{}",
            h.host
        );
    }
    assert_eq!(
        got[3].failure.as_deref(),
        Some("unsupported Transfer-Encoding: br")
    );
    assert_eq!(got[3].status, 200);
}

/// Records that are no robots.txt capture are counted by kind, a record
/// without `WARC-Type` included.
#[test]
fn records_set_aside_are_counted() {
    let untyped = b"WARC/1.0\r\nWARC-Target-URI: https://u.example/robots.txt\r\nContent-Length: 4\r\n\r\nabcd\r\n\r\n";
    let mut bytes = untyped.to_vec();
    for kind in ["revisit", "request", "metadata", "warcinfo", "resource"] {
        bytes.extend(record(kind, "https://k.example/robots.txt", b"x", ""));
    }
    let mut inputs = warc_inputs_from(std::io::Cursor::new(bytes), "t.warc");
    assert!(inputs.by_ref().next().is_none());
    let c = inputs.counts();
    assert_eq!(
        (c.records, c.captures, c.untyped, c.revisits, c.requests),
        (6, 0, 1, 1, 1)
    );
    assert_eq!(
        (c.metadata, c.warcinfo, c.other_types, c.skipped()),
        (1, 1, 1, 6)
    );
    assert_eq!(
        c.to_string(),
        "request 1, metadata 1, revisit 1, warcinfo 1, of other types 1, without WARC-Type 1"
    );
    let mut empty = warc_inputs_from(std::io::Cursor::new(Vec::new()), "e.warc");
    assert!(empty.next().is_none());
    assert_eq!(empty.counts(), Default::default());
}

/// A damaged gzip member is an error that says so and where (never "not
/// a WARC file", never a record that is not there); so are bytes after
/// the last member.
#[test]
fn gzip_damage_is_named_with_its_offset() {
    let members: Vec<Vec<u8>> = (0..5)
        .map(|i| {
            gzip(&response(
                &format!("http://h{i}.example/robots.txt"),
                "HTTP/1.1 200 OK",
                format!("User-agent: *\nDisallow: /{i}\n").as_bytes(),
            ))
        })
        .collect();
    let offset: usize = members[..2].iter().map(Vec::len).sum();
    let mut bad = members.clone();
    let n = bad[2].len();
    bad[2][n / 2] ^= 0x55;
    bad[2][30] ^= 0xff;
    let got = read(bad.concat());
    let err = got.last().unwrap().as_ref().unwrap_err();
    assert!(
        err.contains(&format!("gzip member at byte offset {offset}")),
        "{err}"
    );
    assert!(!err.contains("not a WARC file"), "{err}");
    assert!(got[..got.len() - 1].iter().all(Result::is_ok));
    let mut trailing = members.concat();
    let len = trailing.len();
    trailing.extend_from_slice(&[0; 100]);
    let got = read(trailing);
    assert_eq!(got.len(), 6);
    let err = got[5].as_ref().unwrap_err();
    assert!(err.contains("after record 5"), "{err}");
    assert!(
        err.contains(&format!("from byte offset {len} on are not a gzip member")),
        "{err}"
    );
    // The error is typed: a damaged input.
    let e = warc_inputs_from(std::io::Cursor::new(bad.concat()), "t.warc.gz")
        .find_map(Result::err)
        .unwrap();
    assert!(matches!(e.kind, robocc_store::InputErrorKind::Damaged(_)));
}

/// A capture that cannot be decoded is a failure that keeps its status.
#[test]
fn a_failed_capture_keeps_its_status() {
    let (store, _) = build_warc(response(
        "https://badgz.example/robots.txt",
        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip",
        b"not gzip",
    ));
    let store = Store::from_slice(&store).unwrap();
    let h = store.host(b"https://badgz.example/").unwrap().unwrap();
    assert_eq!((h.source, h.status), (HostSource::Failed, 200));
}

/// A payload of more than 16 MiB is read as a manifest's body is: parsed
/// to the limit, the same policy byte for byte, whatever the input.
#[test]
fn a_large_payload_answers_as_from_a_manifest() {
    let mut big = b"User-agent: *\nDisallow: /first\n".to_vec();
    while big.len() < 17 << 20 {
        big.extend_from_slice(b"Disallow: /filler-rule-of-a-huge-robots-txt\n");
    }
    for head in [
        "HTTP/1.1 200 OK",
        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip",
    ] {
        let body = if head.contains("gzip") {
            gzip(&big)
        } else {
            big.clone()
        };
        let (warc, report) = build_warc(response("https://big.example/robots.txt", head, &body));
        assert!(report.failures.is_empty(), "{report:?}");
        assert_eq!(report.unread.len(), 1, "{report:?}");
        let manifest = HostInput {
            host: "big.example".into(),
            status: 200,
            body: Some(big.clone()),
            fetched_at: Some("2024-01-02T03:04:05Z".into()),
            ..HostInput::default()
        };
        let (from_manifest, _) = StoreBuilder::new("Googlebot")
            .build([Ok(manifest)])
            .unwrap();
        assert!(warc == from_manifest.to_vec(), "{head}");
        let store = Store::from_slice(&warc).unwrap();
        assert!(
            !store
                .check(b"https://big.example/first")
                .unwrap()
                .unwrap()
                .allowed
        );
    }
}

/// The hosts of what a reader gave, or the error it ended with; and where
/// it says the file is cut.
fn read_cut(bytes: Vec<u8>) -> (Vec<Result<HostInput, String>>, Option<String>) {
    let mut w = warc_inputs_from(std::io::Cursor::new(bytes), "t.warc");
    let got = w.by_ref().map(|r| r.map_err(|e| e.to_string())).collect();
    (got, w.truncated().map(str::to_string))
}

fn five_captures() -> Vec<Vec<u8>> {
    (0..5)
        .map(|i| {
            response(
                &format!("http://h{i}.example/robots.txt"),
                "HTTP/1.1 200 OK",
                format!("User-agent: *\nDisallow: /{i}\n").as_bytes(),
            )
        })
        .collect()
}

/// A file cut anywhere (a download that broke off) keeps every record
/// before the cut, never fails the build, and says where it ends: the
/// same whether the cut falls in a gzip member's trailer (CRC and length),
/// its deflate data, or a plain file's record.
#[test]
fn a_cut_file_keeps_the_records_before_the_cut_and_says_so() {
    let recs = five_captures();
    let members: Vec<Vec<u8>> = recs.iter().map(|r| gzip(r)).collect();
    let gz = members.concat();
    let plain = recs.concat();
    let whole_gz = read_cut(gz.clone());
    assert_eq!(whole_gz.1, None);
    assert_eq!(whole_gz.0.len(), 5);
    for (bytes, last) in [(&gz, members[4].len()), (&plain, recs[4].len())] {
        for cut in 1..last {
            let (got, truncated) = read_cut(bytes[..bytes.len() - cut].to_vec());
            let ok: Vec<&HostInput> = got
                .iter()
                .map(|r| r.as_ref().unwrap_or_else(|e| panic!("cut {cut}: {e}")))
                .collect();
            assert!(ok.len() >= 4, "cut {cut}: {got:?}");
            for (i, h) in ok.iter().take(4).enumerate() {
                assert_eq!(h.host, format!("h{i}.example"), "cut {cut}");
                assert_eq!(h.failure, None, "cut {cut}");
            }
            assert!(truncated.is_some(), "cut {cut} of {last}: not said");
        }
    }
}

/// Folded WARC header lines (a line that starts with a space or tab
/// continues the field) and a folded HTTP Location are read whole; a
/// WARC-Type of another case is the same type.
#[test]
fn folded_headers_and_type_case_are_read() {
    let mut folded = b"WARC/1.1\r\nWARC-Type:\r\n response\r\nWARC-Target-URI:\r\n\t<https://f.example/robots.txt>\r\n"
        .to_vec();
    let block = b"HTTP/1.1 301 Moved\r\nLocation:\r\n https://g.example/robots.txt\r\n\r\n";
    folded.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    folded.extend_from_slice(block);
    folded.extend_from_slice(b"\r\n\r\n");
    folded.extend(record(
        "Response",
        "https://g.example/robots.txt",
        format!("HTTP/1.1 200 OK\r\n\r\n{}", "User-agent: *\nDisallow: /\n").as_bytes(),
        "",
    ));
    let got = read(folded);
    let ok = ok(&got);
    assert_eq!(ok.len(), 2, "{got:?}");
    assert_eq!(ok[0].host, "f.example");
    assert_eq!(ok[0].status, 301);
    assert_eq!(
        ok[0].location.as_deref(),
        Some("https://g.example/robots.txt")
    );
    assert_eq!(ok[1].host, "g.example");
    assert_eq!(ok[1].status, 200);
}

/// Blank lines between records cost a scan, not a line read each: 64 MiB
/// of them is read in well under a second (a line read each took ~1.4 s in
/// a release build), and the records around them are kept.
#[test]
fn blank_lines_between_records_are_cheap() {
    let recs = five_captures();
    let mut bytes = recs[0].clone();
    bytes.resize(bytes.len() + (64 << 20), b'\n');
    bytes.extend_from_slice(&recs[1]);
    let t = std::time::Instant::now();
    let (got, truncated) = read_cut(bytes);
    let took = t.elapsed();
    assert_eq!(ok(&got).len(), 2, "{got:?}");
    assert_eq!(truncated, None);
    assert!(took < std::time::Duration::from_millis(700), "{took:?}");
}
