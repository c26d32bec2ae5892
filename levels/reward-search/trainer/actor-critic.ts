/**
 * The actor-critic of policy.ts (two tanh MLPs, or one shared trunk with two heads) as a kernel: a forward pass
 * over up to `capacity` rows and, after it, the backward pass of given head and value gradients into a flat
 * gradient in θ's layout. Float64 throughout (θ is copied in by `load`); every buffer is allocated once, in the
 * constructor, so the rollout's inference and PPO's minibatch updates allocate nothing (docs/spec/reward-search.md
 * §6, kernels). The matrix products, the tanh activation (Eigen's rational approximation, |error| < 3e-7, the
 * network's activation everywhere: rollout, update, evaluation, a loaded policy) and its gradient run in the
 * float64 SIMD kernels (wasm/kernels.ts), whose memory holds every buffer; each output is a sum in a fixed order,
 * so results are the same bit for bit on every run.
 */
import type { PolicyLayout } from "./policy.ts";
import { KernelMemory } from "./wasm/kernels.ts";

/** A dense layer's place in θ: W (nIn × nOut, row-major) at w, b at b. */
interface Layer {
  w: number;
  b: number;
  nIn: number;
  nOut: number;
}

const layerOf = (l: PolicyLayout, w: string, b: string): Layer => {
  const pw = l.params.find((p) => p.name === w)!,
    pb = l.params.find((p) => p.name === b)!;
  return { w: pw.offset, b: pb.offset, nIn: pw.shape[0]!, nOut: pw.shape[1]! };
};

export type ForwardParts = "head" | "value" | "both";

export class ActorCritic {
  /** capacity × outDim: logits (discrete) or means (continuous) of the last forward pass. */
  readonly head: Float64Array;
  /** capacity values of the last forward pass. */
  readonly value: Float64Array;
  /** θ as float64, θ's layout. */
  readonly w: Float64Array;
  /** Each weight matrix transposed (nOut × nIn) at its own offset: the backward pass's ∂x = ∂z · Wᵀ reads it. */
  private readonly wt: Float64Array;
  private readonly mem: KernelMemory;
  private readonly pi: [Layer, Layer, Layer];
  /** The critic's trunk (null when shared) and its head. */
  private readonly v: [Layer, Layer] | null;
  private readonly vHead: Layer;
  private readonly layers: Layer[];
  /** The last forward pass's observations, capacity × obsDim. */
  private readonly input: Float64Array;
  private readonly a1: Float64Array;
  private readonly a2: Float64Array;
  private readonly c1: Float64Array;
  private readonly c2: Float64Array;
  // Backward workspaces: the given head and value gradients, the hidden gradients, the weights' gradient.
  private readonly dHead: Float64Array;
  private readonly dValue: Float64Array;
  private readonly da: Float64Array;
  private readonly dz: Float64Array;
  private readonly dc: Float64Array;
  private readonly g: Float64Array;
  /** A single 1: the bias gradient is 1ᵀ · ∂Z, a product like the others. */
  private readonly one: Float64Array;

  constructor(
    readonly layout: PolicyLayout,
    readonly capacity: number,
  ) {
    const l = layout,
      h = l.hidden,
      cap = capacity;
    this.pi = [layerOf(l, "pi.w1", "pi.b1"), layerOf(l, "pi.w2", "pi.b2"), layerOf(l, "pi.w3", "pi.b3")];
    this.v = l.shared ? null : [layerOf(l, "v.w1", "v.b1"), layerOf(l, "v.w2", "v.b2")];
    this.vHead = layerOf(l, "v.w3", "v.b3");
    this.layers = [...this.pi, ...(this.v ?? []), this.vHead];
    const critic = l.shared ? 0 : cap * h;
    this.mem = new KernelMemory([
      l.size,
      l.size,
      cap * l.outDim,
      cap,
      cap * l.obsDim,
      cap * h,
      cap * h,
      critic,
      critic,
      cap * l.outDim,
      cap,
      cap * h,
      cap * h,
      cap * h,
      l.size,
      1,
    ]);
    const [w, wt, head, value, input, a1, a2, c1, c2, dHead, dValue, da, dz, dc, g, one] = this.mem.views as [Float64Array, ...Float64Array[]];
    [this.w, this.wt, this.head, this.value, this.input, this.a1, this.a2] = [w, wt!, head!, value!, input!, a1!, a2!];
    this.c1 = l.shared ? a1! : c1!;
    this.c2 = l.shared ? a2! : c2!;
    [this.dHead, this.dValue, this.da, this.dz, this.dc, this.g, this.one] = [dHead!, dValue!, da!, dz!, dc!, g!, one!];
    this.one[0] = 1;
  }

