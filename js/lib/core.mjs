// The package's glue: JavaScript values to and from the robocc module's
// memory (js/src/lib.rs is the other side). One source for every loader:
// Node's require and import (lib/index.cjs, lib/index.mjs) and browsers
// (lib/browser.mjs); `npm run build` writes dist/core.cjs from this file
// for require.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `x` as bytes: a string as UTF-8, a Uint8Array as it is. */
function bytesOf(x, what) {
  if (typeof x === "string") return encoder.encode(x);
  if (x instanceof Uint8Array) return x;
  throw new TypeError(`${what} must be a string or a Uint8Array, not ${x === null ? "null" : typeof x}`);
}

/** The options object as the JSON the module reads (a Uint8Array in
 * `reference` as an array of bytes). */
function optionsJson(options, what) {
  if (options === undefined || options === null) return "null";
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`${what} must be an object`);
  }
  return JSON.stringify(options, (key, value) =>
    value instanceof Uint8Array ? Array.from(value) : value,
  );
}

function agentJson(agent) {
  if (typeof agent === "string" || (Array.isArray(agent) && agent.every((a) => typeof a === "string"))) {
    return JSON.stringify(agent);
  }
  throw new TypeError("agent must be a string or an array of strings");
}

/**
 * The package's API over an instantiated robocc module (its exports).
 * @param {WebAssembly.Exports} wasm
 */
function makeApi(wasm) {
  const memory = () => new Uint8Array(wasm.memory.buffer);

  // Arguments live in the module's memory for one call.
  function withArgs(args, call) {
    const passed = args.map((bytes) => {
      const ptr = wasm.robocc_alloc(bytes.length) >>> 0;
      if (bytes.length) memory().set(bytes, ptr);
      return [ptr, bytes.length];
    });
    try {
      return call(passed.flat());
    } finally {
      for (const [ptr, len] of passed) wasm.robocc_dealloc(ptr, len);
    }
  }

  // The check path's URL: written straight into one buffer kept in the
  // module's memory (grown when a URL needs more), so a check allocates
  // nothing on either side.
  let scratch = { ptr: 0, cap: 0 };
  function url(u) {
    const need = typeof u === "string" ? u.length * 3 : u instanceof Uint8Array ? u.length : -1;
    if (need < 0) bytesOf(u, "url"); // throws the TypeError
    if (need > scratch.cap) {
      if (scratch.cap) wasm.robocc_dealloc(scratch.ptr, scratch.cap);
      const cap = Math.max(need, 256);
      scratch = { ptr: wasm.robocc_alloc(cap) >>> 0, cap };
    }
    const view = memory().subarray(scratch.ptr, scratch.ptr + scratch.cap);
    if (typeof u === "string") return [scratch.ptr, encoder.encodeInto(u, view).written];
    view.set(u);
    return [scratch.ptr, u.length];
  }

  function out() {
    const ptr = wasm.robocc_out_ptr() >>> 0;
    const len = wasm.robocc_out_len() >>> 0;
    return decoder.decode(memory().subarray(ptr, ptr + len));
  }

  // 0: JSON in the result buffer; 1: an error's message.
  function answer(status) {
    if (status !== 0) throw new Error(out());
    return JSON.parse(out());
  }

  const freed = new FinalizationRegistry((ptr) => wasm.robocc_policy_free(ptr));

  class Policy {
    #ptr;
    #source;
    #agents;

    /** Use compile(). */
    constructor(robots, agent, options) {
      const body = bytesOf(robots, "robots");
      const json = [body, encoder.encode(agentJson(agent)), encoder.encode(optionsJson(options, "options"))];
      const ptr = withArgs(json, (a) => wasm.robocc_compile(...a)) >>> 0;
      if (ptr === 0) throw new Error(out());
      this.#ptr = ptr;
      this.#source = { body: body.slice(), options };
      this.#agents = null;
      freed.register(this, ptr, this);
    }

    #live() {
      if (this.#ptr === 0) throw new Error("this Policy was freed");
      return this.#ptr;
    }

    /** "allow" or "disallow": the crawl verdict for `url`. */
    check(u) {
      const p = this.#live();
      const [ptr, len] = url(u);
      return wasm.robocc_check(p, ptr, len) === 1 ? "allow" : "disallow";
    }

    /** "allow", "disallow" or "unknown" (an AI-usage preference nothing states). */
    checkUsage(u, usage) {
      const p = this.#live();
      if (typeof usage !== "string") throw new TypeError("usage must be a string");
      const v = withArgs([encoder.encode(usage)], ([uptr, ulen]) => {
        const [ptr, len] = url(u);
        return wasm.robocc_check_usage(p, ptr, len, uptr, ulen);
      });
      switch (v) {
        case 1:
          return "allow";
        case 0:
          return "disallow";
        case 2:
          return "unknown";
        default:
          throw new Error(out());
      }
    }

    /** Why `url` gets its crawl verdict. */
    explain(u) {
      const p = this.#live();
      const [ptr, len] = url(u);
      return answer(wasm.robocc_explain(p, ptr, len));
    }

    /** Each agent's own verdict for `url` (a policy compiled for several
     * agents answers for them read together). */
    eachAgent(u) {
      this.#live();
      if (this.#agents === null) {
        const info = this.info;
        this.#agents = info.agent.map((a) => [a, new Policy(this.#source.body, a, this.#source.options)]);
      }
      return this.#agents.map(([agent, policy]) => {
        const e = policy.explain(u);
        return { agent, verdict: e.verdict, line: e.line };
      });
    }

    /** The agents, dialect, URL mode, usages answered, and the compiler's findings. */
    get info() {
      return answer(wasm.robocc_info(this.#live()));
    }

    /** Frees the policy's memory now (else when it is garbage-collected). */
    free() {
      if (this.#ptr !== 0) {
        freed.unregister(this);
        wasm.robocc_policy_free(this.#ptr);
        this.#ptr = 0;
        for (const [, p] of this.#agents ?? []) p.free();
        this.#agents = null;
      }
    }
  }

  function compile(robots, agent, options) {
    return new Policy(robots, agent, options);
  }

  function lint(robots, options) {
    const args = [bytesOf(robots, "robots"), encoder.encode(optionsJson(options, "options"))];
    return answer(withArgs(args, (a) => wasm.robocc_lint(...a)));
  }

  function diff(oldRobots, newRobots, agent, options) {
    const args = [
      bytesOf(oldRobots, "old"),
      bytesOf(newRobots, "new"),
      encoder.encode(agentJson(agent)),
      encoder.encode(optionsJson(options, "options")),
    ];
    return answer(withArgs(args, (a) => wasm.robocc_diff(...a)));
  }

  return { compile, lint, diff, Policy };
}

export { makeApi };
