/**
 * The command that starts hexa where the user stands (`./hexa`, `npx hexa`, a linked `hexa`, `node bin/hexa.js`),
 * so that a follow-up hexa prints (a resume, a held-out check, a verify) works as pasted. The CLI's entry point
 * sets it once from how it was started (src/cli/invocation.ts); "hexa" until then, e.g. in a library use.
 */
let launcher = "hexa";

export const setHexaLauncher = (command: string): void => {
  launcher = command;
};

/** `hexa ARGS` as the user can paste it, e.g. `hexaCommand("eval runs/x")` → `./hexa eval runs/x`. */
export const hexaCommand = (args: string): string => `${launcher} ${args}`;
