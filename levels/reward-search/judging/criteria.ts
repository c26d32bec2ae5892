/**
 * A code judge's decomposition of an intent, as data (docs/guides/judging.md, "The criteria tree"): groups whose
 * children run in order (`1 -> 2`, sequential) or side by side (`(1, 2)`, independent), nested by id (`1.1` is a
 * child of `1`), and leaves that say what is measured, what value passes and how partial credit grows. The model
 * writes it (JSON, or Prompt-to-Policy's notation: notation.ts); hexa parses it here and scores it (tree-score.ts).
 */
import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { valueAt } from "../../../src/util/value-at.ts";

/** Bounds on what a model may write: the tree must fit in a prompt and a report. */
const CRITERIA_LIMITS = { maxLeaves: 64, maxDepth: 4, maxChildren: 16, maxText: 500, maxName: 120 } as const;

export const NodeOrder = z.enum(["sequential", "independent"]);
export type NodeOrder = z.infer<typeof NodeOrder>;

const NodeId = z
  .string()
  .regex(/^[1-9]\d{0,2}(\.[1-9]\d{0,2}){0,3}$/, "must be dotted positive numbers such as 1, 2 or 1.1 (at most 4 levels)")
  .describe("the node's number: top-level 1, 2, …; a child of 1 is 1.1, 1.2, …");
const Weight = z.number().min(0).max(1e6).optional().describe("relative weight among its siblings (normalised); omitted: siblings share equally");
const Text = (max: number) => z.string().trim().min(1).max(max);

export const CriteriaLeaf = z.strictObject({
  id: NodeId,
  name: Text(CRITERIA_LIMITS.maxName),
  weight: Weight,
  metric: Text(CRITERIA_LIMITS.maxText).describe("what is measured, from which trajectory data"),
  threshold: Text(CRITERIA_LIMITS.maxText).describe("the value that passes (full credit)"),
  partial: Text(CRITERIA_LIMITS.maxText).describe("how the score grows below the threshold"),
  mustKeep: z.boolean().default(false).describe("if this leaf does not pass, the whole behaviour scores 0"),
});
export type CriteriaLeaf = z.infer<typeof CriteriaLeaf>;
const LEAF_FIELDS = Object.keys(CriteriaLeaf.shape).join(", ");

export interface CriteriaGroup {
  id: string;
  name: string;
  weight?: number | undefined;
  order: NodeOrder;
  children: CriteriaNode[];
}
export type CriteriaNode = CriteriaLeaf | CriteriaGroup;

export const CriteriaGroup: z.ZodType<CriteriaGroup> = z.strictObject({
  id: NodeId,
  name: Text(CRITERIA_LIMITS.maxName),
  weight: Weight,
  order: NodeOrder,
  get children() {
    return z.array(CriteriaNode).min(1).max(CRITERIA_LIMITS.maxChildren);
  },
});

/** A node is a group when it has `children`, else a leaf. */
export const CriteriaNode: z.ZodType<CriteriaNode> = z.lazy(() => z.union([CriteriaGroup, CriteriaLeaf]));

export const CriteriaTree = z.strictObject({
  version: z.literal(1).default(1),
  order: NodeOrder.describe("how the top-level nodes relate: sequential (1 -> 2) or independent ((1, 2))"),
  children: z.array(CriteriaNode).min(1).max(CRITERIA_LIMITS.maxChildren),
  definitions: z.string().max(4000).optional().describe("the short names the metrics use and where each is read from"),
});
export type CriteriaTree = z.infer<typeof CriteriaTree>;

export const isGroup = (n: CriteriaNode): n is CriteriaGroup => "children" in n;

/** Every leaf of the tree, in reading order. */
export const leavesOf = (nodes: readonly CriteriaNode[]): CriteriaLeaf[] => nodes.flatMap((n) => (isGroup(n) ? leavesOf(n.children) : [n]));

/**
 * Parse a criteria tree a model wrote (a JSON text or a parsed value). A bad tree is a ModelOutputError naming
 * the field (`children[1].children[0].threshold: …`), the value and what to write instead.
 */
export function parseCriteria(input: unknown): CriteriaTree {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (e) {
      throw new ModelOutputError(`criteria: not JSON (${(e as Error).message}); write one JSON object { order, children: [...] }`);
    }
  }
  const parsed = CriteriaTree.safeParse(value);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues, value);
    const fix = issue.code === "unrecognized_keys" ? `; a leaf has ${LEAF_FIELDS}, a group id, name, weight, order, children` : gotText(value, issue.path);
    throw new ModelOutputError(`criteria.${pathText(issue.path)}: ${issue.message}${fix}`);
  }
  checkStructure(parsed.data);
  return parsed.data;
}

type Issue = z.core.$ZodIssue;

/** The first issue, looking into a node's union through the branch the value meant: a group if it has children. */
function firstIssue(issues: readonly Issue[], root: unknown, prefix: readonly PropertyKey[] = []): Issue {
  const i = issues[0]!;
  const path = [...prefix, ...i.path];
  if (i.code !== "invalid_union" || i.errors.length !== 2) return { ...i, path } as Issue;
  const v = valueAt(root, path);
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { ...i, path, message: "must be an object (a group with children, or a leaf)" } as Issue;
  return firstIssue(i.errors["children" in v ? 0 : 1]!, root, path);
}

const pathText = (path: readonly PropertyKey[]): string =>
  path.map((p, k) => (typeof p === "number" ? `[${p}]` : `${k > 0 ? "." : ""}${String(p)}`)).join("") || "(root)";

function gotText(root: unknown, path: readonly PropertyKey[]): string {
  const v = valueAt(root, path);
  if (v === undefined) return " (missing)";
  const text = JSON.stringify(v) ?? String(v);
  return ` (got ${text.length > 80 ? `${text.slice(0, 77)}...` : text})`;
}

/** Ids follow the nesting, each once; depth, leaf count and sibling weights within bounds. */
function checkStructure(tree: CriteriaTree): void {
  const seen = new Set<string>();
  const walk = (nodes: readonly CriteriaNode[], parent: string | null, path: string, depth: number) => {
    if (depth > CRITERIA_LIMITS.maxDepth)
      throw new ModelOutputError(`criteria.${path}: nested deeper than ${CRITERIA_LIMITS.maxDepth} levels; flatten the tree`);
    const weights = nodes.map((n) => n.weight);
    if (weights.every((w) => w === 0))
      throw new ModelOutputError(`criteria.${path}: every weight is 0; give at least one node a positive weight, or omit the weights to share equally`);
    nodes.forEach((n, k) => {
      const at = `${path}[${k}]`;
      const want = parent === null ? /^\d+$/ : new RegExp(`^${parent.replaceAll(".", "\\.")}\\.\\d+$`);
      if (!want.test(n.id))
        throw new ModelOutputError(
          `criteria.${at}.id: ${JSON.stringify(n.id)} is not ${parent === null ? "a top-level id (1, 2, …)" : `a child id of ${parent} (${parent}.1, ${parent}.2, …)`}`,
        );
      if (seen.has(n.id)) throw new ModelOutputError(`criteria.${at}.id: ${JSON.stringify(n.id)} is used twice; number each node once`);
      seen.add(n.id);
      if (isGroup(n)) walk(n.children, n.id, `${at}.children`, depth + 1);
    });
  };
  walk(tree.children, null, "children", 1);
  const leaves = leavesOf(tree.children).length;
  if (leaves > CRITERIA_LIMITS.maxLeaves) throw new ModelOutputError(`criteria: ${leaves} leaves, more than ${CRITERIA_LIMITS.maxLeaves}; merge criteria`);
}
