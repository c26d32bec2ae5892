import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexa, type Out } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";

/**
 * Bank files a careless user (or an attacker) hands hexa: each is checked where it enters, with the schemas the
 * episode reads it with, before anything is written (docs/spec/method.md §3, docs/spec/interphyre.md §5.3).
 */
const tmp = tempDirs("hexa-hostile-bank-");

type Json = Record<string, any>;
const shipped = (): Json => JSON.parse(readFileSync("skills/banks/catapult.heuristic.json", "utf8")) as Json;

const write = (dir: string, name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
};

/** The first skill's region reversed in dx and its radius range below zero and near the largest double. */
const reversed = (): Json => {
  const bank = shipped();
  bank.skills[0].payload.region.dx = [5, -5];
  bank.skills[0].payload.region.radius = [-1, 1e308];
  return bank;
};

const runYaml = (bankFile: string) =>
  `levels: [catapult]\nagent: heuristic\nevolver: heuristic\ninit: offline\nupdate: static\nseeds: {offset: 56}\nrounds: 1\nepisodesPerRound: 1\noffline: {banks: [${JSON.stringify(bankFile)}]}\n`;

const expectRefused = (r: Out, message: RegExp) => {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/ZodError|\n\s+at /); // no raw schema error, no stack
};

const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe("a bank file with a reversed region", () => {
  it("hexa run refuses it, naming the file, the entry and the field, and makes no run directory", async () => {
    const dir = tmp();
    const bank = write(dir, "reversed.json", reversed());
    const runs = join(dir, "runs");
    const r = await hexa(["run", write(dir, "run.yaml", runYaml(bank)), "--runs-dir", runs]);
    expectRefused(
      r,
      new RegExp(
        `${bank.replace(/[.]/g, "\\.")}: skill 's0_1' \\(skills\\[0\\]\\): payload\\.region\\.dx: must be \\[lo, hi\\] with lo ≤ hi \\(got \\[5,-5\\]\\)`,
      ),
    );
    expect(entries(runs)).toEqual([]);
  }, 60_000);

  it("hexa run refuses a radius range below zero, naming its bounds", async () => {
    const dir = tmp();
    const bank = reversed();
    bank.skills[0].payload.region.dx = [2.8, 3.6];
    const file = write(dir, "radius.json", bank);
    const runs = join(dir, "runs");
    const r = await hexa(["run", write(dir, "run.yaml", runYaml(file)), "--runs-dir", runs]);
    expectRefused(r, /radius\.json: skill 's0_1' \(skills\[0\]\): payload\.region\.radius: must lie inside \(0, 10\] \(got \[-1,1e\+308\]\)/);
    expect(entries(runs)).toEqual([]);
  }, 60_000);

  it("hexa transfer --from LEVEL=FILE refuses it and writes no bank", async () => {
    const dir = tmp();
    const file = write(dir, "reversed.json", reversed());
    const out = join(dir, "out", "bank.json");
    const r = await hexa([
      "transfer",
      "--from",
      `catapult=${file}`,
      "--to",
      "two_body_problem",
      "--synthesiser",
      "heuristic",
      "--eval-seeds",
      "0",
      "--out",
      out,
    ]);
    expectRefused(r, /reversed\.json: skill 's0_1' \(skills\[0\]\): payload\.region\.dx: must be \[lo, hi\]/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("refuses two entries with one id, naming both places", async () => {
    const dir = tmp();
    const bank = shipped();
    bank.mistakes = [{ ...bank.skills[1], kind: "mistake", description: "d", rootCause: "r", correction: "c", id: bank.skills[0].id }];
    const file = write(dir, "twice.json", bank);
    const runs = join(dir, "runs");
    const r = await hexa(["run", write(dir, "run.yaml", runYaml(file)), "--runs-dir", runs]);
    expectRefused(r, /twice\.json: mistake 's0_1' \(mistakes\[0\]\): id 's0_1' is also skills\[0\]'s; give every entry its own id/);
    expect(entries(runs)).toEqual([]);
  }, 60_000);
});

describe("a bank file of 50,000 skills (the cap is 10)", () => {
  const huge = (): Json => {
    const bank = shipped();
    const template = bank.skills[0];
    bank.skills = Array.from({ length: 50_000 }, (_, i) => ({ ...template, id: `s${i}`, weight: (i % 997) / 1000 }));
    return bank;
  };

  it("enters as the 10 heaviest skills, with a line naming the count and the cap", async () => {
    const dir = tmp();
    const file = write(dir, "huge.json", huge());
    const runs = join(dir, "runs");
    const r = await hexa(["run", write(dir, "run.yaml", runYaml(file)), "--runs-dir", runs]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/huge\.json: 50000 skills, over the cap of 10 \(bank\.maxSkills\); the 10 heaviest are kept/);
    const [run] = entries(runs);
    const added = jsonlOf(join(runs, run!, "bank-events.jsonl")).filter((l) => l.event?.type === "add");
    expect(added).toHaveLength(10);
    expect(added.every((l) => l.event.entry.weight === 0.996)).toBe(true);
  }, 120_000);

  it("is refused whole for one reversed region deep inside it", async () => {
    const dir = tmp();
    const bank = huge();
    bank.skills[40_000] = { ...bank.skills[40_000], payload: { region: { relativeTo: "green_ball", dx: [1, 0], dy: [0, 1] } } };
    const file = write(dir, "huge-bad.json", bank);
    const runs = join(dir, "runs");
    const r = await hexa(["run", write(dir, "run.yaml", runYaml(file)), "--runs-dir", runs]);
    expectRefused(r, /huge-bad\.json: skill 's40000' \(skills\[40000\]\): payload\.region\.dx: must be \[lo, hi\] with lo ≤ hi \(got \[1,0\]\)/);
    expect(entries(runs)).toEqual([]);
  }, 60_000);
});

describe("a run directory whose recorded bank holds a reversed region", () => {
  /** A finished run from the shipped bank, cut back to its round-0 bank with the first entry's region reversed. */
  const damagedRun = async (): Promise<string> => {
    const dir = tmp();
    const runs = join(dir, "runs");
    const made = await hexa(["run", write(dir, "run.yaml", runYaml(join(process.cwd(), "skills/banks/catapult.heuristic.json"))), "--runs-dir", runs]);
    expect(made.status, made.stderr).toBe(0);
    const run = join(runs, entries(runs)[0]!);
    const lines = jsonlOf(join(run, "bank-events.jsonl"));
    const round0 = lines.slice(0, lines.findIndex((l) => l.commit?.round === 0) + 1);
    round0[0]!.event.entry.payload.region.dx = [5, -5];
    writeFileSync(join(run, "bank-events.jsonl"), round0.map((l) => `${JSON.stringify(l)}\n`).join(""));
    rmSync(join(run, "episodes.jsonl"));
    return run;
  };

  it("hexa run --resume ends with the file, the entry and the field, exit 2, and writes nothing", async () => {
    const run = await damagedRun();
    const before = readFileSync(join(run, "bank-events.jsonl"), "utf8");
    const files = entries(run).sort();
    const r = await hexa(["run", "--resume", run]);
    expectRefused(
      r,
      /bank-events\.jsonl: catapult, round 0, add of skill 'shipped_s0_1': payload\.region\.dx: must be \[lo, hi\] with lo ≤ hi \(got \[5,-5\]\)/,
    );
    expect(readFileSync(join(run, "bank-events.jsonl"), "utf8")).toBe(before);
    expect(entries(run).sort()).toEqual(files);
    expect(existsSync(join(run, "episodes.jsonl"))).toBe(false);

    const shown = await hexa(["bank", "show", run]);
    expectRefused(shown, /bank-events\.jsonl: catapult, round 0, add of skill 'shipped_s0_1': payload\.region\.dx/);
  }, 120_000);

  it("hexa run --resume before round 0 is committed refuses its bank file, since reversed, before it resumes", async () => {
    const dir = tmp();
    const file = write(dir, "bank.json", shipped());
    const runs = join(dir, "runs");
    const made = await hexa(["run", write(dir, "run.yaml", runYaml(file)), "--runs-dir", runs]);
    expect(made.status, made.stderr).toBe(0);
    const run = join(runs, entries(runs)[0]!);
    rmSync(join(run, "bank-events.jsonl"));
    rmSync(join(run, "episodes.jsonl"));
    write(dir, "bank.json", reversed());
    const writers = readFileSync(join(run, "writers.jsonl"), "utf8");
    const files = entries(run).sort();
    const r = await hexa(["run", "--resume", run]);
    expectRefused(r, /bank\.json: skill 's0_1' \(skills\[0\]\): payload\.region\.dx: must be \[lo, hi\] with lo ≤ hi/);
    expect(r.stderr).not.toMatch(/resuming|Continue with/); // refused before the run began, not stopped inside it
    expect(readFileSync(join(run, "writers.jsonl"), "utf8")).toBe(writers);
    expect(entries(run).sort()).toEqual(files);
  }, 120_000);
});
