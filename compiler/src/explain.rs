//! Why a compiled policy answers as it does, rebuilt from its rule table:
//! which AI-usage preference statements apply to a URL and which shadows
//! which ([`statements`]), and why the rule that decided a check beats the
//! other rules that matched ([`why`]).
//!
//! The engine answers without any of this: the compiler resolved every
//! conflict into the automaton's states. These functions resolve again,
//! from [`Policy::rule`] and [`Policy::signal_source`], what a tool that
//! explains an answer (`robocc explain`) shows beside it, so that the two
//! can also be compared. They allocate, and re-match patterns per call: for
//! explaining, not for checking.

use crate::glob::Glob;
use crate::normalize::matched_path;
use robocc_engine::{Policy, RankClass, RuleId, RuleRef, SignalSource};

/// A preference statement that matches a URL: it speaks for it, or would
/// if the agent could crawl the URL (aipref attach-05 §3.1), unless a
/// longer Content-Usage path shadows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statement<'a> {
    /// Its rule ([`Policy::rule`]; what [`robocc_engine::Verdict::rule`]
    /// names when it decides a channel).
    pub id: RuleId,
    /// The rule.
    pub rule: RuleRef<'a>,
    /// What kind of statement it is: a Content-Usage line, a
    /// Content-Signal line, or a training token's deciding rule (never
    /// [`SignalSource::Rule`]).
    pub source: SignalSource<'a>,
    /// A Content-Usage line whose path is shorter than the longest
    /// matching Content-Usage path: the id of the first line of that
    /// longest path (which may itself state nothing on a channel). A
    /// shadowed line does not apply.
    pub shadowed_by: Option<RuleId>,
}

impl Statement<'_> {
    /// A training token's deciding rule that is an Allow: it applies, and
    /// states nothing (a token only ever disallows `train-ai`,
    /// docs/dialects.md "Training tokens").
    pub fn is_token_allow(&self) -> bool {
        matches!(self.source, SignalSource::TrainingToken(_)) && self.rule.allow
    }
}

/// The preference statements of `policy` that match `url`, in rule order
/// (file order, training tokens last): every Content-Usage line whose path
/// matches (those shorter than the longest matching path
/// [shadowed](Statement::shadowed_by)), every Content-Signal line, and each
/// training token's deciding rule among its rules that match (the higher
/// rank wins, then the earlier rule, as for the agent's own rules).
///
/// Empty for a policy without preference channels (another dialect than
/// rfc9309, a file that states none, or statements the compile dropped).
/// Whether a statement decides is [`Policy::preference`]'s answer; what it
/// states on a channel is [`Policy::signal_says`].
pub fn statements<'a>(policy: &Policy<'a>, url: &[u8]) -> Vec<Statement<'a>> {
    let mode = policy.header().url_mode;
    let path = matched_path(url, mode);
    let matches = |r: &RuleRef<'_>| {
        r.pattern.is_empty() || Glob::parse(r.pattern, r.syntax, mode).matches(&path)
    };
    let statement = |id: RuleId, rule: RuleRef<'a>, source: SignalSource<'a>| Statement {
        id,
        rule,
        source,
        shadowed_by: None,
    };
    let mut out: Vec<Statement<'a>> = Vec::new();
    let mut usage: Vec<Statement<'a>> = Vec::new();
    // Each token's best rule so far.
    let mut tokens: Vec<Statement<'a>> = Vec::new();
    for id in policy.rule_ids() {
        let (Some(rule), Some(source)) = (policy.rule(id), policy.signal_source(id)) else {
            continue;
        };
        if !matches(&rule) {
            continue;
        }
        match source {
            SignalSource::Rule => {}
            SignalSource::ContentUsage => usage.push(statement(id, rule, source)),
            SignalSource::ContentSignal => out.push(statement(id, rule, source)),
            SignalSource::TrainingToken(t) => {
                let best = tokens
                    .iter_mut()
                    .find(|b| b.source == SignalSource::TrainingToken(t));
                match best {
                    // Rule order: on equal rank the earlier rule stays.
                    Some(b) if rule.rank > b.rule.rank => *b = statement(id, rule, source),
                    Some(_) => {}
                    None => tokens.push(statement(id, rule, source)),
                }
            }
        }
    }
    let longest = usage.iter().map(|s| s.rule.pattern.len()).max();
    let first_longest = usage
        .iter()
        .find(|s| Some(s.rule.pattern.len()) == longest)
        .map(|s| s.id);
    for s in &mut usage {
        if Some(s.rule.pattern.len()) < longest {
            s.shadowed_by = first_longest;
        }
    }
    out.extend(usage);
    out.extend(tokens);
    out.sort_by_key(|s| s.id);
    out
}

