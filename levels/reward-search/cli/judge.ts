import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";
import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { ConfigError } from "../../../src/errors.ts";
import type { AuthorSetup } from "./judge-author.ts";
import type { ModelFlags, VisionSetup } from "./judge-models.ts";
import { judgeModelFlags } from "./judge-model-flags.ts";

/** The llm.judge and llm.vision roles from --config and the flags, their exchanges logged to the judgment folder's llm-log.jsonl. */
const modelSetups = async (argv: ModelFlags & { judgeStore?: string | undefined; trail: boolean }): Promise<{ author?: AuthorSetup; vision?: VisionSetup }> => {
  const { JudgeModels } = await import("./judge-models.ts");
  const models = await JudgeModels.of(argv);
  const store = argv.judgeStore === undefined ? {} : { store: argv.judgeStore };
  return {
    ...(models.judge ? { author: { ...store, model: (dir: string) => models.model("judge", dir) } } : {}),
    ...(models.vision ? { vision: models.visionSetup(argv.trail) } : {}),
  };
};

/**
 * `hexa judge`: a policy's evaluation episodes judged (docs/guides/judging.md, "hexa judge"): by a versioned code
 * judge (`--judge`), by the code judge a judge model authors for the intent (`--judge-model`), or on a task with F
 * by the fitness judge; picks the p10 / median / p90 episodes by the judge's score and writes judgment.json.
 */
export const judgeCommand = defineCommand({
  command: "judge",
  describe: "judge a policy's evaluation episodes with a code judge or, without one, the fitness judge; p10/median/p90 picks and judgment.json",
  builder: (y) =>
    judgeModelFlags(y, {
      judge: "the model that authors a code judge for the intent when the judge store has none (with no --judge)",
      vision: "the model that judges the picked episodes' rendered frames against the intent",
    })
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
      .option("intent", {
        type: "string",
        describe: "the behaviour to judge in words; needs --judge holding this intent, or a judge model (--judge-model) to author one",
      })
      .option("trail", { type: "boolean", default: false, describe: "send the vision judge the motion trail as a second sequence" })
      .option("config", { type: "string", describe: "a run config YAML whose llm.judge and llm.vision (and cacheDir, prices) are used; the flags win" })
      .option("judge-store", {
        type: "string",
        describe: "the judge store where authored judges are kept (DIR/judges/) and looked up (default: the judgment folder)",
      })
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
      .example("$0 judge --task hopper --policy policy.json --judge hop-judge.json --frames", "a code judge, with frames of the picks")
      .example(
        '$0 judge --task hopper --policy policy.json --intent "hop forward" --judge-model M --judge-base-url URL',
        "a code judge authored by M for the intent",
      )
      .example(
        '$0 judge --task hopper --policy policy.json --intent "hop forward" --judge-model M --vision-model V --vision-base-url URL2',
        "the code judge, the vision judge V over the picks' frames, and M's synthesis",
      ),
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
        ...(await modelSetups(argv)),
      },
      argv.frames ? renderPickedFrames : undefined,
    );
    process.stdout.write(`${outcome.lines.join("\n")}\n${outcome.dir}/judgment.json written\n`);
  },
});
