import type { Rng } from "../util/rng.ts";
import { EXPANSION_OPERATORS, type ExpansionOperator } from "./proposer.ts";

/**
 * RF-Agent's tree-search arithmetic (docs/spec/reward-search.md §8.4), as pure functions of their inputs:
 *   UCT = (Q − Q_min)/(Q_max − Q_min) + λ · ( √(2 ln(N_parent + 1) / N_child) + softmax(v_self) )
 *   λ from 0.4 decaying linearly to 0.1 over the budget;  backup Q ← (1 − η) Q + η · max_child Q, η = 0.7
 *   (RF-Agent's values; config.ts makes λ's ends and η knobs with these defaults);
 *   expansion operators in shares [2, 2, 2, 1, 1]; crossover elites drawn with weight 1/rank from the top
 *   ELITE_SET_SIZE (10); N(s) = Σ N(children), every evaluated node counting 1 (`visits`).
 */

export const LAMBDA_START = 0.4;
export const LAMBDA_END = 0.1;
export const ETA = 0.7;
/** RF-Agent's elite set: the best 10 nodes by F, from which crossover draws with weight 1/rank. */
export const ELITE_SET_SIZE = 10;

/** λ after `used` of `budget` candidates: `start` (0.4) at the start, `end` (0.1) when the budget is spent, linear between. */
export const lambdaAt = (used: number, budget: number, start = LAMBDA_START, end = LAMBDA_END): number => {
  const t = budget <= 0 ? 1 : Math.min(1, Math.max(0, used / budget));
  return start + (end - start) * t;
};

/** Softmax of a list of self-evaluations (siblings' v_self), max-shifted for stability. */
export const softmax = (xs: readonly number[]): number[] => {
  if (xs.length === 0) return [];
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
};

/** Min–max normalised Q; 0.5 when every Q in the tree is the same (no information either way). */
const normalisedQ = (q: number, qMin: number, qMax: number): number => (qMax > qMin ? (q - qMin) / (qMax - qMin) : 0.5);

/** One child's UCT: `softV` is softmax(v_self) of this child among its siblings. */
export const uct = (a: { q: number; qMin: number; qMax: number; nParent: number; nChild: number; softV: number; lambda: number }): number =>
  normalisedQ(a.q, a.qMin, a.qMax) + a.lambda * (Math.sqrt((2 * Math.log(a.nParent + 1)) / a.nChild) + a.softV);

/** One backup step: Q ← (1 − η) Q + η · max over the children's Q (unchanged when no child has a Q). */
export const backup = (q: number, childQs: readonly number[], eta = ETA): number => (childQs.length ? (1 - eta) * q + eta * Math.max(...childQs) : q);

/**
 * The operators of an expansion of `n` children: the shares [2, 2, 2, 1, 1] of one 8-child expansion, in the
 * interleaved order structural, parameter, crossover, path, structural, parameter, crossover, different, so a
 * smaller expansion (the end of the budget) still mixes operators; `n` > 8 repeats the cycle. `done`, the
 * expansion children made before, carries the cycle across expansions, so every `children` runs all five.
 */
const OPERATOR_CYCLE: readonly ExpansionOperator[] = ["structural", "parameter", "crossover", "path", "structural", "parameter", "crossover", "different"];

/** How many of each operator a list holds, in the order of OPERATOR_SHARES. */
export const operatorCounts = (ops: readonly ExpansionOperator[]): number[] => EXPANSION_OPERATORS.map((o) => ops.filter((x) => x === o).length);

export const expansionOperators = (n: number, done = 0): ExpansionOperator[] =>
  Array.from({ length: n }, (_, i) => OPERATOR_CYCLE[(done + i) % OPERATOR_CYCLE.length]!);

/**
 * k elites drawn without replacement from candidates ranked best first (rank 1 = index 0), each draw with
 * probability ∝ 1/rank among those left. Returns the chosen positions in the ranked list.
 */
export const sampleElites = (ranked: number, k: number, rng: Rng): number[] => {
  const left = Array.from({ length: ranked }, (_, i) => i);
  const out: number[] = [];
  while (out.length < Math.min(k, ranked)) {
    const w = left.map((i) => 1 / (i + 1));
    let r = rng.random() * w.reduce((a, b) => a + b, 0);
    let pick = left.length - 1;
    for (let j = 0; j < left.length; j++) {
      r -= w[j]!;
      if (r < 0) {
        pick = j;
        break;
      }
    }
    out.push(left[pick]!);
    left.splice(pick, 1);
  }
  return out;
};

/** The probability of each rank being the first elite drawn: (1/rank) / Σ 1/rank. */
export const eliteWeights = (ranked: number): number[] => {
  const w = Array.from({ length: ranked }, (_, i) => 1 / (i + 1));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
};

// ---- the tree ---------------------------------------------------------------------------------------------

