/**
 * The synthesiser of a code judge and a vision judge (docs/guides/judging.md, "Synthesiser"). Agreement, one
 * judge alone, or none is decided in code by the agreement rule (agreement.ts) and returned as it is, with no
 * model call. A disagreement goes to a model with at most `toolBudget` (3) tool calls — `reask_vision` and
 * `run_trajectory_check` (synthesiser-tools.ts) — and then its verdict, a JSON object held to `VerdictAnswer`.
 * Where the disagreement is about rotation direction the code judge's measurement wins, enforced here. A model
 * that gives no valid verdict leaves the code judge's score standing, labelled as the synthesiser's failure.
 *
 * The loop is langchain's tool calling on the role's model object (`bindTools`, src/llm/openai-chat.ts), run
 * here so that the budget is exact: every call past it is answered "refused" and, once it is spent, the model is
 * asked without tools for the verdict alone.
 */
import { type AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { ConfigError, InvariantError, RunStopped } from "../../../src/errors.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import { extractJson } from "../../../src/llm/structured-read.ts";
import { JudgeLimits } from "../sandbox/judge-sandbox.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { AgreementConfig, synthesise, type Synthesis } from "./agreement.ts";
import { settledBy, type SettleCase } from "./synthesis-verdict.ts";
import { type SynthesisRecord, type SettledSynthesis, type SynthesiserToolCall, VerdictAnswer } from "./synthesis.ts";
import { caseMessage, systemPrompt } from "./synthesiser-prompt.ts";
import { type ReaskVision, runToolCall, synthesiserTools, SynthesiserToolLimits } from "./synthesiser-tools.ts";

export const SynthesiserConfig = AgreementConfig.extend({
  toolBudget: z.number().int().min(0).max(3).default(3).describe("tool calls the model may make on a disagreement; later ones are refused"),
  answerAttempts: z.number().int().min(1).max(3).default(2).describe("answers the model may give before the fallback (the first and one retry)"),
  ...SynthesiserToolLimits.shape,
});
export type SynthesiserConfig = z.infer<typeof SynthesiserConfig>;

/** Both judges' results on one episode; either may be absent. */
export interface JudgesOnEpisode {
  intent: string;
  record: TrajectoryRecord;
  code?: { score: number | null; breakdown?: readonly string[] } | null;
  vision?: { score: number | null; assessment?: string } | null;
  /** The code judge's sandbox limits: a run_trajectory_check runs under them too. */
  judgeLimits?: Partial<JudgeLimits>;
}

export interface SynthesiserPorts {
  /** The judge role's model (src/llm); driven as its langchain chat model. */
  model: RoleModel;
  reaskVision: ReaskVision;
}

/** Combine the two judges: the agreement rule's outcome, or on a disagreement the synthesiser's settlement. */
export async function synthesiseJudges(j: JudgesOnEpisode, ports: SynthesiserPorts, config?: Partial<SynthesiserConfig>): Promise<SynthesisRecord> {
  const cfg = SynthesiserConfig.parse(config ?? {});
  const outcome: Synthesis = synthesise({ code: j.code?.score, vision: j.vision?.score }, { passThreshold: cfg.passThreshold, maxGap: cfg.maxGap });
  if (outcome.kind !== "disagree") return outcome;
  return settle({ ...outcome, passThreshold: cfg.passThreshold, model: ports.model.model }, j, ports, cfg);
}

const VERDICT_NAME = "synthesis_verdict";

/** The verdict's JSON Schema, as the server is asked to hold the answer to it when no tools are offered. */
const verdictOutput = (() => {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(VerdictAnswer, { io: "input" });
  return { name: VERDICT_NAME, schema };
})();

/** The disagreement settled by the model and its tools, or the labelled fallback; never throws for the model's doing. */
async function settle(c: SettleCase, j: JudgesOnEpisode, ports: SynthesiserPorts, cfg: SynthesiserConfig): Promise<SettledSynthesis> {
  const judgeLimits = JudgeLimits.parse(j.judgeLimits ?? {});
  const context = { record: j.record, judgeLimits, reaskVision: ports.reaskVision, limits: cfg };
  const readings = {
    intent: j.intent,
    code: { score: c.code, breakdown: j.code?.breakdown ?? [] },
    vision: { score: c.vision, assessment: j.vision?.assessment ?? "(none given)" },
    disagreement: c.rule,
  };
  const numbers = { passThreshold: cfg.passThreshold, toolBudget: cfg.toolBudget, cpuMs: judgeLimits.cpuMs, maxQuestionChars: cfg.maxQuestionChars };
  const conversation = new Conversation(ports.model, synthesiserTools(context), cfg);
  const messages = [new SystemMessage(systemPrompt(numbers)), new HumanMessage(caseMessage(readings, j.record))];
  try {
    const verdict = await conversation.verdict(messages, c.passThreshold);
    return settledBy(c, conversation.calls, verdict);
  } catch (e) {
    if (e instanceof RunStopped || e instanceof ConfigError || e instanceof InvariantError) throw e;
    return settledBy(c, conversation.calls, { failure: `the model call failed: ${e instanceof Error ? e.message : String(e)}`.slice(0, 500) });
  }
}

type Tools = ReturnType<typeof synthesiserTools>;

/** One settlement's exchange with the model: its turns, the tool calls it made, and the budget. */
class Conversation {
  readonly calls: SynthesiserToolCall[] = [];
  private readonly withTools;

  constructor(
    private readonly chat: RoleModel,
    private readonly tools: Tools,
    private readonly cfg: SynthesiserConfig,
  ) {
    this.withTools = chat.bindTools(tools);
  }

  /** The model's valid verdict, or why it gave none within its turns. */
  async verdict(messages: BaseMessage[], passThreshold: number): Promise<VerdictAnswer | { failure: string }> {
    let failures = 0;
    let problem = "it gave no answer";
    for (let turn = 0; turn < this.cfg.toolBudget + this.cfg.answerAttempts && failures < this.cfg.answerAttempts; turn++) {
      const answer = await this.ask(messages);
      messages.push(answer);
      const asked = (answer.tool_calls ?? []).filter((t) => t.name !== VERDICT_NAME);
      if (asked.length > 0) {
        for (const t of asked) messages.push(await this.toolResult(t));
        continue;
      }
      const read = readVerdict(answerText(answer), passThreshold);
      if (!("failure" in read)) return read;
      failures += 1;
      problem = read.failure;
      messages.push(new HumanMessage(`Your verdict could not be used: ${problem}. Answer again with only the corrected JSON object.`));
    }
    return { failure: `no valid verdict after ${failures} answer(s): ${problem}` };
  }

  private get spent(): boolean {
    return this.calls.length >= this.cfg.toolBudget;
  }

  /** With the budget left, the model with its tools; once spent, the model alone, asked for the verdict's schema. */
  private ask(messages: BaseMessage[]): Promise<AIMessage> {
    if (!this.spent) return this.withTools.invoke(messages);
    const { name, schema } = verdictOutput;
    return this.chat
      .withStructuredOutput(schema, { name, includeRaw: true })
      .invoke(messages)
      .then(({ raw }) => raw as AIMessage);
  }

  private async toolResult(t: { id?: string; name: string; args: unknown }): Promise<ToolMessage> {
    const record = await runToolCall(this.tools, t, !this.spent, this.cfg);
    this.calls.push(record);
    return new ToolMessage({ content: record.result, tool_call_id: t.id ?? "", name: t.name });
  }
}

/** The answer's verdict text: a forced verdict tool's arguments (structured output by tool), else the message text. */
const answerText = (answer: AIMessage): string => {
  const forced = (answer.tool_calls ?? []).find((t) => t.name === VERDICT_NAME);
  return forced ? JSON.stringify(forced.args) : answer.text;
};

/** The verdict in a text, checked against the schema and the pass threshold; or what is wrong with it. */
function readVerdict(text: string, passThreshold: number): VerdictAnswer | { failure: string } {
  let json: unknown;
  try {
    json = extractJson(text);
  } catch (e) {
    return { failure: (e as Error).message };
  }
  const parsed = VerdictAnswer.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 4).map((i) => `${i.path.join(".") || "(verdict)"}: ${i.message}`);
    return { failure: `the verdict does not match its schema: ${issues.join("; ")}` };
  }
  const v = parsed.data;
  if (v.passed !== v.score >= passThreshold)
    return { failure: `passed: ${v.passed} with score ${v.score} (got both); passed is true exactly when score >= ${passThreshold}` };
  return v;
}
