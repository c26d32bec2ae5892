// Kept apart from run-config-trust.ts, so that a command's --help loads no config schema.

/** The `--trust-run-config` flag of a command that reads a run directory it may not have made. */
export const TRUST_RUN_CONFIG_OPTION = {
  type: "boolean",
  default: false,
  describe:
    "use the endpoints, commands and paths the run's config.yaml names (base URLs, trainer command, caches, logs); by default they are not used and yours (environment, defaults) are (docs/security.md)",
} as const;
