import type { FamilyHost } from "../family/host.ts";

/** The host services a family's commands reach through src/family/host.ts; each loads its command's code when used. */
export const appHost: FamilyHost = {
  runGrid: async (request, out) => (await import("./compare-play.ts")).compare({ ...request }, out),
  codeVersion: async () => (await import("./run-setup.ts")).codeVersion(),
  writeReport: async (dir) => (await import("./inspect-report.ts")).writeRunReport(dir),
};
