// The tester page: robocc (lib/browser.mjs, robocc.wasm) answers on every
// input event. The DOM contract the tests drive: textarea#robots,
// input#agent (commas: several agents read together), textarea#urls; in
// #results one element per URL with data-url, data-verdict and data-line
// (empty when no rule decides), in #lint one per finding with data-line
// and data-severity.
import { init, compile, lint, diff } from "./lib/browser.mjs";

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k.startsWith("data-") || k.startsWith("aria-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...children);
  return e;
};
const list = (s) => s.split(",").map((t) => t.trim()).filter(Boolean);
const lines = (s) => s.split(/\r?\n/).map((u) => u.trim()).filter((u) => u && !u.startsWith("#"));

function options() {
  const dialect = $("dialect").value;
  const o = { dialect };
  if (dialect === "rfc9309") {
    o.urlMode = $("url-mode").value;
    const training = list($("training").value);
    if (training.length) o.trainingAgent = training;
  }
  return o;
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message ? `robocc: ${message}` : "";
}

const PREFS = ["search", "train-ai", "ai-input"];

function renderResults(policy, urls) {
  const decided = new Map();
  const rows = urls.map((url) => {
    const e = policy.explain(url);
    if (e.line !== null) decided.set(e.line, (decided.get(e.line) ?? 0) + 1);
    const rule = e.rule
      ? `line ${e.rule.line ?? "—"}: ${e.rule.kind === "allow" ? "Allow" : "Disallow"}: ${e.rule.pattern}`
      : "no rule matches: allowed by default";
    const prefs = e.preferences
      ? PREFS.map((u) => {
          const p = e.preferences[u];
          return el("span", { className: `pref ${p.verdict}`, "data-usage": u, "data-verdict": p.verdict },
            `${u}: ${p.verdict}${p.line ? ` (line ${p.line})` : ""}`);
        })
      : [];
    return el("div", { className: `result ${e.verdict}`, "data-url": url, "data-verdict": e.verdict, "data-line": e.line ?? "", role: "group", "aria-label": `${url}: ${e.verdict}` },
      el("span", { className: "verdict" }, e.verdict === "allow" ? "✓ allow" : "✗ disallow"),
      el("code", { className: "url" }, url),
      el("span", { className: "rule" }, rule),
      el("span", { className: "prefs" }, ...prefs));
  });
  $("results").replaceChildren(...rows);
  $("status").textContent = urls.length ? `(${rows.length} URL${rows.length === 1 ? "" : "s"})` : "(no URL)";
  return decided;
}

function renderSource(text, decided, findings) {
  const bySeverity = new Map(findings.filter((f) => f.line > 0).map((f) => [f.line, f.severity]));
  const items = text.split(/\r\n|\r|\n/).map((line, i) => {
    const n = i + 1;
    const classes = [decided.has(n) ? "decides" : "", bySeverity.has(n) ? `lint-${bySeverity.get(n)}` : ""];
    const li = el("li", { className: classes.join(" ").trim(), value: n }, line || " ");
    if (decided.has(n)) li.title = `decides ${decided.get(n)} URL(s)`;
    return li;
  });
  $("source").replaceChildren(...items);
}

function renderLint(findings) {
  const items = findings.map((f) =>
    el("li", { className: `finding ${f.severity}`, "data-line": f.line, "data-severity": f.severity, "data-code": f.code },
      el("strong", {}, `${f.line ? `line ${f.line}` : "file"} · ${f.severity} · ${f.code}: `),
      f.message,
      el("br"),
      el("span", { className: "fix" }, `Fix: ${f.fix}`)));
  $("lint").replaceChildren(...(items.length ? items : [el("li", { className: "none" }, "No findings.")]));
}

// A URL's path and query, where it has them: the matrix's row names.
function short(url) {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

function renderMatrix(robots, urls, opts) {
  const crawlers = list($("crawlers").value);
  const head = el("tr", {}, el("th", { scope: "col" }, "URL"), ...crawlers.map((c) => el("th", { scope: "col" }, c)));
  const policies = crawlers.map((c) => {
    try {
      return compile(robots, c, opts);
    } catch (e) {
      return e;
    }
  });
  const rows = urls.map((url) =>
    el("tr", { "data-url": url }, el("th", { scope: "row", title: url }, el("code", {}, short(url))),
      ...policies.map((p, i) => {
        if (p instanceof Error) return el("td", { className: "error", title: p.message }, "error");
        const e = p.explain(url);
        return el("td", { className: e.verdict, "data-agent": crawlers[i], "data-verdict": e.verdict, "data-line": e.line ?? "" },
          `${e.verdict === "allow" ? "✓" : "✗"} ${e.verdict}${e.line ? ` (${e.line})` : ""}`);
      })));
  for (const p of policies) if (!(p instanceof Error)) p.free();
  $("matrix").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

function renderDiff(robots, agents, opts) {
  const on = $("diff-mode").checked;
  $("old-field").hidden = !on;
  $("diff-section").hidden = !on;
  if (!on) return;
  let d;
  try {
    d = diff($("old-robots").value, robots, agents, opts);
  } catch (e) {
    $("diff").replaceChildren(el("p", { className: "error" }, e.message));
    return;
  }
  if (d.equivalent) {
    $("diff").replaceChildren(el("p", { "data-equivalent": "true" }, "Equivalent: no URL changes verdict."));
    return;
  }
  const side = (line, rule) => (rule ? `line ${line ?? "—"}: ${rule}` : "no rule");
  $("diff").replaceChildren(el("ul", {}, ...d.changes.map((c) =>
    el("li", { className: "change", "data-from": c.from, "data-to": c.to, "data-witness": c.witness },
      el("strong", {}, `${c.from} → ${c.to}`), " for paths like ", el("code", {}, c.witness),
      el("br"), `old: ${side(c.old_line, c.old_rule)}; new: ${side(c.new_line, c.new_rule)}`))));
}

let first = true;

function update() {
  const robots = $("robots").value;
  const agents = list($("agent").value);
  const urls = lines($("urls").value);
  const opts = options();
  let findings = [];
  try {
    findings = lint(robots, opts);
  } catch (e) {
    findings = [];
  }
  renderLint(findings);
  let policy;
  try {
    policy = compile(robots, agents.length === 1 ? agents[0] : agents, opts);
    showError("");
  } catch (e) {
    showError(e.message);
    $("results").replaceChildren();
    renderSource(robots, new Map(), findings);
    return;
  }
  try {
    const decided = renderResults(policy, urls);
    if (first) {
      // Milliseconds from navigation start to the first verdicts in the DOM.
      timing.firstVerdict = performance.now();
      window.roboccFirstVerdictMs = timing.firstVerdict;
    }
    renderSource(robots, decided, findings);
  } finally {
    policy.free();
  }
  renderMatrix(robots, urls, opts);
  renderDiff(robots, agents.length === 1 ? agents[0] : agents, opts);
  if (first) {
    first = false;
    timing.firstUpdate = performance.now();
    document.body.dataset.ready = "true";
  }
}

// Milliseconds from navigation start: this script running, the module
// instantiated, the first verdicts in the DOM, the whole first update.
const timing = { script: performance.now() };
window.roboccTiming = timing;
await init(new URL("./robocc.wasm", import.meta.url));
timing.wasm = performance.now();
for (const id of ["robots", "agent", "urls", "dialect", "url-mode", "training", "crawlers", "diff-mode", "old-robots"]) {
  $(id).addEventListener("input", update);
}
update();
