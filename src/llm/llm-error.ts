import { HexaError } from "../errors.ts";

/** A model call failed for good: not retryable, or still failing after the last retry. */
export class LlmError extends HexaError {
  constructor(
    readonly endpoint: string,
    readonly model: string,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`${endpoint}: model ${model} failed after ${attempts} attempt(s): ${describeCause(cause)}`);
  }
}

/** The error's message with its cause chain ("Connection error. ← fetch failed ← other side closed"). */
const describeCause = (e: unknown): string => {
  const parts: string[] = [];
  for (let c: unknown = e; c !== undefined && c !== null && parts.length < 4; ) {
    if (c instanceof Error) {
      parts.push(c.message.split("\n")[0] ?? "");
      c = c.cause;
    } else {
      parts.push(String(c));
      break;
    }
  }
  return parts.join(" ← ");
};
