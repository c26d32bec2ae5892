/**
 * Zero-shot transfer with the heuristic synthesiser (docs/guides/transfer.md): `hexa transfer … --synthesiser
 * heuristic`, the transferred bank frozen beside the heuristic agent with no bank shown on the same seeds.
 * Sections: interphyre (catapult from the shipped banks of other levels), reward (reward-design skills from
 * configs/reward-transfer-sources.yaml to acrobot and cartpole_hold_x1), mujoco (hopper + walker2d to
 * hopper_front_flip, configs/reward-transfer-mujoco.yaml).
 * Run: node --import tsx bench/transfer.ts [--sections interphyre,reward,mujoco] [--interphyre-seeds 20]
 *      [--reward-seeds 10] [--mujoco-seeds 3]   (npm run build first; --sections interphyre --interphyre-seeds 2
 *      for a quick look)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { intFlag, listFlag, parseFlags } from "./flags.ts";
import { formatTable } from "./harness.ts";
import { hexaCli, requireBuild, runMetrics, type LevelMetrics } from "./hexa-cli.ts";
import { recordPage } from "./page.ts";
import { rewardTransferSection } from "./transfer-reward.ts";

recordPage("transfer");

const SCRIPT = "bench/transfer.ts";
const SECTIONS = ["interphyre", "reward", "mujoco"] as const;
const flags = parseFlags(SCRIPT, { sections: SECTIONS.join(","), "interphyre-seeds": "20", "reward-seeds": "10", "mujoco-seeds": "3" });
const sections = listFlag(SCRIPT, "sections", flags.sections, SECTIONS);
const INTERPHYRE_SEEDS = intFlag(SCRIPT, "interphyre-seeds", flags["interphyre-seeds"]);
const REWARD_SEEDS = intFlag(SCRIPT, "reward-seeds", flags["reward-seeds"]);
const MUJOCO_SEEDS = intFlag(SCRIPT, "mujoco-seeds", flags["mujoco-seeds"]);
requireBuild(SCRIPT);

/** One row of the Interphyre table: the sources' shipped banks, the first certified seed index both arms play. */
const INTERPHYRE_ROWS = [
  { sources: ["two_body_problem", "down_to_earth"], offset: 60 },
  { sources: ["two_body_problem", "down_to_earth", "pass_the_parcel"], offset: 60 },
  { sources: ["two_body_problem", "down_to_earth", "pass_the_parcel"], offset: 80 },
];
const TARGET = "catapult";

const cell = (m: LevelMetrics | undefined) => (m ? `${m.successes}/${m.episodes} (${m.meanTurns.toFixed(1)} turns)` : "–");

const interphyreSection = (dir: string): void => {
  const rows = INTERPHYRE_ROWS.map((row, i) => {
    const r = hexaCli([
      "transfer",
      ...row.sources.flatMap((s) => ["--from", s]),
      "--to",
      TARGET,
      "--synthesiser",
      "heuristic",
      "--baseline",
      "heuristic",
      "--eval-seeds",
      String(INTERPHYRE_SEEDS),
      "--seed-offset",
      String(row.offset),
      "--out",
      join(dir, `interphyre-${i + 1}`, "bank.json"),
    ]);
    const arm = (name: string) => {
      const m = new RegExp(`^${name} run: (.+)$`, "m").exec(r.stdout);
      if (!m) throw new Error(`hexa transfer printed no "${name} run:" line:\n${r.stdout.slice(-1000)}`);
      return runMetrics(m[1]!.trim())[TARGET];
    };
    const bank = /^transferred bank for \S+: (\d+ skills, \d+ mistakes)/m.exec(r.stdout)?.[1] ?? "?";
    return [
      `${row.offset}–${row.offset + INTERPHYRE_SEEDS - 1}`,
      row.sources.join(" + "),
      bank,
      cell(arm("bank")),
      cell(arm("baseline")),
      `${r.wallS.toFixed(0)} s`,
    ];
  });
  console.log(`${TARGET}, heuristic agent, shipped source banks; both arms on the same certified seeds\n`);
  console.log(formatTable(["seeds (certified index)", "sources", "transferred bank", "bank, frozen", "no bank shown", "wall"], rows, { align: "llllrr" }));
};

const dir = mkdtempSync(join(tmpdir(), "hexa-bench-transfer-"));
try {
  const parts: Record<(typeof SECTIONS)[number], () => void> = {
    interphyre: () => interphyreSection(join(dir, "interphyre")),
    reward: () =>
      rewardTransferSection(
        {
          config: "configs/reward-transfer-sources.yaml",
          sources: ["cartpole", "pendulum", "mountain_car_continuous"],
          targets: ["acrobot", "cartpole_hold_x1"],
          evalSeeds: REWARD_SEEDS,
        },
        join(dir, "reward"),
      ),
    mujoco: () =>
      rewardTransferSection(
        { config: "configs/reward-transfer-mujoco.yaml", sources: ["hopper", "walker2d"], targets: ["hopper_front_flip"], evalSeeds: MUJOCO_SEEDS },
        join(dir, "mujoco"),
      ),
  };
  sections.forEach((s, i) => {
    mkdirSync(join(dir, s), { recursive: true });
    console.log(`${i > 0 ? "\n" : ""}## ${s}\n`);
    parts[s as (typeof SECTIONS)[number]]();
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
