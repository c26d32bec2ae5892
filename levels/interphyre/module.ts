import type { FamilyModule } from "../../src/family/registry.ts";
import { lazyCommand } from "../../src/cli-kit/lazy-command.ts";

export const interphyreModule: FamilyModule = {
  id: "interphyre",
  title: "Interphyre: 2-D physics puzzles, one red ball per episode",
  build: async () => {
    const [{ interphyreFamily }, { readCertifiedSeeds }] = await Promise.all([import("./family.ts"), import("./certified-seed-list.ts")]);
    return interphyreFamily((level) => readCertifiedSeeds(level));
  },
  listing: async () => {
    const [{ getLevel, listLevels }, { readCertifiedSeeds }] = await Promise.all([import("./levels/index.ts"), import("./certified-seed-list.ts")]);
    return {
      header: ["level", "goal (3 s contact)", "seeds", "description"],
      rows: listLevels().map((id) => [id, getLevel(id).goal.join(" ↔ "), String(readCertifiedSeeds(id).length), getLevel(id).description]),
    };
  },
  commands: [
    lazyCommand(
      { command: "play <level>", describe: "place the red ball at x,y with radius r, run the rollout and report the outcome; --gif films it" },
      async () => (await import("./cli/play.ts")).playCommand,
    ),
    lazyCommand(
      { command: "tool <level> <name> [args]", describe: "call one actor tool on a level and print its observation (--json: the structured result)" },
      async () => (await import("./cli/tool.ts")).toolCommand,
    ),
  ],
  levelCommands: [
    lazyCommand(
      { command: "show <level>", describe: "print a level's scene at a seed (objects, goal, default radius); --out draws it as PNG or SVG" },
      async () => (await import("./cli/show.ts")).showCommand,
    ),
    lazyCommand(
      { command: "certify <level>", describe: "find certified seeds by oracle search (resumes where it stopped); <level> may be 'all'" },
      async () => (await import("./cli/certify.ts")).certifyCommand,
    ),
    lazyCommand(
      { command: "check-scenes <files..>", describe: "simulate the known solutions of Interphyre scene files and report how many reach the goal" },
      async () => (await import("./cli/check-scenes.ts")).checkScenesCommand,
    ),
    lazyCommand(
      { command: "replay [level]", describe: "replay the stored certified solutions of one level (or all) and report how many succeed" },
      async () => (await import("./cli/replay.ts")).replayCommand,
    ),
  ],
};
