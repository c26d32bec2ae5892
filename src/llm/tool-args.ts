import type { ToolCall } from "./chat-model.ts";
import { cutMiddle } from "../util/cut-text.ts";
import { jsonTextDepth, valueDepth } from "../util/json-depth.ts";

/**
 * The largest arguments a call may have: no tool takes more than a few kilobytes of flat JSON (reward code is
 * the longest), and what is larger or deeper is refused as the model's error for that turn before anything
 * writes it, hashes it or shows it back (each of which walks it).
 */
export const MAX_ARGS_DEPTH = 64;
export const MAX_ARGS_CHARS = 64 * 1024;
/** What a refused call keeps of its arguments' text: enough to see what the model sent. */
const REFUSED_HEAD_CHARS = 1000;
const REFUSED_TAIL_CHARS = 200;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const shown = (raw: string) => JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);

/** A call's arguments as read: the parsed object, the text as sent, and what was wrong or repaired. */
export type ParsedArgs = Pick<ToolCall, "args" | "rawArgs" | "argsError"> & {
  /** The arguments were not plain JSON text but could be read; says how (a server quirk, not the model's error). */
  repaired?: string;
};

/** The first JSON object at the start of `text` and what follows it, or undefined when none closes. */
const leadingObject = (text: string): { json: string; rest: string } | undefined => {
  const start = text.indexOf("{");
  if (start !== 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return { json: text.slice(0, i + 1), rest: text.slice(i + 1) };
  }
  return undefined;
};

const tryParse = (text: string): { ok: true; value: unknown } | { ok: false; why: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, why: e instanceof Error ? e.message : String(e) };
  }
};

const tooLarge = (name: string, rawArgs: string, what: string): ParsedArgs => ({
  args: {},
  rawArgs: cutMiddle(rawArgs, REFUSED_HEAD_CHARS, REFUSED_TAIL_CHARS),
  argsError: `${name}: arguments ${what}; send one flat JSON object of the tool's fields`,
});

const deeper = `nest deeper than ${MAX_ARGS_DEPTH} levels`;
const longer = (n: number) => `are ${n} characters long, over the limit of ${MAX_ARGS_CHARS}`;

/** A call's arguments over the limits, measured without recursion before anything else reads them; undefined when within. */
const overLimits = (name: string, wire: unknown): ParsedArgs | undefined => {
  if (typeof wire === "string") {
    if (wire.length > MAX_ARGS_CHARS) return tooLarge(name, wire, longer(wire.length));
    return jsonTextDepth(wire, MAX_ARGS_DEPTH) > MAX_ARGS_DEPTH ? tooLarge(name, wire, deeper) : undefined;
  }
  if (valueDepth(wire, MAX_ARGS_DEPTH) > MAX_ARGS_DEPTH) return tooLarge(name, "", deeper);
  const text = JSON.stringify(wire) ?? "";
  return text.length > MAX_ARGS_CHARS ? tooLarge(name, text, longer(text.length)) : undefined;
};

/**
 * Reads one call's arguments within MAX_ARGS_DEPTH and MAX_ARGS_CHARS (a JSON string holding deeper JSON
 * included); never throws: arguments over them, or unreadable, become args {} and an error the model can act on.
 */
export const parseToolArgs = (name: string, wire: unknown): ParsedArgs => {
  const over = overLimits(name, wire);
  if (over) return over;
  const read = readToolArgs(name, wire);
  return valueDepth(read.args, MAX_ARGS_DEPTH) > MAX_ARGS_DEPTH ? tooLarge(name, read.rawArgs, deeper) : read;
};

/**
 * Reads one call's arguments; never throws: a bad call becomes args {} and an error the model can act on.
 * Three server quirks are read and said (`repaired`): arguments sent as a JSON object rather than a string
 * (some llama.cpp builds), a JSON string holding the JSON text (double-encoded), and text after the object.
 */
const readToolArgs = (name: string, wire: unknown): ParsedArgs => {
  if (isRecord(wire)) return { args: wire, rawArgs: JSON.stringify(wire), repaired: "arguments came as a JSON object, not a string" };
  if (wire === undefined || wire === null) return { args: {}, rawArgs: "" };
  const raw = typeof wire === "string" ? wire : JSON.stringify(wire);
  if (raw.trim() === "") return { args: {}, rawArgs: raw };
  const parsed = tryParse(raw);
  if (parsed.ok) {
    const value = parsed.value;
    if (isRecord(value)) return { args: value, rawArgs: raw };
    if (typeof value === "string") {
      const inner = tryParse(value);
      if (inner.ok && isRecord(inner.value))
        return { args: inner.value, rawArgs: raw, repaired: "arguments were a JSON string holding the JSON (double-encoded)" };
    }
    const kind = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
    return { args: {}, rawArgs: raw, argsError: `${name}: arguments must be a JSON object, not ${kind} (got ${shown(raw)}); send one JSON object` };
  }
  const lead = leadingObject(raw.trim());
  if (lead && lead.rest.trim() !== "") {
    const value = tryParse(lead.json);
    if (value.ok && isRecord(value.value))
      return { args: value.value, rawArgs: raw, repaired: `text after the JSON arguments was dropped (got ${shown(lead.rest.trim())})` };
  }
  return { args: {}, rawArgs: raw, argsError: `${name}: arguments are not valid JSON, ${parsed.why} (got ${shown(raw)}); send one JSON object` };
};
