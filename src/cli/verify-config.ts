import { existsSync, realpathSync } from "node:fs";
import type { LevelFamily } from "../family/family.ts";
import { isAbsolute, join } from "node:path";
import { isInside } from "../util/path-inside.ts";
import { HEXA_ROOT } from "../bundle/code-version.ts";
import { parseRunConfig, type RunConfig } from "../loop/run-config.ts";
import { CannotVerify } from "../verify/outcome.ts";
import { trustedPart, withheldText } from "./run-config-trust.ts";

const OFFLINE_FILES = ["trajectories", "banks"] as const;

/**
 * An offline input of the recorded run, as the replay reads it: the same relative path inside the run (a bundle
 * may carry it), else inside the reader's own hexa's shipped skills/ (skills/banks/…, skills/offline/…). Any other
 * path — absolute, climbing out, or naming a file of the reader's machine — is refused, never opened.
 */
const offlineInput = (path: string, runDir: string, field: string): string => {
  const plain = !isAbsolute(path) && !path.split(/[\\/]/).includes("..");
  const roots = [runDir, join(HEXA_ROOT, "skills")];
  for (const [i, root] of roots.entries()) {
    const at = i === 0 ? join(root, path) : join(HEXA_ROOT, path);
    if (plain && existsSync(root) && existsSync(at) && isInside(realpathSync(root), realpathSync(at))) return at;
  }
  throw new CannotVerify(
    `${field}: names a file outside the run (got ${JSON.stringify(path)}); hexa verify reads only the run's own files and this hexa's shipped skills/, never a path a run's config names (docs/security.md)`,
  );
};

/**
 * The config a replay runs (docs/security.md, "A stranger's run or bundle"): of the recorded config only what
 * shapes the records (src/cli/run-config-trust.ts); no skill index (it indexes the bank, it shapes no record);
 * episodes played in this process; offline inputs from inside the run or hexa's shipped files. Endpoints, keys,
 * trainer commands, caches, logs and folders the record names are not followed: `note` lists those it held back.
 */
export const replayConfig = (
  cfg: RunConfig,
  runDir: string,
  where: string,
  o: { note: (line: string) => void; families: readonly LevelFamily[] },
): RunConfig => {
  const { note, families } = o;
  const { data, withheld } = trustedPart(cfg, families);
  const offline = { ...(data.offline as Record<string, unknown>) };
  for (const key of OFFLINE_FILES) {
    const paths = cfg.offline[key];
    if (paths) offline[key] = paths.map((p, i) => offlineInput(p, runDir, `${where}: offline.${key}[${i}]`));
  }
  const replay = parseRunConfig({ ...data, offline, skillIndex: { enabled: false }, backend: "local" }, `${where} (as replayed)`, families);
  const held = [...(cfg.skillIndex.enabled ? ["skillIndex.enabled"] : []), ...withheld.filter((k) => !/^offline\.(trajectories|banks)$/.test(k))];
  if (held.length)
    note(`note: not taken from ${where} (a replay follows no endpoint, command, path or server a run names; it needs none): ${withheldText(cfg, held)}`);
  return replay;
};
