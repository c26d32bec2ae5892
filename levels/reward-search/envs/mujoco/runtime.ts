import { readFile } from "node:fs/promises";
import type { MainModule, MjModel } from "mujoco-js";
import { ConfigError, InvariantError } from "../../../../src/errors.ts";

/**
 * MuJoCo's wasm module (mujoco-js) and the models loaded into it, one of each per thread. The module's loader
 * is async (seconds: an 11 MB script and its wasm), while envs step synchronously; so a MuJoCo task loads
 * both in `prepare()` and its envs find them here, synchronously, from their first reset. Models are
 * immutable and shared by every env of the thread, so they live until the thread ends; each env owns and
 * frees its MjData (docs/spec/reward-search.md §2: tasks run on the machine's CPUs).
 */

let loading: Promise<MainModule> | null = null;
let runtime: MainModule | null = null;
/**
 * What MuJoCo printed since the current model load began: its loader reports XML errors there, not in the
 * exception. Bounded, as stepping may print warnings for as long as the thread runs.
 */
const printed: string[] = [];
const PRINTED_MAX = 50;
const keep = (s: string): void => void (printed.length < PRINTED_MAX && printed.push(s));
const models = new Map<string, MjModel>();
const MODEL_DIR = "/hexa-models";

const load = async (): Promise<MainModule> => {
  const { default: loadMujoco } = await import("mujoco-js");
  const m = await loadMujoco({ print: keep, printErr: keep });
  m.FS.mkdir(MODEL_DIR);
  runtime = m;
  return m;
};

/** The module, loaded once per thread on first call. */
const loadMujocoRuntime = (): Promise<MainModule> => (loading ??= load());

/** The loaded module, for synchronous env code; a clear error when prepare() was not awaited first. */
export const mujocoRuntime = (where: string): MainModule => {
  if (runtime === null) {
    throw new InvariantError(
      `${where}: MuJoCo's wasm module is not loaded in this thread; await task.prepare() (tasks/index.ts loadTask) before resetting a MuJoCo env`,
    );
  }
  return runtime;
};

const messageOf = (e: unknown): string => {
  const said = printed
    .filter((s) => s.trim() !== "")
    .join(" ")
    .trim();
  const name = e instanceof Error ? e.message || e.name : e === undefined ? "" : String(e);
  return (
    [said, name === "mjXError" && !said ? "mjXError: the XML names an unknown element, attribute or value" : name].filter(Boolean).join("; ") || "no message"
  );
};

/** Load a model file once per thread; a file MuJoCo cannot read or compile is a ConfigError naming it and MuJoCo's message. */
export const loadModel = async (path: string): Promise<MjModel> => {
  const cached = models.get(path);
  if (cached) return cached;
  const m = await loadMujocoRuntime();
  let xml: string;
  try {
    xml = await readFile(path, "utf8");
  } catch (e) {
    throw new ConfigError(`${path}: cannot read the MuJoCo model file (${(e as Error).message}); restore it from the shipped assets`);
  }
  const inFs = `${MODEL_DIR}/m${models.size}-${path.split("/").pop()}`;
  m.FS.writeFile(inFs, xml);
  printed.length = 0;
  let model: MjModel | null = null;
  let fault: unknown;
  try {
    model = m.MjModel.loadFromXML(inFs) ?? null;
  } catch (e) {
    fault = e;
  } finally {
    m.FS.unlink(inFs);
  }
  if (model === null) {
    throw new ConfigError(`${path}: MuJoCo could not load the model (${messageOf(fault)}); fix the XML or restore the file from the shipped assets`);
  }
  models.set(path, model);
  return model;
};

/** A model loaded by loadModel in this thread, synchronously. */
export const loadedModel = (path: string, where: string): MjModel => {
  mujocoRuntime(where);
  const model = models.get(path);
  if (!model) throw new InvariantError(`${where}: the MuJoCo model ${path} is not loaded in this thread; await task.prepare() before resetting its env`);
  return model;
};
