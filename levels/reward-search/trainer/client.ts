import { fileURLToPath } from "node:url";
import { ConfigError } from "../../../src/errors.ts";
import type { StartOptions, TrainerClient } from "./client-types.ts";
import { MAX_TRAINER_LINE_BYTES } from "./host-limits.ts";
import { readBoundedLines } from "./line-reader.ts";
import { TrainerConnection } from "./trainer-connection.ts";

/**
 * The host side of the trainer protocol: starts a trainer command with execa, checks its hello, sends jobs,
 * streams their progress and enforces per-job budgets and deadlines. A trainer that is missing, exits, speaks
 * another protocol version, prints anything but protocol lines, a line over the length limit or a result that
 * fails the host's check (result-check.ts) is a TrainerError naming the command; every job in flight fails with it.
 * The process's states and their transitions are in trainer-state.ts.
 */

export {
  TrainerError,
  type JobError,
  type JobOutcome,
  type JobProgress,
  type JobResult,
  type StartOptions,
  type TrainerClient,
  type TrainJob,
} from "./client-types.ts";

const builtinTrainerScript = fileURLToPath(new URL("../../../bin/hexa-trainer.js", import.meta.url));
const builtinTrainerCommand = (): string[] => [process.execPath, builtinTrainerScript];

export const describeCommand = (command: readonly string[]): string =>
  command[1] === builtinTrainerScript && command.length === 2
    ? "the built-in trainer (bin/hexa-trainer.js)"
    : `trainer command ${JSON.stringify(command.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" "))}`;

/** Spawns the trainer and resolves once its hello is valid; the client's jobs run through a TrainerConnection. */
export const startTrainer = async (opts: StartOptions = {}): Promise<TrainerClient> => {
  const command = opts.command ?? builtinTrainerCommand();
  if (command.length === 0) throw new ConfigError("trainer.command is empty; give a program and its arguments, or leave it unset");
  const maxLineBytes = opts.maxLineBytes ?? MAX_TRAINER_LINE_BYTES;
  // Imported here: every `hexa run` builds this family to read its config, and only a training spawns a trainer.
  const { execa } = await import("execa");
  const t0 = Date.now();
  const sub = execa(command[0]!, command.slice(1), {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    cleanup: true,
    forceKillAfterDelay: 2_000,
    ...(opts.env ? { env: opts.env } : {}),
  });
  sub.stdin?.on("error", () => {}); // EPIPE after the trainer died: reported through its exit instead
  const conn = new TrainerConnection(sub, command, describeCommand(command), { ...opts, cancelGraceMs: opts.cancelGraceMs ?? 5_000 });
  const onStderr = (line: string) => conn.onStderr(line);
  readBoundedLines(sub.stderr!, maxLineBytes, onStderr, () => onStderr(`(a stderr line longer than ${maxLineBytes} bytes, not kept)`));
  readBoundedLines(
    sub.stdout!,
    maxLineBytes,
    (line) => conn.onLine(line),
    () => conn.protocolError(`printed a line longer than ${maxLineBytes} bytes, the most a protocol line may hold (a result is far smaller)`),
  );
  const hello = await conn.waitForHello(opts.startTimeoutMs ?? 60_000);
  const concurrency = hello.concurrency ?? 1;
  return {
    command,
    hello,
    startMs: Date.now() - t0,
    get failure() {
      return conn.machine.failure;
    },
    train: (job, topts = {}) => conn.train(job, topts, concurrency),
    close: () => conn.close(),
    exit: conn.exited.then(() => conn.exitInfo),
  };
};
