import type { FamilyModule } from "../../src/family/registry.ts";
import { readCertified } from "./certified-seeds.ts";
import { certifyCommand } from "./cli/certify.ts";
import { checkScenesCommand } from "./cli/check-scenes.ts";
import { playCommand } from "./cli/play.ts";
import { replayCommand } from "./cli/replay.ts";
import { showCommand } from "./cli/show.ts";
import { toolCommand } from "./cli/tool.ts";
import { interphyreFamily } from "./family.ts";

export const interphyreModule: FamilyModule = {
  id: "interphyre",
  title: "Interphyre: 2-D physics puzzles, one red ball per episode",
  build: () => interphyreFamily((level) => readCertified(level)?.seeds.map((s) => s.seed) ?? []),
  commands: [playCommand, toolCommand],
  levelCommands: [showCommand, certifyCommand, checkScenesCommand, replayCommand],
};
