import { bestOf, createBudget, fitnessOf, viewOf, type CandidateRecord, type SearchResult } from "./candidates.ts";
import { candidateRng, runBatch, type Planned } from "./batch.ts";
import type { RfAgentConfig } from "./config.ts";
import type { StrategyRun } from "./eureka.ts";
import type { SearchInstance } from "./evaluator.ts";
import type { CandidateView, Operator } from "./proposer.ts";
import { backupFrom, differentThoughtNodes, ELITE_SET_SIZE, expansionOperators, lambdaAt, rootNode, sampleElites, selectPath, type TreeNode } from "./tree.ts";

/**
 * RF-Agent's tree search (docs/spec/reward-search.md §8.4), exactly: every candidate is a node [thought, code, F, feedback];
 * selection walks down from the root by UCT with λ decaying (0.4 → 0.1 by default) over the budget; the
 * selected leaf is expanded with the five operators in shares [2, 2, 2, 1, 1], the cycle carried across
 * expansions so that any `children` runs all five; a code that fails the port's
 * check goes back to the proposer with its error, up to `debugTries` times, before it is evaluated (batch.ts);
 * every child self-evaluates its own thought and code (v_self) and is evaluated on its own code; after a
 * successful evaluation its thought is re-written from the code (thought alignment); then Q is backed up with
 * η (0.7 by default). The root has no code: its children are first designs (`initial`). A node whose evaluation
 * failed gets no Q and is never selected; it counts in the visits N (tree.ts `visits`).
 */

/** Offsets the first designs' random streams from eureka's (which uses the search seed's own). */
const INITIAL_STREAM = 7_919;

export interface RfAgentResult extends SearchResult {
  root: TreeNode;
}

export const runRfAgent = async <T, I extends SearchInstance>(run: StrategyRun<T, I>, c: RfAgentConfig): Promise<RfAgentResult> => {
  const { budget } = run;
  const b = createBudget({ task: run.task, instance: run.instance, budget, method: "rf-agent", ports: run.ports });
  const root = rootNode();
  const records = new Map<number, CandidateRecord>();
  const nodes = new Map<number, TreeNode>();
  const seen = new Set<string>();
  const view = (n: TreeNode): CandidateView => viewOf(records.get(n.index)!);

  const plan = (op: Operator, node: TreeNode, index: number, iteration: number): Planned<T, I> => {
    // The first designs draw from a stream of their own unless shared with eureka's (an ablation, §8.4).
    const rng = node.index < 0 && !c.sharedInitial ? candidateRng(run.seed + INITIAL_STREAM, index) : candidateRng(run.seed, index);
    const base = { task: run.task, instance: run.instance, index, seen, rng };
    if (node.index < 0) return { index, iteration, operator: "initial", parent: null, related: [], ctx: base };
    const parent = view(node);
    const ctx = { ...base, parent };
    switch (op) {
      case "crossover": {
        // The parent and 1–3 more (k ∈ [2, 4] in all), drawn without replacement with weight 1/rank from the
        // elite set, the best ELITE_SET_SIZE trained nodes, less the parent.
        const elite = [...records.values()]
          .filter((r) => fitnessOf(r) !== null)
          .sort((a, b) => fitnessOf(b)! - fitnessOf(a)! || a.index - b.index)
          .slice(0, ELITE_SET_SIZE)
          .filter((r) => r.index !== node.index);
        const k = rng.integers(2, 5);
        const picks = sampleElites(elite.length, k - 1, rng).map((i) => elite[i]!);
        return {
          index,
          iteration,
          operator: op,
          parent: node.index,
          related: picks.map((r) => r.index),
          ctx: { ...ctx, elites: [parent, ...picks.map(viewOf)] },
        };
      }
      case "path": {
        const line: TreeNode[] = [];
        for (let x: TreeNode | null = node; x && x.index >= 0 && line.length < 4; x = x.parent) line.push(x);
        return { index, iteration, operator: op, parent: node.index, related: line.slice(1).map((x) => x.index), ctx: { ...ctx, ancestors: line.map(view) } };
      }
      case "different": {
        const others = differentThoughtNodes(node, rng);
        return { index, iteration, operator: op, parent: node.index, related: others.map((x) => x.index), ctx: { ...ctx, others: others.map(view) } };
      }
      default:
        return { index, iteration, operator: op, parent: node.index, related: [], ctx };
    }
  };

  let next = 0;
  // Expansion children made so far: the operator cycle goes on from there (tree.ts `expansionOperators`).
  let expanded = 0;
  for (let iteration = 0; next < budget; iteration++) {
    // A resumed expansion grows where the log grew it: a log written under other selection rules (an older
    // hexa) resumes with its tree as it was, and the rest of the search follows the current rules.
    const logged = b.logged(next)?.parent;
    const node = logged != null && nodes.has(logged) ? nodes.get(logged)! : selectPath(root, lambdaAt(next, budget, c.lambdaStart, c.lambdaEnd)).at(-1)!;
    const n = Math.min(node.index < 0 ? c.initial : c.children, budget - next);
    const ops: Operator[] = node.index < 0 ? Array.from({ length: n }, () => "initial") : expansionOperators(n, expanded);
    // A logged child keeps the operator the log gave it (a log written when each expansion restarted the cycle).
    const planned = ops.map((op, j) => plan(node.index < 0 ? op : (b.logged(next + j)?.operator ?? op), node, next + j, iteration));
    const got = (
      await runBatch(b, run.proposer, "rf-agent", planned, seen, { selfEvaluate: true, align: true, redebug: { check: run.ports.check, tries: c.debugTries } })
    ).sort((a, b) => a.index - b.index);
    for (const r of got) {
      records.set(r.index, r);
      const f = fitnessOf(r);
      const child: TreeNode = { index: r.index, parent: node, children: [], fitness: f, q: f, vSelf: r.vSelf ?? 0 };
      node.children.push(child);
      nodes.set(r.index, child);
    }
    backupFrom(node, c.eta);
    if (node.index >= 0) expanded += n;
    next += n;
  }
  const all = [...records.values()].sort((a, b) => a.index - b.index);
  return { strategy: "rf-agent", candidates: all, best: bestOf(all), budget, replayed: b.replayedCount, evaluations: b.evaluations, root };
};
