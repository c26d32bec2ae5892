import { BroadPhase } from "planck";

/**
 * Box2D 2.3's broad-phase pair order, patched into planck (docs/spec/interphyre.md §1.3a–b).
 *
 * Box2D 2.3 buffers the new pairs of a step, sorts them by (proxyIdA, proxyIdB), drops duplicates and only
 * then creates contacts; planck creates them straight from the tree query. Contact creation order is the
 * solver's order, so this one difference moves planck from 91% to ~99% of Interphyre's certified solutions.
 */
interface PlanckBroadPhase {
  m_tree: {
    getFatAABB(id: number): unknown;
    getUserData(id: number): unknown;
    query(aabb: unknown, cb: (id: number) => boolean): void;
  };
  m_moveBuffer: (number | null)[];
}

/** Pairs are packed as a·2^21 + b: proxy ids stay far below 2^21 in a rollout-sized world. */
const PAIR_SHIFT = 2 ** 21;
let pairs = new Float64Array(256);

function updatePairsInBox2D23Order(this: PlanckBroadPhase, addPair: (a: unknown, b: unknown) => void): void {
  const tree = this.m_tree;
  let count = 0;
  for (const queryId of this.m_moveBuffer) {
    if (queryId === null) continue;
    tree.query(tree.getFatAABB(queryId), (id) => {
      if (id === queryId) return true;
      if (count === pairs.length) {
        const grown = new Float64Array(pairs.length * 2);
        grown.set(pairs);
        pairs = grown;
      }
      pairs[count++] = id < queryId ? id * PAIR_SHIFT + queryId : queryId * PAIR_SHIFT + id;
      return true;
    });
  }
  this.m_moveBuffer.length = 0;
  const sorted = pairs.subarray(0, count).sort();
  for (let i = 0; i < count; i++) {
    const key = sorted[i]!;
    if (i > 0 && key === sorted[i - 1]) continue;
    const a = Math.floor(key / PAIR_SHIFT);
    addPair(tree.getUserData(a), tree.getUserData(key - a * PAIR_SHIFT));
  }
}

(BroadPhase.prototype as unknown as { updatePairs: typeof updatePairsInBox2D23Order }).updatePairs = updatePairsInBox2D23Order;
