// The package's API: loading (require and import, no init), shapes,
// errors, memory; and its answers against the robocc CLI's (check, lint,
// diff, error messages) on the conformance robots.txt files and a sample
// of the real corpus (all of it with ROBOCC_FULL=1).
//
// The CLI: ROBOCC_BIN, else target/debug/robocc (as `cargo test`
// builds it). Without it the comparisons are skipped, unless
// ROBOCC_REQUIRE_CLI=1 (test.sh, CI), when they fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as esm from "../lib/index.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const root = join(pkg, "..");
const { compile, lint, diff } = esm;

const cliPath =
  process.env.ROBOCC_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug", "robocc");
const haveCli = existsSync(cliPath);
if (!haveCli && process.env.ROBOCC_REQUIRE_CLI === "1") {
  throw new Error(`the robocc CLI is not at ${cliPath} (set ROBOCC_BIN), and ROBOCC_REQUIRE_CLI=1`);
}
const needCli = { skip: !haveCli && `no robocc CLI at ${cliPath}` };
const tmp = mkdtempSync(join(tmpdir(), "robocc-js-"));

/** Runs the CLI; its stdout, stderr and exit code. */
function cli(args) {
  const r = spawnSync(cliPath, args, { maxBuffer: 256 << 20 });
  return { out: r.stdout.toString("utf8"), err: r.stderr.toString("utf8"), status: r.status };
}

function file(name, bytes) {
  const p = join(tmp, name);
  writeFileSync(p, bytes);
  return p;
}

const sample = process.env.ROBOCC_FULL === "1" ? Infinity : 40;

/** Real robots.txt files: every one with ROBOCC_FULL=1, else an even sample. */
function realFiles() {
  const dir = join(root, "..", "shared", "corpus", "real");
  if (!existsSync(dir)) {
    if (process.env.ROBOCC_REQUIRE_SHARED === "1") throw new Error(`${dir} is missing`);
    return [];
  }
  const all = readdirSync(dir).filter((f) => f !== "SOURCES.md").sort();
  const step = Math.max(1, Math.floor(all.length / Math.min(sample, all.length)));
  return all.filter((_, i) => i % step === 0).map((f) => [f, readFileSync(join(dir, f))]);
}

/** The robots.txt bodies of corpus/conformance/rfc9309.json. */
function conformanceBodies() {
  const doc = JSON.parse(readFileSync(join(root, "corpus", "conformance", "rfc9309.json"), "utf8"));
  return doc.cases.map((c) => [c.name, "robots_hex" in c ? Buffer.from(c.robots_hex, "hex") : Buffer.from(c.robots)]);
}

/** URLs (as bytes) that the file's Allow and Disallow values reach: each
 * pattern with `*` as `x` and `$` dropped, with and without more after
 * it, and a few fixed ones. */
