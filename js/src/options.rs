//! The JavaScript options object (the CLI's flag names in camelCase), as
//! JSON, to robocc's [`CompileOptions`]: every key checked, an unknown key
//! or a value of the wrong type refused with what was expected, never
//! ignored.

use robocc_compiler::dialect::{detect, semantics, UrlModeRule};
use robocc_compiler::{
    zero_is_unlimited, Agents, CompileOptions, Layout, PreferenceGrouping, Registers,
};
use robocc_engine::{Dialect, UrlMode, Usage};
use serde_json::{Map, Value};

/// The keys of a compile's options (`compile`, `lint`, `diff`).
const COMPILE_KEYS: &[&str] = &[
    "dialect",
    "urlMode",
    "robotsTxt",
    "dataTxt",
    "recordsCloseGroups",
    "preferenceGrouping",
    "trainingAgent",
    "purpose",
    "reference",
    "maxBytes",
    "maxLineLen",
    "maxRules",
    "maxStates",
    "maxTableBytes",
    "maxAutomata",
    "compileTimeout",
    "registers",
    "layout",
];

/// `diff`'s own keys, besides the compile ones.
pub const DIFF_KEYS: &[&str] = &["usage", "maxPairs"];

/// Reads `json` (an object, or `null` for none) into compile options for
/// `body`, allowing `extra` keys besides the compile ones (returned for
/// the caller to read).
pub fn compile_options(
    json: &[u8],
    body: &[u8],
    extra: &[&str],
) -> Result<(CompileOptions, Map<String, Value>), String> {
    let value: Value =
        serde_json::from_slice(json).map_err(|e| format!("options are not JSON: {e}"))?;
    let map = match value {
        Value::Null => Map::new(),
        Value::Object(m) => m,
        other => return Err(format!("options must be an object, not {}", kind(&other))),
    };
    if let Some(k) = map
        .keys()
        .find(|k| !COMPILE_KEYS.contains(&k.as_str()) && !extra.contains(&k.as_str()))
    {
        let mut known: Vec<&str> = COMPILE_KEYS.iter().chain(extra).copied().collect();
        known.sort_unstable();
        return Err(format!(
            "unknown option {k:?}: expected one of {}",
            known.join(", ")
        ));
    }
    let mut o = CompileOptions::default();
    let dialect = string(&map, "dialect")?.unwrap_or("rfc9309");
    o.dialect = match dialect {
        "auto" => detect(body),
        d => d.parse::<Dialect>().map_err(|_| {
            format!(
                "dialect {d:?}: expected rfc9309, draft1996, robots2, acap or auto (acap when the \
                 file has ACAP- fields, robots2 when it has Robot-version, else rfc9309)"
            )
        })?,
    };
    if let Some(m) = string(&map, "urlMode")? {
        if let UrlModeRule::Fixed(_) = semantics(o.dialect).url_mode {
            return Err(format!(
                "urlMode applies to dialect rfc9309 only, and the file is read as {}: drop urlMode",
                o.dialect.name()
            ));
        }
        o.url_mode = match m {
            "google" => UrlMode::Google,
            "rfc" => UrlMode::Rfc,
            _ => return Err(format!("urlMode {m:?}: expected google or rfc")),
        };
    }
    o.robots_txt_allowed = match string(&map, "robotsTxt")?.unwrap_or("allow") {
        "allow" => true,
        "rules" => false,
        m => return Err(format!("robotsTxt {m:?}: expected allow or rules")),
    };
    o.data_txt = boolean(&map, "dataTxt")?;
    o.parse.records_close_groups = boolean(&map, "recordsCloseGroups")?;
    if let Some(g) = string(&map, "preferenceGrouping")? {
        o.preference_grouping = PreferenceGrouping::from_name(g).ok_or_else(|| {
            format!(
                "preferenceGrouping {g:?}: expected spec (each preference syntax as its spec \
                 groups it) or crawl (in the groups crawl reads)"
            )
        })?;
    }
    for (key, wants) in [
        ("trainingAgent", Dialect::Rfc9309),
        ("purpose", Dialect::Acap),
        ("reference", Dialect::Acap),
    ] {
        if map.contains_key(key) && o.dialect != wants {
            return Err(format!(
                "{key} applies to dialect {}, and the file is read as {}: set dialect {}, or \
                 drop {key}",
                wants.name(),
                o.dialect.name(),
                wants.name()
            ));
        }
    }
    o.training_agents = strings(&map, "trainingAgent")?;
    o.purposes = strings(&map, "purpose")?;
    o.references = references(&map)?;
    if let Some(n) = limit(&map, "maxBytes")? {
        o.parse.max_bytes = n; // the parser reads 0 as "no limit"
    }
    if let Some(n) = limit(&map, "maxLineLen")? {
        o.parse.max_line_len = zero_is_unlimited(n);
    }
    if let Some(n) = limit(&map, "maxRules")? {
        o.parse.max_rules_per_group = zero_is_unlimited(n);
    }
    if let Some(n) = limit(&map, "maxStates")? {
        o.budget.max_states = zero_is_unlimited(n);
    }
    if let Some(n) = limit(&map, "maxTableBytes")? {
        o.budget.total_bytes = zero_is_unlimited(n);
    }
    if let Some(n) = limit(&map, "maxAutomata")? {
        o.budget.max_automata = zero_is_unlimited(n);
    }
    if let Some(v) = map.get("compileTimeout") {
        let secs = v
            .as_f64()
            .filter(|s| *s >= 0.0)
            .ok_or_else(|| format!("compileTimeout must be a number of seconds ≥ 0, not {v}"))?;
        o.budget.time =
            robocc_compiler::timeout_from_secs(secs).unwrap_or(std::time::Duration::MAX);
    }
    if let Some(r) = string(&map, "registers")? {
        o.budget.registers = match r {
            "auto" => Registers::Auto,
            "always" => Registers::Always,
            "never" => Registers::Never,
            _ => return Err(format!("registers {r:?}: expected auto, always or never")),
        };
    }
    if let Some(l) = string(&map, "layout")? {
        o.budget.layout = match l {
            "auto" => Layout::Auto,
            "compact" => Layout::Compact,
            "dense" => Layout::Dense,
            _ => return Err(format!("layout {l:?}: expected auto, compact or dense")),
        };
    }
    Ok((o, map))
}

