import { writeFileSync } from "node:fs";
import { ConfigError } from "../errors.ts";

/** Writes an output file named by a flag; a failure is the user's to fix, so it names the flag and the reason. */
export const writeOutput = (flag: string, file: string, data: Uint8Array | string): void => {
  try {
    writeFileSync(file, data);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new ConfigError(`--${flag}: cannot write ${file} (${err.code ?? err.message}); check that its folder exists and is writable`);
  }
};
