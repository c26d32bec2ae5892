/**
 * `npm run bench:intents [-- hexa bench intents flags] [--write-page]` (docs/benchmarks/intents.md): runs
 * `hexa bench intents` — P2P's 15 MuJoCo intents and hexa's F-backed ones through the p2p strategy — and prints
 * its table with what a run with a real model needs. Without --judge-model every role (reviser, llm.judge and its
 * synthesiser, llm.vision) is the scripted model this script serves on a local port (bench/intents-model.ts), so
 * the numbers measure hexa's plumbing and cost without a model, not a model's judgement. With --write-page the
 * printout becomes docs/benchmarks/intents.md and the run's results.json docs/benchmarks/data/intents.json.
 * Rerunning the same command continues an interrupted bench (finished cases are read back).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { INTENTS_OUT } from "../levels/reward-search/cli/bench-intents.ts";
import { IntentsResults } from "../levels/reward-search/cli/bench-intents-table.ts";
import { CHROMIUM } from "../levels/reward-search/pictures/episode-frames.ts";
import { DATA_DIR } from "./data-pages.ts";
import { HEXA_BIN } from "./hexa-cli.ts";
import { SCRIPTED_INTENTS_MODEL, SCRIPTED_INTENTS_RULES, startScriptedIntentsModel } from "./intents-model.ts";
import { recordPage, ROOT, WRITE_PAGE_FLAG } from "./page.ts";
import { realModelNeeds } from "./intents-needs.ts";

recordPage("intents");
const args = process.argv.slice(2).filter((a) => a !== WRITE_PAGE_FLAG);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const out = resolve(ROOT, flag("out") ?? INTENTS_OUT);
const scripted = flag("judge-model") === undefined ? await startScriptedIntentsModel() : null;
const scriptedArgs = (url: string) => [
  ...["--model", SCRIPTED_INTENTS_MODEL, "--base-url", url, "--judge-model", SCRIPTED_INTENTS_MODEL, "--judge-base-url", url],
  ...(existsSync(CHROMIUM) ? ["--vision-model", SCRIPTED_INTENTS_MODEL, "--vision-base-url", url, "--vision-max-images", "50"] : []),
];
const hexaArgs = ["bench", "intents", ...args, ...(flag("out") ? [] : ["--out", out]), ...(scripted ? scriptedArgs(scripted.url) : [])];
let status: number | undefined;
const started = Date.now();
try {
  // Its own output goes to the terminal as progress (not into the page); the table is read back from results.json.
  const run = await execa(process.execPath, [HEXA_BIN, ...hexaArgs], { cwd: ROOT, stdin: "ignore", stdout: "inherit", stderr: "inherit", reject: false });
  status = run.exitCode;
} finally {
  await scripted?.close();
}
// A bench with a case stopped by an error still tables every case; it exits 1 so that no page is written from it.
if (status !== 0) {
  process.exitCode = 1;
  // Only this run's table: a results.json left by an earlier run is not this one's.
  const file = join(out, "results.json");
  if (!existsSync(file) || statSync(file).mtimeMs < started) process.exit(status ?? 1);
}
const text = readFileSync(join(out, "results.json"), "utf8");
const results = IntentsResults.parse(JSON.parse(text));
const md = readFileSync(join(out, "results.md"), "utf8");
const lines = [
  md.trimEnd(),
  "",
  ...(scripted
    ? [
        "The model: a script (bench/intents-model.ts) answering every role from what each request carries, by fixed rules:",
        ...SCRIPTED_INTENTS_RULES.map((r) => `- ${r}`),
        "So the judged scores, successes and the agreement with F measure the plumbing (authoring, trainings, rollouts,",
        "frames, judges, synthesis, lineage) and the cost of everything but the model; they say nothing of a model's judgement.",
        "",
      ]
    : []),
  ...realModelNeeds(results),
];
process.stdout.write(`${lines.join("\n")}\n`);
if (process.argv.includes(WRITE_PAGE_FLAG) && status === 0) writeFileSync(join(DATA_DIR, "intents.json"), text);
