import { timingSafeEqual } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, relative } from "node:path";
import { ConfigError } from "../errors.ts";
import { addCorrection, MAX_CORRECTION_CHARS } from "../search/p2p-corrections.ts";

/**
 * POST /correct of `hexa inspect --serve` (docs/security.md): adds a correction to a p2p search of the served
 * directory. A page elsewhere can make a browser POST here (CSRF) though it cannot read the answer, so the request
 * must carry the token only the served page holds, and an Origin, when sent, must be this server's; the body is
 * bounded and form-encoded, and `dir` must name one of the p2p searches found under the served directory (it is
 * matched against that list, never joined into a path).
 */

/** Bytes of a request body, at most: a correction, a directory name and the token, form-encoded. */
export const MAX_CORRECT_BODY_BYTES = 16 * 1024;
/** Deep enough for runs/<cell>/<run>/search/<task>, as the report looks for searches. */
const SEARCH_DEPTH = 5;

/** Every p2p search directory at or under `root` (search.json beside plans.jsonl); dot directories are skipped. */
const p2pSearchDirs = (root: string, depth = SEARCH_DEPTH): string[] => {
  const here = existsSync(join(root, "search.json")) && existsSync(join(root, "plans.jsonl")) ? [root] : [];
  if (depth === 0) return here;
  const below = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith(".") && d.name !== "node_modules")
    .map((d) => join(root, d.name))
    .sort()
    .flatMap((p) => p2pSearchDirs(p, depth - 1));
  return [...here, ...below];
};

/** The p2p searches of the served directory as the form names them: relative paths, "." for the directory itself. */
export const servedP2pDirs = (root: string): string[] => p2pSearchDirs(root).map((d) => relative(root, d) || ".");

export interface CorrectionEndpoint {
  root: string;
  token: string;
  port: number;
  now: () => Date;
}

const reply = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store", ...headers });
  res.end(body);
};

const sameToken = (given: string, token: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The body, or undefined once it passed the bound (the refusal is sent and the rest ignored). */
const bodyOf = (req: IncomingMessage, res: ServerResponse): Promise<string | undefined> =>
  new Promise((done, fail) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    const tooBig = () =>
      reply(res, 413, `request body over ${MAX_CORRECT_BODY_BYTES} bytes; a correction is at most ${MAX_CORRECTION_CHARS} characters\n`, {
        connection: "close",
      });
    if (declared > MAX_CORRECT_BODY_BYTES) {
      tooBig();
      req.resume();
      return done(undefined);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_CORRECT_BODY_BYTES) {
        if (!res.headersSent) tooBig();
        req.destroy();
        done(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => done(size > MAX_CORRECT_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", fail);
  });

/** Why the request's headers are refused before its body is read; undefined when they pass. */
const headerRefusal = (e: CorrectionEndpoint, req: IncomingMessage): { status: number; message: string; headers?: Record<string, string> } | undefined => {
  if (req.method !== "POST") return { status: 405, message: `${req.method} /correct: only POST adds a correction\n`, headers: { allow: "POST" } };
  const origin = req.headers.origin;
  const origins = ["127.0.0.1", "localhost", "[::1]"].map((n) => `http://${n}:${e.port}`);
  if (origin !== undefined && !origins.includes(origin.toLowerCase()))
    return { status: 403, message: `Origin ${JSON.stringify(origin)} refused: a correction comes only from the page this server serves\n` };
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return { status: 415, message: `content-type ${JSON.stringify(type)} refused: send the form (application/x-www-form-urlencoded)\n` };
  return undefined;
};

/** Answers POST /correct: adds the correction, or says why not with the field. */
export const correctionRoute = async (e: CorrectionEndpoint, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const refused = headerRefusal(e, req);
  if (refused) {
    req.resume();
    return reply(res, refused.status, refused.message, refused.headers);
  }
  const body = await bodyOf(req, res);
  if (body === undefined) return;
  const form = new URLSearchParams(body);
  const token = form.get("token");
  if (token === null || !sameToken(token, e.token))
    return reply(res, 403, `token: ${token === null ? "missing" : "wrong"}; reload the page and send the form again\n`);
  const dir = form.get("dir") ?? "";
  const served = servedP2pDirs(e.root);
  if (!served.includes(dir))
    return reply(res, 403, `dir: ${JSON.stringify(dir.slice(0, 200))} is not a p2p search of the served directory; one of: ${served.join(", ") || "(none)"}\n`);
  try {
    const where = join(e.root, dir);
    const c = addCorrection(where, form.get("text") ?? "", e.now());
    const after = c.afterIteration === null ? "before any iteration finished" : `after iteration ${c.afterIteration}`;
    reply(
      res,
      200,
      `correction ${c.index} added to ${dir} ${after}; iteration ${c.iteration}'s reviser must address it. A stopped or finished search goes on with: hexa search --resume ${where}\n`,
    );
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    reply(res, 409, `${err.message.replace(/^--correct: /, "text: ")}\n`);
  }
};
