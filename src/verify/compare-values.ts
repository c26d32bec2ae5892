/**
 * Keys whose values are the machine's and not the method's: wall-clock times and timestamps. A replay runs on
 * another machine at another time, so these are never compared.
 */
const VOLATILE = /^(ms|at|ts)$|Ms$|At$/;

export interface Difference {
  field: string;
  recorded: string;
  replayed: string;
}

const show = (v: unknown): string => {
  if (v === undefined) return "(absent)";
  const text = JSON.stringify(v);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** Two long texts shown around where they part, so that the difference is in view. */
const showTexts = (a: string, b: string): { recorded: string; replayed: string } => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 80);
  const cut = (t: string) => `${from > 0 ? `…(${from} characters) ` : ""}${JSON.stringify(t.slice(from, i + 160))}${t.length > i + 160 ? "…" : ""}`;
  return { recorded: cut(a), replayed: cut(b) };
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The first field (dotted path, arrays indexed) where two JSON values differ, volatile keys aside. */
export const firstDifference = (recorded: unknown, replayed: unknown, at = ""): Difference | undefined => {
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    for (let i = 0; i < Math.max(recorded.length, replayed.length); i++) {
      const d = firstDifference(recorded[i], replayed[i], `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (isObject(recorded) && isObject(replayed)) {
    for (const key of [...new Set([...Object.keys(recorded), ...Object.keys(replayed)])]) {
      if (VOLATILE.test(key)) continue;
      const d = firstDifference(recorded[key], replayed[key], at ? `${at}.${key}` : key);
      if (d) return d;
    }
    return undefined;
  }
  if (JSON.stringify(recorded) === JSON.stringify(replayed)) return undefined;
  if (typeof recorded === "string" && typeof replayed === "string" && recorded.length + replayed.length > 200)
    return { field: at || "(value)", ...showTexts(recorded, replayed) };
  return { field: at || "(value)", recorded: show(recorded), replayed: show(replayed) };
};
