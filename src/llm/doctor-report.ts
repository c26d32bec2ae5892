import { contextVerdict, parallelVerdict, type EndpointReport } from "./doctor.ts";
import { DEFAULT_MAX_IMAGES, type ResolvedModelConfig, type Role } from "./config.ts";
import type { VisionReport } from "./doctor-vision.ts";
import { CHARS_PER_TOKEN } from "./token-estimate.ts";

/** One endpoint and model as probed, and the roles configured on it. */
export interface Probed {
  roles: Role[];
  config: ResolvedModelConfig;
  report: EndpointReport;
}

/**
 * What keeps a role from working on its endpoint, each as `<where>: <what> (got X); <fix>`; empty when it can.
 * Every role needs the endpoint, the model and a plain answer; the actor also needs native tool calls: hexa
 * reads the tool a model calls from `tool_calls` (src/llm/langchain-messages.ts).
 */
export const problemsOf = (role: Role, r: EndpointReport): string[] => {
  const where = `llm.${role}`;
  if (!r.reachable) return [`${where}.baseURL: ${r.baseURL} does not answer (got ${r.error ?? "no answer"}); start the server or fix the URL`];
  const out: string[] = [];
  if (r.modelFound === "no")
    out.push(`${where}.model: ${r.model} is not served there (got ${r.listed.slice(0, 6).join(", ")}); set ${where}.model to one of them`);
  if (!r.chat) return [...out, `${where}: a plain chat call failed (got ${r.error ?? "no answer"}); check the model name and the API key`];
  if (role === "actor" && r.toolCalls === "text") {
    out.push(
      `${where}: the model writes its tool calls as text, not as tool_calls (got <tool_call> in the content); start the server with its tool-call parser (vLLM: --enable-auto-tool-choice --tool-call-parser <name>; llama.cpp: --jinja)`,
    );
  }
  if (role === "actor" && r.toolCalls === "none")
    out.push(`${where}: the model made no tool call when asked to (got a text answer); use a model that calls tools`);
  if (role === "vision" && r.vision && !r.vision.images)
    out.push(`${where}: the endpoint refused a request with one image (got ${r.vision.refusal ?? "no answer"}); serve a model that takes images`);
  return out;
};

const yesNo = (b: boolean) => (b ? "yes" : "no");

/** What the images row says: none taken, the range the limit lies in, or at least the most tried. */
const imagesCell = (v: VisionReport): string => {
  if (!v.images) return `no (${v.refusal ?? "refused"})`;
  if (v.refusedAt === null) return `≥ ${v.maxImages} per request`;
  return `${v.maxImages} to ${v.refusedAt - 1} per request (${v.refusedAt} refused: ${v.refusal ?? "no answer"})`;
};

const visionRows = (r: EndpointReport): Array<[string, string]> =>
  r.vision
    ? [
        ["images", imagesCell(r.vision)],
        ["video_url", yesNo(r.vision.video)],
      ]
    : [];

/** The value of each row of the table, for one endpoint. */
const rowsOf = (p: Probed): Array<[string, string]> => {
  const r = p.report;
  const reach: Array<[string, string]> = [
    ["endpoint", r.baseURL],
    ["model", r.model],
    ["reachable", r.reachable ? "yes" : `no (${r.error ?? "no answer"})`],
  ];
  if (!r.reachable) return reach;
  const served = [r.servedModel && r.servedModel !== r.model ? `served as ${r.servedModel}` : "", r.fingerprint ? `fingerprint ${r.fingerprint}` : ""]
    .filter(Boolean)
    .join(", ");
  const found = r.modelFound === "unlisted" ? "not listed (GET /models gave no list)" : r.modelFound;
  const rows: Array<[string, string]> = [...reach, ["model found", served ? `${found} (${served})` : found]];
  if (!r.chat) return [...rows, ["chat", `fails (${r.error ?? "no answer"})`]];
  const ctx = contextVerdict(r);
  const par = parallelVerdict(r);
  const { soloMs, fastMs, slowMs } = r.parallel ?? { soloMs: 0, fastMs: 0, slowMs: 0 };
  return [
    ...rows,
    ["native tool calls", r.toolCalls === "text" ? "text <tool_call>" : r.toolCalls],
    ["structured output", r.structured === "tool" ? "forced tool" : r.structured],
    ["usage reported", `plain ${yesNo(r.usagePlain)} · streamed ${yesNo(r.usageStreamed)}`],
    ["reasoning fields", r.reasoning === "think" ? "<think> in content" : r.reasoning],
    [
      "context window",
      ctx === "unknown"
        ? `unknown (no input count reported for ~${r.context.sent} tokens)`
        : ctx === "ok"
          ? `≥ ~${r.context.sent} tokens (${r.context.reported} reported of ~${r.context.sent} sent)`
          : `about ${r.context.reported} tokens: input cut silently (${r.context.reported} reported of ~${r.context.sent} sent)`,
    ],
    [
      "parallel requests",
      par === "unknown" ? "unknown" : `${par} (two at once: ${Math.round(fastMs)} and ${Math.round(slowMs)} ms; one alone: ${Math.round(soloMs)} ms)`,
    ],
    ...visionRows(r),
  ];
};

