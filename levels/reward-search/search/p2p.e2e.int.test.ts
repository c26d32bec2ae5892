import { execa } from "execa";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** hexa search --strategy p2p end to end: the built-in PPO trainer, the heuristic reviser, the fitness judge. */
const hexa = fileURLToPath(new URL("../../../bin/hexa.js", import.meta.url));
const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);
const trainings = (out: string) => (existsSync(join(out, "trainings")) ? readdirSync(join(out, "trainings")) : []);

describe("p2p end to end (built-in trainer)", () => {
  it("killed with SIGKILL mid-iteration, resumes: exactly the budget, no finished training trained again", async () => {
    const d = mkdtempSync(join(tmpdir(), "hexa-p2p-e2e-"));
    const out = join(d, "run");
    const args = [hexa, "search", "cartpole", "--strategy", "p2p", "--budget", "4", "--configs", "2", "--train-seeds", "1", "--train-steps", "2048"];
    const rest = ["--seed", "2", "--out", out, "--trainer-cache", join(d, "cache"), "--processes", "1", "--final-steps", "1024", "--final-trainings", "1"];
    const child = execa(process.execPath, [...args, ...rest], { detached: true, reject: false });
    const started = Date.now();
    while (trainings(out).length < 1 && Date.now() - started < 90_000) await new Promise((r) => setTimeout(r, 100));
    process.kill(-child.pid!, "SIGKILL");
    await child;
    const kept = trainings(out).length;
    expect(kept).toBeGreaterThanOrEqual(1);
    expect(kept).toBeLessThan(4);
    const again = await execa(process.execPath, [...args, ...rest], { reject: false });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(trainings(out).sort()).toEqual(["it0-c0-s16.json", "it0-c1-s16.json", "it1-c0-s16.json", "it1-c1-s16.json"]);
    expect(lines(join(out, "plans.jsonl"))).toHaveLength(2);
    expect(lines(join(out, "iterations.jsonl"))).toHaveLength(2);
    expect(again.stdout).toContain(`2 iterations, 4 trainings (${4 - kept} trained now)`);
    expect(again.stderr.match(/\(from the log\)/g)).toHaveLength(kept);
    expect(existsSync(join(out, "final-scores.json"))).toBe(true);
  }, 240_000);
});
