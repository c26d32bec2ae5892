/**
 * `hexa search --intent` (docs/guides/prompt-to-policy.md): a task from words on a MuJoCo environment, searched by
 * the p2p strategy and judged by llm.judge's code judge (and llm.vision over rendered frames when given). Its
 * settings as search-config.json records them, resolved from the flags; everything refused before any training.
 */
import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { DEFAULT_MAX_IMAGES } from "../../../src/llm/config.ts";
import type { SearchMethod } from "../../../src/search/config.ts";
import type { RewardTask } from "../task.ts";
import { readCriteriaFile, UserCriteria } from "./search-criteria.ts";
import { readFlagFile } from "../../../src/cli-kit/flag-file.ts";

/** The longest intent taken, characters (a paragraph; the prompts carry it whole). */
const MAX_INTENT_CHARS = 2000;
/** Judged episodes per checkpoint at most (each is rolled out, and with a vision model rendered and judged). */
const MAX_JUDGED_EPISODES = 10;
const DEFAULT_PASS_AT = 0.9;

const Endpoint = { model: z.string().min(1), baseURL: z.string().optional() };

export const IntentSettings = z.strictObject({
  text: z.string().min(1).max(MAX_INTENT_CHARS),
  /** The judged score at which the search passes (its solved threshold). */
  passAt: z.number().min(0).max(1),
  /** Judged episodes per checkpoint, on fixed seeds. */
  episodes: z.number().int().min(1).max(MAX_JUDGED_EPISODES),
  /** Steps per judged episode at most; unset: the environment's own time limit. */
  maxSteps: z.number().int().min(1).optional(),
  judge: z.strictObject(Endpoint),
  vision: z.strictObject({ ...Endpoint, maxImages: z.number().int().min(1), video: z.boolean(), trail: z.boolean() }).optional(),
  /** The criteria the user accepted (--criteria), which the vision judge uses instead of asking for its own. */
  criteria: UserCriteria.optional(),
  /** The criteria were accepted at a terminal from the vision judge's proposal (a replay asks for the proposal again). */
  elicited: z.boolean().optional(),
});
export type IntentSettings = z.infer<typeof IntentSettings>;

/** The flags of an intent search as yargs parsed them. */
export interface IntentArgs {
  intent?: string | undefined;
  "intent-file"?: string | undefined;
  "pass-at"?: number | undefined;
  "judged-episodes"?: number | undefined;
  "judged-steps"?: number | undefined;
  "judge-model"?: string | undefined;
  "judge-base-url"?: string | undefined;
  "vision-model"?: string | undefined;
  "vision-base-url"?: string | undefined;
  "vision-max-images"?: number | undefined;
  trail?: boolean | undefined;
  criteria?: string | undefined;
}

const INTENT_ONLY = [
  "pass-at",
  "judged-episodes",
  "judged-steps",
  "judge-model",
  "judge-base-url",
  "vision-model",
  "vision-base-url",
  "vision-max-images",
  "criteria",
] as const;

const MAX_INTENT_FILE_BYTES = 16 * 1024;

const intentFromFile = (path: string): string => readFlagFile("intent-file", path, MAX_INTENT_FILE_BYTES, "an intent is a few sentences").trim();

const intentText = (a: IntentArgs): string | undefined => {
  if (a.intent !== undefined && a["intent-file"] !== undefined)
    throw new ConfigError("--intent-file: give the intent once, with --intent or --intent-file, not both");
  const text = a["intent-file"] !== undefined ? intentFromFile(a["intent-file"]) : a.intent?.trim();
  if (text === undefined) return undefined;
  if (!text) throw new ConfigError('--intent: empty; describe the behaviour in words, e.g. --intent "do a backflip and land on your foot"');
  if (text.length > MAX_INTENT_CHARS)
    throw new ConfigError(`--intent: ${text.length} characters, more than ${MAX_INTENT_CHARS}; say the behaviour in a paragraph at most`);
  return text;
};

/** Why an intent search cannot start without llm.judge: the roles it uses and the flags that give them. */
const rolesRefusal = (): ConfigError =>
  new ConfigError(
    "--intent: a task from words has no fitness, so every checkpoint is judged by models: llm.judge (writes the code judge over the trajectory and settles disagreements) " +
      "is required: give --judge-model M (and --judge-base-url URL, else OPENAI_BASE_URL); llm.vision (judges the rendered frames) is optional: --vision-model V (and --vision-base-url URL2). " +
      "Nothing was trained",
  );

/** The vision role's settings, when any vision flag is given (the model must be among them). */
const visionOf = (a: IntentArgs): IntentSettings["vision"] => {
  const given = a["vision-model"] !== undefined || a["vision-base-url"] !== undefined || a["vision-max-images"] !== undefined;
  if (!given) return undefined;
  if (!a["vision-model"])
    throw new ConfigError(
      "--vision-base-url: llm.vision needs its model too; give --vision-model V, or leave out the --vision-* flags to judge with the code judge alone",
    );
  return {
    model: a["vision-model"],
    ...(a["vision-base-url"] ? { baseURL: a["vision-base-url"] } : {}),
    maxImages: a["vision-max-images"] ?? DEFAULT_MAX_IMAGES,
    video: false,
    trail: a.trail ?? false,
  };
};

/** The intent's settings, or undefined without --intent; every refusal (strategy, env, roles) before any training. */
export const intentSettingsOf = (a: IntentArgs, method: SearchMethod, task: RewardTask): IntentSettings | undefined => {
  const text = intentText(a);
  if (text === undefined) {
    const stray = INTENT_ONLY.find((f) => a[f] !== undefined);
    if (stray) throw new ConfigError(`--${stray}: only a search of an intent uses it; give --intent TEXT (or --intent-file F) too, or leave it out`);
    return undefined;
  }
  if (method !== "p2p") throw new ConfigError(`--intent: only the p2p strategy searches an intent (got --strategy ${method}); give --strategy p2p`);
  if (!task.prepare)
    throw new ConfigError(
      `--env: ${task.id} is not a MuJoCo environment; an intent is judged from recorded MuJoCo rollouts (hopper, walker2d, half_cheetah, ant, humanoid …)`,
    );
  if (!a["judge-model"]) throw rolesRefusal();
  const vision = visionOf(a);
  if (a.criteria !== undefined && !vision)
    throw new ConfigError("--criteria: the criteria are the vision judge's; give --vision-model too, or leave out --criteria");
  return IntentSettings.parse({
    text,
    passAt: a["pass-at"] ?? DEFAULT_PASS_AT,
    episodes: a["judged-episodes"] ?? 1,
    ...(a["judged-steps"] === undefined ? {} : { maxSteps: a["judged-steps"] }),
    judge: { model: a["judge-model"], ...(a["judge-base-url"] ? { baseURL: a["judge-base-url"] } : {}) },
    ...(vision ? { vision } : {}),
    ...(a.criteria === undefined ? {} : { criteria: readCriteriaFile(a.criteria) }),
  });
};
