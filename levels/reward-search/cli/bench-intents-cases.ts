/**
 * The cases of `hexa bench intents` (docs/benchmarks/intents.md): Prompt-to-Policy's 15 MuJoCo intents, read at
 * run time from their CSV (levels/reward-search/intents/, credited there), and hexa's own intents on tasks with a
 * fitness F whose words mean what F measures, so a judged success can be checked against F's solved verdict.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../../src/errors.ts";

export interface IntentCase {
  /** Short and stable: the case's folder under the bench's output. */
  id: string;
  /** hexa's reward-search task the intent is searched on. */
  task: string;
  intent: string;
  category: string;
  difficulty: string;
  /** Where the case comes from: P2P's CSV (no F for its words) or hexa's F-backed cases. */
  source: "p2p" | "f-backed";
}

export const P2P_CASES_FILE = fileURLToPath(new URL("../intents/test_cases_exotic_ant_halfcheetah_humanoid.csv", import.meta.url));

const COLUMNS = ["env_id", "instruction", "category", "difficulty"] as const;
const MAX_CSV_BYTES = 256 * 1024;
const MAX_ROWS = 200;

/** P2P's environment ids and hexa's tasks of the same Gymnasium v5 environments. */
const TASK_OF_ENV: Readonly<Record<string, string>> = { "Ant-v5": "ant", "HalfCheetah-v5": "half_cheetah", "Humanoid-v5": "humanoid" };

/** RFC 4180 records: fields separated by commas, quoted with "…" where they hold commas, quotes ("") or line breaks. */
export const csvRecords = (text: string): string[][] => {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      rows.push([...row, field]), (row = []), (field = "");
    } else field += c;
  }
  if (quoted) throw new ConfigError("the CSV ends inside a quoted field");
  if (field !== "" || row.length) rows.push([...row, field]);
  return rows.filter((r) => r.length > 1 || r[0] !== "");
};

const caseOfRow = (file: string, r: string[], line: number, n: number): IntentCase => {
  const [env, intent, category, difficulty] = r.map((x) => x.trim());
  if (r.length !== COLUMNS.length) throw new ConfigError(`${file}: row ${line} has ${r.length} fields, not ${COLUMNS.length} (${COLUMNS.join(", ")})`);
  const task = TASK_OF_ENV[env!];
  if (!task) throw new ConfigError(`${file}: row ${line}: env_id ${JSON.stringify(env)} is not one hexa runs; known: ${Object.keys(TASK_OF_ENV).join(", ")}`);
  if (!intent) throw new ConfigError(`${file}: row ${line}: instruction is empty`);
  return { id: `p2p-${String(n).padStart(2, "0")}-${task}`, task, intent, category: category!, difficulty: difficulty!, source: "p2p" };
};

/** P2P's cases from their CSV: its header must be exactly their columns, and each row name an environment hexa runs. */
export const readP2pCases = (file: string = P2P_CASES_FILE): IntentCase[] => {
  const bytes = readFileSync(file);
  if (bytes.length > MAX_CSV_BYTES) throw new ConfigError(`${file}: ${bytes.length} bytes, more than ${MAX_CSV_BYTES}; a benchmark's intents are a few KiB`);
  const [header, ...rows] = csvRecords(bytes.toString("utf8"));
  if (header?.join(",") !== COLUMNS.join(","))
    throw new ConfigError(`${file}: its header is ${JSON.stringify(header?.join(",") ?? "")}, not ${COLUMNS.join(",")}`);
  if (rows.length > MAX_ROWS) throw new ConfigError(`${file}: ${rows.length} rows, more than ${MAX_ROWS}`);
  return rows.map((r, i) => caseOfRow(file, r, i + 2, i + 1));
};

/**
 * hexa's F-backed cases: each intent asks for what the task's F measures (hopper's and half_cheetah's forward
 * distance, half_cheetah_backward's backward distance), so judged success and F's solved verdict answer one question.
 */
export const F_BACKED_CASES: readonly IntentCase[] = [
  { id: "f-hopper", task: "hopper", intent: "Hop forward as far as you can without falling over.", category: "locomotion", difficulty: "easy" },
  { id: "f-half_cheetah", task: "half_cheetah", intent: "Run forward as fast as you can.", category: "locomotion", difficulty: "easy" },
  {
    id: "f-half_cheetah_backward",
    task: "half_cheetah_backward",
    intent: "Run backward, moving away from the forward direction, as fast as you can.",
    category: "locomotion",
    difficulty: "medium",
  },
].map((c) => ({ ...c, source: "f-backed" as const }));

/** Every case, P2P's first, or those `ids` names (each must exist). */
export const benchCases = (ids: readonly string[] | undefined, file?: string): IntentCase[] => {
  const all = [...readP2pCases(file), ...F_BACKED_CASES];
  if (!ids?.length) return all;
  return ids.map((id) => {
    const c = all.find((x) => x.id === id);
    if (!c) throw new ConfigError(`--cases: no case ${JSON.stringify(id)}; the cases are ${all.map((x) => x.id).join(", ")}`);
    return c;
  });
};
