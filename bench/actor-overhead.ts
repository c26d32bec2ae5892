/**
 * The actor's own cost per turn, with the model and the tools taken out: an instant scripted model and a task
 * whose one tool answers at once, T = 25 turns an episode (24 probes, then a call that ends it). What is left is
 * the loop: building and compacting the request, the langchain agent's graph and middleware, the records.
 * Reported as wall and CPU time (user + system of this process) per turn. Run: npm run bench:actor-overhead
 * [-- --episodes 40]
 */
import { ActorConfig } from "../agents/actor-config.ts";
import { runActorEpisode } from "../agents/actor.ts";
import type { TaskEnv } from "../src/family/task-env.ts";
import type { AssistantTurn } from "../src/llm/chat-model.ts";
import { answeredBy } from "../src/llm/openai-chat.ts";
import { ms, percentile } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("actor-overhead");

const episodesArg = process.argv.indexOf("--episodes");
const EPISODES = episodesArg > 0 ? Number(process.argv[episodesArg + 1]) : 40;
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

const wall: number[] = [];
const cpu: number[] = [];
for (let e = 0; e < WARM + EPISODES; e++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const t = await runActorEpisode(
    { open: async () => env(), config: ActorConfig.parse({}), agent: "bench" },
    { model: instant, costOf: () => 0, now: () => performance.now() },
  );
  const spent = process.cpuUsage(c0);
  if (t.steps.length !== TURNS || !t.success) throw new Error(`episode ${e}: ${t.steps.length} turns, success ${t.success}; expected ${TURNS} and a success`);
  if (e < WARM) continue;
  wall.push((performance.now() - t0) / TURNS);
  cpu.push((spent.user + spent.system) / 1000 / TURNS);
}
const q = (xs: number[], p: number) => ms(percentile(xs, p));
console.log(
  `actor loop per turn over ${EPISODES} episodes of ${TURNS} turns: wall p50 ${q(wall, 0.5)} ms, p95 ${q(wall, 0.95)} ms; CPU p50 ${q(cpu, 0.5)} ms, p95 ${q(cpu, 0.95)} ms`,
);
