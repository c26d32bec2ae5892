import { AsyncLocalStorage } from "node:async_hooks";
import { ChromaClient, type Collection, type Metadata, type Where } from "chromadb";
import { ConfigError } from "../errors.ts";
import { type Failure, withRetries } from "../util/retry.ts";
import { BankEntry, foldEvents, type BankEvent } from "./bank.ts";
import { supervisedReady } from "./chroma-server.ts";
import type { Embedder } from "./embedding.ts";

/** Where an entry came from; stored as Chroma metadata so queries can filter on it. */
export interface IndexMeta {
  level: string;
  run: string;
  /** The run's state when indexed, e.g. "running" or "final"; a filter for callers, not interpreted here. */
  status: string;
}

export interface IndexHit {
  entry: BankEntry;
  /** Cosine similarity to the query, in [-1, 1]; higher is closer. */
  score: number;
  level: string;
  run: string;
  status: string;
}

export interface IndexQuery {
  level?: string;
  kind?: BankEntry["kind"];
  limit: number;
}

/** One run's event log on one level: the record the index is rebuilt from. */
export interface RunEvents extends IndexMeta {
  events: readonly BankEvent[];
}

/** The text that is embedded: what a retriever should match a situation against (docs/spec/method.md §3 fields). */
const entryText = (e: BankEntry): string =>
  e.kind === "skill"
    ? [e.title, e.principle, `When to apply: ${e.whenToApply}`, e.example ?? ""].filter(Boolean).join("\n")
    : [e.description, `Root cause: ${e.rootCause}`, `Correction: ${e.correction}`].join("\n");

// Entry ids are stable only within a run, so the document id carries the run (and the level it ran on).
const docId = (m: IndexMeta, e: BankEntry) => `${m.run}/${m.level}/${e.id}`;

const whereOf = (conds: Record<string, string>[]): Where | undefined => (conds.length === 0 ? undefined : conds.length === 1 ? conds[0] : { $and: conds });

/** How each Chroma call is bounded: a deadline, retries with backoff, a wait for a restart. */
export interface ChromaCallOptions {
  /** One call's deadline in ms; a server that answers the heartbeat but not the request is abandoned here. */
  timeoutMs?: number;
  /** Retries after a dropped connection, a 5xx, a 429 or an answer that is not Chroma's; at most one after a timeout. */
  retries?: number;
  /** Resolves once the server answers again; default: the embedded supervisor's, when hexa started the server. */
  ready?: () => Promise<void>;
  /** Backoff sleep (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_RETRIES = 5;

// The deadline of the call in progress, read by the request interceptor below (calls may overlap).
const deadlines = new AsyncLocalStorage<AbortSignal>();
const urls = new WeakMap<ChromaClient, string>();

/** The client's HTTP layer: chromadb builds every Request through it but does not export its type. */
interface Interceptable {
  interceptors?: { request?: { use(fn: (req: Request) => Request | Promise<Request>): void } };
}

/** Connects a chromadb client to a server URL such as http://localhost:8000; each request carries its call's deadline. */
export const chromaClient = (url: string): ChromaClient => {
  const u = new URL(url);
  const ssl = u.protocol === "https:";
  const client = new ChromaClient({ host: u.hostname, port: Number(u.port || (ssl ? 443 : 80)), ssl });
  urls.set(client, url.replace(/\/+$/, ""));
  // Without it a timed-out request would stay open; the deadline itself holds either way (see ChromaCaller).
  const http = (client as unknown as { apiClient?: Interceptable }).apiClient;
  http?.interceptors?.request?.use((req) => {
    const signal = deadlines.getStore();
    return signal ? new Request(req, { signal }) : req;
  });
  return client;
};

/** 200 ms doubling per retry; used without jitter (random: () => 1). */
const BACKOFF = { baseMs: 200, capMs: 30_000 };

/** chromadb's error classes, told apart by name (its HTTP layer maps statuses onto them). */
type Kind =
  | { kind: "timeout" }
  | { kind: "connect" }
  | { kind: "server"; detail: string }
  | { kind: "refused"; detail: string }
  | { kind: "malformed"; detail: string };

const firstLine = (e: unknown) => (e instanceof Error ? `${e.name === "Error" ? "" : `${e.name}: `}${e.message}` : String(e)).split("\n")[0]!.slice(0, 200);

/** Thrown by an attempt whose deadline passed, whatever the call was doing then. */
class DeadlinePassed extends Error {}

const kindOf = (e: unknown): Kind => {
  if (e instanceof DeadlinePassed) return { kind: "timeout" };
  const name = e instanceof Error ? e.name : "";
  if (e instanceof ConfigError) return { kind: "refused", detail: e.message };
  switch (name) {
    case "ChromaConnectionError":
      return { kind: "connect" };
    case "ChromaServerError":
      return { kind: "server", detail: (e as Error).message };
    case "ChromaRateLimitError":
      return { kind: "server", detail: "HTTP 429 rate limited" };
    case "ChromaClientError":
    case "ChromaUnauthorizedError":
    case "ChromaForbiddenError":
    case "ChromaNotFoundError":
    case "ChromaValueError":
    case "ChromaUniqueError":
    case "ChromaQuotaExceededError":
    case "InvalidArgumentError":
    case "InvalidCollectionError":
      return { kind: "refused", detail: firstLine(e) };
    default:
      // TypeError, SyntaxError, ZodError: the answer was not what Chroma sends.
      return { kind: "malformed", detail: firstLine(e) };
  }
};

const rejectOnAbort = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));

