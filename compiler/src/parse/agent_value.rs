//! The User-agent value grammar: which product tokens a caller may give
//! (each dialect's [`TokenRule`]), what part of a `User-agent` (or
//! `ACAP-crawler`) value is compared with one ([`value_token`],
//! [`is_global_value`], [`value_names`]), and a crawler's token from a whole
//! User-Agent header ([`token_from_header`]). Choosing groups with it is
//! [`crate::agent`]'s.

use std::fmt;

/// Which names an agent may have: each dialect's grammar for the caller's
/// product token ([`crate::dialect::Semantics::agent_token`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenRule {
    /// RFC 9309 §2.2.1: "The product token MUST contain only uppercase and
    /// lowercase letters ("a-z" and "A-Z"), underscores ("_"), and hyphens
    /// ("-")": `[A-Za-z_-]+` (Google's `IsValidUserAgentToObey`).
    Rfc9309,
    /// The 1996 draft's `agent = token` (§3.3), RFC 1945's token: any
    /// US-ASCII character except the controls and the tspecials
    /// `()<>@,;:\"/[]?={}`, space and tab. Digits and `.` are allowed
    /// (`MJ12bot`, `my.bot`).
    Rfc1945,
}

impl TokenRule {
    /// Whether `c` may appear in a token of this rule.
    pub fn allows(self, c: char) -> bool {
        match self {
            TokenRule::Rfc9309 => is_token_char(c),
            TokenRule::Rfc1945 => c.is_ascii_graphic() && !"()<>@,;:\\\"/[]?={}".contains(c),
        }
    }

    /// Whether `token` is a non-empty token of this rule.
    pub fn accepts(self, token: &str) -> bool {
        !token.is_empty() && token.chars().all(|c| self.allows(c))
    }
}

/// Why the product token given by the caller cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadAgent {
    token: String,
    rule: TokenRule,
}

impl fmt::Display for BadAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fact())?;
        if !self.token.is_empty() {
            f.write_str("; pass the product token (e.g. \"Googlebot\", not \"Googlebot/2.1\")")?;
        }
        Ok(())
    }
}

impl BadAgent {
    /// The token that was refused (empty when none was given).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The rule it breaks.
    pub fn rule(&self) -> TokenRule {
        self.rule
    }

    /// What is wrong, without the advice the `Display` form adds: the token,
    /// the rule and the characters it breaks the rule with.
    pub fn fact(&self) -> String {
        if self.token.is_empty() {
            return "the agent product token is empty".into();
        }
        let bad: String = self
            .token
            .chars()
            .filter(|&c| !self.rule.allows(c))
            .collect();
        let rule = match self.rule {
            TokenRule::Rfc9309 => "RFC 9309 §2.2.1 allows only letters, '_' and '-'",
            TokenRule::Rfc1945 => {
                "the 1996 draft's agent is an RFC 1945 token (§3.3): printable US-ASCII \
                 characters other than space and ()<>@,;:\\\"/[]?={}"
            }
        };
        format!(
            "invalid agent product token {:?}: {rule} (found {bad:?})",
            self.token
        )
    }
}

impl std::error::Error for BadAgent {}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '-' || c == '_'
}

/// Checks that `token` is an RFC 9309 product token (`[A-Za-z_-]+`), as
/// training agents (rfc9309 only) must be.
pub fn validate_token(token: &str) -> Result<(), BadAgent> {
    validate_agent(token, TokenRule::Rfc9309)
}

/// Checks that `token` is a product token under `rule` (the dialect's
/// [`crate::dialect::Semantics::agent_token`]).
pub fn validate_agent(token: &str, rule: TokenRule) -> Result<(), BadAgent> {
    if rule.accepts(token) {
        Ok(())
    } else {
        Err(BadAgent {
            token: token.to_string(),
            rule,
        })
    }
}

/// Product names of browser User-Agent strings (`Mozilla/5.0 (…)
/// AppleWebKit/537.36 (KHTML, like Gecko) Chrome/… Safari/…`, and Android's
/// `Build/…` in the platform comment), which a crawler's header carries for
/// compatibility and which never name the crawler. Kept short: only
/// `name/version` products can be chosen, so the bare words of a browser
/// header (`Linux`, `like`, `U`) need no entry.
const BROWSER_PRODUCTS: &[&str] = &[
    "mozilla",
    "applewebkit",
    "khtml",
    "gecko",
    "chrome",
    "safari",
    "firefox",
    "edg",
    "version",
    "mobile",
    "build",
];

/// Words that make a product name a crawler's.
const CRAWLER_WORDS: &[&str] = &["bot", "crawl", "spider", "slurp"];

