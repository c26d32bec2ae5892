/**
 * The scripted model of the intents bench (docs/benchmarks/intents.md): a local OpenAI-compatible server that
 * answers every role of an intent search — the p2p reviser, llm.judge (the code judge's author and the
 * synthesiser) and llm.vision — by fixed rules, from nothing but what each request carries. Its numbers measure the
 * plumbing and the cost of everything around a model, never a model's judgement.
 *
 * - Reviser: the first reward is the intent's direction (backward when the intent's words say "backward") times
 *   `info.x_velocity`, plus 1 while `info.healthy`, each only where the task's "Info fields" list it; a revision
 *   builds on the best iteration and scales the progress weight by 1.5 (structural after a plateau); HP variants
 *   change nothing; a correction is answered as noted.
 * - llm.judge: one leaf, the root body's travel along the forward direction (its sign by the intent's direction)
 *   per second, passing at 1 m/s; the reviews accept. A disagreement with vision is settled by the calibration
 *   bench's scripted synthesiser (bench/judge-calibration-synthesiser.ts).
 * - llm.vision: the calibration bench's scripted vision model (bench/judge-calibration-vision-model.ts).
 * - Usage: text at 4 characters a token; an image at 765 tokens (a 512 × 512 high-detail image at OpenAI's rate).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message, ToolSpec } from "../src/llm/chat-model.ts";
import { scriptedSynthesiserTurn } from "./judge-calibration-synthesiser.ts";
import { scriptedVisionReply } from "./judge-calibration-vision-model.ts";

export const SCRIPTED_INTENTS_MODEL = "scripted-intents";

export const SCRIPTED_INTENTS_RULES = [
  "reviser: reward = the intent's direction × info.x_velocity (+1 while info.healthy), each where the task lists the field; each revision first reads its lessons through its lessons tool, then scales the progress weight by 1.5; HP variants change nothing",
  "code judge: the root body's travel along the forward direction (signed by the intent's direction) per second, passing at 1 m/s",
  "vision: the share of consecutive frames that differ × the share of the time limit reached (bench/judge-calibration-vision-model.ts)",
  "synthesiser: calls reask_vision and run_trajectory_check, then sides with the code judge (bench/judge-calibration-synthesiser.ts)",
] as const;

const IMAGE_TOKENS = 765;

type WireMessage = { role: string; content?: unknown; name?: string; tool_call_id?: string };
interface Body {
  model: string;
  messages: WireMessage[];
  tools?: Array<{ function: { name: string; description?: string; parameters?: Record<string, unknown> } }>;
  response_format?: { json_schema?: { name?: string } };
  stream?: boolean;
}

const textOf = (m: WireMessage): string =>
  Array.isArray(m.content)
    ? (m.content as Array<{ type?: string; text?: string }>).map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("\n")
    : String(m.content ?? "");

const imagesOf = (b: Body): number =>
  b.messages.reduce((n, m) => n + (Array.isArray(m.content) ? (m.content as Array<{ type?: string }>).filter((p) => p.type === "image_url").length : 0), 0);

/** The intent's words as the request quotes them (the reviser's task text, or the judge author's system prompt). */
const intentIn = (text: string): string => {
  const m = /(?:in the user's words|Intent): ("(?:[^"\\]|\\.)*")/.exec(text);
  return m ? (JSON.parse(m[1]!) as string) : "";
};

const directionOf = (text: string): 1 | -1 => (/\bbackwards?\b/i.test(intentIn(text)) ? -1 : 1);

/** The first reward, from the intent's direction and the fields the task's "Info fields" line names. */
const firstReward = (text: string): string => {
  const fields = /Info fields[^\n]*/.exec(text)?.[0] ?? "";
  const progress = /\bx_velocity\b/.test(fields) ? `${directionOf(text)} * info.x_velocity` : "0";
  const alive = /\bhealthy\b/.test(fields) ? "info.healthy ? 1 : 0" : "0";
  return `function reward(obs, action, nextObs, info) {
  const w = 1;
  const progress = ${progress};
  const alive = ${alive};
  return { total: w * progress + alive, components: { progress, alive } };
}`;
};

/** The code block under a heading of the revision request. */
const codeUnder = (text: string, heading: string): string | undefined =>
  new RegExp(`## ${heading}: iteration \\d+[^\\n]*\\n\`\`\`js\\n([\\s\\S]*?)\\n\`\`\``).exec(text)?.[1];

const revision = (text: string): Record<string, unknown> => {
  const current = Number(/## Current: iteration (\d+)/.exec(text)?.[1] ?? 0);
  const bestIsCurrent = text.includes("## Best: the current iteration");
  const basedOn = bestIsCurrent ? current : Number(/## Best: iteration (\d+)/.exec(text)?.[1] ?? current);
  const base = (bestIsCurrent ? codeUnder(text, "Current") : codeUnder(text, "Best")) ?? firstReward(text);
  const code = base.replace(/const w = ([\d.e+-]+);/, (_, w: string) => `const w = ${Number((Number(w) * 1.5).toPrecision(4))};`);
  const corrections = [...text.matchAll(/^- correction (\d+)/gm)].map((m) => ({
    correction: Number(m[1]),
    how: "scripted: noted; the rule does not read words",
  }));
  return {
    diagnosis: `Scripted: iteration ${current} was judged; the best is iteration ${basedOn}.`,
    lesson: "Scripted: a larger progress weight is tried next.",
    basedOn,
    rewardChanges: ["progress weight × 1.5"],
    structural: text.includes("WARNING — plateau"),
    noChange: false,
    code,
    hpChanges: {},
    corrections,
  };
};

const CRITERIA = (dir: 1 | -1) => ({
  order: "independent",
  children: [
    {
      id: "1",
      name: dir > 0 ? "forward travel" : "backward travel",
      metric: "root body travel along the forward direction per second of the episode (xpos of body 1)",
      threshold: ">= 1 m/s",
      partial: "speed / 1 m/s, 0 when the other way",
    },
  ],
});

const judgeCode = (dir: 1 | -1) => `function judge(traj) {
  const f = traj.header.forward;
  const x0 = traj.initial.xpos.slice(3, 6);
  const x1 = traj.steps > 0 ? traj.row("xpos", traj.steps - 1).slice(3, 6) : x0;
  const d = ${dir} * ((x1[0] - x0[0]) * f[0] + (x1[1] - x0[1]) * f[1] + (x1[2] - x0[2]) * f[2]);
  const speed = traj.steps > 0 ? d / (traj.steps * traj.dt) : 0;
  return [{ id: "1", value: speed, score: Math.min(1, Math.max(0, speed)), passed: speed >= 1, note: "speed " + speed.toFixed(2) + " m/s" }];
}`;

/** The answer to a request that names its JSON schema. */
const answerFor = (name: string | undefined, b: Body, text: string): string => {
  switch (name) {
    case "reward_proposal":
      return JSON.stringify({ thought: "Scripted: progress in the intent's direction, and staying healthy where the task says.", code: firstReward(text) });
    case "p2p_revision":
      return JSON.stringify(revision(text));
    case "hp_variant":
      return JSON.stringify({ hpChanges: {} });
    case "judge_decomposition":
      return JSON.stringify({ criteria: CRITERIA(directionOf(text)) });
    case "judge_decomposition_review":
      return JSON.stringify({ change: false, findings: "Scripted: complete." });
    case "judge_code":
      return JSON.stringify({ code: judgeCode(directionOf(text)) });
    case "judge_loophole_review":
      return JSON.stringify({ loophole: false, findings: "Scripted: none looked for." });
    default:
      return scriptedVisionReply(b as unknown as Parameters<typeof scriptedVisionReply>[0]);
  }
};

const portMessages = (b: Body): Message[] =>
  b.messages.map((m) => {
    const content = textOf(m);
    if (m.role === "tool") return { role: "tool", content, toolCallId: m.tool_call_id ?? "", name: m.name ?? "" };
    if (m.role === "assistant") return { role: "assistant", content, toolCalls: [] };
    return { role: m.role as "system" | "user", content };
  });

/** The reviser's turn (its tools offered): one call of its lessons tool, then the revision once the tool has answered. */
const reviserTurn = (b: Body, text: string): { content: string | null; tool_calls?: unknown[] } =>
  b.messages.some((m) => m.role === "tool")
    ? { content: JSON.stringify(revision(text)) }
    : { content: null, tool_calls: [{ id: "call_lessons", type: "function", function: { name: "lessons", arguments: "{}" } }] };

/** The assistant message for one request: the synthesiser's or the reviser's turn when their tools are offered, else the schema's answer. */
const reply = (b: Body): { content: string | null; tool_calls?: unknown[] } => {
  const text = b.messages.map(textOf).join("\n");
  const tools: ToolSpec[] = (b.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? "",
    parameters: t.function.parameters ?? {},
  }));
  if (tools.some((t) => t.name === "set_lesson_tier")) return reviserTurn(b, text);
  if (tools.some((t) => t.name === "reask_vision")) {
    const turn = scriptedSynthesiserTurn(portMessages(b), tools);
    if (!turn.toolCalls.length) return { content: turn.text };
    return { content: null, tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.rawArgs } })) };
  }
  return { content: answerFor(b.response_format?.json_schema?.name, b, text) };
};

