import { describe, expect, it } from "vitest";
import { launcherOf } from "./invocation.ts";

const at = "/home/u/hexa";

describe("launcherOf: the command a printed follow-up starts with", () => {
  it("is the ./hexa script as it was called", () => {
    expect(launcherOf({ script: `${at}/bin/hexa.js`, env: { HEXA_LAUNCHER: "./hexa" }, cwd: at })).toBe("./hexa");
    expect(launcherOf({ script: `${at}/bin/hexa.js`, env: { HEXA_LAUNCHER: "../hexa/hexa" }, cwd: "/home/u/work" })).toBe("../hexa/hexa");
  });

  it("is npx hexa under npm exec", () => {
    expect(launcherOf({ script: `${at}/node_modules/.bin/hexa`, env: { npm_command: "exec" }, cwd: at })).toBe("npx hexa");
  });

  it("is node and the file, from where the user stands, when node was given bin/hexa.js", () => {
    expect(launcherOf({ script: `${at}/bin/hexa.js`, env: {}, cwd: at })).toBe("node bin/hexa.js");
    expect(launcherOf({ script: `${at}/bin/hexa.js`, env: {}, cwd: "/tmp" })).toBe(`node ${at}/bin/hexa.js`);
  });

  it("is hexa for a bin linked onto the PATH", () => {
    expect(launcherOf({ script: "/usr/local/bin/hexa", env: {}, cwd: at })).toBe("hexa");
  });
});
