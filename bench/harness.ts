/**
 * The benches' timing harness: warm up, then time each call; summarise samples by nearest-rank quantiles
 * (src/util/stats.ts); print aligned tables (first column left, the rest right). Figures are wall-clock unless a
 * bench says otherwise, and vary with whatever else the machine runs.
 */
import { quantile } from "../src/util/stats.ts";

/** One timed measurement: per-call samples (ms), or none for a one-off that shows `total` only. */
export interface Row {
  what: string;
  n: number;
  samples: number[];
  total: number;
  note?: string;
}

/** The q-quantile of unsorted samples (nearest rank). */
export const percentile = (xs: readonly number[], q: number): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    q,
  );
export const median = (xs: readonly number[]): number => percentile(xs, 0.5);

/** Milliseconds with about three significant digits. */
export const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));

const row = (what: string, n: number, samples: number[], note?: string): Row => ({
  what,
  n,
  samples,
  total: samples.reduce((a, b) => a + b, 0),
  ...(note ? { note } : {}),
});

/** `warm` untimed calls (default min(20, n): the JIT settles), then `n` timed ones. */
export const sample = (what: string, n: number, fn: () => unknown, extra: { warm?: number; note?: string } = {}): Row => {
  for (let i = 0; i < (extra.warm ?? Math.min(20, n)); i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return row(what, n, samples, extra.note);
};

/** As `sample`, awaiting each call; warm-up calls get i = -1, -2, … (default min(5, n) of them). */
export const sampleAsync = async (what: string, n: number, fn: (i: number) => Promise<unknown>, extra: { warm?: number; note?: string } = {}): Promise<Row> => {
  for (let i = 0; i < (extra.warm ?? Math.min(5, n)); i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return row(what, n, samples, extra.note);
};

export const oneOff = (what: string, total: number, note?: string): Row => ({ what, n: 1, samples: [], total, ...(note ? { note } : {}) });

/** Cells aligned in columns, `gap` spaces apart; `align` has one letter per column, l(eft) or r(ight) (default: the first l, the rest r). */
export const formatTable = (head: readonly string[], rows: readonly (readonly string[])[], opts: { align?: string; gap?: number } = {}): string => {
  const widths = head.map((h, j) => Math.max(h.length, ...rows.map((r) => (r[j] ?? "").length)));
  const left = (j: number) => (opts.align ? opts.align[j] === "l" : j === 0);
  const line = (cells: readonly string[]) =>
    cells
      .map((c, j) => (left(j) ? c.padEnd(widths[j]!) : c.padStart(widths[j]!)))
      .join(" ".repeat(opts.gap ?? 2))
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
};

export const printTable = (head: readonly string[], rows: readonly (readonly string[])[], opts: { align?: string; gap?: number } = {}): void =>
  console.log(formatTable(head, rows, opts));

/** Titled sections of timed rows (n, p50, p95 and total ms, a note), in columns shared by every section. */
export const printSections = (sections: readonly { title: string; rows: readonly Row[] }[]): void => {
  const cells = (r: Row) => {
    const p = (q: number) => (r.samples.length ? ms(percentile(r.samples, q)) : "–");
    return [r.what, String(r.n), p(0.5), p(0.95), ms(r.total), r.note ?? ""];
  };
  const lines = formatTable(
    ["", "n", "p50 ms", "p95 ms", "total ms", "note"],
    sections.flatMap((s) => s.rows.map(cells)),
    { align: "lrrrrl" },
  ).split("\n");
  let k = 1;
  for (const s of sections) {
    console.log(`\n${s.title}\n${lines[0]}`);
    for (let i = 0; i < s.rows.length; i++) console.log(lines[k++]);
  }
};
