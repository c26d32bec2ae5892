import { schemaFlags } from "../../../src/cli-kit/schema-flags.ts";
import { searchFlags } from "../../../src/search/flags.ts";
import { TrainerConfig } from "../trainer/trainer-config.ts";

/** The `search:` slice's flags (src/cli-kit/schema-flags.ts): --budget, --samples, --iterations, --initial, --children, --lambda-start, --lambda-end, --eta. */
export const FLAGS = searchFlags();

/** The trainer slice's keys a search takes as flags (--wall-ms), so a run's config and a search read one schema. */
export const TRAINER_SLICE = TrainerConfig.pick({ wallMs: true });
export const TRAINER_FLAGS = schemaFlags(TRAINER_SLICE);
