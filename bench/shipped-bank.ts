/**
 * The heuristic agent with and without a bank, on the same certified seeds: `hexa run` of
 * configs/shipped-offline.yaml with no bank shown (retriever topSkills 0, topMistakes 0), the same config with the
 * shipped banks frozen, and configs/quickstart.yaml learning its own bank (Off2On × Evolving).
 * Run: node --import tsx bench/shipped-bank.ts [--rounds 17]   (npm run build first; --rounds 1 for a quick look)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readYamlMapping } from "../src/util/yaml-file.ts";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { stringify } from "yaml";
import { intFlag, parseFlags } from "./flags.ts";
import { formatTable } from "./harness.ts";
import { hexaCli, requireBuild, runDirOf, runMetrics, type LevelMetrics } from "./hexa-cli.ts";
import { ROOT, recordPage } from "./page.ts";

recordPage("shipped-bank");

const SCRIPT = "bench/shipped-bank.ts";
const flags = parseFlags(SCRIPT, { rounds: "17" });
const ROUNDS = intFlag(SCRIPT, "rounds", flags.rounds);
requireBuild(SCRIPT);

interface Arm {
  label: string;
  config: string;
  change: Record<string, unknown>;
}

const ARMS: Arm[] = [
  { label: "no bank shown", config: "configs/shipped-offline.yaml", change: { retriever: { topSkills: 0, topMistakes: 0 } } },
  { label: "shipped bank, frozen", config: "configs/shipped-offline.yaml", change: {} },
  { label: "quickstart (learns its bank)", config: "configs/quickstart.yaml", change: {} },
];

type Config = { levels: string[]; seeds?: { offset?: number }; episodesPerRound: number; offline?: { banks?: string[] } } & Record<string, unknown>;

const readConfig = (path: string): Config => readYamlMapping(join(ROOT, path)) as Config;

/** The arm's config with `rounds` and its change applied, bank paths made absolute, written into `dir`. */
const writeArmConfig = (arm: Arm, i: number, dir: string): string => {
  const cfg = { ...readConfig(arm.config), ...arm.change, rounds: ROUNDS };
  if (cfg.offline?.banks) cfg.offline = { ...cfg.offline, banks: cfg.offline.banks.map((b) => (isAbsolute(b) ? b : join(ROOT, b))) };
  const file = join(dir, `arm-${i + 1}.yaml`);
  writeFileSync(file, stringify(cfg));
  return file;
};

const cell = (m: LevelMetrics | undefined): string => (m ? `${m.successes}/${m.episodes} (${m.meanTurns.toFixed(1)} turns)` : "–");

const main = (): void => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-bench-shipped-bank-"));
  try {
    const results = ARMS.map((arm, i) => {
      const r = hexaCli(["run", writeArmConfig(arm, i, dir), "--runs-dir", join(dir, "runs")]);
      return { arm, metrics: runMetrics(runDirOf(r.stdout)), wallS: r.wallS };
    });
    const base = readConfig(ARMS[0]!.config);
    const offset = base.seeds?.offset ?? 0;
    const perLevel = ROUNDS * base.episodesPerRound;
    console.log(`heuristic agent, certified seeds ${offset}–${offset + perLevel - 1} (${perLevel} per level), ${ROUNDS} round(s)\n`);
    console.log(
      formatTable(
        ["level", ...ARMS.map((a) => a.label)],
        base.levels.map((level) => [level, ...results.map((r) => cell(r.metrics[level]))]),
      ),
    );
    console.log("");
    for (const level of base.levels) {
      const [none, shipped] = results.map((r) => r.metrics[level]!);
      console.log(
        `${level}: shipped bank ${shipped!.successes}/${shipped!.episodes} against ${none!.successes}/${none!.episodes} with no bank shown (${shipped!.successes - none!.successes >= 0 ? "+" : ""}${shipped!.successes - none!.successes})`,
      );
    }
    console.log(`wall (whole process): ${results.map((r) => `${r.arm.label} ${r.wallS.toFixed(0)} s`).join("; ")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

main();
