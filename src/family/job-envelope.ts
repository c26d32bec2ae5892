import { z } from "zod";

/**
 * What every job on a worker queue carries, an episode's and a family's own (reward search's trainings;
 * docs/ARCHITECTURE.md §7): this schema version and the hexa that made it; a worker of another version refuses the
 * job (without retries) rather than run it with other code. Bump JOB_SCHEMA_VERSION when a payload's shape changes.
 */
// 2: an episode job carries the run's spend cap; a worker that ignored it would spend without limit.
export const JOB_SCHEMA_VERSION = 2;

/** A queue kind (`episodes`, or one a family adds, e.g. `trainings`) → its queue's name on the backend. */
export const queueName = (kind: string): string => `hexa-${kind}`;

export const HexaVersion = z.object({ version: z.string(), commit: z.string().nullable() });
export type HexaVersion = z.infer<typeof HexaVersion>;
