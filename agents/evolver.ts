import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { z } from "zod";
import { ModelOutputError } from "../src/errors.ts";
import { askStructured, type RoleModel } from "../src/llm/ask.ts";
import { ContextOverflow } from "../src/llm/llm-error.ts";
import { NO_EVIDENCE } from "../src/store/bank-weights.ts";
import { EMPTY_BANK, type Bank, type BankEntry, type BankEvent, type Evidence, type Mistake, type Skill } from "../src/store/bank.ts";
import { byReward, DEFAULT_CAPS, event, idMaker, seedsOf, weigh, withCaps, type BankCaps, type EvolverMode, type Labelled } from "./evolver-labels.ts";
import { contrastivePrompt, evolvePrompt, failuresPrompt, type EvolverContext } from "./evolver-prompt.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import { contrastiveSchema, evolveSchema, failuresSchema, type EntryText } from "./evolver-schema.ts";

export { labelTrajectories, type Labelled } from "./evolver-labels.ts";

/** Trajectories per side of the contrastive pass, failures in the failures pass, and shown in evolution (docs/spec/method.md §4). */
const TOP = 5;

interface Common {
  model: RoleModel;
  /** The family's domain words for the prompts. */
  words: FamilyWords;
  round: number;
  level: string;
  /** The level's factual description, shown to the evolver. */
  description?: string;
  labelled: readonly Labelled[];
  mode?: EvolverMode;
  caps?: BankCaps;
}

type Body<K extends BankEntry["kind"]> = Omit<Extract<BankEntry, { kind: K }>, "id" | "sourceSeeds" | "generation" | "weight" | "parents" | "evidence">;

const bodyOf = (t: EntryText, sourceType: Skill["sourceType"]): Body<"skill"> | Body<"mistake"> =>
  t.kind === "skill"
    ? { kind: "skill", title: t.title, principle: t.principle, whenToApply: t.when_to_apply, ...(t.example ? { example: t.example } : {}), sourceType }
    : { kind: "mistake", description: t.description, rootCause: t.root_cause, correction: t.correction };

/** Builds entries from the model's text: weights by docs/spec/method.md §3 from the cited trajectories on top of `prior`. */
class Builder {
  private readonly byId: Map<string, Labelled>;
  constructor(
    private readonly batch: readonly Labelled[],
    private readonly round: number,
    private readonly mode: EvolverMode,
  ) {
    this.byId = new Map(batch.map((l) => [l.id, l]));
  }

  sources = (ids: readonly string[]): Labelled[] => [...new Set(ids)].map((id) => this.byId.get(id)!);

  entry(
    id: string,
    body: Body<"skill"> | Body<"mistake">,
    ids: readonly string[],
    prior: { evidence: Evidence; seeds: number[]; parents: string[] },
  ): BankEntry {
    const src = this.sources(ids);
    const partial = body.kind === "skill" && body.sourceType === "partial";
    const { evidence, weight } = weigh(prior.evidence, src, this.batch, { kind: body.kind, partial, mode: this.mode });
    const common = { id, sourceSeeds: seedsOf(src, prior.seeds), generation: this.round, weight, parents: prior.parents, evidence };
    return body.kind === "skill" ? ({ ...body, ...common } satisfies Skill) : ({ ...body, ...common } satisfies Mistake);
  }
}

/**
 * An evolved skill's source type: `partial` (shown to the actor as a [Lesson], its weight capped at 0.5) when it was
 * learned from failures only — every trajectory it cites failed and every entry it grew from was partial, with at
 * least one of either — else `evolved` (docs/spec/method.md §1a, §3).
 */
const skillSource = (sources: readonly Labelled[], parents: readonly BankEntry[]): "partial" | "evolved" => {
  const failedOnly = sources.every((s) => !s.trajectory.success);
  const partialParents = parents.every((p) => p.kind === "skill" && p.sourceType === "partial");
  return sources.length + parents.length > 0 && failedOnly && partialParents ? "partial" : "evolved";
};

