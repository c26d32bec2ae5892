import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { correctionForm } from "../report/inspect/correction-form.ts";
import { CORRECTIONS_FILE } from "../search/p2p-corrections.ts";
import { correctionRoute, MAX_CORRECT_BODY_BYTES, servedP2pDirs } from "./inspect-correct.ts";

/** POST /correct of hexa inspect --serve, over a real socket, and what it refuses (docs/security.md). */
const TOKEN = "a".repeat(64);
const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

/** A served directory holding two p2p searches (one planned iteration each) and a folder that is none. */
const servedDir = (): string => {
  const root = mkdtempSync(join(tmpdir(), "hexa-serve-correct-"));
  for (const d of ["a", join("runs", "b")]) {
    mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, d, "search.json"), "{}\n");
    writeFileSync(join(root, d, "plans.jsonl"), `${JSON.stringify({ iteration: 0 })}\n`);
  }
  mkdirSync(join(root, "other"));
  return root;
};

const serveRoute = async (root: string): Promise<number> => {
  const server = createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    void correctionRoute({ root, token: TOKEN, port, now: () => new Date("2026-12-07T02:00:00.000Z") }, req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
};

const send = (port: number, o: { method?: string; body?: string; headers?: Record<string, string> }): Promise<{ status: number; body: string }> =>
  new Promise((done, fail) => {
    const headers = { "content-type": "application/x-www-form-urlencoded", ...o.headers };
    const req = request({ host: "127.0.0.1", port, path: "/correct", method: o.method ?? "POST", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => done({ status: res.statusCode!, body }));
    });
    req.on("error", fail);
    req.end(o.body);
  });

const form = (o: Record<string, string>) => new URLSearchParams(o).toString();

describe("hexa inspect --serve: POST /correct", () => {
  it("adds a correction to a p2p search of the served directory", async () => {
    const root = servedDir();
    const port = await serveRoute(root);
    expect(servedP2pDirs(root)).toEqual(["a", join("runs", "b")]);
    const ok = await send(port, { body: form({ token: TOKEN, dir: join("runs", "b"), text: "land softer" }), headers: { origin: `http://127.0.0.1:${port}` } });
    expect(ok.status, ok.body).toBe(200);
    expect(ok.body).toContain(`correction 0 added to ${join("runs", "b")} before any iteration finished; iteration 1's reviser must address it`);
    expect(JSON.parse(readFileSync(join(root, "runs", "b", CORRECTIONS_FILE), "utf8"))).toMatchObject({ index: 0, iteration: 1, text: "land softer" });
  });

  it("refuses a wrong method, a body too big, a directory not served, no token, a wrong token or origin, and bad words", async () => {
    const root = servedDir();
    const port = await serveRoute(root);
    const get = await send(port, { method: "GET" });
    expect([get.status, get.body]).toEqual([405, "GET /correct: only POST adds a correction\n"]);
    const big = await send(port, { body: form({ token: TOKEN, dir: "a", text: "x".repeat(MAX_CORRECT_BODY_BYTES) }) });
    expect(big.status).toBe(413);
    for (const dir of ["other", "..", join("..", "..", "etc"), "/tmp", ""]) {
      const wrong = await send(port, { body: form({ token: TOKEN, dir, text: "land softer" }) });
      expect(wrong.status, dir).toBe(403);
      expect(wrong.body, dir).toContain("is not a p2p search of the served directory");
    }
    const none = await send(port, { body: form({ dir: "a", text: "land softer" }) });
    expect([none.status, none.body]).toEqual([403, "token: missing; reload the page and send the form again\n"]);
    const forged = await send(port, { body: form({ token: "b".repeat(64), dir: "a", text: "land softer" }) });
    expect(forged.body).toMatch(/^token: wrong/);
    const elsewhere = await send(port, { body: form({ token: TOKEN, dir: "a", text: "x" }), headers: { origin: "https://evil.example.com" } });
    expect(elsewhere.status).toBe(403);
    const json = await send(port, { body: JSON.stringify({ token: TOKEN }), headers: { "content-type": "application/json" } });
    expect(json.status).toBe(415);
    const empty = await send(port, { body: form({ token: TOKEN, dir: "a", text: "  " }) });
    expect([empty.status, empty.body]).toEqual([409, `text: empty; say what the behaviour should do differently, e.g. "land softer" (got "  ")\n`]);
    expect(existsSync(join(root, "a", CORRECTIONS_FILE))).toBe(false);
  });

  it("offers a form with the token, one choice per search, the words escaped", () => {
    expect(correctionForm(TOKEN, [], 1000)).toBe("");
    const html = correctionForm(TOKEN, [".", 'x"><script>'], 1000);
    expect(html).toContain(`<input type="hidden" name="token" value="${TOKEN}">`);
    expect(html).toContain('<form method="post" action="/correct">');
    expect(html).toContain('<option value=".">this search</option>');
    expect(html).toContain("x&quot;&gt;&lt;script&gt;");
    expect(html).not.toContain("<script>");
  });
});