/** The bounded, retrying way to call Chroma; every failure ends as a ConfigError that says what to check. */
class ChromaCaller {
  constructor(
    readonly url: string,
    private readonly o: Omit<ChromaCallOptions, "timeoutMs" | "retries"> & Required<Pick<ChromaCallOptions, "timeoutMs" | "retries">>,
  ) {}

  call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    let timeouts = 0;
    return withRetries(() => this.attempt(fn), {
      maxRetries: this.o.retries,
      classify: (e) => {
        const k = kindOf(e);
        if (k.kind === "timeout") timeouts++;
        return this.failure(k, timeouts);
      },
      giveUp: (_, attempts, failure) => this.refusal(what, attempts, failure),
      backoff: BACKOFF,
      random: () => 1,
      ...(this.o.sleep ? { sleep: this.o.sleep } : {}),
    });
  }

  /** One try under its deadline; the request itself is aborted too (see chromaClient). */
  private async attempt<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
    try {
      return await Promise.race([deadlines.run(deadline.signal, fn), rejectOnAbort(deadline.signal)]);
    } catch (e) {
      throw deadline.signal.aborted ? new DeadlinePassed() : e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A dropped connection, a server error or a foreign answer is retried; a timeout once. */
  private failure(k: Kind, timeouts: number): Failure & Kind {
    const retryable = k.kind === "connect" || k.kind === "malformed" || k.kind === "server" || (k.kind === "timeout" && timeouts < 2);
    // A killed embedded server is being restarted: wait for it (its failure to come back is the clear error).
    const ready = (k.kind === "connect" || k.kind === "timeout") && this.o.ready;
    return { ...k, retryable, reason: k.kind, ...(ready ? { recovery: ready } : {}) };
  }

  private refusal(what: string, attempt: number, failure: Kind): ConfigError {
    const fix = `check the Chroma server at ${this.url} or unset CHROMA_URL to let hexa start its own`;
    const attempts = `${attempt} attempt${attempt === 1 ? "" : "s"}`;
    switch (failure.kind) {
      case "timeout":
        return new ConfigError(`chroma: ${what} at ${this.url} got no answer within ${this.o.timeoutMs} ms (${attempts}); ${fix}`);
      case "connect":
        return new ConfigError(`chroma: ${what} at ${this.url} could not connect (${attempts}); ${fix}`);
      case "server":
        return new ConfigError(`chroma: ${what} at ${this.url} failed with a server error (got ${failure.detail}) after ${attempts}; ${fix}`);
      case "malformed":
        return new ConfigError(`chroma: ${what} at ${this.url} gave an answer that is not Chroma's (got ${failure.detail}) after ${attempts}; ${fix}`);
      case "refused":
        return new ConfigError(`chroma: ${what} at ${this.url} was refused (got ${failure.detail}); ${fix}`);
    }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A query or get result has the arrays asked for. chromadb fills missing fields with [], so a body such as
 * `{"unexpected":true}` would read as "no hits"; only a real answer echoes `include`.
 */
const expectArrays = <T extends object>(res: T, keys: (keyof T & string)[]): T => {
  for (const k of keys) if (!Array.isArray((res as Record<string, unknown>)[k])) throw new TypeError(`no ${k} array in the answer`);
  return res;
};

const entryOf = (m: Metadata): BankEntry => BankEntry.parse(JSON.parse(String(m.entry)));

/**
 * The skill library across runs and levels, for semantic look-up. The bank event log is the record; this index
 * is a cache of it and rebuildFromEvents restores it exactly.
 */
export class SkillIndex {
  private constructor(
    private readonly collection: Collection,
    private readonly embedder: Embedder,
    private readonly chroma: ChromaCaller,
  ) {}

  /** Opens (or creates) the collection; cosine space because the embedders return unit vectors. */
  static async open(client: ChromaClient, embedder: Embedder, name = "hexa_skills", opts: ChromaCallOptions = {}): Promise<SkillIndex> {
    const url = urls.get(client) ?? "the Chroma server";
    const ready = opts.ready ?? supervisedReady(url);
    const chroma = new ChromaCaller(url, {
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: opts.retries ?? DEFAULT_RETRIES,
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
      ...(ready ? { ready } : {}),
    });
    const collection = await chroma.call(`open collection ${name}`, async () => {
      const c = await client.getOrCreateCollection({ name, embeddingFunction: null, configuration: { hnsw: { space: "cosine" } } });
      if (typeof c.id !== "string" || !c.id) throw new TypeError("no collection id in the answer");
      return c;
    });
    return new SkillIndex(collection, embedder, chroma);
  }

  async upsert(entries: readonly BankEntry[], meta: IndexMeta): Promise<void> {
    if (entries.length === 0) return;
    const embeddings = await this.embedder.embed(entries.map(entryText));
    const record = {
      ids: entries.map((e) => docId(meta, e)),
      embeddings,
      documents: entries.map(entryText),
      metadatas: entries.map(
        (e): Metadata => ({
          level: meta.level,
          run: meta.run,
          status: meta.status,
          kind: e.kind,
          weight: e.weight,
          generation: e.generation,
          entryId: e.id,
          // The whole entry, so a hit needs no second look-up in the event log.
          entry: JSON.stringify(e),
        }),
      ),
    };
    // Upsert by id is idempotent, so a retry after a restart that may have applied it is safe.
    await this.chroma.call("upsert", () => this.collection.upsert(record));
  }

  /** The closest entries to text, best first, optionally only from one level and/or of one kind. */
  async query(text: string, q: IndexQuery): Promise<IndexHit[]> {
    const [embedding] = await this.embedder.embed([text]);
    const conds: Record<string, string>[] = [];
    if (q.level !== undefined) conds.push({ level: q.level });
    if (q.kind !== undefined) conds.push({ kind: q.kind });
    return this.chroma.call("query", async () => {
      const res = expectArrays(
        await this.collection.query({
          queryEmbeddings: [embedding!],
          nResults: q.limit,
          where: whereOf(conds),
          include: ["metadatas", "distances"],
        }),
        ["include", "ids", "metadatas", "distances"],
      );
      const metas = res.metadatas[0] ?? [];
      const dists = res.distances[0] ?? [];
      return metas.flatMap((m, i) =>
        isRecord(m) ? [{ entry: entryOf(m), score: 1 - (dists[i] ?? 1), level: String(m.level), run: String(m.run), status: String(m.status) }] : [],
      );
    });
  }

  /** Every entry of one run, in no particular order (for checks and exports). */
  async entriesOf(run: string): Promise<BankEntry[]> {
    return this.chroma.call("get", async () => {
      const res = expectArrays(await this.collection.get({ where: { run }, include: ["metadatas"] }), ["include", "ids", "metadatas"]);
      return res.metadatas.flatMap((m) => (isRecord(m) ? [entryOf(m)] : []));
    });
  }

  /** Replaces each run's documents on its level with its folded bank, so pruned and merged entries disappear too. */
  async rebuildFromEvents(runs: readonly RunEvents[]): Promise<void> {
    for (const r of runs) {
      await this.chroma.call("delete", () => this.collection.delete({ where: whereOf([{ run: r.run }, { level: r.level }]) }));
      const bank = foldEvents(r.events);
      await this.upsert([...bank.skills, ...bank.mistakes], { level: r.level, run: r.run, status: r.status });
    }
  }

  count(): Promise<number> {
    return this.chroma.call("count", async () => {
      const n = await this.collection.count();
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new TypeError(`a count that is not a number (${JSON.stringify(n)?.slice(0, 60)})`);
      return n;
    });
  }
}
