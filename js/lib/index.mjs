// Node, import "robocc": the same instance as require's.
import { createRequire } from "node:module";

const api = createRequire(import.meta.url)("./index.cjs");
export const { compile, lint, diff, Policy } = api;
export default api;