function urlsFor(body) {
  const out = new Set(["/", "/robots.txt", "/index.html", "/a?b=c"]);
  for (const line of body.toString("latin1").split(/\r\n|\r|\n/)) {
    const m = /^\s*(?:dis)?allow\s*:?\s*([^#\s]*)/i.exec(line);
    if (!m || !m[1]) continue;
    let p = m[1].replaceAll("*", "x").replaceAll("$", "");
    if (!p.startsWith("/")) p = `/${p}`;
    out.add(p);
    out.add(`${p}x`);
    if (out.size > 60) break;
  }
  return [...out].map((p) => Buffer.from(`https://example.com${p}`, "latin1"));
}

test("require and import load the same API, with no init", () => {
  const cjs = createRequire(import.meta.url)("../lib/index.cjs");
  for (const api of [cjs, esm, esm.default]) {
    assert.equal(typeof api.compile, "function");
    assert.equal(typeof api.lint, "function");
    assert.equal(typeof api.diff, "function");
  }
  // By the package's name, as a user's code loads it.
  const script = (kind) =>
    kind === "require"
      ? `const r = require("robocc"); console.log(r.compile("User-agent: *\\nDisallow: /x\\n", "Bot").check("/x"))`
      : `import("robocc").then((r) => console.log(r.compile("User-agent: *\\nDisallow: /x\\n", "Bot").check("/x")))`;
  for (const kind of ["require", "import"]) {
    const out = execFileSync(process.execPath, ["-e", script(kind)], { cwd: pkg }).toString().trim();
    assert.equal(out, "disallow", kind);
  }
});

test("check answers every URL: never undefined, the same as explain's verdict", () => {
  const p = compile("User-agent: *\nDisallow: /private\nAllow: /private/ok\n", "ExampleBot");
  const urls = [
    "",
    "/",
    "//",
    "not a url",
    "https://other.example/private",
    "http://example.com:8080/private?x#y",
    "/private/ok",
    new Uint8Array([0x2f, 0x70, 0x72, 0x69, 0x76, 0xff, 0xfe]),
    `https://example.com/${"a".repeat(100_000)}`,
  ];
  for (const u of urls) {
    const v = p.check(u);
    assert.ok(v === "allow" || v === "disallow", String(u).slice(0, 40));
    assert.equal(p.explain(u).verdict, v);
    assert.equal(p.checkUsage(u, "crawl"), v);
  }
  // Text is read as its UTF-8 bytes.
  for (const u of ["/private/ü€😀", "/privat€", "/pri\u0000vate", "/😀".repeat(5000)]) {
    assert.equal(p.check(u), p.check(new TextEncoder().encode(u)), u.slice(0, 20));
    assert.equal(p.explain(u).url, u);
  }
  assert.equal(p.check("/private/ü€😀"), "disallow");
  assert.equal(p.check("https://other.example/private"), "disallow");
  assert.equal(p.check("https://other.example/private/ok"), "allow");
  p.free();
});

test("explain: its shape; line and rule null when no rule decides", () => {
  const p = compile("User-agent: *\nDisallow: /private\n", "Bot");
  const e = p.explain("https://example.com/private/x");
  assert.deepEqual(Object.keys(e).sort(), ["line", "matched_path", "preferences", "rule", "url", "url_mode", "verdict"]);
  assert.deepEqual(e.rule, { line: 2, kind: "disallow", pattern: "/private", origin: "line" });
  assert.equal(e.line, 2);
  assert.equal(e.matched_path, "/private/x");
  const none = p.explain("https://example.com/public");
  assert.equal(none.verdict, "allow");
  assert.equal(none.line, null);
  assert.equal(none.rule, null);
  // The implicit /robots.txt allow: a rule no line wrote.
  const self = compile("User-agent: *\nDisallow: /\n", "Bot").explain("/robots.txt");
  assert.equal(self.verdict, "allow");
  assert.equal(self.line, null);
  assert.equal(self.rule.origin, "robots-txt");
});

test("checkUsage: tri-state preferences, ACAP usages, unknown usages refused", () => {
  const p = compile("User-agent: *\nContent-Signal: search=yes, ai-train=no\nDisallow: /x\n", "Bot");
  assert.equal(p.checkUsage("/a", "search"), "allow");
  assert.equal(p.checkUsage("/a", "train-ai"), "disallow");
  assert.equal(p.checkUsage("/a", "ai-input"), "unknown");
  assert.equal(p.checkUsage("/x", "crawl"), "disallow");
  assert.throws(() => p.checkUsage("/a", "bogus"), (e) => e instanceof Error && /bogus/.test(e.message));
  assert.throws(() => p.checkUsage("/a", 3), TypeError);
  const acap = compile("ACAP-crawler: *\nACAP-disallow-index: /x\n", "Bot", { dialect: "acap" });
  assert.equal(acap.checkUsage("/x", "index"), "disallow");
  assert.equal(acap.checkUsage("/x", "crawl"), "allow");
  assert.ok(acap.info.usages.length === 14);
});

test("errors: thrown as Error with robocc's message, never a bad answer", () => {
  const cases = [
    [() => compile("", "Googlebot/2.1"), /product token/],
    [() => compile("", ""), /product token|agent/],
    [() => compile("", ["A", "B"], { dialect: "draft1996" }), /draft1996/],
    [() => compile("", "Bot", { dialect: "draft1996", urlMode: "rfc" }), /urlMode applies to dialect rfc9309/],
    [() => compile("", "Bot", { urlMod: "rfc" }), /unknown option "urlMod"/],
    [() => compile("", "Bot", { maxBytes: -1 }), /maxBytes must be an integer/],
    [() => compile("", "Bot", { trainingAgent: ["Google-Extended/1.0"] }), /Google-Extended\/1.0/],
    [() => compile("", "Bot", { purpose: ["x"] }), /purpose applies to dialect acap/],
    [() => lint("", { agent: "a b" }), /product token/],
    [() => diff("", "", "Bot", { usage: "nope" }), /nope/],
  ];
  for (const [f, re] of cases) {
    assert.throws(f, (e) => e instanceof Error && re.test(e.message), String(re));
  }
  assert.throws(() => compile(42, "Bot"), TypeError);
  assert.throws(() => compile("", 42), TypeError);
  assert.throws(() => compile("", "Bot", "rfc"), TypeError);
  const p = compile("", "Bot");
  p.free();
  assert.throws(() => p.check("/"), /freed/);
});

test("memory: compiling and freeing many policies does not grow the module", () => {
  const body = "User-agent: *\nDisallow: /a*b$\nAllow: /a/\n".repeat(20);
  const grow = () => {
    for (let i = 0; i < 2000; i++) {
      const p = compile(body, "Bot");
      for (let j = 0; j < 20; j++) p.check(`/a/${j}b`);
      p.free();
    }
  };
  grow();
  const before = process.memoryUsage().arrayBuffers;
  grow();
  assert.ok(process.memoryUsage().arrayBuffers <= before + (1 << 20));
});

test("lint: findings shaped { line, severity, code, message, fix }", () => {
  const findings = lint("User-agent: *\nDisalow: /x\nAllow /y\n");
  assert.ok(findings.length >= 2);
  for (const f of findings) {
    assert.deepEqual(Object.keys(f).sort(), ["code", "fix", "line", "message", "severity"]);
    assert.ok(["info", "warning", "error"].includes(f.severity));
  }
  assert.deepEqual(findings.map((f) => f.line), [2, 3]);
});

test("diff: its shape, and each witness shows its change in both files", () => {
  const old = "User-agent: *\nDisallow: /private/\nDisallow: /tmp\n";
  const neu = "User-agent: *\nDisallow: /private/\nAllow: /private/press/\nDisallow: /tmp/\nDisallow: /*.pdf$\n";
  const d = diff(old, neu, "Bot");
  assert.deepEqual(Object.keys(d).sort(), ["changes", "equivalent", "usage"]);
  assert.equal(d.equivalent, false);
  assert.ok(d.changes.length >= 3);
  const [o, n] = [compile(old, "Bot"), compile(neu, "Bot")];
  for (const c of d.changes) {
    assert.deepEqual(Object.keys(c).sort(), ["from", "new_line", "new_rule", "old_line", "old_rule", "to", "witness"]);
    const url = `https://example.com${c.witness}`;
    assert.equal(o.check(url), c.from, url);
    assert.equal(n.check(url), c.to, url);
    assert.equal(o.explain(url).line, c.old_line, url);
    assert.equal(n.explain(url).line, c.new_line, url);
  }
  assert.deepEqual(diff(old, old, "Bot"), { equivalent: true, usage: "crawl", changes: [] });
});

test("check and explain give the CLI's verdicts and lines", needCli, () => {
  const bodies = [...conformanceBodies(), ...realFiles()];
  let n = 0;
  for (const [name, body] of bodies) {
    for (const agent of ["Googlebot", "GPTBot"]) {
      const urls = urlsFor(body);
      const robots = file("robots.txt", body);
      const list = file("urls.txt", Buffer.concat(urls.flatMap((u) => [u, Buffer.from("\n")])));
      const r = cli(["check", "--robots", robots, "--agent", agent, "--urls", list, "--format", "json"]);
      assert.equal(r.status, 0, `${name}: ${r.err}`);
      const want = r.out.trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(want.length, urls.length, name);
      const p = compile(new Uint8Array(body), agent);
      urls.forEach((u, i) => {
        const e = p.explain(new Uint8Array(u));
        assert.equal(p.check(new Uint8Array(u)), want[i].verdict, `${name} ${agent} ${u}`);
        assert.equal(e.verdict, want[i].verdict, `${name} ${agent} ${u}`);
        assert.equal(e.line, want[i].rule_line, `${name} ${agent} ${u}`);
        n++;
      });
      p.free();
    }
  }
  assert.ok(n > 1000, `${n} URLs`);
});

test("lint gives the CLI's findings", needCli, () => {
  let n = 0;
  for (const [name, body] of [...conformanceBodies(), ...realFiles()]) {
    const r = cli(["lint", "--robots", file("robots.txt", body), "--format", "json"]);
    const want = r.out
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const { file: _, ...f } = JSON.parse(l);
        // The CLI names its flag where the package names its option.
        for (const [flag, option] of [["--max-bytes", "maxBytes"], ["--max-line-len", "maxLineLen"], ["--max-rules", "maxRules"]]) {
          f.message = f.message.replace(`raise it with ${flag},`, `raise it with ${option},`);
        }
        return f;
      });
    assert.deepEqual(lint(new Uint8Array(body)), want, name);
    n += want.length;
  }
  assert.ok(n > 0);
});

