import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import type { EpisodeDrawer, Report } from "../report/inspect/model.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { findSearchDirs, type InspectTarget } from "../app/inspect-load.ts";
import type { Built } from "../app/inspect-report.ts";
import { randomBytes } from "node:crypto";
import { MAX_CORRECTION_CHARS } from "../search/p2p-corrections.ts";
import { correctionForm } from "../report/inspect/correction-form.ts";
import { correctionRoute, servedP2pDirs } from "./inspect-correct.ts";
import { screenRequest } from "./inspect-request.ts";

/**
 * `hexa inspect --serve` (docs/ARCHITECTURE.md §8): the report on 127.0.0.1, rebuilt as the run writes and pushed
 * to open pages over server-sent events; on a p2p search, a box that adds a correction (inspect-correct.ts). What it
 * exposes and to whom: docs/security.md.
 */

export interface ServeSource {
  target: InspectTarget;
  /** Reads the directory again; throws when it cannot (deleted, moved, damaged). */
  build(): Built;
  /** The live page of a report. */
  page(report: Report): string;
  drawerFor(family: string): EpisodeDrawer;
}

/** What changes when a run writes: sizes and times of its files, and the bank snapshots and evaluations present. */
const signature = (target: InspectTarget): string => {
  const stamp = (p: string) => {
    if (!existsSync(p)) return `${p}:-`;
    const s = statSync(p);
    return `${p}:${s.size}:${s.mtimeMs}${s.isDirectory() ? `:${readdirSync(p).join(",")}` : ""}`;
  };
  const runs = target.cells
    .flatMap((c) => c.runs)
    .flatMap((run) =>
      ["episodes.jsonl", "bank-events.jsonl", "usage.jsonl", "llm-log.jsonl", "banks", "eval", "final-scores.json"].map((f) => stamp(join(run, f))),
    );
  const searches = findSearchDirs(target.path).flatMap((d) => [stamp(join(d, "candidates.jsonl")), stamp(join(d, "final-scores.json"))]);
  return [...runs, ...searches].join("|");
};

/** The signature, or a mark that changes with the reason it cannot be taken (a file removed while it was read). */
const signatureOrFault = (target: InspectTarget): string => {
  try {
    return signature(target);
  } catch (e) {
    return `unreadable: ${(e as Error).message}`;
  }
};

/** What the served page says when the directory can no longer be read: what vanished, or why it cannot be read. */
const readFault = (target: InspectTarget, e: unknown, last: Report): string => {
  const shown = `the page shows it as last read at ${last.builtAt}; Ctrl-C stops`;
  if (!existsSync(target.path)) return `${target.path}: deleted or moved while served; ${shown}`;
  const err = e as NodeJS.ErrnoException;
  if (err.code === "ENOENT" && err.path) return `${err.path}: vanished while it was read (deleted or moved); ${shown}`;
  return `could not read ${target.path} (${err.message.split("\n")[0]}); ${shown}`;
};

const POLL_MS = 500;
/** SSE comments this often keep proxies and the browser from timing out an idle stream. */
const KEEPALIVE_MS = 15_000;

const text = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store" });
  res.end(body);
};

interface Live {
  built: Built;
  port: number;
  /** What the served page sends with a correction (inspect-correct.ts): a page elsewhere cannot read it. */
  token: string;
  clients: Set<ServerResponse>;
  gifs: Map<string, Uint8Array | undefined>;
}

const animation = (source: ServeSource, live: Live, url: URL, res: ServerResponse) => {
  const run = url.searchParams.get("run") ?? "";
  const id = url.searchParams.get("id") ?? "";
  const key = `${run}|${id}`;
  const input = live.built.inputs.find((i) => i.id === run);
  const rec: EpisodeRecord | undefined = input?.episodes.find((e) => e.id === id);
  if (input && rec && !live.gifs.has(key)) {
    try {
      live.gifs.set(key, source.drawerFor(input.summary.family).animationGif?.(rec));
    } catch (e) {
      process.stderr.write(`hexa inspect: no animation for ${id} (${(e as Error).message})\n`);
      live.gifs.set(key, undefined);
    }
  }
  const gif = live.gifs.get(key);
  if (!gif) return text(res, 404, `no animation for episode ${id} of run ${run}\n`);
  res.writeHead(200, { "content-type": "image/gif", "cache-control": "max-age=3600" });
  res.end(gif);
};