/// Why a deciding rule beats the other rules that matched: its dialect's
/// rank class ([`RuleRef::class`]), with what that class compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// rfc9309: the longest matching pattern (Allow on a tie); `length`
    /// is its pattern's length as matched, its priority.
    LongestMatch {
        /// The pattern's length as matched.
        length: usize,
    },
    /// draft1996 and robots2 1.0: the first matching rule.
    FirstMatch,
    /// robots2 2.0: an explicit Allow, the strongest rule.
    ExplicitAllow,
    /// robots2 2.0: a Disallow, which beats every wildcard Allow.
    Disallow,
    /// robots2 2.0: a wildcard Allow, so no Disallow matched but perhaps
    /// the catch-all: `catch_all` is the id of the policy's catch-all
    /// Disallow, if it has one, which matches every path and so matched
    /// here too, and ranks below wildcard Allows (docs/dialects.md,
    /// robots2).
    WildcardAllow {
        /// The catch-all Disallow's rule id.
        catch_all: Option<RuleId>,
    },
    /// robots2 2.0: the catch-all Disallow, so no other rule matched.
    CatchAllDisallow,
    /// The file's own path, allowed above every rule.
    SelfPath,
    /// acap: the narrowest scope among the matching rules (ACAP 2.4.5).
    NarrowestScope,
}

/// Why `rule`, the deciding rule of a check of `policy`
/// ([`robocc_engine::Verdict::rule`]), wins: the rank class the compiler
/// stored with it, and what that class compares.
pub fn why(policy: &Policy<'_>, rule: &RuleRef<'_>) -> Why {
    match rule.class {
        RankClass::LongestMatch => Why::LongestMatch {
            length: rule.pattern.len(),
        },
        RankClass::FirstMatch => Why::FirstMatch,
        RankClass::ExplicitAllow => Why::ExplicitAllow,
        RankClass::Disallow => Why::Disallow,
        RankClass::WildcardAllow => Why::WildcardAllow {
            catch_all: policy.rule_ids().find(|&id| {
                policy
                    .rule(id)
                    .is_some_and(|c| c.class == RankClass::CatchAllDisallow)
            }),
        },
        RankClass::CatchAllDisallow => Why::CatchAllDisallow,
        RankClass::SelfPath => Why::SelfPath,
        RankClass::NarrowestScope => Why::NarrowestScope,
    }
}

#[cfg(test)]
mod tests {
    use super::{statements, why, Statement, Why};
    use crate::{compile, CompileOptions};
    use robocc_engine::{Dialect, Policy, SignalSource, Usage};

    fn compiled(body: &str, options: &CompileOptions) -> robocc_engine::AlignedBytes {
        compile(body.as_bytes(), "ExampleBot", options)
            .expect("compiles")
            .to_bytes()
    }

    /// `body` compiled with the default options (rfc9309).
    fn rfc9309(body: &str) -> robocc_engine::AlignedBytes {
        compiled(body, &CompileOptions::default())
    }

    fn with_token(token: &str) -> CompileOptions {
        CompileOptions {
            training_agents: vec![token.into()],
            ..CompileOptions::default()
        }
    }

