import { ConfigError } from "../../../src/errors.ts";
import type { HelloMessage } from "./protocol.ts";

/** What a trainer's hello says it serves, and the fix when a run names tasks outside it. */
const servedText = (hello: HelloMessage): string =>
  `the trainer ${hello.trainer.name} ${hello.trainer.version} (rewardSearch.trainer.command) serves ${hello.tasks.map((t) => t.id).join(", ") || "no task"}`;

/**
 * Refuses tasks the trainer's hello does not list, naming both sides: a training of one could only fail with
 * `unknown_task`, every one alike, and the run would read as a search that never succeeded.
 */
export const checkServedTasks = (tasks: readonly string[], hello: HelloMessage): void => {
  const served = new Set(hello.tasks.map((t) => t.id));
  const missing = tasks.filter((t) => !served.has(t));
  if (missing.length === 0) return;
  throw new ConfigError(
    `levels: ${servedText(hello)}, not ${missing.join(", ")} (got levels ${tasks.join(", ")}); run levels that trainer serves, or point rewardSearch.trainer.command at one that serves ${missing.join(", ")}`,
  );
};
