//! The 20 product tokens of issue 44's footprint report: AI crawlers and
//! search engines, the agents a site owner asks about together.

/// In the order.
pub const CRAWLERS: [&str; 20] = [
    "GPTBot",
    "ClaudeBot",
    "CCBot",
    "Google-Extended",
    "Bytespider",
    "PerplexityBot",
    "Applebot-Extended",
    "meta-externalagent",
    "Amazonbot",
    "OAI-SearchBot",
    "anthropic-ai",
    "cohere-ai",
    "Diffbot",
    "Googlebot",
    "Bingbot",
    "Applebot",
    "DuckDuckBot",
    "YandexBot",
    "Baiduspider",
    "facebookexternalhit",
];
