import { defineCommand } from "../cli-kit/define-command.ts";
import type { AppContext } from "../app/context.ts";
import { ConfigError } from "../errors.ts";
import type { WorkersView } from "../backend/redis/registry.ts";

const ago = (ms: number) =>
  ms < 60_000
    ? `${(ms / 1000).toFixed(0)}s`
    : ms < 3600_000
      ? `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")}s`
      : `${(ms / 3600_000).toFixed(1)}h`;

/** The `hexa workers` table: a line per worker, then its jobs in flight, then the queues' backlog. */
export const renderWorkers = (v: WorkersView, now: number): string => {
  const head = ["worker", "state", "queues", "conc", "in flight", "done", "failed", "jobs/min", "up"];
  const rows = v.workers.map((w) => [
    w.name,
    w.lost ? `lost ${ago(now - w.at)}` : "up",
    w.queues.join(","),
    String(w.concurrency),
    String(w.active.length),
    String(w.completed),
    String(w.failed),
    String(w.lastMinute),
    ago(now - w.startedAt),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out = [line(head)];
  v.workers.forEach((w, i) => {
    out.push(line(rows[i]!));
    for (const a of w.active) out.push(`    ${a.queue}: ${a.id} (${ago(now - a.since)})`);
  });
  if (!v.workers.length) out.push("(no worker; start one with hexa worker --redis URL)");
  out.push(
    `waiting: ${Object.entries(v.waiting)
      .map(([q, n]) => `${q} ${n}`)
      .join(", ")}`,
  );
  return `${out.join("\n")}\n`;
};

export const workersCommand = (ctx: AppContext) =>
  defineCommand({
    command: "workers",
    describe: "list the hexa workers on a Redis: their jobs in flight and throughput",
    builder: (y) => y.option("redis", { type: "string", demandOption: true, describe: "the Redis the workers use, e.g. redis://127.0.0.1:6379" }),
    handler: async (argv) => {
      const [{ parseRedisUrl, redisLabel }, { readWorkers, WORKERS_KEY }] = await Promise.all([
        import("../backend/redis/connection.ts"),
        import("../backend/redis/registry.ts"),
      ]);
      const { redisTlsFiles, withTlsFiles } = await import("../backend/redis/tls-options.ts");
      const connection = withTlsFiles(parseRedisUrl(argv.redis, "--redis", process.env.HEXA_REDIS_PASSWORD), redisTlsFiles(process.env), "--redis");
      let view: WorkersView;
      try {
        view = await readWorkers(connection, Date.now(), ctx.families.queueKinds());
      } catch (e) {
        throw new ConfigError(`--redis ${redisLabel(connection)}: Redis does not answer (${(e as Error).message}); start redis-server there or fix the URL`);
      }
      for (const { field, why } of view.skipped)
        process.stderr.write(`hexa workers: skipped entry ${JSON.stringify(field.slice(0, 100))} of ${WORKERS_KEY}: not a worker beat (${why})\n`);
      process.stdout.write(renderWorkers(view, Date.now()));
    },
  });
