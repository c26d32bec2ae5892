/**
 * `check_reward`: compile reward code in a fresh sandbox, run it over given transitions (a few hundred) and
 * describe what it computes: per-component ranges, constant components, the total's range, faults, and the
 * hacking alarm (one component carrying > 90% of the components' summed magnitude). A function of its inputs.
 */
import type { RewardBatchInput, RewardOutput } from "../task.ts";
import { compileReward, RewardCodeError, type RewardFault, type RewardLayout, type SandboxedReward, type SandboxLimits } from "./reward-sandbox.ts";

/** Share of the components' summed |value| above which one component raises the reward-hacking alarm. */
export const HACK_SHARE = 0.9;

interface RangeStats {
  min: number;
  mean: number;
  max: number;
  /** max − min ≤ 1e-9 · max(1, |mean|) over all transitions that ran. */
  constant: boolean;
}

interface ComponentStats extends RangeStats {
  /** Σ|this component| / Σ over components of Σ|component|, over all transitions (0 when all are 0). */
  share: number;
}

interface CheckFault extends RewardFault {
  /** Index of the first batch that raised it; -1 for compile faults. */
  batch: number;
  /** Batches that raised it. */
  count: number;
  /** The fault as written for the model. */
  text: string;
}

export interface RewardCheck {
  /** Compiled, and every batch ran without a fault. */
  ok: boolean;
  form: "perEnv" | "batched" | null;
  /** Transitions in batches that ran without a fault (the statistics cover these). */
  transitions: number;
  batches: { given: number; ran: number; faulted: number };
  components: Record<string, ComponentStats>;
  total: RangeStats | null;
  /** max over transitions of |total − Σ components| (null without components). */
  sumGap: number | null;
  hackSuspect: { component: string; share: number } | null;
  /** One per distinct fault (kind and message), in the order found. */
  faults: CheckFault[];
  /** The tool's observation for the model. */
  report: string;
}

class Accumulator {
  min = Infinity;
  max = -Infinity;
  sum = 0;
  abs = 0;
  count = 0;
  add(xs: Float64Array): void {
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      if (x < this.min) this.min = x;
      if (x > this.max) this.max = x;
      this.sum += x;
      this.abs += Math.abs(x);
    }
    this.count += xs.length;
  }
  stats(): RangeStats {
    const mean = this.count > 0 ? this.sum / this.count : 0;
    return { min: this.min, mean, max: this.max, constant: this.max - this.min <= 1e-9 * Math.max(1, Math.abs(mean)) };
  }
}