/** The live page with the correction box of its p2p searches, if it serves any, before the end of its body. */
const withCorrectionBox = (html: string, token: string, dirs: readonly string[]): string => {
  const box = correctionForm(token, dirs, MAX_CORRECTION_CHARS);
  if (!box) return html;
  const end = html.lastIndexOf("</body>");
  return end < 0 ? html + box : `${html.slice(0, end)}${box}\n${html.slice(end)}`;
};

/**
 * What is not a read: POST /correct adds a correction to a p2p search under `root` (inspect-correct.ts); any other
 * method is refused with 405. False when the request is a read, for the page's own routes.
 */
const answeredWrite = (root: string, live: { token: string; port: number }, pathname: string, req: IncomingMessage, res: ServerResponse): boolean => {
  if (pathname === "/correct") {
    correctionRoute({ root, token: live.token, port: live.port, now: () => new Date() }, req, res).catch((e: unknown) => {
      process.stderr.write(`hexa inspect: could not add the correction (${(e as Error).message.split("\n")[0]})\n`);
      if (!res.headersSent) text(res, 500, `could not add the correction (${(e as Error).message.split("\n")[0]})\n`);
      else res.end();
    });
    return true;
  }
  if (req.method === "GET" || req.method === "HEAD") return false;
  res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" });
  res.end(`${req.method} ${pathname}: this page is read with GET; only /correct takes a POST\n`);
  return true;
};

const answer = (source: ServeSource, live: Live, req: IncomingMessage, res: ServerResponse) => {
  const screened = screenRequest(req.url, req.headers.host, live.port);
  if (!screened.ok) return text(res, screened.status, screened.message);
  const { pathname } = screened.url;
  if (answeredWrite(source.target.path, live, pathname, req, res)) return;
  if (pathname === "/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(withCorrectionBox(source.page(live.built.report), live.token, servedP2pDirs(source.target.path)));
  } else if (pathname === "/report.json") {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(JSON.stringify(live.built.report));
  } else if (pathname === "/events") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    res.write(": following the run\n\n");
    live.clients.add(res);
    req.on("close", () => live.clients.delete(res));
  } else if (pathname === "/animation") {
    animation(source, live, screened.url, res);
  } else {
    text(res, 404, "not found\n");
  }
};

/** Rebuilds when the directory changed; when it cannot be read, keeps the last report with a notice saying why. */
const follow = (source: ServeSource, live: Live) => {
  let seen = signatureOrFault(source.target);
  let lastGood = live.built;
  let fault: string | undefined;
  return () => {
    const now = signatureOrFault(source.target);
    if (now === seen) return;
    seen = now;
    try {
      live.built = lastGood = source.build();
      fault = undefined;
    } catch (e) {
      const said = readFault(source.target, e, lastGood.report);
      if (said === fault) return;
      fault = said;
      process.stderr.write(`hexa inspect: ${said}\n`);
      live.built = { ...lastGood, report: { ...lastGood.report, notices: [said, ...lastGood.report.notices] } };
    }
    for (const c of live.clients) c.write(`data: ${JSON.stringify({ builtAt: live.built.report.builtAt })}\n\n`);
  };
};

const listenError = (e: NodeJS.ErrnoException, port: number): Error =>
  e.code === "EADDRINUSE"
    ? new ConfigError(`--port ${port}: 127.0.0.1:${port} is already in use (another hexa inspect?); stop it or choose another with --port N`)
    : e.code === "EACCES"
      ? new ConfigError(`--port ${port}: not allowed to listen on 127.0.0.1:${port}; choose a port above 1023 with --port N`)
      : e;

/** What a served page does on its own: a timer each for following the folder and keeping the stream open. */
interface Following {
  clients: Set<ServerResponse>;
  poll: () => void;
}

/**
 * Listens on 127.0.0.1:`port` (0: any free port) until SIGINT or SIGTERM, polling and keeping the event streams
 * open meanwhile; `onPort` learns the port it got, before the first request.
 */
