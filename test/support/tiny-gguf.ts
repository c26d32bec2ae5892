import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes a tiny llama-architecture GGUF (format: github.com/ggml-org/ggml/blob/master/docs/gguf.md) with seeded
 * random weights, for tests: no model weights are downloaded or committed. Its vocabulary is byte-level (GPT-2's
 * byte-to-character map, no merges, so every byte is one token and tokenisation is unique) plus ChatML's special
 * tokens, and its chat template is ChatML's. The weights are random but tilted: one hidden dimension is held
 * constant, and the output rows of a few tokens (`"`, `}`, `]`, `1`, `<|im_end|>`) read it, so that wherever a
 * grammar lets them the model prefers them and grammar-held JSON ends within a few tokens.
 */

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];
/** Tokens the model prefers, most preferred first, and the output weight that tilts it towards each. */
const PREFERRED = ['"', "}", "]", "0", "<|im_end|>"];

export interface TinyGgufOptions {
  /** The chat template; null writes none. */
  chatTemplate?: string | null;
  seed?: number;
  embd?: number;
  layers?: number;
  contextLength?: number;
  name?: string;
  /** Metadata added after the model's own. */
  extraMetadata?: Kv[];
}

/** GPT-2's printable stand-in for each byte (bytes_to_unicode). */
const byteChars = (): string[] => {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let next = 256;
  return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(printable(b) ? b : next++));
};

const T = { u32: 4, f32: 6, bool: 7, str: 8, arr: 9 } as const;
export type Kv =
  | [string, "u32", number]
  | [string, "bool", boolean]
  | [string, "f32", number]
  | [string, "str", string]
  | [string, "strs", string[]]
  | [string, "i32s", number[]];

/** Little-endian writer of GGUF's primitive values. */
class Bytes {
  readonly parts: Buffer[] = [];
  u8 = (n: number) => this.push(1, (b) => b.writeUInt8(n));
  u32 = (n: number) => this.push(4, (b) => b.writeUInt32LE(n));
  i32 = (n: number) => this.push(4, (b) => b.writeInt32LE(n));
  u64 = (n: number) => this.push(8, (b) => b.writeBigUInt64LE(BigInt(n)));
  f32 = (n: number) => this.push(4, (b) => b.writeFloatLE(n));
  str = (s: string) => {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.parts.push(b);
  };
  size = () => this.parts.reduce((n, b) => n + b.length, 0);
  private push(n: number, write: (b: Buffer) => void) {
    const b = Buffer.alloc(n);
    write(b);
    this.parts.push(b);
  }
}

const writeKv = (out: Bytes, [key, type, value]: Kv) => {
  out.str(key);
  if (type === "u32") [out.u32(T.u32), out.u32(value)];
  else if (type === "f32") [out.u32(T.f32), out.f32(value)];
  else if (type === "bool") [out.u32(T.bool), out.u8(value ? 1 : 0)];
  else if (type === "str") [out.u32(T.str), out.str(value)];
  else if (type === "strs") [out.u32(T.arr), out.u32(T.str), out.u64(value.length), value.forEach(out.str)];
  else [out.u32(T.arr), out.u32(5), out.u64(value.length), value.forEach(out.i32)];
};

/** mulberry32: a seeded uniform in [0, 1). */
const uniform = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

interface Tensor {
  name: string;
  dims: number[];
  data: Float32Array;
}

