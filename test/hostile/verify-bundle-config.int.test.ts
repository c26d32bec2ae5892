import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tinyRun } from "../bundle/tiny-run.ts";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";
import { editLine, runIn } from "../verify/verify-support.ts";
import { editYaml, forgeBundle, listener, type Listener } from "./forge-bundle.ts";

/**
 * A stranger's bundle whose config.yaml names endpoints, a skill index, a backend, caches, a log and offline inputs
 * of the author's choosing, resealed as its author can (docs/security.md, "A stranger's run or bundle"): hexa verify
 * replays the records and follows none of them.
 */
const tmp = tempDirs("hexa-hostile-verify-");
const KEY = "sk-reader-canary-5be1f00d";
const CANARY = "CANARY-OUTSIDE-THE-BUNDLE-3141";
const env = { OPENAI_API_KEY: KEY, HEXA_EMBEDDING_API_KEY: "" };
let honest = "";
let outside = "";
let canary = "";
let model: Listener;
let embedding: Listener;
let redis: Listener;

beforeAll(async () => {
  const { runDir } = await tinyRun(tmp());
  honest = join(tmp(), "honest.tar.gz");
  const packed = await hexa(["bundle", runDir, "-o", honest]);
  expect(packed.status, packed.stderr).toBe(0);
  outside = join(tmp(), "named-by-the-bundle");
  canary = join(tmp(), "reader-file.jsonl");
  writeFileSync(canary, `${CANARY}\n`);
  [model, embedding, redis] = await Promise.all([listener(), listener(), listener()]);
}, 120_000);

const verify = async (bundle: string, ...more: string[]) => {
  const r = await hexa(["verify", bundle, ...more], { env });
  return { ...r, all: `${r.stdout}${r.stderr}` };
};

describe("hexa verify of a forged bundle follows nothing its files name", () => {
  it("endpoints, a skill index with a remote embedding, a backend, caches and a log: none is contacted, read or made; the records still verify identical, as a bundle and as a run directory", async () => {
    const out = tmp();
    const forged = await forgeBundle(honest, out, (root) =>
      editYaml(join(root, "config.yaml"), (c) => {
        c.llm.actor.baseURL = model.url;
        c.llm.evolver.baseURL = model.url;
        c.llm.cacheDir = join(outside, "llm-cache");
        c.llm.auditLog = canary;
        c.skillIndex = { enabled: true, dataDir: join(outside, "chroma"), embedding: { provider: "openai", model: "e", baseURL: embedding.url } };
        c.backend = `redis://127.0.0.1:${redis.port}`;
      }),
    );
    // The bundle, then the same forged files as a run directory a reader was handed.
    for (const target of [forged, runIn(join(out, "stage"))]) {
      const r = await verify(target);
      expect(r.status, r.all).toBe(0);
      expect(r.stdout).toMatch(/^identical: 3 episodes/);
      expect(r.stderr).toMatch(/not taken from .*skillIndex\.enabled = true.*backend = .*llm\.actor\.baseURL = /s);
      for (const l of [model, embedding, redis])
        expect({ port: l.port, connections: l.connections, received: l.received }).toEqual({ port: l.port, connections: 0, received: "" });
      expect(existsSync(outside)).toBe(false);
      expect(r.all).not.toContain(CANARY);
      expect(r.all).not.toContain(KEY);
    }
  }, 180_000);

  it("a model run whose exchanges the config says are logged outside the bundle: the outside log is never read, and the field is named (exit 2)", async () => {
    const forged = await forgeBundle(honest, tmp(), (root) =>
      editYaml(join(root, "config.yaml"), (c) => {
        c.evolver = "llm";
        c.llm.auditLog = canary;
      }),
    );
    const r = await verify(forged);
    expect(r.status, r.all).toBe(2);
    expect(r.stderr).toMatch(/llm\.auditLog: the run logged its model exchanges outside its directory/);
    expect(r.all).not.toContain(CANARY);
  }, 120_000);

  it("offline inputs outside the bundle are refused by name, never read (exit 2)", async () => {
    for (const key of ["trajectories", "banks"]) {
      const forged = await forgeBundle(honest, tmp(), (root) =>
        editYaml(join(root, "config.yaml"), (c) => {
          c.offline[key] = [canary];
        }),
      );
      const r = await verify(forged);
      expect(r.status, r.all).toBe(2);
      expect(r.stderr).toContain(`offline.${key}[0]: names a file outside the run`);
      expect(r.all).not.toContain(CANARY);
    }
  }, 120_000);

  it("a tampered record still shows its divergence (exit 1)", async () => {
    const forged = await forgeBundle(honest, tmp(), (root) => {
      editLine(join(root, "episodes.jsonl"), 1, (e) => {
        e.trajectory.turns += 1;
      });
      editYaml(join(root, "config.yaml"), (c) => {
        c.llm.actor.baseURL = model.url;
      });
    });
    const r = await verify(forged);
    expect(r.status, r.all).toBe(1);
    expect(r.stdout).toMatch(/diverged: episode \S+/);
    expect(r.stdout).toMatch(/field: +trajectory\.turns/);
    expect(model.connections).toBe(0);
    expect(readFileSync(canary, "utf8")).toBe(`${CANARY}\n`);
  }, 120_000);
});
