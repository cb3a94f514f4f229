export * from "./index";
/** Fetches and instantiates the module (default: dist/robocc.wasm beside the package); call once before the others. */
export declare function init(source?: string | URL | Response | Promise<Response> | BufferSource | WebAssembly.Module): Promise<void>;
