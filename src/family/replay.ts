import type { RoleModel } from "../llm/ask.ts";
import type { Role } from "../llm/config.ts";
import type { RunConfig } from "../loop/run-config.ts";
import type { Divergence } from "../verify/outcome.ts";

/** The run a replay re-executes (docs/guides/verify.md), as a family sees it. */
export interface ReplayRecord {
  /** The recorded run directory (read only). */
  runDir: string;
  config: RunConfig;
  /** When the run started (run.json's createdAt). */
  startedAt: Date;
  /** A fresh folder of the replay's own, for anything the family must write (retrained jobs). */
  workDir: string;
  /** Where the reader keeps the run's recorded work (`hexa verify --trainer-cache`); a bundle carries its own. Never a path of the run's config. */
  trainerCache?: string;
}

/**
 * A family's side of a replay: work the run recorded (a reward-search training) is answered from that record,
 * and `retrain` does some of it again for real and compares. Made per replayed run; `close` restores the
 * family's own way of working.
 */
export interface FamilyReplay {
  /** Recorded results the replay was answered with so far. */
  answered(): number;
  /** The first piece of work the record lacked, if any (the replay then cannot be verified). */
  missing(): string | undefined;
  /** Does `count` of the answered pieces again, chosen by `seed`, and compares each with its record. */
  retrain?(o: {
    count: number;
    seed: number;
    tolerance?: number;
    /** The reader's own trainer (`--trainer-command`), never the run's; unset: the built-in one. */
    trainerCommand?: readonly string[];
    log: (line: string) => void;
  }): Promise<{ checked: number; divergence?: Divergence }>;
  close(): Promise<void>;
}

/** A file outside the run directory that a bundle of the run carries for `hexa verify` (under the bundle's bundle/). */
export interface RecordedFile {
  /** Its path inside the bundle, below bundle/ (e.g. `trainer-cache/<key>.json`). */
  path: string;
  /** Where it is on this machine. */
  source: string;
}

/** A `hexa search` directory a replay re-executes (docs/guides/verify.md), as its family sees it. */
export interface SearchReplayRecord {
  /** The recorded search directory (read only). */
  searchDir: string;
  /** The family's settings as search-config.json records them (parsed by the family). */
  settings: Record<string, unknown>;
  /** When the search first started. */
  startedAt: Date;
  /** A fresh folder of the replay's own, for anything the family must write (retrained jobs). */
  workDir: string;
  /** Where the reader keeps the search's recorded trainings (`hexa verify --trainer-cache`); a bundle carries its own. */
  trainerCache?: string;
  /** The caller made the search (`hexa bundle`): its trainings are read where its own settings say. Never set by `hexa verify`. */
  ownTrainings?: boolean;
  /** A role's model answering from the search's recorded exchanges; the exchanges are read when first asked for. */
  model: (role: Role, name: string) => RoleModel;
}

/** A family's side of a search's replay: its work answered from the record, and the search run again. */
export interface SearchReplay extends FamilyReplay {
  /** Runs the search again with the recorded settings, writing its records (as the search command writes them) into `outDir`. */
  execute(outDir: string): Promise<void>;
  /** Files outside the search directory the replay has read so far (a training's recorded result), for `hexa bundle` to pack. */
  recordedFiles(): RecordedFile[];
}

/** A `hexa judge` folder (judgment.json) a replay re-judges (docs/guides/judging.md), as its family sees it. */
export interface JudgmentReplayRecord {
  /** The recorded judgment folder (read only; a stranger's: nothing in it names a path, endpoint or command that is followed). */
  judgmentDir: string;
  /** A fresh folder of the replay's own (a judge store the replayed authoring writes to). */
  workDir: string;
  /** A role's model answering from the folder's recorded exchanges, named as the record named it; undefined when the record asked that role nothing. */
  model: (role: Role) => RoleModel | undefined;
}

/** What a judgment's replay found: the episodes it re-judged, and the first difference from the record, if any. */
export interface JudgmentReplay {
  episodes: number;
  divergence?: Divergence;
}

/**
 * The replay capability of a family module: work the run recorded outside its directory (reward search: trainings)
 * answered from that record by `hexa verify`, and packed by `hexa bundle`.
 */
export interface ReplayCapability {
  /** Called before the family plays in a replay of a run. */
  run(record: ReplayRecord): Promise<FamilyReplay>;
  /** Files outside the run directory that its replay reads (reward search: the trainer cache's entries of the run's trainings), packed by `hexa bundle`. */
  recordedFiles(record: Omit<ReplayRecord, "workDir">): Promise<RecordedFile[]>;
  /** `hexa verify` on a search directory the family's own command wrote (search-config.json names the family); absent: none. */
  search?(record: SearchReplayRecord): Promise<SearchReplay>;
  /** `hexa verify` on a judgment folder the family's `hexa judge` wrote; absent: none. */
  judgment?(record: JudgmentReplayRecord): Promise<JudgmentReplay>;
}
