/**
 * The vision judge's first turn (docs/guides/judging.md, "Vision judge"): from the intent and the episode's first
 * frame only, 3–5 criteria a viewer can check, then at most three self-review rounds. Criteria are fixed per
 * intent, model and scene note, and stored in `<dir>/vision-criteria/<key>.json`, so every episode judged against
 * one intent is judged against the same criteria.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { askStructured, type RoleModel } from "../../../src/llm/ask.ts";
import { humanWithParts, mediaPart } from "../../../src/llm/content-parts.ts";
import { sha256Hex } from "../../../src/util/canonical-json.ts";
import { writeAtomic } from "../../../src/util/write-atomic.ts";
import type { TimedFrame } from "./vision-frames.ts";
import { criteriaPrompt, reviewPrompt, SYSTEM } from "./vision-prompts.ts";
import { CriteriaAnswer, MIN_CRITERIA, ReviewAnswer } from "./vision-verdict.ts";

const MAX_REVIEW_ROUNDS = 3;
const MAX_FILE_BYTES = 64 << 10;

export interface CriteriaRequest {
  intent: string;
  /** The episode's first frame: what the criteria are grounded in. */
  firstFrame: TimedFrame;
  /** A line about the scene (which way is forward in the picture), sent with every turn. */
  context?: string | undefined;
}

export interface VisionCriteria {
  criteria: string[];
  /** Self-review rounds asked (0 when read from the store). */
  reviewRounds: number;
  source: "asked" | "stored";
  /** Where they are stored, when a folder was given. */
  file?: string;
}

/** The most criteria a user-accepted list holds (Prompt-to-Policy's elicitation offers 5–10). */
export const MAX_USER_CRITERIA = 10;

const CriteriaFile = z.object({
  schemaVersion: z.literal(1),
  intent: z.string(),
  model: z.string(),
  context: z.string().nullable(),
  // A list the user accepted (userCriteria) may hold more than the model is asked for.
  criteria: z.array(z.string().min(1).max(300)).min(MIN_CRITERIA).max(MAX_USER_CRITERIA),
  /** Given by the user rather than asked of the model. */
  byUser: z.boolean().optional(),
  reviewRounds: z.number().int().min(0).max(MAX_REVIEW_ROUNDS),
  /** The frame they were grounded in. */
  firstFrameSha256: z.string(),
});
type CriteriaFile = z.infer<typeof CriteriaFile>;

/** The stored criteria's file for an intent, model and scene note. */
export const criteriaFile = (dir: string, intent: string, model: string, context: string | undefined) =>
  join(dir, "vision-criteria", `${sha256Hex({ intent, model, context: context ?? null }).slice(0, 32)}.json`);

const readStored = (path: string, r: CriteriaRequest, model: string): CriteriaFile | undefined => {
  if (!existsSync(path)) return undefined;
  const bad = (what: string) => new ConfigError(`${path}: ${what}; delete the file to ask the model for criteria again`);
  if (statSync(path).size > MAX_FILE_BYTES) throw bad(`larger than ${MAX_FILE_BYTES} bytes, not a criteria file`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw bad(`not JSON (${(e as Error).message})`);
  }
  const parsed = CriteriaFile.safeParse(raw);
  if (!parsed.success) throw bad(`${parsed.error.issues[0]!.path.join(".") || "(root)"}: ${parsed.error.issues[0]!.message}`);
  const f = parsed.data;
  if (f.intent !== r.intent || f.model !== model || f.context !== (r.context ?? null)) throw bad("holds the criteria of another intent, model or scene note");
  return f;
};

/** Turn 1 and its self-review rounds, as one conversation that ends with the criteria kept. */
const askCriteria = async (model: RoleModel, r: CriteriaRequest, maxRounds: number): Promise<{ criteria: string[]; rounds: number }> => {
  let conversation: BaseMessage[] = [
    new SystemMessage(SYSTEM),
    humanWithParts([{ type: "text", text: criteriaPrompt(r.intent, r.context) }, mediaPart(r.firstFrame.image, r.firstFrame.mime ?? "image/png")]),
  ];
  let { criteria } = (await askStructured(model, conversation, CriteriaAnswer, { name: "vision_criteria" })).value;
  let rounds = 0;
  while (rounds < maxRounds) {
    rounds += 1;
    conversation = [...conversation, new AIMessage({ content: JSON.stringify({ criteria }), tool_calls: [] }), new HumanMessage(reviewPrompt(criteria))];
    const review = (await askStructured(model, conversation, ReviewAnswer, { name: "vision_review" })).value;
    if (review.approved) break;
    criteria = review.criteria ?? criteria;
  }
  return { criteria, rounds };
};

/** The criteria for an intent: stored ones when `dir` holds them, else asked for (and stored when `dir` is given). */
export const visionCriteria = async (
  model: RoleModel,
  r: CriteriaRequest,
  o: { dir?: string | undefined; maxReviewRounds?: number } = {},
): Promise<VisionCriteria> => {
  const path = o.dir === undefined ? undefined : criteriaFile(o.dir, r.intent, model.model, r.context);
  const stored = path ? readStored(path, r, model.model) : undefined;
  if (stored) return { criteria: stored.criteria, reviewRounds: 0, source: "stored", file: path! };
  const { criteria, rounds } = await askCriteria(model, r, Math.min(o.maxReviewRounds ?? MAX_REVIEW_ROUNDS, MAX_REVIEW_ROUNDS));
  if (!path) return { criteria, reviewRounds: rounds, source: "asked" };
  const file: CriteriaFile = {
    schemaVersion: 1,
    intent: r.intent,
    model: model.model,
    context: r.context ?? null,
    criteria,
    reviewRounds: rounds,
    firstFrameSha256: mediaPart(r.firstFrame.image, "image/png").sha256,
  };
  mkdirSync(join(path, ".."), { recursive: true });
  writeAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
  return { criteria, reviewRounds: rounds, source: "asked", file: path };
};

/**
 * Stores criteria the user accepted as the intent's criteria for this model and scene note, so the vision judge
 * uses them instead of asking for its own (an existing file is replaced: the user's list wins).
 */
export const storeUserCriteria = (dir: string, r: Omit<CriteriaRequest, "firstFrame">, model: string, criteria: readonly string[]): string => {
  const path = criteriaFile(dir, r.intent, model, r.context);
  const file: CriteriaFile = {
    schemaVersion: 1,
    intent: r.intent,
    model,
    context: r.context ?? null,
    criteria: [...criteria],
    byUser: true,
    reviewRounds: 0,
    firstFrameSha256: "",
  };
  mkdirSync(join(path, ".."), { recursive: true });
  writeAtomic(
    path,
    `${JSON.stringify(file, null, 2)}
`,
  );
  return path;
};
