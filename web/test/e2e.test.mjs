// The built page (dist/, `npm run build`) in headless Chromium, driven as a
// person uses it: type a robots.txt, an agent and URLs, read the verdicts
// and lint findings from the DOM (the contract in src/app.js). The
// verdicts are compared with corpus/conformance/rfc9309.json's, written
// from the specifications, and the lint findings with the package's.
//
// Needs Chromium (CHROMIUM, default /usr/bin/chromium: Debian's package);
// without it the test is skipped, unless ROBOCC_REQUIRE_BROWSER=1 (CI),
// when it fails. ROBOCC_SCREENSHOT=1 writes docs/tester.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { lint } from "../../js/lib/index.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "dist");
const root = join(here, "..", "..");
const executable = process.env.CHROMIUM ?? "/usr/bin/chromium";
const haveBrowser = existsSync(executable);
if (!haveBrowser && process.env.ROBOCC_REQUIRE_BROWSER === "1") {
  throw new Error(`${executable} not found (apt-get install chromium), and ROBOCC_REQUIRE_BROWSER=1`);
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };

// dist/ on 127.0.0.1, as any static server would serve it.
function serve() {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(dist, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function launch() {
  return chromium.launch({
    executablePath: executable,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// The rfc9309 cases a person can type: text without CR or NUL (a textarea
// gives LF line ends), default options, one agent, URLs that are one
// trimmed line each.
function typeable() {
  const doc = JSON.parse(readFileSync(join(root, "corpus", "conformance", "rfc9309.json"), "utf8"));
  return doc.cases.filter(
    (c) =>
      typeof c.robots === "string" &&
      !/[\r\0]/.test(c.robots) &&
      !c.options &&
      !c.agent.includes(",") &&
      c.checks.every(([u]) => u === u.trim() && u !== "" && !u.startsWith("#") && !/[\r\n]/.test(u)),
  );
}

async function results(page) {
  return page.$$eval("#results [data-url]", (els) =>
    els.map((e) => [e.dataset.url, e.dataset.verdict, e.dataset.line]),
  );
}

test("the page gives the conformance cases' verdicts, lint and no off-origin request", { skip: !haveBrowser && "no Chromium" }, async () => {
  assert.ok(existsSync(join(dist, "index.html")), "build the page first: npm run build");
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const offOrigin = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(`${origin}/`)) offOrigin.push(r.url());
    });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${origin}/`);
    await page.waitForSelector("body[data-ready=true]", { state: "attached" });
    // Timings (a measurement, printed, not asserted: the machine may be
    // busy): the first load, then a reload (the browser's own start-up
    // left out; files from its cache as a returning visitor's).
    for (const load of ["first load", "reload"]) {
      if (load === "reload") {
        await page.reload();
        await page.waitForSelector("body[data-ready=true]", { state: "attached" });
      }
      const t = await page.evaluate(() => ({
        ...window.roboccTiming,
        html: performance.getEntriesByType("navigation")[0].responseEnd,
      }));
      const ms = (k) => t[k].toFixed(0);
      console.log(
        `# ${load}, ms from navigation start: page received ${ms("html")}, script ${ms("script")}, ` +
          `module ready ${ms("wasm")}, first verdicts ${ms("firstVerdict")}, first update done ${ms("firstUpdate")}`,
      );
    }
    // The sample's verdicts are on screen at load.
    assert.ok((await results(page)).length > 0);

    const cases = typeable();
    assert.ok(cases.length > 60, `only ${cases.length} typeable cases`);
    let checks = 0;
    for (const c of cases) {
      await page.fill("#agent", c.agent);
      await page.fill("#robots", c.robots);
      await page.fill("#urls", c.checks.map(([u]) => u).join("\n"));
      const got = await results(page);
      assert.deepEqual(
        got.map(([u, v]) => [u, v]),
        c.checks.map(([u, v]) => [u, v]),
        c.name,
      );
      checks += got.length;
    }
    console.log(`# ${cases.length} cases, ${checks} verdicts read from the DOM`);

    // Lint: findings on their lines, as the package gives them.
    const robots = "User-agent: *\nDisalow: /private\nAllow /public\nCrawl-delay: soon\n";
    await page.fill("#robots", robots);
    const shown = await page.$$eval("#lint [data-line]", (els) => els.map((e) => [Number(e.dataset.line), e.dataset.severity]));
    const want = lint(robots, { dialect: "rfc9309", urlMode: "google", trainingAgent: ["Google-Extended"] });
    assert.ok(want.length >= 2);
    assert.deepEqual(shown, want.map((f) => [f.line, f.severity]));
    assert.ok(shown.some(([line]) => line === 2));

    // Several agents, comma-separated, read together; the deciding line.
    await page.fill("#robots", "User-agent: Googlebot-Image\nDisallow: /img/\n\nUser-agent: Googlebot\nDisallow: /a/\n");
    await page.fill("#agent", "Googlebot-Image, Googlebot");
    await page.fill("#urls", "https://example.com/img/x.png\nhttps://example.com/a/\nhttps://example.com/b");
    assert.deepEqual(await results(page), [
      ["https://example.com/img/x.png", "disallow", "2"],
      ["https://example.com/a/", "disallow", "5"],
      ["https://example.com/b", "allow", ""],
    ]);

    // A bad agent is an error on the page, not a verdict.
    await page.fill("#agent", "Googlebot/2.1");
    assert.equal(await page.isVisible("#error"), true);
    assert.match(await page.textContent("#error"), /product token/);

    // Diff mode: the change class, with its witness.
    await page.fill("#agent", "Googlebot");
    await page.fill("#robots", "User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n");
    await page.check("#diff-mode");
    await page.fill("#old-robots", "User-agent: *\nDisallow: /private/\n");
    const changes = await page.$$eval("#diff [data-witness]", (els) => els.map((e) => [e.dataset.from, e.dataset.to, e.dataset.witness]));
    assert.deepEqual(changes, [["allow", "disallow", "/tmp/"]]);

    assert.deepEqual(errors, []);
    assert.deepEqual(offOrigin, []);

    if (process.env.ROBOCC_SCREENSHOT === "1") {
      const shot = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
      await shot.goto(`${origin}/`);
      await shot.waitForSelector("body[data-ready=true]", { state: "attached" });
      await shot.check("#diff-mode");
      await shot.screenshot({ path: join(root, "docs", "tester.png"), fullPage: true });
    }
  } finally {
    await browser.close();
    server.close();
  }
});

test("the page is readable on a phone: no horizontal scroll", { skip: !haveBrowser && "no Chromium" }, async () => {
  const server = await serve();
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 375, height: 800 }, isMobile: true });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector("body[data-ready=true]", { state: "attached" });
    const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client, `page is ${scroll}px wide in a ${client}px viewport`);
    // Every form control has a label.
    const unlabelled = await page.$$eval("textarea, input, select", (els) => els.filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id));
    assert.deepEqual(unlabelled, []);
  } finally {
    await browser.close();
    server.close();
  }
});
