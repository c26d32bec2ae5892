import { ConfigError } from "../errors.ts";
import type { CodeVersion } from "../store/run-records.ts";
import type { LevelFamily } from "./family.ts";
import type { ReplayCapability } from "./replay.ts";

/**
 * A keyed registry (levels, tools, tasks): explicit entries, one way in, and an unknown key named with the
 * known ones (docs/spec/style.md: registries are explicit lists).
 */
export const keyedRegistry = <T, K extends string = string>(what: string, entries: Record<K, T>) => {
  const keys = Object.keys(entries) as K[];
  const has = (key: string): key is K => Object.hasOwn(entries, key);
  return {
    list: (): K[] => [...keys],
    has,
    get: (key: string): T => {
      if (!has(key)) throw new ConfigError(`unknown ${what} '${key}'; known: ${keys.join(", ")}`);
      return entries[key];
    },
  };
};

/** What a family's queue handler does with one job (the job's data → its result; `progress` reaches the coordinator). */
export type FamilyJobHandler = (data: unknown, jobId: string, progress: (p: object) => Promise<void>) => Promise<unknown>;

/**
 * Where the worker's queues are. src/family names no backend: the worker passes its queue backend's connection
 * (src/backend/redis/connection.ts), and a family's worker code hands it back to that backend's helpers.
 */
export interface QueueConnection {
  host: string;
  port: number;
}

/**
 * A command a family adds to `hexa`, made with src/cli-kit/ (`lazyCommand`, `defineCommand`); src/family names no
 * CLI library, and src/cli gives it to yargs (src/cli-kit/lazy-command.ts `asYargsCommand`).
 */
export interface FamilyCommand {
  readonly command?: string | readonly string[];
  readonly describe?: string | false;
}

/** What `hexa worker` gives a family that serves queues of its own. */
export interface FamilyWorkerContext {
  connection: QueueConnection;
  /** The worker's hexa, which every job it takes must match. */
  hexa: CodeVersion;
  log: (line: string) => void;
  /** This worker's name, known once it has started. */
  workerName: () => string;
  /** The family's slice of worker.yaml (under the family's id; undefined when absent): the worker's own settings, which jobs cannot change. */
  settings: unknown;
  /** The worker's own folder for its files, `<runsDir>/.workers`, absolute: a job names no path (docs/security.md). */
  workerDir: string;
  /** A job's data as the family queues it, signed with the worker's job key (none: unchanged). */
  sign<T extends object>(kind: string, jobId: string, data: T): T;
  /** Why a result read back from the family's queue must be refused for its signature (not the job key's), or null (docs/security.md). */
  resultProblem(kind: string, jobId: string, result: unknown): string | null;
}

/**
 * A queue backend as the coordinator of a run or search uses it (`--backend redis://…`): its connection, checked with
 * the job key and TLS by the composition root (src/app/backend.ts), and the signing of jobs and results.
 */
export type QueueAccess = Pick<FamilyWorkerContext, "connection" | "hexa" | "log" | "sign" | "resultProblem">;

/** The family's side of `hexa worker`: called before any family is built, so it may route its heavy jobs to its queues. */
export interface FamilyWorker {
  /** The queue kinds the family adds beside `episodes`, e.g. `trainings`. */
  queues: readonly string[];
  serve(ctx: FamilyWorkerContext): Promise<{ handlers: Record<string, FamilyJobHandler>; close(): Promise<unknown> }>;
  /**
   * On the coordinator of a whole search on a queue backend (`hexa run --backend` with a search method): the heavy
   * jobs the family does itself go to its queues from now on (reward search: its trainings); absent: they stay here.
   */
  coordinate?(access: QueueAccess): Promise<void>;
}

/** `hexa levels list`: a header and one row per level; the last column is shortened to fit a line. */
export interface FamilyListing {
  header: readonly string[];
  rows: readonly (readonly string[])[];
}

/**
 * A level family as the CLI registers it (levels/index.ts lists them). Its core is `id`, `title`, `build` (the
 * family itself, built once per process when first used) and `listing`; the rest are optional capabilities: what
 * the family adds to the command line, its worker queues and its replay. Generic commands know a family only
 * through this.
 */
export interface FamilyModule {
  id: string;
  /** One line for `hexa levels list --family` and errors. */
  title: string;
  /** Builds the family; a promise lets it import its modules only when a command first needs it (the CLI starts fast). */
  build(): LevelFamily | Promise<LevelFamily>;
  /** `hexa levels list`'s table, without building the family: a listing imports only what names the levels. */
  listing(): Promise<FamilyListing>;
  /** Top-level commands the family adds (e.g. `hexa play`, `hexa trainer`); src/cli-kit/lazy-command.ts keeps them light. */
  commands?: readonly FamilyCommand[];
  /** Subcommands the family adds under `hexa levels` (e.g. `certify`, `show`). */
  levelCommands?: readonly FamilyCommand[];
  /** Queues the family serves on `hexa worker` beside `episodes` (reward search: `trainings`); absent: none. */
  worker?: FamilyWorker;
  /** What `hexa verify` and `hexa bundle` need of the family beyond its tools (its records of heavy work); absent: nothing. */
  replay?: ReplayCapability;
  /** Folders of the family's own kind that `hexa inspect` shows as a page of their own (reward search: a hexa judge folder, a p2p search); absent: none. */
  inspect?: FamilyInspect;
}

/** A family's own folders under `hexa inspect`: which it claims, and each one's page. */
export interface FamilyInspect {
  /** Whether `dir` is such a folder (cheap: a file's presence). */
  claims(dir: string): boolean;
  /** The folder's self-contained HTML page and one line for the terminal; `live`: the page follows `hexa inspect --serve`. */
  page(dir: string, opts?: { live: boolean }): Promise<{ html: string; summary: string }>;
  /** For a folder still being written (a search): what changes as it is, so `--serve` rebuilds the page; absent: --serve is refused. */
  signature?(dir: string): string | undefined;
}
