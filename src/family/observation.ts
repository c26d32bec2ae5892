import type { ObservationSection, ToolResult } from "./task-env.ts";

/** A part of an observation that compaction keeps whole (docs/spec/method.md §1.2). */
export const kept = (text: string): ObservationSection => ({ text, keep: true });

/** A part of an observation that compaction may cut, within itself only, between items split by `separator` (default lines). */
export const cuttable = (text: string, separator?: string): ObservationSection => ({ text, keep: false, ...(separator ? { separator } : {}) });

/** An observation built from sections: its text (the sections joined by newlines) and the sections themselves. */
export const sectioned = (sections: readonly ObservationSection[]): Required<Pick<ToolResult, "observation" | "compact">> => ({
  observation: sections.map((s) => s.text).join("\n"),
  compact: sections,
});
