import type { ObservationSection } from "../src/family/task-env.ts";

/** Splits `budget` over lengths so that short pieces stay whole and long ones share the rest equally. */
export const waterFill = (lengths: readonly number[], budget: number): number[] => {
  const out = lengths.map(() => 0);
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]!);
  let left = Math.max(0, budget);
  order.forEach((i, k) => {
    const share = Math.floor(left / (order.length - k));
    out[i] = Math.min(lengths[i]!, share);
    left -= out[i]!;
  });
  return out;
};

/** Below this a cut section says nothing useful and is replaced by a note alone. */
const MIN_PIECE_CHARS = 60;

const cutNote = (n: number) => `[… ${n} characters cut]`;

/** One line cut to about `share` characters: its head (2/3) and tail (1/3) around a note. */
const cutLine = (text: string, share: number): string => {
  const head = Math.ceil((share * 2) / 3);
  const tail = share - head;
  return `${text.slice(0, head)} … [${text.length - head - tail} characters cut] … ${text.slice(text.length - tail)}`;
};

/** A section of several items cut to about `share` characters between items: whole items from its head and tail. */
const cutItems = (items: readonly string[], separator: string, share: number): string => {
  const step = (item: string) => item.length + separator.length;
  let head = 0;
  let used = 0;
  while (head < items.length && used + step(items[head]!) <= (share * 2) / 3) used += step(items[head++]!);
  let tail = 0;
  while (tail < items.length - head && used + step(items[items.length - 1 - tail]!) <= share) used += step(items[items.length - 1 - tail++]!);
  const cut = items.slice(head, items.length - tail);
  const unit = separator === "\n" ? (cut.length === 1 ? "line" : "lines") : cut.length === 1 ? "item" : "items";
  const note = `[… ${cut.length} ${unit} (${cut.join(separator).length} characters) cut]`;
  return [...items.slice(0, head), note, ...items.slice(items.length - tail)].join(separator);
};

/** A section cut to about `share` characters inside itself: between its items when it has several, else mid-text. */
const cutWithin = (s: ObservationSection, share: number): string => {
  const separator = s.separator ?? "\n";
  const items = s.text.split(separator);
  return items.length > 1 ? cutItems(items, separator, share) : cutLine(s.text, share);
};

/**
 * An old observation compacted to about `budget` characters by its structure (docs/spec/method.md §1.2): sections the
 * family marked `keep` stay whole even past the budget; the others share what is left, each cut inside itself (so no
 * text of one object runs into another's), and neighbouring sections cut to nothing share one note.
 */
export const compactObservation = (sections: readonly ObservationSection[], budget: number): string => {
  const whole = sections.map((s) => s.text).join("\n");
  if (whole.length <= budget) return whole;
  const keptChars = sections.reduce((n, s) => n + (s.keep ? s.text.length : 0), 0);
  const open = sections.flatMap((s, i) => (s.keep ? [] : [i]));
  const newlines = sections.length - 1;
  const shares = waterFill(
    open.map((i) => sections[i]!.text.length),
    budget - keptChars - newlines,
  );
  const out: string[] = [];
  let dropped = 0;
  const flush = () => {
    if (dropped > 0) out.push(cutNote(dropped));
    dropped = 0;
  };
  sections.forEach((s, i) => {
    const k = open.indexOf(i);
    const share = k < 0 ? s.text.length : shares[k]!;
    if (share >= s.text.length) {
      flush();
      out.push(s.text);
    } else if (share < MIN_PIECE_CHARS) {
      dropped += s.text.length;
    } else {
      flush();
      out.push(cutWithin(s, share));
    }
  });
  flush();
  return out.join("\n");
};
