import { ROLES } from "../llm/roles.ts";
import type { AppContext } from "../app/context.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { DEFAULT_CONTEXT_TOKENS } from "../app/context-tokens.ts";

/**
 * `hexa doctor [CONFIG] [--role R]`: a few cheap calls to each configured endpoint, a table of what works
 * there, and the config lines that fit it. Exits 1 when a checked role cannot work on its endpoint.
 */
export const doctorCommand = (ctx: AppContext) =>
  defineCommand({
    command: "doctor [config]",
    describe: "pre-flight check of each role's endpoint: tool calls, structured output, usage, reasoning, context, parallel requests",
    builder: (y) =>
      y
        .positional("config", { type: "string", describe: "a YAML run config (default: the default llm config with OPENAI_BASE_URL / OPENAI_API_KEY)" })
        .option("role", {
          type: "string",
          array: true,
          choices: ROLES,
          describe: "check only these roles (default: the roles the config's run calls; all without a config)",
        })
        .option("model", {
          type: "string",
          describe: "a .gguf file to load and measure as an embedded model (provider: llama-cpp), instead of the endpoints",
        })
        .option("context-tokens", {
          type: "string",
          default: DEFAULT_CONTEXT_TOKENS,
          coerce: intFlag("context-tokens", 64, 2_000_000),
          describe: "size of the long prompt that checks the context window, in tokens (it is billed once per endpoint)",
        }),
    handler: async (argv) => {
      if (argv.model !== undefined) return doctorEmbedded(ctx, [["llm.actor", { provider: "llama-cpp", model: argv.model }]]);
      // The probes' modules are loaded only here: `hexa doctor --help` starts fast.
      const [{ LlmConfig }, { doctorTable, problemsOf, recommendedYaml }, { probeRoles, rolesOf }, { readRunConfig }] = await Promise.all([
        import("../llm/config.ts"),
        import("../llm/doctor-report.ts"),
        import("../app/preflight.ts"),
        import("../app/run-setup.ts"),
      ]);
      const path = argv.config;
      const cfg = path ? readRunConfig(ctx.families, path) : undefined;
      const llm = cfg?.llm ?? LlmConfig.parse({});
      const used = cfg ? rolesOf(cfg, ctx.families.get(cfg.family).search?.searchFor(cfg) !== undefined) : [];
      const roles = argv.role ?? (used.length ? used : [...ROLES]);
      const embedded = roles.flatMap((role) => {
        const c = llm[role];
        return c.provider === "llama-cpp" ? [[`llm.${role}`, c] as const] : [];
      });
      if (embedded.length) await doctorEmbedded(ctx, embedded);
      if (embedded.length === roles.length) return;
      const probed = await probeRoles(llm, roles, { env: process.env, contextTokens: argv["context-tokens"] });
      process.stdout.write(`hexa doctor${path ? ` ${path}` : ""}\n\n${doctorTable(probed)}\n\nrecommended config:\n${recommendedYaml(probed)}\n`);
      const problems = probed.flatMap((p) => p.roles.flatMap((role) => problemsOf(role, p.report)));
      for (const line of problems) process.stderr.write(`hexa doctor: ${line}\n`);
      if (problems.length) process.exitCode = 1;
    },
  });

/** Loads and measures each embedded model (`where` its config path, `given` its config), the process's models shared. */
const doctorEmbedded = async (ctx: AppContext, models: ReadonlyArray<readonly [string, Record<string, unknown>]>): Promise<void> => {
  const [{ LlamaCppModelConfig }, { probeEmbedded }, { embeddedReportText }] = await Promise.all([
    import("../llm/llama-cpp/config.ts"),
    import("../llm/llama-cpp/doctor.ts"),
    import("../llm/doctor-embedded.ts"),
  ]);
  const loaded = await ctx.embedded.get();
  for (const [where, given] of models) {
    const report = await probeEmbedded(LlamaCppModelConfig.parse(given), loaded, where);
    process.stdout.write(`hexa doctor: ${where} (embedded)\n\n${embeddedReportText(report)}\n`);
    if (report.toolCall !== "parses") {
      process.stderr.write(`hexa doctor: ${where}: a tool call held to the tools' grammar ${report.toolCall}\n`);
      process.exitCode = 1;
    }
  }
};
