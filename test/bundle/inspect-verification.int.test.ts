import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";
import { tinyRun } from "./tiny-run.ts";
import { VERIFICATION_FILE } from "../../src/store/run-attestations.ts";

/** `hexa inspect` on a run that was bundled and verified: the printed report and the page cite both. */

const temp = tempDirs("hexa-inspect-verification-");
let runDir: string;
let manifestHash: string;

const diverged = {
  verifiedAt: "2026-12-05T22:00:00.000Z",
  codeVersion: "hexa 0.1.0 at commit 1dbcbd382cf1",
  status: "diverged",
  counts: { episodes: 3, bankEvents: 2, modelExchanges: 0, trainings: 0 },
  divergence: { what: "episode catapult/r1/s57 turn 2", field: "observation", recorded: "hit <b>", replayed: "miss" },
};

beforeAll(async () => {
  runDir = (await tinyRun(temp())).runDir;
  const out = await hexa(["bundle", runDir, "-o", join(temp(), "run.tar.gz")]);
  expect(out.status).toBe(0);
  manifestHash = /manifest sha256 ([0-9a-f]{64})/.exec(out.stdout)![1]!;
});

describe("hexa inspect on a verified, bundled run", () => {
  it("prints the last verification and the bundle's manifest hash, and puts both in the page", async () => {
    writeFileSync(join(runDir, VERIFICATION_FILE), JSON.stringify(diverged));
    const out = await hexa(["inspect", runDir, "--animations", "none"]);
    expect(out.status).toBe(0);
    const id = basename(runDir);
    expect(out.stdout).toContain(
      `${id}: verification on 2026-12-05 22:00:00 UTC by hexa 0.1.0 at commit 1dbcbd382cf1 diverged at episode catapult/r1/s57 turn 2, observation: recorded "hit <b>", replayed "miss"`,
    );
    expect(out.stdout).toMatch(new RegExp(`${id}: bundle .*run\\.tar\\.gz \\(packed .*\\): manifest sha256 ${manifestHash}`));
    const html = readFileSync(join(runDir, "report.html"), "utf8");
    expect(html).toContain('<section id="verification">');
    expect(html).toContain(`manifest sha256 ${manifestHash}`);
    expect(html).toContain('recorded "hit &lt;b&gt;"');
  });

  it("shows a damaged verification.json as a notice naming it, and still the bundle", async () => {
    writeFileSync(join(runDir, VERIFICATION_FILE), JSON.stringify({ ...diverged, status: "maybe" }));
    const out = await hexa(["inspect", runDir, "--animations", "none"]);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/notice: .*verification\.json: not a record this hexa reads \(status: .*\); the last verification is not shown/);
    expect(out.stdout).toContain(`manifest sha256 ${manifestHash}`);
    writeFileSync(join(runDir, VERIFICATION_FILE), "{ torn");
    const torn = await hexa(["inspect", runDir, "--animations", "none"]);
    expect(torn.status).toBe(0);
    expect(torn.stdout).toMatch(/notice: .*verification\.json: not valid JSON/);
  });
});
