/**
 * Which requests `hexa inspect --serve` answers (docs/security.md): the server holds a whole run, so only a page
 * the user opened on this machine by a loopback name may read it.
 */

/**
 * The names a browser on this machine reaches the server by. A page elsewhere can point its own domain at
 * 127.0.0.1 (DNS rebinding): its requests then reach the server, but carry that domain in Host.
 */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

export type Screened = { ok: true; url: URL } | { ok: false; status: 400 | 403; message: string };

const hostsFor = (port: number): string[] => LOOPBACK_NAMES.flatMap((n) => (port === 80 ? [n, `${n}:80`] : [`${n}:${port}`]));

/** The request's URL when its Host is a loopback name with the server's port and its target parses; else the refusal. */
export const screenRequest = (target: string | undefined, host: string | undefined, port: number): Screened => {
  const hosts = hostsFor(port);
  if (host === undefined || !hosts.includes(host.toLowerCase()))
    return {
      ok: false,
      status: 403,
      message: `Host ${JSON.stringify(host ?? "")} refused: this report is served only to ${hosts.join(", ")}; open http://127.0.0.1:${port}/ (from another machine, forward the same port: ssh -L ${port}:127.0.0.1:${port} HOST)\n`,
    };
  try {
    return { ok: true, url: new URL(target ?? "/", `http://127.0.0.1:${port}`) };
  } catch {
    return { ok: false, status: 400, message: `not a URL this server reads (got ${JSON.stringify(target)}); open http://127.0.0.1:${port}/\n` };
  }
};
