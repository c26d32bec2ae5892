import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { BankEvent, foldEvents, type BankEntry, type BankEventInput, type Mistake, type Skill } from "./bank.ts";
import { SkillIndex, chromaClient } from "./chroma-index.ts";
import { startChroma, type EmbeddedChroma } from "./chroma-server.ts";
import { localEmbedder } from "./embedding.ts";

const skill = (id: string, title: string, principle: string, whenToApply: string, over: Partial<Skill> = {}): Skill => ({
  kind: "skill",
  id,
  title,
  principle,
  whenToApply,
  sourceType: "contrastive",
  sourceSeeds: [1],
  generation: 0,
  weight: 0.5,
  parents: [],
  evidence: { sumR: 1, count: 2 },
  ...over,
});
const mistake = (id: string, description: string, rootCause: string, correction: string): Mistake => ({
  kind: "mistake",
  id,
  description,
  rootCause,
  correction,
  sourceSeeds: [2],
  generation: 1,
  weight: 0.4,
  parents: [],
  evidence: { sumR: 0, count: 1 },
});

const ramp = skill("s-ramp", "Roll down the ramp", "A ball released high on the ramp rolls down and gains speed.", "the target sits at the foot of a ramp");
const stack = skill(
  "s-stack",
  "Topple the stack",
  "Hit the top of a tall stack of blocks so it topples over sideways.",
  "a tower of blocks stands next to the goal",
);
const lever = skill("s-lever", "Use the lever", "Drop a heavy ball on the long arm of the lever to catapult the green ball.", "a plank rests on a pivot", {
  generation: 2,
});
const miss = mistake("m-small", "The ball was too small to push the block", "believed any ball moves any block", "use a radius above 1.0 for heavy blocks");

const events: BankEventInput[] = [
  { schemaVersion: 1, type: "add", round: 0, entry: ramp },
  { schemaVersion: 1, type: "add", round: 0, entry: stack },
  { schemaVersion: 1, type: "add", round: 1, entry: miss },
  { schemaVersion: 1, type: "add", round: 1, entry: lever },
  { schemaVersion: 1, type: "reweight", round: 2, id: "s-ramp", weight: 0.9, evidenceState: { sumR: 3, count: 3 } },
  { schemaVersion: 1, type: "prune", round: 2, id: "s-stack", why: "low_weight" },
];

const root = mkdtempSync(join(tmpdir(), "hexa-index-"));
let chroma: EmbeddedChroma;
let index: SkillIndex;

beforeAll(async () => {
  chroma = await startChroma({ dataDir: join(root, "chroma") });
  index = await SkillIndex.open(chromaClient(chroma.url), localEmbedder(384), "test_skills");
});
afterAll(async () => {
  await chroma?.stop();
  rmSync(root, { recursive: true, force: true });
});

const ids = (entries: { entry: BankEntry }[]) => entries.map((h) => h.entry.id);

describe("SkillIndex", () => {
  it("upserts entries and returns the most similar first, filtered by level and kind", async () => {
    await index.upsert([ramp, stack, lever, miss], { level: "catapult", run: "r1", status: "running" });
    await index.upsert([stack], { level: "falling_tower", run: "r2", status: "final" });
    expect(await index.count()).toBe(5);

    const hits = await index.query("a heavy ball lands on the lever arm and launches the green ball", { limit: 3 });
    expect(hits[0]!.entry).toEqual(lever);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]).toMatchObject({ level: "catapult", run: "r1", status: "running" });

    const towers = await index.query("knock over the tower of blocks", { level: "falling_tower", limit: 5 });
    expect(towers.map((h) => [h.entry.id, h.level])).toEqual([["s-stack", "falling_tower"]]);

    const mistakes = await index.query("ball too small to push a block", { level: "catapult", kind: "mistake", limit: 5 });
    expect(ids(mistakes)).toEqual(["m-small"]);

    // Upsert replaces by (run, level, id) rather than duplicating.
    await index.upsert([{ ...ramp, weight: 0.7 }], { level: "catapult", run: "r1", status: "running" });
    expect(await index.count()).toBe(5);
  });

  it("rebuilds a run from its events to exactly the folded bank", async () => {
    const parsed = events.map((e) => BankEvent.parse(e));
    await index.rebuildFromEvents([{ run: "r1", level: "catapult", status: "final", events: parsed }]);
    const bank = foldEvents(parsed);
    const byId = (a: BankEntry, b: BankEntry) => a.id.localeCompare(b.id);
    expect((await index.entriesOf("r1")).sort(byId)).toEqual([...bank.skills, ...bank.mistakes].sort(byId));
    // The pruned skill is gone from r1 but r2's copy stays; the reweight is reflected.
    expect(await index.count()).toBe(4);
    const [top] = await index.query("release the ball high on the ramp", { level: "catapult", limit: 1 });
    expect(top).toMatchObject({ entry: { id: "s-ramp", weight: 0.9 }, status: "final" });
  });
});

