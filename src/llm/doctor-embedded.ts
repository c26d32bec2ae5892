import { stringify } from "yaml";
import type { EmbeddedReport } from "./llama-cpp/doctor.ts";

const MIB = 1024 * 1024;

const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;

/** `hexa doctor --model`'s report of an embedded model: what the file is, what it costs here, and the config that fits it. */
export const embeddedReportText = (r: EmbeddedReport): string => {
  const rows: Array<[string, string]> = [
    ["file", `${r.path} (${mib(r.fileBytes)})`],
    ["architecture", r.architecture],
    ["quantisation", r.quantisation],
    ["parameters", r.parameters.toLocaleString("en-US")],
    ["context", `${r.contextSize} tokens loaded, ${r.trainedContext ?? "unknown"} trained`],
    ["chat template", r.templateSource],
    ["GPU", r.gpu],
    ["RAM added by the load", mib(r.ramBytes)],
    ["prompt", `${r.promptTokensPerS.toFixed(1)} tokens/s`],
    ["generation", `${r.generationTokensPerS.toFixed(1)} tokens/s`],
    ["tool call held to a grammar", r.toolCall],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const table = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n");
  const recommended = stringify({ llm: { actor: { provider: "llama-cpp", model: r.path, ...r.recommended } } });
  return `${table}\n\nrecommended config:\n${recommended}`;
};