fn crawlerish(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    CRAWLER_WORDS.iter().any(|w| l.contains(w))
}

/// A product's name: an RFC 1945 token with a letter (not `5.0`, not the
/// `http:` of a URL in a comment).
fn product_name(name: &str) -> bool {
    TokenRule::Rfc1945.accepts(name) && name.bytes().any(|b| b.is_ascii_alphabetic())
}

/// The product names of a User-Agent header, in order: every `name/version`
/// word (RFC 9110 §10.1.5's `product`), the first word even without a
/// version, and, inside comments (parentheses, where crawlers often put
/// their name: `(compatible; Googlebot/2.1; +http://…)`), a bare word that
/// names a crawler (`(compatible; Yahoo! Slurp; …)`). Other bare words are
/// not products: the 1996 draft's own example `FigTree/0.1 Robot
/// libwww-perl/5.04` names FigTree and libwww-perl, not `Robot`.
fn header_products(header: &str) -> Vec<&str> {
    // Words with their comment depth, split at whitespace, parentheses,
    // `;` and `,`.
    let mut words: Vec<(&str, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for (i, c) in header.char_indices() {
        if !(c.is_whitespace() || matches!(c, '(' | ')' | ';' | ',')) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            words.push((&header[s..i], depth));
        }
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((&header[s..], depth));
    }
    words
        .iter()
        .enumerate()
        .filter_map(|(i, &(word, depth))| match word.split_once('/') {
            Some((name, _)) => Some(name),
            None if i == 0 && depth == 0 => Some(word),
            None if depth > 0 && crawlerish(word) => Some(word),
            None => None,
        })
        .filter(|name| product_name(name))
        .collect()
}

/// Extracts the crawler's product name from a full User-Agent header, e.g.
/// `Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)`
/// → `Googlebot`. A convenience for callers that only have the header; it is
/// a heuristic, separate from matching, which always uses a token.
///
/// Among the header's products (`name/version` words, the first word, a
/// crawler's name in a comment), browser products (`BROWSER_PRODUCTS`)
/// are skipped; the first whose name contains "bot", "crawl", "spider" or
/// "slurp" is chosen, else the first left (`FigTree/0.1 Robot
/// libwww-perl/5.04` → `FigTree`). The name is returned whole, as an RFC
/// 1945 token (`MJ12bot/v1.4.8` → `MJ12bot`): whether it is a product
/// token of the dialect is the caller's check ([`validate_agent`]), never
/// a silent cut. `None` when the header has no such product (a browser's).
pub fn token_from_header(header: &str) -> Option<String> {
    let products: Vec<&str> = header_products(header)
        .into_iter()
        .filter(|p| !BROWSER_PRODUCTS.contains(&p.to_ascii_lowercase().as_str()))
        .collect();
    products
        .iter()
        .find(|p| crawlerish(p))
        .or(products.first())
        .map(|p| p.to_string())
}

/// Is a robots.txt user-agent value the global `*`?
pub fn is_global_value(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => next.is_ascii_whitespace() || *next == b'\x0b',
        _ => false,
    }
}

/// The part of a robots.txt user-agent value that is compared with the token.
pub fn value_token(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|&b| !(b.is_ascii_alphabetic() || b == b'-' || b == b'_'))
        .unwrap_or(value.len());
    &value[..end]
}

