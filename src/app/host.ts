import type { FamilyHost } from "../family/host.ts";
import type { EmbeddedModels } from "./embedded-models.ts";
import type { FamilyRegistry } from "./families.ts";

/** The host services a family's commands reach through src/family/host.ts, over these families and this process's embedded models; each loads its code when used. */
export const appHost = (families: () => FamilyRegistry, embedded: EmbeddedModels): FamilyHost => ({
  runGrid: async (request, out) => (await import("./compare-play.ts")).compare(families(), { ...request }, out),
  codeVersion: async () => (await import("./run-setup.ts")).codeVersion(),
  writeReport: async (dir) => (await import("./inspect-report.ts")).writeRunReport(families(), dir),
  embeddedModels: () => embedded.get(),
  queueBackend: async (spec, where, log) => (await import("./backend.ts")).queueAccessOf(spec, where, log),
});
