import { z } from "zod";
import type { Bank } from "../src/store/bank.ts";

/** The evolver's JSON answers (docs/spec/method.md §4). Field names are snake_case: the model reads and writes them. */
const text = z.string().trim().min(1);
const sources = z.array(z.string()).default([]).describe("ids of the trajectories this entry is grounded in");

const SkillText = z.object({
  kind: z.literal("skill"),
  title: text,
  principle: text,
  when_to_apply: text,
  example: z.string().trim().min(1).optional(),
});

const MistakeText = z.object({ kind: z.literal("mistake"), description: text, root_cause: text, correction: text });

const EntryText = z.discriminatedUnion("kind", [SkillText, MistakeText]);
export type EntryText = z.infer<typeof EntryText>;

const cited = <T extends z.ZodRawShape>(shape: T) => z.object({ ...shape, sources });

/** Contrastive pass: 4–6 skills. */
const ContrastiveAnswer = z.object({ skills: z.array(cited(SkillText.omit({ kind: true }).shape)).min(1) });
/** Failures pass: the mistakes and partial skills the failures show, none when they show none (docs/spec/method.md §4). */
const FailuresAnswer = z.object({
  mistakes: z.array(cited(MistakeText.omit({ kind: true }).shape)),
  partial_skills: z.array(cited(SkillText.omit({ kind: true }).shape)).default([]),
});

const reason = z.string().default("");

/** Below this weight an entry that no trajectory re-observes may be pruned as `low_weight` (docs/spec/method.md §4). */
export const LOW_WEIGHT = 0.3;
const EvolveOp = z.discriminatedUnion("op", [
  z.object({ op: z.literal("keep"), id: z.string(), sources, reason }),
  z.object({ op: z.literal("revise"), id: z.string(), entry: EntryText, sources, reason }),
  z.object({ op: z.literal("merge"), from: z.array(z.string()).min(2), entry: EntryText, sources, reason }),
  z.object({ op: z.literal("add"), entry: EntryText, sources, reason }),
  z.object({ op: z.literal("prune"), id: z.string(), why: z.enum(["low_weight", "contradicted", "redundant", "too_narrow"]), reason }),
]);
const EvolveAnswer = z.object({ ops: z.array(EvolveOp) });

type Issue = (message: string, path: (string | number)[]) => void;
const reporter =
  (ctx: z.RefinementCtx): Issue =>
  (message, path) =>
    ctx.addIssue({ code: "custom", message, path });

/** Every cited source must be one of the trajectory ids shown (an unknown id is a validation failure). */
const checkSources = (items: readonly { sources: string[] }[], known: ReadonlySet<string>, at: string, issue: Issue) =>
  items.forEach((it, i) => {
    const unknown = it.sources.filter((s) => !known.has(s));
    if (unknown.length) issue(`unknown trajectory id(s) ${unknown.join(", ")}; cite only ${[...known].join(", ")}`, [at, i, "sources"]);
  });

/**
 * `low_weight` is a rule, not the model's judgement: the entry's weight must be below LOW_WEIGHT. "Not re-observed"
 * holds by construction, since a pruned id appears in no other operation and so no trajectory shown is cited for it.
 */
const checkLowWeight = (id: string, weight: number | undefined, path: (string | number)[], issue: Issue) => {
  if (weight !== undefined && weight >= LOW_WEIGHT)
    issue(
      `'${id}' has weight ${weight.toFixed(2)}, not below ${LOW_WEIGHT}: prune it as low_weight only below that; keep it, or prune it as redundant, contradicted or too_narrow`,
      path,
    );
};

export const contrastiveSchema = (known: ReadonlySet<string>) =>
  ContrastiveAnswer.superRefine((a, ctx) => checkSources(a.skills, known, "skills", reporter(ctx)));

export const failuresSchema = (known: ReadonlySet<string>) =>
  FailuresAnswer.superRefine((a, ctx) => {
    checkSources(a.mistakes, known, "mistakes", reporter(ctx));
    checkSources(a.partial_skills, known, "partial_skills", reporter(ctx));
  });

/**
 * The evolve answer, checked against the bank: ids must exist, each existing id is accounted for exactly once
 * (keep, revise, prune, or one merge's `from`), revisions and merges keep the entry kind, sources are known.
 */
export const evolveSchema = (bank: Bank, known: ReadonlySet<string>) =>
  EvolveAnswer.superRefine((a, ctx) => {
    const issue = reporter(ctx);
    const kinds = new Map([...bank.skills, ...bank.mistakes].map((e) => [e.id, e.kind] as const));
    const weights = new Map([...bank.skills, ...bank.mistakes].map((e) => [e.id, e.weight] as const));
    const seen = new Map<string, number>();
    const touch = (id: string, path: (string | number)[], kind?: string) => {
      if (!kinds.has(id)) return issue(`unknown bank id '${id}'; existing ids are ${[...kinds.keys()].join(", ") || "(none)"}`, path);
      if (seen.has(id)) issue(`bank id '${id}' is used by ops ${seen.get(id)} and ${path[1]}; use each existing id once`, path);
      seen.set(id, Number(path[1]));
      if (kind && kinds.get(id) !== kind) issue(`'${id}' is a ${kinds.get(id)}, the new entry a ${kind}; merge or revise within one kind`, path);
    };
    a.ops.forEach((op, i) => {
      switch (op.op) {
        case "keep":
          return touch(op.id, ["ops", i, "id"]);
        case "prune":
          if (op.why === "low_weight") checkLowWeight(op.id, weights.get(op.id), ["ops", i, "why"], issue);
          return touch(op.id, ["ops", i, "id"]);
        case "revise":
          return touch(op.id, ["ops", i, "id"], op.entry.kind);
        case "merge":
          return op.from.forEach((id) => touch(id, ["ops", i, "from"], op.entry.kind));
        case "add":
          return;
      }
    });
    const missing = [...kinds.keys()].filter((id) => !seen.has(id));
    if (missing.length) issue(`bank id(s) ${missing.join(", ")} not accounted for; keep, revise, merge or prune each existing id`, ["ops"]);
    checkSources(
      a.ops.map((op): { sources: string[] } => (op.op === "prune" ? { sources: [] } : op)),
      known,
      "ops",
      issue,
    );
  });
