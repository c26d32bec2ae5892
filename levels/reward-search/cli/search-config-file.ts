/**
 * `hexa search --config FILE` (docs/guides/prompt-to-policy.md, "From a config file"): a search of an intent
 * written as YAML, turned into the flags it stands for, so the config form and the flag form are resolved by the
 * same function (search-args.ts settingsOf) with the same rules and refusals, which then name the config's
 * fields (`search.intent.passAt`) instead of the flags. The files it names (the intent, the criteria) are read
 * bounded, relative to the config's folder and never outside it (docs/security.md): a config may be a stranger's.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { SEARCH_METHODS } from "../../../src/search/config.ts";
import { readYamlMapping } from "../../../src/util/yaml-file.ts";
import { isInside } from "../../../src/util/path-inside.ts";
import type { SearchArgs } from "./search-args.ts";
import { FLAGS } from "./search-flags.ts";
import { IntentSettings } from "./search-intent.ts";

const IntentSection = z.strictObject({
  text: z.string().optional(),
  /** A text file holding the intent, relative to the config's folder. */
  file: z.string().min(1).optional(),
  passAt: IntentSettings.shape.passAt.optional(),
  episodes: IntentSettings.shape.episodes.optional(),
  maxSteps: z.number().int().min(1).optional(),
  /** A file of the 5–10 criteria the user accepts, relative to the config's folder. */
  criteria: z.string().min(1).optional(),
  trail: z.boolean().optional(),
});

const Role = z.looseObject({ model: z.string().min(1).optional(), baseURL: z.string().min(1).optional(), maxImages: z.number().int().min(1).optional() });

const SearchConfigFile = z.strictObject({
  /** The MuJoCo environment the behaviour is learned in. */
  env: z.string().min(1),
  method: z.enum(SEARCH_METHODS).default("p2p"),
  seed: z.union([z.number().int().min(0), z.string().min(1)]).optional(),
  proposer: z.enum(["heuristic", "llm"]).optional(),
  trainSteps: z.number().int().min(1).optional(),
  /** The search slice (as a run config's `search:`) and its `intent`. */
  search: z.looseObject({ intent: IntentSection }),
  /** The models: llm.judge and llm.vision for the judges, llm.actor for the LLM reviser. */
  llm: z.looseObject({ judge: Role.optional(), vision: Role.optional() }).optional(),
});
type SearchConfigFile = z.infer<typeof SearchConfigFile>;

/** The command-line flags a config stands for; with --config none of them may be given too. */
export const CONFIG_SHAPED = [
  "task",
  "env",
  "method",
  "seed",
  "train-steps",
  "intent",
  "intent-file",
  "pass-at",
  "judged-episodes",
  "judged-steps",
  "judge-model",
  "judge-base-url",
  "vision-model",
  "vision-base-url",
  "vision-max-images",
  "trail",
  "criteria",
  "model",
  "base-url",
  "llm-config",
  ...FLAGS.map((f) => f.name),
] as const;

/** The config field each flag stands for, so a refusal made for a flag names the field instead. */
const FIELD_OF: Record<string, string> = {
  env: "env",
  method: "method",
  strategy: "method",
  seed: "seed",
  "train-steps": "trainSteps",
  intent: "search.intent.text",
  "intent-file": "search.intent.file",
  "pass-at": "search.intent.passAt",
  "judged-episodes": "search.intent.episodes",
  "judged-steps": "search.intent.maxSteps",
  criteria: "search.intent.criteria",
  trail: "search.intent.trail",
  "judge-model": "llm.judge.model",
  "judge-base-url": "llm.judge.baseURL",
  "vision-model": "llm.vision.model",
  "vision-base-url": "llm.vision.baseURL",
  "vision-max-images": "llm.vision.maxImages",
  "llm-config": "llm.actor",
  ...Object.fromEntries(FLAGS.map((f) => [f.name, `search.${f.path.join(".")}`])),
};

