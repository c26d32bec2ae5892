import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";
import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { ConfigError } from "../../../src/errors.ts";

/**
 * `hexa judge`: a policy's evaluation episodes judged without a model (docs/guides/judging.md, "hexa judge"): by a
 * versioned code judge (`--judge`), or on a task with F by the fitness judge; picks the p10 / median / p90 episodes
 * by the judge's score and writes judgment.json.
 */
export const judgeCommand = defineCommand({
  command: "judge",
  describe: "judge a policy's evaluation episodes with a code judge or, without one, the fitness judge; p10/median/p90 picks and judgment.json",
  builder: (y) =>
    y
      .option("task", { type: "string", demandOption: true, describe: "the MuJoCo task the policy was trained on (hopper, walker2d, …)" })
      .option("policy", { type: "string", demandOption: true, describe: "a training job's policy.json" })
      .option("episodes", {
        type: "number",
        default: 10,
        coerce: positiveIntFlag("episodes"),
        describe: "episodes judged: the instance's evaluation seeds, then the next seeds that are no training seed",
      })
      .option("seed", { type: "array", describe: "judge these reset seeds instead of the evaluation seeds (repeat --seed)" })
      .option("judge", {
        type: "string",
        describe: "a versioned code judge (JSON: schemaVersion, id, version, intent, tree, code, hash), run sandboxed on every episode",
      })
      .option("intent", { type: "string", describe: "the behaviour to judge in words; needs a model (llm.judge, llm.vision) unless --judge holds this intent" })
      .option("out", { type: "string", describe: "the judgment folder (default: judgment/ beside the policy)" })
      .option("force", { type: "boolean", default: false, describe: "replace a judgment.json already in the folder" })
      .option("frames", {
        type: "boolean",
        default: false,
        describe: "render the picked episodes' frames and trail (480 × 480, 10 fps) into DIR/frames/<seed>/ (needs chromium)",
      })
      .option("max-steps", {
        type: "number",
        coerce: positiveIntFlag("max-steps"),
        describe: "record at most this many steps per episode (default: the task's time limit)",
      })
      .example("$0 judge --task hopper --policy runs/.trainer-jobs/JOB/policy.json", "the fitness judge on 10 evaluation episodes")
      .example("$0 judge --task hopper --policy policy.json --judge hop-judge.json --frames", "a code judge, with frames of the picks"),
  handler: async (argv) => {
    const [{ judgePolicy }, { renderPickedFrames }] = await Promise.all([import("./judge-run.ts"), import("./judge-frames.ts")]);
    const seeds = (argv.seed ?? []).map((s) => {
      const n = Number(s);
      if (!Number.isSafeInteger(n) || n < 0) throw new ConfigError(`--seed: ${JSON.stringify(String(s))} is not an integer ≥ 0`);
      return n;
    });
    const outcome = await judgePolicy(
      {
        task: argv.task,
        policy: argv.policy,
        episodes: argv.episodes,
        seeds,
        ...(argv.judge === undefined ? {} : { judge: argv.judge }),
        ...(argv.intent === undefined ? {} : { intent: argv.intent }),
        ...(argv.out === undefined ? {} : { out: argv.out }),
        force: argv.force,
        ...(argv.maxSteps === undefined ? {} : { maxSteps: argv.maxSteps }),
      },
      argv.frames ? renderPickedFrames : undefined,
    );
    process.stdout.write(`${outcome.lines.join("\n")}\n${outcome.dir}/judgment.json written\n`);
  },
});
