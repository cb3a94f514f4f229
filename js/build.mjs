// `npm run build`: the robocc module for wasm32-unknown-unknown, from this
// checkout, into dist/robocc.wasm; and dist/core.cjs (lib/core.mjs for
// require). Needs cargo and the wasm32-unknown-unknown target
// (`rustup target add wasm32-unknown-unknown`); no other tool.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const dist = join(here, "dist");
mkdirSync(dist, { recursive: true });

const target = "wasm32-unknown-unknown";
execFileSync(
  "cargo",
  ["build", "--locked", "-p", "robocc-wasm", "--target", target, "--profile", "wasm"],
  { cwd: root, stdio: "inherit" },
);
const meta = JSON.parse(
  execFileSync("cargo", ["metadata", "--format-version", "1", "--no-deps", "--offline"], {
    cwd: root,
    maxBuffer: 64 << 20,
  }),
);
const wasm = join(dist, "robocc.wasm");
copyFileSync(join(meta.target_directory, target, "wasm", "robocc_wasm.wasm"), wasm);

// lib/core.mjs ends with its one `export { … };`: require's copy
// assigns module.exports instead.
const core = readFileSync(join(here, "lib", "core.mjs"), "utf8");
const exportLine = /^export \{ ([\w, ]+) \};\s*$/m;
if (!exportLine.test(core)) throw new Error("lib/core.mjs: no `export { … };` line at the end");
writeFileSync(
  join(dist, "core.cjs"),
  `"use strict";\n// Written by build.mjs from lib/core.mjs: edit that file.\n` +
    core.replace(exportLine, "module.exports = { $1 };\n"),
);

const bytes = readFileSync(wasm);
console.log(
  `dist/robocc.wasm: ${statSync(wasm).size} bytes, ${gzipSync(bytes, { level: 9 }).length} gzipped`,
);