/// The agent argument (`"Googlebot"` or `["Googlebot-Image", "Googlebot"]`)
/// as JSON.
pub fn agents(json: &[u8]) -> Result<Agents, String> {
    match serde_json::from_slice::<Value>(json) {
        Ok(Value::String(s)) => Ok(Agents::from(s)),
        Ok(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(format!(
                    "agent must be a string or an array of strings, and an item is {}",
                    kind(&other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Agents::new),
        Ok(other) => Err(format!(
            "agent must be a string or an array of strings, not {}",
            kind(&other)
        )),
        Err(e) => Err(format!("agent is not JSON: {e}")),
    }
}

/// A usage by name (any case): `crawl`, `search`, `train-ai`, `ai-input`
/// or one of ACAP's usage types.
pub fn usage(name: &str) -> Result<Usage, String> {
    name.parse::<Usage>()
        .map_err(|e| format!("usage {name:?}: {e}"))
}

/// `diff`'s usage and pair budget.
pub fn diff_options(map: &Map<String, Value>) -> Result<robocc_compiler::DiffOptions, String> {
    let mut d = robocc_compiler::DiffOptions::default();
    if let Some(u) = string(map, "usage")? {
        d.usage = usage(u)?;
    }
    if let Some(n) = limit(map, "maxPairs")? {
        d.max_pairs = n;
    }
    Ok(d)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn string<'a>(map: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("{key} must be a string, not {}", kind(v))),
    }
}

fn boolean(map: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(format!("{key} must be a boolean, not {}", kind(v))),
    }
}

/// A limit: an integer ≥ 0 (0: no limit).
fn limit(map: &Map<String, Value>, key: &str) -> Result<Option<usize>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
            .ok_or_else(|| format!("{key} must be an integer ≥ 0 (0: no limit), not {v}")),
    }
}

fn strings(map: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "{key} must be an array of strings, and an item is {}",
                    kind(other)
                )),
            })
            .collect(),
        Some(v) => Err(format!(
            "{key} must be an array of strings, not {}",
            kind(v)
        )),
    }
}

/// `reference`: `{"/path.txt": "body"}` (the JS side sends a Uint8Array's
/// bytes as an array of numbers).
fn references(map: &Map<String, Value>) -> Result<Vec<(String, Vec<u8>)>, String> {
    let obj = match map.get("reference") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(o)) => o,
        Some(v) => {
            return Err(format!(
                "reference must be an object of path to contents, not {}",
                kind(v)
            ))
        }
    };
    obj.iter()
        .map(|(path, body)| {
            let bytes = match body {
                Value::String(s) => s.clone().into_bytes(),
                Value::Array(items) => items
                    .iter()
                    .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(|| format!("reference[{path:?}] holds a value that is no byte"))?,
                other => {
                    return Err(format!(
                        "reference[{path:?}] must be a string or a Uint8Array, not {}",
                        kind(other)
                    ))
                }
            };
            Ok((path.clone(), bytes))
        })
        .collect()
}
