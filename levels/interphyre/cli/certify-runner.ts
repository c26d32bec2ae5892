import { execaNode, type ResultPromise } from "execa";
import { fileURLToPath } from "node:url";
import type { CertifyBudget } from "../certify-budget.ts";
import type { CertifyResult } from "../certify.ts";
import { readCertified, writeCertified, type CertifiedSeeds } from "../certified-seeds.ts";
import type { EngineName } from "../world/engines.ts";
import { ConfigError } from "../../../src/errors.ts";
import { RUNS_COMPILED, runnableModule } from "../../../src/util/runnable-module.ts";

export interface CertifyRun {
  level: string;
  target: number;
  budget: CertifyBudget;
  /** The engine every rollout runs on; the certificate names it. */
  engine: EngineName;
  workers: number;
  dir?: string;
  progress: (line: string) => void;
}

const workerPath = fileURLToPath(runnableModule(new URL("./certify-worker.ts", import.meta.url)));

/**
 * Certifies seeds 0, 1, 2, … until `target` are certified, on `workers` child processes. Every result is
 * written at once (atomically), so an interrupted run resumes where it stopped; seeds already decided are
 * never searched again. The search of a seed is seeded by (level, seed), so results do not depend on workers.
 */
export const runCertification = async (run: CertifyRun): Promise<CertifiedSeeds> => {
  const existing = readCertified(run.level, run.dir);
  if (existing && existing.engine !== run.engine) {
    throw new ConfigError(`${run.level}: the certificate was made on ${existing.engine}, not ${run.engine}; use --engine ${existing.engine} or another --dir`);
  }
  const data: CertifiedSeeds = existing ?? { schemaVersion: 1, level: run.level, engine: run.engine, budget: run.budget, seeds: [], rejected: [] };
  if (existing && JSON.stringify(existing.budget) !== JSON.stringify(run.budget)) {
    run.progress(`${run.level}: resuming with the stored budget ${JSON.stringify(existing.budget)}`);
  }
  const budget = data.budget;
  const decided = new Set([...data.seeds, ...data.rejected].map((s) => s.seed));
  let next = 0;
  const nextSeed = () => {
    while (decided.has(next)) next++;
    return next++;
  };
  const started = Date.now();
  const record = (r: CertifyResult) => {
    if (r.status === "certified") data.seeds.push({ seed: r.seed, solution: r.solution, rollouts: r.rollouts, successStep: r.successStep });
    else data.rejected.push({ seed: r.seed, status: r.status, rollouts: r.rollouts });
    writeCertified(data, run.dir);
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    run.progress(
      `${run.level}: ${data.seeds.length}/${run.target} certified, ${data.rejected.length} rejected (seed ${r.seed}: ${r.status}, ${r.rollouts} rollouts) ${secs}s`,
    );
  };
  if (data.seeds.length >= run.target) return data;

  const children: ResultPromise[] = [];
  await new Promise<void>((resolve, reject) => {
    let running = 0;
    const feed = (child: ResultPromise) => {
      if (data.seeds.length >= run.target) {
        child.kill();
        if (running === 0) resolve();
        return;
      }
      running++;
      child.send({ level: run.level, seed: nextSeed(), budget, engine: run.engine });
    };
    for (let i = 0; i < run.workers; i++) {
      // reject: false: a worker killed once the target is reached is no failure; its exit code is checked below.
      const child = execaNode(workerPath, [], {
        nodeOptions: RUNS_COMPILED ? [] : ["--import", "tsx"],
        stdin: "ignore",
        stdout: "inherit",
        stderr: "inherit",
        serialization: "json",
        reject: false,
      });
      children.push(child);
      child.on("message", (r: CertifyResult) => {
        running--;
        record(r);
        feed(child);
      });
      child.on("exit", (code) => {
        if (code !== 0 && code !== null && data.seeds.length < run.target) reject(new Error(`certify worker exited with ${code}`));
      });
      feed(child);
    }
  }).finally(() => children.forEach((c) => c.kill()));
  return keepFirst(data, run.target, run.dir);
};

/**
 * What one worker would have left: the seeds up to the `target`-th certified one, in seed order. More workers
 * finish out of order and decide a few seeds past it (searched in flight when the target was reached).
 */
const keepFirst = (data: CertifiedSeeds, target: number, dir: string | undefined): CertifiedSeeds => {
  const bySeed = <T extends { seed: number }>(xs: T[]) => [...xs].sort((a, b) => a.seed - b.seed);
  const seeds = bySeed(data.seeds);
  const last = seeds[target - 1]?.seed ?? Number.POSITIVE_INFINITY;
  const kept = { ...data, seeds: seeds.filter((s) => s.seed <= last), rejected: bySeed(data.rejected).filter((s) => s.seed <= last) };
  writeCertified(kept, dir);
  return kept;
};
