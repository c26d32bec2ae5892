import { fDidNotFollow, hackSuspect, survivalOverTraining } from "../hacking-rule.ts";
import type { JobError, JobResult } from "../trainer/client.ts";

const n = (v: number) => (Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(2) : v.toFixed(3).replace(/\.?0+$/, ""));

/** The reflection's lines that the heuristic proposer reads back (proposers/feedback-signals.ts). */
export const F_CURVE = "F over training: ";
export const NEVER_CHANGED = "Never changed during training (not being optimised): ";
export const HACKING_ALARM = "REWARD-HACKING ALARM: ";

/** Each component's share of Σ|mean| over the whole training. */
const componentShares = (components: JobResult["components"]): Record<string, number> => {
  const mag = Object.fromEntries(Object.entries(components).map(([k, xs]) => [k, xs.reduce((s, x) => s + Math.abs(x.mean), 0) / Math.max(1, xs.length)]));
  const total = Object.values(mag).reduce((s, v) => s + v, 0);
  return Object.fromEntries(Object.entries(mag).map(([k, v]) => [k, total > 0 ? v / total : 0]));
};

/** The hacking alarm of the family's rule (hacking-rule.ts): a dominating term, not a survival term nor the only one, that rose while F did not. */
const alarmLine = (r: JobResult): string | null => {
  const shares = componentShares(r.components);
  const terms = Object.entries(r.components).map(([name, xs]) => ({ name, share: shares[name] ?? 0, survival: survivalOverTraining(xs) }));
  const suspect = hackSuspect(terms);
  if (!suspect) return null;
  const term = r.components[suspect.name]!.map((x) => x.mean);
  const fitness = r.fitnessCurve.map((p) => p.fitness);
  if (!fDidNotFollow(term, fitness)) return null;
  return (
    `${HACKING_ALARM}${suspect.name} carries ${(suspect.share * 100).toFixed(0)}% of the reward's magnitude and rose over training ` +
    `(${n(term[0]!)} → ${n(term.at(-1)!)}) while F did not (${n(fitness[0]!)} → ${n(fitness.at(-1)!)}): PPO may be optimising it instead of the task.`
  );
};

/**
 * The Eureka-style reward reflection of one training: F of the final policy (and the best checkpoint, labelled),
 * every component's values sampled over training (max / mean / min), episode length, and the hacking alarm.
 */
export const reflection = (r: JobResult, solved: number): string => {
  const per = r.final.perSeed.map((p) => `${p.seed}: ${n(p.fitness)}`).join(", ");
  const lines = [
    `F of the final policy: ${n(r.final.fitness)} (evaluation seeds ${per}, not the training seed); solved at ≥ ${solved}.`,
    `Best checkpoint during training (not the score): F ${n(r.bestCheckpoint.fitness)} at step ${r.bestCheckpoint.step}.`,
    `${F_CURVE}${r.fitnessCurve.map((p) => n(p.fitness)).join(" → ")}.`,
    `Episode length over training: ${r.episodeLength.map((p) => n(p.mean)).join(" → ") || "no episode ended"}.`,
    "Reward components over training (mean [min, max] per sample):",
    ...Object.entries(r.components).map(([k, xs]) => `- ${k}: ${xs.map((x) => `${n(x.mean)} [${n(x.min)}, ${n(x.max)}]`).join("; ")}`),
  ];
  const constant = Object.entries(r.components)
    .filter(([, xs]) => xs.every((x) => x.max - x.min < 1e-9 && x.mean === xs[0]!.mean))
    .map(([k]) => k);
  if (constant.length) lines.push(`${NEVER_CHANGED}${constant.join(", ")}.`);
  const alarm = alarmLine(r);
  if (alarm) lines.push(alarm);
  lines.push(`${r.steps.toLocaleString("en-US")} env steps in ${(r.wallMs / 1000).toFixed(1)} s.`);
  return lines.join("\n");
};

/** A failed training as the model should read it: the code's fault with its line, or the trainer's error. */
export const trainingError = (e: JobError): string => {
  if (e.kind === "reward_code" && e.fault) return `ERROR in your reward code (${e.fault.kind}${e.fault.line ? `, line ${e.fault.line}` : ""}): ${e.message}`;
  return `ERROR: the training failed (${e.kind}): ${e.message}`;
};
