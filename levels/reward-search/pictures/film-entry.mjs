// The rollout-film process's entry (docs/spec/reward-search.md §2, pictures): `hexa inspect` draws synchronously, and
// MuJoCo's wasm module loads asynchronously, so the drawer runs this script and waits for the GIF it writes.
// It registers tsx itself (a child process does not inherit the parent's loader) and then loads the TypeScript.
import { register } from "tsx/esm/api";

register();
await import("./film-main.ts");
