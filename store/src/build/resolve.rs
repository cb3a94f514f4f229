//! Resolve: which body applies to a host, by its status and redirects
//! (RFC 9309 §2.3.1).

use super::collect::{HostRow, HostRows};
use super::{ALLOW_ID, DISALLOW_ID, FAILED_INPUT};
use crate::host::{redirect_target, MAX_REDIRECTS};
use robocc_compiler::fetch::{classify, Class};
use robocc_engine::HostSource;

/// Which body applies to a host, and why (RFC 9309 §2.3.1); `hosts` sorted
/// by key, for redirect targets. Statuses are read by the fetch rules'
/// [`classify`]; redirects are followed within the input, across hosts (as
/// `fetch::Redirects::AnyHost` follows them), to robots.txt files only.
pub(super) fn resolve(hosts: &HostRows, host: &HostRow) -> (u32, HostSource) {
    let mut current = host;
    let mut hops = 0;
    loop {
        let source = if hops > 0 {
            HostSource::Redirected
        } else {
            HostSource::Fetched
        };
        if let Some(b) = current.body.filter(|b| b & FAILED_INPUT != 0) {
            return (b, source);
        }
        match classify(current.status) {
            // Its body is the base store's policy, if it had one to keep.
            Class::NotModified => {
                return match current.body {
                    Some(b) => (b, source),
                    None => (DISALLOW_ID, HostSource::Unreachable),
                }
            }
            Class::Success => {
                return match current.body {
                    Some(b) => (b, source),
                    None => (ALLOW_ID, HostSource::Unavailable),
                }
            }
            Class::Redirect => {
                let target =
                    redirect_target(current.location(&hosts.text)).and_then(|k| hosts.find(&k));
                match target {
                    None => return (DISALLOW_ID, HostSource::Unreachable),
                    // A redirect to its own host whose row is the redirect
                    // itself: the capture it leads to is not in the input
                    // (a redirect to itself never replaces a capture), as
                    // for a target host not in the input.
                    Some(t) if std::ptr::eq(t, current) => {
                        return (DISALLOW_ID, HostSource::Unreachable)
                    }
                    Some(_) if hops >= MAX_REDIRECTS => return (ALLOW_ID, HostSource::Unavailable),
                    Some(t) => {
                        current = t;
                        hops += 1;
                    }
                }
            }
            // 429 among them: a refusal for now, not an absent file
            // (docs/fetch.md).
            Class::Unreachable => return (DISALLOW_ID, HostSource::Unreachable),
            Class::Unavailable => return (ALLOW_ID, HostSource::Unavailable),
        }
    }
}
