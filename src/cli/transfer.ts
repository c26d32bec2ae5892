import { existsSync, mkdirSync, statSync } from "node:fs";
import type { EmbeddedModels } from "../app/embedded-models.ts";
import type { FamilyRegistry } from "../app/families.ts";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { auditSynthesis, flagText, type AuditRow, type Candidate } from "../../agents/synthesiser-audit.ts";
import { PROMPT_ENTRY_LIMIT, selectSources, type Ranker } from "../../agents/synthesiser-select.ts";
import type { SynthesisSource } from "../../agents/synthesiser-prompt.ts";
import { ConfigError, ModelOutputError } from "../errors.ts";
import type { RoleModel } from "../llm/ask.ts";
import { sha256Hex } from "../util/canonical-json.ts";
import type { LevelFamily } from "../family/family.ts";
import { RunConfig, SkillIndexConfig } from "../loop/run-config.ts";
import { foldEvents, type Bank } from "../store/bank.ts";
import { readYamlMapping } from "../util/yaml-file.ts";
import type { BankCaps } from "../store/bank-check.ts";
import { readShippedBank, type BankFileCheck } from "../store/shipped-bank.ts";
import { writeTransferredBank, type TransferredBank } from "../store/transfer-bank.ts";
import { carriedLessons } from "../store/lesson-carry.ts";
import { lastCommitted, openRun } from "./run-open.ts";
import { evaluateTransfer, resultTable } from "./transfer-eval.ts";
import { openSkillIndex } from "../app/run-setup.ts";
import { idStamp } from "../util/id-stamp.ts";
import type { TransferArgs } from "./transfer-command.ts";

/** `hexa transfer` (docs/spec/method.md §6): source banks → one synthesis → an audited target bank, evaluated frozen. */

const SHIPPED = fileURLToPath(new URL("../../skills/banks/", import.meta.url));

export interface ResolvedSource extends SynthesisSource {
  from: string;
}

/** The caps a source bank file is held to: the --config's bank settings, else their defaults (docs/spec/method.md §3). */
const capsOf = (base: Record<string, unknown>): BankCaps => {
  const bank = RunConfig.shape.bank.safeParse(base.bank ?? {});
  if (!bank.success) throw new ConfigError(`--config: bank: ${bank.error.issues[0]!.message}; see hexa run --print-config`);
  return { skills: bank.data.maxSkills, mistakes: bank.data.maxMistakes };
};

/** `LEVEL`, `LEVEL=runs/<id>` or `LEVEL=bank.json` → the level's bank. */
export const readSource = (families: FamilyRegistry, spec: string, family: LevelFamily, check: Omit<BankFileCheck, "payload"> = {}): ResolvedSource => {
  const [level = "", path] = spec.split(/=(.*)/s, 2);
  family.checkLevel(level);
  const from = path ?? join(SHIPPED, `${level}.heuristic.json`);
  if (!existsSync(from)) {
    throw new ConfigError(
      `--from ${spec}: ${path ? `no such file or run directory (got ${JSON.stringify(path)})` : `no shipped bank for ${level} in skills/banks/`}; give --from ${level}=runs/<id> or --from ${level}=BANK.json`,
    );
  }
  let bank: Bank;
  if (statSync(from).isDirectory()) {
    const { dir, cfg } = openRun(families, from);
    if (!cfg.levels.includes(level))
      throw new ConfigError(`--from ${spec}: the run did not play ${level} (its levels: ${cfg.levels.join(", ")}); name one of them`);
    const log = dir.bankLog({ repair: false });
    const round = lastCommitted(log, cfg, level);
    if (round < 0) throw new ConfigError(`--from ${spec}: the run has no committed bank for ${level} yet; let it finish a round`);
    bank = foldEvents(log.events.get(level) ?? [], round);
  } else {
    const b = readShippedBank(from, { ...check, payload: family.heuristics?.payload });
    if (b.level !== level) throw new ConfigError(`--from ${spec}: the bank file is for ${b.level}, not ${level}; write --from ${b.level}=${path}`);
    bank = { skills: b.skills, mistakes: b.mistakes, ...(b.lessons ? { lessons: b.lessons } : {}) };
  }
  return { level, from, description: family.describe(level), bank };
};

export interface TransferOptions {
  family: LevelFamily;
  target: string;
  sources: readonly ResolvedSource[];
  synthesiser: "llm" | "heuristic";
  /** The synthesiser role's model (llm only). */
  model?: RoleModel;
  out: string;
  now: Date;
  /** Picks source entries when there are more than `promptLimit` (llm only). */
  rank?: Ranker;
  promptLimit?: number;
}