export interface TreeNode {
  /** The candidate's index (its line in candidates.jsonl); -1 for the root, which has no reward. */
  index: number;
  parent: TreeNode | null;
  children: TreeNode[];
  /** The node's own final-policy F; null when its training failed (it is then never selected). */
  fitness: number | null;
  /** Q: starts at F and is backed up from the children. */
  q: number | null;
  vSelf: number;
}

export const rootNode = (): TreeNode => ({ index: -1, parent: null, children: [], fitness: null, q: null, vSelf: 0 });

/**
 * N(s), RF-Agent's visit count: the evaluations made in s's subtree. Every evaluated node (a failed one too:
 * its training was spent) counts 1 for itself and for each of its ancestors, so N(s) = [s evaluated] + Σ N(children);
 * the root, which has no reward, has N = Σ N(children), every node of the tree. Selection passes count nothing.
 */
export const visits = (node: TreeNode): number => node.children.reduce((n, c) => n + visits(c), node.index >= 0 ? 1 : 0);

/** Every node under `root` (the root excluded), in creation order within each level. */
const allNodes = (root: TreeNode): TreeNode[] => root.children.flatMap((c) => [c, ...allNodes(c)]);

/** The UCT score of each child of `parent` that can be selected (trained successfully), with the tree's Q range. */
export const childScores = (parent: TreeNode, qRange: { min: number; max: number }, lambda: number): Array<{ node: TreeNode; score: number }> => {
  const live = parent.children.filter((c) => c.q !== null);
  const soft = softmax(live.map((c) => c.vSelf));
  const nParent = visits(parent);
  return live.map((c, i) => ({
    node: c,
    score: uct({ q: c.q!, qMin: qRange.min, qMax: qRange.max, nParent, nChild: visits(c), softV: soft[i]!, lambda }),
  }));
};

/**
 * Selection: from the root, the child with the highest UCT (the first on a tie) until a node with no live
 * child (a leaf, or a node whose children all failed). Returns the path, root first.
 */
export const selectPath = (root: TreeNode, lambda: number): TreeNode[] => {
  const qs = allNodes(root).flatMap((x) => (x.q === null ? [] : [x.q]));
  const range = { min: Math.min(...qs), max: Math.max(...qs) };
  const path = [root];
  for (;;) {
    const here = path.at(-1)!;
    const scored = childScores(here, range, lambda);
    if (scored.length === 0) return path;
    let best = scored[0]!;
    for (const s of scored) if (s.score > best.score) best = s;
    path.push(best.node);
  }
};

/** Backup after an expansion of `node`: from it up to the root's children, Q ← (1 − η) Q + η · max child Q. */
export const backupFrom = (node: TreeNode, eta = ETA): void => {
  for (let x: TreeNode | null = node; x && x.index >= 0; x = x.parent) {
    if (x.q === null) continue;
    x.q = backup(
      x.q,
      x.children.flatMap((c) => (c.q === null ? [] : [c.q])),
      eta,
    );
  }
};

/** The root's child whose subtree holds `node` (its branch). */
const branchOf = (node: TreeNode): TreeNode => {
  let x = node;
  while (x.parent && x.parent.index >= 0) x = x.parent;
  return x;
};

/** Edges from `node` down to its deepest descendant (0 for a leaf). */
export const height = (node: TreeNode): number => node.children.reduce((h, c) => Math.max(h, 1 + height(c)), 0);

/** The child with the highest own F (the first on a tie); undefined when no child trained successfully. */
const bestChild = (node: TreeNode): TreeNode | undefined => {
  let best: TreeNode | undefined;
  for (const c of node.children) if (c.fitness !== null && (!best || c.fitness > best.fitness!)) best = c;
  return best;
};

/**
 * RF-Agent's "different thought" references for an expansion of `node`: 1–3 (drawn uniformly) of the other
 * branches — the root's trained children other than `node`'s own branch — drawn without replacement; in each, a
 * depth d drawn uniformly from 0 to the branch's height, then the walk down from its top by the child with the
 * best own F, d steps or until no child trained. Returns the nodes reached, in the order drawn.
 */
export const differentThoughtNodes = (node: TreeNode, rng: Rng): TreeNode[] => {
  const mine = branchOf(node);
  let root = node;
  while (root.parent) root = root.parent;
  const others = root.children.filter((c) => c !== mine && c.fitness !== null);
  const k = Math.min(rng.integers(1, 4), others.length);
  const out: TreeNode[] = [];
  for (let i = 0; i < k; i++) {
    const [branch] = others.splice(rng.integers(0, others.length), 1);
    let at = branch!;
    for (let d = rng.integers(0, height(at) + 1); d > 0; d--) {
      const next = bestChild(at);
      if (!next) break;
      at = next;
    }
    out.push(at);
  }
  return out;
};
