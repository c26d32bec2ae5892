/**
 * Per-turn cost of the actor loop apart from the model: tool execution + bookkeeping (context building,
 * compaction, trajectory records), with an instant in-process model playing a fixed experimental script on
 * certified catapult seeds. Run: npx tsx bench/actor-turn.ts [--seeds 10]
 */
import { ActorConfig } from "../agents/actor-config.ts";
import { runActorEpisode } from "../agents/actor.ts";
import { openInterphyreEnv } from "../levels/interphyre/task-env.ts";
import type { AssistantTurn, ToolCall } from "../src/llm/chat-model.ts";
import { answeredBy } from "../src/llm/openai-chat.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { percentile } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("actor-turn");

const seedsArg = process.argv.indexOf("--seeds");
const SEEDS = seedsArg > 0 ? Number(process.argv[seedsArg + 1]) : 10;
const LEVEL = "catapult";

let id = 0;
const call = (name: string, args: unknown): ToolCall => ({ id: `c${++id}`, name, args, rawArgs: JSON.stringify(args) });

/** A model that answers instantly from a script; its own time is measured and subtracted. */
class InstantModel {
  readonly chat = answeredBy("instant", () => this.invoke());
  modelMs = 0;
  constructor(private readonly script: ToolCall[]) {}
  async invoke(): Promise<AssistantTurn> {
    const t0 = performance.now();
    const next = this.script.shift()!;
    const turn = { text: "thought", toolCalls: [next], usage: { input: 0, output: 0, cached: 0 }, model: "instant", latencyMs: 0, fromCache: false };
    this.modelMs += performance.now() - t0;
    return turn;
  }
}

const perTurn: number[] = [];
for (const entry of readCertified(LEVEL)!.seeds.slice(0, SEEDS)) {
  const [x, y, radius] = entry.solution;
  const probe = (dx: number) => call("simulate_action", { x: Math.max(-4, Math.min(4, -x + dx)), y: 4.2, radius: 0.3 });
  const script = [
    call("get_level_state", {}),
    call("describe_scene_geometry", {}),
    call("predict_first_contact", { x, y, radius }),
    call("simulate_partial", { x, y, radius, stop_step: 240 }),
    probe(0),
    probe(0.5),
    call("trace_objects", { x, y, radius, objects: ["green_ball"] }),
    call("get_contact_log", {}),
    probe(1),
    call("simulate_action", { x, y, radius }),
  ];
  const turns = script.length;
  const model = new InstantModel(script);
  const t0 = performance.now();
  const t = await runActorEpisode(
    {
      open: (maxTurns) => openInterphyreEnv({ level: LEVEL, seed: entry.seed, horizon: 2000, toolSet: "extended", maxTurns }),
      config: ActorConfig.parse({}),
      agent: "bench",
    },
    { model: model.chat, costOf: () => 0, now: () => performance.now() },
  );
  const wall = performance.now() - t0 - model.modelMs;
  if (t.steps.length === turns) perTurn.push(wall / turns);
  else for (const s of t.steps) perTurn.push(s.ms);
}
const q = (p: number) => percentile(perTurn, p).toFixed(1);
console.log(`${LEVEL}: tool execution + bookkeeping per turn over ${perTurn.length} episodes (mean per episode): p50 ${q(0.5)} ms, p95 ${q(0.95)} ms`);
