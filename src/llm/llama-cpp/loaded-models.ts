import {
  ChatMLChatWrapper,
  getLlama,
  InsufficientMemoryError,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatWrapper,
  type GbnfJsonSchema,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
} from "node-llama-cpp";
import { ConfigError } from "../../errors.ts";
import { contextKeyOf, loadKeyOf, type LlamaCppModelConfig } from "./config.ts";
import { openModelFile, type ModelFile } from "./model-file.ts";
import { ggufServedOf, type GgufServed } from "./served.ts";

/**
 * Where the chat template came from: the GGUF's `tokenizer.chat_template` (a known one runs as node-llama-cpp's
 * built-in wrapper, another through its Jinja wrapper), or, for a file without one, the default: ChatML
 * (`<|im_start|>role … <|im_end|>`), the format most instruct models of this size are tuned on.
 */
type TemplateSource = "gguf" | "default (ChatML)";

/** A model loaded once, with the chat wrapper its template gives. */
export interface LoadedModel {
  file: ModelFile;
  llama: Llama;
  model: LlamaModel;
  chatWrapper: ChatWrapper;
  templateSource: TemplateSource;
  /** Resident memory (RSS) of the process just before and just after the load, bytes. */
  rss: { before: number; after: number };
}

/**
 * A loaded model and one context on it whose `parallel` sequences are the conversations it serves at once; a
 * conversation waits for a free sequence. node-llama-cpp batches the sequences' evaluations together.
 */
export interface SharedModel extends LoadedModel {
  withSequence<T>(use: (sequence: LlamaContextSequence) => Promise<T>): Promise<T>;
  /** The grammar of a JSON schema, compiled once per schema. */
  grammarFor(schema: GbnfJsonSchema): Promise<LlamaGrammar>;
}

/** Hands out free sequences of one context, in the order they were asked for. */
class SequencePool {
  private readonly free: LlamaContextSequence[];
  private readonly waiting: Array<(s: LlamaContextSequence) => void> = [];
  constructor(context: LlamaContext) {
    this.free = Array.from({ length: context.totalSequences }, () => context.getSequence());
  }
  async use<T>(fn: (s: LlamaContextSequence) => Promise<T>): Promise<T> {
    const sequence = this.free.pop() ?? (await new Promise<LlamaContextSequence>((r) => this.waiting.push(r)));
    try {
      return await fn(sequence);
    } finally {
      const next = this.waiting.shift();
      if (next) next(sequence);
      else this.free.push(sequence);
    }
  }
}

const chatWrapperOf = (model: LlamaModel, file: ModelFile): { chatWrapper: ChatWrapper; templateSource: TemplateSource } => {
  if (typeof file.info.metadata.tokenizer?.chat_template !== "string") return { chatWrapper: new ChatMLChatWrapper(), templateSource: "default (ChatML)" };
  return { chatWrapper: resolveChatWrapper(model) ?? new ChatMLChatWrapper(), templateSource: "gguf" };
};

/** A load that failed, as the user's to fix: the file does not fit in memory, or llama.cpp cannot read it. */
const loadError = (e: unknown, where: string, path: string): ConfigError =>
  e instanceof InsufficientMemoryError
    ? new ConfigError(
        `${where}: ${path} does not fit in the free memory (got ${e.message}); use a smaller quantisation or model, or lower ${where.replace(/\.model$/, "")}.contextSize`,
      )
    : new ConfigError(
        `${where}: llama.cpp cannot load ${path} (got ${(e as Error).message}); check that the file is whole and of an architecture llama.cpp runs`,
      );

/**
 * The embedded models of one process: each file is loaded once per load options and shared by every role that
 * names it (one `Llama` per GPU choice). Made by the composition root and closed with it (docs/ARCHITECTURE.md §2,
 * rule 7: no module-level state).
 */
export class LlamaModels {
  /**
   * `ramPadding`: bytes of RAM node-llama-cpp's memory checks take off the free memory they see (getLlama's
   * option; unset: its default). A test sets it to the whole RAM to meet a machine with no room, file small.
   */
  constructor(private readonly options: { ramPadding?: number } = {}) {}

