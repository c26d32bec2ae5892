import { existsSync, readdirSync, realpathSync } from "node:fs";
import type { FamilyRegistry } from "../app/families.ts";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { ConfigError } from "../errors.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { composeRunConfig, runConfigYaml } from "../loop/run-config.ts";
import { RunDir } from "../store/run-dir.ts";
import type { CodeVersion } from "../store/run-records.ts";
import { writeJsonAtomic } from "../store/jsonl.ts";
import { BUNDLE_RECORD_FILE, type BundleRecord } from "../store/run-attestations.ts";
import { withoutSecrets } from "../util/secret-fields.ts";
import { parseYamlText, readConfigText } from "../util/yaml-file.ts";
import { type BundleCode, CODE_VERSION_FILE, codeVersionLabel, codeVersionOf, HEXA_ROOT } from "../bundle/code-version.ts";
import { type Packed, packRun } from "../bundle/pack.ts";
import { BUNDLE_EXTRAS, COMPARE_RUNS } from "../bundle/run-files.ts";
import type { RecordedFile } from "../family/replay.ts";
import { secretsInConfig, secretsInEnv, type SecretValue } from "../bundle/secrets.ts";
import { isSearchDirectory, searchReplayFiles } from "./bundle-search.ts";
import { changedKeys, configDigest, readRunConfig, runDirConfig } from "../app/run-setup.ts";
import type { BundleArgs } from "./bundle.ts";
import { hexaCommand } from "../util/hexa-command.ts";

const GIVEN_CONFIG = "bundle/config-given.yaml";

/** The run's own config records hold no secret (hexa writes none there); one that does was edited, and is refused. */
const refuseSecretsInRun = (families: FamilyRegistry, dir: RunDir): void => {
  const schema = composeRunConfig(families.all());
  const found = [
    ...secretsInConfig(parseYamlText(dir.configText(), `${dir.path}/config.yaml`) ?? {}, schema).map((s) => ({ ...s, source: `config.yaml's ${s.source}` })),
    ...(dir.meta.config === undefined ? [] : secretsInConfig(dir.meta.config, schema).map((s) => ({ ...s, source: `run.json's config.${s.source}` }))),
  ];
  if (found.length)
    throw new ConfigError(
      `${dir.path}: ${found.map((s) => s.source).join(", ")} holds a secret, which hexa never writes into a run; remove it (keys come from the environment) and bundle again`,
    );
};

/** The config file the run was started from, checked to resolve to the run's config, secret fields removed. */
const givenConfig = (families: FamilyRegistry, path: string, dir: RunDir, note: (line: string) => void): { bytes: Buffer; secrets: SecretValue[] } => {
  const text = readConfigText(path);
  const all = families.all();
  const resolved = configDigest(runConfigYaml(readRunConfig(families, path), all));
  if (dir.meta.configHash === undefined) note(`note: ${dir.path}/run.json records no config hash; --config ${path} is packed unchecked`);
  else if (resolved.hash !== dir.meta.configHash) {
    const keys = dir.meta.config === undefined ? ["(run.json holds only the hash)"] : changedKeys(dir.meta.config, resolved.config);
    throw new ConfigError(`--config ${path}: not the config this run was started from (differs in: ${keys.join(", ")}); give that file, or leave --config out`);
  }
  const raw: unknown = parseYamlText(text, path) ?? {};
  const secrets = secretsInConfig(raw, composeRunConfig(all)).map((s) => ({ ...s, source: `${path}'s ${s.source}` }));
  if (!secrets.length) return { bytes: Buffer.from(text), secrets };
  note(`note: --config ${path}: ${secrets.map((s) => s.source).join(", ")} left out of the bundle (secret)`);
  const stripped = withoutSecrets(raw, composeRunConfig(all));
  return { bytes: Buffer.from(`# ${path} as given, its secret fields removed by hexa bundle\n${stringifyYaml(stripped)}`), secrets };
};

/** Which code the bundle says ran: this checkout's files, compared with the commits the run's records name. */
const bundleCode = (run: readonly CodeVersion[], note: (line: string) => void): BundleCode => {
  const packedBy = codeVersionOf(HEXA_ROOT);
  const matchesRun = run.length > 0 && run.every((c) => c.commit !== null && c.commit === packedBy.commit);
  if (!matchesRun)
    note(
      `warning: the run was written by ${[...new Set(run.map((c) => (c.commit ? `commit ${c.commit.slice(0, 12)}` : `hexa ${c.version}`)))].join(", ") || "an unrecorded hexa"}; this checkout is ${codeVersionLabel(packedBy)}. The bundle records this checkout's source files as the code version: bundle from a checkout of the run's commit to record the code that ran`,
    );
  else if (packedBy.uncommittedSha256)
    note(`warning: this checkout has uncommitted changes; the bundle records their hash and each file's sha256, which a reader's checkout cannot restore`);
  return { schemaVersion: 1, packedBy, run: [...run], matchesRun };
};

