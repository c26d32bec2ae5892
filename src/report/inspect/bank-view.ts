import { foldEvents, type BankEntry, type BankEvent } from "../../store/bank.ts";
import { byTier, retiredReason, type Lesson } from "../../store/lesson.ts";
import type { BankSnapshot } from "../../store/run-records.ts";

/**
 * The bank over time for the report: one row per entry ever created (an add or a merge makes one; a revise
 * keeps its row), what happened to it and why, the weight of each entry at every round, the banks to diff and
 * the lineage of merges and revisions. Built from the committed events; weights and diffs from banks/round-NN.json.
 */

interface EntryEventView {
  round: number;
  type: BankEvent["type"];
  reason: string;
  evidence: string[];
  /** Weight after a reweight; the entry text after an add, merge or revise. */
  weight?: number;
  text?: string;
}

interface EntryRow {
  /** level/id, or level/id#n when an id is created again after it ended. */
  key: string;
  level: string;
  id: string;
  kind: BankEntry["kind"];
  title: string;
  born: number;
  bornBy: "add" | "merge";
  parents: string[];
  /** The round it left the bank; absent while it is in the bank. */
  end?: number;
  endBy?: "merged" | "pruned";
  /** The entry it was merged into, or the prune reason. */
  endDetail?: string;
  revisions: number;
  events: EntryEventView[];
}

interface SnapshotEntry {
  id: string;
  kind: BankEntry["kind"];
  weight: number;
  title: string;
  text: string;
}

export interface BankView {
  levels: string[];
  rows: EntryRow[];
  weights: { level: string; id: string; kind: string; round: number; weight: number }[];
  /** round → level → entries, heaviest first. */
  snapshots: { round: number; banks: Record<string, SnapshotEntry[]> }[];
  failures: { level: string; round: number; error: string; reason: string }[];
  lineage: { level: string; from: string; to: string; type: "merge" | "revise"; round: number }[];
  /** Events per level and type, for the summary line and the tests. */
  counts: Record<string, Record<string, number>>;
  /** Each level's lessons in its last bank, most binding first (docs/spec/method.md §3.1); absent when no level has any. */
  lessons?: LessonView[];
}

export interface LessonView extends Pick<Lesson, "id" | "tier" | "text" | "parents" | "history" | "source"> {
  level: string;
  retiredReason?: string;
}

export const lessonViews = (level: string, events: readonly BankEvent[]): LessonView[] =>
  byTier(foldEvents(events).lessons ?? []).map((l) => {
    const why = retiredReason(l);
    return {
      level,
      id: l.id,
      tier: l.tier,
      text: l.text,
      parents: l.parents,
      history: l.history,
      ...(l.source ? { source: l.source } : {}),
      ...(why ? { retiredReason: why } : {}),
    };
  });

const titleOf = (e: BankEntry): string => (e.kind === "skill" ? e.title : e.description);

/** The entry as the reader (and the diff) sees it: every text field, labelled. */
const entryText = (e: BankEntry): string =>
  e.kind === "skill"
    ? [`title: ${e.title}`, `principle: ${e.principle}`, `when to apply: ${e.whenToApply}`, ...(e.example ? [`example: ${e.example}`] : [])].join("\n")
    : [`what goes wrong: ${e.description}`, `root cause: ${e.rootCause}`, `correction: ${e.correction}`].join("\n");

const eventView = (e: BankEvent): EntryEventView => ({
  round: e.round,
  type: e.type,
  reason: e.reason,
  evidence: e.evidence,
  ...(e.type === "reweight" ? { weight: e.weight } : {}),
  ...(e.type === "add" || e.type === "merge" || e.type === "revise" ? { text: entryText(e.entry) } : {}),
});

const levelRows = (level: string, events: readonly BankEvent[], view: BankView) => {
  const live = new Map<string, EntryRow>();
  const made = new Map<string, number>();
  const create = (e: BankEvent & { entry: BankEntry }, bornBy: EntryRow["bornBy"], parents: string[]) => {
    const n = (made.get(e.entry.id) ?? 0) + 1;
    made.set(e.entry.id, n);
    const row: EntryRow = {
      key: `${level}/${e.entry.id}${n > 1 ? `#${n}` : ""}`,
      level,
      id: e.entry.id,
      kind: e.entry.kind,
      title: titleOf(e.entry),
      born: e.round,
      bornBy,
      parents,
      revisions: 0,
      events: [eventView(e)],
    };
    live.set(e.entry.id, row);
    view.rows.push(row);
  };
  const close = (id: string, round: number, endBy: EntryRow["endBy"], detail: string, e: BankEvent) => {
    const row = live.get(id);
    if (!row) return;
    Object.assign(row, { end: round, endBy, endDetail: detail });
    row.events.push(eventView(e));
    live.delete(id);
  };
  for (const e of events) {
    view.counts[level]![e.type] = (view.counts[level]![e.type] ?? 0) + 1;
    switch (e.type) {
      case "add":
        create(e, "add", e.entry.parents);
        break;
      case "merge":
        e.from.forEach((id) => close(id, e.round, "merged", e.entry.id, e));
        e.from.forEach((id) => view.lineage.push({ level, from: id, to: e.entry.id, type: "merge", round: e.round }));
        create(e, "merge", e.from);
        break;
      case "revise": {
        const row = live.get(e.entry.id);
        if (row) {
          row.revisions++;
          row.title = titleOf(e.entry);
          row.events.push(eventView(e));
          view.lineage.push({ level, from: e.entry.id, to: e.entry.id, type: "revise", round: e.round });
        }
        break;
      }
      case "reweight":
        live.get(e.id)?.events.push(eventView(e));
        break;
      case "prune":
        close(e.id, e.round, "pruned", `${e.why}${e.reason ? `: ${e.reason}` : ""}`, e);
        break;
      case "evolver_failure":
        view.failures.push({ level, round: e.round, error: e.error, reason: e.reason });
        break;
    }
  }
};

const snapshotEntry = (e: BankEntry): SnapshotEntry => ({ id: e.id, kind: e.kind, weight: e.weight, title: titleOf(e), text: entryText(e) });

export const bankView = (events: ReadonlyMap<string, readonly BankEvent[]>, snapshots: readonly BankSnapshot[]): BankView => {
  const levels = [...new Set([...events.keys(), ...snapshots.flatMap((s) => Object.keys(s.banks))])];
  const view: BankView = { levels, rows: [], weights: [], snapshots: [], failures: [], lineage: [], counts: {} };
  for (const level of levels) {
    view.counts[level] = {};
    levelRows(level, events.get(level) ?? [], view);
  }
  // Only a level with lessons is folded here, so a run without any reads exactly as before.
  const withLessons = levels.filter((level) => (events.get(level) ?? []).some((e) => e.type === "lesson_added"));
  if (withLessons.length) view.lessons = withLessons.flatMap((level) => lessonViews(level, events.get(level)!));
  for (const s of snapshots) {
    const banks: Record<string, SnapshotEntry[]> = {};
    for (const [level, bank] of Object.entries(s.banks)) {
      const entries = [...bank.skills, ...bank.mistakes];
      banks[level] = entries.map(snapshotEntry).sort((a, b) => b.weight - a.weight || a.id.localeCompare(b.id));
      entries.forEach((e) => view.weights.push({ level, id: e.id, kind: e.kind, round: s.round, weight: e.weight }));
    }
    view.snapshots.push({ round: s.round, banks });
  }
  return view;
};