  private readonly files = new Map<string, Promise<ModelFile>>();
  private readonly llamas = new Map<string, Promise<Llama>>();
  private readonly loaded = new Map<string, Promise<LoadedModel>>();
  private readonly shared = new Map<string, Promise<SharedModel>>();
  private readonly identities = new Map<string, Promise<GgufServed>>();

  /** The model `config` names, loaded on first use; `where` is its config path, e.g. "llm.actor". */
  async acquire(config: LlamaCppModelConfig, where: string): Promise<SharedModel> {
    const file = await this.file(config.model, where);
    const key = contextKeyOf(config, file.realPath);
    let shared = this.shared.get(key);
    if (!shared) {
      shared = this.share(config, file, where);
      this.shared.set(key, shared);
    }
    return shared;
  }

  /** What the configured file is, its sha256 included: read once per path (a model is gigabytes). */
  served(config: Pick<LlamaCppModelConfig, "model">, where: string): Promise<GgufServed> {
    let served = this.identities.get(config.model);
    if (!served) {
      served = this.file(config.model, where).then(ggufServedOf);
      served.catch(() => this.identities.delete(config.model));
      this.identities.set(config.model, served);
    }
    return served;
  }

  /** The configured file, checked and read once per path (a call must not re-read a model's metadata). */
  private file(path: string, where: string): Promise<ModelFile> {
    let file = this.files.get(path);
    if (!file) {
      file = openModelFile(path, `${where}.model`);
      file.catch(() => this.files.delete(path));
      this.files.set(path, file);
    }
    return file;
  }

  /** Loads the model (once per file and load options) without a context: `hexa doctor`'s load. */
  load(config: LlamaCppModelConfig, file: ModelFile, where: string): Promise<LoadedModel> {
    const key = loadKeyOf(config, file.realPath);
    let loaded = this.loaded.get(key);
    if (!loaded) {
      loaded = this.loadOnce(config, file, where);
      this.loaded.set(key, loaded);
    }
    return loaded;
  }

  /** Frees every model, context and binding loaded here. */
  async close(): Promise<void> {
    const llamas = await Promise.allSettled([...this.llamas.values()]);
    this.shared.clear();
    this.loaded.clear();
    this.files.clear();
    this.identities.clear();
    this.llamas.clear();
    for (const l of llamas) if (l.status === "fulfilled") await l.value.dispose();
  }

  private llama(gpu: LlamaCppModelConfig["gpu"]): Promise<Llama> {
    const key = String(gpu);
    let llama = this.llamas.get(key);
    if (!llama) {
      const { ramPadding } = this.options;
      llama = getLlama({ gpu, logLevel: LlamaLogLevel.error, build: "never", ...(ramPadding === undefined ? {} : { ramPadding }) });
      this.llamas.set(key, llama);
    }
    return llama;
  }

  private async loadOnce(config: LlamaCppModelConfig, file: ModelFile, where: string): Promise<LoadedModel> {
    const llama = await this.llama(config.gpu);
    const before = process.memoryUsage.rss();
    const model = await llama
      .loadModel({ modelPath: file.realPath, ...(config.gpuLayers === undefined ? {} : { gpuLayers: config.gpuLayers }) })
      .catch((e: unknown) => Promise.reject(loadError(e, `${where}.model`, file.realPath)));
    return { file, llama, model, ...chatWrapperOf(model, file), rss: { before, after: process.memoryUsage.rss() } };
  }

  private async share(config: LlamaCppModelConfig, file: ModelFile, where: string): Promise<SharedModel> {
    const loaded = await this.load(config, file, where);
    const context = await loaded.model
      .createContext({ contextSize: config.contextSize, sequences: config.parallel, ...(config.threads ? { threads: config.threads } : {}) })
      .catch((e: unknown) => Promise.reject(loadError(e, `${where}.model`, file.realPath)));
    const pool = new SequencePool(context);
    const grammars = new Map<string, Promise<LlamaGrammar>>();
    return {
      ...loaded,
      withSequence: (use) => pool.use(use),
      grammarFor: (schema) => {
        const key = JSON.stringify(schema);
        // Its type parameter reads a literal schema to type the parsed answer; this one is known only at run time.
        const grammar = grammars.get(key) ?? loaded.llama.createGrammarForJsonSchema(schema as { const: null });
        grammars.set(key, grammar);
        return grammar;
      },
    };
  }
}