const countOf = (b: Bank) => b.skills.length + b.mistakes.length;

/** Synthesise, audit, write. A synthesiser that fails twice throws before anything is written. */
export const transferBank = async (o: TransferOptions): Promise<{ bank: TransferredBank; file: string }> => {
  const target = { level: o.target, description: o.family.describe(o.target) };
  let candidates: Candidate[];
  let shown: readonly ResolvedSource[] = o.sources;
  let model = "heuristic (no LLM)";
  let promptHash: string | null = null;
  let selection = "all source entries";
  if (o.synthesiser === "heuristic") {
    const synthesiseHeuristic = o.family.heuristics?.synthesise;
    if (!synthesiseHeuristic) throw new ConfigError(`--synthesiser heuristic: the ${o.family.id} family has no heuristic synthesiser; use --synthesiser llm`);
    const s = synthesiseHeuristic({ target: o.target, sources: o.sources.map((x) => ({ level: x.level, bank: x.bank })) });
    candidates = s.entries.map((entry) => ({ entry, cites: s.citations[entry.id] ?? [] }));
  } else {
    if (!o.model) throw new ConfigError("--synthesiser llm: no model for llm.synthesiser; set it in --config, or use --synthesiser heuristic");
    const limit = o.promptLimit ?? PROMPT_ENTRY_LIMIT;
    if (o.rank) {
      const picked = await selectSources(o.sources, target.description, o.rank, limit);
      if (picked.selected) {
        shown = o.sources.map((s, i) => ({ ...s, bank: picked.sources[i]!.bank }));
        selection = `the ${limit} entries most similar to the target description (Chroma)`;
      }
    }
    const { synthesise } = await import("../../agents/synthesiser.ts");
    const s = await synthesise({ model: o.model, words: o.family.words, target, sources: shown }).catch((e: unknown) => {
      if (!(e instanceof ModelOutputError)) throw e;
      throw new ModelOutputError(`llm.synthesiser: ${e.message}; nothing was written (${o.out}); run again, use another model, or --synthesiser heuristic`);
    });
    candidates = s.candidates;
    model = s.model || "unknown";
    promptHash = sha256Hex(s.prompt);
  }
  const objects = o.family.checks?.objectsOf;
  const { bank, audit } = auditSynthesis(candidates, {
    sources: o.sources,
    targetDescription: target.description,
    ...(objects ? { targetObjects: objects(o.target), familyObjects: [...new Set(o.family.listLevels().flatMap((l) => objects(l)))] } : {}),
    levelIds: o.family.listLevels(),
  });
  const lessons = await carriedLessons(o.sources);
  if (!bank.skills.length && !bank.mistakes.length && !lessons.length) {
    throw new ConfigError(
      `${o.target}: nothing transfers from ${o.sources.map((s) => s.level).join(", ")} (${audit.length} candidate entries, all dropped or none made); try other sources${o.synthesiser === "heuristic" ? " or --synthesiser llm" : ""}`,
    );
  }
  const out: TransferredBank = {
    schemaVersion: 1,
    level: o.target,
    source: `hexa transfer from ${o.sources.map((s) => s.level).join(" + ")} (${model})`,
    ...bank,
    ...(lessons.length ? { lessons } : {}),
    transfer: {
      target: o.target,
      family: o.family.id,
      createdAt: o.now.toISOString(),
      sources: o.sources.map((s, i) => ({ level: s.level, from: s.from, entries: countOf(s.bank), shown: countOf(shown[i]!.bank) })),
      synthesiser: { kind: o.synthesiser, model },
      promptHash,
      inputHash: sha256Hex({ target, sources: o.sources.map((s) => ({ level: s.level, description: s.description, bank: s.bank })) }),
      selection,
      audit,
    },
  };
  writeTransferredBank(o.out, out);
  return { bank: out, file: o.out };
};

const auditReport = (audit: readonly AuditRow[]): string =>
  audit
    .map((r) => {
      const head = `${r.dropped ? "dropped" : "kept   "} ${r.id} (${r.kind}, cites ${r.cites.map((c) => `${c.level}/${c.id}`).join(", ") || "nothing"}): ${r.text}`;
      return [head, ...r.flags.map((f) => `          - ${flagText(f)}`)].join("\n");
    })
    .join("\n");

