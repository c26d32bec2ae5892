import { appHost } from "../../src/app/host.ts";
import { provideFamilyHost } from "../../src/family/host.ts";
import { cliReference } from "./cli-reference.ts";
import { configReference } from "./config-reference.ts";

/** A generated page: where it is committed, relative to the repository root, and how to write it. */
interface ReferencePage {
  path: string;
  generate: () => Promise<string>;
}

// The family commands' builders may ask for the host, as under bin/hexa.js.
provideFamilyHost(appHost);

export const REFERENCES: readonly ReferencePage[] = [
  { path: "docs/reference/cli.md", generate: cliReference },
  { path: "docs/reference/config.md", generate: configReference },
];
