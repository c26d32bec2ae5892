/**
 * The model roles `hexa judge` uses (docs/guides/judging.md, "hexa judge"): `llm.judge` (authors the code judge
 * and settles disagreements) and `llm.vision` (judges the rendered frames), from a run config's `llm` and the
 * flags, which win. Every exchange of either role is logged to the judgment folder's llm-log.jsonl.
 */
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import type { LlmConfig as LlmConfigT } from "../../../src/llm/config.ts";
import type { VisionLimits } from "../judging/vision-judge.ts";

export interface ModelFlags {
  config?: string | undefined;
  judgeModel?: string | undefined;
  judgeBaseUrl?: string | undefined;
  visionModel?: string | undefined;
  visionBaseUrl?: string | undefined;
  visionMaxImages?: number | undefined;
}

/** The vision judge's part of a request: its model and what its server takes (its log written in the judgment folder). */
export interface VisionSetup {
  model: (judgmentDir: string) => Promise<{ model: RoleModel; limits: VisionLimits }>;
  /** Send the motion trail as a second sequence. */
  trail: boolean;
  /** The user's corrections the verdicts weigh (a p2p search's); none: the prompt is as without. */
  corrections?: string | undefined;
}

type Section = Record<string, unknown>;

const sectionOf = (llm: Section, role: "judge" | "vision"): Section | undefined => {
  const s = llm[role];
  if (s === undefined) return undefined;
  if (typeof s !== "object" || s === null || Array.isArray(s)) throw new ConfigError(`--config: llm.${role}: not a mapping (got ${JSON.stringify(s)})`);
  return s as Section;
};

/** The config file's `llm` mapping ({} without --config). */
const configLlm = async (path: string | undefined): Promise<Section> => {
  if (path === undefined) return {};
  const { readYamlMapping } = await import("../../../src/util/yaml-file.ts");
  const base = readYamlMapping(path, {
    missing: `--config: no such file (got ${JSON.stringify(path)}); name a run config YAML whose llm.judge and llm.vision to use`,
  });
  const llm = base.llm ?? {};
  if (typeof llm !== "object" || llm === null || Array.isArray(llm)) throw new ConfigError(`--config: ${path}: llm: not a mapping`);
  return llm as Section;
};

const defined = (o: Section): Section => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Which roles the config and the flags configure, and the LlmConfig (flags over the file) logging to `dir`. */
export class JudgeModels {
  private constructor(
    private readonly llm: Section,
    readonly judge: boolean,
    readonly vision: boolean,
  ) {}

  static async of(f: ModelFlags): Promise<JudgeModels> {
    const file = await configLlm(f.config);
    const judgeFlags = defined({ model: f.judgeModel, baseURL: f.judgeBaseUrl });
    const visionFlags = defined({ model: f.visionModel, baseURL: f.visionBaseUrl, maxImages: f.visionMaxImages });
    const judge = sectionOf(file, "judge");
    const vision = sectionOf(file, "vision");
    const llm = { ...file, judge: { ...judge, ...judgeFlags }, vision: { ...vision, ...visionFlags } };
    return new JudgeModels(llm, judge !== undefined || Object.keys(judgeFlags).length > 0, vision !== undefined || Object.keys(visionFlags).length > 0);
  }

  /** The llm config with its audit log in the judgment folder; a bad field is refused naming it. */
  async config(dir: string): Promise<LlmConfigT> {
    const { LlmConfig } = await import("../../../src/llm/config.ts");
    const r = LlmConfig.safeParse({ ...this.llm, auditLog: join(dir, "llm-log.jsonl") });
    if (!r.success) {
      const i = r.error.issues[0]!;
      throw new ConfigError(`llm.${i.path.join(".")}: ${i.message} (from --config and the --judge-*/--vision-* flags)`);
    }
    return r.data;
  }

  async model(role: "judge" | "vision", dir: string): Promise<RoleModel> {
    const { createRoleModel } = await import("../../../src/llm/role-model.ts");
    return createRoleModel(role, await this.config(dir), { env: process.env, onNotice: (m) => process.stderr.write(`warning: ${m}\n`) });
  }

  visionSetup(trail: boolean): VisionSetup {
    return {
      trail,
      model: async (dir) => {
        const { vision } = await this.config(dir);
        return { model: await this.model("vision", dir), limits: { maxImages: vision.maxImages, video: vision.video } };
      },
    };
  }
}
