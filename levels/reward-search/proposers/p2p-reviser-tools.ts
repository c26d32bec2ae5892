import { z } from "zod";
import type { ToolCall, ToolSpec } from "../../../src/llm/chat-model.ts";
import { P2P_REVISER_BY, type LineageReads, type TierChange } from "../../../src/search/p2p-ports.ts";
import { EMPTY_BANK, applyEvent, type Bank } from "../../../src/store/bank.ts";
import { LESSON_TIERS, REASON_MAX } from "../../../src/store/lesson.ts";
import { lessonTierChanged } from "../../../src/store/lesson-log.ts";
import { judgmentText } from "./p2p-reviser-judgment.ts";
import { checkpointsText, codeText, configsText, diffText, lessonsText, lineageText, trainingText } from "./p2p-reviser-reads.ts";

/**
 * The p2p reviser's tools (docs/spec/reward-search.md §8.6): reads over its own search's lineage (lineage, code,
 * diff, checkpoints, training, an intent search's judgment folder, configs, lessons) and `set_lesson_tier`, the only way a lesson's tier changes. The
 * arguments are held to zod schemas built on the lineage, so a bad one (an iteration that does not exist, a config
 * or seed the iteration lacks) is answered to the model naming the field and the valid range; every answer is cut
 * at MAX_TOOL_ANSWER characters with a note. Nothing is read from a path the model names: only the search's state.
 */

export const MAX_TOOL_ANSWER = 4000;

/** Tool rounds a revision may take before it must answer (each round: one model turn and the answers to its calls). */
export const MAX_TOOL_ROUNDS = 32;

/** The answer cut at the bound, saying what was left out. */
export const boundedAnswer = (text: string): string =>
  text.length <= MAX_TOOL_ANSWER
    ? text
    : `${text.slice(0, MAX_TOOL_ANSWER)}\n… (cut: ${text.length - MAX_TOOL_ANSWER} more characters left out; ask for a narrower read)`;

const iterationArg = (l: LineageReads, what: string) => {
  const last = l.iterations.length - 1;
  const range = `must be one of this search's judged iterations, 0–${last}`;
  return z
    .number({ error: `${range}` })
    .int({ error: `${range}` })
    .min(0, { error: range })
    .max(last, { error: range })
    .describe(what);
};

const Empty = z.strictObject({});

/** A config the iteration lacks, or a seed its config was not trained on (the iteration itself checked before). */
const trainingProblem = (l: LineageReads, a: { iteration: number; config: number; seed: number }): { field: string; message: string } | undefined => {
  const r = l.iterations[a.iteration];
  const c = r?.configs[a.config];
  if (r && !c) return { field: "config", message: `iteration ${a.iteration} has configs 0–${r.configs.length - 1}` };
  if (c && !c.seeds.includes(a.seed)) return { field: "seed", message: `iteration ${a.iteration}'s seeds are ${c.seeds.join(", ")}` };
  return undefined;
};

const schemasOf = (l: LineageReads) => {
  const it = (what = "the iteration") => iterationArg(l, what);
  return {
    lineage: Empty,
    reward_code: z.strictObject({ iteration: it() }),
    reward_diff: z.strictObject({ from: it("the older iteration"), to: it("the newer iteration") }),
    checkpoints: z.strictObject({ iteration: it() }),
    training: z
      .strictObject({
        iteration: it(),
        config: z.number().int().min(0).describe("the configuration's index"),
        seed: z.number().int().min(0).describe("the training seed"),
      })
      .superRefine((a, issues) => {
        const r = l.iterations[a.iteration];
        const c = r?.configs[a.config];
        if (r && !c) issues.addIssue({ code: "custom", path: ["config"], message: `iteration ${a.iteration} has configs 0–${r.configs.length - 1}` });
        else if (c && !c.seeds.includes(a.seed))
          issues.addIssue({ code: "custom", path: ["seed"], message: `iteration ${a.iteration}'s seeds are ${c.seeds.join(", ")}` });
      }),
    judgment: z
      .strictObject({
        iteration: it(),
        config: z.number().int().min(0).describe("the configuration's index"),
        seed: z.number().int().min(0).describe("the training seed"),
        step: z.number().int().min(0).describe("the judged checkpoint's env step, as the checkpoints tool shows it"),
      })
      .superRefine((a, issues) => {
        const problem = trainingProblem(l, a);
        if (problem) return void issues.addIssue({ code: "custom", path: [problem.field], message: problem.message });
        const steps = l.training(a.iteration, a.config, a.seed)?.judged.map((j) => j.step) ?? [];
        if (!steps.includes(a.step))
          issues.addIssue({ code: "custom", path: ["step"], message: `the training's judged steps are ${steps.join(", ") || "none"}` });
      }),
    configs: z.strictObject({ iteration: it() }),
    lessons: Empty,
    set_lesson_tier: z.strictObject({
      id: z.string().min(1).max(200).describe("the lesson's id, as the lessons tool shows it"),
      to: z.enum(LESSON_TIERS).describe("the new tier: HARD (never break), STRONG (follow), SOFT (challengeable) or RETIRED (contradicted)"),
      reason: z.string().min(1).max(REASON_MAX).describe("the evidence for the change, naming iterations"),
    }),
  };
};

