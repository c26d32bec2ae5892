/** Where the CLI's entry point records the command that started hexa (src/cli/invocation.ts), for this process and the hexa processes it starts. */
export const LAUNCHER_ENV = "HEXA_LAUNCHER";

/**
 * `hexa ARGS` as the user can paste it, e.g. `hexaCommand("eval runs/x")` → `./hexa eval runs/x`: the command that
 * started hexa where the user stands (`./hexa`, `npx hexa`, a linked `hexa`, `node bin/hexa.js`), so that a
 * follow-up hexa prints (a resume, a held-out check, a verify) works as pasted; "hexa" where none is recorded,
 * e.g. in a library use.
 */
export const hexaCommand = (args: string, env: NodeJS.ProcessEnv = process.env): string => `${env[LAUNCHER_ENV]?.trim() || "hexa"} ${args}`;
