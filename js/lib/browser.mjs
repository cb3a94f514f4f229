// Browsers: `await init()` once (it fetches dist/robocc.wasm beside this
// file, or the URL, Response, bytes or WebAssembly.Module given), then
// compile, lint and diff as in Node.
import { makeApi } from "./core.mjs";

let api = null;

export async function init(source = new URL("../dist/robocc.wasm", import.meta.url)) {
  if (api) return;
  let instance;
  if (source instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(source, {});
  } else {
    if (typeof source === "string" || source instanceof URL) source = fetch(source);
    source = await source;
    if (typeof Response !== "undefined" && source instanceof Response) {
      instance = (
        WebAssembly.instantiateStreaming && source.headers.get("content-type") === "application/wasm"
          ? await WebAssembly.instantiateStreaming(source, {})
          : await WebAssembly.instantiate(await source.arrayBuffer(), {})
      ).instance;
    } else {
      instance = (await WebAssembly.instantiate(source, {})).instance;
    }
  }
  api = makeApi(instance.exports);
}

function ready() {
  if (!api) throw new Error("robocc: call `await init()` first");
  return api;
}

export const compile = (...a) => ready().compile(...a);
export const lint = (...a) => ready().lint(...a);
export const diff = (...a) => ready().diff(...a);