/** The hexas that wrote a run: its creator and every writer. */
const runCode = (dir: RunDir): CodeVersion[] =>
  [dir.meta.code, ...dir.writers().map((w) => w.code)].flatMap((c) => (c ? [{ version: c.version, commit: c.commit }] : []));

/** What a bundle of this run will lack for hexa verify: said now, while the run's maker can still add it. */
const noteUnreplayable = (dir: RunDir, llm: { auditLog?: unknown; auditHashOnly?: unknown }, note: (line: string) => void): void => {
  if (llm.auditHashOnly === true)
    note("note: the run logged its model exchanges as hashes only (llm.auditHashOnly); hexa verify cannot answer its model requests from them");
  if (typeof llm.auditLog === "string" && resolve(llm.auditLog) !== dir.file("llmLog"))
    note(
      `note: the run logged its model exchanges to ${llm.auditLog} (llm.auditLog), outside the run directory, which is not packed; copy the run's lines into ${dir.file("llmLog")} to bundle them`,
    );
};

/**
 * Files outside the run that its family's replay reads (reward search: the trainer cache's entries of a run made
 * before runs kept them), by their path in the bundle: under the run's bundle/ (`at`: the run's folder in it).
 */
const familyFiles = async (families: FamilyRegistry, dir: RunDir, note: (line: string) => void, at = ""): Promise<RecordedFile[]> => {
  const config = runDirConfig(families, dir, `${dir.path}/config.yaml`, note);
  const module = families.modules().find((m) => m.id === config.family);
  const files = (await module?.replay?.recordedFiles({ runDir: dir.path, config, startedAt: new Date(dir.meta.createdAt) })) ?? [];
  return files.map((f) => ({ path: `${at}${BUNDLE_EXTRAS}/${f.path}`, source: f.source }));
};

/** bundle.json beside the packed directory, and what was written. */
const wrote = (dir: string, out: string, given: string, packed: Packed, createdAt: string, note: (line: string) => void): void => {
  const record: BundleRecord = { schemaVersion: 1, file: out, manifestHash: packed.manifestHash, createdAt };
  writeJsonAtomic(join(dir, BUNDLE_RECORD_FILE), record);
  packed.skipped.forEach((s) => note(`note: ${s}`));
  process.stdout.write(
    `wrote ${out} (${packed.files} files, ${(packed.bytes / 1024).toFixed(0)} KiB before compression)\nmanifest sha256 ${packed.manifestHash}\ncheck it: ${hexaCommand(`verify ${given}`)}\n`,
  );
};

/** A `hexa search` directory packed as a run is (docs/guides/publishing.md), with the trainer results its replay reads. */
const bundleSearch = async (
  families: FamilyRegistry,
  dir: string,
  out: string,
  given: string,
  o: { force: boolean; withPolicies: boolean },
  note: (line: string) => void,
) => {
  const { record, files } = await searchReplayFiles(families, dir, note);
  const code = bundleCode([record.code], note);
  const createdAt = new Date().toISOString();
  const packed = await packRun({
    runDir: dir,
    runId: basename(realpathSync(dir)),
    out,
    force: o.force,
    withPolicies: o.withPolicies,
    createdAt,
    extras: [{ path: CODE_VERSION_FILE, bytes: Buffer.from(`${JSON.stringify(code, null, 2)}\n`) }],
    recordedFiles: files.map((f) => ({ path: `${BUNDLE_EXTRAS}/${f.path}`, source: f.source })),
    secrets: secretsInEnv(process.env),
  }).catch((e: unknown) => {
    throw asUserError(e, "check the search directory and the folder of -o (space, permissions), then bundle again");
  });
  wrote(dir, out, given, packed, createdAt, note);
};

/** Whether a directory is a `hexa compare` directory (compare.json; its runs under runs/). */
const isCompareDirectory = (dir: string): boolean => existsSync(join(dir, "compare.json")) && !existsSync(join(dir, "run.json"));

/**
 * A `hexa compare` directory (docs/guides/publishing.md): the grid's own records (compare.json, results, cells,
 * logs) and every run under runs/, each checked and packed as a run is; `hexa verify` replays each run, then the
 * results table.
 */
