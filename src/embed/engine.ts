import "./onnx-telemetry.ts"; // before transformers.js loads onnxruntime
import { existsSync } from "node:fs";
import { env, pipeline, Tensor, type FeatureExtractionPipeline } from "@huggingface/transformers";
import { loadFailureMessage, type ModelSource } from "./model-spec.ts";
import { lengthGroups } from "./length-groups.ts";
import { memoizeWordPieces } from "./word-memo.ts";
import { meanPoolNormalize, sentenceVectors, type Pooled } from "./pooling.ts";

/**
 * A warm transformers.js feature-extraction pipeline. Loaded through the standard
 * `pipeline()` so any compatible folder or hub model works, but run as
 * tokenizer → model → our own pooling: that gives the attention mask for token
 * counts, tokenizes once, and defines the empty-text case (see pooling.ts). A model
 * whose graph pools by itself (a `sentence_embedding` output, as use-lite-128d has)
 * is taken as it is.
 */
export interface Engine {
  readonly dimension: number;
  /**
   * The texts' vectors. `onPart`, when given, receives each run's rows (indices into `texts`, every
   * text exactly once) as soon as that run ends, so a caller can hand them on before the batch is done.
   */
  embed(texts: string[], onPart?: OnPart): Promise<Pooled>;
  dispose(): Promise<void>;
}

export type OnPart = (rows: number[], part: Pooled) => void;

/** Only a hub id may touch the network; everything else is pinned to disk. */
function configureEnv(source: ModelSource, cacheDir: string): void {
  const remote = source.kind === "hub";
  env.allowLocalModels = true;
  env.allowRemoteModels = remote;
  env.localModelPath = cacheDir;
  env.cacheDir = cacheDir;
  env.useFSCache = remote; // a local folder must not be copied into the cache
  if (!remote) {
    env.fetch = async (input) => {
      throw new Error(`network access is disabled for local embedding models (tried ${String(input)})`);
    };
  }
}

/**
 * One thread per run, the worker's own. ONNX Runtime would split each operator over an intra-op
 * pool (a thread per core) and wait for its slowest share; the service's main thread needs the
 * other core anyway, and on a loaded 2-core machine every operator waited for a descheduled pool
 * thread: at 64 concurrent RealMem recalls the worker spent 9.4 ms of CPU per query with the pool
 * against 4.9 without, and the service answered 19 recalls/s against 60 (load average 7–10, paired
 * runs). The pool also spin-waited between runs unless told not to (20–30 ms of CPU per 100-text
 * batch store); with no pool there is nothing to spin.
 */
export const SESSION_OPTIONS = { intraOpNumThreads: 1 };

export async function loadEngine(source: ModelSource, spec: string, cacheDir: string): Promise<Engine> {
  configureEnv(source, cacheDir);
  if (source.kind !== "hub" && !existsSync(source.dir)) {
    throw new Error(loadFailureMessage(spec, `model folder ${source.dir} does not exist`));
  }
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await pipeline("feature-extraction", source.kind === "hub" ? source.id : source.dir, {
      local_files_only: source.kind !== "hub",
      device: "cpu",
      session_options: SESSION_OPTIONS,
    });
  } catch (err) {
    throw new Error(loadFailureMessage(spec, (err as Error).message));
  }
  memoizeWordPieces(extractor.tokenizer);
  const engine = new PipelineEngine(extractor);
  await engine.warmUp();
  return engine;
}

/** The tokenizer's output: input_ids, attention_mask (and token_type_ids for some models), each [batch, seq] int64. */
type Inputs = Record<string, Tensor>;

function tokenCounts(mask: BigInt64Array, batch: number, seq: number): number[] {
  return Array.from({ length: batch }, (_, b) => {
    let n = 0;
    for (let s = 0; s < seq; s++) if (mask[b * seq + s] !== 0n) n++;
    return n;
  });
}

