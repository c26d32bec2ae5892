import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "./jsonl.ts";
import { ShippedBank } from "./shipped-bank.ts";

/** One audit finding on one synthesised entry (agents/synthesiser-audit.ts AuditFlag, as stored). */
const Flag = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("missing_citation"), level: z.string(), id: z.string() }),
  z.object({ kind: z.literal("no_real_citation") }),
  z.object({ kind: z.literal("unknown_object"), name: z.string(), field: z.string() }),
  z.object({ kind: z.literal("invented_number"), value: z.string(), field: z.string() }),
  z.object({ kind: z.literal("weight_capped"), from: z.number(), to: z.number(), levels: z.array(z.string()) }),
]);

const TransferProvenance = z.object({
  target: z.string(),
  family: z.string(),
  createdAt: z.string(),
  sources: z.array(
    z.object({
      level: z.string(),
      from: z.string().describe("run directory or bank file"),
      entries: z.number().int(),
      shown: z.number().int().describe("entries put into the prompt"),
    }),
  ),
  synthesiser: z.object({ kind: z.enum(["llm", "heuristic"]), model: z.string().describe('the model name, or "heuristic (no LLM)"') }),
  promptHash: z.string().nullable().describe("sha256 of the synthesis messages; null for the heuristic synthesiser"),
  inputHash: z.string().describe("sha256 of the sources' banks and every description"),
  selection: z.string().describe("how source entries were picked: all, or Chroma's top-k for the target description"),
  audit: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(["skill", "mistake"]),
      text: z.string(),
      cites: z.array(z.object({ level: z.string(), id: z.string() })),
      dropped: z.boolean(),
      flags: z.array(Flag),
    }),
  ),
});

/**
 * A transferred bank (docs/spec/method.md §6): a shippable bank file (skills/ format, so `offline.banks` reads it; the
 * reader ignores `transfer`) with where it came from and its citation audit.
 */
export const TransferredBank = ShippedBank.extend({ transfer: TransferProvenance });
export type TransferredBank = z.infer<typeof TransferredBank>;

export const writeTransferredBank = (path: string, bank: TransferredBank): void => {
  const parsed = TransferredBank.parse(bank);
  mkdirSync(dirname(path), { recursive: true });
  writeJsonAtomic(path, parsed);
};