export async function checkReward(
  code: string,
  layout: RewardLayout,
  batches: readonly RewardBatchInput[],
  limits?: Partial<SandboxLimits>,
): Promise<RewardCheck> {
  const faults: CheckFault[] = [];
  const addFault = (e: RewardCodeError, batch: number) => {
    const seen = faults.find((f) => f.kind === e.fault.kind && f.message === e.fault.message);
    if (seen) seen.count++;
    else faults.push({ ...e.fault, batch, count: 1, text: e.message });
  };
  let program: SandboxedReward;
  try {
    program = await compileReward(code, layout, limits);
  } catch (e) {
    if (!(e instanceof RewardCodeError)) throw e;
    addFault(e, -1);
    const result = emptyCheck(batches.length, faults);
    return { ...result, report: renderReport(result) };
  }
  const total = new Accumulator();
  const comps = new Map<string, Accumulator>();
  let sumGap: number | null = null;
  let ran = 0;
  let faulted = 0;
  let transitions = 0;
  try {
    for (let k = 0; k < batches.length; k++) {
      const b = batches[k]!;
      let out: RewardOutput;
      try {
        out = program.evaluate(b);
      } catch (e) {
        if (!(e instanceof RewardCodeError)) throw e;
        addFault(e, k);
        faulted++;
        // A timeout or memory fault would repeat on every batch, each costing the full limit.
        if (e.fault.kind === "timeout" || e.fault.kind === "memory") break;
        continue;
      }
      ran++;
      transitions += b.n;
      total.add(out.total);
      const names = Object.keys(out.components);
      for (const name of names) {
        let acc = comps.get(name);
        if (!acc) comps.set(name, (acc = new Accumulator()));
        acc.add(out.components[name]!);
      }
      if (names.length > 0) {
        for (let i = 0; i < b.n; i++) {
          let s = 0;
          for (const name of names) s += out.components[name]![i]!;
          sumGap = Math.max(sumGap ?? 0, Math.abs(out.total[i]! - s));
        }
      }
    }
  } finally {
    program.dispose();
  }
  const magnitude = [...comps.values()].reduce((a, c) => a + c.abs, 0);
  const components: Record<string, ComponentStats> = {};
  for (const [name, acc] of comps) {
    Object.defineProperty(components, name, {
      value: { ...acc.stats(), share: magnitude > 0 ? acc.abs / magnitude : 0 },
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  let hackSuspect: RewardCheck["hackSuspect"] = null;
  if (comps.size >= 2) {
    for (const [name, c] of Object.entries(components)) if (c.share > HACK_SHARE) hackSuspect = { component: name, share: c.share };
  }
  const result: Omit<RewardCheck, "report"> = {
    ok: faults.length === 0,
    form: program.form,
    transitions,
    batches: { given: batches.length, ran, faulted },
    components,
    total: ran > 0 ? total.stats() : null,
    sumGap,
    hackSuspect,
    faults,
  };
  return { ...result, report: renderReport(result) };
}

function emptyCheck(given: number, faults: CheckFault[]): Omit<RewardCheck, "report"> {
  return {
    ok: false,
    form: null,
    transitions: 0,
    batches: { given, ran: 0, faulted: 0 },
    components: {},
    total: null,
    sumGap: null,
    hackSuspect: null,
    faults,
  };
}

/** 4 significant digits, no trailing zeros. */
export const fmt = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : String(x));
const pct = (x: number) => `${Math.round(100 * x)}%`;

function renderReport(c: Omit<RewardCheck, "report">): string {
  const compileFault = c.faults.find((f) => f.batch === -1);
  if (compileFault) return `check_reward: the code did not compile.\n- ${compileFault.text}`;
  const lines: string[] = [];
  const fn = c.form === "batched" ? "rewardBatch(batch)" : "reward(obs, action, nextObs, info)";
  const head = `check_reward: ran ${fn} on ${c.transitions} transitions (${c.batches.ran} of ${c.batches.given} batches)`;
  lines.push(
    c.faults.length === 0
      ? `${head}; no faults.`
      : `${head}; ${c.faults.length} fault${c.faults.length === 1 ? "" : "s"} (${c.batches.faulted} batch${c.batches.faulted === 1 ? "" : "es"} failed).`,
  );
  if (c.total) lines.push(`total: min ${fmt(c.total.min)}, mean ${fmt(c.total.mean)}, max ${fmt(c.total.max)}`);
  const names = Object.keys(c.components);
  if (names.length > 0) {
    lines.push("components (share = its part of the summed |component| values):");
    const w = Math.max(...names.map((n) => n.length));
    for (const n of names) {
      const s = c.components[n]!;
      lines.push(`  ${n.padEnd(w)}  min ${fmt(s.min)}, mean ${fmt(s.mean)}, max ${fmt(s.max)}, share ${pct(s.share)}${s.constant ? " (constant)" : ""}`);
    }
  } else if (c.total) {
    lines.push("components: none (return named terms in components to see what each contributes)");
  }
  const warnings: string[] = [];
  for (const f of c.faults)
    warnings.push(`fault in batch ${f.batch}${f.count > 1 ? ` (and ${f.count - 1} later batch${f.count > 2 ? "es" : ""})` : ""}: ${f.text}`);
  if (c.total?.constant && c.transitions > 1)
    warnings.push(`total is constant (${fmt(c.total.mean)}) over all ${c.transitions} transitions: the policy gets no learning signal from it`);
  for (const n of names) {
    const s = c.components[n]!;
    if (s.constant && c.transitions > 1)
      warnings.push(`component "${n}" is constant (${fmt(s.mean)}) over all ${c.transitions} transitions: it shifts the reward but carries no learning signal`);
  }
  if (c.hackSuspect) {
    warnings.push(
      `component "${c.hackSuspect.component}" carries ${pct(c.hackSuspect.share)} of |reward| (more than ${pct(HACK_SHARE)}): a possible reward hack, the policy may optimise it alone; check that it cannot be scored without reaching the goal, or rescale the other terms`,
    );
  }
  if (c.sumGap !== null && c.total && c.sumGap > 1e-9 * Math.max(1, Math.abs(c.total.max), Math.abs(c.total.min))) {
    warnings.push(`total differs from the sum of components by up to ${fmt(c.sumGap)}; the trainer optimises total, the components are only reported`);
  }
  if (warnings.length > 0) lines.push("warnings:", ...warnings.map((x) => `- ${x}`));
  return lines.join("\n");
}
