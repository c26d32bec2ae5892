import type { LlamaModels } from "../llm/llama-cpp/loaded-models.ts";
import type { CodeVersion } from "../store/run-records.ts";
import type { QueueAccess } from "./registry.ts";

/**
 * What the host (hexa's composition root, src/app/) does for a family's own commands, so that a family never imports
 * the CLI (docs/ARCHITECTURE.md, layers): the composition root (src/app/host.ts) gives
 * it to the family's module value (levels/index.ts), which hands it to its commands.
 */

/** A grid of `hexa compare` (its config, axes, runs per cell, held-out runs and runs played at once), written to `out`. */
export interface GridRequest {
  config: string;
  grid: string[];
  runs: number;
  heldout: number;
  parallel: number;
}

export interface FamilyHost {
  /** Plays a compare grid into `out` (resumable by the same request) and writes its results.json. */
  runGrid(request: GridRequest, out: string): Promise<void>;
  /** The running hexa (package version and git commit), as run.json records it. */
  codeVersion(): Promise<CodeVersion>;
  /** Writes `DIR/report.html` (what `hexa inspect DIR` writes) for a run or search directory; returns its absolute path. */
  writeReport(dir: string): Promise<string>;
  /** The process's embedded models (`provider: llama-cpp`), loaded on first use and closed when the command ends. */
  embeddedModels(): Promise<LlamaModels>;
  /**
   * The queue backend a flag names (`--backend`, as `hexa run`'s), checked as a run checks it — the job key against
   * where Redis is, TLS tried (docs/security.md) — before anything is written; undefined for `local`.
   */
  queueBackend(spec: string, where: string, log: (line: string) => void): Promise<QueueAccess | undefined>;
}
