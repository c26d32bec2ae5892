import { basename, isAbsolute, relative, sep } from "node:path";
import { LAUNCHER_ENV } from "../util/hexa-command.ts";

/** What says how hexa was started: the script node runs (process.argv[1]), the environment and the working folder. */
export interface Invocation {
  script: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/**
 * The launcher, when something says it: the `./hexa` shell script sets its `$0`, hexa sets what it found for the
 * hexa processes a command starts (hexa compare's runs), and a user or a test may set it.
 */

/** `node PATH` with the path as short as it can be from the working folder. */
const nodeCommand = (script: string, cwd: string): string => {
  const rel = relative(cwd, script);
  return `node ${rel.startsWith("..") || isAbsolute(rel) ? script : rel.split(sep).join("/")}`;
};

/**
 * The command a user types to start hexa again from where they stand: what HEXA_LAUNCHER says (the `./hexa` script), `npx
 * hexa` under npm exec, `node bin/hexa.js` when node was given the file, else `hexa` (a bin linked onto the PATH).
 */
export const launcherOf = ({ script, env, cwd }: Invocation): string => {
  const given = env[LAUNCHER_ENV]?.trim();
  if (given) return given;
  if (env.npm_command === "exec") return "npx hexa";
  if (script && basename(script) === "hexa.js") return nodeCommand(script, cwd);
  return "hexa";
};
