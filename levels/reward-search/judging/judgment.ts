/**
 * One judgment of one recorded episode by one version of a code judge, as stored (judge-store.ts) and as a
 * report reads it: the score, the rules that applied, every node with its share and score, every leaf with
 * PASS / FAIL / SKIP and its checked result (tree-score.ts computes them).
 */
import { z } from "zod";
import { LeafTag, RunFaultTag } from "./leaf-result.ts";
import { NodeOrder } from "./criteria.ts";

const Unit = z.number().min(0).max(1);

const CheckedLeafSchema = z.strictObject({
  id: z.string(),
  value: z.union([z.number(), z.string(), z.boolean(), z.null()]),
  score: Unit,
  passed: z.boolean(),
  note: z.string().max(500),
  tags: z.array(LeafTag),
});

const NodeScoreSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  depth: z.number().int().min(1),
  share: Unit,
  score: Unit,
  contribution: Unit,
  skipped: z.boolean(),
  rule: z.string().optional(),
  order: NodeOrder.optional(),
  leaf: z.strictObject({ status: z.enum(["PASS", "FAIL", "SKIP"]), mustKeep: z.boolean(), result: CheckedLeafSchema }).optional(),
});

export const Judgment = z.strictObject({
  schemaVersion: z.literal(1),
  judge: z.strictObject({ id: z.string(), version: z.number().int().min(1), hash: z.string() }),
  trajectory: z.string(),
  score: Unit,
  sum: Unit,
  order: NodeOrder,
  fault: z.strictObject({ tag: RunFaultTag, message: z.string() }).optional(),
  rules: z.array(z.string()),
  nodes: z.array(NodeScoreSchema),
  extras: z.array(z.strictObject({ id: z.string().nullable(), note: z.string() })),
});
export type Judgment = z.infer<typeof Judgment>;
