import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BankEvent, foldEvents, type BankEntry, type BankEventInput, type Mistake, type Skill } from "./bank.ts";
import { SkillIndex, chromaClient } from "./chroma-index.ts";
import { startChroma, type EmbeddedChroma } from "./chroma-server.ts";
import { localEmbedder } from "./embedding.ts";

const skill = (id: string, title: string, principle: string, whenToApply: string, over: Partial<Skill> = {}): Skill => ({
  kind: "skill",
  id,
  title,
  principle,
  whenToApply,
  sourceType: "contrastive",
  sourceSeeds: [1],
  generation: 0,
  weight: 0.5,
  parents: [],
  evidence: { sumR: 1, count: 2 },
  ...over,
});
const mistake = (id: string, description: string, rootCause: string, correction: string): Mistake => ({
  kind: "mistake",
  id,
  description,
  rootCause,
  correction,
  sourceSeeds: [2],
  generation: 1,
  weight: 0.4,
  parents: [],
  evidence: { sumR: 0, count: 1 },
});

const ramp = skill("s-ramp", "Roll down the ramp", "A ball released high on the ramp rolls down and gains speed.", "the target sits at the foot of a ramp");
const stack = skill("s-stack", "Topple the stack", "Hit the top of a tall stack of blocks so it topples over sideways.", "a tower of blocks stands next to the goal");
const lever = skill("s-lever", "Use the lever", "Drop a heavy ball on the long arm of the lever to catapult the green ball.", "a plank rests on a pivot", { generation: 2 });
const miss = mistake("m-small", "The ball was too small to push the block", "believed any ball moves any block", "use a radius above 1.0 for heavy blocks");

const events: BankEventInput[] = [
  { schemaVersion: 1, type: "add", round: 0, entry: ramp },
  { schemaVersion: 1, type: "add", round: 0, entry: stack },
  { schemaVersion: 1, type: "add", round: 1, entry: miss },
  { schemaVersion: 1, type: "add", round: 1, entry: lever },
  { schemaVersion: 1, type: "reweight", round: 2, id: "s-ramp", weight: 0.9, evidenceState: { sumR: 3, count: 3 } },
  { schemaVersion: 1, type: "prune", round: 2, id: "s-stack", why: "low_weight" },
];

const root = mkdtempSync(join(tmpdir(), "hexa-index-"));
let chroma: EmbeddedChroma;
let index: SkillIndex;

beforeAll(async () => {
  chroma = await startChroma({ dataDir: join(root, "chroma") });
  index = await SkillIndex.open(chromaClient(chroma.url), localEmbedder(384), "test_skills");
});
afterAll(async () => {
  await chroma?.stop();
  rmSync(root, { recursive: true, force: true });
});

const ids = (entries: { entry: BankEntry }[]) => entries.map((h) => h.entry.id);

describe("SkillIndex", () => {
  it("upserts entries and returns the most similar first, filtered by level and kind", async () => {
    await index.upsert([ramp, stack, lever, miss], { level: "catapult", run: "r1", status: "running" });
    await index.upsert([stack], { level: "falling_tower", run: "r2", status: "final" });
    expect(await index.count()).toBe(5);

    const hits = await index.query("a heavy ball lands on the lever arm and launches the green ball", { limit: 3 });
    expect(hits[0]!.entry).toEqual(lever);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]).toMatchObject({ level: "catapult", run: "r1", status: "running" });

    const towers = await index.query("knock over the tower of blocks", { level: "falling_tower", limit: 5 });
    expect(towers.map((h) => [h.entry.id, h.level])).toEqual([["s-stack", "falling_tower"]]);

    const mistakes = await index.query("ball too small to push a block", { level: "catapult", kind: "mistake", limit: 5 });
    expect(ids(mistakes)).toEqual(["m-small"]);

    // Upsert replaces by (run, level, id) rather than duplicating.
    await index.upsert([{ ...ramp, weight: 0.7 }], { level: "catapult", run: "r1", status: "running" });
    expect(await index.count()).toBe(5);
  });

  it("rebuilds a run from its events to exactly the folded bank", async () => {
    const parsed = events.map((e) => BankEvent.parse(e));
    await index.rebuildFromEvents([{ run: "r1", level: "catapult", status: "final", events: parsed }]);
    const bank = foldEvents(parsed);
    const byId = (a: BankEntry, b: BankEntry) => a.id.localeCompare(b.id);
    expect((await index.entriesOf("r1")).sort(byId)).toEqual([...bank.skills, ...bank.mistakes].sort(byId));
    // The pruned skill is gone from r1 but r2's copy stays; the reweight is reflected.
    expect(await index.count()).toBe(4);
    const [top] = await index.query("release the ball high on the ramp", { level: "catapult", limit: 1 });
    expect(top).toMatchObject({ entry: { id: "s-ramp", weight: 0.9 }, status: "final" });
  });
});
