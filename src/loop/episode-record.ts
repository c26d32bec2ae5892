import { labelTrajectories } from "../../agents/evolver-labels.ts";
import { ConfigError } from "../errors.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { hexaCommand } from "../util/hexa-command.ts";

/**
 * An episode the model endpoint broke off is not an outcome of the method: it is not recorded (it would count
 * as a failure and teach the evolver nothing true), the run stops, and a resume plays it again.
 */
export const endpointFailed = (id: string, error: string | undefined, runPath: string): ConfigError =>
  new ConfigError(
    `${id}: the model endpoint failed (${error ?? "no detail"}); the episode was not recorded. Fix the endpoint or key, then: ${hexaCommand(`run --resume ${runPath}`)}`,
  );

/** A finished trajectory as the run records it: with its r(τ) and category (docs/spec/method.md §2). */
export const episodeRecord = (r: Omit<EpisodeRecord, "schemaVersion" | "r" | "category">): EpisodeRecord => {
  const [label] = labelTrajectories([r.trajectory], [r.id]);
  return { schemaVersion: 1, ...r, r: label!.r, category: label!.category };
};
