import { describe, expect, it } from "vitest";
import { screenRequest } from "./inspect-request.ts";

describe("screenRequest", () => {
  it("takes a loopback name with the server's port (any case), and without one only on port 80", () => {
    for (const host of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "LocalHost:8787"])
      expect(screenRequest("/report.json?x=1", host, 8787)).toEqual({ ok: true, url: new URL("http://127.0.0.1:8787/report.json?x=1") });
    expect(screenRequest("/", "localhost", 80).ok).toBe(true);
    expect(screenRequest("/", "localhost", 8787)).toMatchObject({ ok: false, status: 403 });
  });

  it("refuses any other Host with 403, and no Host at all", () => {
    for (const host of ["evil.example.com", "evil.example.com:8787", "127.0.0.1:8788", "127.0.0.2:8787", "0.0.0.0:8787", "localhost.evil:8787", undefined])
      expect(screenRequest("/", host, 8787), String(host)).toMatchObject({
        ok: false,
        status: 403,
        message: expect.stringContaining("ssh -L 8787:127.0.0.1:8787"),
      });
  });

  it("answers 400 to a target no URL parser reads, naming it", () => {
    expect(screenRequest("//a:99999/", "127.0.0.1:8787", 8787)).toEqual({
      ok: false,
      status: 400,
      message: 'not a URL this server reads (got "//a:99999/"); open http://127.0.0.1:8787/\n',
    });
  });
});
