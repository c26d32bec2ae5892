import { execFileSync } from "node:child_process";
import { ROOT } from "./hexa-cli.ts";

/** The int tier's global setup (vitest.config.ts): compiles dist/ first, so the tests that spawn bin/hexa.js run the shipped JavaScript, never a stale build. */
export default function buildDist(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}
