import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBoundedLines } from "./line-reader.ts";

const read = async (chunks: Array<Buffer | string>, maxBytes: number) => {
  const stream = new PassThrough();
  const seen: string[] = [];
  readBoundedLines(
    stream,
    maxBytes,
    (l) => seen.push(l),
    () => seen.push("<too long>"),
  );
  for (const c of chunks) stream.write(c);
  stream.end();
  await new Promise((r) => stream.on("end", r));
  return seen;
};

describe("readBoundedLines", () => {
  it("joins lines across chunks, a character split between chunks included, and drops \\r before \\n", async () => {
    const euro = Buffer.from("€");
    expect(await read(["ab", "c\r\nd", euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from("\n\nlast")])], 100)).toEqual([
      "abc",
      "d€",
      "",
      "last",
    ]);
  });

  it("drops a line past the limit as soon as it passes it, once, and reads the next line whole", async () => {
    expect(await read(["12345", "6789", "0123\nok\n"], 8)).toEqual(["<too long>", "ok"]);
    expect(await read(["12345678\n123456789\n"], 8)).toEqual(["12345678", "<too long>"]);
  });
});
