import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { create as createTar, extract as extractTar } from "tar";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { afterAll } from "vitest";
import { BUNDLE_MARK, filesUnder, type Manifest, MANIFEST_FILE, manifestBytes, manifestFiles } from "../../src/bundle/manifest.ts";
import { configDigest } from "../../src/app/run-setup.ts";

/**
 * Forges a bundle as its author can (docs/security.md, "A stranger's run or bundle"): unpacks an honest one, lets
 * `edit` change its files, then reseals what hexa checks with hexa's own functions: run.json's config hash and
 * config, and MANIFEST.json's hash and size of every file. Returns the new .tar.gz.
 */
export const forgeBundle = async (honest: string, out: string, edit: (runFolder: string) => void): Promise<string> => {
  const stage = join(out, "stage");
  mkdirSync(stage, { recursive: true });
  await extractTar({ file: honest, cwd: stage });
  const [top] = readdirSync(stage);
  const root = join(stage, top!);
  edit(root);
  if (readdirSync(root).includes("run.json")) forgeRunConfig(root, () => {});
  const old = JSON.parse(readFileSync(join(root, MANIFEST_FILE), "utf8")) as Manifest;
  const files = manifestFiles(
    root,
    filesUnder(root).filter((p) => p !== MANIFEST_FILE),
  );
  writeFileSync(join(root, MANIFEST_FILE), manifestBytes({ schemaVersion: 1, kind: BUNDLE_MARK, run: old.run, createdAt: old.createdAt, files }));
  const file = join(out, "forged.tar.gz");
  await createTar({ gzip: true, file, cwd: stage, portable: true }, [top!]);
  return file;
};

/** A run directory forged in place as its maker can: `edit` its config.yaml, then run.json's config hash resealed. */
export const forgeRunConfig = (runDir: string, edit: (c: Record<string, any>) => void): void => {
  editYaml(join(runDir, "config.yaml"), edit);
  const meta = JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as Record<string, unknown>;
  const digest = configDigest(readFileSync(join(runDir, "config.yaml"), "utf8"));
  writeFileSync(join(runDir, "run.json"), `${JSON.stringify({ ...meta, configHash: digest.hash, config: digest.config }, null, 2)}\n`);
};

/** Edits a YAML config file in place. */
export const editYaml = (path: string, edit: (c: Record<string, any>) => void): void => {
  const c = parseYaml(readFileSync(path, "utf8")) as Record<string, any>;
  edit(c);
  writeFileSync(path, stringifyYaml(c));
};

/** A TCP listener on 127.0.0.1 that records every connection and every byte sent to it, answering 401; closed after the file's tests. */
export interface Listener {
  port: number;
  url: string;
  connections: number;
  received: string;
}

export const listener = async (): Promise<Listener> => {
  const l: Listener = { port: 0, url: "", connections: 0, received: "" };
  const server: Server = createServer((socket) => {
    l.connections++;
    // Any request is refused at once (401, no retry), so a client that did connect fails fast.
    socket.setEncoding("utf8").on("data", (d: string) => {
      l.received += d;
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  l.port = (server.address() as AddressInfo).port;
  l.url = `http://127.0.0.1:${l.port}/v1`;
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));
  return l;
};
