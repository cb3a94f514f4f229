// `npm run build`: the tester page into dist/, static files only: the
// page, its script and style, and the robocc package's browser module and
// .wasm (built first by js/'s `npm run build`). Serve dist/ from any
// static server; nothing is fetched from anywhere else.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";

const here = dirname(fileURLToPath(import.meta.url));
const js = join(here, "..", "js");
const dist = join(here, "dist");
execFileSync("npm", ["run", "--silent", "build"], { cwd: js, stdio: "inherit" });
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, "lib"), { recursive: true });
for (const f of readdirSync(join(here, "src"))) copyFileSync(join(here, "src", f), join(dist, f));
copyFileSync(join(js, "dist", "robocc.wasm"), join(dist, "robocc.wasm"));
for (const f of ["browser.mjs", "core.mjs"]) copyFileSync(join(js, "lib", f), join(dist, "lib", f));

let raw = 0;
let gz = 0;
const walk = (d) => {
  for (const f of readdirSync(d)) {
    const p = join(d, f);
    if (statSync(p).isDirectory()) walk(p);
    else {
      raw += statSync(p).size;
      gz += gzipSync(readFileSync(p), { level: 9 }).length;
    }
  }
};
walk(dist);
console.log(`web/dist: ${raw} bytes, ${gz} gzipped (every file)`);
