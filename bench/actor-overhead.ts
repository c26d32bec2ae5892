/**
 * The actor's own cost per turn, with the model and the tools taken out: an instant scripted model and a task
 * whose one tool answers at once, T = 25 turns an episode (24 probes, then a call that ends it). What is left is
 * the loop: building and compacting the request, the langchain agent's graph and middleware, the records.
 * Reported as wall and CPU time (user + system of this process) per turn, beside the same episodes played by a bare
 * langchain `createAgent` (a trivial chat model, the one tool, no middleware): the framework's own floor. Episodes
 * of the two alternate, so a change in the machine's load reaches both. Run: npm run bench:actor-overhead
 * [-- --episodes 200]
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod";
import { ActorConfig } from "../agents/actor-config.ts";
import { runActorEpisode } from "../agents/actor.ts";
import type { TaskEnv } from "../src/family/task-env.ts";
import type { AssistantTurn } from "../src/llm/chat-model.ts";
import { answeredBy } from "../src/llm/openai-chat.ts";
import { ms, percentile } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("actor-overhead");

const episodesArg = process.argv.indexOf("--episodes");
// Fewer episodes measure mostly the JIT's warm-up: process.cpuUsage counts the compiler's and the GC's threads.
const EPISODES = episodesArg > 0 ? Number(process.argv[episodesArg + 1]) : 200;
const TURNS = 25;
const WARM = 5;

const observation = Array.from({ length: 12 }, (_, i) => `line ${i}: object ${i} at (${i}.00, ${i}.50), resting`).join("\n");

const env = (): TaskEnv => ({
  level: "overhead",
  seed: 0,
  tools: [{ name: "probe", description: "reads the scene", parameters: { type: "object", properties: { x: { type: "number" } } } }],
  prompt: { noun: "task", role: "You solve a task.", sections: ["The scene has twelve objects."], rules: ["Finish by probing at x = 1."], task: "Solve it." },
  call: async (_name, args) => {
    const done = (args as { x?: number }).x === 1;
    return { ok: true, observation, ...(done ? { ends: { reason: "finish" as const, success: true, action: args } } : {}) };
  },
  close: async () => {},
});

let id = 0;
const instant = answeredBy("instant", async (messages): Promise<AssistantTurn> => {
  const turn = messages.filter((m) => m.role === "assistant").length + 1;
  const args = { x: turn === TURNS ? 1 : 0 };
  return {
    text: "thought",
    toolCalls: [{ id: `c${++id}`, name: "probe", args, rawArgs: JSON.stringify(args) }],
    usage: { input: 0, output: 0, cached: 0 },
    model: "instant",
    latencyMs: 0,
    fromCache: false,
  };
});

/** A chat model that answers at once with the turn's call, and ends with a plain answer: nothing of hexa's in it. */
class Trivial extends BaseChatModel {
  _llmType() {
    return "trivial";
  }
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const turn = messages.filter((m) => AIMessage.isInstance(m)).length + 1;
    const message = new AIMessage({ content: "thought", tool_calls: turn < TURNS ? [{ id: `b${++id}`, name: "probe", args: { x: 0 } }] : [] });
    return { generations: [{ text: "thought", message }] };
  }
}

const probe = tool(async () => observation, { name: "probe", description: "reads the scene", schema: z.object({ x: z.number() }) });
const bare = createAgent({ model: new Trivial({}), tools: [probe], systemPrompt: "You solve a task." });
/** A bare agent's episode: TURNS model calls, the first TURNS - 1 with a tool call (one fewer than hexa's episode makes). */
const bareEpisode = async () => {
  const state = await bare.invoke({ messages: [{ role: "user", content: "Solve it." }] }, { recursionLimit: 4 * TURNS });
  const answers = state.messages.filter((m) => AIMessage.isInstance(m)).length;
  if (answers !== TURNS) throw new Error(`bare agent: ${answers} model calls; expected ${TURNS}`);
};

const hexaEpisode = async (e: number) => {
  const t = await runActorEpisode(
    { open: async () => env(), config: ActorConfig.parse({}), agent: "bench" },
    { model: instant, costOf: () => 0, now: () => performance.now() },
  );
  if (t.steps.length !== TURNS || !t.success) throw new Error(`episode ${e}: ${t.steps.length} turns, success ${t.success}; expected ${TURNS} and a success`);
};

interface PerTurn {
  wall: number[];
  cpu: number[];
}
const timed = async (into: PerTurn, keep: boolean, play: () => Promise<void>) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await play();
  const spent = process.cpuUsage(c0);
  if (!keep) return;
  into.wall.push((performance.now() - t0) / TURNS);
  into.cpu.push((spent.user + spent.system) / 1000 / TURNS);
};

const hexa: PerTurn = { wall: [], cpu: [] };
const floor: PerTurn = { wall: [], cpu: [] };
for (let e = 0; e < WARM + EPISODES; e++) {
  await timed(hexa, e >= WARM, () => hexaEpisode(e));
  await timed(floor, e >= WARM, bareEpisode);
}
const q = (xs: number[], p: number) => ms(percentile(xs, p));
const line = (what: string, t: PerTurn) =>
  `${what} per turn over ${EPISODES} episodes of ${TURNS} turns: wall p50 ${q(t.wall, 0.5)} ms, p95 ${q(t.wall, 0.95)} ms; CPU p50 ${q(t.cpu, 0.5)} ms, p95 ${q(t.cpu, 0.95)} ms`;
console.log(line("actor loop", hexa));
console.log(line("bare createAgent (trivial model, one tool, no middleware)", floor));