const failure = (round: number, e: ModelOutputError | ContextOverflow): BankEvent[] => [
  event({ schemaVersion: 1, type: "evolver_failure", round, error: e.message }),
];

/**
 * Runs the update; a model that fails validation twice, or a prompt longer than the model's context (the same
 * on every retry or resume), yields one `evolver_failure` event saying so, and the bank is kept.
 */
const guarded = async (round: number, update: () => Promise<BankEvent[]>): Promise<BankEvent[]> => {
  try {
    return await update();
  } catch (e) {
    if (e instanceof ModelOutputError || e instanceof ContextOverflow) return failure(round, e);
    throw e;
  }
};

const ask = async <S extends z.ZodType>(model: RoleModel, p: { system: string; user: string }, schema: S, name: string): Promise<z.infer<S>> =>
  (await askStructured(model, [new SystemMessage(p.system), new HumanMessage(p.user)], schema, { name })).value;

const contextOf = (o: Common): EvolverContext => ({
  words: o.words,
  level: o.level,
  ...(o.description ? { description: o.description } : {}),
  caps: o.caps ?? DEFAULT_CAPS,
  mode: o.mode ?? "labelled",
  maxTurns: o.labelled[0]?.trajectory.maxTurns ?? 25,
});

const distilEvents = async (o: Common, bank: Bank): Promise<BankEvent[]> => {
  const c = contextOf(o);
  const { mode, caps } = c;
  // The ablation shows trajectories unsorted (docs/spec/method.md §7): take them in the order they came.
  const ordered = mode === "labelled" ? byReward(o.labelled) : [...o.labelled];
  const successes = ordered.filter((l) => l.trajectory.success).slice(0, TOP);
  const failures = (mode === "labelled" ? [...ordered].reverse() : ordered).filter((l) => !l.trajectory.success).slice(0, TOP);
  const known = new Set(o.labelled.map((l) => l.id));
  // With no success there is nothing to contrast: the pass is not asked (its skills would be invented).
  const contrastive = successes.length
    ? await ask(o.model, contrastivePrompt(c, successes, failures), contrastiveSchema(known), "contrastive_skills")
    : { skills: [] };
  const fails = failures.length
    ? await ask(o.model, failuresPrompt(c, failures), failuresSchema(known), "failure_analysis")
    : { mistakes: [], partial_skills: [] };
  const b = new Builder(o.labelled, o.round, mode);
  const nextSkill = idMaker(bank, "s", o.round);
  const nextMistake = idMaker(bank, "m", o.round);
  const fresh = { evidence: NO_EVIDENCE, seeds: [], parents: [] };
  const add = (entry: BankEntry, sources: string[], reason: string) =>
    event({ schemaVersion: 1, type: "add", round: o.round, entry, evidence: [...new Set(sources)], reason });
  const events = [
    ...contrastive.skills.map((s) =>
      add(b.entry(nextSkill(), bodyOf({ kind: "skill", ...s }, "contrastive"), s.sources, fresh), s.sources, "contrastive distillation"),
    ),
    ...fails.partial_skills.map((s) =>
      add(b.entry(nextSkill(), bodyOf({ kind: "skill", ...s }, "partial"), s.sources, fresh), s.sources, "partial skill from failures"),
    ),
    ...fails.mistakes.map((m) =>
      add(b.entry(nextMistake(), bodyOf({ kind: "mistake", ...m }, "contrastive"), m.sources, fresh), m.sources, "failure analysis"),
    ),
  ];
  // A distillation makes a fresh bank (replacement pruned the old one): `bank` only keeps the new ids unique.
  return withCaps(EMPTY_BANK, events, caps, o.round);
};

/**
 * Round-1 distillation (docs/spec/method.md §4): a contrastive pass (top-5 successes vs top-5 failures by r → skills)
 * and a failures pass (top-5 failures → mistakes and partial skills). Returns add events, then cap prunes.
 */
export const distil = (o: Common): Promise<BankEvent[]> => guarded(o.round, () => distilEvents(o, EMPTY_BANK));

