//! Selected groups → the flat list of rules the automaton is built from.
//!
//! Every rule's pattern is in its final, encoded form (Google escaping or RFC
//! normalisation), with its priority, so the lowering and the reference
//! matcher see exactly the same rules. Implicit rules are added here too:
//! Google's `index.htm` rule and the `/robots.txt` allow.

use crate::agent::Selection;
use crate::normalize::normalize_pattern;
use crate::parse::{RobotsTxt, RuleKind};
use robocc_engine::artifact::RuleOrigin;
use robocc_engine::UrlMode;

/// Priority of the implicit `/robots.txt` allow: above any real pattern.
pub const ROBOTS_TXT_PRIORITY: u32 = 1 << 30;

/// A rule ready to be matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetRule {
    /// Allow (true) or Disallow.
    pub allow: bool,
    /// Encoded pattern: `*` any run of bytes, a final `$` the end of the path.
    pub pattern: Vec<u8>,
    /// Match priority: octets of the encoded pattern (`*` and `$` counted).
    pub priority: u32,
    /// 1-based source line (0 for the `/robots.txt` rule).
    pub line: u32,
    /// Group index in the source file (`u32::MAX` for the `/robots.txt` rule).
    pub group: u32,
    /// Why the rule exists.
    pub origin: RuleOrigin,
}

/// What shapes a rule set besides the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSetOptions {
    /// How patterns are encoded.
    pub url_mode: UrlMode,
    /// Add Google's `index.htm` rule.
    pub index_htm: bool,
    /// Add an allow of `/robots.txt` that beats every other rule.
    pub robots_txt_allowed: bool,
}

/// The rules that apply to one agent, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// The rules; an index here is a rule id.
    pub rules: Vec<SetRule>,
}

impl RuleSet {
    /// The encoded patterns, in rule order (what URL workloads are made from).
    pub fn patterns(&self) -> impl Iterator<Item = &[u8]> {
        self.rules.iter().map(|r| r.pattern.as_slice())
    }

    /// Collects the rules of the selected groups.
    pub fn build(robots: &RobotsTxt<'_>, selection: &Selection, opts: RuleSetOptions) -> RuleSet {
        let mut rules = Vec::new();
        for &g in &selection.groups {
            for rule in &robots.groups[g].rules {
                // An empty value is no rule at all (RFC 9309 §2.2.2; Google
                // gives it priority 0, which never decides).
                if rule.raw.is_empty() {
                    continue;
                }
                let pattern = match opts.url_mode {
                    UrlMode::Google => rule.pattern.to_vec(),
                    UrlMode::Rfc => normalize_pattern(rule.raw),
                };
                let allow = rule.kind == RuleKind::Allow;
                let index_dir = (allow && opts.index_htm)
                    .then(|| index_htm_dir(&pattern))
                    .flatten();
                rules.push(SetRule {
                    allow,
                    priority: len_u32(pattern.len()),
                    pattern,
                    line: rule.line,
                    group: g as u32,
                    origin: RuleOrigin::Line,
                });
                if let Some(dir_pattern) = index_dir {
                    rules.push(SetRule {
                        allow: true,
                        priority: len_u32(dir_pattern.len()),
                        pattern: dir_pattern,
                        line: rule.line,
                        group: g as u32,
                        origin: RuleOrigin::IndexHtm,
                    });
                }
            }
        }
        if opts.robots_txt_allowed {
            rules.push(SetRule {
                allow: true,
                pattern: b"/robots.txt$".to_vec(),
                priority: ROBOTS_TXT_PRIORITY,
                line: 0,
                group: u32::MAX,
                origin: RuleOrigin::RobotsTxt,
            });
        }
        RuleSet { rules }
    }
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n)
        .unwrap_or(u32::MAX / 4)
        .min(ROBOTS_TXT_PRIORITY - 1)
}

/// Google's `index.htm` rule: an Allow whose last path segment starts with
/// `/index.htm` also allows `<dir>/` exactly, i.e. the pattern `<dir>/$`.
fn index_htm_dir(pattern: &[u8]) -> Option<Vec<u8>> {
    let slash = pattern.iter().rposition(|&b| b == b'/')?;
    if !pattern[slash..].starts_with(b"/index.htm") {
        return None;
    }
    let mut p = pattern[..=slash].to_vec();
    p.push(b'$');
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::index_htm_dir;

    #[test]
    fn index_htm() {
        assert_eq!(
            index_htm_dir(b"/allowed-slash/index.html").as_deref(),
            Some(&b"/allowed-slash/$"[..])
        );
        assert_eq!(index_htm_dir(b"/index.htm").as_deref(), Some(&b"/$"[..]));
        assert_eq!(index_htm_dir(b"/a/index.php"), None);
        assert_eq!(index_htm_dir(b"/index.htm/x"), None);
    }
}