const bundleCompare = async (
  families: FamilyRegistry,
  dir: string,
  out: string,
  given: string,
  o: { force: boolean; withPolicies: boolean },
  note: (line: string) => void,
) => {
  const runsDir = join(dir, COMPARE_RUNS);
  const names = existsSync(runsDir)
    ? readdirSync(runsDir)
        .filter((n) => existsSync(join(runsDir, n, "run.json")))
        .sort()
    : [];
  if (!names.length) throw new ConfigError(`${runsDir}: no run directories; a hexa compare directory keeps its runs there (run the grid first)`);
  const runs = names.map((n) => RunDir.open(join(runsDir, n)));
  const releases: (() => void)[] = [];
  try {
    const recordedFiles: RecordedFile[] = [];
    for (const run of runs) {
      releases.push(run.lock());
      refuseSecretsInRun(families, run);
      noteUnreplayable(run, (parseYamlText(run.configText(), `${run.path}/config.yaml`) as { llm?: Record<string, unknown> } | null)?.llm ?? {}, note);
      recordedFiles.push(...(await familyFiles(families, run, note, `${COMPARE_RUNS}/${basename(run.path)}/`)));
    }
    const code = bundleCode(runs.flatMap(runCode), note);
    const createdAt = new Date().toISOString();
    const packed = await packRun({
      runDir: dir,
      runId: basename(realpathSync(dir)),
      compare: true,
      out,
      force: o.force,
      withPolicies: o.withPolicies,
      createdAt,
      extras: [{ path: CODE_VERSION_FILE, bytes: Buffer.from(`${JSON.stringify(code, null, 2)}\n`) }],
      recordedFiles,
      secrets: secretsInEnv(process.env),
    }).catch((e: unknown) => {
      throw asUserError(e, "check the compare directory and the folder of -o (space, permissions), then bundle again");
    });
    wrote(dir, out, given, packed, createdAt, note);
  } finally {
    releases.reverse().forEach((release) => release());
  }
};

/** `hexa bundle`'s work (src/cli/bundle.ts holds its flags). */
export const bundleRun = async (families: FamilyRegistry, argv: BundleArgs): Promise<void> => {
  const note = (line: string) => process.stderr.write(`${line}\n`);
  const out = resolve(argv.out);
  const inside = relative(resolve(argv.run), out);
  if (!inside.startsWith("..") && !isAbsolute(inside)) throw new ConfigError(`-o ${argv.out}: inside the run directory; write the bundle outside it`);
  if (existsSync(out) && !argv.force) throw new ConfigError(`-o ${argv.out}: already exists; add --force to replace it, or name another file`);
  if (isSearchDirectory(argv.run)) {
    if (argv.config !== undefined)
      throw new ConfigError(`--config: ${argv.run} is a hexa search directory, made from flags (search-config.json records them); leave --config out`);
    return bundleSearch(families, argv.run, out, argv.out, { force: argv.force, withPolicies: argv["with-policies"] }, note);
  }
  if (isCompareDirectory(argv.run)) {
    if (argv.config !== undefined)
      throw new ConfigError(`--config: ${argv.run} is a hexa compare directory (its cells/ hold each run's config); leave --config out`);
    return bundleCompare(families, argv.run, out, argv.out, { force: argv.force, withPolicies: argv["with-policies"] }, note);
  }
  const dir = RunDir.open(argv.run);
  const release = dir.lock();
  try {
    refuseSecretsInRun(families, dir);
    const secrets = secretsInEnv(process.env);
    const given = argv.config === undefined ? undefined : givenConfig(families, argv.config, dir, note);
    const code = bundleCode(runCode(dir), note);
    const llm =
      (parseYamlText(dir.configText(), `${dir.path}/config.yaml`) as { llm?: { cacheDir?: unknown; auditLog?: unknown; auditHashOnly?: unknown } } | null)
        ?.llm ?? {};
    noteUnreplayable(dir, llm, note);
    const cacheDir = llm.cacheDir;
    const recordedFiles = await familyFiles(families, dir, note);
    const createdAt = new Date().toISOString();
    const packed = await packRun({
      runDir: dir.path,
      runId: dir.meta.id,
      out,
      force: argv.force,
      withPolicies: argv["with-policies"],
      createdAt,
      extras: [
        { path: CODE_VERSION_FILE, bytes: Buffer.from(`${JSON.stringify(code, null, 2)}\n`) },
        ...(given ? [{ path: GIVEN_CONFIG, bytes: given.bytes }] : []),
      ],
      ...(typeof cacheDir === "string" ? { cacheDir: resolve(cacheDir) } : {}),
      recordedFiles,
      secrets: [...secrets, ...(given?.secrets ?? [])],
    }).catch((e: unknown) => {
      throw asUserError(e, "check the run directory and the folder of -o (space, permissions), then bundle again");
    });
    wrote(dir.path, out, argv.out, packed, createdAt, note);
  } finally {
    release();
  }
};
