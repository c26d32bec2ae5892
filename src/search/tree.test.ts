import { describe, expect, it } from "vitest";
import type { Rng } from "../util/rng.ts";
import {
  backup,
  backupFrom,
  eliteWeights,
  expansionOperators,
  lambdaAt,
  operatorCounts,
  rootNode,
  sampleElites,
  selectPath,
  softmax,
  uct,
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
  const n: TreeNode = { index, parent, children: [], fitness, q: fitness, n: 1, vSelf };
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

  it("selection and backup on a known tree", () => {
    // root ─ A (F 10, v 0.5) ─ A1 (F 2), A2 (F 6)
    //      ─ B (F 4, v −0.5)
    //      ─ C (failed: no Q, never selected)
    const root = rootNode();
    const a = node(0, root, 10, 0.5);
    const b = node(1, root, 4, -0.5);
    node(2, root, null, 1);
    node(3, a, 2);
    const a2 = node(4, a, 6);
    backupFrom(a);
    expect(a.q).toBeCloseTo(0.3 * 10 + 0.7 * 6, 12); // 7.2
    expect(b.q).toBe(4);
    root.n = 3;
    a.n = 2;
    // Q range {7.2, 4, 2, 6}: [2, 7.2]. softmax(0.5, −0.5) = 0.731059, 0.268941.
    // A: 1 + 0.4 (√(2 ln 4 / 2) = 1.177410 + 0.731059) = 1.763388
    // B: 2/5.2 = 0.384615 + 0.4 (1.665109 + 0.268941) = 1.158235 → A
    // under A (N 2): A1: 0 + 0.4 (√(2 ln 3) = 1.482304 + 0.5) = 0.792922; A2: 4/5.2 = 0.769231 + 0.792922 = 1.562153 → A2
    expect(selectPath(root, 0.4).map((x) => x.index)).toEqual([-1, 0, 4]);
    expect(a2.children).toEqual([]);
    // With λ = 0.1 the same: A 1 + 0.1 · 1.908469 = 1.190847 beats B 0.384615 + 0.193405 = 0.578020.
    expect(selectPath(root, 0.1).map((x) => x.index)).toEqual([-1, 0, 4]);
    // After A2 is expanded with a poor child, A2's Q drops to 0.3 · 6 + 0.7 · 0 = 1.8 and A's to 0.3 · 7.2 + 0.7 · 2 = 3.56.
    node(5, a2, 0);
    backupFrom(a2);
    expect(a2.q).toBeCloseTo(1.8, 12);
    expect(a.q).toBeCloseTo(3.56, 12);
    // Q range {3.56, 4, 2, 1.8, 0}: [0, 4]. root N 3, A N 2, B N 1:
    // A: 3.56/4 = 0.89 + 0.4 · 1.908469 = 1.653388; B: 1 + 0.4 · 1.93405 = 1.77362 → B, a leaf.
    expect(selectPath(root, 0.4).map((x) => x.index)).toEqual([-1, 1]);
  });

  it("a root whose children all failed is itself the end of the path", () => {
    const root = rootNode();
    node(0, root, null);
    expect(selectPath(root, 0.4).map((x) => x.index)).toEqual([-1]);
  });
});
