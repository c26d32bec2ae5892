import { renameSync, writeFileSync } from "node:fs";
import { readPolicyFile, rolloutGif } from "./rollout-gif.ts";

/** `node film-entry.mjs POLICY_JSON OUT_GIF`: the greedy rollout of a training job's policy as a GIF (inspect-draw.ts runs it). */
const [policyPath, out] = process.argv.slice(2);
if (!policyPath || !out) {
  process.stderr.write("usage: node film-entry.mjs POLICY_JSON OUT_GIF\n");
  process.exit(2);
}
try {
  const p = readPolicyFile(policyPath);
  const gif = await rolloutGif({ task: p.task, instance: p.instance, policy: p.policy });
  // Written whole or not at all: the drawer takes an existing file as done.
  writeFileSync(`${out}.tmp`, gif.bytes);
  renameSync(`${out}.tmp`, out);
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
