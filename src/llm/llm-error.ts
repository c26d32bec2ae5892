import { HexaError } from "../errors.ts";
import { causeChain } from "../util/error-causes.ts";

/** A model call failed for good: not retryable, or still failing after the last retry. */
export class LlmError extends HexaError {
  constructor(
    readonly endpoint: string,
    readonly model: string,
    readonly attempts: number,
    override readonly cause: unknown,
    fix?: string,
  ) {
    super(`${endpoint}: model ${model} failed after ${attempts} attempt(s): ${causeChain(cause)}${fix ? `; ${fix}` : ""}`);
  }
}

/**
 * The request did not fit the model's context (prompt plus max output tokens). Not the endpoint's fault: an
 * episode that grew too long ends as a failed episode, with what to change.
 */
export class ContextOverflow extends LlmError {}

const OVERFLOW = /maximum context|context[ _-]?(length|size|window)|exceeds? the available context|context.{0,20}overflow|prompt is too long|too many tokens/i;

/**
 * A 400/413 whose message says the request is longer than the model's context (OpenAI, vLLM, llama.cpp, LM
 * Studio), as the SDK throws it or as langchain wraps it (ContextOverflowError, the SDK's error its cause).
 */
export const isContextOverflow = (e: unknown): boolean => {
  for (let c: unknown = e, depth = 0; typeof c === "object" && c !== null && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    if ((c as { name?: unknown }).name === "ContextOverflowError") return true;
    const status = (c as { status?: unknown }).status;
    const text = `${String((c as { message?: unknown }).message ?? "")} ${JSON.stringify((c as { error?: unknown }).error ?? "")}`;
    if ((status === 400 || status === 413) && OVERFLOW.test(text)) return true;
  }
  return false;
};
