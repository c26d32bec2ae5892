import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { parseSeed } from "../../../src/family/seed.ts";
import { intFlag, pictureFormat } from "../../../src/cli-kit/flags.ts";
import { writeOutput } from "../../../src/cli-kit/write-file.ts";

/** Prints one level instance and, with --out, draws it as Interphyre's renderer would. */
export const showCommand = defineCommand({
  command: "show <level>",
  describe: "print a level's scene at a seed (objects, goal, default radius); --out draws it as PNG or SVG",
  builder: (y) =>
    y
      .positional("level", { type: "string", demandOption: true })
      .option("seed", { type: "string", demandOption: true, describe: "level seed (non-negative integer)" })
      .option("out", { type: "string", describe: "picture file: FILE.png or FILE.svg" })
      .option("size", { type: "string", default: 600, coerce: intFlag("size", 16, 4096), describe: "picture width and height in pixels" }),
  handler: async (argv) => {
    // The level and the pictures are loaded only here: `hexa levels show --help` starts fast.
    const [{ createInstance }, { getLevel }, { renderScene }, { svgToPng }, { sceneHeader, sceneLines }] = await Promise.all([
      import("../instance.ts"),
      import("../levels/index.ts"),
      import("../pictures/picture.ts"),
      import("../../../src/report/png.ts"),
      import("../pictures/scene-text.ts"),
    ]);
    const level = getLevel(argv.level).id;
    const seed = parseSeed(argv.seed, "--seed");
    const out = argv.out;
    const format = out === undefined ? undefined : pictureFormat("out", out, ["png", "svg"]);
    const inst = createInstance(level, seed);
    const lines = [...sceneHeader(inst), ...sceneLines(inst.scene)];
    process.stdout.write(`${lines.join("\n")}\n`);
    if (out !== undefined) {
      const svg = renderScene(inst.scene, { size: argv.size });
      writeOutput("out", out, format === "svg" ? svg : svgToPng(svg));
      process.stdout.write(`wrote ${out}\n`);
    }
  },
});
