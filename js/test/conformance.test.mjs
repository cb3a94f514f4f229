// corpus/conformance/*.json through the package: every expected verdict
// there was written from the specifications (RFC 9309, Google's test
// suite, the 1996 draft, robots 2.0, ACAP 1.0, the AI-usage preference
// drafts), not from running robocc, so this checks the package end to end
// against an oracle that shares no code with it. page.json (page-level
// permissions of HTML pages) is another format the package does not
// answer; every other case runs, and the test counts them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "../lib/index.mjs";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "corpus", "conformance");
const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
const NOT_ANSWERED = new Set(["page"]);

// A case's options (the CLI's flags in snake case) as the package's.
const OPTION = {
  url_mode: "urlMode",
  robots_txt: "robotsTxt",
  max_bytes: "maxBytes",
  records_close_groups: "recordsCloseGroups",
  preference_grouping: "preferenceGrouping",
  data_txt: "dataTxt",
  purposes: "purpose",
  references: "reference",
  training_agents: "trainingAgent",
};

function body(c) {
  return "robots_hex" in c ? Uint8Array.from(Buffer.from(c.robots_hex, "hex")) : c.robots;
}

function options(dialect, c) {
  const out = dialect === "signals" ? {} : { dialect };
  for (const [k, v] of Object.entries(c.options ?? {})) {
    assert.ok(k in OPTION, `${c.name}: unknown option ${k}`);
    out[OPTION[k]] = v;
  }
  return out;
}

// Every crawl API gives the case's verdict: check (string and bytes),
// checkUsage("crawl") and explain's verdict.
function crawl(policy, url, want, where) {
  assert.equal(policy.check(url), want, where);
  assert.equal(policy.check(new TextEncoder().encode(url)), want, where);
  assert.equal(policy.checkUsage(url, "crawl"), want, where);
  const e = policy.explain(url);
  assert.equal(e.verdict, want, where);
  if (e.rule === null) assert.equal(e.line, null, where);
}

function run(dialect, c) {
  const policy = compile(body(c), c.agent, options(dialect, c));
  try {
    for (const check of c.checks) {
      if (dialect === "signals") {
        const [url, channel, verdict, line] = check;
        const where = `${c.name}: ${url} ${channel}`;
        if (channel === "crawl") {
          crawl(policy, url, verdict, where);
          continue;
        }
        assert.equal(policy.checkUsage(url, channel), verdict, where);
        assert.equal(policy.checkUsage(url, channel.toUpperCase()), verdict, where);
        const pref = policy.explain(url).preferences[channel];
        assert.equal(pref.verdict, verdict, where);
        if (line !== undefined) assert.equal(pref.line, Number(line), where);
      } else if (dialect === "acap") {
        const [url, usage, verdict] = check.length === 3 ? check : [check[0], "crawl", check[1]];
        // undecidable is a prohibition (the engine's {allowed: false, rule: None})
        const want = verdict === "allow" ? "allow" : "disallow";
        const where = `${c.name}: ${url} ${usage}`;
        assert.equal(policy.checkUsage(url, usage), want, where);
        if (usage.toLowerCase() === "crawl") crawl(policy, url, want, where);
      } else {
        const [url, verdict] = check;
        crawl(policy, url, verdict, `${c.name}: ${url}`);
      }
    }
  } finally {
    policy.free();
  }
  return c.checks.length;
}

test("every conformance case the package answers runs, with the expected verdicts", async (t) => {
  const counts = {};
  let checks = 0;
  for (const f of files) {
    const doc = JSON.parse(readFileSync(join(dir, f), "utf8"));
    if (NOT_ANSWERED.has(doc.dialect)) continue;
    await t.test(f, () => {
      for (const c of doc.cases) {
        checks += run(doc.dialect, c);
        counts[doc.dialect] = (counts[doc.dialect] ?? 0) + 1;
      }
    });
    assert.equal(counts[doc.dialect], doc.cases.length, f);
  }
  assert.deepEqual(Object.keys(counts).sort(), ["acap", "draft1996", "rfc9309", "robots2", "signals"]);
  assert.ok(checks > 1500, `only ${checks} checks`);
});
