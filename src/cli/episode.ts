import { writeFileSync } from "node:fs";
import type { AppContext } from "../app/context.ts";
import type { FamilyRegistry } from "../app/families.ts";
import { budgetOf } from "../../agents/episode-budget.ts";
import type { Trajectory, TrajectoryStep } from "../store/trajectory.ts";
import { parseSeed } from "../family/seed.ts";
import { priceOf, usageRecord } from "../llm/accounting.ts";
import { LlmConfig } from "../llm/config.ts";
import { ConfigError } from "../errors.ts";
import { playEpisode } from "../loop/play.ts";
import { parseRunConfig, type RunAgent, type RunConfig } from "../loop/run-config.ts";
import { RUN_AGENTS } from "../loop/run-choices.ts";
import type { LevelFamily } from "../family/family.ts";
import { EMPTY_BANK } from "../store/bank.ts";
import { flagOptions, schemaFlags, sliceFromFlags, type SchemaFlag } from "../cli-kit/schema-flags.ts";
import { toolProgressView } from "./tool-progress.ts";
import { assertWritable } from "../cli-kit/write-file.ts";
import { defineCommand, withOptionsByName } from "../cli-kit/define-command.ts";
import { episodeOutcome } from "./episode-outcome.ts";

const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const progressLine = (s: TrajectoryStep) =>
  `turn ${String(s.turn).padStart(2)}  ${s.tool.padEnd(22)} ${s.ok ? "  " : "✗ "}${oneLine(s.observation.split("\n")[0]!, 90)}\n`;

const flagsOf = (schema: Parameters<typeof schemaFlags>[0], family: string): SchemaFlag[] =>
  schemaFlags(schema, { suffix: ` (family ${family})`, plainOnly: true, showDefaults: false });

/** Every family's config fields as flags (a name two families share is one flag, described by the first). */
const familyFlags = (families: FamilyRegistry): SchemaFlag[] => {
  const seen = new Map<string, SchemaFlag>();
  for (const id of families.ids()) for (const f of flagsOf(families.get(id).config.schema, id)) if (!seen.has(f.name)) seen.set(f.name, f);
  return [...seen.values()];
};

/** A number flag that also takes "none" (send no value): a config field's null. */
const numberOrNone = (key: string, v: unknown): Record<string, unknown> => {
  if (v === undefined) return {};
  const text = String(v).trim();
  return { [key]: text === "none" || text === "null" ? null : text === "" ? v : Number.isNaN(Number(text)) ? text : Number(text) };
};

/** The flags `hexa episode` reads into its run config: the level, the agent, T, and the family's own. */
type ConfigFlags = Record<string, unknown> & { level: string; agent: RunAgent; "max-turns": number };

/** The episode's run config, from the flags; an error names the flag, not the config key it fills. */
const episodeConfig = (families: FamilyRegistry, family: LevelFamily, argv: ConfigFlags): RunConfig => {
  const own = flagsOf(family.config.schema, family.id);
  const foreign = familyFlags(families).filter((f) => argv[f.name] !== undefined && !own.some((o) => o.name === f.name));
  if (foreign.length)
    throw new ConfigError(`--${foreign[0]!.name} is not a flag of family ${family.id}; its flags: ${own.map((f) => `--${f.name}`).join(", ") || "none"}`);
  const slice = { [family.config.key]: sliceFromFlags(own, argv) };
  const level = argv.level;
  try {
    return parseRunConfig(
      { family: family.id, levels: [level], agent: argv.agent, actor: { maxTurns: argv["max-turns"] }, ...slice },
      "hexa episode",
      families.all(),
    );
  } catch (e) {
    // Name the flag, not the config key it fills.
    throw new ConfigError(
      (e as Error).message
        .replace(/^hexa episode: /, "")
        .replace(/actor\.maxTurns/g, "--max-turns")
        .replace(new RegExp(`${family.config.key}\\.(\\w+)`, "g"), (m, field: string) => {
          const f = own.find((o) => o.path.at(-1) === field);
          return f ? `--${f.name}` : m;
        })
        .replace(/; see hexa run --print-config for its default and meaning/g, ""),
    );
  }
};

/** The flags that set the actor's model. */
interface ModelFlags {
  model?: string | undefined;
  "base-url"?: string | undefined;
  "api-key"?: string | undefined;
  "cache-dir"?: string | undefined;
  "audit-log"?: string | undefined;
  temperature?: string | undefined;
  "max-output-tokens"?: string | undefined;
  stream: boolean;
}

/** The actor's LLM config from the flags; an error names the flag (never the key's value). */
const episodeLlm = (argv: ModelFlags): LlmConfig => {
  const flags: Record<string, string> = {
    model: "--model",
    baseURL: "--base-url",
    apiKey: "--api-key",
    cacheDir: "--cache-dir",
    auditLog: "--audit-log",
    temperature: "--temperature",
    maxOutputTokens: "--max-output-tokens",
  };
  const llmParsed = LlmConfig.safeParse({
    actor: {
      ...(argv.model ? { model: argv.model } : {}),
      ...(argv["base-url"] ? { baseURL: argv["base-url"] } : {}),
      // Local servers (vLLM, Ollama, llama.cpp) take any key: with --base-url and no key, send a placeholder.
      ...(argv["api-key"] ? { apiKey: argv["api-key"] } : argv["base-url"] && !process.env.OPENAI_API_KEY ? { apiKey: "none" } : {}),
      ...numberOrNone("temperature", argv.temperature),
      ...numberOrNone("maxOutputTokens", argv["max-output-tokens"]),
      streaming: argv.stream,
    },
    ...(argv["cache-dir"] ? { cacheDir: argv["cache-dir"] } : {}),
    ...(argv["audit-log"] ? { auditLog: argv["audit-log"] } : {}),
  });
  if (!llmParsed.success) {
    const i = llmParsed.error.issues[0]!;
    const field = String(i.path.at(-1));
    const given: Record<string, unknown> = {
      model: argv.model,
      baseURL: argv["base-url"],
      apiKey: "(hidden)",
      cacheDir: argv["cache-dir"],
      auditLog: argv["audit-log"],
      temperature: argv.temperature,
      maxOutputTokens: argv["max-output-tokens"],
    };
    throw new ConfigError(`${flags[field] ?? field}: ${i.message} (got ${JSON.stringify(given[field])})`);
  }
  return llmParsed.data;
};