const verdictOf = (p: Probed) => p.roles.map((role) => `${role} ${problemsOf(role, p.report).length ? "cannot work" : "ok"}`).join(" · ");

/** The table: one row per check, one column per endpoint (roles sharing an endpoint and model share a column). */
export const doctorTable = (probed: readonly Probed[]): string => {
  const columns = probed.map((p) => [["roles", p.roles.join(", ")] as [string, string], ...rowsOf(p), ["verdict", verdictOf(p)] as [string, string]]);
  const labels = [...new Set(columns.flatMap((c) => c.map(([k]) => k)))];
  const cell = (c: Array<[string, string]>, k: string) => c.find(([key]) => key === k)?.[1] ?? "–";
  const widths = columns.map((c) => Math.max(...labels.map((k) => cell(c, k).length)));
  const labelWidth = Math.max(...labels.map((k) => k.length));
  return labels.map((k) => [k.padEnd(labelWidth), ...columns.map((c, i) => cell(c, k).padEnd(widths[i]!))].join("  ").trimEnd()).join("\n");
};

/** The vision role's lines: the images a request may carry, and video. */
const visionYaml = (v: VisionReport): string[] => {
  if (!v.images) return ["    # the vision judge cannot work here: the endpoint takes no images"];
  const max =
    v.refusedAt === null
      ? `    maxImages: ${DEFAULT_MAX_IMAGES}  # ${v.maxImages} were taken in one request`
      : `    maxImages: ${v.maxImages}  # ${v.refusedAt} were refused; the limit lies between (vLLM: --limit-mm-per-prompt)`;
  return [max, `    video: ${v.video}`];
};

/** The config lines that fit what was found, as a YAML snippet for llm:, with a comment per thing config cannot fix. */
export const recommendedYaml = (probed: readonly Probed[]): string => {
  const lines = ["llm:"];
  for (const p of probed) {
    const r = p.report;
    for (const role of p.roles) {
      lines.push(`  ${role}:`, `    baseURL: ${p.config.baseURL}`, `    model: ${p.config.model}`);
      if (!r.chat) {
        lines.push("    # not checked further: the endpoint gave no answer");
        continue;
      }
      lines.push(`    structuredOutput: ${r.structured === "none" ? "text" : r.structured}`);
      // One request at a time anyway: more in flight only queue at the server and run into the timeout.
      if (parallelVerdict(r) === "serialised") lines.push("    concurrency: 1  # the server answers one request at a time");
      // A server that overlaps requests may take more than the one a loopback endpoint gets by default.
      else lines.push(`    concurrency: ${p.config.concurrency ?? 4}`);
      if (!r.usagePlain && r.usageStreamed) lines.push("    streaming: true  # usage is reported only on streamed answers");
      else lines.push(`    streaming: ${p.config.streaming && r.usageStreamed ? "true" : "false"}`);
      if (!r.usagePlain && !r.usageStreamed)
        lines.push(
          `    # no usage reported: a run counts its own estimate (${CHARS_PER_TOKEN} characters a token, marked estimated in usage.jsonl) for this role's tokens, costs and budget caps`,
        );
      if (contextVerdict(r) === "truncated")
        lines.push(`    # input is cut near ${r.context.reported} tokens: raise the server's context (llama.cpp -c, Ollama num_ctx, vLLM --max-model-len)`);
      if (role === "actor" && r.toolCalls !== "tool_calls") lines.push("    # the actor cannot work here: see the verdict above");
      if (role === "vision" && r.vision) lines.push(...visionYaml(r.vision));
    }
  }
  return lines.join("\n");
};
