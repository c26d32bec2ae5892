/**
 * What `hexa judge` reads from files a user points at (docs/security.md: a file from elsewhere is bounded and
 * parsed on read): the policy file and the judge file, each refused with a message naming the field.
 */
import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { checkJudgeHash, Judge } from "../judging/judge.ts";
import { type PolicyFile, readPolicyFile } from "../pictures/rollout-gif.ts";
import { type LoadedPolicy, loadPolicy } from "../trainer/policy.ts";
import { readFlagFile } from "../../../src/cli-kit/flag-file.ts";

const MAX_POLICY_BYTES = 64 << 20;
const MAX_JUDGE_BYTES = 1 << 20;

const PolicyNumbers = z.object({
  obsDim: z.number().int().min(1).max(100_000),
  hidden: z.number().int().min(1).max(4096),
  params: z.string().max(MAX_POLICY_BYTES),
  obsNorm: z.union([z.null(), z.object({ mean: z.array(z.number()).max(100_000), var: z.array(z.number().min(0)).max(100_000) })]),
});

/** A training job's policy.json, its network loaded; a malformed file is refused naming the field. */
export const readPolicyInput = (path: string): PolicyFile & { loaded: LoadedPolicy } => {
  let file: PolicyFile;
  try {
    file = readPolicyFile(path);
  } catch (e) {
    throw new ConfigError(`--policy: ${(e as Error).message}`);
  }
  const numbers = PolicyNumbers.safeParse(file.policy);
  if (!numbers.success) {
    const i = numbers.error.issues[0]!;
    throw new ConfigError(`--policy: ${path}: policy.${i.path.join(".")}: ${i.message}`);
  }
  try {
    return { ...file, loaded: loadPolicy(file.policy) };
  } catch (e) {
    throw new ConfigError(`--policy: ${path}: policy: ${(e as Error).message}`);
  }
};

/** A versioned judge (judging/judge.ts) whose hash matches its content; anything else is refused naming the field. */
export const readJudgeInput = (path: string): Judge => {
  const text = readFlagFile("judge", path, MAX_JUDGE_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`--judge: ${path}: not JSON (${(e as Error).message})`);
  }
  const r = Judge.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ConfigError(`--judge: ${path}: ${i.path.join(".") || "(root)"}: ${i.message}`);
  }
  try {
    return checkJudgeHash(r.data, `--judge: ${path}`);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
};
