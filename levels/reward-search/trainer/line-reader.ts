import type { Readable } from "node:stream";

/**
 * Lines of a byte stream, each at most `maxBytes` long, without ever holding more than that of one line: a line
 * that grows past it is dropped as it arrives (`onTooLong` is told once, before its end is seen) and reading
 * resumes after its newline. A line ends at `\n`; a `\r` before it is dropped. A last line without a newline
 * is delivered at the end of the stream.
 */
export const readBoundedLines = (stream: Readable, maxBytes: number, onLine: (line: string) => void, onTooLong: () => void): void => {
  let parts: Buffer[] = [];
  let size = 0;
  let dropping = false;
  const emit = () => {
    const line = Buffer.concat(parts).toString("utf8");
    onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  };
  stream.on("data", (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!dropping) {
        size += end - start;
        if (size > maxBytes) {
          dropping = true;
          parts = [];
          onTooLong();
        } else if (end > start) parts.push(chunk.subarray(start, end));
      }
      if (newline < 0) return;
      if (!dropping) emit();
      parts = [];
      size = 0;
      dropping = false;
      start = newline + 1;
    }
  });
  stream.on("end", () => {
    if (!dropping && size > 0) emit();
  });
};
