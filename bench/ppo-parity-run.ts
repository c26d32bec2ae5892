/**
 * One training of bench/ppo-parity.ts, in a child process of its own (one thread each): hexa's
 * bench/ppo-hopper.ts (its `--json` summary) or the reference, CleanRL's loop on native MuJoCo
 * (../shared/reference/cleanrl-hopper/run.sh: its table, one row per 10 rollouts and the last, and its SPS line).
 * Both sides report the same window: the training episodes that ended since the previous row, per episode.
 */
import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./page.ts";

export type Side = "hexa" | "reference";

export interface ParityRun {
  side: Side;
  seed: number;
  /** Mean return of the training episodes that ended in the last window, per episode; NaN when none did. */
  lastReturn: number;
  episodes: number;
  window: { fromStep: number; toStep: number };
  /** Env steps per second of the whole training (hexa's includes its checkpoint evaluations). */
  sps: number;
}

const run = async (cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> => {
  const r = await execa(cmd, args, { cwd: ROOT, env, stdin: "ignore", stripFinalNewline: false, reject: false });
  if (r.exitCode !== 0)
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.exitCode ?? r.shortMessage}:\n${(r.stderr || r.stdout).split("\n").slice(-15).join("\n")}`);
  return r.stdout;
};

const hexaRun = async (seed: number, steps: number): Promise<ParityRun> => {
  const script = join(ROOT, "bench", "ppo-hopper.ts");
  const out = await run(process.execPath, ["--import", "tsx", script, "--steps", String(steps), "--seed", String(seed), "--env-steps", "0", "--json"], {});
  const last = out.trim().split("\n").at(-1) ?? "";
  const s = JSON.parse(last) as { lastWindow: { fromStep: number; toStep: number; return: number | null; episodes: number }; sps: number };
  return {
    side: "hexa",
    seed,
    lastReturn: s.lastWindow.return ?? Number.NaN,
    episodes: s.lastWindow.episodes,
    window: { fromStep: s.lastWindow.fromStep, toStep: s.lastWindow.toStep },
    sps: s.sps,
  };
};

/** The reference's last table row (`| env steps | return | episodes | SPS | wall s |`) and its final SPS line. */
export const parseReference = (out: string, seed: number): ParityRun => {
  const rows = [...out.matchAll(/^\| (\d+) \| (-|-?[\d.]+) \| (\d+) \| [\d.]+ \| [\d.]+ \|$/gm)];
  const last = rows.at(-1);
  const sps = /^SPS (\d+)/m.exec(out);
  if (!last || !sps) throw new Error(`reference output without its table or SPS line:\n${out.slice(-800)}`);
  return {
    side: "reference",
    seed,
    lastReturn: last[2] === "-" ? Number.NaN : Number(last[2]),
    episodes: Number(last[3]),
    window: { fromStep: rows.length > 1 ? Number(rows.at(-2)![1]) : 0, toStep: Number(last[1]) },
    sps: Number(sps[1]),
  };
};

const referenceRun = async (seed: number, steps: number, referenceDir: string): Promise<ParityRun> =>
  parseReference(await run("bash", [join(referenceDir, "run.sh"), "ppo", "--steps", String(steps), "--seed", String(seed)], { OMP_NUM_THREADS: "1" }), seed);

/**
 * The reference's output recorded earlier (`run.sh ppo --steps STEPS --seed S > DIR/seed-S.log`): its returns are
 * the same as a fresh run's (torch on one thread, seeded), its env steps/s are those of the time it ran.
 */
export const referenceFromLog = (dir: string, seed: number, steps: number): ParityRun => {
  const path = join(dir, `seed-${seed}.log`);
  if (!existsSync(path)) throw new Error(`--reference-logs: ${path} is missing (write it with run.sh ppo --steps ${steps} --seed ${seed})`);
  const run = parseReference(readFileSync(path, "utf8"), seed);
  const trained = Math.floor(steps / 2048) * 2048;
  if (run.window.toStep !== trained) throw new Error(`--reference-logs: ${path} ends at env step ${run.window.toStep}, not ${trained} (--steps ${steps})`);
  return run;
};

export const parityRun = (side: Side, seed: number, steps: number, referenceDir: string, referenceLogs?: string): Promise<ParityRun> =>
  side === "hexa"
    ? hexaRun(seed, steps)
    : referenceLogs
      ? Promise.resolve(referenceFromLog(referenceLogs, seed, steps))
      : referenceRun(seed, steps, referenceDir);
