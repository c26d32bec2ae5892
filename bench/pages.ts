/**
 * Every bench script's page (bench/page.ts): the page is docs/benchmarks/<name>.md, written by bench/<name>.ts
 * when run with `--write-page`; `command` is the run that makes the published page (docs/benchmarks/README.md
 * lists it; a test checks both lists agree).
 */
export const BENCH_PAGES = {
  "actor-overhead": { title: "Actor agent overhead per turn", command: "npm run bench:actor-overhead -- --write-page" },
  "actor-turn": { title: "Actor loop cost per turn", command: "npm run bench:actor -- --write-page" },
  bank: { title: "Skill bank costs", command: "npm run bench:bank -- --write-page" },
  certify: { title: "Certified seeds", command: "npm run bench:certify -- --write-page" },
  "compare-quickstart": { title: "`hexa compare` on the quickstart", command: "npm run bench:compare-quickstart -- --write-page" },
  distributed: { title: "Redis workers", command: "npm run bench:distributed -- --write-page" },
  "embedded-model": { title: "An embedded GGUF model on the CPU", command: "npm run bench:embedded-model -- --write-page" },
  frames: { title: "Shaded MuJoCo frames", command: "npm run bench:frames -- --write-page" },
  fidelity: { title: "Fidelity against Interphyre", command: "npm run bench:fidelity -- --write-page" },
  heuristic: { title: "Heuristic agent on the HExA levels", command: "npm run bench:heuristic -- --write-page" },
  "judge-overhead": { title: "A judgment's cost without the model", command: "npm run bench:judge-overhead -- --write-page" },
  "judge-calibration": { title: "Judges calibrated against a known fitness", command: "npm run bench:judge-calibration -- --write-page" },
  intents: { title: "Intents from words: P2P's benchmark through the p2p strategy", command: "npm run bench:intents -- --write-page" },
  inspect: { title: "`hexa inspect` report size and speed", command: "npm run bench:inspect -- --write-page" },
  mujoco: { title: "MuJoCo env speed", command: "npm run bench:mujoco -- --write-page" },
  "ppo-hopper": { title: "PPO on hopper", command: "npm run bench:ppo-hopper -- --write-page" },
  "ppo-parity": { title: "PPO learning parity with CleanRL on Hopper", command: "npm run bench:ppo-parity -- --write-page" },
  "quickstart-workers": { title: "The quickstart on one physics worker and two", command: "npm run bench:quickstart-workers -- --write-page" },
  "reward-search": { title: "Reward-search trainer speed and reach", command: "npm run bench:reward-search -- --full --write-page" },
  "reward-search-strategies": {
    title: "Reward search strategies side by side",
    command: "npm run bench:reward-search-strategies -- --write-page",
  },
  sandbox: { title: "Reward sandbox speed", command: "npm run bench:sandbox -- --write-page" },
  "shipped-bank": { title: "Heuristic agent with and without a bank", command: "npm run bench:shipped-bank -- --write-page" },
  sim: { title: "Physics speed", command: "npm run bench:sim -- --write-page" },
  startup: { title: "CLI start-up", command: "npm run bench:startup -- --write-page" },
  tools: { title: "Tool latency", command: "npm run bench:tools -- --write-page" },
  transfer: { title: "Transfer with the heuristic synthesiser", command: "npm run bench:transfer -- --write-page" },
} as const satisfies Record<string, { title: string; command: string }>;

export type BenchPageName = keyof typeof BENCH_PAGES;

/** bench/*.ts files that are not scripts of their own: helpers, and parts run by another script. */
export const BENCH_HELPERS = [
  "bank-fixtures.ts",
  "check-scenes.ts",
  "data-pages.ts",
  "distributed-page.ts",
  "embedded-overhead.ts",
  "env-rate.ts",
  "flags.ts",
  "greedy-return.ts",
  "harness.ts",
  "inspect-fixture.ts",
  "intents-model.ts",
  "intents-needs.ts",
  "judge-calibration-fixture.ts",
  "judge-calibration-judges.ts",
  "judge-calibration-page.ts",
  "judge-calibration-policies.ts",
  "judge-calibration-stats.ts",
  "judge-calibration-synthesiser.ts",
  "judge-calibration-vision.ts",
  "judge-calibration-vision-model.ts",
  "judge-overhead-policy.ts",
  "hexa-cli.ts",
  "page.ts",
  "pages.ts",
  "process-tree.ts",
  "ppo-parity-run.ts",
  "ppo-parity-stats.ts",
  "sim-engines.ts",
  "strategies-page.ts",
  "transfer-reward.ts",
] as const;
