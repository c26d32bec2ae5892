import { describe, expect, it } from "vitest";
import type { Rng } from "../util/rng.ts";
import {
  backup,
  backupFrom,
  childScores,
  differentThoughtNodes,
  eliteWeights,
  height,
  expansionOperators,
  lambdaAt,
  operatorCounts,
  rootNode,
  sampleElites,
  selectPath,
  softmax,
  uct,
  visits,
  type TreeNode,
} from "./tree.ts";

/** An rng whose random() plays back the given numbers. */
const scripted = (xs: number[]): Rng => {
  let i = 0;
  const random = () => xs[i++ % xs.length]!;
  return {
    random,
    uniform: (a, b) => a + (b - a) * random(),
    integers: (a, b) => a + Math.floor((b - a) * random()),
    choice: (items) => items[0]!,
    normal: () => 0,
  };
};

const node = (index: number, parent: TreeNode, fitness: number | null, vSelf = 0): TreeNode => {
  const n: TreeNode = { index, parent, children: [], fitness, q: fitness, vSelf };
  parent.children.push(n);
  return n;
};

describe("RF-Agent arithmetic, values computed by hand", () => {
  it("UCT = (Q − Q_min)/(Q_max − Q_min) + λ (√(2 ln(N_parent + 1)/N_child) + softmax(v_self))", () => {
    // (5 − 0)/10 = 0.5; √(2 ln 4 / 1) = √2.772589 = 1.665109; 0.5 + 0.4 (1.665109 + 0.5) = 1.366044
    expect(uct({ q: 5, qMin: 0, qMax: 10, nParent: 3, nChild: 1, softV: 0.5, lambda: 0.4 })).toBeCloseTo(1.366044, 5);
    // (8 − 2)/(10 − 2) = 0.75; √(2 ln 8 / 4) = √1.039721 = 1.019667; 0.75 + 0.1 (1.019667 + 0.2) = 0.871967
    expect(uct({ q: 8, qMin: 2, qMax: 10, nParent: 7, nChild: 4, softV: 0.2, lambda: 0.1 })).toBeCloseTo(0.871967, 5);
    // every Q equal: the normalised term is 0.5
    expect(uct({ q: 3, qMin: 3, qMax: 3, nParent: 1, nChild: 1, softV: 0, lambda: 0 })).toBe(0.5);
  });

  it("softmax of the siblings' v_self", () => {
    expect(softmax([0, 0])).toEqual([0.5, 0.5]);
    const [a, b] = softmax([1, -1]);
    expect(a).toBeCloseTo(Math.E / (Math.E + 1 / Math.E), 12); // 0.880797
    expect(a).toBeCloseTo(0.880797, 5);
    expect(b).toBeCloseTo(0.119203, 5);
  });

  it("λ decays linearly from 0.4 to 0.1 over the budget", () => {
    expect(lambdaAt(0, 16)).toBeCloseTo(0.4, 12);
    expect(lambdaAt(4, 16)).toBeCloseTo(0.325, 12);
    expect(lambdaAt(8, 16)).toBeCloseTo(0.25, 12);
    expect(lambdaAt(16, 16)).toBeCloseTo(0.1, 12);
    expect(lambdaAt(20, 16)).toBeCloseTo(0.1, 12);
  });

  it("backup Q ← (1 − η) Q + η · max_child Q with η = 0.7", () => {
    expect(backup(2, [4, 6])).toBeCloseTo(0.3 * 2 + 0.7 * 6, 12); // 4.8
    expect(backup(2, [])).toBe(2);
    expect(backup(10, [1], 0.5)).toBe(5.5);
  });

  it("operator shares [2, 2, 2, 1, 1] in an expansion of 8, interleaved for smaller ones", () => {
    expect(operatorCounts(expansionOperators(8))).toEqual([2, 2, 2, 1, 1]);
    expect(operatorCounts(expansionOperators(16))).toEqual([4, 4, 4, 2, 2]);
    expect(expansionOperators(5)).toEqual(["structural", "parameter", "crossover", "path", "structural"]);
    expect(expansionOperators(8).at(-1)).toBe("different");
  });

  it("elites drawn with weight 1/rank, without replacement", () => {
    // ranks 1, 2, 3: weights 1, 1/2, 1/3 of 11/6 → 6/11, 3/11, 2/11
    const w = eliteWeights(3);
    expect(w[0]).toBeCloseTo(6 / 11, 12);
    expect(w[1]).toBeCloseTo(3 / 11, 12);
    expect(w[2]).toBeCloseTo(2 / 11, 12);
    // draw 1: r = 0.7 · 11/6 = 1.2833 − 1 = 0.2833 − 0.5 < 0 → rank 2 (position 1);
    // draw 2 among ranks 1, 3: r = 0.9 · (1 + 1/3) = 1.2 − 1 = 0.2 − 1/3 < 0 → rank 3 (position 2)
    expect(sampleElites(3, 2, scripted([0.7, 0.9]))).toEqual([1, 2]);
    expect(sampleElites(3, 1, scripted([0.1]))).toEqual([0]);
    expect(sampleElites(2, 4, scripted([0.99, 0.5]))).toEqual([1, 0]);
  });

  it("visits: N(s) = Σ N(children), each evaluated node counting 1, a failed one too", () => {
    // root ─ A ─ A1 ─ A1a (failed)
    //          ─ A2
    //      ─ B (failed)
    const root = rootNode();
    const a = node(0, root, 1);
    const b = node(1, root, null);
    const a1 = node(2, a, 1);
    node(3, a, 1);
    const a1a = node(4, a1, null);
    expect([visits(a1a), visits(a1), visits(a), visits(b), visits(root)]).toEqual([1, 2, 4, 1, 5]);
    // selections that end at A add nothing: only evaluated nodes count
    selectPath(root, 0.4);
    selectPath(root, 0.4);
    expect(visits(root)).toBe(5);
  });

  it("selection and backup on a known tree, with the exact UCT values", () => {
    // root ─ A (F 10, v 0.5) ─ A1 (F 2), A2 (F 6)
    //      ─ B (F 4, v −0.5)
    //      ─ C (failed: no Q, never selected, but one evaluation in N(root))
    const root = rootNode();
    const a = node(0, root, 10, 0.5);
    const b = node(1, root, 4, -0.5);
    node(2, root, null, 1);
    node(3, a, 2);
    const a2 = node(4, a, 6);
    backupFrom(a);
    expect(a.q).toBeCloseTo(0.3 * 10 + 0.7 * 6, 12); // 7.2
    expect(b.q).toBe(4);
    // N(root) = 3 + 1 + 1 = 5, N(A) = 3, N(B) = 1. Q range {7.2, 4, 2, 6}: [2, 7.2]. softmax(0.5, −0.5) = 0.731059, 0.268941.
    // A: (7.2 − 2)/5.2 = 1 + 0.4 (√(2 ln 6 / 3) = 1.092935 + 0.731059) = 1.729597
    // B: 2/5.2 = 0.384615 + 0.4 (√(2 ln 6 / 1) = 1.893012 + 0.268941) = 1.249399
    const range = { min: 2, max: 7.2 };
    const top = childScores(root, range, 0.4);
    expect(top.map((x) => x.node.index)).toEqual([0, 1]);
    expect(top[0]!.score).toBeCloseTo(1.729597, 5);
    expect(top[1]!.score).toBeCloseTo(1.249399, 5);
    // under A (N 3): A1: 0 + 0.4 (√(2 ln 4) = 1.665109 + 0.5) = 0.866044; A2: 4/5.2 = 0.769231 + 0.866044 = 1.635274 → A2
    const under = childScores(a, range, 0.4);
    expect(under[0]!.score).toBeCloseTo(0.866044, 5);
    expect(under[1]!.score).toBeCloseTo(1.635274, 5);
    expect(selectPath(root, 0.4).map((x) => x.index)).toEqual([-1, 0, 4]);
    expect(a2.children).toEqual([]);
    // After A2 is expanded with a poor child, A2's Q drops to 0.3 · 6 + 0.7 · 0 = 1.8 and A's to 0.3 · 7.2 + 0.7 · 2 = 3.56.
    node(5, a2, 0);
    backupFrom(a2);
    expect(a2.q).toBeCloseTo(1.8, 12);
    expect(a.q).toBeCloseTo(3.56, 12);
    // Q range {3.56, 4, 2, 1.8, 0}: [0, 4]; N(root) 6, N(A) 4, N(B) 1:
    // A: 3.56/4 = 0.89 + 0.4 (√(2 ln 7 / 4) = 0.986385 + 0.731059) = 1.576977; B: 1 + 0.4 (√(2 ln 7) = 1.972769 + 0.268941) = 1.896684 → B, a leaf.
    const again = childScores(root, { min: 0, max: 4 }, 0.4);
    expect(again[0]!.score).toBeCloseTo(1.576977, 5);
    expect(again[1]!.score).toBeCloseTo(1.896684, 5);
    expect(selectPath(root, 0.4).map((x) => x.index)).toEqual([-1, 1]);
  });

  it("different thought: 1–3 other branches drawn without replacement, each walked down by the best child to a random depth", () => {
    // root ─ A ─ A1            (the node expanded: A1, branch A)
    //      ─ B ─ B1 (F 1)
    //          ─ B2 (F 5) ─ B2a (F 3)
    //                     ─ B2b (failed)
    //      ─ C (failed: not a branch to draw)
    //      ─ D (F 2, a leaf)
    const root = rootNode();
    const a = node(0, root, 1);
    const b = node(1, root, 1);
    node(2, root, null);
    const d = node(3, root, 2);
    const a1 = node(4, a, 1);
    node(5, b, 1);
    const b2 = node(6, b, 5);
    const b2a = node(7, b2, 3);
    node(8, b2, null);
    expect([height(b), height(d), height(root)]).toEqual([2, 0, 3]);
    // k = 1 + ⌊3 · 0.7⌋ = 3, capped at the 2 other live branches [B, D]; pick ⌊2 · 0.9⌋ = 1 → D, depth ⌊1 · 0.5⌋ = 0 → D;
    // then [B]: pick 0 → B, depth ⌊3 · 0.99⌋ = 2 → B2 (best of B1 1, B2 5) → B2a (B2b failed).
    expect(differentThoughtNodes(a1, scripted([0.7, 0.9, 0.5, 0.5, 0.99])).map((x) => x.index)).toEqual([d.index, b2a.index]);
    // k = 1 + ⌊3 · 0.1⌋ = 1: pick ⌊2 · 0.2⌋ = 0 → B, depth ⌊3 · 0.5⌋ = 1 → B2
    expect(differentThoughtNodes(a1, scripted([0.1, 0.2, 0.5])).map((x) => x.index)).toEqual([b2.index]);
    // from inside B, the other branches are A and D
    expect(differentThoughtNodes(b2a, scripted([0.5, 0, 0])).map((x) => x.index)).toEqual([a.index, d.index]);
    // a tree of one branch has no other to draw from
    const lone = rootNode();
    expect(differentThoughtNodes(node(0, lone, 1), scripted([0.9]))).toEqual([]);
  });

  it("a root whose children all failed is itself the end of the path", () => {
    const root = rootNode();
    node(0, root, null);
    expect(selectPath(root, 0.4).map((x) => x.index)).toEqual([-1]);
  });
});
