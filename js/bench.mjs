// `node bench.mjs [DIR]`: what a page pays per keystroke in the package,
// over the real corpus (../shared/corpus/real by default): compile (a
// Checker: the rules read, nothing lowered) and the first five checks,
// and then checks alone. Prints the median, p90 and p99 per file, and the
// checks per second. A measurement, not a test: run it on an idle machine.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "./lib/index.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ?? join(here, "..", "..", "shared", "corpus", "real");
const files = readdirSync(dir).filter((f) => f !== "SOURCES.md").sort();
const urls = ["/", "/private/x.html", "/search?q=robots", "/a/b/c/d.pdf", "/index.html"].map((p) => `https://example.com${p}`);

const first = [];
let checks = 0;
let checkNs = 0n;
for (const f of files) {
  const body = readFileSync(join(dir, f));
  const t0 = process.hrtime.bigint();
  const p = compile(body, "Googlebot");
  for (const u of urls) p.check(u);
  const t1 = process.hrtime.bigint();
  first.push(Number(t1 - t0) / 1000);
  const t2 = process.hrtime.bigint();
  for (let i = 0; i < 20; i++) for (const u of urls) p.check(u);
  checkNs += process.hrtime.bigint() - t2;
  checks += 20 * urls.length;
  p.free();
}
first.sort((a, b) => a - b);
const q = (x) => first[Math.min(first.length - 1, Math.floor(x * first.length))].toFixed(0);
console.log(`${files.length} files: compile + 5 checks: median ${q(0.5)} µs, p90 ${q(0.9)} µs, p99 ${q(0.99)} µs, max ${q(1)} µs`);
console.log(`checks after that: ${((checks * 1e9) / Number(checkNs) / 1e6).toFixed(2)} million/s (${(Number(checkNs) / checks).toFixed(0)} ns each)`);
