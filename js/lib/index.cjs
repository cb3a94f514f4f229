// Node, require("robocc"): the module is compiled and instantiated
// synchronously at load, so there is nothing to initialise.
"use strict";
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { makeApi } = require("../dist/core.cjs");

const module_ = new WebAssembly.Module(readFileSync(join(__dirname, "..", "dist", "robocc.wasm")));
const api = makeApi(new WebAssembly.Instance(module_, {}).exports);
module.exports = api;
