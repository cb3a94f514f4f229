//! Choosing the groups that apply to an agent (RFC 9309 §2.2.1, as Google
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
//! * Several agents ([`Agents`]) are Google's `AllowedByRobots` with a list:
//!   a group is the agents' when it names any of them, and the rest is as
//!   for one.
//!
//! The User-agent value grammar these rules read (product tokens, the part
//! of a value compared with one) is [`crate::parse::agent_value`]'s; it is
//! re-exported here.

pub use crate::parse::agent_value::{
    is_global_value, token_from_header, validate_agent, validate_token, value_names, value_token,
    BadAgent, TokenRule,
};
use crate::parse::RobotsTxt;
use std::fmt;

/// The product tokens a policy answers for: one crawler's, or several that
/// one crawler obeys together (Google's `AllowedByRobots` with a list:
/// `Googlebot-Image` and `Googlebot`). Under rfc9309 a group applies when it
/// names any of them (docs/dialects.md, "Several agents"); the other
/// dialects take one.
///
/// Tokens are kept in the order given, a repeat (ASCII case ignored)
/// dropped, so `["Googlebot", "googlebot"]` is the one agent `Googlebot`.
/// They are checked when compiling ([`crate::CompileOptions::check_tokens`]),
/// not here. Written in an artifact's header (and a store's) joined by `,`
/// (the [`fmt::Display`] form), a character no dialect's token has.
///
/// ```
/// use robocc_compiler::agent::Agents;
/// let agents = Agents::new(["Googlebot-Image", "Googlebot", "GOOGLEBOT"]);
/// assert_eq!(agents.to_string(), "Googlebot-Image,Googlebot");
/// assert_eq!(Agents::from("ExampleBot").len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Agents {
    tokens: Vec<String>,
    /// The tokens joined by `,`: the header's form.
    joined: String,
}

impl Agents {
    /// The agents `tokens` names, in order, repeats dropped.
    pub fn new<I>(tokens: I) -> Agents
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut kept: Vec<String> = Vec::new();
        for t in tokens {
            let t = t.as_ref();
            if !kept.iter().any(|k| k.eq_ignore_ascii_case(t)) {
                kept.push(t.to_string());
            }
        }
        let joined = kept.join(",");
        Agents {
            tokens: kept,
            joined,
        }
    }

    /// The agents an artifact's header (`header.agent`) names: its value
    /// split at `,`.
    pub fn from_header(agent: &str) -> Agents {
        Agents::new(agent.split(','))
    }

    /// The tokens, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.tokens.iter().map(String::as_str)
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// No token at all (refused when compiling).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token, when there is exactly one.
    pub fn single(&self) -> Option<&str> {
        match &self.tokens[..] {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The tokens joined by `,`, as an artifact's header writes them.
    pub fn as_str(&self) -> &str {
        &self.joined
    }

    /// Does a robots.txt user-agent value name one of the agents
    /// ([`value_names`])?
    pub fn named_by(&self, value: &[u8]) -> bool {
        self.iter().any(|a| value_names(value, a))
    }
}

impl fmt::Display for Agents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.joined)
    }
}

impl From<&str> for Agents {
    fn from(token: &str) -> Agents {
        Agents::new([token])
    }
}

impl From<&String> for Agents {
    fn from(token: &String) -> Agents {
        Agents::new([token])
    }
}

impl From<String> for Agents {
    fn from(token: String) -> Agents {
        Agents::new([token])
    }
}

impl From<&Agents> for Agents {
    fn from(agents: &Agents) -> Agents {
        agents.clone()
    }
}

impl<T: AsRef<str>> From<&[T]> for Agents {
    fn from(tokens: &[T]) -> Agents {
        Agents::new(tokens)
    }
}

impl<T: AsRef<str>, const N: usize> From<[T; N]> for Agents {
    fn from(tokens: [T; N]) -> Agents {
        Agents::new(tokens)
    }
}

impl<T: AsRef<str>, const N: usize> From<&[T; N]> for Agents {
    fn from(tokens: &[T; N]) -> Agents {
        Agents::new(tokens)
    }
}

impl<T: AsRef<str>> From<Vec<T>> for Agents {
    fn from(tokens: Vec<T>) -> Agents {
        Agents::new(tokens)
    }
}

impl<T: AsRef<str>> From<&Vec<T>> for Agents {
    fn from(tokens: &Vec<T>) -> Agents {
        Agents::new(tokens)
    }
}

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

/// Chooses the groups of `robots` that apply to `agents`: those naming
/// any of them, merged; else the `*` groups.
pub fn select(robots: &RobotsTxt<'_>, agents: &Agents) -> Selection {
    let names_agent =
        |g: &crate::parse::Group<'_>| g.agents.iter().any(|a| agents.named_by(a.value));
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
            assert_eq!(*selection, super::select(&robots, &token.into()), "{token}");
        }
    }

    /// Several agents (Google's `AllowedByRobots` with a list): every
    /// group naming any of them, merged; the `*` groups only when none is
    /// named, whichever of the agents that would be.
    #[test]
    fn several_agents_select_groups_naming_any() {
        let body = b"User-agent: a\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\n\
                     User-agent: b/2.1\nUser-agent: c\nAllow: /b\n\nUser-agent: A\nAllow: /x\n";
        let robots = crate::parse::parse(body, &crate::parse::ParseOptions::default());
        let s = |agents: &[&str]| {
            let s = select(&robots, &agents.into());
            (s.via, s.groups)
        };
        assert_eq!(s(&["a", "b"]), (Via::Named, vec![0, 2, 3]));
        assert_eq!(s(&["B", "zz"]), (Via::Named, vec![2]));
        assert_eq!(s(&["c", "b"]), s(&["b"]));
        assert_eq!(s(&["y", "zz"]), (Via::Global, vec![1]));
        let no_star = crate::parse::parse(b"User-agent: a\nDisallow: /\n", &Default::default());
        assert_eq!(select(&no_star, &["y", "z"].into()).via, Via::None);
        let agents = Agents::new(["a", "b"]);
        assert!(agents.named_by(b"B/1.0") && !agents.named_by(b"* b"));
        assert_eq!(Agents::from_header(agents.as_str()), agents);
        assert_eq!(agents.single(), None);
        assert_eq!(Agents::from("a").single(), Some("a"));
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
