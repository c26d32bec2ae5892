import { ChromaClient, type Collection, type Metadata, type Where } from "chromadb";
import { BankEntry, foldEvents, type BankEvent } from "./bank.ts";
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

/** The text that is embedded: what a retriever should match a situation against (method.md §3 fields). */
const entryText = (e: BankEntry): string =>
  e.kind === "skill"
    ? [e.title, e.principle, `When to apply: ${e.whenToApply}`, e.example ?? ""].filter(Boolean).join("\n")
    : [e.description, `Root cause: ${e.rootCause}`, `Correction: ${e.correction}`].join("\n");

// Entry ids are stable only within a run, so the document id carries the run (and the level it ran on).
const docId = (m: IndexMeta, e: BankEntry) => `${m.run}/${m.level}/${e.id}`;

const whereOf = (conds: Record<string, string>[]): Where | undefined =>
  conds.length === 0 ? undefined : conds.length === 1 ? conds[0] : { $and: conds };

/** Connects a chromadb client to a server URL such as http://localhost:8000. */
export const chromaClient = (url: string): ChromaClient => {
  const u = new URL(url);
  const ssl = u.protocol === "https:";
  return new ChromaClient({ host: u.hostname, port: Number(u.port || (ssl ? 443 : 80)), ssl });
};

/**
 * The skill library across runs and levels, for semantic look-up. The bank event log is the record; this index
 * is a cache of it and rebuildFromEvents restores it exactly.
 */
export class SkillIndex {
  private constructor(
    private readonly collection: Collection,
    private readonly embedder: Embedder,
  ) {}

  /** Opens (or creates) the collection; cosine space because the embedders return unit vectors. */
  static async open(client: ChromaClient, embedder: Embedder, name = "hexa_skills"): Promise<SkillIndex> {
    const collection = await client.getOrCreateCollection({ name, embeddingFunction: null, configuration: { hnsw: { space: "cosine" } } });
    return new SkillIndex(collection, embedder);
  }

  async upsert(entries: readonly BankEntry[], meta: IndexMeta): Promise<void> {
    if (entries.length === 0) return;
    const embeddings = await this.embedder.embed(entries.map(entryText));
    await this.collection.upsert({
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
    });
  }

  /** The closest entries to text, best first, optionally only from one level and/or of one kind. */
  async query(text: string, q: IndexQuery): Promise<IndexHit[]> {
    const [embedding] = await this.embedder.embed([text]);
    const conds: Record<string, string>[] = [];
    if (q.level !== undefined) conds.push({ level: q.level });
    if (q.kind !== undefined) conds.push({ kind: q.kind });
    const res = await this.collection.query({
      queryEmbeddings: [embedding!],
      nResults: q.limit,
      where: whereOf(conds),
      include: ["metadatas", "distances"],
    });
    const metas = res.metadatas[0] ?? [];
    const dists = res.distances[0] ?? [];
    return metas.flatMap((m, i) =>
      m
        ? [
            {
              entry: BankEntry.parse(JSON.parse(String(m.entry))),
              score: 1 - (dists[i] ?? 1),
              level: String(m.level),
              run: String(m.run),
              status: String(m.status),
            },
          ]
        : [],
    );
  }

  /** Every entry of one run, in no particular order (for checks and exports). */
  async entriesOf(run: string): Promise<BankEntry[]> {
    const res = await this.collection.get({ where: { run }, include: ["metadatas"] });
    return res.metadatas.flatMap((m) => (m ? [BankEntry.parse(JSON.parse(String(m.entry)))] : []));
  }

  /** Replaces each run's documents on its level with its folded bank, so pruned and merged entries disappear too. */
  async rebuildFromEvents(runs: readonly RunEvents[]): Promise<void> {
    for (const r of runs) {
      await this.collection.delete({ where: whereOf([{ run: r.run }, { level: r.level }]) });
      const bank = foldEvents(r.events);
      await this.upsert([...bank.skills, ...bank.mistakes], { level: r.level, run: r.run, status: r.status });
    }
  }

  count(): Promise<number> {
    return this.collection.count();
  }
}
