// robocc: robots.txt answers in Node (>= 18) and browsers.

/** A robots.txt body: text (read as UTF-8) or its bytes. */
export type Robots = string | Uint8Array;

/** The crawler's product token, or several read together (Google's reading of a list). */
export type Agent = string | string[];

/** Compile options: the CLI's flag names in camelCase. Limits: 0 lifts one. */
export interface CompileOptions {
  /** Default "rfc9309"; "auto": acap when the file has ACAP- fields, robots2 when it has Robot-version, else rfc9309. */
  dialect?: "rfc9309" | "draft1996" | "robots2" | "acap" | "auto";
  /** rfc9309 only: "google" (default, URLs as given) or "rfc" (RFC 9309 §2.2.2 normalisation). */
  urlMode?: "google" | "rfc";
  /** "allow" (default: /robots.txt is always allowed) or "rules". */
  robotsTxt?: "allow" | "rules";
  /** The file is a /data.txt (draft1996). */
  dataTxt?: boolean;
  /** Any non-rule record ends a group's user-agent lines. */
  recordsCloseGroups?: boolean;
  /** Which groups Content-Usage lines belong to: "spec" (attach-05: a rule; the default) or "crawl" (the groups crawl reads). */
  preferenceGrouping?: "spec" | "crawl";
  /** rfc9309: training-only product tokens (e.g. Google-Extended): their groups' disallows disallow train-ai. */
  trainingAgent?: string[];
  /** acap: the crawler's usage purposes. */
  purpose?: string[];
  /** acap: the files ACAP-permissions-reference fields name, by the path as written. */
  reference?: Record<string, string | Uint8Array>;
  maxBytes?: number;
  maxLineLen?: number;
  maxRules?: number;
  maxStates?: number;
  maxTableBytes?: number;
  maxAutomata?: number;
  /** Seconds; WebAssembly has no clock, so the package cannot enforce it (the other limits bound the work). */
  compileTimeout?: number;
  registers?: "auto" | "always" | "never";
  layout?: "auto" | "compact" | "dense";
}

export type Verdict = "allow" | "disallow";

/** crawl, search, train-ai, ai-input, or an ACAP usage type (dialect acap). */
export type Usage = string;

export interface RuleInfo {
  /** Source line; null for a rule no line wrote (the implicit /robots.txt allow). */
  line: number | null;
  kind: "allow" | "disallow";
  pattern: string;
  /** "line", "index-htm" or "robots-txt". */
  origin: string;
}

export interface Explanation {
  url: string;
  verdict: Verdict;
  /** The deciding rule's line; null when no rule decides (the default) or no line wrote it. */
  line: number | null;
  rule: RuleInfo | null;
  matched_path: string;
  url_mode: string;
  /** rfc9309: the AI-usage preferences and the line that states each. */
  preferences?: Record<"search" | "train-ai" | "ai-input", { verdict: Verdict | "unknown"; line: number | null }>;
}

export interface PolicyInfo {
  agent: string[];
  dialect: string;
  url_mode: string;
  /** The usage channels the policy answers. */
  usages: string[];
  diagnostics: { line: number; severity: "info" | "warning" | "error"; code: string; message: string }[];
}

export declare class Policy {
  private constructor();
  /** The crawl verdict: never undefined, whatever the URL (absolute, a path, another host). */
  check(url: string | Uint8Array): Verdict;
  /** "unknown" when an AI-usage preference channel states nothing for the URL. Throws on an unknown usage. */
  checkUsage(url: string | Uint8Array, usage: Usage): Verdict | "unknown";
  explain(url: string | Uint8Array): Explanation;
  /** Each agent's own verdict (for a policy compiled for several agents). */
  eachAgent(url: string | Uint8Array): { agent: string; verdict: Verdict; line: number | null }[];
  readonly info: PolicyInfo;
  /** Frees the policy's WebAssembly memory now (else when it is garbage-collected). */
  free(): void;
}

/** Reads `robots` for `agent`. Throws an Error with robocc's message on a bad agent, options or input. */
export declare function compile(robots: Robots, agent: Agent, options?: CompileOptions): Policy;

export interface Finding {
  /** 1-based line; 0: the whole file. */
  line: number;
  severity: "info" | "warning" | "error";
  code: string;
  message: string;
  fix: string;
}

/** Lint findings, by line. `agent` names the crawler the findings are for (optional). */
export declare function lint(robots: Robots, options?: CompileOptions & { agent?: Agent }): Finding[];

export interface Change {
  from: Verdict;
  to: Verdict;
  old_line: number | null;
  new_line: number | null;
  old_rule: string | null;
  new_rule: string | null;
  /** A shortest path (and query) with the change: https://example.com + witness. */
  witness: string;
}

export interface DiffResult {
  equivalent: boolean;
  usage: string;
  changes: Change[];
}

/** Every change of verdict from `oldRobots` to `newRobots`, each with a witness. */
export declare function diff(
  oldRobots: Robots,
  newRobots: Robots,
  agent: Agent,
  options?: CompileOptions & { usage?: Usage; maxPairs?: number },
): DiffResult;