/** Iterative replacement (docs/spec/method.md §5): the old bank is discarded ("replaced") and distilled from scratch. */
export const replace = (o: Common & { bank: Bank }): Promise<BankEvent[]> =>
  guarded(o.round, async () => {
    const prunes = [...o.bank.skills, ...o.bank.mistakes].map((e) =>
      event({ schemaVersion: 1, type: "prune", round: o.round, id: e.id, why: "replaced", reason: "iterative replacement: re-distilled from the last round" }),
    );
    return [...prunes, ...(await distilEvents(o, o.bank))];
  });

/**
 * Evolution (rounds ≥ 2, docs/spec/method.md §4): the full bank and the last round's top-5 trajectories in, one operation
 * per entry out, translated into add / merge / revise / reweight / prune events; caps enforced afterwards.
 */
export const evolve = (o: Common & { bank: Bank }): Promise<BankEvent[]> =>
  guarded(o.round, async () => {
    const c = contextOf(o);
    const { mode, caps } = c;
    const shown = (mode === "labelled" ? byReward(o.labelled) : [...o.labelled]).slice(0, TOP);
    const known = new Set(shown.map((l) => l.id));
    const answer = await ask(o.model, evolvePrompt(c, o.bank, shown), evolveSchema(o.bank, known), "bank_update");
    const b = new Builder(o.labelled, o.round, mode);
    const old = new Map([...o.bank.skills, ...o.bank.mistakes].map((e) => [e.id, e] as const));
    const nextSkill = idMaker(o.bank, "s", o.round);
    const nextMistake = idMaker(o.bank, "m", o.round);
    const base = (sources: string[], reason: string) => ({ schemaVersion: 1 as const, round: o.round, evidence: [...new Set(sources)], reason });
    const events = answer.ops.flatMap((op): BankEvent[] => {
      switch (op.op) {
        case "keep": {
          const e = old.get(op.id)!;
          if (!op.sources.length || mode === "no_reward") return [];
          const partial = e.kind === "skill" && e.sourceType === "partial";
          const w = weigh(e.evidence, b.sources(op.sources), o.labelled, { kind: e.kind, partial, mode });
          return [event({ ...base(op.sources, op.reason || "re-observed"), type: "reweight", id: e.id, weight: w.weight, evidenceState: w.evidence })];
        }
        case "revise": {
          const e = old.get(op.id)!;
          const sourceType = skillSource(b.sources(op.sources), [e]);
          const prior = { evidence: e.evidence, seeds: e.sourceSeeds, parents: [e.id] };
          return [event({ ...base(op.sources, op.reason), type: "revise", entry: b.entry(e.id, bodyOf(op.entry, sourceType), op.sources, prior) })];
        }
        case "merge": {
          const parents = op.from.map((id) => old.get(id)!);
          const prior = {
            evidence: parents.reduce((s, p) => ({ sumR: s.sumR + p.evidence.sumR, count: s.count + p.evidence.count }), NO_EVIDENCE),
            seeds: parents.flatMap((p) => p.sourceSeeds),
            parents: op.from,
          };
          const id = op.entry.kind === "skill" ? nextSkill() : nextMistake();
          const sourceType = skillSource(b.sources(op.sources), parents);
          return [event({ ...base(op.sources, op.reason), type: "merge", from: op.from, entry: b.entry(id, bodyOf(op.entry, sourceType), op.sources, prior) })];
        }
        case "add": {
          const id = op.entry.kind === "skill" ? nextSkill() : nextMistake();
          const prior = { evidence: NO_EVIDENCE, seeds: [], parents: [] };
          const sourceType = skillSource(b.sources(op.sources), []);
          return [event({ ...base(op.sources, op.reason), type: "add", entry: b.entry(id, bodyOf(op.entry, sourceType), op.sources, prior) })];
        }
        case "prune":
          return [event({ ...base([], op.reason), type: "prune", id: op.id, why: op.why })];
      }
    });
    return withCaps(o.bank, events, caps, o.round);
  });