test("diff gives the CLI's changes", needCli, () => {
  const bodies = [...conformanceBodies(), ...realFiles()].filter(([, b]) => b.length < 20_000);
  let n = 0;
  let refused = 0;
  for (let i = 1; i < bodies.length; i += 3) {
    const [[a, old], [b, neu]] = [bodies[i - 1], bodies[i]];
    const r = cli(["diff", file("old.txt", old), file("new.txt", neu), "--agent", "Googlebot", "--format", "json"]);
    if (r.status !== 0 && r.status !== 1) {
      // Refused (over the pair budget): the package throws the same reason.
      assert.throws(
        () => diff(new Uint8Array(old), new Uint8Array(neu), "Googlebot"),
        (e) => r.err.replace("--max-pairs", "maxPairs").includes(e.message),
        `${a} → ${b}: ${r.err}`,
      );
      refused++;
      continue;
    }
    const want = JSON.parse(r.out);
    const got = diff(new Uint8Array(old), new Uint8Array(neu), "Googlebot");
    assert.equal(got.equivalent, want.count === 0, `${a} → ${b}`);
    assert.deepEqual(got.changes, want.changes, `${a} → ${b}`);
    n += got.changes.length;
  }
  assert.ok(n > 0);
  assert.ok(refused < bodies.length / 30, `${refused} refused`);
});

