import { join } from "node:path";
import type { AppContext } from "../app/context.ts";
import { ConfigError } from "../errors.ts";
import type { Report } from "../report/inspect/model.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { writeOutput } from "../cli-kit/write-file.ts";
import { terminalText } from "../util/terminal-text.ts";
import { ANIMATIONS, type Animations } from "../app/inspect-animations.ts";

/**
 * `hexa inspect RUN_DIR|COMPARE_DIR|SEARCH_DIR` (docs/ARCHITECTURE.md §8): a self-contained HTML report of a run or a
 * comparison, with the lineage of every reward search (candidates.jsonl) found in it, or with --serve the same
 * page on 127.0.0.1, following the run as it writes.
 */
export const inspectCommand = (ctx: AppContext) =>
  defineCommand({
    command: "inspect <dir>",
    describe:
      "a self-contained HTML report of a run or a comparison (learning curves, the bank over time, every episode) and of searches (the lineage of every candidate); --serve follows a live run",
    builder: (y) =>
      y
        .positional("dir", {
          type: "string",
          demandOption: true,
          describe:
            "a run directory (runs/<id>), a directory of runs to compare, a hexa search directory (or a directory of them), or a hexa judge folder (judgment.json)",
        })
        .option("out", { type: "string", describe: "where to write the HTML (default DIR/report.html)" })
        .option("serve", { type: "boolean", default: false, describe: "serve the report on 127.0.0.1 and refresh it as the run writes" })
        .option("port", { type: "string", default: 8787, coerce: intFlag("port", 0, 65535), describe: "port for --serve (0: any free port)" })
        .option("animations", {
          type: "string",
          choices: ANIMATIONS,
          default: "last" as Animations,
          describe: "rollout GIFs embedded in the file: the last solved episode of each level, all (50–200 kB each), or none; --serve makes any on demand",
        }),
    handler: async (argv) => {
      // The report's modules are loaded only here: `hexa inspect --help` starts fast.
      const [{ renderReportHtml }, { attestationLines }, { findTarget }, { serve, servePage }, { build, drawerFor, kib, pageAssets, writeFamilyPages }] =
        await Promise.all([
          import("../report/inspect/html.ts"),
          import("../report/inspect/attestation-view.ts"),
          import("../app/inspect-load.ts"),
          import("./inspect-serve.ts"),
          import("../app/inspect-report.ts"),
        ]);
      const own = ctx.families.modules().find((m) => m.inspect?.claims(argv.dir))?.inspect;
      if (own) {
        if (argv.serve) {
          const watch = own.signature?.(argv.dir);
          if (watch === undefined) throw new ConfigError(`--serve: ${argv.dir} is a finished folder of its family's (not a run to follow); leave out --serve`);
          if (argv.out !== undefined) throw new ConfigError("--out: not used with --serve (the page is served, not written); drop one of them");
          const dir = argv.dir;
          const signature = () => own.signature?.(dir) ?? "";
          await servePage({ path: dir, signature, page: async () => (await own.page(dir, { live: true })).html }, argv.port);
          return;
        }
        const page = await own.page(argv.dir);
        const out = argv.out ?? join(argv.dir, "report.html");
        writeOutput("out", out, page.html);
        process.stdout.write(terminalText(`wrote ${out} (${kib(Buffer.byteLength(page.html))}: ${page.summary})\n`));
        return;
      }
      const target = findTarget(argv.dir);
      const animations = argv.animations;
      if (argv.serve) {
        if (argv.out !== undefined) throw new ConfigError("--out: not used with --serve (the page is served, not written); drop one of them");
        const page = (report: Report) => renderReportHtml(report, pageAssets(), { live: true });
        await serve({ target, build: () => build(ctx.families, target, animations), page, drawerFor: (family) => drawerFor(ctx.families, family) }, argv.port);
        return;
      }
      const t0 = performance.now();
      const { report } = build(ctx.families, target, animations);
      const html = renderReportHtml(report, pageAssets(), { live: false });
      const ms = performance.now() - t0;
      const out = argv.out ?? join(target.path, "report.html");
      writeOutput("out", out, html);
      const episodes = report.cells.flatMap((c) => c.runs).reduce((n, r) => n + r.episodes.length, 0);
      const gifs = report.cells.flatMap((c) => c.runs).reduce((n, r) => n + r.episodes.filter((e) => e.animation).length, 0);
      process.stdout.write(`wrote ${out} (${kib(Buffer.byteLength(html))}: ${episodes} episodes, ${gifs} animations; built in ${(ms / 1000).toFixed(2)} s)\n`);
      if (report.searches.length) {
        const n = report.searches.reduce((k, s) => k + s.candidates.length, 0);
        process.stdout.write(
          terminalText(`lineage of ${report.searches.length} search(es), ${n} candidates: ${report.searches.map((s) => s.name).join(", ")}\n`),
        );
      }
      for (const line of await writeFamilyPages(ctx.families, target.path)) process.stdout.write(`${terminalText(line)}\n`);
      report.attestations.flatMap(attestationLines).forEach((line) => process.stdout.write(`${terminalText(line)}\n`));
      report.notices.forEach((n) => process.stdout.write(`notice: ${terminalText(n)}\n`));
    },
  });
