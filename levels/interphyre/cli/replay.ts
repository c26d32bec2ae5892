import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { engineOf, engineOption } from "./engine-flag.ts";
import { DEFAULT_ENGINE } from "../world/engines.ts";

/**
 * Replays stored certified solutions: the quickest end-to-end check that the world and the levels agree.
 * Each certificate is replayed on the engine it was made with, unless --engine names another.
 */
export const replayCommand = defineCommand({
  command: "replay [level]",
  describe: "replay the stored certified solutions of one level (or all) and report how many succeed",
  builder: (y) =>
    y
      .positional("level", { type: "string", default: "all" })
      .option("limit", { type: "number", default: 20, describe: "seeds per level" })
      .option("engine", { ...engineOption, default: undefined, describe: "physics engine (default: the one each certificate names)" }),
  handler: async (argv) => {
    // The levels and the physics are loaded only here: `hexa levels replay --help` starts fast.
    const [{ createInstance }, { getLevel, listLevels }, { rollout }, { readCertified }] = await Promise.all([
      import("../instance.ts"),
      import("../levels/index.ts"),
      import("../world/rollout.ts"),
      import("../certified-seeds.ts"),
    ]);
    const ids = argv.level === "all" ? listLevels() : [getLevel(argv.level).id];
    let ok = 0;
    let total = 0;
    for (const id of ids) {
      const data = readCertified(id);
      const entries = (data?.seeds ?? []).slice(0, argv.limit);
      const engine = await engineOf(argv.engine ?? data?.engine ?? DEFAULT_ENGINE);
      let solved = 0;
      let steps = 0;
      const t0 = performance.now();
      for (const e of entries) {
        const inst = createInstance(id, e.seed);
        const [x, y, radius] = e.solution;
        const r = rollout({ scene: inst.scene, goal: inst.goal, action: { x, y, radius } }, { engine, horizon: data!.budget.horizon, recordContacts: false });
        if (r.success) solved++;
        steps += r.steps;
      }
      const ms = performance.now() - t0;
      ok += solved;
      total += entries.length;
      const rate = entries.length ? `${solved}/${entries.length} solved` : "no certified seeds yet";
      const speed = entries.length ? `  mean ${(steps / entries.length).toFixed(0)} steps, ${(ms / Math.max(1, entries.length)).toFixed(1)} ms/rollout` : "";
      process.stdout.write(`${id.padEnd(20)} ${rate}${speed}\n`);
    }
    process.stdout.write(`total: ${ok}/${total} certified solutions reproduced\n`);
  },
});