    /// (line, shadowing line) of each statement.
    fn lines(p: &Policy<'_>, s: &[Statement<'_>]) -> Vec<(u32, Option<u32>)> {
        s.iter()
            .map(|s| {
                let by = s.shadowed_by.map(|id| p.rule(id).expect("a rule").line);
                (s.rule.line, by)
            })
            .collect()
    }

    #[test]
    fn a_longer_content_usage_path_shadows_a_shorter_one() {
        let bytes = rfc9309(
            "User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n\
             Content-Usage: /docs/ train-ai=y\nContent-Usage: /docs/ search=n\n\
             Content-Usage: /other/ train-ai=n\n",
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        let s = statements(&p, b"https://example.com/docs/a");
        // The file-wide line is shadowed by the first line of /docs/;
        // /other/ does not match.
        assert_eq!(lines(&p, &s), [(3, Some(4)), (4, None), (5, None)]);
        assert!(s.iter().all(|s| s.source == SignalSource::ContentUsage));
        // The engine agrees: /docs/'s train-ai=y decides.
        let v = p.preference(b"https://example.com/docs/a", Usage::TrainAi);
        assert_eq!(v.map(|v| (v.allowed, v.rule)), Some((true, Some(s[1].id))));
        // Elsewhere the file-wide line is the longest, and applies.
        let s = statements(&p, b"https://example.com/x");
        assert_eq!(lines(&p, &s), [(3, None)]);
    }

    #[test]
    fn content_signal_lines_all_apply() {
        let bytes = rfc9309(
            "Content-Signal: search=yes\nUser-agent: *\nAllow: /\nContent-Signal: ai-train=no\n",
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        let s = statements(&p, b"https://example.com/a");
        assert_eq!(lines(&p, &s), [(1, None), (4, None)]);
        assert!(s.iter().all(|s| s.source == SignalSource::ContentSignal));
    }

    #[test]
    fn the_higher_ranked_training_token_rule_wins() {
        let bytes = compiled(
            "User-agent: *\nAllow: /\n\nUser-agent: Google-Extended\nDisallow: /a\n\
             Allow: /a/b\n",
            &with_token("Google-Extended"),
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        let url = b"https://example.com/a/b/c";
        let s = statements(&p, url);
        // Both match; the longer Allow ranks higher, and states nothing.
        assert_eq!(lines(&p, &s), [(6, None)]);
        assert_eq!(s[0].source, SignalSource::TrainingToken("Google-Extended"));
        assert!(s[0].is_token_allow());
        assert_eq!(p.preference(url, Usage::TrainAi), None);
        // Under the Disallow alone, it decides train-ai.
        let url = b"https://example.com/a/x";
        let s = statements(&p, url);
        assert_eq!(lines(&p, &s), [(5, None)]);
        assert!(!s[0].is_token_allow());
        let v = p.preference(url, Usage::TrainAi).unwrap();
        assert_eq!((v.allowed, v.rule), (false, Some(s[0].id)));
    }

    #[test]
    fn on_equal_rank_the_earlier_training_token_rule_wins() {
        // Two Disallows of the same length match /ab/c.
        let bytes = compiled(
            "User-agent: *\nAllow: /\n\nUser-agent: CCBot\nDisallow: /a*/\nDisallow: /ab/\n",
            &with_token("CCBot"),
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        let rank = |line| p.rules().find(|r| r.line == line).map(|r| r.rank);
        assert_eq!(rank(5), rank(6));
        let url = b"https://example.com/ab/c";
        let s = statements(&p, url);
        assert_eq!(lines(&p, &s), [(5, None)]);
        let v = p.preference(url, Usage::TrainAi).unwrap();
        assert_eq!((v.allowed, v.rule), (false, Some(s[0].id)));
        // Each token is resolved on its own.
        let bytes = compiled(
            "User-agent: *\nAllow: /\n\nUser-agent: CCBot\nDisallow: /a\n\n\
             User-agent: Google-Extended\nDisallow: /\n",
            &CompileOptions {
                training_agents: vec!["CCBot".into(), "Google-Extended".into()],
                ..CompileOptions::default()
            },
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        let s = statements(&p, b"https://example.com/ab");
        let tokens: Vec<_> = s.iter().map(|s| (s.source, s.rule.line)).collect();
        assert_eq!(
            tokens,
            [
                (SignalSource::TrainingToken("CCBot"), 5),
                (SignalSource::TrainingToken("Google-Extended"), 8)
            ]
        );
    }

    #[test]
    fn no_statements_without_preference_channels() {
        let bytes = rfc9309("User-agent: *\nDisallow: /a\n");
        let p = Policy::from_bytes(&bytes).unwrap();
        assert!(statements(&p, b"https://example.com/a").is_empty());
        // Other dialects do not read the preference lines.
        let bytes = compiled(
            "User-agent: *\nDisallow: /a\nContent-Usage: train-ai=n\n",
            &CompileOptions {
                dialect: Dialect::Draft1996,
                ..CompileOptions::default()
            },
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        assert!(statements(&p, b"https://example.com/b").is_empty());
    }

    /// The deciding rule of `url`, and why it wins.
    fn decided(p: &Policy<'_>, url: &str) -> (u32, Why) {
        let id = p.check(url.as_bytes()).rule.expect("a rule decides");
        let r = p.rule(id).unwrap();
        (r.line, why(p, &r))
    }

    #[test]
    fn why_the_longest_match_wins() {
        let bytes = rfc9309("User-agent: *\nDisallow: /private\nAllow: /private/ok\n");
        let p = Policy::from_bytes(&bytes).unwrap();
        assert_eq!(
            decided(&p, "https://example.com/private/ok/1"),
            (3, Why::LongestMatch { length: 11 })
        );
        assert_eq!(
            decided(&p, "https://example.com/private/x"),
            (2, Why::LongestMatch { length: 8 })
        );
        // The file's own path: the compiler's rule, above the others.
        let id = p.check(b"https://example.com/robots.txt").rule.unwrap();
        assert_eq!(why(&p, &p.rule(id).unwrap()), Why::SelfPath);
    }

    #[test]
    fn why_robots2_precedence_classes_win() {
        let options = CompileOptions {
            dialect: Dialect::Robots2,
            ..CompileOptions::default()
        };
        // 2.0: a pattern with `*` is a wildcard over the whole path, any
        // other is matched exactly; `*` alone is the catch-all.
        let bytes = compiled(
            "User-agent: *\nRobot-version: 2.0\nDisallow: *\nAllow: *.html\nDisallow: /a/*\n\
             Allow: /a/b.html\n",
            &options,
        );
        let p = Policy::from_bytes(&bytes).unwrap();
        assert_eq!(
            decided(&p, "https://example.com/a/b.html"),
            (6, Why::ExplicitAllow)
        );
        assert_eq!(
            decided(&p, "https://example.com/a/x.html"),
            (5, Why::Disallow)
        );
        let catch_all = p
            .rule_ids()
            .find(|&id| p.rule(id).is_some_and(|r| r.line == 3));
        assert_eq!(
            decided(&p, "https://example.com/x.html"),
            (4, Why::WildcardAllow { catch_all })
        );
        assert!(catch_all.is_some());
        assert_eq!(
            decided(&p, "https://example.com/x"),
            (3, Why::CatchAllDisallow)
        );
    }

    #[test]
    fn why_the_first_match_wins() {
        let options = CompileOptions {
            dialect: Dialect::Draft1996,
            ..CompileOptions::default()
        };
        let bytes = compiled("User-agent: *\nAllow: /a\nDisallow: /a/b\n", &options);
        let p = Policy::from_bytes(&bytes).unwrap();
        assert_eq!(decided(&p, "https://example.com/a/b"), (2, Why::FirstMatch));
    }
}