/** A refusal made for the flags, naming the config's fields instead (`--pass-at` → `search.intent.passAt`). */
const inConfigTerms = (e: unknown, path: string): unknown => {
  if (!(e instanceof ConfigError)) return e;
  const message = e.message.replace(/--([a-z][a-z-]*)/g, (flag, name: string) => FIELD_OF[name] ?? flag);
  return new ConfigError(`--config ${path}: ${message}`);
};

/** `resolve()`, whose refusals made for the flags are said in the config's terms. */
export const inConfigTermsOf = <T>(path: string, resolve: () => T): T => {
  try {
    return resolve();
  } catch (e) {
    throw inConfigTerms(e, path);
  }
};

/**
 * A file the config names, resolved in the config's folder: refused when absolute or, links followed, outside
 * that folder (a stranger's config reads nothing the user did not point at).
 */
const localFile = (configPath: string, field: string, name: string): string => {
  const folder = realpathSync(dirname(resolve(configPath)));
  const refuse = () =>
    new ConfigError(`--config ${configPath}: ${field}: ${JSON.stringify(name)} is outside the config's folder; name a file beside the config or below it`);
  if (isAbsolute(name)) throw refuse();
  const path = resolve(folder, name);
  const real = existsSync(path) ? realpathSync(path) : path;
  if (!isInside(folder, real)) throw refuse();
  return path;
};

/** Every leaf of the `search:` slice other than `intent`, as dotted paths under it. */
const leavesOf = (o: Record<string, unknown>, at: string[] = []): string[][] =>
  Object.entries(o).flatMap(([k, v]) =>
    at.length === 0 && k === "intent"
      ? []
      : v !== null && typeof v === "object" && !Array.isArray(v)
        ? leavesOf(v as Record<string, unknown>, [...at, k])
        : [[...at, k]],
  );

/** The search slice's flags from `search:`; a field that is no flag's is refused, naming it. */
const searchFlagsOf = (search: Record<string, unknown>, path: string): Record<string, unknown> => {
  const byPath = new Map(FLAGS.map((f) => [f.path.join("."), f.name]));
  const args: Record<string, unknown> = {};
  for (const leaf of leavesOf(search)) {
    const flag = byPath.get(leaf.join("."));
    if (!flag) throw new ConfigError(`--config ${path}: search.${leaf.join(".")}: not a setting of a search (hexa search --help lists them)`);
    args[flag] = leaf.reduce<unknown>((at, k) => (at as Record<string, unknown>)[k], search);
  }
  return args;
};

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The intent's flags from `search.intent`, its files resolved in the config's folder. */
const intentFlagsOf = (c: SearchConfigFile, path: string): Record<string, unknown> => {
  const i = c.search.intent;
  return defined({
    intent: i.text,
    "intent-file": i.file === undefined ? undefined : localFile(path, "search.intent.file", i.file),
    "pass-at": i.passAt,
    "judged-episodes": i.episodes,
    "judged-steps": i.maxSteps,
    criteria: i.criteria === undefined ? undefined : localFile(path, "search.intent.criteria", i.criteria),
    trail: i.trail,
    "judge-model": c.llm?.judge?.model,
    "judge-base-url": c.llm?.judge?.baseURL,
    "vision-model": c.llm?.vision?.model,
    "vision-base-url": c.llm?.vision?.baseURL,
    "vision-max-images": c.llm?.vision?.maxImages,
  });
};

/** The config's fields as the flags `hexa search` would have been given; a field of the wrong kind is refused naming it. */
export const argsOfConfig = (path: string): SearchArgs => {
  const raw = readYamlMapping(path, { label: `--config ${path}`, missing: `--config: no such file (got ${JSON.stringify(path)}); name a search config YAML` });
  const r = SearchConfigFile.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ConfigError(`--config ${path}: ${i.path.join(".") || "(the file)"}: ${i.message}`);
  }
  const c = r.data;
  return {
    env: c.env,
    method: c.method,
    seed: String(c.seed ?? 0),
    proposer: c.proposer ?? "heuristic",
    ...(c.trainSteps === undefined ? {} : { "train-steps": c.trainSteps }),
    ...(c.proposer === "llm" ? { "llm-config": path } : {}),
    ...searchFlagsOf(c.search, path),
    ...intentFlagsOf(c, path),
  };
};
