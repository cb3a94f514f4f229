//! Choosing the groups that apply to one agent (RFC 9309 §2.2.1, as Google
//! implements it).
//!
//! * A user-agent value `*`, or `*` followed by whitespace and anything, names
//!   the global group.
//! * Any other value is cut to its longest prefix of `[A-Za-z_-]`
//!   (`Googlebot/2.1` → `Googlebot`) and compared case-insensitively, for
//!   equality, with the caller's product token.
//! * All groups naming the agent are merged. If any group names it, every `*`
//!   group is ignored — even when the named groups have no rules. With no
//!   named and no `*` group, nothing applies and everything is allowed.
//!
//! The User-agent value grammar these rules read (product tokens, the part
//! of a value compared with one) is [`crate::parse::agent_value`]'s; it is
//! re-exported here.

pub use crate::parse::agent_value::{
    is_global_value, token_from_header, validate_agent, validate_token, value_names, value_token,
    BadAgent, TokenRule,
};
use crate::parse::RobotsTxt;

/// How the agent's groups were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// Groups naming the agent.
    Named,
    /// No group names the agent: the `*` groups.
    Global,
    /// Neither: no rules apply.
    None,
}

impl Via {
    /// Lower-case name, as stored in artifacts.
    pub fn name(self) -> &'static str {
        match self {
            Via::Named => "named",
            Via::Global => "global",
            Via::None => "none",
        }
    }
}

/// The groups that apply to an agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// How they were chosen.
    pub via: Via,
    /// Indexes into [`RobotsTxt::groups`], in file order.
    pub groups: Vec<usize>,
}

/// Chooses the groups of `robots` that apply to product token `agent`.
pub fn select(robots: &RobotsTxt<'_>, agent: &str) -> Selection {
    let names_agent =
        |g: &crate::parse::Group<'_>| g.agents.iter().any(|a| value_names(a.value, agent));
    let named: Vec<usize> = (0..robots.groups.len())
        .filter(|&i| names_agent(&robots.groups[i]))
        .collect();
    if !named.is_empty() {
        return Selection {
            via: Via::Named,
            groups: named,
        };
    }
    let global: Vec<usize> = (0..robots.groups.len())
        .filter(|&i| {
            robots.groups[i]
                .agents
                .iter()
                .any(|a| is_global_value(a.value))
        })
        .collect();
    Selection {
        via: if global.is_empty() {
            Via::None
        } else {
            Via::Global
        },
        groups: global,
    }
}

/// [`select`] for every token the file names (as first written, in the
/// order of their lower-cased bytes), in one pass over the groups instead
/// of one per token: a token's groups are those with a value whose
/// [`value_token`] is the token, ASCII case ignored ([`value_names`]).
pub fn select_every_named(robots: &RobotsTxt<'_>) -> Vec<(Vec<u8>, Selection)> {
    let mut named: std::collections::BTreeMap<Vec<u8>, (&[u8], Vec<usize>)> = Default::default();
    for (i, g) in robots.groups.iter().enumerate() {
        for a in &g.agents {
            let token = value_token(a.value);
            if is_global_value(a.value) || token.is_empty() {
                continue;
            }
            let (_, groups) = named
                .entry(token.to_ascii_lowercase())
                .or_insert((token, Vec::new()));
            // A group naming the token twice is selected once.
            if groups.last() != Some(&i) {
                groups.push(i);
            }
        }
    }
    named
        .into_values()
        .map(|(token, groups)| {
            (
                token.to_vec(),
                Selection {
                    via: Via::Named,
                    groups,
                },
            )
        })
        .collect()
}

/// The 1996 draft's choice (§3.2.1), used by draft1996 and robots2: the
/// **first** record with a user-agent value that contains `agent` as a
/// case-insensitive substring; else the first record with a `*` value; else
/// none. One record only: records are never merged.
pub fn select_first_record(robots: &RobotsTxt<'_>, agent: &str) -> Selection {
    let token = agent.as_bytes();
    let contains = |value: &[u8]| {
        value
            .windows(token.len().max(1))
            .any(|w| w.eq_ignore_ascii_case(token))
    };
    let pick = |via: Via, pred: &dyn Fn(&[u8]) -> bool| {
        robots
            .groups
            .iter()
            .position(|g| g.agents.iter().any(|a| pred(a.value)))
            .map(|g| Selection {
                via,
                groups: vec![g],
            })
    };
    pick(Via::Named, &|v| !token.is_empty() && contains(v))
        .or_else(|| pick(Via::Global, &|v| v == b"*"))
        .unwrap_or(Selection {
            via: Via::None,
            groups: Vec::new(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass over the groups selects, for each named token, what
    /// [`super::select`] selects for it.
    #[test]
    fn select_every_named_is_select_per_token() {
        let body = b"User-agent: A-bot\nUser-agent: b_bot/2.1\nDisallow: /x\n\n\
                     User-agent: *\nDisallow: /y\n\nUser-agent: a-BOT\nUser-agent: A-bot\n\
                     Allow: /z\n\nUser-agent: c1\nDisallow: /\n";
        let robots = crate::parse::parse(body, &crate::parse::ParseOptions::default());
        let every = super::select_every_named(&robots);
        let tokens: Vec<&[u8]> = every.iter().map(|(t, _)| &t[..]).collect();
        assert_eq!(tokens, [&b"A-bot"[..], b"b_bot", b"c"]);
        for (token, selection) in &every {
            let token = std::str::from_utf8(token).unwrap();
            assert_eq!(*selection, super::select(&robots, token), "{token}");
        }
    }

    #[test]
    fn first_record_by_substring() {
        let body = b"User-agent: *\nDisallow: /a\n\nUser-agent: Webcrawler-Plus\nDisallow: /b\n\nUser-agent: webcrawler\nDisallow: /c\n";
        let robots = crate::parse::parse(body, &crate::parse::ParseOptions::records());
        let s = select_first_record(&robots, "WebCrawler");
        assert_eq!((s.via, s.groups), (Via::Named, vec![1]));
        let s = select_first_record(&robots, "other");
        assert_eq!((s.via, s.groups), (Via::Global, vec![0]));
        let none = crate::parse::parse(b"User-agent: x\nDisallow: /\n", &Default::default());
        assert_eq!(select_first_record(&none, "other").via, Via::None);
    }
}
