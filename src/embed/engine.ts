import { existsSync } from "node:fs";
import { env, pipeline, Tensor, type FeatureExtractionPipeline } from "@huggingface/transformers";
import { loadFailureMessage, type ModelSource } from "./model-spec.ts";
import { lengthGroups } from "./length-groups.ts";
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
  embed(texts: string[]): Promise<Pooled>;
  dispose(): Promise<void>;
}

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
 * ONNX Runtime's intra-op threads spin-wait for more work after each run (by default). Between two
 * embeddings the service does everything else (dedup, SQLite, HTTP), so the spinning only burned a
 * core: ~20–30 ms of CPU per 100-text batch store, 3–4 times what the embedding itself costs
 * (glove-sif-100d, measured with the batch-store benchmark). Without it the threads sleep between runs.
 */
export const SESSION_OPTIONS = { extra: { session: { intra_op: { allow_spinning: "0" } } } };

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
  const engine = new PipelineEngine(extractor);
  await engine.warmUp();
  return engine;
}

class PipelineEngine implements Engine {
  dimension = 0;

  constructor(private readonly extractor: FeatureExtractionPipeline) {}

  /** First calls pay for ORT allocations and JIT; do them before the first real query. */
  async warmUp(): Promise<void> {
    const first = await this.run(["warm up the embedding pipeline"]);
    this.dimension = first.dim;
    for (let i = 0; i < 20; i++) await this.run(["what does the user prefer?", "a somewhat longer text ".repeat(i % 5)]);
  }

  async embed(texts: string[]): Promise<Pooled> {
    const groups = lengthGroups(texts);
    if (groups.length === 1) return (await this.run(texts)).pooled;
    const dim = this.dimension;
    const vectors = new Float32Array(texts.length * dim);
    const tokens = new Int32Array(texts.length);
    for (const group of groups) {
      const { pooled } = await this.run(group.map((i) => texts[i]!));
      group.forEach((i, k) => {
        vectors.set(pooled.vectors.subarray(k * dim, (k + 1) * dim), i * dim);
        tokens[i] = pooled.tokens[k]!;
      });
    }
    return { vectors, tokens };
  }

  private async run(texts: string[]): Promise<{ pooled: Pooled; dim: number }> {
    const inputs = this.extractor.tokenizer(texts, { padding: true, truncation: true });
    const ids = inputs.input_ids as Tensor;
    const mask = inputs.attention_mask as Tensor;
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
