import { createAppContext } from "../src/app/context.ts";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRunInput, findTarget, cellOf } from "../src/app/inspect-load.ts";
import { interphyreDrawer } from "../levels/interphyre/pictures/inspect-draw.ts";
import { renderReportHtml } from "../src/report/inspect/html.ts";
import { buildReport, buildRunView, lastSolvedOfEachLevel } from "../src/report/inspect/model.ts";
import { copyOfSmallRun, hexa } from "./support/inspect-runs.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/** `hexa inspect` without a browser (docs/ARCHITECTURE.md §8): the report's data, bad input and torn files. */

let root: string;
let run: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "hexa-inspect-"));
  run = copyOfSmallRun(join(root, "runs"));
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
const createdInEvents = (dir: string) =>
  lines(join(dir, "bank-events.jsonl"))
    .map((l) => JSON.parse(l) as { event?: { type: string } })
    .filter((l) => l.event?.type === "add" || l.event?.type === "merge").length;

describe("hexa inspect: the report's data", () => {
  it("has every episode, one timeline row per entry ever created, and the bank snapshots", () => {
    const view = buildRunView(readRunInput(families, run), interphyreDrawer(), { animate: () => false });
    expect(view.episodes).toHaveLength(lines(join(run, "episodes.jsonl")).length);
    expect(view.bank.rows).toHaveLength(createdInEvents(run));
    expect(view.bank.snapshots.map((s) => s.round)).toEqual([0, 1, 2, 3]);
    expect(view.summary.labels.agent).toBe("heuristic, no LLM");
    expect(view.summary).toMatchObject({ T: 25, x: 2, R: 3, M: 6, N: 4, seedOffset: 56, levels: ["catapult", "pass_the_parcel"] });
    // Every episode has a scene picture; no animation was asked for.
    expect(view.episodes.every((e) => e.image?.startsWith("data:image/svg+xml;base64,") && e.animation === undefined)).toBe(true);
    expect(view.notices).toEqual([]);
  });

  it("embeds animations only where asked: by default the last solved stream episode of each level", () => {
    const input = readRunInput(families, run);
    const view = buildRunView(input, interphyreDrawer(), { animate: lastSolvedOfEachLevel });
    const animated = view.episodes.filter((e) => e.animation);
    const lastSolved = (level: string) => view.episodes.filter((e) => e.phase === "stream" && e.level === level && e.success).at(-1)?.id;
    expect(animated.map((e) => e.id).sort()).toEqual(
      ["catapult", "pass_the_parcel"]
        .map(lastSolved)
        .filter((id) => id !== undefined)
        .sort(),
    );
    expect(animated.every((e) => e.animation!.startsWith("data:image/gif;base64,"))).toBe(true);
  });

  it("writes report.html with the data, the bundles and no address outside the file", () => {
    const r = hexa(["inspect", run]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*report\.html \(\d+ KiB: \d+ episodes, [0-2] animations; built in [\d.]+ s\)/);
    const html = readFileSync(join(run, "report.html"), "utf8");
    expect(html).toContain('id="hexa-data"');
    expect(html).toContain("window.HEXA_LIVE = false");
    // No script or style is fetched: every src/href is inline data or an in-page anchor.
    expect(html.match(/<(script|link|img)[^>]+(src|href)="(?!data:|#)/g)).toBeNull();
  });

  it("keeps data from closing its <script> element", () => {
    const view = buildRunView(readRunInput(families, run), interphyreDrawer(), { animate: () => false });
    view.episodes[0]!.steps[0]!.observation = "</script><script>alert(1)</script>";
    const html = renderReportHtml(
      buildReport({ kind: "run", title: "t", builtAt: "now", cells: [{ name: "c", runs: [view] }] }),
      { vega: "", vegaLite: "", client: "" },
      { live: false },
    );
    expect(html).not.toContain("</script><script>alert(1)");
  });
});

describe("hexa inspect: bad input", () => {
  it("refuses a directory that is neither a run nor a comparison, and a missing one", () => {
    const empty = join(root, "empty");
    cpSync(join(run, "banks"), join(empty, "banks"), { recursive: true });
    let r = hexa(["inspect", empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/empty: not a hexa run \(no run\.json\) nor a comparison \(no run directories inside\); give a directory made by hexa run/);
    r = hexa(["inspect", join(root, "nowhere")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nowhere: no such directory/);
  });

  it("shows a run with torn last lines as far as it goes, with a notice, and leaves the files as they were", () => {
    // A copy keeps the run's own name: a run directory must be named by its id.
    const torn = join(root, "torn", basename(run));
    cpSync(run, torn, { recursive: true });
    const complete = lines(join(torn, "episodes.jsonl")).length;
    appendFileSync(join(torn, "episodes.jsonl"), '{"schemaVersion":1,"id":"stream/catapult/r4');
    appendFileSync(join(torn, "bank-events.jsonl"), '{"level":"catapult","event":{"type":"add"');
    const before = readFileSync(join(torn, "episodes.jsonl"), "utf8");
    const input = readRunInput(families, torn);
    expect(input.episodes).toHaveLength(complete);
    expect(input.notices.join("\n")).toMatch(/episodes\.jsonl: the last line is incomplete .* shown up to the line before it/);
    expect(input.notices.join("\n")).toMatch(/bank-events\.jsonl: the last line is incomplete/);
    expect(readFileSync(join(torn, "episodes.jsonl"), "utf8")).toBe(before);
    const r = hexa(["inspect", torn, "--out", join(root, "torn.html"), "--animations", "none"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/notice: .*episodes\.jsonl: the last line is incomplete/);
    expect(readFileSync(join(root, "torn.html"), "utf8")).toContain("the last line is incomplete");
  });

  it("notices bank events after the last commit line (an update in progress)", () => {
    const open = join(root, "open-update", basename(run));
    cpSync(run, open, { recursive: true });
    const first = lines(join(open, "bank-events.jsonl")).find((l) => l.includes('"event"'))!;
    writeFileSync(join(open, "bank-events.jsonl"), `${readFileSync(join(open, "bank-events.jsonl"), "utf8")}${first}\n`);
    expect(readRunInput(families, open).notices.join("\n")).toMatch(/1 event\(s\) after the last commit line/);
  });
});

describe("hexa inspect: comparison directories", () => {
  it("groups runs into cells by their id without seed and time, or by cell directory", () => {
    expect(cellOf("catapult__heuristic-off2on-evolving__s3__20261203T061733Z")).toBe("catapult__heuristic-off2on-evolving");
    const cmp = join(root, "cmp");
    cpSync(run, join(cmp, "a", "r1"), { recursive: true });
    cpSync(run, join(cmp, "a", "r2"), { recursive: true });
    cpSync(run, join(cmp, "b", "r1"), { recursive: true });
    const t = findTarget(cmp);
    expect(t.kind).toBe("compare");
    expect(t.cells.map((c) => [c.name, c.runs.length])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
  });
});
