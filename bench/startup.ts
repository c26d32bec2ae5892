/**
 * Start-up: wall time of short CLI commands beside `node -e 0`, through `./hexa` (the README's form, a shell
 * script running bin/hexa.js), bin/hexa.js (the compiled dist/) and npx (beside npx's own start), and the
 * TypeScript sources through tsx for comparison (what bin/ runs when dist/ is stale). The commands run in
 * interleaved rounds, so a busy neighbour slows every row alike. Goal: `./hexa --version` and `--help` ≤ 2× node -e 0,
 * and so each command's own `--help` (bin): a command imports its work only in its handler (src/cli-kit/lazy-command.ts).
 * Run: npm run bench:startup [-- --runs 10]
 */
import { spawnSync } from "node:child_process";
import { execaSync } from "execa";
import { fileURLToPath } from "node:url";
import { median, ms, percentile, printTable } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("startup");

const { distIsFresh } = (await import(String(new URL("../bin/launch.js", import.meta.url)))) as { distIsFresh: () => boolean };
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const i = process.argv.indexOf("--runs");
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 10;

/** Every command of `hexa --help` and the subcommands of levels, bank and trainer: each one's `--help` gets a row. */
const COMMAND_HELP = [
  ...["episode", "run", "eval", "compare", "verify", "doctor", "bank", "inspect", "bundle", "transfer", "worker", "workers"],
  ...["levels", "levels show", "levels certify", "levels check-scenes", "levels replay", "bank show", "bank query"],
  ...["play", "tool", "trainer check", "search", "bench", "film"],
];

const node = process.execPath;
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
const ROWS: { what: string; cmd: string; args: string[] }[] = [
  { what: "node -e 0", cmd: node, args: ["-e", "0"] },
  { what: "hexa --version (./hexa)", cmd: "./hexa", args: ["--version"] },
  { what: "hexa --help (./hexa)", cmd: "./hexa", args: ["--help"] },
  { what: "hexa --version (bin)", cmd: node, args: ["bin/hexa.js", "--version"] },
  { what: "hexa levels list (bin)", cmd: node, args: ["bin/hexa.js", "levels", "list"] },
  { what: "npx --version (npm's own start)", cmd: npx, args: ["--version"] },
  { what: "hexa --version (npx)", cmd: npx, args: ["hexa", "--version"] },
  { what: "hexa levels list (npx)", cmd: npx, args: ["hexa", "levels", "list"] },
  { what: "hexa --version (sources via tsx)", cmd: node, args: ["--import", "tsx", "src/cli/main.ts", "--version"] },
  { what: "hexa levels list (sources via tsx)", cmd: node, args: ["--import", "tsx", "src/cli/main.ts", "levels", "list"] },
  ...COMMAND_HELP.map((c) => ({ what: `hexa ${c} --help (bin)`, cmd: node, args: ["bin/hexa.js", ...c.split(" "), "--help"] })),
];

execaSync(node, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
const samples = ROWS.map(() => [] as number[]);
for (let round = -1; round < RUNS; round++) {
  ROWS.forEach((r, k) => {
    const t0 = performance.now();
    // Node's own spawnSync, not execa: the row times the child, and a launcher's option handling would add to every row.
    const out = spawnSync(r.cmd, r.args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    const t = performance.now() - t0;
    if (out.status !== 0) throw new Error(`${r.what}: exit ${out.status}\n${out.stderr}`);
    if (round >= 0) samples[k]!.push(t); // round -1 warms the disk cache and tsx's compile cache
  });
}
// An edit during the bench makes dist/ stale, and bin/ then runs the sources: those rows would be mislabelled.
if (!distIsFresh()) throw new Error("a source file changed during the bench, so bin/ ran the sources for some rows; run it again");
const base = median(samples[0]!);
printTable(
  ["command", "runs", "median ms", "p10 ms", "p90 ms", "× node -e 0"],
  ROWS.map((r, k) => [
    r.what,
    String(RUNS),
    ms(median(samples[k]!)),
    ms(percentile(samples[k]!, 0.1)),
    ms(percentile(samples[k]!, 0.9)),
    (median(samples[k]!) / base).toFixed(1),
  ]),
);
