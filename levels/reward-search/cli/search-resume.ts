import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import { addCorrection, MAX_CORRECTION_CHARS, type CorrectionRecord } from "../../../src/search/p2p-corrections.ts";
import { readSearchRecord, SEARCH_RECORD_FILE } from "../../../src/search/search-record.ts";
import { terminalText } from "../../../src/util/terminal-text.ts";
import { FLAGS, TRAINER_FLAGS } from "./search-flags.ts";
import { SearchSettings } from "./search-settings.ts";
import type { SearchCommandArgs } from "./search.ts";
import { readFlagFile } from "../../../src/cli-kit/flag-file.ts";

/**
 * `hexa search --resume DIR` (docs/guides/reward-search.md, "Corrections"): the search in DIR goes on with the
 * settings its search-config.json records, so nothing that shapes it can differ from its start; `--correct TEXT`
 * (repeatable) and `--correct-file F` first add the user's corrections to a p2p search (src/search/p2p-corrections.ts).
 */

/** The flags that shape a search: with --resume they come from its record, never the command line. */
const SHAPING = [
  "task",
  "method",
  "config",
  "train-steps",
  "final-trainings",
  "final-steps",
  "trainer-cache",
  ...[...FLAGS, ...TRAINER_FLAGS].map((f) => f.name),
];

/** A --correct-file holds one correction: its bytes, at most this many (a correction's characters, some multi-byte). */
const MAX_CORRECT_FILE_BYTES = MAX_CORRECTION_CHARS * 4;

/** The settings the search in `dir` was started with (search-config.json), read as a file someone else may have made. */
export const resumedSettings = (argv: SearchCommandArgs, dir: string): SearchSettings => {
  const given = SHAPING.filter((f) => argv[f] !== undefined);
  if (given.length)
    throw new ConfigError(
      `--resume: the search goes on with the settings ${join(dir, SEARCH_RECORD_FILE)} records; drop ${given.map((f) => (f === "task" ? "the task" : `--${f}`)).join(", ")}`,
    );
  if (!existsSync(join(dir, "search.json"))) throw new ConfigError(`--resume ${dir}: not a search directory (no search.json); give one made by hexa search`);
  const record = readSearchRecord(dir);
  if (!record) throw new ConfigError(`--resume ${dir}: no ${SEARCH_RECORD_FILE} (a search begun by an older hexa); resume it with the command that started it`);
  if (record.family !== "reward-search") throw new ConfigError(`${join(dir, SEARCH_RECORD_FILE)}: family: '${record.family}', not a reward search`);
  const parsed = SearchSettings.safeParse(record.settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${join(dir, SEARCH_RECORD_FILE)}: settings.${issue.path.join(".")}: ${issue.message}; not the settings of a search this hexa runs`);
  }
  const s = parsed.data;
  return argv.processes ? { ...s, rewardSearch: { ...s.rewardSearch, trainer: { ...s.rewardSearch.trainer, processes: argv.processes } } } : s;
};

/** The corrections the command line gives, in order: every --correct, then --correct-file's. */
export const correctionTexts = (argv: SearchCommandArgs): string[] => {
  const texts = [
    ...(argv.correct ?? []).map(String),
    ...(argv["correct-file"] === undefined
      ? []
      : [readFlagFile("correct-file", argv["correct-file"], MAX_CORRECT_FILE_BYTES, `one correction of ≤ ${MAX_CORRECTION_CHARS} characters`)]),
  ];
  if (texts.length && argv.resume === undefined)
    throw new ConfigError("--correct: a correction goes to a search that has run; give its directory with --resume DIR");
  return texts;
};

/** Adds the corrections to the p2p search in `dir`, saying each; refused for another method. */
export const addCorrections = (dir: string, s: SearchSettings, texts: readonly string[], now: () => Date, say: (t: string) => void): CorrectionRecord[] => {
  if (texts.length === 0) return [];
  if (s.method !== "p2p") throw new ConfigError(`--correct: ${dir} is a ${s.method} search; corrections go to a p2p search (--strategy p2p)`);
  return texts.map((t) => {
    const c = addCorrection(dir, t, now());
    const after = c.afterIteration === null ? "before any iteration finished" : `after iteration ${c.afterIteration}`;
    say(terminalText(`correction ${c.index} added ${after}: ${JSON.stringify(c.text)}; iteration ${c.iteration}'s reviser must address it\n`));
    return c;
  });
};