/// Does a robots.txt user-agent value name product token `agent`? Not the
/// global `*`; its [`value_token`] equal to `agent`, ASCII case ignored
/// (`Googlebot/2.1` names `googlebot`). acap matches `ACAP-crawler` values
/// so too (ACAP 1.0 2.3.1: a crawler identification field "is semantically
/// equivalent to a user agent field").
pub fn value_names(value: &[u8], agent: &str) -> bool {
    !is_global_value(value) && value_token(value).eq_ignore_ascii_case(agent.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        assert!(validate_token("Googlebot").is_ok());
        assert!(validate_token("Google-bot_x").is_ok());
        assert!(validate_token("Googlebot/2.1").is_err());
        assert!(validate_token("").is_err());
        assert!(validate_token("Foo Bar").is_err());
        let msg = validate_token("Googlebot/2.1").unwrap_err().to_string();
        assert!(msg.contains("\"/.1\"") || msg.contains("/"), "{msg}");
    }

    /// draft1996 and robots2 take the 1996 draft's `agent = token` (RFC
    /// 1945): digits and `.` are name characters there, and the refusal
    /// cites the draft's rule, not RFC 9309's.
    #[test]
    fn draft_tokens() {
        for ok in [
            "MJ12bot",
            "bot2",
            "my.bot",
            "Googlebot",
            "a!#$%&'*+-.^_`|~z",
        ] {
            assert!(validate_agent(ok, TokenRule::Rfc1945).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "my bot",
            "a/b",
            "a\tb",
            "caf\u{e9}",
            "a\u{1b}b",
            "a\u{7f}",
            "(x)",
            "a:b",
        ] {
            assert!(validate_agent(bad, TokenRule::Rfc1945).is_err(), "{bad:?}");
        }
        let e = validate_agent("my bot", TokenRule::Rfc1945).unwrap_err();
        assert!(e.to_string().contains("RFC 1945"), "{e}");
        assert!(!e.to_string().contains("RFC 9309"), "{e}");
        assert!(e.fact().contains("(found \" \")"), "{}", e.fact());
        let e = validate_agent("MJ12bot", TokenRule::Rfc9309).unwrap_err();
        assert!(e.to_string().contains("RFC 9309 §2.2.1"), "{e}");
        assert_eq!(e.rule(), TokenRule::Rfc9309);
        // The library's check follows the dialect.
        let body = b"User-agent: MJ12bot\nDisallow: /\n";
        for dialect in [crate::Dialect::Draft1996, crate::Dialect::Robots2] {
            let options = crate::CompileOptions {
                dialect,
                ..Default::default()
            };
            let c = crate::compile(body, "MJ12bot", &options).unwrap();
            assert_eq!(c.selection.via, crate::agent::Via::Named, "{dialect:?}");
        }
        for dialect in [crate::Dialect::Rfc9309, crate::Dialect::Acap] {
            let options = crate::CompileOptions {
                dialect,
                ..Default::default()
            };
            let e = crate::compile(body, "MJ12bot", &options).unwrap_err();
            assert!(
                e.to_string().contains("RFC 9309 §2.2.1"),
                "{dialect:?}: {e}"
            );
        }
    }

    #[test]
    fn header_extraction() {
        assert_eq!(
            token_from_header(
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
            )
            .as_deref(),
            Some("Googlebot")
        );
        assert_eq!(
            token_from_header(
                "Mozilla/5.0 (compatible; ExampleBot/0.1; https://www.example.com/bot.html)"
            )
            .as_deref(),
            Some("ExampleBot")
        );
        assert_eq!(token_from_header("curl/8.0").as_deref(), Some("curl"));
        assert_eq!(token_from_header("Mozilla/5.0").as_deref(), None);
    }

    /// The headers crawlers send (as their operators document them), and
    /// the 1996 draft's own example: the crawler's product, whole.
    #[test]
    fn header_extraction_of_real_crawlers() {
        for (header, want) in [
            ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", Some("Googlebot")),
            ("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/W.X.Y.Z Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", Some("Googlebot")),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/W.X.Y.Z Safari/537.36", Some("Googlebot")),
            ("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", Some("bingbot")),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", Some("bingbot")),
            ("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)", Some("MJ12bot")),
            ("MJ12bot/v1.4.8", Some("MJ12bot")),
            ("Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", Some("AhrefsBot")),
            ("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)", Some("GPTBot")),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", Some("Applebot")),
            ("Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)", Some("Slurp")),
            ("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/W.X.Y.Z Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0;)", Some("Google-InspectionTool")),
            // 1996 draft §3.2.1: this robot scans for `User-agent: figtree`;
            // `Robot` is a bare word, not a product.
            ("FigTree/0.1 Robot libwww-perl/5.04", Some("FigTree")),
            ("Scrapy/2.13.0 (+https://scrapy.org)", Some("Scrapy")),
            ("Googlebot", Some("Googlebot")),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", None),
            ("Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0", None),
            ("", None),
            ("((((", None),
            (")) a/1 ((", Some("a")),
            ("5.0/x 12/3", None),
        ] {
            assert_eq!(token_from_header(header).as_deref(), want, "{header}");
        }
    }

    #[test]
    fn values() {
        assert!(is_global_value(b"*"));
        assert!(is_global_value(b"* foo"));
        assert!(!is_global_value(b"*foo"));
        assert_eq!(value_token(b"Googlebot/2.1"), b"Googlebot");
        assert_eq!(value_token(b"Googlebot Images"), b"Googlebot");
        assert_eq!(value_token(b"Google-bot_x9"), b"Google-bot_x");
        assert!(value_names(b"Googlebot/2.1", "googlebot"));
        assert!(value_names(b"googlebot images", "Googlebot"));
        assert!(!value_names(b"Googlebot", "Google"));
        assert!(!value_names(b"* Googlebot", "Googlebot"));
        assert!(!value_names(b"2bot", "bot"));
    }
}