test("a diff over its pair budget is refused, not answered in part", needCli, () => {
  const [old, neu] = ["User-agent: *\nDisallow: /a*b*c\n", "User-agent: *\nDisallow: /a*c*b\n"];
  const r = cli(["diff", file("old.txt", old), file("new.txt", neu), "--agent", "Bot", "--max-pairs", "3"]);
  assert.equal(r.status, 2, r.err);
  assert.throws(
    () => diff(old, neu, "Bot", { maxPairs: 3 }),
    (e) => /more than 3 states/.test(e.message) && r.err.replace("--max-pairs", "maxPairs").includes(e.message),
  );
});

test("a refused input's message is the CLI's", needCli, () => {
  const robots = file("robots.txt", "User-agent: *\nDisallow: /\n");
  for (const agent of ["Googlebot/2.1", "Google bot", "bot\u00e9"]) {
    let message;
    try {
      compile("User-agent: *\nDisallow: /\n", agent);
    } catch (e) {
      message = e.message;
    }
    assert.ok(message, agent);
    const r = cli(["check", "--robots", robots, "--agent", agent, "/"]);
    assert.notEqual(r.status, 0);
    // The CLI goes on with what to pass on its command line.
    const reason = message.split("; pass ")[0];
    assert.ok(reason.length > 20 && r.err.includes(reason), `CLI: ${r.err}\npackage: ${message}`);
  }
});