/** The summary line on stdout; exit status 1 when the episode errored or the model never called a tool. */
const printOutcome = (t: Trajectory, agent: RunAgent, llm: LlmConfig): void => {
  const priced = agent === "heuristic" || priceOf(llm.prices, t.model) !== undefined;
  const cost = priced ? `$${t.usage.costUsd.toFixed(4)}` : `cost unknown (${t.model} is not in the price table)`;
  process.stdout.write(`${episodeOutcome(t, cost)}\n`);
  if (t.stopReason === "error") process.exitCode = 1;
  if (agent !== "heuristic" && t.steps.length > 0 && t.steps.every((x) => x.tool === "(none)")) {
    process.stderr.write(
      "hexa episode: the model made no tool call in any turn (it answered in text only); if its answers hold tool-call syntax, the server's tool parser is off: start vLLM with --enable-auto-tool-choice --tool-call-parser <hermes, llama3_json, mistral, …>, llama.cpp's server with --jinja\n",
    );
    process.exitCode = 1;
  }
};

/** `hexa episode`: one episode, turn by turn, then a summary (success, turns, tokens, cost). */
export const episodeCommand = (ctx: AppContext) =>
  defineCommand({
    command: "episode <level>",
    describe: "run one episode with an agent and show it turn by turn",
    builder: (y) =>
      withOptionsByName(
        y
          .positional("level", { type: "string", demandOption: true })
          .option("seed", { type: "string", demandOption: true, describe: "level seed (non-negative integer)" })
          .option("family", { choices: ctx.families.ids(), default: ctx.families.defaultId(), describe: "the level family of LEVEL" })
          .option("agent", { choices: RUN_AGENTS.filter((a) => a !== "hexa"), default: "react" as RunAgent, describe: "heuristic needs no model" })
          .option("model", { type: "string", describe: "model name (actor role)" })
          .option("base-url", { type: "string", describe: "OpenAI-compatible endpoint (else OPENAI_BASE_URL)" })
          .option("api-key", { type: "string", describe: "API key (else OPENAI_API_KEY)" })
          .option("max-turns", { type: "number", default: 25, describe: "turn budget T" })
          .option("temperature", { type: "string", describe: "sampling temperature, or none to send none (default 1)" })
          .option("max-output-tokens", { type: "string", describe: "cap on tokens per answer, or none to send none (default 8192)" })
          .option("stream", { type: "boolean", default: false, describe: "stream the model's answers" })
          .option("cache-dir", { type: "string", describe: "answer identical requests from this response cache" })
          .option("audit-log", { type: "string", describe: "append one JSON line per model call here" })
          .option("out", { type: "string", describe: "write the trajectory as JSON" }),
        flagOptions(familyFlags(ctx.families)),
      ),
    handler: async (argv) => {
      // Before any (paid) play: an output path that cannot be written loses nothing yet.
      if (argv.out) assertWritable("out", argv.out);
      const family = ctx.families.get(argv.family);
      family.checkLevel(argv.level);
      const level = argv.level;
      const seed = parseSeed(argv.seed, "--seed");
      const cfg = episodeConfig(ctx.families, family, argv);
      const agent = argv.agent;
      const llm = episodeLlm(argv);
      if (agent !== "heuristic" && !argv.model && !argv["base-url"] && !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY) {
        throw new ConfigError(
          `--agent ${agent} needs a model: pass --model and --base-url (or set OPENAI_BASE_URL / OPENAI_API_KEY), or use --agent heuristic, which needs none`,
        );
      }
      // Loaded only when a model is used: langchain costs about a second of start-up.
      const model =
        agent === "heuristic"
          ? undefined
          : (await import("../llm/role-model.ts")).createRoleModel("actor", llm, {
              env: process.env,
              onNotice: (m) => process.stderr.write(`warning: ${m}\n`),
            });
      const label = agent === "heuristic" ? "heuristic (no LLM)" : `${agent} with ${llm.actor.model}`;
      process.stderr.write(`${level} seed ${seed}: ${label}, ${budgetOf(agent, cfg.actor.maxTurns)} turns\n`);
      const trainings = toolProgressView(process.stderr);
      const { trajectory: t } = await playEpisode(family, {
        task: { level, seed },
        agent,
        config: cfg,
        bank: EMPTY_BANK,
        ...(model ? { model } : {}),
        ...(ctx.actorMiddleware.list.length ? { middleware: ctx.actorMiddleware.list } : {}),
        costOf: (turn) => usageRecord("actor", turn, llm.prices).costUsd,
        now: () => performance.now(),
        onStep: (s) => {
          trainings.stop();
          process.stderr.write(progressLine(s));
        },
        onToolProgress: (p) => trainings.update(p),
      });
      if (argv.out) writeFileSync(argv.out, `${JSON.stringify(t, null, 2)}\n`);
      printOutcome(t, agent, llm);
    },
  });
