import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";
import { defineCommand } from "../../../src/cli-kit/define-command.ts";
import { ConfigError } from "../../../src/errors.ts";
import { assertWritable, writeOutput } from "../../../src/cli-kit/write-file.ts";
import type { SerializedPolicy } from "../trainer/policy.ts";

/**
 * `hexa film TASK`: a rollout on a MuJoCo task as an animated GIF (docs/spec/reward-search.md §2, pictures): the
 * greedy policy of a training job's policy.json, one trained here on the task's hand-written reward
 * (`--train STEPS`), or with neither every action 0.
 */
export const filmCommand = defineCommand({
  command: "film <task>",
  describe: "a rollout on a MuJoCo reward-search task as an animated GIF (side view; ant from above)",
  builder: (y) =>
    y
      .positional("task", {
        type: "string",
        demandOption: true,
        describe: "a MuJoCo task: hopper, walker2d, half_cheetah, ant, humanoid, inverted_pendulum or a held-out one",
      })
      .option("policy", { type: "string", describe: "a training job's policy.json (TRAINER_JOBS/…/policy.json); its task must be TASK" })
      .option("train", {
        type: "number",
        coerce: positiveIntFlag("train"),
        describe: "first train PPO here for this many env steps on the task's hand-written reward (its sparse one where it has none)",
      })
      .option("seed", { type: "number", describe: "reset seed of the filmed episode (default: the instance's first evaluation seed)" })
      .option("out", { type: "string", describe: "GIF file to write (default TASK-rollout.gif)" })
      .example("$0 film hopper --policy runs/.trainer-jobs/JOB/policy.json", "a trained policy")
      .example("$0 film hopper --train 100000 --out hopper.gif", "train briefly, then film"),
  handler: async (argv) => {
    // Loaded here, not at start-up: PPO brings TensorFlow.js, which no other command needs to load.
    const [{ loadTask }, { readPolicyFile, rolloutGif }, { compileReward }, { trainPpo }] = await Promise.all([
      import("../tasks/index.ts"),
      import("../pictures/rollout-gif.ts"),
      import("../sandbox/reward-sandbox.ts"),
      import("../trainer/ppo.ts"),
    ]);
    const task = await loadTask(argv.task);
    if (!task.prepare) throw new ConfigError(`film: ${task.id} is not a MuJoCo task; rollout pictures are drawn for the MuJoCo tasks only`);
    if (argv.policy && argv.train) throw new ConfigError("film: give --policy or --train, not both");
    const out = argv.out ? argv.out : `${task.id}-rollout.gif`;
    assertWritable("out", out);
    let instance = task.generate(0);
    let policy: SerializedPolicy | null = null;
    if (argv.policy) {
      const file = readPolicyFile(argv.policy);
      if (file.task !== task.id) throw new ConfigError(`--policy: ${argv.policy} was trained on ${file.task}, not ${task.id}; give a ${task.id} policy`);
      ({ instance, policy } = file);
    } else if (argv.train) {
      const code = task.humanReward ?? task.sparseReward;
      const reward = await compileReward(code, { observation: task.observation, actionNames: task.actionNames, actionKind: "continuous", info: task.info });
      try {
        const r = await trainPpo({
          task,
          instance,
          reward,
          steps: argv.train,
          seed: instance.trainSeed,
          evalSeeds: instance.evalSeeds,
          onProgress: (p) => process.stderr.write(`\rtraining ${p.steps}/${argv.train} env steps${p.fitness === null ? "" : `, F ${p.fitness.toFixed(2)}`}   `),
        });
        process.stderr.write(`\ntrained: F ${r.final.fitness.toFixed(2)} on the evaluation seeds\n`);
        policy = r.policy;
      } finally {
        reward.dispose();
      }
    }
    const gif = await rolloutGif({ task: task.id, instance, policy, ...(argv.seed === undefined ? {} : { seed: argv.seed }) });
    writeOutput("out", out, gif.bytes);
    process.stdout.write(
      `${out}: ${gif.frames} frames, ${gif.steps} env steps, F ${gif.fitness.toFixed(2)} (${policy ? (argv.policy ? "the given policy" : "the policy trained here") : "every action 0"})\n`,
    );
  },
});
