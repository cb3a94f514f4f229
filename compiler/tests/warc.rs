//! The WARC reader (`store build --warc`): record framing, gzip members,
//! chunked and gzip payloads, truncated records.

use flate2::write::GzEncoder;
use flate2::Compression;
use robocc_compiler::store::{build_store, HostInput, StoreOptions};
use robocc_compiler::warc::warc_inputs_from;
use robocc_compiler::CompileOptions;
use robocc_engine::{HostSource, Store};
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
    assert!(err.contains("test.warc: record 12"), "{err}");
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
    let (store, report) = build_store(
        warc_inputs_from(std::io::Cursor::new(bytes), "test.warc.gz"),
        "Googlebot",
        &CompileOptions::default(),
        &StoreOptions::default(),
    )
    .unwrap();
    let store = Store::from_slice(&store).unwrap();
    let allowed = |u: &str| store.check(u.as_bytes()).unwrap().map(|v| v.allowed);
    assert_eq!(allowed("https://plain.example/private"), Some(false));
    assert_eq!(allowed("https://gone.example/private"), Some(true));
    assert_eq!(allowed("https://moved.example/private"), Some(false));
    assert_eq!(allowed("https://moved.example/public"), Some(true));
    // Its only capture redirects to itself: past five hops, allow all.
    assert_eq!(allowed("https://rel.example:8443/x"), Some(true));
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
        let (store, report) = build_store(
            warc_inputs_from(std::io::Cursor::new(bytes), "t.warc"),
            "Googlebot",
            &CompileOptions::default(),
            &StoreOptions::default(),
        )
        .unwrap();
        let store = Store::from_slice(&store).unwrap();
        let v = store.check(b"https://a.example/x").unwrap().unwrap();
        assert!(!v.allowed);
        assert_eq!(report.duplicates, ["a.example"]);
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
    // The same in a response: the host is a failure, then the rest of the
    // file is reported as unread.
    let mut bytes = record("response", "https://a.example/robots.txt", b"", &long);
    bytes.extend(response(
        "https://after.example/robots.txt",
        "HTTP/1.1 200 OK",
        RULES,
    ));
    let got = read(bytes);
    assert!(matches!(&got[0], Ok(h) if h.failure.is_some()), "{got:?}");
    assert!(got[1].is_err(), "{got:?}");
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

/// A payload past 16 MiB is a failure on every path, never cut silently.
#[test]
fn an_oversized_payload_is_a_failure() {
    let big = vec![b'#'; 16 * 1024 * 1024 + 1];
    for (head, body) in [
        ("HTTP/1.1 200 OK", big.clone()),
        ("HTTP/1.1 200 OK\r\nContent-Encoding: gzip", gzip(&big)),
    ] {
        let got = read(response("https://big.example/robots.txt", head, &body));
        match &got[0] {
            Ok(h) => assert!(
                h.failure
                    .as_deref()
                    .is_some_and(|f| f.contains("larger than")),
                "{head}: {:?}",
                h.failure
            ),
            Err(e) => panic!("{head}: {e}"),
        }
    }
}