/** The given rows of every [batch, seq] input, cut to `width` positions (the end of each row when padded on the left). */
function selectRows(inputs: Inputs, rows: number[], width: number, paddedLeft: boolean): Inputs {
  return Object.fromEntries(
    Object.entries(inputs).map(([name, tensor]) => {
      const seq = tensor.dims[1] ?? 0;
      const from = paddedLeft ? seq - width : 0;
      const data = tensor.data as BigInt64Array;
      const out = new BigInt64Array(rows.length * width);
      rows.forEach((row, k) => out.set(data.subarray(row * seq + from, row * seq + from + width), k * width));
      return [name, new Tensor(tensor.type, out, [rows.length, width])];
    }),
  );
}

class PipelineEngine implements Engine {
  dimension = 0;

  constructor(private readonly extractor: FeatureExtractionPipeline) {}

  /** First calls pay for ORT allocations and JIT; do them before the first real query. */
  async warmUp(): Promise<void> {
    const first = await this.run(this.tokenize(["warm up the embedding pipeline"]));
    this.dimension = first.dim;
    for (let i = 0; i < 20; i++) await this.embed(["what does the user prefer?", "a somewhat longer text ".repeat(i % 5)]);
  }

  /** Tokenized once; run in groups of similar token length (length-groups.ts), each padded to its longest. */
  async embed(texts: string[], onPart?: OnPart): Promise<Pooled> {
    const inputs = this.tokenize(texts);
    const mask = inputs.attention_mask!;
    const [batch = 0, seq = 0] = mask.dims;
    const lengths = tokenCounts(mask.data as BigInt64Array, batch, seq);
    const groups = lengthGroups(lengths);
    if (groups.length === 1 && Math.max(0, ...lengths) === seq) {
      const { pooled } = await this.run(inputs);
      onPart?.(Array.from({ length: batch }, (_, i) => i), pooled);
      return pooled;
    }
    const dim = this.dimension;
    const vectors = new Float32Array(batch * dim);
    const tokens = new Int32Array(batch);
    for (const group of groups) {
      const width = Math.max(0, ...group.map((i) => lengths[i]!));
      const { pooled } = await this.run(selectRows(inputs, group, width, this.extractor.tokenizer.padding_side === "left"));
      onPart?.(group, pooled);
      group.forEach((i, k) => {
        vectors.set(pooled.vectors.subarray(k * dim, (k + 1) * dim), i * dim);
        tokens[i] = pooled.tokens[k]!;
      });
    }
    return { vectors, tokens };
  }

  private tokenize(texts: string[]): Inputs {
    return this.extractor.tokenizer(texts, { padding: true, truncation: true }) as unknown as Inputs;
  }

  private async run(inputs: Inputs): Promise<{ pooled: Pooled; dim: number }> {
    const ids = inputs.input_ids!;
    const mask = inputs.attention_mask!;
    const [batch = 0, seq = 0] = ids.dims;
    if (seq === 0) {
      // Only empty texts: nothing to look up, and a non-glove model may reject a 0-length axis.
      const pooled = meanPoolNormalize(new Float32Array(0), new BigInt64Array(0), batch, 0, this.dimension);
      return { pooled, dim: this.dimension };
    }
    const outputs = (await this.extractor.model(inputs)) as Record<string, Tensor | undefined>;
    if (outputs.sentence_embedding) return { pooled: sentenceVectors(outputs.sentence_embedding, mask), dim: outputs.sentence_embedding.dims[1] ?? 0 };
    let hidden = outputs.last_hidden_state ?? outputs.token_embeddings ?? outputs.logits;
    if (!hidden) throw new Error(`model has neither a sentence_embedding nor a last_hidden_state output`);
    if (hidden.type !== "float32") hidden = hidden.to("float32");
    const dim = hidden.dims[2] ?? 0;
    const pooled = meanPoolNormalize(hidden.data as Float32Array, mask.data as BigInt64Array, batch, seq, dim);
    return { pooled, dim };
  }

  async dispose(): Promise<void> {
    await this.extractor.dispose();
  }
}
