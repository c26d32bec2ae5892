/**
 * Benchmark pages written by the bench scripts themselves (docs/benchmarks/README.md): a script calls
 * `recordPage(name)` first; run with `--write-page`, it copies its stdout and, when it exits with status 0,
 * writes docs/benchmarks/<name>.md: a title, the exact command, the commit (and "+ uncommitted changes"), the
 * machine (CPU model, cores, memory, Node version), the date, the load average at start and end, then what it
 * printed (its tables and verdict lines) verbatim. No narrative. Without `--write-page` it only prints.
 */
import { execaSync } from "execa";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_PAGES, type BenchPageName } from "./pages.ts";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const PAGES_DIR = join(ROOT, "docs", "benchmarks");
export const WRITE_PAGE_FLAG = "--write-page";

export interface PageHeader {
  title: string;
  command: string;
  /** `<sha>` or `<sha> + uncommitted changes`; `unknown (…)` outside a git checkout. */
  commit: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; platform: string };
  /** ISO time at the start and at the end. */
  started: string;
  finished: string;
  /** os.loadavg() (1, 5, 15 min) at the start and at the end. */
  loadStart: readonly number[];
  loadEnd: readonly number[];
}

/**
 * The checkout's commit, marked when tracked files differ from it. Untracked files do not count, nor do the pages
 * themselves (docs/benchmarks/*.md): a page just written by one bench changes nothing another measures.
 */
export const gitCommit = (cwd: string = ROOT): string => {
  try {
    const git = (...args: string[]) => execaSync("git", args, { cwd, stdin: "ignore", stderr: "ignore" }).stdout.trim();
    const sha = git("rev-parse", "HEAD");
    const changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude,glob)docs/benchmarks/*.md");
    return changed ? `${sha} + uncommitted changes` : sha;
  } catch (e) {
    return `unknown (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`;
  }
};

export const machineInfo = (): PageHeader["machine"] => ({
  cpu: os.cpus()[0]?.model.trim() ?? "unknown",
  cores: os.availableParallelism(),
  memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
  node: process.version,
  platform: `${process.platform}/${process.arch}`,
});

const quote = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);

/** How to run this script again from the repository root: `node --import tsx bench/<x>.ts <its arguments>`. */
export const commandLine = (argv: readonly string[] = process.argv): string =>
  ["node", "--import", "tsx", relative(ROOT, argv[1] ?? "bench/?.ts"), ...argv.slice(2)].map(quote).join(" ");

const loads = (l: readonly number[]): string => l.map((v) => v.toFixed(2)).join(" / ");

/** The page: header fields first (one per line, each labelled), then the output in a text block. */
export const renderPage = (h: PageHeader, output: string): string => {
  const m = h.machine;
  const body = output.replace(/\s+$/, "").replaceAll("```", "'''");
  return [
    `# ${h.title}`,
    "",
    `- Command: \`${h.command}\``,
    `- Commit: ${h.commit}`,
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, Node ${m.node}, ${m.platform}`,
    `- Date: ${h.started} to ${h.finished}`,
    `- Load average (1 / 5 / 15 min): ${loads(h.loadStart)} at start, ${loads(h.loadEnd)} at end`,
    "",
    "Written by the command above (docs/benchmarks/README.md); what it printed:",
    "",
    "```text",
    body,
    "```",
    "",
  ].join("\n");
};

/**
 * Start recording this run's page when `--write-page` is among the arguments: stdout is copied as it is written,
 * and on a clean exit (status 0) `<dir>/<name>.md` is written. `dir` defaults to docs/benchmarks/.
 */
export const recordPage = (name: BenchPageName, opts: { dir?: string; argv?: readonly string[] } = {}): void => {
  const argv = opts.argv ?? process.argv;
  if (!argv.includes(WRITE_PAGE_FLAG)) return;
  const started = new Date().toISOString();
  const loadStart = os.loadavg();
  // Taken now: the run's own data files, written before the page, must not read as changes to the code it ran.
  const commit = gitCommit();
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.once("exit", (code) => {
    if (code !== 0) return;
    const header: PageHeader = {
      title: BENCH_PAGES[name].title,
      command: commandLine(argv),
      commit,
      machine: machineInfo(),
      started,
      finished: new Date().toISOString(),
      loadStart,
      loadEnd: os.loadavg(),
    };
    const file = join(opts.dir ?? PAGES_DIR, `${name}.md`);
    writeFileSync(file, renderPage(header, chunks.join("")));
    process.stderr.write(`page written: ${relative(ROOT, file)}\n`);
  });
};