export interface ScriptedServer {
  url: string;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const handle = async (req: IncomingMessage, res: ServerResponse, served: { n: number }) => {
  const path = (req.url ?? "").split("?")[0];
  if (req.method === "GET" && path === "/v1/models") return send(res, 200, { object: "list", data: [{ id: SCRIPTED_INTENTS_MODEL, object: "model" }] });
  if (req.method !== "POST" || path !== "/v1/chat/completions") return send(res, 404, { error: { message: `no route ${req.method} ${path}` } });
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  const b = JSON.parse(Buffer.concat(parts).toString("utf8")) as Body;
  if (b.stream) return send(res, 400, { error: { message: "the scripted intents model answers without streaming (llm streaming: false)" } });
  const message = reply(b);
  const input = Math.ceil(b.messages.map(textOf).join("").length / 4) + IMAGE_TOKENS * imagesOf(b);
  const output = Math.ceil(JSON.stringify(message).length / 4);
  served.n++;
  send(res, 200, {
    id: `scripted-${served.n}`,
    object: "chat.completion",
    created: 1_700_000_000 + served.n,
    model: b.model,
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  });
};

/** Starts the scripted model on a free local port; its base URL ends in /v1. */
export const startScriptedIntentsModel = async (): Promise<ScriptedServer> => {
  const served = { n: 0 };
  const server = createServer((req, res) => {
    handle(req, res, served).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: `scripted intents model: ${e instanceof Error ? e.message : String(e)}` } });
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok, fail) => server.close((e) => (e ? fail(e) : ok())));
    },
  };
};