const listenUntilStopped = (server: Server, port: number, following: Following, onPort: (port: number) => void, banner: string): Promise<void> =>
  new Promise((done, fail) => {
    const poll = setInterval(following.poll, POLL_MS);
    const keepalive = setInterval(() => following.clients.forEach((c) => c.write(": keepalive\n\n")), KEEPALIVE_MS);
    const stop = () => {
      clearInterval(poll);
      clearInterval(keepalive);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      following.clients.forEach((c) => c.end());
      server.closeAllConnections();
      server.close(() => {
        process.stderr.write("\nhexa inspect: stopped\n");
        done();
      });
    };
    server.on("error", (e: NodeJS.ErrnoException) => {
      clearInterval(poll);
      clearInterval(keepalive);
      fail(listenError(e, port));
    });
    server.listen(port, "127.0.0.1", () => {
      const addr = server.address();
      const got = typeof addr === "object" && addr ? addr.port : port;
      onPort(got);
      process.stdout.write(`${banner.replace("PORT", String(got))}\n`);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
  });

/** Answers a request with `answer`, or a 500 naming why when answering threw. */
const guarded =
  (answer: (req: IncomingMessage, res: ServerResponse) => void) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    try {
      answer(req, res);
    } catch (e) {
      process.stderr.write(`hexa inspect: could not answer ${JSON.stringify(req.url)} (${(e as Error).message.split("\n")[0]})\n`);
      if (!res.headersSent) text(res, 500, `could not answer this request (${(e as Error).message.split("\n")[0]})\n`);
      else res.end();
    }
  };

/** Serves the report on 127.0.0.1:`port` (0: any free port) until SIGINT or SIGTERM. */
export const serve = (source: ServeSource, port: number): Promise<void> => {
  const live: Live = { built: source.build(), port, token: randomBytes(32).toString("hex"), clients: new Set(), gifs: new Map() };
  const server = createServer(guarded((req, res) => answer(source, live, req, res)));
  return listenUntilStopped(
    server,
    port,
    { clients: live.clients, poll: follow(source, live) },
    (got) => {
      live.port = got;
    },
    `serving ${source.target.path} on http://127.0.0.1:PORT/ (follows the run as it writes; Ctrl-C stops)`,
  );
};

/** A family's own page that follows its folder (a p2p search): rebuilt when `signature` changes. */
export interface PageSource {
  path: string;
  signature(): string;
  page(): Promise<string>;
}

interface LivePage {
  html: string;
  port: number;
  token: string;
  seen: string;
  fault: string;
  building: boolean;
  clients: Set<ServerResponse>;
}

const answerPage = (source: PageSource, live: LivePage, req: IncomingMessage, res: ServerResponse) => {
  const screened = screenRequest(req.url, req.headers.host, live.port);
  if (!screened.ok) return text(res, screened.status, screened.message);
  const { pathname } = screened.url;
  if (answeredWrite(source.path, live, pathname, req, res)) return;
  if (pathname === "/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(withCorrectionBox(live.html, live.token, servedP2pDirs(source.path)));
  } else if (pathname === "/events") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    res.write(": following the folder\n\n");
    live.clients.add(res);
    req.on("close", () => live.clients.delete(res));
  } else text(res, 404, "not found\n");
};

/** Rebuilds the page when the folder changed; when it cannot be read, keeps the last page and says why once. */
const rebuildPage = (source: PageSource, live: LivePage) => async () => {
  let now: string;
  try {
    now = source.signature();
  } catch (e) {
    now = `unreadable: ${(e as Error).message}`;
  }
  if (now === live.seen || live.building) return;
  live.building = true;
  try {
    live.html = await source.page();
    live.seen = now;
    live.fault = "";
    for (const c of live.clients) c.write(`data: ${JSON.stringify({ builtAt: new Date().toISOString() })}\n\n`);
  } catch (e) {
    const said = `could not read ${source.path} (${(e as Error).message.split("\n")[0]}); the page shows it as last read; Ctrl-C stops`;
    live.seen = now;
    if (said !== live.fault) process.stderr.write(`hexa inspect: ${said}\n`);
    live.fault = said;
  } finally {
    live.building = false;
  }
};

/**
 * Serves a family's page on 127.0.0.1:`port` like the report: the same screening, the page at `/` with the
 * correction box of the p2p searches it shows, server-sent events at `/events` when the folder changed (the page
 * fetches itself again), POST `/correct`; until SIGINT or SIGTERM.
 */
export const servePage = async (source: PageSource, port: number): Promise<void> => {
  const live: LivePage = {
    html: await source.page(),
    port,
    token: randomBytes(32).toString("hex"),
    seen: source.signature(),
    fault: "",
    building: false,
    clients: new Set(),
  };
  const rebuild = rebuildPage(source, live);
  const server = createServer(guarded((req, res) => answerPage(source, live, req, res)));
  await listenUntilStopped(
    server,
    port,
    { clients: live.clients, poll: () => void rebuild() },
    (got) => {
      live.port = got;
    },
    `serving ${source.path} on http://127.0.0.1:PORT/ (follows the folder as it is written; Ctrl-C stops)`,
  );
};
