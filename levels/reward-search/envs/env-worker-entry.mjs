// The env worker's entry (docs/spec/reward-search.md §2). On Node 20 the tsx loader of the main thread does not reach
// worker threads, so this plain module registers tsx in the worker itself and then loads the TypeScript worker.
import { register } from "tsx/esm/api";

register();
await import("./env-worker.ts");
