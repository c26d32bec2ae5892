import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { parseSeed } from "../../../src/family/seed.ts";
import { ConfigError } from "../../../src/errors.ts";
import { HEXA_HARNESS_HORIZON_STEPS } from "../world/constants.ts";
import { intFlag, parseAction, pictureFormat } from "../../../src/cli-kit/flags.ts";
import { writeOutput } from "../../../src/cli-kit/write-file.ts";
import { engineOf, engineOption } from "./engine-flag.ts";

/** Contact pairs printed before "… and N more": enough to follow the causal chain of one rollout. */
const CONTACT_PAIRS_SHOWN = 15;
/** How long the GIF's last frame stays up before it loops, so the outcome can be seen. */
const HOLD_LAST_MS = 1500;

/** Places the red ball, runs one rollout and reports it; --gif films it. */
export const playCommand = defineCommand({
  command: "play <level>",
  describe: "place the red ball at x,y with radius r, run the rollout and report the outcome; --gif films it",
  builder: (y) =>
    y
      .positional("level", { type: "string", demandOption: true })
      .option("seed", { type: "string", demandOption: true, describe: "level seed (non-negative integer)" })
      // nargs 1: the value is taken even when it starts with a minus sign, as in --action -1,2,0.4.
      .option("action", { type: "string", nargs: 1, demandOption: true, describe: "red ball x,y,r, e.g. -1,2,0.4" })
      .option("engine", engineOption)
      .option("steps", { type: "string", default: HEXA_HARNESS_HORIZON_STEPS, coerce: intFlag("steps", 1, 100_000), describe: "horizon in steps of 1/60 s" })
      .option("gif", { type: "string", describe: "animated GIF of the rollout: FILE.gif" })
      .option("trail", { type: "boolean", default: false, describe: "draw fading earlier positions in the GIF" })
      .option("fps", { type: "string", default: 30, coerce: intFlag("fps", 1, 60), describe: "GIF frames per simulated second (one frame every 60/fps steps)" })
      .option("size", { type: "string", default: 300, coerce: intFlag("size", 16, 2048), describe: "GIF width and height in pixels" }),
  handler: async (argv) => {
    // The level, the physics and the pictures are loaded only here: `hexa play --help` starts fast.
    const [{ getLevel }, { createInstance }, { checkPlacement }, { filmRollout, filmToGif }, { contactLines }] = await Promise.all([
      import("../levels/index.ts"),
      import("../instance.ts"),
      import("../world/placement.ts"),
      import("../pictures/rollout-film.ts"),
      import("../pictures/scene-text.ts"),
    ]);
    const level = getLevel(argv.level).id;
    const seed = parseSeed(argv.seed, "--seed");
    const engine = await engineOf(argv.engine);
    const action = parseAction(argv.action);
    const gifFile = argv.gif;
    if (gifFile !== undefined) pictureFormat("gif", gifFile, ["gif"]);
    const inst = createInstance(level, seed);
    const placement = checkPlacement(inst.scene, action, inst.bounds);
    if (!placement.ok) throw new ConfigError(`--action ${argv.action}: invalid placement, ${placement.reason}`);

    const stepsPerFrame = Math.max(1, Math.round(60 / argv.fps));
    const film = filmRollout({ scene: inst.scene, goal: inst.goal, action: placement.action }, { horizon: argv.steps, stepsPerFrame, engine });
    const { result } = film;
    const { x, y, radius } = placement.action;
    const lines = [
      `${level} seed ${seed}: red ball at (${x}, ${y}) radius ${radius}`,
      result.success ? `SUCCESS at step ${result.successStep}` : `FAILURE after ${result.steps} steps`,
      `steps: ${result.steps} (${(result.steps / 60).toFixed(2)} s)`,
      "contacts (first begin):",
      ...contactLines(result.sim.contacts.log, CONTACT_PAIRS_SHOWN),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);

    if (gifFile !== undefined) {
      const tty = process.stderr.isTTY === true;
      const gif = filmToGif(film, {
        size: argv.size,
        trail: Boolean(argv.trail),
        holdLastMs: HOLD_LAST_MS,
        onFrame: (done, total) => {
          if (tty) process.stderr.write(`\r\x1b[Kencoding GIF: frame ${done}/${total}`);
        },
      });
      if (tty) process.stderr.write("\r\x1b[K");
      writeOutput("gif", gifFile, gif.bytes);
      process.stdout.write(`wrote ${gifFile} (${gif.frames} frames, ${(gif.bytes.length / 1024).toFixed(0)} KiB)\n`);
    }
  },
});
