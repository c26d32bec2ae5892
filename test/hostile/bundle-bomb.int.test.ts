import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeGzipBomb } from "../support/gzip-bomb.ts";
import { ROOT } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";

/**
 * `hexa verify` of an archive that unpacks to far more than its size (docs/security.md): refused, naming the entry
 * and the bound it broke, with the process's peak memory under 200 MB. The peak is the child's own maxRSS, written
 * as it exits by a module loaded before hexa's.
 */

const temp = tempDirs("hexa-bomb-");
const GiB = 1024 ** 3;
// hexa verify alone peaks near 200 MB here; a refusal that inflated even a tenth of its 1 GiB would pass 256 MB.
const PEAK_LIMIT_KB = 256 * 1024;
/** What unpacking a 512 MiB entry may add to the command's own peak. */
const UNPACK_LIMIT_KB = 100 * 1024;
const REPORT_PEAK = `data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>writeSync(2,"peak-rss-kb "+process.resourceUsage().maxRSS+"\\n"))`;

const verifyWithPeak = (bundle: string): Promise<{ status: number | null; stderr: string; peakKb: number }> =>
  new Promise((ok, fail) => {
    const child = spawn(process.execPath, ["--import", REPORT_PEAK, "bin/hexa.js", "verify", bundle], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", fail);
    child.once("close", (status) => ok({ status, stderr, peakKb: Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1]) }));
  });

describe("hexa verify of a decompression bomb", () => {
  it("refuses 10 GiB of zeros in one entry from its header, naming the entry and the cap, in under 256 MB", async () => {
    const bundle = join(temp(), "bomb.tar.gz");
    writeGzipBomb(bundle, "bomb", 10 * GiB);
    const r = await verifyWithPeak(bundle);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/refused as a bundle \("bomb\/big": 10737418240 bytes, over the 4294967296 a bundle entry may have\)/);
    expect(r.peakKb).toBeGreaterThan(0);
    expect(r.peakKb).toBeLessThan(PEAK_LIMIT_KB);
  });

  it("refuses 1 GiB of zeros under the entry cap from its compression ratio, naming the entry and the bound, in under 256 MB", async () => {
    const bundle = join(temp(), "bomb.tar.gz");
    writeGzipBomb(bundle, "bomb", GiB);
    const r = await verifyWithPeak(bundle);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/refused as a bundle \("bomb\/big": \d+ bytes decompressed from the first \d+: more than 200 times its compressed size\)/);
    expect(r.peakKb).toBeGreaterThan(0);
    expect(r.peakKb).toBeLessThan(PEAK_LIMIT_KB);
  });

  it("unpacks an entry under every bound a piece at a time, adding under 100 MB to the command's own peak, and then finds no manifest", async () => {
    const bundle = join(temp(), "big.tar.gz");
    writeGzipBomb(bundle, "big", GiB / 2, 200);
    // The same command on a 64 MiB entry: what hexa verify holds anyway (its modules, its heap) on this machine now.
    const small = join(temp(), "small.tar.gz");
    writeGzipBomb(small, "small", 64 * 2 ** 20, 200);
    const [r, base] = [await verifyWithPeak(bundle), await verifyWithPeak(small)];
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no MANIFEST\.json in the bundle/);
    expect(base.stderr).toMatch(/no MANIFEST\.json in the bundle/);
    expect(r.peakKb).toBeGreaterThan(0);
    // 448 MiB more unpacked adds less than a quarter of itself to the peak: the entry goes a piece at a time.
    expect(r.peakKb - base.peakKb).toBeLessThan(UNPACK_LIMIT_KB);
  });
});
