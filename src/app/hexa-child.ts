import { execa, type Options } from "execa";
import { fileURLToPath } from "node:url";

/** The CLI as a user runs it: a command that plays whole runs (compare's cells, transfer's arms) starts it as a child. */
const HEXA = fileURLToPath(new URL("../../bin/hexa.js", import.meta.url));

/** `hexa ARGS` in a child process of this node, with execa's options; `nodeArgs` go before the script (e.g. `--import` a module). */
export const hexaChild = <O extends Options>(args: readonly string[], options: O, nodeArgs: readonly string[] = []) =>
  execa(process.execPath, [...nodeArgs, HEXA, ...args], options);
