import { ConfigError } from "../errors.ts";

/** Flag parsers shared by the picture commands: each error names the flag and the value it got. */

export const intFlag =
  (name: string, min: number, max: number) =>
  (v: unknown): number => {
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new ConfigError(`--${name} must be an integer in [${min}, ${max}] (got ${JSON.stringify(v)})`);
    }
    return n;
  };

/** `--action x,y,r`: the red ball's centre and radius, three finite numbers. */
export const parseAction = (v: unknown): { x: number; y: number; radius: number } => {
  const parts = typeof v === "string" ? v.split(",").map((s) => s.trim()) : [];
  const nums = parts.map((s) => (s === "" ? NaN : Number(s)));
  if (nums.length !== 3 || !nums.every(Number.isFinite)) {
    throw new ConfigError(`--action must be three finite numbers x,y,r, e.g. --action 0.5,2,0.4 (got ${JSON.stringify(v)})`);
  }
  const [x, y, radius] = nums as [number, number, number];
  return { x, y, radius };
};

/** The picture format from the file's extension. */
export const pictureFormat = (flag: string, file: string, allowed: readonly string[]): string => {
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === undefined || !allowed.includes(ext)) {
    throw new ConfigError(`--${flag} must end in ${allowed.map((e) => `.${e}`).join(" or ")} (got ${JSON.stringify(file)})`);
  }
  return ext;
};

/** A flag that takes a positive integer; the error names the flag and the value it got. */
export const positiveIntFlag =
  (name: string) =>
  (v: unknown): number => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1) throw new ConfigError(`--${name} must be a positive integer (got ${JSON.stringify(v)})`);
    return n;
  };
