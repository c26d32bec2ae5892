// The physics worker's entry (docs/spec/interphyre.md §5.2). On Node 20 the tsx loader of the main thread (bin/hexa.js's
// register(), vitest's transform) does not reach worker threads, so this plain module registers tsx in the
// worker itself and then loads the TypeScript worker.
import { register } from "tsx/esm/api";

register();
await import("./physics-worker.ts");
