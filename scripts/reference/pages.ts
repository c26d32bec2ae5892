import { createAppContext } from "../../src/app/context.ts";
import { cliReference } from "./cli-reference.ts";
import { configReference } from "./config-reference.ts";

/** A generated page: where it is committed, relative to the repository root, and how to write it. */
interface ReferencePage {
  path: string;
  generate: () => Promise<string>;
}

// The shipped families only, as hexa has them with no HEXA_FAMILIES.
const ctx = await createAppContext({});

export const REFERENCES: readonly ReferencePage[] = [
  { path: "docs/reference/cli.md", generate: () => cliReference(ctx) },
  { path: "docs/reference/config.md", generate: () => configReference(ctx) },
];
