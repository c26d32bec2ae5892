import { schemaFlags, type SchemaFlag } from "../cli-kit/schema-flags.ts";
import { SearchConfig } from "./config.ts";

/** The search slice's flags (src/cli-kit/schema-flags.ts): --budget, --samples, --iterations, --initial, --children, --lambda-start, … */
export const searchFlags = (): SchemaFlag[] => schemaFlags(SearchConfig);
