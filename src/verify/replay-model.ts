import type { AssistantTurn } from "../llm/chat-model.ts";
import type { RoleModel } from "../llm/ask.ts";
import { exchangeKey } from "../llm/audit-log.ts";
import type { Role } from "../llm/config.ts";
import { LlmError } from "../llm/llm-error.ts";
import { answeredBy } from "../llm/openai-chat.ts";
import type { Divergence } from "./outcome.ts";
import type { RecordedExchange } from "./recorded-exchanges.ts";
import { firstDifferingLine, requestLines, sharedChars, sharedLines } from "./request-lines.ts";

/**
 * The recorded exchanges of a run, answering a replay's requests (docs/guides/verify.md): each request is looked
 * up by its exact key, and identical requests take the recorded answers in the order the run got them. The
 * book never opens a connection. A request the run never made is the replay's first divergence; it is kept
 * here, because an agent may catch the error it raises and carry on.
 */
export class ReplayBook {
  private readonly queues = new Map<string, RecordedExchange[]>();
  answered = 0;
  divergence: Divergence | undefined;

  /** `maker`: what made the record, in the divergences' words (a run, a search). */
  constructor(
    private readonly exchanges: readonly RecordedExchange[],
    private readonly maker = "run",
  ) {
    for (const x of exchanges) {
      const id = `${x.role} ${x.key}`;
      this.queues.set(id, [...(this.queues.get(id) ?? []), x]);
    }
  }

  /** A role's model as the replay sees it: named as the run's config names it, answered from the book. */
  model(role: Role, name: string): RoleModel {
    return answeredBy(name, async (messages, tools, output) => {
      const next = this.queues.get(`${role} ${exchangeKey(name, messages, tools, output)}`)?.shift();
      const names = tools.map((t) => t.name);
      if (!next) {
        this.divergence ??= this.unasked(role, requestLines(messages, names, output?.name));
        throw new LlmError("replay", name, 1, new Error(`the replay asked the ${role} something the ${this.maker} never asked`));
      }
      this.answered++;
      if ("error" in next.answer) throw new LlmError("replay", name, 1, new Error(next.answer.error));
      return structuredClone(next.answer.turn) satisfies AssistantTurn;
    });
  }

  /** The recorded request nearest to one the run never made (the most leading lines shared), and where they part. */
  private unasked(role: Role, replayed: string[]): Divergence {
    let nearest: { x: RecordedExchange; lines: string[]; shared: number; chars: number } | undefined;
    for (const x of this.exchanges.filter((e) => e.role === role)) {
      const lines = requestLines(x.messages, x.tools, x.outputSchema);
      const shared = sharedLines(lines, replayed);
      // Ties on whole lines go to the request whose first differing line starts most like the replayed one.
      const chars = sharedChars(lines[shared] ?? "", replayed[shared] ?? "");
      if (!nearest || shared > nearest.shared || (shared === nearest.shared && chars > nearest.chars)) nearest = { x, lines, shared, chars };
    }
    const what = `the replay asked the ${role} something the ${this.maker} never asked`;
    if (!nearest) return { what, field: "request", recorded: `(the run made no ${role} request)`, replayed: replayed[0] ?? "(empty request)" };
    const differ = firstDifferingLine(nearest.lines, replayed) ?? {
      recorded: "(the same messages and tool names: a tool's description or schema, or the answer's schema, differs)",
      replayed: "(see recorded)",
    };
    return { what, field: `request (nearest recorded: llm-log.jsonl line ${nearest.x.line})`, ...differ };
  }

  /** The first recorded exchange no replayed request took, as a divergence: the record's maker asked more than its code asks now. */
  firstUnasked(): Divergence | undefined {
    const left = this.left()[0];
    if (!left) return undefined;
    const lines = requestLines(left.messages, left.tools, left.outputSchema);
    return {
      what: `the ${this.maker} asked the ${left.role} something the replay never asked`,
      field: `request (llm-log.jsonl line ${left.line})`,
      recorded: lines.find((l) => l.includes("(user)")) ?? lines[0] ?? "(empty request)",
      replayed: "(not asked)",
    };
  }

  /** Recorded exchanges no replayed request took, in log order. */
  left(): RecordedExchange[] {
    return [...this.queues.values()].flat().sort((a, b) => a.line - b.line);
  }
}