/** Chroma's semantic search over the source entries (the embedded server as hexa run starts it, or CHROMA_URL). */
const chromaRanker =
  (base: Record<string, unknown>, tag: string): Ranker =>
  async (query, entries) => {
    const ix = SkillIndexConfig.parse(base.skillIndex ?? {});
    const open = await openSkillIndex(ix.dataDir, ix.embedding);
    try {
      const run = `transfer-${tag}`;
      for (const level of new Set(entries.map((e) => e.level))) {
        await open.index.upsert(
          entries.filter((e) => e.level === level).map((e) => e.entry),
          { level, run, status: "transfer-source" },
        );
      }
      const scores = new Map<string, number>();
      for (const level of new Set(entries.map((e) => e.level))) {
        // The index is shared across runs: ask for plenty and keep this transfer's own entries.
        const hits = await open.index.query(query, { level, limit: 1000 });
        hits.filter((h) => h.run === run).forEach((h) => scores.set(`${h.level}/${h.entry.id}`, h.score));
      }
      return scores;
    } finally {
      await open.stop();
    }
  };

const readBase = (path: string | undefined): Record<string, unknown> => {
  if (!path) return {};
  return readYamlMapping(path, { missing: `--config: no such file (got ${JSON.stringify(path)}); name a run config YAML whose llm and actor settings to use` });
};

/** `hexa transfer` (src/cli/transfer-command.ts): the sources' banks synthesised into one for the target, audited, written and evaluated. */
export const transfer = async (families: FamilyRegistry, argv: TransferArgs, embedded: EmbeddedModels): Promise<void> => {
  const family = families.get(argv.family);
  const target = argv.to;
  family.checkLevel(target);
  const base = readBase(argv.config);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const sources = argv.from.map((s) => readSource(families, s, family, { caps: capsOf(base), note: log }));
  const dup = sources.find((s, i) => sources.findIndex((x) => x.level === s.level) !== i);
  if (dup) throw new ConfigError(`--from: ${dup.level} is given twice; give each source level once`);
  if (sources.some((s) => s.level === target))
    throw new ConfigError(`--from ${target}: the target is also a source; transfer is zero-shot, so drop it from --from`);
  const synth = argv.synthesiser;
  const now = new Date();
  const out = resolve(argv.out ?? join("runs", "transfer", `${target}__from_${sources.map((s) => s.level).join("+")}__${synth}__${idStamp(now)}`, "bank.json"));
  let model: RoleModel | undefined;
  if (synth === "llm") {
    const [{ createRoleModel }, { isEmbedded, LlmConfig }] = await Promise.all([import("../llm/role-model.ts"), import("../llm/config.ts")]);
    // The call log sits beside the bank (a failed synthesis leaves only it, to see what the model said).
    mkdirSync(dirname(out), { recursive: true });
    const llm = LlmConfig.parse({
      ...(base.llm as object),
      auditLog: (base.llm as { auditLog?: string } | undefined)?.auditLog ?? join(dirname(out), "llm-log.jsonl"),
    });
    const llama = isEmbedded(llm.synthesiser) ? await embedded.get() : undefined;
    model = createRoleModel("synthesiser", llm, { env: process.env, onNotice: (m) => process.stderr.write(`warning: ${m}\n`), ...(llama ? { llama } : {}) });
  }
  log(
    `transfer → ${target}: ${sources.map((s) => `${s.level} (${countOf(s.bank)} entries)`).join(", ")}; synthesiser ${synth === "llm" ? "llm" : "heuristic (no LLM)"}`,
  );
  const tag = sha256Hex(sources.map((s) => [s.level, s.bank])).slice(0, 12);
  const { bank, file } = await transferBank({
    family,
    target,
    sources,
    synthesiser: synth,
    now,
    out,
    ...(model ? { model } : {}),
    rank: chromaRanker(base, tag),
    promptLimit: argv["prompt-entries"],
  });
  process.stdout.write(
    `transferred bank for ${target}: ${bank.skills.length} skills, ${bank.mistakes.length} mistakes${bank.lessons ? `, ${bank.lessons.length} lessons` : ""} (${bank.transfer.synthesiser.model})\n${auditReport(bank.transfer.audit)}\nbank file: ${file}\n`,
  );
  const seeds = argv["eval-seeds"];
  if (seeds === 0) return;
  const rows = await evaluateTransfer(
    {
      dir: dirname(file),
      bankFile: file,
      target,
      family: family.id,
      seeds,
      seedOffset: argv["seed-offset"],
      base,
      agent: argv.agent ?? (synth === "llm" ? "hexa" : "heuristic"),
      baseline: argv.baseline ?? (synth === "llm" ? "react" : "heuristic"),
    },
    log,
  );
  process.stdout.write(`\n${resultTable(target, rows)}\n${rows.map((r) => `${r.arm} run: ${r.run}`).join("\n")}\n`);
};