type Schemas = ReturnType<typeof schemasOf>;
type ReviserToolName = keyof Schemas;

const DESCRIPTIONS: Record<ReviserToolName, string> = {
  lineage: "Every judged iteration: parent, score, best configuration, new best or not, and what changed.",
  reward_code: "An iteration's reward code, with the diagnosis and lesson of the revision that wrote it.",
  reward_diff: "The unified diff of two iterations' reward code.",
  checkpoints: "An iteration's checkpoint table over seeds per configuration, and each training's judged checkpoints with the judges' detail.",
  training: "One training (iteration, config, seed): steps, PPO diagnostics, reward terms, fitness at its checkpoints, judgments and its training feedback.",
  judgment:
    "An intent search's judgment of one checkpoint (iteration, config, seed, step): per picked episode the synthesis, the code judge's leaves and the vision judge's criteria and diagnosis.",
  configs: "An iteration's configurations: directive, hyper-parameters, scores per seed, mean and std.",
  lessons: "Every lesson in the bank, active and retired, with its id, tier, source and tier history.",
  set_lesson_tier: "Change a lesson's tier, with the evidence as the reason; applied to the bank with this iteration's plan. The only way a tier changes.",
};

const specOf = (name: ReviserToolName, schema: z.ZodType): ToolSpec => {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return { name, description: DESCRIPTIONS[name], parameters };
};

const problemOf = (e: z.ZodError, args: unknown): string =>
  e.issues
    .slice(0, 3)
    .map((i) => {
      const field = i.path.join(".") || "(arguments)";
      const got = i.path.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined), args);
      return `${field}: ${i.message}${got === undefined ? "" : ` (got ${JSON.stringify(got).slice(0, 80)})`}`;
    })
    .join("; ");

export interface ReviserTools {
  specs: ToolSpec[];
  /** The tool's answer to one call: the read, the change recorded, or the refusal naming the field. */
  answer(call: Pick<ToolCall, "name" | "args" | "argsError">): string;
  /** The tier changes recorded so far, in order. */
  tierChanges(): TierChange[];
}

/** The tools over one revision's lineage; tier changes are checked against the bank as the earlier ones left it. */
export const reviserTools = (l: LineageReads, round: number): ReviserTools => {
  const schemas = schemasOf(l);
  const names = Object.keys(schemas) as ReviserToolName[];
  const changes: TierChange[] = [];
  let bank: Bank = { ...EMPTY_BANK, lessons: [...l.lessons] };
  const setTier = (a: z.infer<Schemas["set_lesson_tier"]>): string => {
    let e: ReturnType<typeof lessonTierChanged>;
    try {
      e = lessonTierChanged(bank, { id: a.id, to: a.to, reason: a.reason, by: P2P_REVISER_BY, round });
    } catch (err) {
      return `refused: ${(err as Error).message}`;
    }
    if (e.type !== "lesson_tier_changed") throw new Error("lessonTierChanged made another event");
    bank = applyEvent(bank, e);
    changes.push({ id: e.id, from: e.from, to: e.to, reason: e.reason });
    return `recorded: lesson ${e.id} ${e.from} → ${e.to}; it applies to the bank with this iteration's plan`;
  };
  const handlers: { [K in ReviserToolName]: (a: z.infer<Schemas[K]>) => string } = {
    lineage: () => lineageText(l),
    reward_code: (a) => codeText(l, a.iteration),
    reward_diff: (a) => diffText(l, a.from, a.to),
    checkpoints: (a) => checkpointsText(l, a.iteration),
    training: (a) => trainingText(l.training(a.iteration, a.config, a.seed)!),
    judgment: (a) => judgmentText(l.dir, a),
    configs: (a) => configsText(l, a.iteration),
    lessons: () => lessonsText({ ...l, lessons: bank.lessons ?? [] }),
    set_lesson_tier: setTier,
  };
  return {
    specs: names.map((name) => specOf(name, schemas[name])),
    tierChanges: () => [...changes],
    answer: (call) => {
      if (!names.includes(call.name as ReviserToolName))
        return `refused: no tool named ${JSON.stringify(call.name.slice(0, 80))}; the tools are ${names.join(", ")}`;
      if (call.argsError) return `refused: ${call.argsError}`;
      const name = call.name as ReviserToolName;
      const parsed = schemas[name].safeParse(call.args);
      if (!parsed.success) return `refused: ${problemOf(parsed.error, call.args)}`;
      return boundedAnswer((handlers[name] as (a: unknown) => string)(parsed.data));
    },
  };
};