// Every Chroma call has a timeout, a retry across a restart of the embedded server, and a clear `hexa:` error.
describe("SkillIndex when Chroma fails", () => {
  type Mode = "pass" | "hang" | "500" | "garbage" | "html";
  /** A 127.0.0.1 proxy in front of the embedded server that answers the heartbeat itself and misbehaves on demand. */
  const startProxy = async (target: string) => {
    let mode: Mode = "pass";
    let hanging = 0;
    const sockets = new Set<import("node:net").Socket>();
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on("data", (c: Buffer) => parts.push(c));
      req.on("end", () => {
        if (req.url === "/api/v2/heartbeat") {
          res.writeHead(200, { "content-type": "application/json" }).end('{"nanosecond heartbeat":1}');
          return;
        }
        if (mode === "hang") {
          hanging++;
          res.on("close", () => hanging--);
          return;
        }
        if (mode === "500") return void res.writeHead(500, { "content-type": "application/json" }).end('{"error":"InternalError","message":"disk on fire"}');
        if (mode === "garbage") return void res.writeHead(200, { "content-type": "application/json" }).end('{"unexpected":true}');
        if (mode === "html") return void res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Login required</body></html>");
        const body = parts.length ? Buffer.concat(parts) : undefined;
        void fetch(`${target}${req.url}`, {
          method: req.method!,
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          ...(body ? { body } : {}),
        }).then(
          async (r) => res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" }).end(Buffer.from(await r.arrayBuffer())),
          () => res.destroy(),
        );
      });
    });
    server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      set: (m: Mode) => void (mode = m),
      hanging: () => hanging,
      close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
    };
  };
  const fast = { timeoutMs: 400, retries: 2, sleep: async () => {} };

  it("finishes a reindex when the embedded server is killed in the middle of it", async () => {
    const restarts = chroma.restarts;
    const parsed = events.map((e) => BankEvent.parse(e));
    // The embedder runs between the delete and the upsert of each run: kill the server there, once.
    let calls = 0;
    const killing = {
      dims: 384,
      embed: async (texts: string[]) => {
        if (++calls === 2) {
          const pid = chroma.pid;
          process.kill(pid, "SIGKILL");
          await expect.poll(() => chroma.pid !== pid || chroma.restarts > restarts, { timeout: 5000 }).toBe(true);
        }
        return localEmbedder(384).embed(texts);
      },
    };
    const killed = await SkillIndex.open(chromaClient(chroma.url), killing, "killed_skills");
    const runs = ["k1", "k2", "k3"].map((run) => ({ run, level: "catapult", status: "final", events: parsed }));
    await killed.rebuildFromEvents(runs);
    expect(chroma.restarts).toBe(restarts + 1);
    expect(await killed.count()).toBe(9);
    expect((await killed.entriesOf("k2")).map((e) => e.id).sort()).toEqual(["m-small", "s-lever", "s-ramp"]);
  });

  it("answers a query sent just after the server was killed, once it is back", async () => {
    const restarts = chroma.restarts;
    process.kill(chroma.pid, "SIGKILL");
    const [top] = await index.query("release the ball high on the ramp", { level: "catapult", limit: 1 });
    expect(top?.entry.id).toBe("s-ramp");
    expect(chroma.restarts).toBe(restarts + 1);
  });

  it("gives a ConfigError naming the URL and the timeout when a server answers the heartbeat but never replies", async () => {
    const proxy = await startProxy(chroma.url);
    try {
      proxy.set("hang");
      const t0 = performance.now();
      const err = await SkillIndex.open(chromaClient(proxy.url), localEmbedder(384), "test_skills", fast).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err)).toMatch(new RegExp(`^ConfigError: chroma: open collection test_skills at ${proxy.url} got no answer within 400 ms \\(2 attempts\\)`));
      expect(performance.now() - t0).toBeLessThan(5000);
      // The abandoned requests were aborted, not left open.
      await expect.poll(() => proxy.hanging(), { timeout: 2000 }).toBe(0);

      // Opened while the server behaved, then it stops answering: the query is cut off too.
      proxy.set("pass");
      const opened = await SkillIndex.open(chromaClient(proxy.url), localEmbedder(384), "test_skills", fast);
      proxy.set("hang");
      await expect(opened.query("ramp", { limit: 1 })).rejects.toThrow(/^chroma: query at http:\/\/127\.0\.0\.1:\d+ got no answer within 400 ms/);
      await expect(opened.count()).rejects.toBeInstanceOf(ConfigError);
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ["500", /^chroma: query at http:\S+ failed with a server error \(got disk on fire\) after 3 attempts; /],
    ["garbage", /^chroma: query at http:\S+ gave an answer that is not Chroma's \(got .*\) after 3 attempts; /],
    ["html", /^chroma: query at http:\S+ gave an answer that is not Chroma's \(got .*\) after 3 attempts; /],
  ] as const)("retries, then gives a ConfigError, on a %s answer", async (mode, message) => {
    const proxy = await startProxy(chroma.url);
    try {
      const opened = await SkillIndex.open(chromaClient(proxy.url), localEmbedder(384), "test_skills", fast);
      proxy.set(mode);
      const err = await opened.query("ramp", { limit: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).toMatch(/check the Chroma server at http:\S+ or unset CHROMA_URL/);
      // The server recovers: the same index works again.
      proxy.set("pass");
      expect((await opened.query("ramp", { limit: 1 })).length).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it("stops with the supervisor's ConfigError when the embedded server cannot be brought back", async () => {
    const fragile = await startChroma({ dataDir: join(root, "fragile"), maxRestarts: 0 });
    try {
      const idx = await SkillIndex.open(chromaClient(fragile.url), localEmbedder(384), "fragile");
      process.kill(fragile.pid, "SIGKILL");
      const err = await idx.count().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err)).toMatch(/^ConfigError: chroma: embedded server at http:\S+ exited and 0 of 0 restarts failed/);
    } finally {
      await fragile.stop();
    }
  });

  it("gives a ConfigError when nothing listens at all", async () => {
    const err = await SkillIndex.open(chromaClient("http://127.0.0.1:9"), localEmbedder(384), "x", fast).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/^ConfigError: chroma: open collection x at http:\/\/127\.0\.0\.1:9 could not connect \(3 attempts\)/);
  });
});
