import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { Header } from "tar";
import { beforeAll, describe, expect, it } from "vitest";
import { tinyRun } from "../bundle/tiny-run.ts";
import { hexa } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";

/**
 * Record text a stranger wrote (an episode id, a skill's title, a note beside the run, an archive's entry name)
 * reaches the terminal with its control characters shown as escapes (src/util/terminal-text.ts): it cannot paint
 * "identical" over a divergence, clear the screen or recolour what hexa printed.
 */

const temp = tempDirs("hexa-terminal-");
/** What a forger writes: erase the line, a green "identical", and a C1 CSI (clear the screen). */
const PAINT = "\x1b[2K\x1b[32midentical\x1b[0m\u009b2J";
const PAINT_SHOWN = "\\x1b[2K\\x1b[32midentical\\x1b[0m\\u009b2J";
/** ESC, any C0 but tab and newline, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters this test looks for
const ACTING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let runDir: string;

beforeAll(async () => {
  ({ runDir } = await tinyRun(temp()));
});

/** A copy of the run with `edit` applied to each JSON line of `file`. */
const forged = (file: string, edit: (line: Record<string, any>, i: number) => void): string => {
  const copy = join(temp(), basename(runDir));
  cpSync(runDir, copy, { recursive: true });
  const lines = readFileSync(join(copy, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, any>);
  lines.forEach(edit);
  writeFileSync(join(copy, file), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  return copy;
};

describe("record text on the terminal", () => {
  it("hexa verify: an episode id with escape codes is shown escaped in the divergence, never painted", async () => {
    let done = false;
    const copy = forged("episodes.jsonl", (e) => {
      if (done || e.phase !== "stream") return;
      e.id = `${e.id}${PAINT}`;
      done = true;
    });
    const r = await hexa(["verify", copy]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^diverged: episode stream\/catapult\/r1\/s\d+/);
    expect(r.stdout).toContain(PAINT_SHOWN);
    expect(r.stdout + r.stderr).not.toMatch(ACTING);
  });

  it("hexa bank show: a skill title and principle with escape codes are shown escaped", async () => {
    const copy = forged("bank-events.jsonl", (line, i) => {
      if (i > 0 || line.event.type !== "add") return;
      line.event.entry.title = `title ${PAINT}`;
      line.event.entry.principle = `principle\r${PAINT}`;
    });
    const r = await hexa(["bank", "show", copy]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`title:     title ${PAINT_SHOWN}`);
    expect(r.stdout).toContain(`principle: principle\\x0d${PAINT_SHOWN}`);
    expect(r.stdout).not.toMatch(ACTING);
  });

  it("hexa inspect: a bundle note naming a file with escape codes is printed escaped", async () => {
    const copy = join(temp(), basename(runDir));
    cpSync(runDir, copy, { recursive: true });
    const note = { schemaVersion: 1, file: `run.tar.gz${PAINT}`, manifestHash: "a".repeat(64), createdAt: "2026-01-01T00:00:00Z" };
    writeFileSync(join(copy, "bundle.json"), JSON.stringify(note));
    const r = await hexa(["inspect", copy, "--animations", "none", "--out", join(temp(), "report.html")]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`bundle run.tar.gz${PAINT_SHOWN} (packed`);
    expect(r.stdout + r.stderr).not.toMatch(ACTING);
  });

  it("hexa verify: an archive entry named with escape codes is named escaped in the refusal", async () => {
    const block = Buffer.alloc(512);
    new Header({ path: `run/a${PAINT}`, type: "SymbolicLink", linkpath: "/etc/passwd", size: 0, mode: 0o644, mtime: new Date(0) }).encode(block);
    const bundle = join(temp(), "named.tar.gz");
    writeFileSync(bundle, gzipSync(Buffer.concat([block, Buffer.alloc(1024)])));
    const r = await hexa(["verify", bundle]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/refused as a bundle \("run\/a.*identical.*": a SymbolicLink entry/);
    expect(r.stderr).toContain("\\u009b2J");
    expect(r.stdout + r.stderr).not.toMatch(ACTING);
  });
});
