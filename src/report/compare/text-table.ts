/**
 * Plain-text tables for a terminal of `width` columns: columns padded to their widest cell, numbers aligned right.
 * A table wider than that is printed as one block per row instead (`name` then `header: value` lines), so that no
 * line runs past the terminal's edge; a line that is still too long is wrapped at its spaces.
 */

export interface TextColumn {
  header: string;
  align?: "left" | "right";
}

const GAP = "  ";

/** Words of `line` refilled into lines of at most `width` characters, the continuation lines indented. */
export const wrapLine = (line: string, width: number, indent = "    "): string[] => {
  if (line.length <= width) return [line];
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    const next = current ? `${current} ${word}` : word;
    if (next.length > width && current.trim()) {
      out.push(current);
      current = `${indent}${word}`;
    } else current = next;
  }
  out.push(current);
  return out;
};

const pad = (text: string, width: number, align: TextColumn["align"]) => (align === "right" ? text.padStart(width) : text.padEnd(width));

/** The rows under their headers, each line at most `width` characters. */
export const textTable = (columns: readonly TextColumn[], rows: readonly (readonly string[])[], width: number): string[] => {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => r[i]!.length)));
  const total = widths.reduce((a, b) => a + b, 0) + GAP.length * (columns.length - 1);
  if (total <= width) {
    const line = (cells: readonly string[]) =>
      cells
        .map((text, i) => pad(text, widths[i]!, columns[i]!.align))
        .join(GAP)
        .trimEnd();
    return [line(columns.map((c) => c.header)), ...rows.map(line)];
  }
  return rows.flatMap((r) => [r[0]!, ...columns.slice(1).flatMap((c, i) => wrapLine(`  ${c.header}: ${r[i + 1]!}`, width, "      "))]);
};