  /** Take θ (float32 as trained and saved, or float64 for finite differences). */
  load(theta: Float32Array | Float64Array): void {
    const { w, wt } = this;
    for (let i = 0; i < w.length; i++) w[i] = theta[i]!;
    for (const L of this.layers) this.mem.transpose(w, L.w, L.nIn, L.nOut, wt, L.w);
  }

  private dense(x: Float64Array, rows: number, L: Layer, y: Float64Array, tanh: boolean): void {
    this.mem.gemm(x, 0, L.nIn, 1, this.w, L.w, L.nOut, y, 0, L.nOut, rows, L.nOut, L.nIn, this.w, L.b);
    if (tanh) this.mem.tanhInPlace(y, rows * L.nOut);
  }

  /** The network on `rows` (already normalised) observations, row-major rows × obsDim; fills head and/or value. */
  forward(obs: Float64Array, rows: number, parts: ForwardParts): void {
    if (rows > this.capacity) throw new RangeError(`actor-critic: ${rows} rows exceed its capacity ${this.capacity}`);
    const x = this.input;
    for (let i = 0, n = rows * this.layout.obsDim; i < n; i++) x[i] = obs[i]!;
    const [p1, p2, p3] = this.pi;
    const trunk = parts !== "value" || this.v === null;
    if (trunk) {
      this.dense(x, rows, p1, this.a1, true);
      this.dense(this.a1, rows, p2, this.a2, true);
    }
    if (parts !== "value") this.dense(this.a2, rows, p3, this.head, false);
    if (parts === "head") return;
    if (this.v !== null) {
      this.dense(x, rows, this.v[0], this.c1, true);
      this.dense(this.c1, rows, this.v[1], this.c2, true);
    }
    this.dense(this.c2, rows, this.vHead, this.value, false);
  }

  /**
   * Gradients of one layer from its pre-activation gradient dZ (rows × nOut) and its input x (rows × nIn): ∂W =
   * xᵀ · dZ and ∂b = 1ᵀ · dZ into the weights' gradient; ∂x = dZ · Wᵀ into dx when given.
   */
  private backLayer(x: Float64Array, dZ: Float64Array, rows: number, L: Layer, dx: Float64Array | null): void {
    const { mem, g } = this;
    mem.gemm(x, 0, 1, L.nIn, dZ, 0, L.nOut, g, L.w, L.nOut, L.nIn, L.nOut, rows, null, 0);
    mem.gemm(this.one, 0, 0, 0, dZ, 0, L.nOut, g, L.b, L.nOut, 1, L.nOut, rows, null, 0);
    if (dx !== null) mem.gemm(dZ, 0, L.nOut, 1, this.wt, L.w, L.nIn, dx, 0, L.nIn, rows, L.nIn, L.nOut, null, 0);
  }

  /**
   * After `forward(obs, rows, "both")`, on its observations and activations: the gradient of a loss whose
   * gradients with respect to the head (rows × outDim) and the values (rows) are given, written into every weight
   * and bias of grad (θ's layout; the log-std entry is left to the caller).
   */
  backward(dHead: Float64Array, dValue: Float64Array, rows: number, grad: Float64Array): void {
    const h = this.layout.hidden,
      n = rows * h;
    const [p1, p2, p3] = this.pi;
    const { da, dz, dc, mem } = this;
    for (let i = 0, k = rows * this.layout.outDim; i < k; i++) this.dHead[i] = dHead[i]!;
    for (let i = 0; i < rows; i++) this.dValue[i] = dValue[i]!;
    this.backLayer(this.a2, this.dHead, rows, p3, da);
    this.backLayer(this.c2, this.dValue, rows, this.vHead, dc);
    if (this.v === null) for (let i = 0; i < n; i++) da[i]! += dc[i]!;
    mem.tanhBack(da, this.a2, dz, n);
    this.backLayer(this.a1, dz, rows, p2, da);
    mem.tanhBack(da, this.a1, dz, n);
    this.backLayer(this.input, dz, rows, p1, null);
    if (this.v !== null) {
      mem.tanhBack(dc, this.c2, dz, n);
      this.backLayer(this.c1, dz, rows, this.v[1], dc);
      mem.tanhBack(dc, this.c1, dz, n);
      this.backLayer(this.input, dz, rows, this.v[0], null);
    }
    for (const L of this.layers) {
      for (let i = L.w, end = L.w + L.nIn * L.nOut; i < end; i++) grad[i] = this.g[i]!;
      for (let i = L.b, end = L.b + L.nOut; i < end; i++) grad[i] = this.g[i]!;
    }
  }
}
