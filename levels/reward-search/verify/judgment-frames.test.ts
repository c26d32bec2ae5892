import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { frameBudget, recordedFrames } from "./judgment-frames.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-judgment-frames-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
/** 25 steps at dt 0.008 (0.2 s): two frames at 10 fps, sampled at the centres of their intervals, source frames 5 and 18. */
const record = { steps: 25, header: { dt: 0.008 } } as unknown as TrajectoryRecord;

/** A judgment folder whose frames/7/ holds `files`. */
const folder = (name: string, files: Record<string, Buffer | "link">): string => {
  const dir = join(root, name);
  mkdirSync(join(dir, "frames", "7"), { recursive: true });
  for (const [f, body] of Object.entries(files))
    if (body === "link") symlinkSync("/etc/hostname", join(dir, "frames", "7", f));
    else writeFileSync(join(dir, "frames", "7", f), body);
  return dir;
};

describe("a pick's frames read back for hexa verify", () => {
  it("reads exactly the frames hexa judge renders for the trajectory, with the rendering's times", () => {
    const dir = folder("ok", {
      "frame-0000.png": PNG,
      "frame-0001.png": PNG,
      "frame-0002.png": Buffer.from("extra"),
      "trail-0000.png": PNG,
      "trail-0001.png": PNG,
    });
    const r = recordedFrames(dir, 7, record, true, frameBudget());
    expect(r.frames).toHaveLength(2);
    expect(r.trail).toHaveLength(2);
    expect(r.times).toEqual([5 * 0.008, 18 * 0.008]);
    expect(recordedFrames(dir, 7, record, false, frameBudget()).trail).toBeUndefined();
  });

  it("refuses a missing frame, a link and a file that is not a PNG, naming the file", () => {
    expect(() => recordedFrames(folder("short", { "frame-0000.png": PNG }), 7, record, false, frameBudget())).toThrow(
      /frames\/7\/frame-0001\.png: missing \(hexa judge rendered 2 frame files/,
    );
    expect(() => recordedFrames(folder("link", { "frame-0000.png": PNG, "frame-0001.png": "link" }), 7, record, false, frameBudget())).toThrow(
      /frame-0001\.png: not a plain file/,
    );
    expect(() => recordedFrames(folder("text", { "frame-0000.png": Buffer.from("hello world") }), 7, record, false, frameBudget())).toThrow(
      /frame-0000\.png: not a PNG/,
    );
    expect(() => recordedFrames(join(root, "none"), 7, record, false, frameBudget())).toThrow(/frames: missing or not a plain folder/);
  });

  it("stops at the shared byte budget", () => {
    const dir = folder("budget", { "frame-0000.png": PNG, "frame-0001.png": PNG });
    expect(() => recordedFrames(dir, 7, record, false, { left: PNG.length + 1 })).toThrow(/frame-0001\.png: the frames read pass/);
  });
});
