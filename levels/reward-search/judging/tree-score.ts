/**
 * The score of a criteria tree from its leaves' results, computed by hexa and never by the judge's code
 * (docs/guides/judging.md, "Scoring rules"):
 * - weights are normalised among siblings (omitted: equal shares); a node's share of the root is its parent's
 *   share times its normalised weight, and a group's score is the share-weighted mean of its children's;
 * - in a sequential group a child counts only if the child before it counted and reached more than 50 % of its
 *   weight (score > 0.5); otherwise it and every leaf under it is SKIP and adds nothing;
 * - a must-keep leaf that does not PASS (failed, skipped or unusable) makes the whole behaviour score 0.
 */
import { type CriteriaLeaf, type CriteriaNode, type CriteriaTree, isGroup, leavesOf, type NodeOrder } from "./criteria.ts";
import { type CheckedLeaf, checkLeaf, failedLeaf, resultId, type RunFaultTag } from "./leaf-result.ts";

const GATE_FRACTION = 0.5;

type LeafStatus = "PASS" | "FAIL" | "SKIP";

export interface NodeScore {
  id: string;
  name: string;
  /** 1 for top-level nodes. */
  depth: number;
  /** The node's weight as a share of the whole score (siblings' shares sum to their parent's). */
  share: number;
  /** The node's own score in [0, 1]: a leaf's checked score, a group's share-weighted mean (0 when skipped). */
  score: number;
  /** What it adds to the root: score × share, 0 when skipped. */
  contribution: number;
  skipped: boolean;
  /** The rule that set this node's score, when one did (gate, equal shares). */
  rule?: string;
  /** Groups: how their children relate. */
  order?: NodeOrder;
  /** Leaves: status and the checked result. */
  leaf?: { status: LeafStatus; mustKeep: boolean; result: CheckedLeaf };
}

export interface TreeScore {
  /** The behaviour's score in [0, 1]. */
  score: number;
  /** The sum of contributions before the must-keep rule. */
  sum: number;
  /** How the top-level nodes relate. */
  order: NodeOrder;
  /** Rules that applied to the whole (must-keep failures, a run fault), in words. */
  rules: string[];
  /** Every node, in reading order (a group before its children). */
  nodes: NodeScore[];
  /** Results for ids the tree does not have, or with no usable id: ignored. */
  extras: { id: string | null; note: string }[];
}

export interface ScoreOptions {
  /** The run of the judge's code failed as a whole: every leaf scores 0 with this tag. */
  fault?: { tag: RunFaultTag; message: string };
}

/** Score a tree from raw leaf results (`{ id, value, score, passed, note }`, untrusted: checked here). */
export function scoreTree(tree: CriteriaTree, results: readonly unknown[], options: ScoreOptions = {}): TreeScore {
  const { checked, extras } = matchResults(tree, results, options.fault);
  const nodes: NodeScore[] = [];
  const top = scoreChildren(tree.children, tree.order, 1, 1, "the top level", checked, nodes);
  const sum = clamp01(top.sum);
  const rules = options.fault ? [`the judge's code failed (${options.fault.tag}): ${options.fault.message}; every leaf scores 0`] : [];
  const broken = nodes.filter((n) => n.leaf?.mustKeep && n.leaf.status !== "PASS");
  for (const n of broken) rules.push(`must-keep leaf ${n.id} (${n.name}) is ${n.leaf!.status}: the behaviour scores 0`);
  return { score: broken.length > 0 ? 0 : sum, sum, order: tree.order, rules, nodes, extras };
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Each leaf's checked result (missing, duplicate or the run's fault when there is none to use), and the extras. */
function matchResults(tree: CriteriaTree, results: readonly unknown[], fault: ScoreOptions["fault"]) {
  const leaves = new Set(leavesOf(tree.children).map((l) => l.id));
  const byId = new Map<string, Record<string, unknown>[]>();
  const extras: TreeScore["extras"] = [];
  for (const r of fault ? [] : results) {
    const id = resultId(r);
    if (id === null) extras.push({ id: null, note: 'a result with no usable id (a string such as "1.2")' });
    else if (!leaves.has(id)) extras.push({ id, note: "no leaf of the tree has this id" });
    else byId.set(id, [...(byId.get(id) ?? []), r as Record<string, unknown>]);
  }
  const checked = new Map<string, CheckedLeaf>();
  for (const id of leaves) {
    const found = byId.get(id) ?? [];
    checked.set(
      id,
      fault
        ? failedLeaf(id, fault.tag, fault.message)
        : found.length === 0
          ? failedLeaf(id, "missing", "the judge's code returned no result for this leaf")
          : found.length > 1
            ? failedLeaf(id, "duplicate", `the judge's code returned ${found.length} results for this leaf`)
            : checkLeaf(id, found[0]!),
    );
  }
  return { checked, extras };
}

/** Normalised weights of siblings; all zero (only from a tree built without parseCriteria) shares equally. */
function sharesOf(children: readonly CriteriaNode[]): { shares: number[]; equal: boolean } {
  const w = children.map((c) => c.weight ?? 1);
  const total = w.reduce((a, b) => a + b, 0);
  if (!(total > 0) || !Number.isFinite(total)) return { shares: children.map(() => 1 / children.length), equal: true };
  return { shares: w.map((x) => x / total), equal: false };
}

/** Score siblings into `out` (reading order); returns the sum of their contributions and their share-weighted score. */
function scoreChildren(
  children: readonly CriteriaNode[],
  order: NodeOrder,
  parentShare: number,
  depth: number,
  where: string,
  checked: ReadonlyMap<string, CheckedLeaf>,
  out: NodeScore[],
  skipped = false,
): { sum: number; score: number } {
  const { shares, equal } = sharesOf(children);
  let sum = 0;
  let score = 0;
  let gate: { skip: boolean; why?: string } = { skip: skipped };
  children.forEach((child, k) => {
    const node = scoreNode(child, parentShare * shares[k]!, depth, checked, out, gate.skip);
    if (equal && k === 0) node.rule = `weights of ${where} are all 0: shared equally`;
    if (gate.skip && !skipped && gate.why) node.rule = gate.why;
    sum += node.contribution;
    score += shares[k]! * node.score;
    if (order === "sequential" && !gate.skip && node.score <= GATE_FRACTION) {
      gate = { skip: true, why: `gated by ${child.id}: its score ${node.score.toFixed(3)} is not above ${GATE_FRACTION * 100} % of its weight` };
    }
  });
  return { sum, score };
}

function scoreNode(n: CriteriaNode, share: number, depth: number, checked: ReadonlyMap<string, CheckedLeaf>, out: NodeScore[], skipped: boolean): NodeScore {
  const base = { id: n.id, name: n.name, depth, share, skipped };
  if (!isGroup(n)) {
    const node = leafScore(n, base, checked.get(n.id)!);
    out.push(node);
    return node;
  }
  const node: NodeScore = { ...base, score: 0, contribution: 0, order: n.order };
  out.push(node);
  const inner = scoreChildren(n.children, n.order, share, depth + 1, `the children of ${n.id}`, checked, out, skipped);
  if (!skipped) Object.assign(node, { score: clamp01(inner.score), contribution: inner.sum });
  return node;
}

function leafScore(n: CriteriaLeaf, base: Omit<NodeScore, "score" | "contribution">, result: CheckedLeaf): NodeScore {
  const status: LeafStatus = base.skipped ? "SKIP" : result.passed ? "PASS" : "FAIL";
  const score = base.skipped ? 0 : result.score;
  return { ...base, score, contribution: score * base.share, leaf: { status, mustKeep: n.mustKeep, result } };
}
