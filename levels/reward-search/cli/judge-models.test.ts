import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JudgeModels } from "./judge-models.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-judge-models-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (name: string, yaml: string): string => {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
};

describe("hexa judge's model roles", () => {
  it("configures a role from --config's llm section or a flag, flags winning, and logs to the judgment folder", async () => {
    const path = config("run.yaml", "llm:\n  vision:\n    model: vlm-file\n    maxImages: 8\n    video: true\n  auditLog: /elsewhere/log.jsonl\n");
    const models = await JudgeModels.of({ config: path, visionModel: "vlm-flag" });
    expect([models.judge, models.vision]).toEqual([false, true]);
    const llm = await models.config(join(dir, "judgment"));
    expect(llm.vision).toMatchObject({ model: "vlm-flag", maxImages: 8, video: true });
    expect(llm.auditLog).toBe(join(dir, "judgment", "llm-log.jsonl"));
    expect((await JudgeModels.of({ judgeBaseUrl: "http://127.0.0.1:9/v1" })).judge).toBe(true);
    const none = await JudgeModels.of({});
    expect([none.judge, none.vision]).toEqual([false, false]);
  });

  it("refuses a bad field naming it, and a config whose llm.vision is not a mapping", async () => {
    const models = await JudgeModels.of({ config: config("bad.yaml", "llm:\n  vision:\n    maxImages: 0\n") });
    await expect(models.config(dir)).rejects.toThrow(/llm\.vision\.maxImages: .*--vision-\*/);
    await expect(JudgeModels.of({ config: config("list.yaml", "llm:\n  vision: [1]\n") })).rejects.toThrow(/--config: llm\.vision: not a mapping/);
  });
});