const tensorsOf = (vocab: string[], o: Required<Omit<TinyGgufOptions, "chatTemplate" | "name" | "extraMetadata">>): Tensor[] => {
  const rand = uniform(o.seed);
  const e = o.embd;
  const ff = 2 * e;
  const random = (name: string, dims: number[], scale = 0.02) => ({
    name,
    dims,
    data: Float32Array.from({ length: dims[0]! * dims[1]! }, () => (rand() * 2 - 1) * scale),
  });
  const ones = (name: string) => ({ name, dims: [e], data: new Float32Array(e).fill(1) });
  const embedding = random("token_embd.weight", [e, vocab.length]);
  for (let t = 0; t < vocab.length; t++) embedding.data[t * e] = 1; // the constant dimension
  const output = random("output.weight", [e, vocab.length]);
  PREFERRED.forEach((token, rank) => {
    output.data[vocab.indexOf(token) * e] = 30 - 2 * rank;
  });
  const blocks = Array.from({ length: o.layers }, (_, i) => [
    ones(`blk.${i}.attn_norm.weight`),
    random(`blk.${i}.attn_q.weight`, [e, e]),
    random(`blk.${i}.attn_k.weight`, [e, e]),
    random(`blk.${i}.attn_v.weight`, [e, e]),
    random(`blk.${i}.attn_output.weight`, [e, e]),
    ones(`blk.${i}.ffn_norm.weight`),
    random(`blk.${i}.ffn_gate.weight`, [e, ff]),
    random(`blk.${i}.ffn_up.weight`, [e, ff]),
    random(`blk.${i}.ffn_down.weight`, [ff, e]),
  ]);
  return [embedding, ...blocks.flat(), ones("output_norm.weight"), output];
};

const ALIGN = 32;
const pad = (n: number) => (ALIGN - (n % ALIGN)) % ALIGN;

/** Writes the model to `dir/<name>.gguf` and returns its path. */
export const writeTinyGguf = (dir: string, options: TinyGgufOptions = {}): string => {
  const o = { seed: 1, embd: 32, layers: 1, contextLength: 512, ...options };
  const vocab = [...byteChars(), ...SPECIALS];
  const heads = 4;
  const kvs: Kv[] = [
    ["general.architecture", "str", "llama"],
    ["general.name", "str", o.name ?? "tiny-random-llama"],
    ["general.file_type", "u32", 0],
    ["llama.context_length", "u32", o.contextLength],
    ["llama.embedding_length", "u32", o.embd],
    ["llama.block_count", "u32", o.layers],
    ["llama.feed_forward_length", "u32", 2 * o.embd],
    ["llama.attention.head_count", "u32", heads],
    ["llama.attention.head_count_kv", "u32", heads],
    ["llama.rope.dimension_count", "u32", o.embd / heads],
    ["llama.attention.layer_norm_rms_epsilon", "f32", 1e-5],
    ["tokenizer.ggml.model", "str", "gpt2"],
    ["tokenizer.ggml.pre", "str", "default"],
    ["tokenizer.ggml.tokens", "strs", vocab],
    ["tokenizer.ggml.token_type", "i32s", vocab.map((_, i) => (i < 256 ? 1 : 3))],
    ["tokenizer.ggml.merges", "strs", []],
    ["tokenizer.ggml.bos_token_id", "u32", vocab.indexOf("<|endoftext|>")],
    ["tokenizer.ggml.eos_token_id", "u32", vocab.indexOf("<|im_end|>")],
    ["tokenizer.ggml.add_bos_token", "bool", false],
  ];
  const template = o.chatTemplate === undefined ? CHATML_TEMPLATE : o.chatTemplate;
  if (template !== null) kvs.push(["tokenizer.chat_template", "str", template]);
  kvs.push(...(o.extraMetadata ?? []));
  const tensors = tensorsOf(vocab, o);
  const head = new Bytes();
  [head.u32(0x46554747), head.u32(3), head.u64(tensors.length), head.u64(kvs.length)];
  kvs.forEach((kv) => writeKv(head, kv));
  let offset = 0;
  for (const t of tensors) {
    [head.str(t.name), head.u32(t.dims.length), t.dims.forEach(head.u64), head.u32(0), head.u64(offset)];
    offset += t.data.byteLength + pad(t.data.byteLength);
  }
  const body = tensors.flatMap((t) => [Buffer.from(t.data.buffer), Buffer.alloc(pad(t.data.byteLength))]);
  const path = join(dir, `${o.name ?? "tiny"}.gguf`);
  writeFileSync(path, Buffer.concat([...head.parts, Buffer.alloc(pad(head.size())), ...body]));
  return path;
};
